/* SPDX-License-Identifier: GPL-2.0 */
/* --by cgroup and --by comm: rows of another kind, from the same per-thread counts. */
#ifndef FS_REGROUP_H
#define FS_REGROUP_H

#include "options.h"
#include "snapshot.h"

/*
 * Give each thread's counts (and each process's collapse and stall figures) the key of the row
 * it belongs to under --by, in the place of its process's tgid: the low 32 bits of the cgroup id
 * it was counted in (a live cgroup's are unique: kernfs ids are 32-bit, with the high bits a
 * generation), or a 32-bit hash of its name, and no start (a group's processes are one row).
 * The window then ranks, sums and accumulates them as it does processes. -p and -n select
 * processes first. Nothing to do for --by process.
 */
void snapshot_regroup(struct snapshot *snap, const struct fs_options *opts);

#endif /* FS_REGROUP_H */
