// SPDX-License-Identifier: GPL-2.0
/* The figure registry (see figures.h): the rows, and what they derive. */
#include "figures.h"

#include <stddef.h>
#include <stdio.h>

#include "report.h"

const struct figure_dim_info figure_dims[NR_FIGURE_DIMS] = {
    [DIM_NONE] = {NULL, NULL, 1},
    [DIM_ORDER] = {"order", NULL, FS_NR_ORDERS},
    [DIM_LARGE_ORDER] = {"order", NULL, FS_NR_ORDERS, "order (1 and up)"},
    [DIM_FOLIO_KIND] = {"kind", NULL, 2},
    [DIM_FAULT_MODE] = {"mode", NULL, FS_NR_FAULT_MODES},
    [DIM_FAULT_MODE_ACCESS] = {"mode", "access", FS_NR_FAULT_MODES *FS_NR_FAULT_ACCESSES},
    [DIM_FAULT_CAUSE] = {"cause", NULL, FS_NR_FAULT_CAUSES},
    [DIM_TLB_REASON] = {"reason", NULL, FS_NR_TLB_REASONS},
    [DIM_LRU_LIST] = {"list", NULL, FS_NR_LRU_LISTS},
    [DIM_MIGRATE_COUNTER] = {"counter", NULL, FS_NR_MIGRATE_COUNTERS},
    [DIM_NODE] = {"node", NULL, FS_MAX_NODES, "node (each node with memory)"},
};

/* The values, one function per way of reading the counters. */
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

/* A probe in a rule's lists (0 ends a list). */
#define P(probe) ((probe) + 1)

/* clang-format off */
const struct measure_rule measure_rules[NR_MEASURES] = {
    [MEASURE_ALLOCATED] = {{P(PROBE_PAGE_ALLOC)}},
    [MEASURE_PAGECACHE] = {{P(PROBE_PAGECACHE_ADD)}},
    /* A discard is a free before an LRU insertion: both must be seen. */
    [MEASURE_DISCARDED] = {{P(PROBE_PAGE_FREE), P(PROBE_LRU_INSERT)}},
    [MEASURE_FREED] = {{P(PROBE_PAGE_FREE)}},
    /* By access and cause, over both modes: both exceptions tracepoints. */
    [MEASURE_FAULT_KINDS] = {{P(PROBE_FAULT_USER), P(PROBE_FAULT_KERNEL)}},
    /* By mode alone: that mode's tracepoint, or perf's page-fault event (both modes). */
    [MEASURE_FAULT_USER] = {{0}, {P(PROBE_FAULT_USER), P(PROBE_FAULT_EVENT)}},
    [MEASURE_FAULT_KERNEL] = {{0}, {P(PROBE_FAULT_KERNEL), P(PROBE_FAULT_EVENT)}},
    [MEASURE_FAULT_FILE] = {{P(PROBE_FAULT_FILE)}},
    [MEASURE_FAULT_MAJOR] = {{P(PROBE_FAULT_MAJOR)}},
    [MEASURE_FAULT_MINOR] = {{P(PROBE_FAULT_MINOR)}},
    [MEASURE_THP_FAULT_ALLOC] = {{P(PROBE_MEMCG_EVENTS)}},
    [MEASURE_THP_RESULTS + FS_THP_COLLAPSE] = {{P(PROBE_THP_COLLAPSE)}},
    [MEASURE_THP_RESULTS + FS_THP_COLLAPSE_FILE] = {{P(PROBE_THP_COLLAPSE_FILE)}},
    [MEASURE_THP_RESULTS + FS_THP_SCAN] = {{P(PROBE_THP_SCAN)}},
    [MEASURE_THP_RESULTS + FS_THP_SCAN_FILE] = {{P(PROBE_THP_SCAN_FILE)}},
    /* A stall is timed from its begin tracepoint: without it, none is seen. */
    [MEASURE_STALLS + FS_STALL_COMPACTION] = {{P(PROBE_COMPACTION_BEGIN)}},
    [MEASURE_STALLS + FS_STALL_DIRECT_RECLAIM] = {{P(PROBE_DIRECT_RECLAIM_BEGIN)}},
    [MEASURE_STALLS + FS_STALL_MEMCG_RECLAIM] = {{P(PROBE_MEMCG_RECLAIM_BEGIN)}},
    /* By the order asked for (the request), timed as the stall is (from its begin). */
    [MEASURE_COMPACTION_BY_ORDER] = {{P(PROBE_COMPACTION_REQUEST), P(PROBE_COMPACTION_BEGIN)}},
    [MEASURE_VMSCAN + FS_VMSCAN_SCANNED] = {{P(PROBE_LRU_ISOLATE)}},
    [MEASURE_VMSCAN + FS_VMSCAN_RECLAIMED] = {{P(PROBE_SHRINK_INACTIVE)}},
    [MEASURE_VMSCAN + FS_VMSCAN_DEACTIVATED] = {{P(PROBE_SHRINK_ACTIVE)}},
    [MEASURE_VMSCAN + FS_VMSCAN_KSWAPD_WAKES] = {{P(PROBE_KSWAPD_WAKE)}},
    [MEASURE_VMSCAN + FS_VMSCAN_WRITTEN] = {{P(PROBE_RECLAIM_WRITE)}},
    [MEASURE_TLB] = {{P(PROBE_TLB_FLUSH)}},
    [MEASURE_LRU_INSERT] = {{P(PROBE_LRU_INSERT)}},
    [MEASURE_LRU_ACTIVATE] = {{P(PROBE_LRU_ACTIVATE)}, {0}, WHEN_NOT_MGLRU},
    [MEASURE_MIGRATE] = {{P(PROBE_MIGRATE)}},
    [MEASURE_MIGRATE_LARGE_FOLIO_SPLIT] = {{P(PROBE_MIGRATE)}, {0}, WHEN_LARGE_FOLIO_SPLIT},
    [MEASURE_FILES_READAHEAD] = {{P(PROBE_FILES_READAHEAD)}},
    [MEASURE_NODES] = {{P(PROBE_PAGE_ALLOC)}, {0}, WHEN_NODES_KNOWN},
};
/* clang-format on */

/* The word index of a field of struct fs_totals, and strides in words. */
#define WORD(field) (offsetof(struct fs_totals, field) / sizeof(__u64))
#define AT(field, stride_a, stride_b) WORD(field), (stride_a), (stride_b)
/* A figure measured as a whole by one measure. */
#define ONLY(measure) (measure), NULL, MEASURE_NONE
_Static_assert(FS_FOLIO_ALLOC_KERNEL == FS_FOLIO_ALLOC_MOVABLE + 1,
	       "kind (movable, kernel) is one histogram's stride from the movable one");

/* clang-format off */
const struct figure group_figures[] = {
    {"folios_allocated_total", "Folios allocated, by order and kind.",
     "Folios allocated (kmem:mm_page_alloc), by order and kind: movable (user memory, page "
     "cache) or kernel.",
     "folios.alloc folios.alloc_movable folios.alloc_kernel",
     DIM_ORDER, DIM_FOLIO_KIND, NULL, ONLY(MEASURE_ALLOCATED),
     AT(folios[FS_FOLIO_ALLOC_MOVABLE][0], 1, FS_NR_ORDERS)},
    {"allocated_bytes_total", "Bytes of the folios allocated, by kind.", "Their bytes.",
     "folios.alloc folios.alloc_movable folios.alloc_kernel",
     DIM_FOLIO_KIND, DIM_NONE, allocated_bytes, ONLY(MEASURE_ALLOCATED), 0, 0, 0},
    {"pagecache_folios_added_total", "Folios added to the page cache, by order.",
     "Folios added to the page cache, by order.",
     "folios.pagecache",
     DIM_ORDER, DIM_NONE, NULL, ONLY(MEASURE_PAGECACHE),
     AT(folios[FS_FOLIO_PAGECACHE][0], 1, 0)},
    {"pagecache_added_bytes_total", "Bytes of the folios added to the page cache.",
     "Their bytes.",
     "folios.pagecache",
     DIM_NONE, DIM_NONE, pagecache_bytes, ONLY(MEASURE_PAGECACHE), 0, 0, 0},
    {"folio_allocations_failed_total",
     "Movable allocations that got no folio (a THP, mTHP or large page-cache folio that fell "
     "back to a smaller order), by order.",
     "Movable allocations that got no folio (kmem:mm_page_alloc with no page), by the order "
     "asked for: a THP or mTHP fault, or a large page\\-cache folio, that had to fall back to a "
     "smaller order (each order tried is one).",
     "folios.alloc_failed",
     DIM_ORDER, DIM_NONE, NULL, ONLY(MEASURE_ALLOCATED),
     AT(folios[FS_FOLIO_ALLOC_FAILED][0], 1, 0)},
    {"folios_discarded_total",
     "Movable large folios their allocating thread freed before they reached an LRU list "
     "(memory cgroup charge refused, or a race lost), by order.",
     "Movable large folios freed by the thread that allocated them before they reached an LRU "
     "list: the memory cgroup refused the charge, or another thread mapped the range (or added "
     "the page\\-cache index) first. They are also in foliostat_folios_allocated_total. Absent "
     "without kmem:mm_page_free or pagemap:mm_lru_insertion.",
     "folios.discarded",
     DIM_LARGE_ORDER, DIM_NONE, NULL, ONLY(MEASURE_DISCARDED),
     AT(folios[FS_FOLIO_DISCARDED][0], 1, 0)},
    {"node_folios_allocated_total", "Folios allocated, by the node of their memory.",
     "Folios allocated (kmem:mm_page_alloc), movable and kernel, by the NUMA node their memory "
     "is on: each node with memory has a series. On a host of one node, every allocation; on "
     "more, the node the kernel keeps in each page's flags (foliostat checks where at start\\-up "
     "and leaves these families out where it cannot).",
     "folios.alloc_by_node",
     DIM_NODE, DIM_NONE, node_folios, ONLY(MEASURE_NODES), 0, 0, 0},
    {"node_allocated_bytes_total", "Bytes of the folios allocated, by node.", "Their bytes.",
     "folios.alloc_by_node",
     DIM_NODE, DIM_NONE, node_bytes, ONLY(MEASURE_NODES), 0, 0, 0},
    {"thp_fault_alloc_total",
     "THP faults that got a huge page (the memory cgroup's THP_FAULT_ALLOC).",
     "THP faults that got a huge page (memcg:count_memcg_events, the memory cgroup's "
     "THP_FAULT_ALLOC; absent on kernels without that tracepoint, such as 6.1). Beside it, the "
     "order\\-9 series of the two families above tell why a group's other THP faults got none.",
     "thp.fault_alloc",
     DIM_NONE, DIM_NONE, NULL, ONLY(MEASURE_THP_FAULT_ALLOC),
     AT(thp_fault_alloc, 0, 0)},
    {"page_faults_total", "Page faults, by mode, access and cause.",
     "Page faults by mode (user, kernel), access (read, write, exec) and cause (not_present, "
     "protection); where only perf's page\\-fault event counts them (arm64), or one of the two "
     "exceptions tracepoints, by mode only, without access and cause (and without the series "
     "of a mode that nothing measures).",
     "faults.user faults.kernel faults.read faults.write faults.exec faults.not_present faults.protection",
     DIM_FAULT_MODE_ACCESS, DIM_FAULT_CAUSE, NULL, ONLY(MEASURE_FAULT_KINDS),
     /* a = mode * accesses + access, b = cause: the BPF side's kinds (FS_FAULT_KIND) */
     AT(fault_kinds[0], FS_NR_FAULT_CAUSES, 1)},
    {"page_faults_total", "Page faults, by mode (access and cause not known here).", NULL,
     "faults.user faults.kernel",
     DIM_FAULT_MODE, DIM_NONE, fault_mode,
     MEASURE_NONE, fault_measures, MEASURE_FAULT_KINDS, 0, 0, 0},
    {"file_faults_total", "Page faults served through the page cache.",
     "Faults served through the page cache (filemap:mm_filemap_fault).",
     "faults.file",
     DIM_NONE, DIM_NONE, NULL, ONLY(MEASURE_FAULT_FILE),
     AT(file_faults, 0, 0)},
    /* Completed faults as getrusage() counts them: a fault retried, or one a signal ended, is
     * one page_faults_total but no major or minor fault, so these are families apart. */
    {"major_faults_total",
     "Page faults that waited for I/O, as the kernel accounts them to the task (getrusage's "
     "majflt).",
     "Completed page faults that needed I/O, as the kernel accounts them to the task "
     "(getrusage's majflt; perf's software event major\\-faults).",
     "faults.major",
     DIM_NONE, DIM_NONE, NULL, ONLY(MEASURE_FAULT_MAJOR),
     AT(major_faults, 0, 0)},
    {"minor_faults_total",
     "Page faults completed without I/O, as the kernel accounts them to the task (getrusage's "
     "minflt).",
     "Completed page faults without I/O (getrusage's minflt; perf's minor\\-faults). Unlike "
     "foliostat_page_faults_total, neither family counts a fault that is retried or fails; and "
     "neither counts the faults get_user_pages() takes on a task's behalf, which getrusage "
     "does.",
     "faults.minor",
     DIM_NONE, DIM_NONE, NULL, ONLY(MEASURE_FAULT_MINOR),
     AT(minor_faults, 0, 0)},
    {"tlb_flushes_total",
     "TLB flushes, by the kernel's reason (remote_send_ipi: shootdowns sent, remote_shootdown: "
     "suffered).",
     "TLB flushes by the kernel's reason (enum tlb_flush_reason, lowercased, without TLB_): "
     "remote_send_ipi counts shootdowns sent, remote_shootdown those suffered.",
     "tlb.flushes",
     DIM_TLB_REASON, DIM_NONE, NULL, ONLY(MEASURE_TLB),
     AT(tlb_flushes[0], 1, 0)},
    {"tlb_flushed_pages_total", "Pages of ranged TLB flushes.", NULL,
     "tlb.pages",
     DIM_NONE, DIM_NONE, NULL, ONLY(MEASURE_TLB),
     AT(tlb_pages, 0, 0)},
    {"tlb_full_flushes_total", "Whole-TLB flushes.", "Whole\\-TLB flushes.",
     "tlb.full",
     DIM_NONE, DIM_NONE, NULL, ONLY(MEASURE_TLB),
     AT(tlb_full, 0, 0)},
    {"lru_inserted_folios_total", "Folios added to an LRU list, by list.",
     "Folios added to an LRU list (enum lru_list, lowercased).",
     "lru.insert",
     DIM_LRU_LIST, DIM_NONE, NULL, ONLY(MEASURE_LRU_INSERT),
     AT(lru_insert[0][FS_FOLIOS], FS_NR_AMOUNTS, 0)},
    {"lru_inserted_pages_total", "Pages of the folios added to an LRU list, by list.",
     "Their pages.",
     "lru.insert",
     DIM_LRU_LIST, DIM_NONE, NULL, ONLY(MEASURE_LRU_INSERT),
     AT(lru_insert[0][FS_PAGES], FS_NR_AMOUNTS, 0)},
    {"lru_activated_folios_total", "Folios activated on the LRU.",
     "Folios activated (absent with the multi\\-generational LRU).",
     "lru.activate.folios",
     DIM_NONE, DIM_NONE, NULL, ONLY(MEASURE_LRU_ACTIVATE),
     AT(lru_activate[FS_FOLIOS], 0, 0)},
    {"lru_activated_pages_total", "Pages of the folios activated.", "Their pages.",
     "lru.activate.pages",
     DIM_NONE, DIM_NONE, NULL, ONLY(MEASURE_LRU_ACTIVATE),
     AT(lru_activate[FS_PAGES], 0, 0)},
    {"migrate_total", "Page migration: pages, or folios for the thp_ and large_folio_ counters.",
     "Page migration: succeeded, failed (pages), thp_succeeded, thp_failed, thp_split, "
     "large_folio_split (folios).",
     "thp.migrate.succeeded thp.migrate.failed thp.migrate.thp_succeeded thp.migrate.thp_failed thp.migrate.thp_split thp.migrate.large_folio_split",
     DIM_MIGRATE_COUNTER, DIM_NONE, NULL,
     MEASURE_MIGRATE, migrate_measures, MEASURE_NONE, AT(migrate[0], 1, 0)},
};
/* clang-format on */
const int nr_group_figures = sizeof(group_figures) / sizeof(group_figures[0]);

#define THP_RESULTS                                                                      \
	{MEASURE_THP_RESULTS + FS_THP_COLLAPSE, MEASURE_THP_RESULTS + FS_THP_COLLAPSE_FILE, \
	 MEASURE_THP_RESULTS + FS_THP_SCAN, MEASURE_THP_RESULTS + FS_THP_SCAN_FILE}
#define STALL_TIMES(object) object ".stalls " object ".total_us " object ".hist_us " object ".untracked"

/* clang-format off */
const struct family families[NR_FAMILY_LAYOUTS] = {
    [FAMILY_COLLAPSE_RESULTS] = {
	"thp_collapse_results_total", false, "counter",
	"khugepaged and MADV_COLLAPSE outcomes, by event and the kernel's result.",
	"khugepaged and MADV_COLLAPSE outcomes, by event and the kernel's result.",
	"event, result",
	"khugepaged and MADV_COLLAPSE outcomes, charged to the process whose memory is collapsed: "
	"event collapse, collapse_file, scan or scan_file, result the kernel's enum scan_result "
	"name (succeed, ...). Besides the groups and other: group=\\(dquntracked\\(dq (processes "
	"the table had no room for) and group=\\(dqunattributed\\(dq (memory whose owner is not "
	"known).",
	"thp.collapse thp.collapse_file thp.scan thp.scan_file thp.unattributed.collapse "
	"thp.unattributed.collapse_file thp.unattributed.scan thp.unattributed.scan_file "
	"thp.untracked.collapse thp.untracked.collapse_file thp.untracked.scan "
	"thp.untracked.scan_file",
	THP_RESULTS},
    [FAMILY_COLLAPSE_ZERO_FILLED] = {
	"thp_collapse_zero_filled_pages_total", false, "counter",
	"Pages of the huge pages anonymous collapses made that were filled with zeroes.",
	"Pages of the huge pages anonymous collapses made that were filled with zeroes.",
	NULL,
	"Pages of the huge pages that khugepaged and MADV_COLLAPSE made of a process's anonymous "
	"memory that had no page, or the shared zero page, before the collapse: memory filled "
	"with zeroes that the process never touched (the cost of max_ptes_none, THP bloat), "
	"charged to the process whose memory it is. The same groups as "
	"foliostat_thp_collapse_results_total; a group's series appears at its first such page.",
	"thp.zero_filled thp.unattributed.zero_filled thp.untracked.zero_filled",
	{MEASURE_THP_RESULTS + FS_THP_SCAN}},
    [FAMILY_STALL_SECONDS] = {
	"stall_seconds", false, "histogram",
	"Compaction and reclaim stalls, by kind (other includes threads the table had no room "
	"for).",
	"Compaction and reclaim stalls over the system, by kind.",
	"kind",
	"A histogram (_bucket with le, _sum, _count) of compaction, direct_reclaim and "
	"memcg_reclaim stalls; bucket bounds 1 us, 4 us, 16 us and so on by fours to 16.8 s, then "
	"+Inf. A group's histogram of a kind appears at its first stall; group=\\(dqother\\(dq "
	"also holds the stalls of processes the table had no room for.",
	STALL_TIMES("thp.compaction") " " STALL_TIMES("reclaim.direct") " "
	STALL_TIMES("reclaim.memcg"),
	{MEASURE_STALLS + FS_STALL_COMPACTION, MEASURE_STALLS + FS_STALL_DIRECT_RECLAIM,
	 MEASURE_STALLS + FS_STALL_MEMCG_RECLAIM}},
    [FAMILY_STALL_RECLAIMED] = {
	"stall_reclaimed_pages_total", false, "counter",
	"Pages reclaimed in direct and memory-cgroup reclaim stalls.",
	"Pages reclaimed in direct and memory-cgroup reclaim stalls over the system.",
	"kind", "Pages reclaimed in direct_reclaim and memcg_reclaim stalls.",
	"reclaim.direct.reclaimed reclaim.memcg.reclaimed",
	{MEASURE_STALLS + FS_STALL_DIRECT_RECLAIM, MEASURE_STALLS + FS_STALL_MEMCG_RECLAIM}},
    [FAMILY_COMPACTION_BY_ORDER] = {
	"compaction_stalls_by_order_total", false, "counter",
	"Direct compaction stalls, by the order of the allocation that asked for it.",
	"Direct compaction stalls, by the order of the allocation that asked for it.",
	"order",
	"Of the compaction stalls of foliostat_stall_seconds, those of direct compaction, by the "
	"order of the allocation that asked for it (compaction:mm_compaction_try_to_compact_pages);"
	" per process like the stall histograms, so group=\\(dqother\\(dq also holds those of "
	"processes the table had no room for and of threads outside a selection. Absent without "
	"that tracepoint or compaction:mm_compaction_begin.",
	"thp.compaction.by_order", {MEASURE_COMPACTION_BY_ORDER}},
    [FAMILY_COMPACTION_BY_ORDER_S] = {
	"compaction_stall_by_order_seconds_total", false, "counter",
	"Time stalled in direct compaction, by the order of the allocation that asked for it.",
	"Time stalled in direct compaction, by the order of the allocation that asked for it.",
	"order",
	"Their time, in seconds: divided by the order\\-9 foliostat_folios_allocated_total, what "
	"each huge page cost in compaction.",
	"thp.compaction.by_order", {MEASURE_COMPACTION_BY_ORDER}},
    [FAMILY_NODE_ORDERS] = {
	"node_folios_allocated_by_order_total", false, "counter",
	"Folios allocated, by the node of their memory and by order.",
	"Folios allocated over the system, by the node of their memory and by order.",
	"node, order",
	"Folios allocated (kmem:mm_page_alloc), by the node of their memory and by order: which "
	"node's free blocks a group's large folios come from. A group's series of a node and "
	"order appears at its first such folio; group=\\(dqother\\(dq also holds those of "
	"interrupt context and of threads the table had no room for or outside a selection.",
	"folios.alloc_by_node_and_order", {MEASURE_NODES}},
    [FAMILY_SYSTEM_FREED] = {
	"system_folios_freed_total", true, "counter", NULL, "Folios freed, by order.",
	"order", "Folios freed (kmem:mm_page_free), by order.",
	"folios.free", {MEASURE_FREED}},
    [FAMILY_SYSTEM_FREED_BYTES] = {
	"system_freed_bytes_total", true, "counter", NULL, "Bytes of the folios freed.",
	NULL, "Their bytes.", "folios.free", {MEASURE_FREED}},
    [FAMILY_SYSTEM_VMSTAT] = {
	"system_kernel_vmstat_total", true, "counter", NULL,
	"The kernel's /proc/vmstat THP counters: their growth since foliostat started.",
	"counter",
	"The growth since foliostat started of the kernel's /proc/vmstat thp_* counters "
	"(thp_fault_alloc, thp_fault_fallback, ...), which show what has no tracepoint.",
	"thp.vmstat", {MEASURE_NONE}},
    [FAMILY_SYSTEM_MTHP] = {
	"system_kernel_mthp_total", true, "counter", NULL,
	"The kernel's per-size mTHP counters: their growth since foliostat started.",
	"size, counter",
	"The growth since start of the per\\-size mTHP counters (size 64kB, ...; counter "
	"anon_fault_alloc, ...), without the nr_ levels.",
	"thp.mthp", {MEASURE_NONE}},
    [FAMILY_SYSTEM_VMSCAN] = {
	"system_vmscan_pages_total", true, "counter", NULL,
	"Pages reclaim scanned, reclaimed and deactivated, by reclaimer and LRU list.",
	"reclaimer, action, list",
	"Pages reclaim scanned, reclaimed and deactivated (action), by kswapd or direct reclaimers "
	"(reclaimer), per LRU list.",
	"reclaim.vmscan.kswapd.scanned reclaim.vmscan.kswapd.reclaimed "
	"reclaim.vmscan.kswapd.deactivated reclaim.vmscan.direct.scanned "
	"reclaim.vmscan.direct.reclaimed reclaim.vmscan.direct.deactivated",
	{MEASURE_VMSCAN + FS_VMSCAN_SCANNED, MEASURE_VMSCAN + FS_VMSCAN_RECLAIMED,
	 MEASURE_VMSCAN + FS_VMSCAN_DEACTIVATED}},
    [FAMILY_SYSTEM_KSWAPD_WAKES] = {
	"system_kswapd_wakes_total", true, "counter", NULL, "kswapd wake-ups.", NULL,
	"kswapd wake\\-ups.", "reclaim.vmscan.kswapd_wakes",
	{MEASURE_VMSCAN + FS_VMSCAN_KSWAPD_WAKES}},
    [FAMILY_SYSTEM_RECLAIM_WRITTEN] = {
	"system_reclaim_written_pages_total", true, "counter", NULL,
	"Pages written back by reclaim.", NULL, "Pages reclaim wrote back.",
	"reclaim.vmscan.written.pages", {MEASURE_VMSCAN + FS_VMSCAN_WRITTEN}},
    [FAMILY_SYSTEM_PROCESSES] = {
	"system_processes", true, "gauge", NULL, "Processes with activity in the last read.",
	NULL, "Gauge: rows (of the \\-\\-by kind) with activity in the last read.",
	"processes", {MEASURE_NONE}},
};
/* clang-format on */

bool family_shown(enum family_layout layout, const bool measured[NR_MEASURES])
{
	const enum fs_measure *any_of = families[layout].any_of;
	bool shown = any_of[0] == MEASURE_NONE;

	for (int i = 0; i < 4 && any_of[i] != MEASURE_NONE; i++)
		shown |= measured[any_of[i]];
	return shown;
}

static bool attached(const struct probe_status *probes, unsigned char p)
{
	return probes[p - 1].attached;
}

static bool rule_holds(const struct measure_rule *rule, const struct probe_status *probes,
		       const struct measure_facts *facts)
{
	bool ok;

	if (!rule->all[0] && !rule->any[0])
		return false; /* MEASURE_NONE */
	ok = !!rule->all[0];
	for (int i = 0; i < 3 && rule->all[i]; i++)
		ok &= attached(probes, rule->all[i]);
	for (int i = 0; i < 3 && rule->any[i]; i++)
		ok |= attached(probes, rule->any[i]);
	switch (rule->when) {
	case WHEN_NOT_MGLRU:
		return ok && !facts->mglru;
	case WHEN_LARGE_FOLIO_SPLIT:
		return ok && facts->migrate_large_split;
	case WHEN_NODES_KNOWN:
		return ok && facts->nodes_known;
	default:
		return ok;
	}
}

void measures_derive(const struct probe_status *probes, const struct measure_facts *facts,
		     bool measured[NR_MEASURES])
{
	for (int m = 0; m < NR_MEASURES; m++)
		measured[m] = rule_holds(&measure_rules[m], probes, facts);
}

void measure_needs(enum fs_measure m, char *text, size_t len)
{
	const struct measure_rule *rule = &measure_rules[m];
	const unsigned char *list = rule->all[0] ? rule->all : rule->any;
	size_t used = 0;
	int n = 0;

	text[0] = 0;
	while (n < 3 && list[n])
		n++;
	for (int i = 0; i < n && used < len; i++)
		used += snprintf(text + used, len - used, "%s%s",
				 i == 0 ? "" : i < n - 1 ? ", " : rule->all[0] ? " and " : " or ",
				 probe_name(list[i] - 1));
	if (used < len)
		used += snprintf(text + used, len - used, " attached");
	if (used < len && rule->when == WHEN_NOT_MGLRU)
		used += snprintf(text + used, len - used, ", and the multi-generational LRU off");
	if (used < len && rule->when == WHEN_LARGE_FOLIO_SPLIT)
		snprintf(text + used, len - used,
			 ", on a kernel whose tracepoint reports large folio splits (not 6.1)");
	if (used < len && rule->when == WHEN_NODES_KNOWN)
		snprintf(text + used, len - used,
			 ", and the node of each allocation known: one node, or page flags that "
			 "foliostat checked at start-up");
}

void measures_of(const struct loader *loader, bool mglru, bool measured[NR_MEASURES])
{
	struct measure_facts facts = {
	    .mglru = mglru,
	    .migrate_large_split = loader->migrate_large_split,
	    .nodes_known = loader->nodes.known,
	};

	measures_derive(loader->probes, &facts, measured);
}

__u64 figure_value(const struct figure *f, const struct fs_totals *c, int a, int b,
		   const struct host_info *host)
{
	if (f->value)
		return f->value(c, a, b, host);
	return ((const __u64 *)c)[f->at + a * f->stride_a + b * f->stride_b];
}

bool figure_measured_at(const struct figure *f, const bool measured[NR_MEASURES], int a)
{
	return measured[f->measure_at ? f->measure_at[a] : f->measure];
}

bool figure_measured(const struct figure *f, const bool measured[NR_MEASURES])
{
	bool any = measured[f->measure];

	if (f->unless != MEASURE_NONE && measured[f->unless])
		return false;
	for (int a = 0; f->measure_at && a < figure_dims[f->dim_a].size; a++)
		any |= measured[f->measure_at[a]];
	return any;
}
