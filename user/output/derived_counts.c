// SPDX-License-Identifier: GPL-2.0
/* Figures derived from the raw counters: faults from their kinds, allocations by node (see
 * report.h). The names of the counters' entries are figure_names.c's. */
#include <string.h>

#include "report.h"

#include "nodes.h"

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
