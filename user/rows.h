/* SPDX-License-Identifier: GPL-2.0 */
/* What a row of a record is (--by) and what ranks the rows (--sort): words every layer uses,
 * from resident/'s readings up to the options that choose them. */
#ifndef FS_ROWS_H
#define FS_ROWS_H

#include <sys/types.h>
#include <linux/types.h>

/* What a row of a record is: a process (thread group), a cgroup, or a name. */
enum fs_row_kind { FS_BY_PROCESS, FS_BY_CGROUP, FS_BY_COMM };
extern const char *const fs_row_kind_names[];  /* "process", "cgroup", "comm" */
extern const char *const fs_row_array_names[]; /* a record's arrays of them: "processes", ... */

/* --sort: what ranks the rows of tables and records (the top --top of them are shown). */
enum fs_sort {
	FS_SORT_PAGES,	  /* pages allocated (the default) */
	FS_SORT_LARGE,	  /* movable pages allocated in large folios (order 1 and up) */
	FS_SORT_THP,	  /* THP faults that got a huge page */
	FS_SORT_FALLBACK, /* large allocations that got no folio */
	FS_SORT_FAULTS,	  /* page faults */
	FS_SORT_TLB,	  /* TLB flushes */
	FS_SORT_LRU,	  /* pages added to LRU lists */
	FS_SORT_EVENTS,	  /* every event counted */
};
extern const char *const fs_sort_names[]; /* "pages", "large", ... */

/* The processes the user asked for (-p, -n), as cli/settings.c gives them from the options: no
 * pid and no name select every process. */
struct process_filter {
	const pid_t *pids;
	/* -p PID is the process that had PID when foliostat started: one started before this (ns
	 * since boot), per pid; 0: any with the pid */
	const __u64 *pid_started_before;
	int nr_pids;
	const char *comm; /* only processes with exactly this name; NULL: any */
};

#endif
