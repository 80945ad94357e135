/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --resident: what the memory of every selected process holds at the end of a one-shot run
 * (resident.h), read through the opener (resident_opener.h) once foliostat runs unprivileged.
 */
#ifndef FS_RESIDENT_REPORT_H
#define FS_RESIDENT_REPORT_H

#include <stddef.h>
#include <linux/types.h>

#include "options.h"
#include "resident.h"

/* A row: a process, or (--by cgroup, --by comm) the processes of a cgroup or of a name. */
struct resident_row {
	__u32 pid;		 /* --by process */
	char comm[FS_COMM_LEN];	 /* --by process, --by comm */
	char *cgroup;		 /* --by cgroup: its path below the cgroup2 mount (NULL: unknown) */
	size_t processes;	 /* processes in the row */
	struct resident_counts counts;
};

struct resident_report {
	struct resident_row *rows; /* those that map any page, most pages in large folios first */
	size_t nr, cap;
	size_t scanned; /* processes read */
	size_t gone;	/* selected, but ended before they were read */
	size_t failed;	/* could not be read (first_error says why) */
	int first_error;
	struct resident_counts total; /* every process's, added up */
	double seconds;		      /* the scan's time */
};

struct resident_scanner {
	int opener; /* -1: none */
	struct resident_host host;
};

/* Before privileges are dropped. 0, or -1 with a message in err. */
int resident_scanner_start(struct resident_scanner *s, char *err, size_t err_len);
/* Read every process the options select (-p, -n, -c) into r (emptied first), a row each, or
 * (--by) a row per cgroup or name. 0, or a negative errno when none could be (no memory, the
 * opener gone). */
int resident_collect(const struct resident_scanner *s, const struct fs_options *opts,
		     struct resident_report *r);
void resident_report_free(struct resident_report *r);
void resident_scanner_close(struct resident_scanner *s);

/* The pages of counts' large folios (order 1 and up), of every type. */
__u64 resident_large_pages(const struct resident_counts *c);
__u64 resident_pages(const struct resident_counts *c);

#endif
