/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --resident: what the memory of every selected process holds (resident.h), read through the
 * opener (resident_opener.h) once foliostat runs unprivileged: all at once at the end of a
 * one-shot run, or process after process by the sweep (resident_sweep.h) while records stream
 * and scrapes come.
 */
#ifndef FS_RESIDENT_REPORT_H
#define FS_RESIDENT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "foliostat.h"
#include "resident.h"
#include "rows.h"

/* What --resident is told of the options (cli/settings.c fills it): which processes to read,
 * and how to show them. */
struct resident_settings {
	enum fs_row_kind by; /* --by: a row per process, cgroup or name */
	bool verbose;	     /* -v: say why a process could not be read */
	long max_tasks;	     /* --max-tasks: the sweep keeps at most this many processes */
	struct process_filter filter; /* -p, -n */
	/* -c: only processes in these cgroups or below */
	const struct fs_cgroup_ref *cgroup_refs;
	int nr_cgroups;
};

/* A row: a process, or (--by cgroup, --by comm) the processes of a cgroup or of a name. */
struct resident_row {
	__u32 pid;		/* --by process */
	__u64 start_ns;		/* --by process: when it started (ns since boot, to the tick) */
	char comm[FS_COMM_LEN]; /* --by process, --by comm */
	char *cgroup;		/* its cgroup's path below the cgroup2 mount (NULL: unknown, or
				 * --by comm) */
	size_t processes;	/* processes in the row */
	double scanned_at;	/* when it was read (monotonic s; a group's: its oldest) */
	/* Its reading was cut short at the limit of pagemap entries a process may take in a pass
	 * (resident.h, max_entries): its figures are what was read before, at least (a group's:
	 * any of its processes'). */
	bool cut_short;
	struct resident_counts counts;
};

struct resident_report {
	struct resident_row *rows; /* those that map any page, most pages in large folios first */
	size_t nr, cap;
	size_t scanned;	  /* processes read */
	size_t gone;	  /* selected, but ended before they were read */
	size_t failed;	  /* could not be read (first_error says why) */
	size_t cut_short; /* read in part: at the limit of pagemap entries per process and pass */
	int first_error;
	struct resident_counts total; /* every process's, added up */
	double seconds;		      /* the scan's time (the sweep: its last whole pass's) */
	double cpu_seconds;	      /* its CPU time (the sweep: its last whole pass's) */
	unsigned long passes;	      /* whole reads of every process (one-shot: 1) */
	bool swept;		      /* by the sweep (resident_sweep.h), not all at once */
	bool pagemap_scan;	      /* read with PAGEMAP_SCAN (resident.h) */
	double taken_at;	      /* when the rows were taken (monotonic s): their age */
};

/* A process the options select, just before it is read. */
struct resident_candidate {
	pid_t pid;
	unsigned long long start_ticks; /* /proc/PID/stat's field 22: with the pid, its identity */
	__u64 start_ns;
	char comm[FS_COMM_LEN];
	char *cgroup; /* its path, where the selector keeps it, else NULL */
};

/* Which processes the options select (-p, -n, -c), and what is kept of each. */
struct resident_selector {
	const struct resident_settings *settings;
	pid_t self;	  /* foliostat's pid: neither it nor its children (its openers) are read */
	bool with_cgroup; /* keep each one's cgroup path (asked for, --by cgroup or -c) */
	char mount[4096]; /* the cgroup2 mount, with -c */
};

struct resident_scanner {
	int opener; /* -1: none */
	struct resident_host host;
};

/* Before privileges are dropped. 0, or -1 with a message in err. */
int resident_scanner_start(struct resident_scanner *s, const struct resident_settings *settings,
			   char *err, size_t err_len);
/* Read every process the options select (-p, -n, -c) into r (emptied first), a row each, or
 * (--by) a row per cgroup or name. 0, or a negative errno when none could be (no memory, the
 * opener gone). */
int resident_collect(const struct resident_scanner *s, const struct resident_settings *settings,
		     struct resident_report *r);
/* 0, or -ENOENT with -c where no cgroup2 is mounted. */
int resident_selector_init(struct resident_selector *sel, const struct resident_settings *settings,
			   bool with_cgroup);
/* The pids in /proc now that -p allows (foliostat's left out), in /proc's order, into *pids
 * (emptied first). 0 or a negative errno. Reads nothing of each: resident_select() does, just
 * before the process is read, so that a pass spreads that cost too (10,000 processes' comm,
 * stat and cgroup files are about a second of CPU). */
int resident_pids(const struct resident_settings *settings, pid_t **pids, size_t *nr, size_t *cap);
/* What resident_selected() tells of a process: no allocation (the opener's child asks too). */
struct resident_identity {
	unsigned long long start_ticks;
	char comm[FS_COMM_LEN];
	char cgroup[4096]; /* with_cgroup or -c: its path below the cgroup2 mount, else "" */
};
/* Whether process pid is selected now: 0 with *id filled; -ENOENT when it is gone; -EACCES
 * when the options do not select it (or it is foliostat's, or a kernel thread). */
int resident_selected(const struct resident_selector *sel, pid_t pid, struct resident_identity *id);
/* Whether process pid is selected now (-n, -c; kernel threads and foliostat's children left
 * out): true with *c filled (c->cgroup is the caller's to free); false when not, or gone. */
bool resident_select(const struct resident_selector *sel, pid_t pid, struct resident_candidate *c);
/* Add what process pid, the one started at start_ticks (resident_candidate), maps now to
 * counts; *reading says how much was read and whether it was cut short. 0; -ENOENT or -ESRCH
 * when it ended (or the pid is another process's now: never read under the old one's name);
 * -EPERM where pagemap hides frame numbers; another negative errno when it could not be read. */
int resident_read(const struct resident_scanner *s, pid_t pid, unsigned long long start_ticks,
		  const struct resident_pace *pace, struct resident_counts *counts,
		  struct resident_reading *reading);
/* With r's rows one per process: fold them into a row per cgroup or name (by), and rank them
 * (most pages in large folios first). */
void resident_report_finish(struct resident_report *r, enum fs_row_kind by);
/* r without rows or figures (its arrays kept). */
void resident_report_clear(struct resident_report *r);
void resident_report_free(struct resident_report *r);
void resident_scanner_close(struct resident_scanner *s);

/* The pages of counts' large folios (order 1 and up), of every type. */
__u64 resident_large_pages(const struct resident_counts *c);
__u64 resident_pages(const struct resident_counts *c);
/* The age of the oldest reading of r's rows when they were taken (0 without rows). */
double resident_oldest_s(const struct resident_report *r);

#endif
