/* SPDX-License-Identifier: GPL-2.0 */
/* A registry figure's values as the table shows them (record_layout.h): how many words it has,
 * whether it has anything, the entries it is drawn a line for each of (an LRU list, a TLB
 * reason, a node, a kernel counter) and the amount a cell shows of each. */
#ifndef FS_TABLE_FIGURES_H
#define FS_TABLE_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "record_layout.h"
#include "report.h"
#include "table_layout.h"

/* One entry of a figure: its index (a list's, a reason's, a node's number, a counter's; -1:
 * the whole figure, for a figure of one line) and its name (up to `size` bytes). */
struct figure_entry {
	int index;
	const char *name;
	size_t size;
	char number[16];
};

/* How many words figure i has in an object (0: none of its own). */
size_t figure_extent(int i);
/* Whether figure i (an object: any of its members) has anything in v. */
bool figure_nonzero(const struct fs_report *r, const struct figures_view *v, int i);
/* Figure i's n-th entry; false past its last. A node is listed where BPF counts allocations
 * per node (one node has them all). */
bool figure_entry(const struct fs_report *r, int i, int n, struct figure_entry *e);
/* Figure i's amount in v (of an entry's index, or -1: all of it), as a cell shows it; r is
 * needed only for the kernel's counters (RK_VMSTAT). */
__u64 figure_amount(const struct fs_report *r, const struct figures_view *v, int i, int entry,
		    enum table_cell_shows shows);

#endif /* FS_TABLE_FIGURES_H */
