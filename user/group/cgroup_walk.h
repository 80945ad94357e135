/* SPDX-License-Identifier: GPL-2.0 */
/* Finding cgroups by id with a walk of the cgroup2 hierarchy: what names them where their file
 * handles cannot (cgroup_names.h), for the ids asked for only. */
#ifndef FS_CGROUP_WALK_H
#define FS_CGROUP_WALK_H

#include <stddef.h>
#include <linux/types.h>

/* A cgroup the walk found: ids[at], its path below the mount ("/" for the root). */
typedef void (*cgroup_found_fn)(void *ctx, size_t at, const char *path);

/* Walk the hierarchy at `mount` (no trailing '/'), calling `found` for each directory whose id is
 * one of `ids` (sorted). Returns 0 once the walk is whole, or a negative errno. */
int cgroup_walk(const char *mount, const __u64 *ids, size_t nr, cgroup_found_fn found, void *ctx);

#endif /* FS_CGROUP_WALK_H */
