// SPDX-License-Identifier: GPL-2.0
/* The bounded structures' counts (see bounds.h). */
#include "bounds.h"

#include <string.h>

static const struct {
	const char *name, *meaning;
} bounds[FS_NR_BOUNDS] = {
    [BOUND_CGROUP_NAMES] = {"cgroup_names", "Cgroup paths remembered by cgroup id."},
    [BOUND_SERIES] = {"series", "Groups exported with series of their own (--max-series)."},
    [BOUND_CONNECTIONS] = {"connections", "Connections open to the exporter."},
    [BOUND_ANSWERS] = {"answers", "Exporter answers held for connections still reading them."},
    [BOUND_PASSWORD_CLIENTS] = {"password_clients",
				"Clients with a password-check budget of their own."},
    [BOUND_RESIDENT_PAGES] = {"resident_pages",
			      "Pagemap entries --resident reads of one process in one pass (the "
			      "most any process took in the last pass; evictions: readings cut "
			      "short at the limit)."},
};

/* (Relaxed atomics: a count may be set from libmicrohttpd's callbacks and read by a scrape.) */
static struct bound_count counts[FS_NR_BOUNDS];

const char *bound_name(enum fs_bound b)
{
	return bounds[b].name;
}

const char *bound_meaning(enum fs_bound b)
{
	return bounds[b].meaning;
}

void bound_set_limit(enum fs_bound b, uint64_t limit)
{
	__atomic_store_n(&counts[b].limit, limit, __ATOMIC_RELAXED);
}

void bound_set_entries(enum fs_bound b, uint64_t entries)
{
	__atomic_store_n(&counts[b].entries, entries, __ATOMIC_RELAXED);
}

void bound_evicted(enum fs_bound b, uint64_t n)
{
	__atomic_fetch_add(&counts[b].evictions, n, __ATOMIC_RELAXED);
}

void bounds_read(struct bound_count out[FS_NR_BOUNDS])
{
	for (int b = 0; b < FS_NR_BOUNDS; b++) {
		out[b].limit = __atomic_load_n(&counts[b].limit, __ATOMIC_RELAXED);
		out[b].entries = __atomic_load_n(&counts[b].entries, __ATOMIC_RELAXED);
		out[b].evictions = __atomic_load_n(&counts[b].evictions, __ATOMIC_RELAXED);
	}
}
