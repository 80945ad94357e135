/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cgroup ids (what BPF records) to paths (what people read), as /proc/PID/cgroup writes them:
 * a bounded cache of the names the reads ask for.
 *
 * A cgroup is named by its file handle (cgroup_handle.h), at once and with no walk of the
 * hierarchy; where that cannot be done (no foliostat-cgrp opener: a run without
 * CAP_DAC_READ_SEARCH, a kernel that refuses), by a walk of the hierarchy that keeps only the
 * names asked for, at most once a second whatever the ids (an id asked for in between waits for
 * the next read).
 *
 * What is kept, and for how long (foliostat(8), SECURITY): only the names reads asked for
 * (a row's cgroup), and a removed cgroup's as "no name" too, so that it is not looked for
 * again. At most once a second, at the end of a read, the names that read did not ask for and
 * whose cgroup is gone (removed: no longer at its path) are forgotten; a removed
 * cgroup's series keeps a copy of its own (series.h), so nothing else needs it. At most
 * FS_CGROUP_NAMES_MAX names are kept: when full, the names the current read did not ask for
 * are forgotten (looked up again when asked for); beyond that, a read's cgroups are not named
 * (null in a record, counted in "other" by the exporter). Both are counted as evictions
 * (bounds.h, BOUND_CGROUP_NAMES).
 */
#ifndef FS_CGROUP_NAMES_H
#define FS_CGROUP_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* The most names kept: many more than the cgroups a host has active in one read (a few
 * hundred), so that evictions are for floods; at most about 16 MiB with paths of 4095 bytes,
 * about 1 MiB with paths of 200. */
#define FS_CGROUP_NAMES_MAX 4096

struct cgroup_name;

struct cgroup_names {
	char mount[4096]; /* the cgroup2 mount; "" when the host has none */
	bool from_root; /* the mount is the hierarchy's root (cgroup2_is_root) */
	int opener;	  /* foliostat-cgrp's socket, or -1: names are then found by walks */
	struct cgroup_name *names; /* sorted by id */
	size_t nr, cap;
	size_t limit;  /* FS_CGROUP_NAMES_MAX (tests set less) */
	__u64 *wanted; /* ids of this read left for a walk */
	size_t nr_wanted, wanted_cap;
	__u64 read; /* reads so far: the names the current one asked for are in use */
	double now; /* when it began, monotonic seconds */
	double walked_at, swept_at; /* the last walk, the last look for removed cgroups' names */
	bool full;		    /* the current read alone fills the cache */
};

/* Find the hierarchy (nothing is read until a name is asked for). */
void cgroup_names_open(struct cgroup_names *n);
/* Before privileges are dropped: start foliostat-cgrp, which names cgroups by handle. Without
 * it (an error is returned), names are found by walks. */
int cgroup_names_start_opener(struct cgroup_names *n);

/* A read begins, at `now` (monotonic seconds). */
void cgroup_names_read_begins(struct cgroup_names *n, double now);
/* The read has a row of cgroup `id`: name it (by handle now, else at the next walk). */
void cgroup_names_want(struct cgroup_names *n, __u64 id);
/* The read's cgroups are all wanted: walk for those not named yet, if a second has passed since
 * the last walk, and forget the names of cgroups gone (see above). */
void cgroup_names_resolve(struct cgroup_names *n);

/* Want one id and resolve, within the current read: its path, or NULL. */
const char *cgroup_name(struct cgroup_names *n, __u64 id);

/* The path found for `id` below the mount ("/" for the root), or NULL (not named: removed
 * before it was seen, outside the mount, not wanted by a read, or no cgroup2 here), without
 * looking further: what renderers print. Names are resolved when a record is made (the
 * collector wants every row's), never while it is printed. */
const char *cgroup_name_known(const struct cgroup_names *n, __u64 id);

void cgroup_names_close(struct cgroup_names *n);

#endif /* FS_CGROUP_NAMES_H */
