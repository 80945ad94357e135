/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exporter's memory (--listen, --format prometheus): counts since foliostat started, per row
 * (cgroup, process or name: --by) and for the system, as Prometheus counters must be. A read's
 * rows are added to their series; the number of series is bounded, and what has no
 * series of its own is counted in "other", so the rows and the other series always add up to
 * what the threads were charged.
 */
#ifndef FS_SERIES_H
#define FS_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "counters.h"
#include "kernel_counters.h"
#include "rows.h"

struct row_table;

#define FS_DEFAULT_MAX_SERIES 1000
#define FS_DEFAULT_SERIES_GRACE_S 300.0

/* One exported row's series: what it counted since it got one. */
struct series_row {
	__u32 pid; /* --by process: the process; else 0 */
	/* --by process: when it started (ns since boot; else 0): a process that takes an exited
	 * one's pid gets a series of its own, labelled with its start (exposition.c) */
	__u64 start;
	char
	    *name; /* --by cgroup: the cgroup's path; --by comm: the name; --by process: its name */
	__u64 cgroup; /* the cgroup's id (--by cgroup, --by process: the process's latest) */
	/* --by process: that cgroup's path, named at the read that saw it (NULL: not named) */
	char *cgroup_path;
	struct fs_totals totals;
	struct proc_totals proc;
	double last_event; /* monotonic seconds: when its counts last grew */
	bool leaving;	   /* folded or expired: freed at the end of the read */
};

/* Is the row's cgroup removed or its process gone (it then leaves after the grace period)? */
typedef bool (*series_gone_fn)(const struct series_row *group, void *ctx);
/* The path of a cgroup id, or NULL when it cannot be named. */
typedef const char *(*series_name_fn)(__u64 cgroup, void *ctx);

struct series_store {
	enum fs_row_kind by;
	size_t max_series;
	double grace_s;
	size_t admit_top; /* --by process: only the N most active of a read get a series (0: all) */
	series_name_fn cgroup_path;
	series_gone_fn gone;
	void *ctx;

	struct series_row **rows; /* sorted by (pid, start, name) */
	size_t nr, cap;
	size_t nr_live; /* of them, those not leaving */
	/* Threads with no series of their own: rows beyond the limit, processes outside the top
	 * N, rows a -p/-n selection leaves out, cgroups that could not be named. */
	struct fs_totals other;
	struct proc_totals other_proc;
	struct system_totals system;   /* the whole system, since the start */
	struct kernel_counters kernel; /* the kernel's THP counters' growth since the start */
	__u64 folded;		       /* rows that gave up their series, or had none */
	double last_exposed;	       /* when the store was last exposed (scraped or written) */
};

/* What the store is told of the options (cli/settings.c fills it). */
struct series_settings {
	enum fs_row_kind by; /* --by: what a row is */
	long max_series;     /* --max-series; 0: FS_DEFAULT_MAX_SERIES */
	double grace_s;	     /* --series-grace; 0: FS_DEFAULT_SERIES_GRACE_S */
	long top;	     /* --top: with --by process, series for the N most active only */
};

void series_init(struct series_store *s, const struct series_settings *settings,
		 series_name_fn cgroup_path, series_gone_fn gone, void *ctx, double now);
/*
 * Add a read: its rows (as row_table_of_read() made them, every selected process with activity,
 * sorted by key), its system figures and the kernel counters' growth over it. Returns 0 or
 * -ENOMEM (nothing is then lost from the system figures; a row may be).
 */
int series_add_read(struct series_store *s, const struct row_table *rows,
		    const struct system_totals *system, const struct kernel_counters *kernel,
		    double now);
/* Forget the rows gone for longer than the grace period. */
void series_expire(struct series_store *s, double now);
/* An exposition was made now: counts up to here have been seen. */
static inline void series_exposed(struct series_store *s, double now)
{
	s->last_exposed = now;
}
void series_free(struct series_store *s);

#endif /* FS_SERIES_H */
