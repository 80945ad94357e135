/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What other users can make foliostat hold, and its limits: every structure whose size follows
 * what other users do (cgroups they make, connections they open, processes they start) has a
 * bound, an eviction rule, and its counts here, which --self and the exposition show
 * (foliostat(8), SECURITY). The loader's structures report their size and their evictions as
 * they change; reading them costs nothing on any path that counts events.
 */
#ifndef FS_BOUNDS_H
#define FS_BOUNDS_H

#include <stdint.h>

/* The bounded structures; each has a name (the exposition's `structure` label, the JSON key). */
enum fs_bound {
	BOUND_CGROUP_NAMES,	/* cgroup paths remembered by id (user/group/cgroup_names.c) */
	BOUND_SERIES,		/* rows with series of their own (--max-series) */
	BOUND_CONNECTIONS,	/* the exporter's open connections */
	BOUND_ANSWERS,		/* the exporter's answers held for connections still reading */
	BOUND_PASSWORD_CLIENTS, /* clients with a password-check budget of their own */
	BOUND_RESIDENT_PAGES,	/* --resident: pages read per process and pass */
	FS_NR_BOUNDS
};

struct bound_count {
	uint64_t limit;	    /* the most it may hold; 0: not in use in this run */
	uint64_t entries;   /* what it holds now */
	uint64_t evictions; /* entries dropped (or work cut short) to stay within the limit */
};

/* The structure's name: "cgroup_names", "series", ... */
const char *bound_name(enum fs_bound b);
/* What the structure is, for HELP texts and the man page. */
const char *bound_meaning(enum fs_bound b);

/* A structure's limit for this run (set when it is made). */
void bound_set_limit(enum fs_bound b, uint64_t limit);
/* What it holds now. */
void bound_set_entries(enum fs_bound b, uint64_t entries);
/* It dropped n entries to stay within its limit. */
void bound_evicted(enum fs_bound b, uint64_t n);
/* Every structure's counts, now. */
void bounds_read(struct bound_count out[FS_NR_BOUNDS]);

#endif
