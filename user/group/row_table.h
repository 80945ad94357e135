/* SPDX-License-Identifier: GPL-2.0 */
/* Aggregation: what happened between two snapshots, per process (thread group). */
#ifndef FS_ROW_TABLE_H
#define FS_ROW_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "foliostat.h"
#include "rows.h"
#include "snapshot.h"

/*
 * A row's identity is its key (struct row_key, snapshot.h): by process, its pid and when the
 * process started (ns since boot), so a pid reused by a new process gives it a row of its own,
 * never the exited one's; by cgroup, the cgroup's id; by name, the name. Rows are ordered by it.
 */
struct row {
	struct row_key key;
	char comm[FS_COMM_LEN];
	__u64 cgroup; /* its cgroup's id (v2): its live threads' latest (see process_cgroup()) */
	struct fs_totals totals;
	__u64 events; /* activity (counters_growth.activity plus collapse outcomes): the ranking */
};

/* Process-level figures beside its row: collapse outcomes and stalls from the process table, its
 * threads' allocations by node and order from the thread table's side. */
struct row_proc_totals {
	struct row_key key;
	struct proc_totals totals;
};

/* A process with activity in a window, before its figures are summed (see row_table_of_read()). */
struct process_candidate {
	struct row_key key;
	char comm[FS_COMM_LEN];
	__u64 cgroup;
	__u64 events;
	size_t first, end; /* its threads: now->order[first..end) */
};

/* --by process: a row's process, its pid and start (ns since boot). */
static inline __u32 row_pid(const struct row *row)
{
	return (__u32)row->key.hi;
}

static inline __u64 row_start(const struct row *row)
{
	return row->key.lo;
}

struct row_table {
	struct row *rows;
	size_t nr;
	size_t cap;
	size_t nr_active;  /* processes with activity, rows or not (rows may be only the top) */
	size_t nr_dropped; /* accumulated: rows dropped to stay within the limit */
	struct process_candidate *candidates; /* scratch space of row_table_of_read() */
	size_t cap_candidates;
	struct row_proc_totals *procs; /* sorted by key; every one has a row in rows */
	size_t nr_procs;
	size_t cap_procs;
};

/* Which processes the user asked for (-p, -n); everything when none. -p PID is the process that
 * had PID when foliostat started, told by its start time (ns since boot). */
bool process_selected(const struct process_filter *filter, __u32 tgid, __u64 start,
		      const char *comm);

/*
 * The per-process table of a read: rows for the selected processes with any activity, for all
 * of them when `keep` is 0, else for the `keep` most active only (out->nr_active still counts
 * them all), sorted by key. Returns 0 or -ENOMEM.
 */
int row_table_of_read(const struct snapshot *now, const struct process_filter *filter, size_t keep,
		      struct row_table *out);

/* The row's process-level figures (collapse outcomes, stalls), or NULL if it had none. */
const struct row_proc_totals *process_proc(const struct row_table *table, const struct row *row);

/*
 * acc += add, both sorted by key (one-shot mode sums its windows this way). When acc
 * would hold more than `limit` rows (0: no limit), the least active are dropped, down to three
 * quarters of it: a long run over a churn of processes stays bounded, and those that matter
 * stay. Their events remain in the system figures; nr_active counts them (one seen again after
 * it was dropped counts twice).
 */
int row_table_accumulate(struct row_table *acc, const struct row_table *add, size_t limit);
/* First the rows with the most of what `sort` names (--sort: pages allocated by default); ties
 * by activity, then by pid (then start), so output is stable. */
/* For qsort: the more active row first (more events; ties broken by key). */
int row_compare_activity(const void *a, const void *b);
void row_table_free(struct row_table *table);
/* Give back memory a burst of processes left (see array_shrink()). Returns whether any was
 * given back. */
bool row_table_shrink(struct row_table *table);

#endif
