// SPDX-License-Identifier: GPL-2.0
/* The bounded cache of cgroup names (see cgroup_names.h). */
#include "cgroup_names.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "array.h"
#include "bounds.h"
#include "cgroup_handle.h"
#include "cgroup_walk.h"
#include "cgroups.h"

struct cgroup_name {
	__u64 id;
	char *path;	/* NULL: no name (removed before it was named, or outside the mount) */
	__u64 asked_in; /* the read that last asked for it */
};

/* How often, at most, the hierarchy is walked, and the names of gone cgroups looked for. */
#define CGROUP_NAMES_PERIOD_S 1.0

static size_t position(const struct cgroup_names *n, __u64 id)
{
	size_t lo = 0, hi = n->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (n->names[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct cgroup_name *find(const struct cgroup_names *n, __u64 id)
{
	size_t at = position(n, id);

	return at < n->nr && n->names[at].id == id ? &n->names[at] : NULL;
}

/* Forget the names `drop` says to, keeping the order; returns how many went. */
static size_t forget(struct cgroup_names *n,
		     bool (*drop)(struct cgroup_names *n, const struct cgroup_name *name))
{
	size_t kept = 0, before = n->nr;

	for (size_t i = 0; i < n->nr; i++) {
		if (drop(n, &n->names[i]))
			free(n->names[i].path);
		else
			n->names[kept++] = n->names[i];
	}
	n->nr = kept;
	bound_set_entries(BOUND_CGROUP_NAMES, n->nr);
	return before - kept;
}

static bool not_asked_now(struct cgroup_names *n, const struct cgroup_name *name)
{
	return name->asked_in != n->read;
}

/* Not asked for by this read, and no longer at its path: removed (or renamed, and named again
 * when next asked for). Where the path cannot be looked at (a directory its user made
 * unsearchable, a path past PATH_MAX), the handle says: a removed cgroup's is stale. */
static bool gone(struct cgroup_names *n, const struct cgroup_name *name)
{
	char path[2 * PATH_MAX];
	struct stat st;

	if (name->asked_in == n->read)
		return false;
	if (!name->path)
		return true; /* its rows are no more: nothing prints it */
	snprintf(path, sizeof(path), "%s%s", strcmp(n->mount, "/") ? n->mount : "",
		 strcmp(name->path, "/") ? name->path : "");
	if (!stat(path, &st))
		return st.st_ino != name->id;
	if (errno == ENOENT || errno == ENOTDIR)
		return true;
	return n->opener >= 0 &&
	       cgroup_path_by_handle(n->opener, n->mount, name->id, path, sizeof(path)) == -ESTALE;
}

/* Keep `path` (NULL: no name) as id's, within the limit. */
static void keep(struct cgroup_names *n, __u64 id, const char *path)
{
	char *copy = NULL;
	size_t at;

	if (n->nr >= n->limit && !n->full) {
		size_t evicted = forget(n, not_asked_now);

		bound_evicted(BOUND_CGROUP_NAMES, evicted);
		n->full = !evicted;
	}
	if (n->nr >= n->limit || array_reserve_one(&n->names, &n->cap, n->nr, sizeof(*n->names)) ||
	    (path && !(copy = strdup(path)))) {
		bound_evicted(BOUND_CGROUP_NAMES, 1); /* not kept: the row goes unnamed */
		return;
	}
	at = position(n, id);
	memmove(&n->names[at + 1], &n->names[at], (n->nr - at) * sizeof(*n->names));
	n->names[at] = (struct cgroup_name){.id = id, .path = copy, .asked_in = n->read};
	n->nr++;
	bound_set_entries(BOUND_CGROUP_NAMES, n->nr);
}

void cgroup_names_open(struct cgroup_names *n)
{
	memset(n, 0, sizeof(*n));
	n->opener = -1;
	n->limit = FS_CGROUP_NAMES_MAX;
	n->walked_at = n->swept_at = -1e9;
	bound_set_limit(BOUND_CGROUP_NAMES, n->limit);
	if (cgroup2_mount(n->mount, sizeof(n->mount)))
		n->mount[0] = '\0';
	/* The root's path is "/", however the mount point is spelt. */
	while (strlen(n->mount) > 1 && n->mount[strlen(n->mount) - 1] == '/')
		n->mount[strlen(n->mount) - 1] = '\0';
	n->from_root = cgroup2_is_root(n->mount);
}

int cgroup_names_start_opener(struct cgroup_names *n)
{
	int ret = n->mount[0] ? cgroup_opener_start(n->mount) : -ENOENT;

	if (ret >= 0)
		n->opener = ret;
	return ret < 0 ? ret : 0;
}

void cgroup_names_read_begins(struct cgroup_names *n, double now)
{
	n->read++;
	n->now = now;
	n->full = false;
}

/* The opener cannot name cgroups (gone, or refused by the kernel): walks do from now on. */
static void opener_lost(struct cgroup_names *n)
{
	close(n->opener);
	n->opener = -1;
}

void cgroup_names_want(struct cgroup_names *n, __u64 id)
{
	struct cgroup_name *found = find(n, id);
	char path[PATH_MAX];
	int ret;

	if (found) {
		found->asked_in = n->read;
		return;
	}
	if (!n->mount[0])
		return;
	/* Full of this read's own names: no more are looked up (the read's work stays bounded). */
	if (n->full && n->nr >= n->limit) {
		bound_evicted(BOUND_CGROUP_NAMES, 1);
		return;
	}
	if (n->opener >= 0) {
		ret = cgroup_path_by_handle(n->opener, n->mount, id, path, sizeof(path));
		if (!ret || ret == -ESTALE || ret == -ENAMETOOLONG) {
			keep(n, id, ret ? NULL : path);
			return;
		}
		opener_lost(n);
	}
	/* (bounded as the cache is: a read wants no more than it can keep) */
	if (n->nr_wanted < n->limit &&
	    !array_reserve_one(&n->wanted, &n->wanted_cap, n->nr_wanted, sizeof(*n->wanted)))
		n->wanted[n->nr_wanted++] = id;
}

static int compare_ids(const void *a, const void *b)
{
	__u64 ia = *(const __u64 *)a, ib = *(const __u64 *)b;

	return ia < ib ? -1 : ia > ib;
}

/* The walk in progress: the names and which wanted ids it found. */
struct walk_for {
	struct cgroup_names *n;
	bool *found;
};

static void walk_found(void *ctx, size_t at, const char *path)
{
	struct walk_for *w = ctx;

	if (!w->found[at])
		keep(w->n, w->n->wanted[at], path);
	w->found[at] = true;
}

/* Name the wanted ids by a walk: those it does not find are removed (their rows were counted
 * before the walk began), or outside the mount; either way they have no name. */
static void walk_for_wanted(struct cgroup_names *n)
{
	struct walk_for w = {.n = n};
	size_t unique = 0;

	qsort(n->wanted, n->nr_wanted, sizeof(*n->wanted), compare_ids);
	for (size_t i = 0; i < n->nr_wanted; i++)
		if (!unique || n->wanted[unique - 1] != n->wanted[i])
			n->wanted[unique++] = n->wanted[i];
	n->walked_at = n->now;
	w.found = calloc(unique, sizeof(*w.found));
	/* (a walk cut short: what it did not find may exist) */
	if (w.found && !cgroup_walk(n->mount, n->wanted, unique, walk_found, &w))
		for (size_t i = 0; i < unique; i++)
			if (!w.found[i])
				keep(n, n->wanted[i], NULL);
	free(w.found);
}

void cgroup_names_resolve(struct cgroup_names *n)
{
	if (n->nr_wanted && n->now - n->walked_at >= CGROUP_NAMES_PERIOD_S)
		walk_for_wanted(n);
	n->nr_wanted = 0;
	if (n->nr && n->now - n->swept_at >= CGROUP_NAMES_PERIOD_S) {
		n->swept_at = n->now;
		forget(n, gone);
	}
}

const char *cgroup_name(struct cgroup_names *n, __u64 id)
{
	cgroup_names_want(n, id);
	cgroup_names_resolve(n);
	return cgroup_name_known(n, id);
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
	free(n->wanted);
	if (n->opener >= 0)
		close(n->opener);
	bound_set_entries(BOUND_CGROUP_NAMES, 0);
	memset(n, 0, sizeof(*n));
	n->opener = -1;
}
