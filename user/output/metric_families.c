// SPDX-License-Identifier: GPL-2.0
/* The exposition's families (see metric_families.h): the rows, in the order they are written. */
#include "metric_families.h"

#include <stddef.h>

#include "bounds.h"
#include "counters.h"
#include "figures.h"
#include "report.h"
#include "self.h"

/* The values of the families that are not a word of the counters, one function per way of
 * reading them. */
static const __u64 *alloc_hist(const struct fs_totals *c, int kind)
{
	return c->folios[kind ? FS_FOLIO_ALLOC_KERNEL : FS_FOLIO_ALLOC_MOVABLE];
}

static __u64 allocated_bytes(const struct fs_totals *c, int kind, int b,
			     const struct host_info *host)
{
	(void)b;
	return hist_pages(alloc_hist(c, kind)) * (__u64)host->page_size;
}

static __u64 pagecache_bytes(const struct fs_totals *c, int a, int b, const struct host_info *host)
{
	(void)a, (void)b;
	return hist_pages(c->folios[FS_FOLIO_PAGECACHE]) * (__u64)host->page_size;
}

static __u64 fault_mode(const struct fs_totals *c, int mode, int b, const struct host_info *host)
{
	(void)b, (void)host;
	return fault_count(c, mode ? FS_FAULT_KERNEL : FS_FAULT_USER);
}

static __u64 node_folios(const struct fs_totals *c, int node, int b, const struct host_info *host)
{
	(void)b;
	return node_allocated(c, host->nodes, node, FS_FOLIOS);
}

static __u64 node_bytes(const struct fs_totals *c, int node, int b, const struct host_info *host)
{
	(void)b;
	return node_allocated(c, host->nodes, node, FS_PAGES) * (__u64)host->page_size;
}

/* A counter of each group and of the system, by these dimensions. */
#define BY_DIMS(a, b)                                                                        \
	.section = SECTION_GROUPS, .type = METRIC_COUNTER, .kind = MK_BY_DIMS, .dim_a = (a), \
	.dim_b = (b)
/* Its value: the words of struct fs_totals from `field`, at these strides. */
#define WORDS(field, sa, sb) \
	.at = offsetof(struct fs_totals, field) / sizeof(__u64), .stride_a = (sa), .stride_b = (sb)
/* A family of a process's figures (and the groups without), and the system's. */
#define PROC_FAMILY(kind_, type_) .section = SECTION_GROUPS, .type = (type_), .kind = (kind_)
/* A family of the system alone. */
#define SYSTEM(kind_, type_) .section = SECTION_SYSTEM, .type = (type_), .kind = (kind_)
/* A family of one sample of struct metric_scalars's `field`. */
#define SCALAR(section_, kind_, type_, field)                    \
	.section = (section_), .type = (type_), .kind = (kind_), \
	.at = offsetof(struct metric_scalars, field)
#define SELF(kind_, type_) .section = SECTION_SELF, .type = (type_), .kind = (kind_)
/* Each khugepaged event's outcomes. */
#define THP_RESULTS                                                                      \
	{MEASURE_THP_RESULTS + FS_THP_COLLAPSE, MEASURE_THP_RESULTS + FS_THP_COLLAPSE_FILE, \
	 MEASURE_THP_RESULTS + FS_THP_SCAN, MEASURE_THP_RESULTS + FS_THP_SCAN_FILE}
_Static_assert(FS_FOLIO_ALLOC_KERNEL == FS_FOLIO_ALLOC_MOVABLE + 1,
	       "kind (movable, kernel) is one histogram's stride from the movable one");

/* clang-format off */
const struct metric_family metric_families[NR_METRIC_FAMILIES] = {
    [MF_FOLIOS_ALLOCATED] = {"folios_allocated_total", BY_DIMS(DIM_ORDER, DIM_FOLIO_KIND),
	.unit = "folios",
	.help = "Folios allocated, by order and kind.",
	.doc = "Folios allocated (kmem:mm_page_alloc), by order and kind: movable (user memory, "
	       "page cache) or kernel.",
	.md_labels = "`order`, `kind` (`movable`, `kernel`)",
	.md_meaning = "folios allocated (`kmem:mm_page_alloc`)",
	.any_of = {MEASURE_ALLOCATED}, WORDS(folios[FS_FOLIO_ALLOC_MOVABLE][0], 1, FS_NR_ORDERS)},
    [MF_ALLOCATED_BYTES] = {"allocated_bytes_total", BY_DIMS(DIM_FOLIO_KIND, DIM_NONE),
	.unit = "bytes",
	.help = "Bytes of the folios allocated, by kind.", .doc = "Their bytes.",
	.md_meaning = "their bytes",
	.any_of = {MEASURE_ALLOCATED}, .value = allocated_bytes},
    [MF_PAGECACHE_FOLIOS] = {"pagecache_folios_added_total", BY_DIMS(DIM_ORDER, DIM_NONE),
	.unit = "folios",
	.help = "Folios added to the page cache, by order.",
	.md_meaning = "folios added to the page cache",
	.any_of = {MEASURE_PAGECACHE}, WORDS(folios[FS_FOLIO_PAGECACHE][0], 1, 0)},
    [MF_PAGECACHE_BYTES] = {"pagecache_added_bytes_total", BY_DIMS(DIM_NONE, DIM_NONE),
	.unit = "bytes",
	.help = "Bytes of the folios added to the page cache.", .doc = "Their bytes.",
	.md_meaning = "their bytes",
	.any_of = {MEASURE_PAGECACHE}, .value = pagecache_bytes},
    [MF_ALLOC_FAILED] = {"folio_allocations_failed_total", BY_DIMS(DIM_ORDER, DIM_NONE),
	.unit = "allocations",
	.help = "Movable allocations that got no folio (a THP, mTHP or large page-cache folio "
		"that fell back to a smaller order), by order.",
	.doc = "Movable allocations that got no folio (kmem:mm_page_alloc with no page), by the "
	       "order asked for: a THP or mTHP fault, or a large page\\-cache folio, that had to "
	       "fall back to a smaller order (each order tried is one).",
	.md_meaning = "movable allocations that got no folio: a THP, mTHP or large page-cache "
		      "folio fell back",
	.any_of = {MEASURE_ALLOCATED}, WORDS(folios[FS_FOLIO_ALLOC_FAILED][0], 1, 0)},
    [MF_DISCARDED] = {"folios_discarded_total", BY_DIMS(DIM_LARGE_ORDER, DIM_NONE),
	.unit = "folios",
	.help = "Movable large folios their allocating thread freed before they reached an LRU "
		"list (memory cgroup charge refused, or a race lost), by order.",
	.doc = "Movable large folios freed by the thread that allocated them before they reached "
	       "an LRU list: the memory cgroup refused the charge, or another thread mapped the "
	       "range (or added the page\\-cache index) first. They are also in "
	       "foliostat_folios_allocated_total. Absent without kmem:mm_page_free or "
	       "pagemap:mm_lru_insertion.",
	.md_labels = "`order` (1 and up)",
	.md_meaning = "movable large folios freed by their allocating thread before reaching an "
		      "LRU list (memcg charge refused, or a race lost)",
	.any_of = {MEASURE_DISCARDED}, WORDS(folios[FS_FOLIO_DISCARDED][0], 1, 0)},
    [MF_NODE_FOLIOS] = {"node_folios_allocated_total", BY_DIMS(DIM_NODE, DIM_NONE),
	.unit = "folios",
	.help = "Folios allocated, by the node of their memory.",
	.doc = "Folios allocated (kmem:mm_page_alloc), movable and kernel, by the NUMA node their "
	       "memory is on: each node with memory has a series. On a host of one node, every "
	       "allocation; on more, the node the kernel keeps in each page's flags (foliostat "
	       "checks where at start\\-up and leaves these families out where it cannot).",
	.md_labels = "`node` (each NUMA node with memory)",
	.md_meaning = "folios allocated, by the node of their memory",
	.any_of = {MEASURE_NODES}, .value = node_folios},
    [MF_NODE_BYTES] = {"node_allocated_bytes_total", .unit = "bytes", BY_DIMS(DIM_NODE, DIM_NONE),
	.help = "Bytes of the folios allocated, by node.", .doc = "Their bytes.",
	.md_meaning = "their bytes",
	.any_of = {MEASURE_NODES}, .value = node_bytes},
    [MF_THP_FAULT_ALLOC] = {"thp_fault_alloc_total", .unit = "faults", BY_DIMS(DIM_NONE, DIM_NONE),
	.help = "THP faults that got a huge page (the memory cgroup's THP_FAULT_ALLOC).",
	.doc = "THP faults that got a huge page (memcg:count_memcg_events, the memory cgroup's "
	       "THP_FAULT_ALLOC; absent on kernels without that tracepoint, such as 6.1). Beside "
	       "it, the order\\-9 series of the two families above tell why a group's other THP "
	       "faults got none.",
	.md_meaning = "THP faults that got a huge page (memcg `THP_FAULT_ALLOC`; kernels with "
		      "`memcg:count_memcg_events`, not 6.1)",
	.any_of = {MEASURE_THP_FAULT_ALLOC}, WORDS(thp_fault_alloc, 0, 0)},
    /* a = mode * accesses + access, b = cause: the BPF side's kinds (FS_FAULT_KIND) */
    [MF_PAGE_FAULTS] = {"page_faults_total", BY_DIMS(DIM_FAULT_MODE_ACCESS, DIM_FAULT_CAUSE),
	.unit = "faults",
	.help = "Page faults, by mode, access and cause.",
	.doc = "Page faults by mode (user, kernel), access (read, write, exec) and cause "
	       "(not_present, protection); where only perf's page\\-fault event counts them "
	       "(arm64), or one of the two exceptions tracepoints, by mode only, without access "
	       "and cause (and without the series of a mode that nothing measures).",
	.md_labels = "`mode` (`user`, `kernel`), `access` (`read`, `write`, `exec`), `cause` "
		     "(`not_present`, `protection`)",
	.md_meaning = "page faults; without the fault tracepoints (arm64) only `mode`",
	.any_of = {MEASURE_FAULT_KINDS}, WORDS(fault_kinds[0], FS_NR_FAULT_CAUSES, 1)},
    /* Where faults are not known by kind: by mode, each mode where measured. */
    [MF_PAGE_FAULTS_BY_MODE] = {"page_faults_total", BY_DIMS(DIM_FAULT_MODE, DIM_NONE),
	.unit = "faults",
	.help = "Page faults, by mode (access and cause not known here).",
	.unless = MEASURE_FAULT_KINDS, .value = fault_mode},
    [MF_FILE_FAULTS] = {"file_faults_total", .unit = "faults", BY_DIMS(DIM_NONE, DIM_NONE),
	.help = "Page faults served through the page cache.",
	.doc = "Faults served through the page cache (filemap:mm_filemap_fault).",
	.md_meaning = "faults served through the page cache",
	.any_of = {MEASURE_FAULT_FILE}, WORDS(file_faults, 0, 0)},
    /* Completed faults as getrusage() counts them: a fault retried, or one a signal ended, is
     * one page_faults_total but no major or minor fault, so these are families apart. */
    [MF_MAJOR_FAULTS] = {"major_faults_total", .unit = "faults", BY_DIMS(DIM_NONE, DIM_NONE),
	.help = "Page faults that waited for I/O, as the kernel accounts them to the task "
		"(getrusage's majflt).",
	.doc = "Completed page faults that needed I/O, as the kernel accounts them to the task "
	       "(getrusage's majflt; perf's software event major\\-faults).",
	.md_meaning = "completed faults that needed I/O (getrusage's `majflt`)",
	.any_of = {MEASURE_FAULT_MAJOR}, WORDS(major_faults, 0, 0)},
    [MF_MINOR_FAULTS] = {"minor_faults_total", .unit = "faults", BY_DIMS(DIM_NONE, DIM_NONE),
	.help = "Page faults completed without I/O, as the kernel accounts them to the task "
		"(getrusage's minflt).",
	.doc = "Completed page faults without I/O (getrusage's minflt; perf's minor\\-faults). "
	       "Unlike foliostat_page_faults_total, neither family counts a fault that is retried "
	       "or fails; and neither counts the faults get_user_pages() takes on a task's behalf, "
	       "which getrusage does.",
	.md_meaning = "completed faults without I/O (getrusage's `minflt`)",
	.any_of = {MEASURE_FAULT_MINOR}, WORDS(minor_faults, 0, 0)},
    [MF_TLB_FLUSHES] = {"tlb_flushes_total", .unit = "flushes", BY_DIMS(DIM_TLB_REASON, DIM_NONE),
	.help = "TLB flushes, by the kernel's reason (remote_send_ipi: shootdowns sent, "
		"remote_shootdown: suffered).",
	.doc = "TLB flushes by the kernel's reason (enum tlb_flush_reason, lowercased, without "
	       "TLB_): remote_send_ipi counts shootdowns sent, remote_shootdown those suffered.",
	.md_labels = "`reason` (kernel's `enum tlb_flush_reason`, lowercased)",
	.md_meaning = "TLB flushes; `remote_send_ipi` = shootdowns sent, `remote_shootdown` = "
		      "suffered",
	.any_of = {MEASURE_TLB}, WORDS(tlb_flushes[0], 1, 0)},
    [MF_TLB_PAGES] = {"tlb_flushed_pages_total", .unit = "pages", BY_DIMS(DIM_NONE, DIM_NONE),
	.help = "Pages of ranged TLB flushes.", .md_meaning = "pages of ranged flushes",
	.any_of = {MEASURE_TLB}, WORDS(tlb_pages, 0, 0)},
    [MF_TLB_FULL] = {"tlb_full_flushes_total", .unit = "flushes", BY_DIMS(DIM_NONE, DIM_NONE),
	.help = "Whole-TLB flushes.", .doc = "Whole\\-TLB flushes.",
	.md_meaning = "whole-TLB flushes",
	.any_of = {MEASURE_TLB}, WORDS(tlb_full, 0, 0)},
    [MF_LRU_INSERTED_FOLIOS] = {"lru_inserted_folios_total", BY_DIMS(DIM_LRU_LIST, DIM_NONE),
	.unit = "folios",
	.help = "Folios added to an LRU list, by list.",
	.doc = "Folios added to an LRU list (enum lru_list, lowercased).",
	.md_meaning = "folios added to an LRU list",
	.any_of = {MEASURE_LRU_INSERT}, WORDS(lru_insert[0][FS_FOLIOS], FS_NR_AMOUNTS, 0)},
    [MF_LRU_INSERTED_PAGES] = {"lru_inserted_pages_total", BY_DIMS(DIM_LRU_LIST, DIM_NONE),
	.unit = "pages",
	.help = "Pages of the folios added to an LRU list, by list.", .doc = "Their pages.",
	.md_meaning = "their pages",
	.any_of = {MEASURE_LRU_INSERT}, WORDS(lru_insert[0][FS_PAGES], FS_NR_AMOUNTS, 0)},
    [MF_LRU_ACTIVATED_FOLIOS] = {"lru_activated_folios_total", BY_DIMS(DIM_NONE, DIM_NONE),
	.unit = "folios",
	.help = "Folios activated on the LRU.",
	.doc = "Folios activated (absent with the multi\\-generational LRU).",
	.md_meaning = "activations",
	.any_of = {MEASURE_LRU_ACTIVATE}, WORDS(lru_activate[FS_FOLIOS], 0, 0)},
    [MF_LRU_ACTIVATED_PAGES] = {"lru_activated_pages_total", BY_DIMS(DIM_NONE, DIM_NONE),
	.unit = "pages",
	.help = "Pages of the folios activated.", .doc = "Their pages.",
	.md_meaning = "their pages",
	.any_of = {MEASURE_LRU_ACTIVATE}, WORDS(lru_activate[FS_PAGES], 0, 0)},
    [MF_MIGRATE] = {"migrate_total", BY_DIMS(DIM_MIGRATE_COUNTER, DIM_NONE),
	.unit = "pages, or folios (thp_, large_folio_)",
	.help = "Page migration: pages, or folios for the thp_ and large_folio_ counters.",
	.doc = "Page migration: succeeded, failed (pages), thp_succeeded, thp_failed, thp_split, "
	       "large_folio_split (folios).",
	.md_labels = "`counter` (`succeeded`, `failed`, `thp_succeeded`, `thp_failed`, "
		     "`thp_split`, `large_folio_split`)",
	.md_meaning = "page migration",
	.any_of = {MEASURE_MIGRATE}, WORDS(migrate[0], 1, 0)},

    [MF_COLLAPSE_RESULTS] = {"thp_collapse_results_total", .unit = "outcomes",
	PROC_FAMILY(MK_COLLAPSE_RESULTS, METRIC_COUNTER),
	.help = "khugepaged and MADV_COLLAPSE outcomes, by event and the kernel's result.",
	.labels = "event, result",
	.doc = "khugepaged and MADV_COLLAPSE outcomes, charged to the process whose memory is "
	       "collapsed: event collapse, collapse_file, scan or scan_file, result the kernel's "
	       "enum scan_result name (succeed, ...). Besides the groups and other: "
	       "group=\\(dquntracked\\(dq (processes the table had no room for) and "
	       "group=\\(dqunattributed\\(dq (memory whose owner is not known).",
	.md_labels = "`event` (`collapse`, `collapse_file`, `scan`, `scan_file`), `result` "
		     "(kernel's `enum scan_result`, lowercased, e.g. `succeed`)",
	.md_meaning = "khugepaged and MADV_COLLAPSE outcomes; per group plus "
		      "`group=\"untracked\"` and `group=\"unattributed\"`",
	.any_of = THP_RESULTS},
    [MF_COLLAPSE_ZERO_FILLED] = {"thp_collapse_zero_filled_pages_total", .unit = "pages",
	PROC_FAMILY(MK_COLLAPSE_COUNT, METRIC_COUNTER),
	.help = "Pages of the huge pages anonymous collapses made that were filled with zeroes.",
	.doc = "Pages of the huge pages that khugepaged and MADV_COLLAPSE made of a process's "
	       "anonymous memory that had no page, or the shared zero page, before the collapse: "
	       "memory filled with zeroes that the process never touched (the cost of "
	       "max_ptes_none, THP bloat), charged to the process whose memory it is. The same "
	       "groups as foliostat_thp_collapse_results_total; a group's series appears at its "
	       "first such page.",
	.md_meaning = "pages of the huge pages anonymous collapses made that were filled with "
		      "zeroes (THP bloat: never touched by the process); the same groups",
	.any_of = {MEASURE_THP_RESULTS + FS_THP_SCAN},
	.at = offsetof(struct fs_thp_results, zero_filled) / sizeof(__u64)},
    [MF_STALL_SECONDS] = {"stall_seconds", PROC_FAMILY(MK_STALL_HISTOGRAM, METRIC_HISTOGRAM),
	.unit = "seconds",
	.help = "Compaction and reclaim stalls, by kind (other includes threads the table had no "
		"room for).",
	.system_help = "Compaction and reclaim stalls over the system, by kind.",
	.labels = "kind",
	.doc = "A histogram (_bucket with le, _sum, _count) of compaction, direct_reclaim and "
	       "memcg_reclaim stalls; bucket bounds 1 us, 4 us, 16 us and so on by fours to 16.8 "
	       "s, then +Inf. A group's histogram of a kind appears at its first stall; "
	       "group=\\(dqother\\(dq also holds the stalls of processes the table had no room "
	       "for.",
	.md_labels = "`kind` (`compaction`, `direct_reclaim`, `memcg_reclaim`)",
	.md_meaning = "stalls, `le` from 1e-06 by fours to 16.777216 then +Inf",
	.any_of = {MEASURE_STALLS + FS_STALL_COMPACTION, MEASURE_STALLS + FS_STALL_DIRECT_RECLAIM,
		   MEASURE_STALLS + FS_STALL_MEMCG_RECLAIM}},
    [MF_STALL_RECLAIMED] = {"stall_reclaimed_pages_total", .unit = "pages",
	PROC_FAMILY(MK_STALL_RECLAIMED, METRIC_COUNTER),
	.help = "Pages reclaimed in direct and memory-cgroup reclaim stalls.",
	.system_help = "Pages reclaimed in direct and memory-cgroup reclaim stalls over the "
		       "system.",
	.labels = "kind", .doc = "Pages reclaimed in direct_reclaim and memcg_reclaim stalls.",
	.md_labels = "`kind` (`direct_reclaim`, `memcg_reclaim`)",
	.md_meaning = "pages reclaimed in those stalls",
	.any_of = {MEASURE_STALLS + FS_STALL_DIRECT_RECLAIM,
		   MEASURE_STALLS + FS_STALL_MEMCG_RECLAIM}},
    [MF_COMPACTION_BY_ORDER] = {"compaction_stalls_by_order_total", .unit = "stalls",
	PROC_FAMILY(MK_STALLS_BY_ORDER, METRIC_COUNTER),
	.help = "Direct compaction stalls, by the order of the allocation that asked for it.",
	.labels = "order",
	.doc = "Of the compaction stalls of foliostat_stall_seconds, those of direct compaction, "
	       "by the order of the allocation that asked for it "
	       "(compaction:mm_compaction_try_to_compact_pages); per process like the stall "
	       "histograms, so group=\\(dqother\\(dq also holds those of processes the table had "
	       "no room for and of threads outside a selection. Absent without that tracepoint or "
	       "compaction:mm_compaction_begin.",
	.md_meaning = "direct compaction stalls, by the order of the allocation that asked for it",
	.any_of = {MEASURE_COMPACTION_BY_ORDER}},
    [MF_COMPACTION_BY_ORDER_SECONDS] = {"compaction_stall_by_order_seconds_total",
	.unit = "seconds",
	PROC_FAMILY(MK_STALLS_BY_ORDER, METRIC_COUNTER),
	.help = "Time stalled in direct compaction, by the order of the allocation that asked for "
		"it.",
	.labels = "order",
	.doc = "Their time, in seconds: divided by the order\\-9 "
	       "foliostat_folios_allocated_total, what each huge page cost in compaction.",
	.md_meaning = "their time",
	.any_of = {MEASURE_COMPACTION_BY_ORDER}, .seconds = true},
    [MF_NODE_ORDERS] = {"node_folios_allocated_by_order_total", .unit = "folios",
	PROC_FAMILY(MK_NODE_ORDERS, METRIC_COUNTER),
	.help = "Folios allocated, by the node of their memory and by order.",
	.system_help = "Folios allocated over the system, by the node of their memory and by "
		       "order.",
	.labels = "node, order",
	.doc = "Folios allocated (kmem:mm_page_alloc), by the node of their memory and by order: "
	       "which node's free blocks a group's large folios come from. A group's series of a "
	       "node and order appears at its first such folio; group=\\(dqother\\(dq also holds "
	       "those of interrupt context and of threads the table had no room for or outside a "
	       "selection.",
	.md_meaning = "folios allocated, by node and order (a series per node and order with any; "
		      "`group=\"other\"` has interrupt context's and the untracked threads')",
	.any_of = {MEASURE_NODES}},

    [MF_SYSTEM_FREED] = {"system_folios_freed_total", SYSTEM(MK_SYSTEM_ORDERS, METRIC_COUNTER),
	.unit = "folios",
	.help = "Folios freed, by order.", .labels = "order",
	.doc = "Folios freed (kmem:mm_page_free), by order.", .md_meaning = "folios freed",
	.any_of = {MEASURE_FREED}, .at = offsetof(struct system_totals, freed) / sizeof(__u64)},
    [MF_SYSTEM_FREED_BYTES] = {"system_freed_bytes_total", .unit = "bytes",
	SYSTEM(MK_SYSTEM_BYTES, METRIC_COUNTER),
	.help = "Bytes of the folios freed.", .doc = "Their bytes.", .md_meaning = "their bytes",
	.any_of = {MEASURE_FREED}, .at = offsetof(struct system_totals, freed) / sizeof(__u64)},
    [MF_SYSTEM_VMSTAT] = {"system_kernel_vmstat_total", SYSTEM(MK_KERNEL_VMSTAT, METRIC_COUNTER),
	.unit = "the kernel's counts",
	.help = "The kernel's /proc/vmstat THP counters: their growth since foliostat started.",
	.labels = "counter",
	.doc = "The growth since foliostat started of the kernel's /proc/vmstat thp_* counters "
	       "(thp_fault_alloc, thp_fault_fallback, ...), which show what has no tracepoint.",
	.md_labels = "`counter` (e.g. `thp_fault_alloc`, `thp_fault_fallback`)",
	.md_meaning = "the kernel's `/proc/vmstat` THP counters, their growth since foliostat "
		      "started"},
    [MF_SYSTEM_MTHP] = {"system_kernel_mthp_total", SYSTEM(MK_KERNEL_MTHP, METRIC_COUNTER),
	.unit = "the kernel's counts",
	.help = "The kernel's per-size mTHP counters: their growth since foliostat started.",
	.labels = "size, counter",
	.doc = "The growth since start of the per\\-size mTHP counters (size 64kB, ...; counter "
	       "anon_fault_alloc, ...), without the nr_ levels.",
	.md_labels = "`size` (e.g. `64kB`), `counter` (e.g. `anon_fault_alloc`)",
	.md_meaning = "per-size mTHP counters, growth since start"},
    [MF_SYSTEM_VMSCAN] = {"system_vmscan_pages_total", SYSTEM(MK_VMSCAN, METRIC_COUNTER),
	.unit = "pages",
	.help = "Pages reclaim scanned, reclaimed and deactivated, by reclaimer and LRU list.",
	.labels = "reclaimer, action, list",
	.doc = "Pages reclaim scanned, reclaimed and deactivated (action), by kswapd or direct "
	       "reclaimers (reclaimer), per LRU list.",
	.md_labels = "`reclaimer` (`kswapd`, `direct`), `action` (`scanned`, `reclaimed`, "
		     "`deactivated`), `list`",
	.md_meaning = "reclaim's work per LRU list",
	.any_of = {MEASURE_VMSCAN + FS_VMSCAN_SCANNED, MEASURE_VMSCAN + FS_VMSCAN_RECLAIMED,
		   MEASURE_VMSCAN + FS_VMSCAN_DEACTIVATED}},
    [MF_SYSTEM_KSWAPD_WAKES] = {"system_kswapd_wakes_total", .unit = "wake-ups",
	SCALAR(SECTION_SYSTEM, MK_COUNT, METRIC_COUNTER, kswapd_wakes),
	.help = "kswapd wake-ups.", .doc = "kswapd wake\\-ups.", .md_meaning = "kswapd wake-ups",
	.any_of = {MEASURE_VMSCAN + FS_VMSCAN_KSWAPD_WAKES}},
    [MF_SYSTEM_RECLAIM_WRITTEN] = {"system_reclaim_written_pages_total", .unit = "pages",
	SCALAR(SECTION_SYSTEM, MK_COUNT, METRIC_COUNTER, reclaim_written),
	.help = "Pages written back by reclaim.", .doc = "Pages reclaim wrote back.",
	.md_meaning = "pages written by reclaim",
	.any_of = {MEASURE_VMSCAN + FS_VMSCAN_WRITTEN}},
    [MF_SYSTEM_PROCESSES] = {"system_processes", .unit = "rows",
	SCALAR(SECTION_SYSTEM, MK_COUNT, METRIC_GAUGE, processes),
	.help = "Processes with activity in the last read.",
	.doc = "Gauge: rows (of the \\-\\-by kind) with activity in the last read.",
	.md_meaning = "processes with activity in the last read"},

    [MF_BUILD_INFO] = {"build_info", .unit = "info", SELF(MK_BUILD_INFO, METRIC_INFO),
	.help = "foliostat's version.", .labels = "version",
	.doc = "Gauge, 1 (in OpenMetrics, the info family foliostat_build)."},
    [MF_START_TIME] = {"start_time_seconds", .unit = "seconds",
	SCALAR(SECTION_SELF, MK_UNIX_TIME, METRIC_GAUGE, start_time),
	.help = "When foliostat started counting (Unix time).",
	.doc = "Gauge: when foliostat started counting, in Unix seconds.",
	.md_meaning = "Unix time foliostat started counting"},
    [MF_PROBE_ATTACHED] = {"probe_attached", SELF(MK_PROBE_ATTACHED, METRIC_GAUGE),
	.unit = "boolean",
	.help = "Whether a probe (tracepoint group:event) is attached: 1, or 0 (see --check for "
		"why not).",
	.labels = "probe",
	.doc = "Gauge: 1 if the probe (group:event) is attached, 0 if not (\\-\\-check says why); "
	       "stand\\-ins that are not needed are left out.",
	.md_labels = "`probe` (`group:event`)", .md_meaning = "1 attached, 0 not"},
    [MF_BPF_RUNS] = {"bpf_runs_total", .unit = "runs", SELF(MK_PER_PROBE, METRIC_COUNTER),
	.help = "Runs of a probe's BPF program.", .labels = "probe",
	.doc = "Runs of the probe's program; with \\-\\-self only (the kernel's run\\-time "
	       "statistics, see \\-\\-self).",
	.md_meaning = "program runs (with `--self`)",
	.at = offsetof(struct self_cost, events), .run_time = true},
    [MF_BPF_RUN_SECONDS] = {"bpf_run_seconds_total", SELF(MK_PER_PROBE, METRIC_COUNTER),
	.unit = "seconds",
	.help = "Time spent in a probe's BPF program.", .labels = "probe",
	.doc = "Time spent in the program; with \\-\\-self only.",
	.md_meaning = "time in the program (with `--self`)",
	.at = offsetof(struct self_cost, run_ns), .run_time = true, .seconds = true},
    [MF_BPF_MISSED_RUNS] = {"bpf_missed_runs_total", SELF(MK_PER_PROBE, METRIC_COUNTER),
	.unit = "runs",
	.help = "Runs of a probe's BPF program the kernel skipped (recursion).",
	.labels = "probe", .doc = "Runs the kernel skipped (recursion).",
	.md_meaning = "runs the kernel skipped (recursion)",
	.at = offsetof(struct self_cost, misses)},
    [MF_UNTRACKED_EVENTS] = {"untracked_events_total", .unit = "events",
	SCALAR(SECTION_SELF, MK_COUNT, METRIC_COUNTER, untracked_events),
	.help = "Counts charged to no thread because the in-kernel table was full (see "
		"--max-tasks).",
	.doc = "Counts charged to no thread because the in\\-kernel table was full (see "
	       "\\-\\-max-tasks): nonzero means the table is too small.",
	.md_meaning = "counts charged to no thread: the table was full"},
    [MF_LOADER_CPU] = {"loader_cpu_seconds_total", .unit = "seconds",
	SCALAR(SECTION_SELF, MK_REAL, METRIC_COUNTER, loader_cpu),
	.help = "CPU time of foliostat's loader (user and system).",
	.doc = "User and system CPU time of foliostat's loader.",
	.md_meaning = "the loader's user + system CPU time"},
    [MF_LOADER_RESIDENT] = {"loader_resident_bytes", .unit = "bytes",
	SCALAR(SECTION_SELF, MK_COUNT, METRIC_GAUGE, loader_resident),
	.help = "Resident memory of foliostat's loader.",
	.doc = "Gauge: its resident memory, without the BPF maps it maps.",
	.md_meaning = "its resident memory"},
    [MF_SERIES] = {"series", .unit = "groups", SCALAR(SECTION_SELF, MK_COUNT, METRIC_GAUGE, series),
	.help = "Groups exported with series of their own.",
	.doc = "Gauge: groups with series of their own.", .md_meaning = "groups with a series now"},
    [MF_SERIES_FOLDED] = {"series_folded_total", .unit = "groups",
	SCALAR(SECTION_SELF, MK_COUNT, METRIC_COUNTER, series_folded),
	.help = "Groups that gave their series to a new group (--max-series).",
	.doc = "Groups that gave their place to a new group (\\-\\-max-series).",
	.md_meaning = "groups that gave their place or were counted in `other`"},
    [MF_BOUND_LIMIT] = {"bound_limit", .unit = "entries", SELF(MK_BOUND, METRIC_GAUGE),
	.help = "The most a structure that other users can grow may hold (see foliostat(8), "
		"SECURITY).",
	.labels = "structure",
	.doc = "Gauge: the most a structure that other users can make foliostat grow may\nhold "
	       "(cgroup_names, series, connections, answers, password_clients, resident_pages; "
	       "only those\nthis run uses; see SECURITY in foliostat(8)).",
	.md_meaning = "the most a structure other users can grow may hold",
	.at = offsetof(struct bound_count, limit)},
    [MF_BOUND_ENTRIES] = {"bound_entries", .unit = "entries", SELF(MK_BOUND, METRIC_GAUGE),
	.help = "What a bounded structure holds now.", .labels = "structure",
	.doc = "Gauge: what it holds now.", .md_meaning = "what it holds now",
	.at = offsetof(struct bound_count, entries)},
    [MF_BOUND_EVICTIONS] = {"bound_evictions_total", SELF(MK_BOUND, METRIC_COUNTER),
	.unit = "entries",
	.help = "Entries a bounded structure dropped, or work it cut short, to stay within its "
		"limit.",
	.labels = "structure",
	.doc = "Entries it dropped, or work it cut short, to stay within its limit: a rate\nabove "
	       "zero means other users (or the host's own churn) reach the limit.",
	.md_meaning = "entries it dropped to stay within its limit",
	.at = offsetof(struct bound_count, evictions)},
    [MF_SCRAPES] = {"scrapes_total", SCALAR(SECTION_SELF, MK_COUNT, METRIC_COUNTER, scrapes),
	.unit = "expositions",
	.help = "Expositions made (scrapes, or files written).",
	.doc = "Expositions made: files written, or renderings for scrapes (one per read and "
	       "format, which\nevery scrape that shared the read was answered with; see\n"
	       ".BR \\-\\-listen ).",
	.md_meaning = "expositions served or written"},
    [MF_SCRAPE_DURATION] = {"scrape_duration_seconds", .unit = "seconds",
	SCALAR(SECTION_SELF, MK_REAL, METRIC_GAUGE, scrape_duration),
	.help = "How long the previous exposition took to make (maps read and text written).",
	.doc = "Gauge: how long the previous exposition took to make, the read of the maps "
	       "included.",
	.md_meaning = "time the last one took (map read and render)"},

    [MF_FREE_BLOCKS] = {"free_blocks", .section = SECTION_FREE_MEMORY, .type = METRIC_GAUGE,
	.unit = "blocks",
	.kind = MK_FREE_ZONES, .at = 0,
	.help = "Free blocks of each order per NUMA node and zone (/proc/buddyinfo).",
	.labels = "node, zone, order",
	.doc = "Free blocks of that order\n.RB ( /proc/buddyinfo ).\nA record's figure holds the "
	       "fewest of each order during its span.",
	.md_meaning = "free blocks of that order (`/proc/buddyinfo`)"},
    [MF_FREE_UNUSABLE] = {"free_unusable_ratio", .unit = "ratio", .section = SECTION_FREE_MEMORY,
	.type = METRIC_GAUGE, .kind = MK_FREE_ZONES, .at = 1,
	.help = "The share of a zone's free memory in blocks smaller than the order: what an "
		"allocation of that order cannot use without compaction.",
	.labels = "node, zone, order",
	.doc = "The share of the zone's free memory in blocks smaller than the\norder: what an "
	       "allocation of that order cannot use without compaction (the kernel's unusable\n"
	       "free space index, as debugfs's extfrag/unusable_index shows it; 1 where nothing "
	       "is free).",
	.md_meaning = "the share of the zone's free memory in smaller blocks: unusable for that "
		      "order without compaction"},
    [MF_FREE_BY_MIGRATE_TYPE] = {"free_blocks_by_migrate_type", .unit = "blocks",
	.section = SECTION_FREE_MEMORY, .type = METRIC_GAUGE, .kind = MK_FREE_ZONES, .at = 2,
	.help = "Free blocks of each order per NUMA node, zone and migrate type "
		"(/proc/pagetypeinfo, read at most every 10 s).",
	.labels = "node, zone, migrate_type (Unmovable, Movable, Reclaimable, HighAtomic, CMA, "
		  "Isolate),\norder",
	.doc = "The same by migrate type\n.RB ( /proc/pagetypeinfo ,\nopened while foliostat is "
	       "root, read at most every 10 s: the kernel walks its free lists to\ncount them); "
	       "absent where that file could not be opened.",
	.md_labels = "`node`, `zone`, `migrate_type`, `order`",
	.md_meaning = "the same by migrate type (`/proc/pagetypeinfo`, read at most every 10 s)"},

    [MF_RESIDENT_BYTES] = {"resident_bytes", .section = SECTION_RESIDENT, .type = METRIC_GAUGE,
	.unit = "bytes",
	.kind = MK_RESIDENT, .at = 0,
	.help = "Memory the group maps now, by type and the order of the folio of each page "
		"(--resident).",
	.labels = "type, order",
	.doc = "Bytes the group's processes map now, by type (anon; file, the page cache\nof "
	       "files; shmem: tmpfs, shared anonymous memory, memfd) and the order of the folio "
	       "each page\nbelongs to. A page mapped by two processes counts in both. In records: "
	       "\\fBresident\\fR.",
	.md_labels = "`type` (`anon`, `file`, `shmem`), `order`",
	.md_meaning = "bytes the group's processes map now, by the order of each page's folio"},
    [MF_RESIDENT_LARGE_FOLIOS] = {"resident_large_folios", .section = SECTION_RESIDENT,
	.unit = "folios",
	.type = METRIC_GAUGE, .kind = MK_RESIDENT, .at = 1,
	.help = "Large folios the group maps now, by type and how they are mapped (--resident).",
	.labels = "type, mapping",
	.doc = "Large folios (order 1 and up) the group's processes map, by how: pmd (by\none PMD "
	       "entry), pte (whole, by page\\-table entries, at the folio's own alignment),\n"
	       "pte_unaligned (whole, elsewhere), partial (in part). In records: "
	       "\\fBresident\\fR.",
	.md_labels = "`type`, `mapping` (`pmd`, `pte`, `pte_unaligned`, `partial`)",
	.md_meaning = "large folios mapped now, by how"},
    [MF_RESIDENT_OLDEST] = {"resident_oldest_seconds", .unit = "seconds",
	SCALAR(SECTION_RESIDENT, MK_REAL, METRIC_GAUGE, resident_oldest),
	.help = "The age of the oldest reading of --resident's figures.",
	.doc = "Gauge: the age of the oldest reading among them.",
	.md_meaning = "age of the oldest reading"},
    [MF_RESIDENT_PROCESSES] = {"resident_processes", .unit = "processes",
	SCALAR(SECTION_RESIDENT, MK_COUNT, METRIC_GAUGE, resident_processes),
	.help = "Processes with a reading of what their memory holds (--resident).",
	.doc = "Gauge: processes with a reading.", .md_meaning = "processes with a reading"},
    [MF_RESIDENT_CUT_SHORT] = {"resident_cut_short_processes", .unit = "processes",
	SCALAR(SECTION_RESIDENT, MK_COUNT, METRIC_GAUGE, resident_cut_short),
	.help = "Processes whose reading stopped at the most pagemap entries a process may take "
		"in a pass: their figures are what was read, at least (--resident).",
	.doc = "Gauge: of them, those whose reading stopped at the most pagemap entries a process "
	       "may take in\na pass (twice the host's pages; pages far apart in a mapping of "
	       "terabytes, before Linux 6.7):\ntheir figures are what was read, at least.",
	.md_meaning = "of them, those read in part: at the limit of pagemap entries per process "
		      "and pass (figures at least)"},
    [MF_RESIDENT_PASSES] = {"resident_passes_total", .unit = "passes",
	SCALAR(SECTION_RESIDENT, MK_COUNT, METRIC_COUNTER, resident_passes),
	.help = "Whole readings of every selected process (--resident).",
	.doc = "Whole readings of every selected process.",
	.md_meaning = "whole passes over the selected processes"},
    [MF_RESIDENT_PASS_SECONDS] = {"resident_pass_seconds", .unit = "seconds",
	SCALAR(SECTION_RESIDENT, MK_REAL, METRIC_GAUGE, resident_pass_seconds),
	.help = "How long the last whole reading of every selected process took (--resident).",
	.doc = "Gauge: how long the last whole pass took (the budget makes it long on purpose).",
	.md_meaning = "the last whole pass's time"},
    [MF_RESIDENT_PASS_CPU] = {"resident_pass_cpu_seconds", .unit = "seconds",
	SCALAR(SECTION_RESIDENT, MK_REAL, METRIC_GAUGE, resident_pass_cpu),
	.help = "The CPU time of the last whole reading of every selected process (--resident).",
	.doc = "Gauge: its CPU time, user and system: at most about\n.B \\-\\-resident-budget\n"
	       "percent of the pass's time.",
	.md_meaning = "its CPU time (about the budget's share of its time)"},
};
/* clang-format on */
