// SPDX-License-Identifier: GPL-2.0
/* Naming cgroups by walking the cgroup2 hierarchy (see cgroup_names.h). */
#define _GNU_SOURCE /* nftw's FTW_ACTIONRETVAL */
#include "cgroup_names.h"

#include <ftw.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "array.h"
#include "cgroups.h"

struct cgroup_name {
	__u64 id; /* the directory's inode number: a cgroup's id */
	char *path;
	double asked_at; /* when it was last looked up (or found), monotonic seconds */
};

/* nftw() takes no context: the walk in progress. */
static struct cgroup_names *walking;
static size_t walking_mount_len;
static double walking_now;

/* How long a removed cgroup's name is kept after it was last asked for: its rows are asked for
 * at every read while they are active, so this only bounds the memory of old ones. */
#define REMOVED_KEPT_S 3600.0

static int compare_ids(const void *a, const void *b)
{
	__u64 ia = ((const struct cgroup_name *)a)->id, ib = ((const struct cgroup_name *)b)->id;

	return ia < ib ? -1 : ia > ib;
}

static struct cgroup_name *find(const struct cgroup_names *n, __u64 id)
{
	struct cgroup_name key = {.id = id};

	return n->nr ? bsearch(&key, n->names, n->nr, sizeof(key), compare_ids) : NULL;
}

static int add_directory(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct cgroup_names *n = walking;
	const char *below = path + walking_mount_len;

	(void)ftw;
	if (type != FTW_D)
		return FTW_CONTINUE;
	/* Appended unsorted; sorted and rid of duplicates once the walk is done. */
	if (array_reserve_one(&n->names, &n->cap, n->nr, sizeof(*n->names)))
		return FTW_STOP;
	n->names[n->nr].id = st->st_ino;
	n->names[n->nr].asked_at = walking_now;
	n->names[n->nr].path = strdup(*below ? below : "/");
	if (!n->names[n->nr].path)
		return FTW_STOP;
	n->nr++;
	return FTW_CONTINUE;
}

/*
 * Sort by id; of two names of one id, the one the last walk found (a renamed cgroup) stays. A
 * removed cgroup (not found by the walk) keeps its name while it is asked for (its rows are
 * still reported), and is forgotten at a walk an hour after it was last asked for: the names
 * stay as few as the live cgroups and the recently active removed ones.
 */
static void sort_unique(struct cgroup_names *n, size_t nr_known)
{
	size_t kept = 0;

	for (size_t i = 0; i < nr_known; i++)
		n->names[i].id = n->names[i].id << 1 | 0; /* older: even, sorts first */
	for (size_t i = nr_known; i < n->nr; i++)
		n->names[i].id = n->names[i].id << 1 | 1;
	qsort(n->names, n->nr, sizeof(*n->names), compare_ids);
	for (size_t i = 0; i < n->nr; i++) {
		bool found_again = i + 1 < n->nr && n->names[i + 1].id >> 1 == n->names[i].id >> 1;
		bool removed = !(n->names[i].id & 1) && !found_again;

		if (found_again || (removed && walking_now - n->names[i].asked_at > REMOVED_KEPT_S)) {
			free(n->names[i].path);
			continue;
		}
		n->names[kept] = n->names[i];
		n->names[kept++].id >>= 1;
	}
	n->nr = kept;
}

static double monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void cgroup_names_open(struct cgroup_names *n)
{
	memset(n, 0, sizeof(*n));
	n->scanned_at = -1e9;
	if (cgroup2_mount(n->mount, sizeof(n->mount)))
		n->mount[0] = '\0';
	/* The root's path is "/", however the mount point is spelt. */
	while (strlen(n->mount) > 1 && n->mount[strlen(n->mount) - 1] == '/')
		n->mount[strlen(n->mount) - 1] = '\0';
	n->from_root = cgroup2_is_root(n->mount);
}

const char *cgroup_name(struct cgroup_names *n, __u64 id)
{
	struct cgroup_name *found = find(n, id);
	double now;

	now = monotonic_seconds();
	if (found)
		found->asked_at = now;
	if (found || !n->mount[0])
		return found ? found->path : NULL;
	/* A cgroup made within the second of the last walk is named now: its rows, in a read
	 * of that second, would otherwise have no name (null in a record, group="other" in the
	 * exposition for good). */
	if (now - n->scanned_at < 1.0 && id <= n->newest)
		return NULL;
	n->scanned_at = now;
	{
		size_t nr_known = n->nr;

		walking = n;
		walking_now = now;
		walking_mount_len = strcmp(n->mount, "/") == 0 ? 0 : strlen(n->mount);
		nftw(n->mount, add_directory, 16, FTW_PHYS | FTW_MOUNT | FTW_ACTIONRETVAL);
		walking = NULL;
		sort_unique(n, nr_known);
	}
	if (n->nr && n->names[n->nr - 1].id > n->newest)
		n->newest = n->names[n->nr - 1].id;
	if (id > n->newest)
		n->newest = id; /* removed before the walk: the next unknown id above it is newer */
	found = find(n, id);
	return found ? found->path : NULL;
}

const char *cgroup_name_known(const struct cgroup_names *n, __u64 id)
{
	const struct cgroup_name *found = find(n, id);

	return found ? found->path : NULL;
}

void cgroup_names_close(struct cgroup_names *n)
{
	for (size_t i = 0; i < n->nr; i++)
		free(n->names[i].path);
	free(n->names);
	memset(n, 0, sizeof(*n));
}
