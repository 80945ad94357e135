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

/*
 * A process's cgroup v2 path from its /proc/PID/cgroup, read a block at a time: the file has no
 * bound (v1 hierarchies' lines, as long as other users name cgroups, come first), and the
 * resident opener's child, which reads it, may not allocate. Only a line that begins "0::/" is
 * the v2 one (a v1 path may hold those bytes); a path longer than the room for it is none
 * (never a cut one). init, feed each block until feed says it is found, then end.
 */
struct cgroup_v2_line {
	char *path;
	size_t size;	 /* room at path, the NUL included */
	size_t at_line;	 /* bytes of the current line seen */
	size_t copied;	 /* of its path, into path */
	bool in_v2, found;
};
void cgroup_v2_line_init(struct cgroup_v2_line *l, char *path, size_t size);
bool cgroup_v2_line_feed(struct cgroup_v2_line *l, const char *block, size_t n);
/* 0 with the path in path, or -1: no v2 line, or its path did not fit. */
int cgroup_v2_line_end(struct cgroup_v2_line *l);
/* The same over a whole text at hand. */
int proc_cgroup_v2_path(const char *text, size_t len, char *path, size_t size);

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
