// SPDX-License-Identifier: GPL-2.0
/* Names of the counters' entries, and figures derived from the raw counters: faults from their
 * kinds, allocations by node (see report.h). */
#include <string.h>

#include "report.h"

#include "nodes.h"

const char *const thp_event_names[FS_NR_THP_EVENTS] = {
    [FS_THP_COLLAPSE] = "collapse",
    [FS_THP_COLLAPSE_FILE] = "collapse_file",
    [FS_THP_SCAN] = "scan",
    [FS_THP_SCAN_FILE] = "scan_file",
};

const char *const migrate_names[FS_NR_MIGRATE_COUNTERS] = {
    [FS_MIGRATE_SUCCEEDED] = "succeeded",
    [FS_MIGRATE_FAILED] = "failed",
    [FS_MIGRATE_THP_SUCCEEDED] = "thp_succeeded",
    [FS_MIGRATE_THP_FAILED] = "thp_failed",
    [FS_MIGRATE_THP_SPLIT] = "thp_split",
    [FS_MIGRATE_LARGE_FOLIO_SPLIT] = "large_folio_split",
};

const enum fs_measure fault_measures[FS_NR_FAULT_COUNTERS] = {
    [FS_FAULT_USER] = MEASURE_FAULT_USER,
    [FS_FAULT_KERNEL] = MEASURE_FAULT_KERNEL,
    [FS_FAULT_READ] = MEASURE_FAULT_KINDS,
    [FS_FAULT_WRITE] = MEASURE_FAULT_KINDS,
    [FS_FAULT_EXEC] = MEASURE_FAULT_KINDS,
    [FS_FAULT_NOT_PRESENT] = MEASURE_FAULT_KINDS,
    [FS_FAULT_PROTECTION] = MEASURE_FAULT_KINDS,
    [FS_FAULT_FILE] = MEASURE_FAULT_FILE,
    [FS_FAULT_MAJOR] = MEASURE_FAULT_MAJOR,
    [FS_FAULT_MINOR] = MEASURE_FAULT_MINOR,
};

const enum fs_measure migrate_measures[FS_NR_MIGRATE_COUNTERS] = {
    [FS_MIGRATE_SUCCEEDED] = MEASURE_MIGRATE,
    [FS_MIGRATE_FAILED] = MEASURE_MIGRATE,
    [FS_MIGRATE_THP_SUCCEEDED] = MEASURE_MIGRATE,
    [FS_MIGRATE_THP_FAILED] = MEASURE_MIGRATE,
    [FS_MIGRATE_THP_SPLIT] = MEASURE_MIGRATE,
    [FS_MIGRATE_LARGE_FOLIO_SPLIT] = MEASURE_MIGRATE_LARGE_FOLIO_SPLIT,
};

/* Does fault kind `kind` (FS_FAULT_KIND()) count towards figure `f`? */
static bool fault_kind_counts(int kind, enum fs_fault_counter f)
{
	int cause = kind % FS_NR_FAULT_CAUSES;
	int access = kind / FS_NR_FAULT_CAUSES % FS_NR_FAULT_ACCESSES;
	int mode = kind / (FS_NR_FAULT_CAUSES * FS_NR_FAULT_ACCESSES);

	switch (f) {
	case FS_FAULT_USER:
		return mode == FS_MODE_USER;
	case FS_FAULT_KERNEL:
		return mode == FS_MODE_KERNEL;
	case FS_FAULT_READ:
		return access == FS_ACCESS_READ;
	case FS_FAULT_WRITE:
		return access == FS_ACCESS_WRITE;
	case FS_FAULT_EXEC:
		return access == FS_ACCESS_EXEC;
	case FS_FAULT_NOT_PRESENT:
		return cause == FS_CAUSE_NOT_PRESENT;
	case FS_FAULT_PROTECTION:
		return cause == FS_CAUSE_PROTECTION;
	default:
		return false;
	}
}

__u64 fault_count(const struct fs_totals *c, enum fs_fault_counter f)
{
	__u64 sum = 0;

	if (f == FS_FAULT_FILE)
		return c->file_faults;
	if (f == FS_FAULT_MAJOR)
		return c->major_faults;
	if (f == FS_FAULT_MINOR)
		return c->minor_faults;
	for (int kind = 0; kind < FS_NR_FAULT_KINDS; kind++)
		if (fault_kind_counts(kind, f))
			sum += c->fault_kinds[kind];
	return sum;
}


/* The folios allocated by order: movable and kernel together. */
static void allocated_orders(const struct fs_totals *c, __u64 out[FS_NR_ORDERS])
{
	for (int order = 0; order < FS_NR_ORDERS; order++)
		out[order] = c->folios[FS_FOLIO_ALLOC_MOVABLE][order] +
			     c->folios[FS_FOLIO_ALLOC_KERNEL][order];
}

__u64 node_allocated(const struct fs_totals *c, const struct memory_nodes *nodes, int node,
		     enum fs_amount amount)
{
	__u64 hist[FS_NR_ORDERS];

	if (nodes->counted)
		return node < FS_MAX_NODES ? c->alloc_by_node[node][amount] : 0;
	if (node != nodes->ids[0])
		return 0;
	allocated_orders(c, hist);
	return amount == FS_PAGES ? hist_pages(hist) : hist_folios(hist);
}

void node_allocated_orders(const __u64 by_node[FS_MAX_NODES][FS_NR_ORDERS],
			   const struct fs_totals *c, const struct memory_nodes *nodes, int node,
			   __u64 out[FS_NR_ORDERS])
{
	if (nodes->counted && node < FS_MAX_NODES)
		memcpy(out, by_node[node], FS_NR_ORDERS * sizeof(out[0]));
	else if (!nodes->counted && node == nodes->ids[0])
		allocated_orders(c, out);
	else
		memset(out, 0, FS_NR_ORDERS * sizeof(out[0]));
}
