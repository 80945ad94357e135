// SPDX-License-Identifier: GPL-2.0
/* Naming a cgroup by its file handle (see cgroup_handle.h). */
#define _GNU_SOURCE /* open_by_handle_at, O_PATH */
#include "cgroup_handle.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "opener.h"

/* include/linux/exportfs.h: a kernfs node's handle is its 64-bit id. */
#define FILEID_KERNFS 0xfe

/* The opener's copy of the mount point (set before the fork), and its descriptor of it. */
static char opener_mount[4096];
static int opener_mount_fd = -1;

/* In the opener: the directory of the cgroup whose id is the request, as an O_PATH descriptor:
 * enough to say where it is, nothing to read or change. */
static int open_cgroup(const void *request)
{
	struct {
		struct file_handle head;
		__u64 id;
	} handle = {.head = {.handle_bytes = sizeof(__u64), .handle_type = FILEID_KERNFS}};
	int fd;

	memcpy(&handle.id, request, sizeof(handle.id));
	if (opener_mount_fd < 0) {
		opener_mount_fd = open(opener_mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (opener_mount_fd < 0)
			return -errno;
	}
	fd = open_by_handle_at(opener_mount_fd, &handle.head, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int cgroup_opener_start(const char *mount)
{
	static const int caps[] = {CAP_DAC_READ_SEARCH};
	static const int calls[] = {__NR_openat, __NR_open_by_handle_at};
	static const struct opener_kind kind = {
	    .name = "foliostat-cgrp",
	    .caps = caps,
	    .nr_caps = sizeof(caps) / sizeof(caps[0]),
	    .calls = calls,
	    .nr_calls = sizeof(calls) / sizeof(calls[0]),
	    .request_size = sizeof(__u64),
	    .open = open_cgroup,
	};

	if (!mount[0] || strlen(mount) >= sizeof(opener_mount))
		return -ENOENT;
	snprintf(opener_mount, sizeof(opener_mount), "%s", mount);
	return opener_start(&kind);
}

/* Where descriptor fd is, below `mount` (whose spelling has no trailing '/'). */
static int path_below(int fd, const char *mount, __u64 id, char *path, size_t len)
{
	static const char deleted[] = " (deleted)";
	char link[64], where[8192];
	size_t mount_len = strcmp(mount, "/") == 0 ? 0 : strlen(mount);
	size_t end;
	struct stat st;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, where, sizeof(where) - 1);
	if (n < 0)
		return -errno;
	if ((size_t)n == sizeof(where) - 1)
		return -ENAMETOOLONG;
	where[n] = '\0';
	/* Removed since it was opened: the kernel says so after the path. (A cgroup may be named
	 * so too: that one is still where it says.) */
	end = (size_t)n;
	if (end > strlen(deleted) && strcmp(where + end - strlen(deleted), deleted) == 0 &&
	    (stat(where, &st) || st.st_ino != id))
		return -ESTALE;
	/* Outside the mount's subtree (a mount of part of the hierarchy): not ours to name. */
	if (strncmp(where, mount, mount_len) || (where[mount_len] != '/' && where[mount_len]))
		return -ESTALE;
	if (snprintf(path, len, "%s", where[mount_len] ? where + mount_len : "/") >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

int cgroup_path_by_handle(int opener, const char *mount, __u64 id, char *path, size_t len)
{
	struct stat st;
	int fd, ret;

	fd = opener_ask(opener, &id, sizeof(id));
	if (fd < 0)
		return fd;
	/* The directory the kernel found for the handle is the cgroup's: its inode is its id. */
	if (fstat(fd, &st) || st.st_ino != id)
		ret = -ESTALE;
	else
		ret = path_below(fd, mount, id, path, len);
	close(fd);
	return ret;
}
