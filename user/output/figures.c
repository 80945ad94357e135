// SPDX-License-Identifier: GPL-2.0
/* What the figure registry's rows share (see figures.h): the measures' rules, the dimensions. */
#include "figures.h"

#include <stddef.h>
#include <stdio.h>

#include "report.h"

static const char *const order_names[FS_NR_ORDERS] = {
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15"};
/* Orders of large folios only: order 0 is never discarded nor compacted for (skipped). */
static const char *const large_order_names[FS_NR_ORDERS] = {
    NULL, "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15"};
/* A fault kind's first index (mode * accesses + access) has two labels: mode and access. */
static const char *const kind_modes[FS_NR_FAULT_MODES * FS_NR_FAULT_ACCESSES] = {
    FAULT_USER_NAME,   FAULT_USER_NAME,   FAULT_USER_NAME,
    FAULT_KERNEL_NAME, FAULT_KERNEL_NAME, FAULT_KERNEL_NAME};
static const char *const kind_accesses[FS_NR_FAULT_MODES * FS_NR_FAULT_ACCESSES] = {
    FAULT_ACCESS_NAMES, FAULT_ACCESS_NAMES};
_Static_assert(FS_NR_FAULT_ACCESSES == 3 && FS_NR_FAULT_MODES == 2 && FS_MODE_USER == 0 &&
		   FS_ACCESS_READ == 0 && FS_ACCESS_WRITE == 1 && FS_ACCESS_EXEC == 2,
	       "a fault kind's first index: each mode's accesses, in fault_*_names' order");

const struct figure_dim_info figure_dims[NR_FIGURE_DIMS] = {
    [DIM_NONE] = {NULL, NULL, 1},
    [DIM_ORDER] = {"order", NULL, FS_NR_ORDERS, .values = order_names},
    [DIM_LARGE_ORDER] = {"order", NULL, FS_NR_ORDERS, "order (1 and up)",
			 .values = large_order_names},
    [DIM_FOLIO_KIND] = {"kind", NULL, 2, .values = folio_kind_names},
    [DIM_FAULT_MODE] = {"mode", NULL, FS_NR_FAULT_MODES, .values = fault_mode_names,
			.measures = fault_measures},
    [DIM_FAULT_MODE_ACCESS] = {"mode", "access", FS_NR_FAULT_MODES * FS_NR_FAULT_ACCESSES,
			       .values = kind_modes, .values2 = kind_accesses},
    [DIM_FAULT_CAUSE] = {"cause", NULL, FS_NR_FAULT_CAUSES, .values = fault_cause_names},
    [DIM_TLB_REASON] = {"reason", NULL, FS_NR_TLB_REASONS},
    [DIM_LRU_LIST] = {"list", NULL, FS_NR_LRU_LISTS},
    [DIM_MIGRATE_COUNTER] = {"counter", NULL, FS_NR_MIGRATE_COUNTERS, .values = migrate_names,
			     .measures = migrate_measures},
    [DIM_NODE] = {"node", NULL, FS_MAX_NODES, "node (each node with memory)"},
};
_Static_assert((int)FS_FAULT_USER == (int)FS_MODE_USER &&
		   (int)FS_FAULT_KERNEL == (int)FS_MODE_KERNEL,
	       "fault_measures' first two are the modes'");

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

bool metric_shown(enum metric_id m, const bool measured[NR_MEASURES])
{
	const struct metric_family *f = &metric_families[m];
	const struct figure_dim_info *a = &figure_dims[f->dim_a];
	bool any = false, listed = false;

	for (int i = 0; i < 4 && f->any_of[i] != MEASURE_NONE; i++) {
		listed = true;
		any |= measured[f->any_of[i]];
	}
	for (int i = 0; a->measures && i < a->size; i++) {
		listed = true;
		any |= measured[a->measures[i]];
	}
	if (f->unless != MEASURE_NONE && measured[f->unless])
		return false;
	return any || !listed;
}

bool metric_shown_at(enum metric_id m, const bool measured[NR_MEASURES], int a)
{
	const enum fs_measure *measures = figure_dims[metric_families[m].dim_a].measures;

	return !measures || measured[measures[a]];
}

__u64 metric_value(enum metric_id m, const struct fs_totals *c, int a, int b,
		   const struct host_info *host)
{
	const struct metric_family *f = &metric_families[m];

	if (f->value)
		return f->value(c, a, b, host);
	return ((const __u64 *)c)[f->at + a * f->stride_a + b * f->stride_b];
}
