/* SPDX-License-Identifier: GPL-2.0 */
/* --by cgroup and --by comm: rows of another kind, from the same per-thread counts. */
#ifndef FS_REGROUP_H
#define FS_REGROUP_H

#include "rows.h"

struct process_filter;
struct snapshot;

/*
 * Give each thread's counts (and each process's collapse and stall figures) the row it belongs
 * to under --by (struct row_key): the cgroup it was counted in, or its process's name; a group's
 * processes are one row, whatever their pids and starts. The window then ranks, sums and
 * accumulates them as it does processes. -p and -n select processes first. Nothing to do for
 * --by process.
 */
void snapshot_regroup(struct snapshot *snap, enum fs_row_kind by,
		      const struct process_filter *filter);

#endif /* FS_REGROUP_H */
