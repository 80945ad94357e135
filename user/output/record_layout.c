// SPDX-License-Identifier: GPL-2.0
/* The JSON record's figures (see record_layout.h): the rows, in the order they are written. */
#include "record_layout.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "counters.h"
#include "figure_names.h"

/* A field's word index in each source's struct. */
#define WORD_OF(type, field) (offsetof(type, field) / sizeof(__u64))
#define T(field) {FROM_TOTALS, WORD_OF(struct fs_totals, field)}
#define P(field) {FROM_PROC, WORD_OF(struct proc_totals, field)}
#define S(field) {FROM_SYSTEM, WORD_OF(struct system_totals, field)}
#define NOWHERE {0, 0}
/* The same words in every object: the object's own counter group. */
#define ALL_T(field) T(field), T(field)

/* Rows of a row's counter group, in every object. */
#define GROUP_FIGURE(depth, kind, arg, measure, key, field, test, doc, ...)                        \
	{depth, IN_ALL, kind, arg, measure, key, ALL_T(field), doc, {__VA_ARGS__}, test}
/* Rows only the system has. */
#define SYSTEM_FIGURE(depth, kind, measure, key, field, test, doc, ...)                            \
	{depth, IN_SYSTEM, kind, 0, measure, key, NOWHERE, S(field), doc, {__VA_ARGS__}, test}
/* Rows of a process's figures (collapses, stalls): a row's, and the system's over everyone. */
#define PROC_FIGURE(depth, kind, measure, key, field, test, doc, ...)                              \
	{depth, IN_ROW | IN_SYSTEM, kind, 0, measure, key, P(field), S(field), doc,                \
	 {__VA_ARGS__}, test}
#define OBJECT(depth, scopes, measure, key, doc)                                                   \
	{depth, scopes, RK_OBJECT, 0, measure, key, NOWHERE, NOWHERE, doc, {0}, NULL}

/* The collapse outcomes of each khugepaged event, at `depth`, from `field`'s results. */
#define OUTCOMES(depth, FIGURE, field, collapse_test, scan_test, zero_filled_test)                 \
	FIGURE(depth, RK_SCAN_RESULTS, MEASURE_THP_RESULTS + FS_THP_COLLAPSE, THP_COLLAPSE_NAME,   \
	       field.results[FS_THP_COLLAPSE], collapse_test,                                      \
	       "Anonymous collapses (huge_memory:mm_collapse_huge_page), by outcome.",             \
	       MF_COLLAPSE_RESULTS),                                                               \
	    FIGURE(depth, RK_SCAN_RESULTS, MEASURE_THP_RESULTS + FS_THP_COLLAPSE_FILE,             \
		   THP_COLLAPSE_FILE_NAME, field.results[FS_THP_COLLAPSE_FILE], scan_test,         \
		   "File and shmem collapses (huge_memory:mm_khugepaged_collapse_file), by "       \
		   "outcome.", MF_COLLAPSE_RESULTS),                                               \
	    FIGURE(depth, RK_SCAN_RESULTS, MEASURE_THP_RESULTS + FS_THP_SCAN, THP_SCAN_NAME,       \
		   field.results[FS_THP_SCAN], scan_test,                                          \
		   "khugepaged's scans of anonymous ranges (huge_memory:mm_khugepaged_scan_pmd), " \
		   "by outcome.", MF_COLLAPSE_RESULTS),                                            \
	    FIGURE(depth, RK_SCAN_RESULTS, MEASURE_THP_RESULTS + FS_THP_SCAN_FILE,                 \
		   THP_SCAN_FILE_NAME,                                                             \
		   field.results[FS_THP_SCAN_FILE], scan_test,                                     \
		   "khugepaged's scans of file ranges (huge_memory:mm_khugepaged_scan_file), by "  \
		   "outcome.", MF_COLLAPSE_RESULTS),                                               \
	    FIGURE(depth, RK_COUNT, MEASURE_THP_RESULTS + FS_THP_SCAN, "zero_filled",              \
		   field.zero_filled, zero_filled_test,                                            \
		   "Pages of the huge pages anonymous collapses made (khugepaged's and "           \
		   "MADV_COLLAPSE's) that had no page or the zero page before: filled with "       \
		   "zeroes, memory the process never touched (what max_ptes_none costs).",         \
		   MF_COLLAPSE_ZERO_FILLED)

/* A stall object's first members: a row's and the system's. */
#define STALL_TIMES(kind, stalls_test, time_test)                                                  \
	PROC_FIGURE(2, RK_COUNT, MEASURE_NONE, "stalls", stalls[kind].count, stalls_test,          \
		    "Stalls.",                                                                     \
			MF_STALL_SECONDS),                                                         \
	    PROC_FIGURE(2, RK_MICROS, MEASURE_NONE, "total_us", stalls[kind].total_ns, time_test,  \
			"Their time, in microseconds.", MF_STALL_SECONDS),                         \
	    PROC_FIGURE(2, RK_STALL_HIST, MEASURE_NONE, "hist_us", stalls[kind].hist, time_test,   \
			"Stalls by duration: a log2 bucket's lower bound in microseconds -> "      \
			"stalls.", MF_STALL_SECONDS)
#define STALLS_UNTRACKED(kind)                                                                     \
	SYSTEM_FIGURE(2, RK_COUNT, MEASURE_NONE, "untracked", stalls_untracked[kind], NULL,        \
		      "The stalls of processes the full process table had no room for.",           \
		      MF_STALL_SECONDS)
#define RECLAIM_STALLS(key, kind, doc, stalls_test, time_test)                                     \
	OBJECT(1, IN_ROW | IN_SYSTEM, MEASURE_STALLS + kind, key, doc),                            \
	    STALL_TIMES(kind, stalls_test, time_test),                                             \
	    PROC_FIGURE(2, RK_COUNT, MEASURE_NONE, "reclaimed", reclaimed[kind], stalls_test,      \
			"Pages reclaimed in them.", MF_STALL_RECLAIMED),                           \
	    STALLS_UNTRACKED(kind)

/* What one reclaimer (kswapd, or any other) did to each LRU list. */
#define RECLAIMER(key, who, doc, test)                                                             \
	OBJECT(2, IN_SYSTEM, MEASURE_NONE, key, doc),                                              \
	    SYSTEM_FIGURE(3, RK_LIST_PAGES, MEASURE_VMSCAN + FS_VMSCAN_SCANNED,                    \
			  VMSCAN_SCANNED_NAME,                                                     \
			  vmscan.scanned[who], test,                                               \
			  "Pages scanned from each list (vmscan:mm_vmscan_lru_isolate).",          \
			  MF_SYSTEM_VMSCAN),                                                       \
	    SYSTEM_FIGURE(3, RK_LIST_PAGES, MEASURE_VMSCAN + FS_VMSCAN_RECLAIMED,                  \
			  VMSCAN_RECLAIMED_NAME,                                                   \
			  vmscan.reclaimed[who], test,                                             \
			  "Pages reclaimed from the inactive lists "                               \
			  "(vmscan:mm_vmscan_lru_shrink_inactive).", MF_SYSTEM_VMSCAN),            \
	    SYSTEM_FIGURE(3, RK_LIST_PAGES, MEASURE_VMSCAN + FS_VMSCAN_DEACTIVATED,                \
			  VMSCAN_DEACTIVATED_NAME,                                                 \
			  vmscan.deactivated[who], test,                                           \
			  "Pages moved from the active to the inactive lists "                     \
			  "(vmscan:mm_vmscan_lru_shrink_active).", MF_SYSTEM_VMSCAN)

/* clang-format off */
const struct record_figure record_figures[] = {
    OBJECT(0, IN_ALL, MEASURE_NONE, "folios",
	   "Folio histograms: order (\"0\"..\"15\", 15 also holding higher orders) -> folios."),
    GROUP_FIGURE(1, RK_ORDERS, 2, MEASURE_ALLOCATED, "alloc", folios[FS_FOLIO_ALLOC_MOVABLE],
		 "test_thp_region_gives_order9_folios",
		 "Folios allocated (kmem:mm_page_alloc): alloc_movable and alloc_kernel together.",
		 MF_FOLIOS_ALLOCATED, MF_ALLOCATED_BYTES),
    GROUP_FIGURE(1, RK_ORDERS, 0, MEASURE_ALLOCATED, "alloc_movable",
		 folios[FS_FOLIO_ALLOC_MOVABLE], "test_anonymous_pages_give_order0_folios",
		 "Movable folios allocated: user memory and the page cache.",
		 MF_FOLIOS_ALLOCATED, MF_ALLOCATED_BYTES),
    GROUP_FIGURE(1, RK_ORDERS, 0, MEASURE_ALLOCATED, "alloc_kernel", folios[FS_FOLIO_ALLOC_KERNEL],
		 NULL,
		 "Folios of every other migrate type allocated: the kernel's own.",
		 MF_FOLIOS_ALLOCATED, MF_ALLOCATED_BYTES),
    GROUP_FIGURE(1, RK_ORDERS, 0, MEASURE_PAGECACHE, "pagecache", folios[FS_FOLIO_PAGECACHE],
		 "test_file_read_fills_the_page_cache",
		 "Folios added to the page cache (filemap:mm_filemap_add_to_page_cache).",
		 MF_PAGECACHE_FOLIOS, MF_PAGECACHE_BYTES),
    GROUP_FIGURE(1, RK_ORDERS, 0, MEASURE_ALLOCATED, "alloc_failed",
		 folios[FS_FOLIO_ALLOC_FAILED], "test_system_totals_match_the_kernels_counts",
		 "Movable allocations that got no folio, by the order asked for: a THP, mTHP or "
		 "large page-cache folio that fell back to a smaller order.", MF_ALLOC_FAILED),
    GROUP_FIGURE(1, RK_ORDERS, 0, MEASURE_DISCARDED, "discarded", folios[FS_FOLIO_DISCARDED],
		 "test_memcg_refused_thp_is_a_discarded_folio",
		 "Movable large folios their allocating thread freed before they reached an LRU "
		 "list: a memory cgroup charge refused, or a race lost.", MF_DISCARDED),
    GROUP_FIGURE(1, RK_NODE_AMOUNTS, 0, MEASURE_NODES, "alloc_by_node", alloc_by_node,
		 "test_allocations_by_node_are_where_the_kernel_put_them",
		 "Folios allocated and their pages, by the NUMA node their memory is on.",
		 MF_NODE_FOLIOS, MF_NODE_BYTES),
    PROC_FIGURE(1, RK_NODE_ORDERS, MEASURE_NODES, "alloc_by_node_and_order",
		alloc_by_node_order,
		"test_allocations_by_node_are_where_the_kernel_put_them",
		"Folios allocated, by node and order.", MF_NODE_ORDERS),
    SYSTEM_FIGURE(1, RK_ORDERS, MEASURE_FREED, "free", freed,
		  "test_system_totals_match_the_kernels_counts",
		  "Folios freed (kmem:mm_page_free), by whoever freed them.",
		  MF_SYSTEM_FREED, MF_SYSTEM_FREED_BYTES),

    OBJECT(0, IN_ALL, MEASURE_NONE, "faults",
	   "Page faults: each of user and kernel, of read, write and exec, and of not_present and "
	   "protection adds up to all of them."),
    GROUP_FIGURE(1, RK_FAULTS, FS_FAULT_USER, MEASURE_FAULT_USER, "user", fault_kinds,
		 "test_anonymous_pages_fault_once_each",
		 "Faults taken in user mode (exceptions:page_fault_user, or perf's page-fault "
		 "event).", MF_PAGE_FAULTS, MF_PAGE_FAULTS_BY_MODE),
    GROUP_FIGURE(1, RK_FAULTS, FS_FAULT_KERNEL, MEASURE_FAULT_KERNEL, "kernel", fault_kinds,
		 "test_anonymous_pages_fault_once_each",
		 "Faults taken in kernel mode (exceptions:page_fault_kernel, or perf's page-fault "
		 "event).", MF_PAGE_FAULTS, MF_PAGE_FAULTS_BY_MODE),
    GROUP_FIGURE(1, RK_FAULTS, FS_FAULT_READ, MEASURE_FAULT_KINDS, "read", fault_kinds,
		 "test_anonymous_pages_fault_once_each",
		 "Faults of a data read.", MF_PAGE_FAULTS),
    GROUP_FIGURE(1, RK_FAULTS, FS_FAULT_WRITE, MEASURE_FAULT_KINDS, "write", fault_kinds,
		 "test_anonymous_pages_fault_once_each",
		 "Faults of a write.", MF_PAGE_FAULTS),
    GROUP_FIGURE(1, RK_FAULTS, FS_FAULT_EXEC, MEASURE_FAULT_KINDS, "exec", fault_kinds,
		 "test_anonymous_pages_fault_once_each",
		 "Faults of an instruction fetch.", MF_PAGE_FAULTS),
    GROUP_FIGURE(1, RK_FAULTS, FS_FAULT_NOT_PRESENT, MEASURE_FAULT_KINDS, "not_present",
		 fault_kinds,
    "test_anonymous_pages_fault_once_each", "Faults where no page was mapped.", MF_PAGE_FAULTS),
    GROUP_FIGURE(1, RK_FAULTS, FS_FAULT_PROTECTION, MEASURE_FAULT_KINDS, "protection",
		 fault_kinds,
		 "test_anonymous_pages_fault_once_each",
		 "Faults where a mapped page refused the access.", MF_PAGE_FAULTS),
    GROUP_FIGURE(1, RK_COUNT, 0, MEASURE_FAULT_FILE, "file", file_faults,
		 "test_mapped_file_read_takes_file_faults",
		 "Faults served through the page cache (filemap:mm_filemap_fault).",
		 MF_FILE_FAULTS),
    GROUP_FIGURE(1, RK_COUNT, 0, MEASURE_FAULT_MAJOR, "major", major_faults,
		 "test_major_and_minor_faults_match_getrusage",
		 "Completed faults that needed I/O, as getrusage counts them (perf's "
		 "major-faults).", MF_MAJOR_FAULTS),
    GROUP_FIGURE(1, RK_COUNT, 0, MEASURE_FAULT_MINOR, "minor", minor_faults,
		 "test_major_and_minor_faults_match_getrusage",
		 "Completed faults without I/O, as getrusage counts them (perf's minor-faults).",
		 MF_MINOR_FAULTS),

    OBJECT(0, IN_ALL, MEASURE_TLB, "tlb", "TLB flushes (tlb:tlb_flush: x86 only)."),
    GROUP_FIGURE(1, RK_TLB_REASONS, 0, MEASURE_NONE, "flushes", tlb_flushes,
		 "test_tlb_shootdowns_are_charged_both_ways",
		 "Flushes by the kernel's reason (enum tlb_flush_reason): remote_send_ipi counts "
		 "shootdowns sent, remote_shootdown those suffered.", MF_TLB_FLUSHES),
    GROUP_FIGURE(1, RK_COUNT, 0, MEASURE_NONE, "pages", tlb_pages,
		 "test_figures_tlb_pages_and_full_flushes",
		 "Pages of ranged flushes.", MF_TLB_PAGES),
    GROUP_FIGURE(1, RK_COUNT, 0, MEASURE_NONE, "full", tlb_full,
		 "test_figures_tlb_pages_and_full_flushes", "Whole-TLB flushes.", MF_TLB_FULL),

    OBJECT(0, IN_ALL, MEASURE_NONE, "lru", "LRU lists."),
    GROUP_FIGURE(1, RK_LIST_AMOUNTS, 0, MEASURE_LRU_INSERT, "insert", lru_insert,
		 "test_system_totals_match_the_kernels_counts",
		 "Folios, and their pages, added to each LRU list (pagemap:mm_lru_insertion).",
		 MF_LRU_INSERTED_FOLIOS, MF_LRU_INSERTED_PAGES),
    OBJECT(1, IN_ALL, MEASURE_LRU_ACTIVATE, "activate",
	   "Folios activated (pagemap:mm_lru_activate)."),
    GROUP_FIGURE(2, RK_COUNT, 0, MEASURE_NONE, "folios", lru_activate[FS_FOLIOS],
    "test_figures_lru_activate", "Folios.",
    MF_LRU_ACTIVATED_FOLIOS),
    GROUP_FIGURE(2, RK_COUNT, 0, MEASURE_NONE, "pages", lru_activate[FS_PAGES],
    "test_figures_lru_activate", "Their pages.",
    MF_LRU_ACTIVATED_PAGES),
    {1, IN_SYSTEM, RK_MGLRU, 0, MEASURE_NONE, "mglru", NOWHERE, NOWHERE,
     "Whether the multi-generational LRU is on (/sys/kernel/mm/lru_gen/enabled).", {0}, NULL},

    OBJECT(0, IN_ALL, MEASURE_NONE, "thp", "Transparent huge pages."),
    GROUP_FIGURE(1, RK_COUNT, 0, MEASURE_THP_FAULT_ALLOC, "fault_alloc", thp_fault_alloc,
		 "test_memcg_refused_thp_is_a_discarded_folio",
		 "THP faults that got a huge page (memcg:count_memcg_events THP_FAULT_ALLOC, which "
		 "a kernel without the memory cgroup controller does not emit).",
		 MF_THP_FAULT_ALLOC),
    OUTCOMES(1, PROC_FIGURE, thp, "test_madv_collapse_is_charged_to_the_process",
	     "test_figures_anonymous_collapse_scan_results",
	     "test_collapse_zero_filled_pages_are_the_rss_growth"),
    OBJECT(1, IN_SYSTEM, MEASURE_NONE, "unattributed",
	   "The collapse outcomes of memory whose owner could not be found."),
    OUTCOMES(2, SYSTEM_FIGURE, thp_unattributed, "test_figures_anonymous_collapse_scan_results",
	     "test_figures_anonymous_collapse_scan_results", NULL),
    OBJECT(1, IN_SYSTEM, MEASURE_NONE, "untracked",
	   "The collapse outcomes of processes the full process table had no room for."),
    OUTCOMES(2, SYSTEM_FIGURE, thp_untracked, NULL, NULL, NULL),
    {1, IN_SYSTEM, RK_VMSTAT, 0, MEASURE_NONE, "vmstat", NOWHERE, NOWHERE,
     "The change of each thp_* counter of /proc/vmstat, by its name.", {MF_SYSTEM_VMSTAT},
     "test_thp_region_gives_order9_folios"},
    {1, IN_SYSTEM, RK_MTHP, 0, MEASURE_NONE, "mthp", NOWHERE, NOWHERE,
     "Per mTHP size (64kB, ...), the change of each counter of its sysfs stats directory.",
     {MF_SYSTEM_MTHP}, NULL},
    OBJECT(1, IN_ALL, MEASURE_NONE, "migrate",
	   "Page migration (migrate:mm_migrate_pages): pages, or folios for the thp_ and "
	   "large_folio_ counters."),
    GROUP_FIGURE(2, RK_COUNT, 0, MEASURE_MIGRATE, "succeeded", migrate[FS_MIGRATE_SUCCEEDED],
		 "test_figures_direct_reclaim_kswapd_and_migration",
		 "Pages migrated.", MF_MIGRATE),
    GROUP_FIGURE(2, RK_COUNT, 0, MEASURE_MIGRATE, "failed", migrate[FS_MIGRATE_FAILED],
		 "test_figures_direct_reclaim_kswapd_and_migration",
		 "Pages that failed to migrate.", MF_MIGRATE),
    GROUP_FIGURE(2, RK_COUNT, 0, MEASURE_MIGRATE, "thp_succeeded",
		 migrate[FS_MIGRATE_THP_SUCCEEDED],
    "test_figures_direct_reclaim_kswapd_and_migration", "THPs migrated.", MF_MIGRATE),
    GROUP_FIGURE(2, RK_COUNT, 0, MEASURE_MIGRATE, "thp_failed", migrate[FS_MIGRATE_THP_FAILED],
		 "test_figures_direct_reclaim_kswapd_and_migration",
		 "THPs that failed to migrate.", MF_MIGRATE),
    GROUP_FIGURE(2, RK_COUNT, 0, MEASURE_MIGRATE, "thp_split", migrate[FS_MIGRATE_THP_SPLIT],
		 "test_figures_direct_reclaim_kswapd_and_migration",
		 "THPs split to migrate.", MF_MIGRATE),
    GROUP_FIGURE(2, RK_COUNT, 0, MEASURE_MIGRATE_LARGE_FOLIO_SPLIT, "large_folio_split",
		 migrate[FS_MIGRATE_LARGE_FOLIO_SPLIT],
		 "test_figures_direct_reclaim_kswapd_and_migration",
		 "Large folios split to migrate.", MF_MIGRATE),
    OBJECT(1, IN_ROW | IN_SYSTEM, MEASURE_STALLS + FS_STALL_COMPACTION,
	   STALL_COMPACTION_NAME(JSON_KEY),
	   "Direct compaction stalls (compaction:mm_compaction_begin to _end)."),
    STALL_TIMES(FS_STALL_COMPACTION, "test_compaction_is_charged_to_the_compacting_process",
		"test_figures_exporter_matches_the_kernel"),
    STALLS_UNTRACKED(FS_STALL_COMPACTION),
    PROC_FIGURE(2, RK_STALLS_BY_ORDER, MEASURE_COMPACTION_BY_ORDER, "by_order",
		compaction_by_order, "test_vmtest_on_debian_linux_6_1",
		"Direct compaction by the order that asked for it (\"1\"..\"15\") -> its stalls "
		"and their time (compaction:mm_compaction_try_to_compact_pages).",
		MF_COMPACTION_BY_ORDER, MF_COMPACTION_BY_ORDER_SECONDS),

    OBJECT(0, IN_ROW | IN_SYSTEM, MEASURE_NONE, "reclaim", "Reclaim."),
    RECLAIM_STALLS(STALL_DIRECT_RECLAIM_NAME(JSON_KEY), FS_STALL_DIRECT_RECLAIM,
		   "Direct reclaim stalls (vmscan:mm_vmscan_direct_reclaim_begin to _end).",
		   "test_figures_direct_reclaim_kswapd_and_migration",
		   "test_figures_direct_reclaim_kswapd_and_migration"),
    RECLAIM_STALLS(STALL_MEMCG_RECLAIM_NAME(JSON_KEY), FS_STALL_MEMCG_RECLAIM,
		   "Memory cgroup reclaim stalls (vmscan:mm_vmscan_memcg_reclaim_begin to _end).",
		   "test_memcg_reclaim_is_charged_to_the_process",
		   "test_figures_exporter_matches_the_kernel"),
    OBJECT(1, IN_SYSTEM, MEASURE_NONE, "vmscan", "What reclaim scanned, reclaimed and wrote."),
    RECLAIMER(RECLAIMER_KSWAPD_NAME(JSON_KEY), FS_BY_KSWAPD, "By kswapd.",
	      "test_reclaim_totals_match_the_kernels_counts"),
    RECLAIMER(RECLAIMER_DIRECT_NAME(JSON_KEY), FS_BY_DIRECT,
	      "By every other reclaimer (direct and memcg reclaim).",
	      "test_reclaim_totals_match_the_kernels_counts"),
    SYSTEM_FIGURE(2, RK_COUNT, MEASURE_VMSCAN + FS_VMSCAN_KSWAPD_WAKES, "kswapd_wakes",
		  vmscan.kswapd_wakes,
		  "test_figures_direct_reclaim_kswapd_and_migration",
		  "kswapd wake-ups (vmscan:mm_vmscan_kswapd_wake).",
		  MF_SYSTEM_KSWAPD_WAKES),
    OBJECT(2, IN_SYSTEM, MEASURE_VMSCAN + FS_VMSCAN_WRITTEN, "written",
	   "Written back by reclaim (vmscan:mm_vmscan_write_folio)."),
    SYSTEM_FIGURE(3, RK_COUNT, MEASURE_NONE, "folios", vmscan.written[FS_FOLIOS],
    "test_figures_reclaim_writes", "Folios."),
    SYSTEM_FIGURE(3, RK_COUNT, MEASURE_NONE, "pages", vmscan.written[FS_PAGES],
    "test_figures_reclaim_writes", "Their pages.",
    MF_SYSTEM_RECLAIM_WRITTEN),

    SYSTEM_FIGURE(0, RK_GROUP, MEASURE_NONE, "interrupt", interrupt,
		  "test_promise_interrupt_group_matches_the_kernels_flags",
		  "Events in interrupt context, charged to no task."),
    SYSTEM_FIGURE(0, RK_GROUP, MEASURE_NONE, "untracked", untracked,
		  "test_full_table_counts_untracked",
		  "Events of threads the full thread table had no room for."),
    SYSTEM_FIGURE(0, RK_GROUP, MEASURE_NONE, "unselected", unselected,
		  "test_cgroup_selects_its_tasks_only",
		  "Events of threads outside the selection (-c, -- COMMAND)."),
    {0, IN_SYSTEM, RK_PROCESSES, 0, MEASURE_NONE, "processes", NOWHERE, NOWHERE,
     "How many processes had events in the window.", {MF_SYSTEM_PROCESSES},
     "test_promise_name_selection_and_rows_end_to_end"},
    {0, IN_SYSTEM, RK_FREE_MEMORY, 0, MEASURE_NONE, "free_memory", NOWHERE, NOWHERE,
     "Free memory by block size per NUMA node and zone (/proc/buddyinfo, /proc/pagetypeinfo), "
     "and the share of it too fragmented for each order; null where buddyinfo is unreadable.",
     {MF_FREE_BLOCKS, MF_FREE_UNUSABLE, MF_FREE_BY_MIGRATE_TYPE},
     "test_free_memory_when_no_block_is_free"},
};
/* clang-format on */
const int nr_record_figures = sizeof(record_figures) / sizeof(record_figures[0]);

int record_figure_skip(int i)
{
	int j = i + 1;

	while (j < nr_record_figures && record_figures[j].depth > record_figures[i].depth)
		j++;
	return j;
}

void record_figure_path(int i, char *path, size_t len)
{
	int chain[8], n = 0;
	size_t used = 0;

	/* i, then each row before it that is shallower than the last one found: its parents. */
	for (int j = i, depth = record_figures[i].depth + 1; j >= 0 && n < 8; j--) {
		if (record_figures[j].depth < depth) {
			chain[n++] = j;
			depth = record_figures[j].depth;
		}
	}
	path[0] = 0;
	while (n-- > 0 && used < len)
		used += snprintf(path + used, len - used, "%s%s", used ? "." : "",
				 record_figures[chain[n]].key);
}

int record_figure_find(const char *path)
{
	char found[256];

	for (int i = 0; i < nr_record_figures; i++) {
		record_figure_path(i, found, sizeof(found));
		if (!strcmp(found, path))
			return i;
	}
	return -1;
}

bool record_figure_measured(int i, const bool measured[NR_MEASURES])
{
	/* i, then each row before it shallower than the last: its objects. */
	for (int j = i, depth = record_figures[i].depth + 1; j >= 0 && depth > 0; j--) {
		if (record_figures[j].depth >= depth)
			continue;
		depth = record_figures[j].depth;
		if (record_figures[j].measure != MEASURE_NONE && !measured[record_figures[j].measure])
			return false;
	}
	return true;
}

void record_figure_orders(const struct figures_view *v, int i, __u64 hist[])
{
	const __u64 *words = record_figure_words(v, i);
	int nr = record_figures[i].arg ? record_figures[i].arg : 1;

	for (int o = 0; o < FS_NR_ORDERS; o++) {
		hist[o] = 0;
		for (int h = 0; h < nr; h++)
			hist[o] += words[h * FS_NR_ORDERS + o];
	}
}
