/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --resident while records stream and scrapes come: a thread of its own reads the selected
 * processes one after another, again and again, within a CPU budget (a share of one CPU, its
 * own CPU time, user and system, against the time since its pass began: it sleeps whenever it
 * is ahead), and keeps each process's last reading. A record or a scrape takes what the
 * readings are then: each as old as the time since its process was read, at most about one
 * pass (a pass starts no sooner than `period` after the last one began, and takes as long as
 * the budget makes it).
 */
#ifndef FS_RESIDENT_SWEEP_H
#define FS_RESIDENT_SWEEP_H

#include <pthread.h>
#include <stdbool.h>

#include "resident_report.h"

struct sweep_entry;

struct resident_sweep {
	const struct resident_scanner *scanner;
	const struct resident_settings *settings;
	double budget; /* CPU seconds per second */
	double period; /* seconds between the starts of two passes, at least */
	pthread_t thread;
	bool running;
	pthread_mutex_t lock; /* what follows */
	pthread_cond_t wake;
	bool stop;
	int error; /* the thread ended on it (a negative errno): none will be read */
	struct sweep_entry **entries; /* sorted by pid */
	size_t nr, cap;
	unsigned long passes;	   /* whole passes */
	double pass_s, pass_cpu_s; /* the last whole pass's time and CPU time */
	size_t read, gone, failed; /* of the last whole pass */
	size_t cut_short;	   /* (of the last whole pass: read in part, resident.h) */
	int first_error;	   /* (why the first process of it was not read) */
};

/* Start the thread (after the sandbox: it inherits it). 0, or a negative errno. */
int resident_sweep_start(struct resident_sweep *w, const struct resident_scanner *scanner,
			 const struct resident_settings *settings, double budget, double period);
/* What the readings are now, as a report (r's rows replaced): 0, or a negative errno (no
 * memory; or the thread's error, when none can be read). */
int resident_sweep_take(struct resident_sweep *w, struct resident_report *r);
/* The thread's error when it ended on one before any process was read (none will be), else 0. */
int resident_sweep_error(struct resident_sweep *w);
/* Stop the thread (at once, from a sleep or between two batches of pages) and free all. */
void resident_sweep_stop(struct resident_sweep *w);

#endif
