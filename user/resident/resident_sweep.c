// SPDX-License-Identifier: GPL-2.0
/* --resident's sweep: readings of every selected process, again and again, within a CPU budget
 * (see resident_sweep.h). */
#define _GNU_SOURCE /* pthread_setname_np */
#include "resident_sweep.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "array.h"
#include "bounds.h"
#include "words.h"

/* A process's last reading. */
struct sweep_entry {
	struct resident_row row;
	unsigned long pass; /* the pass that read it: an entry no pass read again is gone */
};

/* One pass, as the thread sees it. */
struct pass {
	struct resident_sweep *w;
	unsigned long number;
	double began, cpu_began; /* monotonic, and the thread's CPU clock */
};

static double clock_s(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Sleep until monotonic `until`, or a stop. Returns -ECANCELED once stopped. */
static int sleep_until(struct resident_sweep *w, double until)
{
	struct timespec at = {.tv_sec = (time_t)until,
			      .tv_nsec = (long)((until - (double)(time_t)until) * 1e9)};
	int ret;

	pthread_mutex_lock(&w->lock);
	while (!w->stop && clock_s(CLOCK_MONOTONIC) < until)
		if (pthread_cond_timedwait(&w->wake, &w->lock, &at) == ETIMEDOUT)
			break;
	ret = w->stop ? -ECANCELED : 0;
	pthread_mutex_unlock(&w->lock);
	return ret;
}

/* Called before each batch of pages and each process: sleep while the pass is ahead of its
 * budget (its CPU time more than the budget's share of the time since it began). */
static int pace(void *ctx)
{
	struct pass *p = ctx;
	double spent = clock_s(CLOCK_THREAD_CPUTIME_ID) - p->cpu_began;
	double due = p->began + spent / p->w->budget;

	if (due > clock_s(CLOCK_MONOTONIC))
		return sleep_until(p->w, due);
	return __atomic_load_n(&p->w->stop, __ATOMIC_RELAXED) ? -ECANCELED : 0;
}

/* The entry of pid: its index, or where it would go (*found false). Under the lock. */
static size_t find(const struct resident_sweep *w, pid_t pid, bool *found)
{
	size_t low = 0, high = w->nr;

	while (low < high) {
		size_t mid = (low + high) / 2;

		if (w->entries[mid]->row.pid < (__u32)pid)
			low = mid + 1;
		else
			high = mid;
	}
	*found = low < w->nr && w->entries[low]->row.pid == (__u32)pid;
	return low;
}

static void drop(struct resident_sweep *w, size_t at)
{
	free(w->entries[at]->row.cgroup);
	free(w->entries[at]);
	memmove(w->entries + at, w->entries + at + 1, (w->nr - at - 1) * sizeof(*w->entries));
	w->nr--;
}

/* Keep a process's reading (its cgroup path taken from c): 0, or -ENOSPC when --max-tasks
 * processes have readings already, or -ENOMEM. */
static int keep(struct pass *p, struct resident_candidate *c, const struct resident_counts *counts,
		bool cut_short)
{
	struct resident_sweep *w = p->w;
	struct sweep_entry *e;
	bool found;
	size_t at;
	int err = 0;

	pthread_mutex_lock(&w->lock);
	at = find(w, c->pid, &found);
	if (found) {
		e = w->entries[at];
		free(e->row.cgroup);
	} else if (w->nr >= (size_t)w->settings->max_tasks) {
		err = -ENOSPC;
	} else if (!(e = calloc(1, sizeof(*e))) ||
		   array_reserve_one(&w->entries, &w->cap, w->nr, sizeof(*w->entries))) {
		free(e);
		err = -ENOMEM;
	} else {
		memmove(w->entries + at + 1, w->entries + at, (w->nr - at) * sizeof(*w->entries));
		w->entries[at] = e;
		w->nr++;
	}
	if (!err) {
		e->row = (struct resident_row){.pid = (__u32)c->pid,
					       .start_ns = c->start_ns,
					       .cgroup = c->cgroup,
					       .processes = 1,
					       .scanned_at = clock_s(CLOCK_MONOTONIC),
					       .cut_short = cut_short,
					       .counts = *counts};
		memcpy(e->row.comm, c->comm, sizeof(e->row.comm));
		c->cgroup = NULL;
		e->pass = p->number;
	}
	pthread_mutex_unlock(&w->lock);
	return err;
}

static void forget(struct resident_sweep *w, pid_t pid)
{
	bool found;
	size_t at;

	pthread_mutex_lock(&w->lock);
	at = find(w, pid, &found);
	if (found)
		drop(w, at);
	pthread_mutex_unlock(&w->lock);
}

/* One pass: every process the options select now, read and kept. 0, or the negative errno
 * that ends the sweep (-ECANCELED: stopped). */
static int sweep_pass(struct pass *p)
{
	struct resident_sweep *w = p->w;
	struct resident_pace paced = {pace, p};
	struct resident_selector sel;
	pid_t *pids = NULL;
	size_t nr = 0, cap = 0, read = 0, gone = 0, failed = 0, cut_short = 0;
	__u64 most = 0;
	int err, first_error = 0;

	if (!(err = resident_selector_init(&sel, w->settings, true)))
		err = resident_pids(w->settings, &pids, &nr, &cap);
	for (size_t i = 0; !err && i < nr; i++) {
		struct resident_candidate c;
		struct resident_counts counts = {0};
		struct resident_reading reading;
		int ret;

		/* (paced before it is selected: selecting reads three of its files) */
		if ((err = pace(p)))
			break;
		if (!resident_select(&sel, pids[i], &c))
			continue;
		ret = resident_read(w->scanner, c.pid, c.start_ticks, &paced, &counts, &reading);
		if (reading.entries > most)
			most = reading.entries;
		if (!ret)
			ret = keep(p, &c, &counts, reading.cut_short);
		if (ret == -ECANCELED || (ret == -EPERM && !read && !w->passes)) {
			err = ret; /* stopped; or frame numbers hidden: none will be read */
		} else if (ret == -ENOENT || ret == -ESRCH) {
			gone++;
			forget(w, c.pid);
		} else if (ret) {
			if (w->settings->verbose)
				fprintf(stderr, "foliostat: --resident: process %d not read: %s\n",
					(int)c.pid, strerror(-ret));
			if (!failed++)
				first_error = ret;
		} else {
			read++;
			cut_short += reading.cut_short;
		}
		free(c.cgroup);
	}
	free(pids);
	if (err)
		return err;
	bound_set_entries(BOUND_RESIDENT_PAGES, most);
	bound_evicted(BOUND_RESIDENT_PAGES, cut_short);
	pthread_mutex_lock(&w->lock);
	for (size_t i = w->nr; i-- > 0;)
		if (w->entries[i]->pass != p->number)
			drop(w, i); /* ended, or no longer selected */
	w->passes++;
	w->pass_s = clock_s(CLOCK_MONOTONIC) - p->began;
	w->pass_cpu_s = clock_s(CLOCK_THREAD_CPUTIME_ID) - p->cpu_began;
	w->read = read;
	w->gone = gone;
	w->failed = failed;
	w->cut_short = cut_short;
	w->first_error = first_error;
	pthread_mutex_unlock(&w->lock);
	return 0;
}

static void *sweep_thread(void *arg)
{
	struct resident_sweep *w = arg;
	int err;

	pthread_setname_np(pthread_self(), "fs-resident"); /* (top -H, ps -L) */
	for (unsigned long number = 1;; number++) {
		struct pass p = {.w = w,
				 .number = number,
				 .began = clock_s(CLOCK_MONOTONIC),
				 .cpu_began = clock_s(CLOCK_THREAD_CPUTIME_ID)};

		if ((err = sweep_pass(&p)) || (err = sleep_until(w, p.began + w->period)))
			break;
	}
	if (err != -ECANCELED) {
		pthread_mutex_lock(&w->lock);
		w->error = err;
		pthread_mutex_unlock(&w->lock);
	}
	return NULL;
}

int resident_sweep_start(struct resident_sweep *w, const struct resident_scanner *scanner,
			 const struct resident_settings *settings, double budget, double period)
{
	pthread_condattr_t attr;
	sigset_t all, old;
	int err;

	*w = (struct resident_sweep){
	    .scanner = scanner, .settings = settings, .budget = budget, .period = period};
	if ((err = pthread_mutex_init(&w->lock, NULL)))
		return -err;
	if ((err = pthread_condattr_init(&attr)) ||
	    (err = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)) ||
	    (err = pthread_cond_init(&w->wake, &attr))) {
		pthread_mutex_destroy(&w->lock);
		return -err;
	}
	pthread_condattr_destroy(&attr);
	/* Signals are the event loop's: the thread takes none (its mask is inherited). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&w->thread, NULL, sweep_thread, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->lock);
		return -err;
	}
	w->running = true;
	return 0;
}

int resident_sweep_error(struct resident_sweep *w)
{
	int err;

	pthread_mutex_lock(&w->lock);
	err = w->nr ? 0 : w->error;
	pthread_mutex_unlock(&w->lock);
	return err;
}

int resident_sweep_take(struct resident_sweep *w, struct resident_report *r)
{
	int err = 0;

	resident_report_clear(r);
	if ((err = resident_sweep_error(w)))
		return err;
	pthread_mutex_lock(&w->lock);
	for (size_t i = 0; !err && i < w->nr; i++) {
		const struct resident_row *row = &w->entries[i]->row;
		__u64 pages = resident_pages(&row->counts);

		words_add((__u64 *)&r->total, (const __u64 *)&row->counts, FS_WORDS(r->total));
		if (!pages)
			continue; /* (a process that maps nothing, a zombie say, has no row) */
		if ((err = array_reserve_one(&r->rows, &r->cap, r->nr, sizeof(*r->rows))))
			break;
		r->rows[r->nr] = *row;
		if (row->cgroup && !(r->rows[r->nr].cgroup = strdup(row->cgroup)))
			err = -ENOMEM;
		else
			r->nr++;
	}
	r->scanned = w->nr;
	r->gone = w->gone;
	r->failed = w->failed;
	r->cut_short = w->cut_short;
	r->first_error = w->first_error;
	r->passes = w->passes;
	r->swept = true;
	r->pagemap_scan = w->scanner->host.pagemap_scan;
	r->seconds = w->pass_s;
	r->cpu_seconds = w->pass_cpu_s;
	pthread_mutex_unlock(&w->lock);
	r->taken_at = clock_s(CLOCK_MONOTONIC);
	if (err)
		return err;
	resident_report_finish(r, w->settings->by);
	return 0;
}

void resident_sweep_stop(struct resident_sweep *w)
{
	if (!w->running)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	while (w->nr)
		drop(w, w->nr - 1);
	free(w->entries);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	w->running = false;
}
