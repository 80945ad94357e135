/* SPDX-License-Identifier: GPL-2.0 */
/* --cgroup: a cgroup (v2) named by the user, found where the host mounts the hierarchy. */
#ifndef FS_CGROUPS_H
#define FS_CGROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "foliostat.h"

/* Where the cgroup2 hierarchy is mounted (the first cgroup2 mount in /proc/self/mountinfo:
 * hybrid hosts mount it elsewhere than /sys/fs/cgroup). Returns 0, or -ENOENT if none is. */
int cgroup2_mount(char *mount, size_t len);
/* The same, from mountinfo's text in `mountinfo` (exposed for the fuzz tests). */
int cgroup2_mount_in(FILE *mountinfo, char *mount, size_t len);

/* A process's cgroup v2 path in the text of its /proc/PID/cgroup (the "0::" line's path), cut
 * from the text in place; NULL if it has none. */
char *proc_cgroup_v2_path(char *text);

/*
 * Whether `mount` shows the hierarchy's root cgroup, so that paths below it are as systemd and
 * the runtimes made them: not when it is a cgroup namespace's root (a container's) or a mount
 * of a subtree, whose paths start where the cgroup labels' layouts do not (cgroup_labels.h).
 */
bool cgroup2_is_root(const char *mount);

/*
 * The cgroup at `path` below the hierarchy mounted at `mount`: `path` is a directory of that
 * hierarchy, or a path as /proc/PID/cgroup writes it ("/system.slice/foo.service"). Returns 0,
 * or -1 with a message in err when it is no cgroup2 directory (a usage error).
 */
int cgroup_resolve(const char *mount, const char *path, struct fs_cgroup_ref *ref, char *err,
		   size_t err_len);

#endif /* FS_CGROUPS_H */
