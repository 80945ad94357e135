// SPDX-License-Identifier: GPL-2.0
/* Walking the cgroup2 hierarchy for ids (see cgroup_walk.h). */
#define _GNU_SOURCE /* nftw's FTW_ACTIONRETVAL */
#include "cgroup_walk.h"

#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>

/* nftw() takes no context: the walk in progress. */
static struct {
	const __u64 *ids;
	size_t nr, mount_len;
	cgroup_found_fn found;
	void *ctx;
} walk;

static int compare_ids(const void *a, const void *b)
{
	__u64 ia = *(const __u64 *)a, ib = *(const __u64 *)b;

	return ia < ib ? -1 : ia > ib;
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *below = path + walk.mount_len;
	__u64 id = st->st_ino; /* a cgroup's id is its directory's inode number */
	const __u64 *wanted;

	(void)ftw;
	if (type != FTW_D || !(wanted = bsearch(&id, walk.ids, walk.nr, sizeof(id), compare_ids)))
		return FTW_CONTINUE;
	walk.found(walk.ctx, (size_t)(wanted - walk.ids), *below ? below : "/");
	return FTW_CONTINUE;
}

int cgroup_walk(const char *mount, const __u64 *ids, size_t nr, cgroup_found_fn found, void *ctx)
{
	int ret;

	walk.ids = ids;
	walk.nr = nr;
	walk.mount_len = strcmp(mount, "/") == 0 ? 0 : strlen(mount);
	walk.found = found;
	walk.ctx = ctx;
	/* (16 descriptors: nftw closes and reopens directories deeper than that) */
	ret = nftw(mount, visit, 16, FTW_PHYS | FTW_MOUNT | FTW_ACTIONRETVAL);
	return ret ? (errno ? -errno : -EIO) : 0;
}
