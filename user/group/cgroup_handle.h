/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cgroup's path from its id alone, with no walk of the hierarchy: a cgroup v2 id is the
 * cgroup file system's file handle (kernfs's FILEID_KERNFS, the id's 8 bytes), so
 * open_by_handle_at(2) opens the cgroup's directory, and /proc/self/fd/N says where it is.
 *
 * Why this, of the ways there are: it names exactly the cgroups asked for, at once, whatever
 * made them, in one system call and a readlink, on every kernel since cgroup ids became kernfs
 * node ids (5.5; so 6.1 to 6.18 alike), and a removed cgroup answers ESTALE (cgroup v2 has no
 * renames: a path stays a cgroup's for its life). The tracepoints
 * cgroup:cgroup_mkdir/rmdir/rename carry the id and path too, but would make foliostat keep
 * the name of every cgroup any user makes (it cannot know which will be asked for), need a
 * program and a buffer of their own that a burst of mkdirs can overflow, and a walk at start
 * for the cgroups made before. open_by_handle_at needs CAP_DAC_READ_SEARCH, which foliostat
 * drops after start-up (and its seccomp filter denies the call): a child forked before the
 * drop, foliostat-cgrp (see opener.h), keeps that one capability, makes no system call but
 * open_by_handle_at and openat (of the mount point) beside its loop, and passes back an O_PATH
 * descriptor of the directory, which grants nothing foliostat could not read already.
 */
#ifndef FS_CGROUP_HANDLE_H
#define FS_CGROUP_HANDLE_H

#include <stddef.h>
#include <linux/types.h>

/* Before privileges are dropped: the opener of the cgroup2 hierarchy mounted at `mount`, its
 * socket, or a negative errno. */
int cgroup_opener_start(const char *mount);

/*
 * Cgroup `id`'s path below `mount` ("/" for the root) into path, through the opener. Returns 0;
 * -ESTALE when there is no such cgroup (removed: the kernel never gives an id twice) or it is
 * not below the mount (another namespace's view); -ENAMETOOLONG when the path does not fit; any
 * other negative errno when the opener cannot name cgroups (gone, or the kernel refuses).
 */
int cgroup_path_by_handle(int opener, const char *mount, __u64 id, char *path, size_t len);

#endif /* FS_CGROUP_HANDLE_H */
