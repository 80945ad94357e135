// SPDX-License-Identifier: GPL-2.0
/* --resident: every selected process's resident folios (see resident_report.h). */
#define _GNU_SOURCE /* qsort_r */
#include "resident_report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "array.h"
#include "bounds.h"
#include "cgroups.h"
#include "pmd_order.h"
#include "process_start.h"
#include "resident_opener.h"
#include "test_hooks.h"
#include "words.h"

/*
 * The most pagemap entries read of one process in one pass: twice the host's pages. A process
 * maps at most every page (and a few twice); the rest of what is read is holes that smaps'
 * Rss cannot rule out (pages at both ends of a reservation of terabytes, without PAGEMAP_SCAN).
 * At least 2^18 (1 GiB of 4 KiB pages): small hosts' processes are read whole still.
 */
static __u64 max_entries_per_process(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);
	__u64 max = pages > 0 ? 2 * (__u64)pages : 0;

	return max < (1ULL << 18) ? 1ULL << 18 : max;
}

int resident_scanner_start(struct resident_scanner *s, const struct resident_settings *settings,
			   char *err, size_t err_len)
{
	long page_size = sysconf(_SC_PAGESIZE);
	int order = pmd_order_of(page_size);
	struct resident_selector sel;

	s->host = (struct resident_host){.kpageflags = -1,
					 .page_size = page_size,
					 .pmd_order = order,
					 .pagemap_scan = resident_pagemap_scan_works() &&
							 !test_no_pagemap_scan(),
					 .max_entries = max_entries_per_process()};
	bound_set_limit(BOUND_RESIDENT_PAGES, s->host.max_entries);
	s->opener = -1;
	if (resident_selector_init(&sel, settings, false)) {
		snprintf(err, err_len, "failed to find the cgroup2 mount for -c");
		return -1;
	}
	s->opener = resident_opener_start(&sel);
	if (s->opener < 0) {
		snprintf(err, err_len, "failed to start the opener of /proc files: %s",
			 strerror(-s->opener));
		return -1;
	}
	s->host.kpageflags = resident_open_kpageflags(s->opener);
	if (s->host.kpageflags < 0) {
		snprintf(err, err_len, "failed to open /proc/kpageflags: %s%s",
			 strerror(-s->host.kpageflags),
			 s->host.kpageflags == -EACCES || s->host.kpageflags == -EPERM
			     ? " (--resident needs root)"
			     : "");
		resident_scanner_close(s);
		return -1;
	}
	return 0;
}

void resident_scanner_close(struct resident_scanner *s)
{
	if (s->host.kpageflags >= 0)
		close(s->host.kpageflags);
	if (s->opener >= 0)
		close(s->opener);
	s->host.kpageflags = s->opener = -1;
}

__u64 resident_pages(const struct resident_counts *c)
{
	return words_sum((const __u64 *)c->pages, FS_WORDS(c->pages));
}

__u64 resident_large_pages(const struct resident_counts *c)
{
	__u64 sum = 0;

	for (int t = 0; t < NR_RESIDENT_TYPES; t++)
		sum += words_sum(c->pages[t] + 1, FS_NR_ORDERS - 1);
	return sum;
}

double resident_oldest_s(const struct resident_report *r)
{
	double first = r->taken_at;

	for (size_t i = 0; i < r->nr; i++)
		if (r->rows[i].scanned_at < first)
			first = r->rows[i].scanned_at;
	return r->taken_at - first;
}

static void add_counts(struct resident_counts *to, const struct resident_counts *from)
{
	words_add((__u64 *)to, (const __u64 *)from, FS_WORDS(*to));
}

/* A small file of /proc/PID (comm, cgroup) into buf: its length, or -1. */
static ssize_t read_small(pid_t pid, const char *name, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* Whether a process of cgroup `path` (below the cgroup2 mount) is in one of -c's cgroups or
 * below: the directory of the path at that cgroup's depth is that cgroup (same inode, the
 * cgroup's id). */
static bool in_selected_cgroup(const struct resident_settings *settings, const char *mount,
			       const char *path)
{
	char dir[4096 + 512];

	for (int i = 0; i < settings->nr_cgroups; i++) {
		const char *at = path;
		struct stat st;
		__u32 level = settings->cgroup_refs[i].level;

		/* The first `level` components of the path. */
		for (__u32 l = 0; l < level && at; l++)
			at = strchr(at + 1, '/');
		snprintf(dir, sizeof(dir), "%s%.*s", mount,
			 (int)(at ? (size_t)(at - path) : strlen(path)), path);
		if (!stat(dir, &st) && st.st_ino == settings->cgroup_refs[i].id)
			return true;
	}
	return false;
}

/* Processes left out: kernel threads, which map no memory of their own (PF_KTHREAD in
 * /proc/PID/stat's flags, the 9th field: after the name in parentheses, which may hold
 * anything, the 7th), and foliostat's own children (its openers), as foliostat is. Else its
 * start time (field 22) into *start_ticks. */
static bool left_out(const struct resident_selector *sel, pid_t pid,
		     unsigned long long *start_ticks)
{
	unsigned long flags = 0;
	char text[1024], *after;
	int ppid = 0;

	if (read_small(pid, "stat", text, sizeof(text)) < 0 || !(after = strrchr(text, ')')))
		return true; /* gone */
	if (sscanf(after + 1, " %*c %d %*d %*d %*d %*d %lu", &ppid, &flags) != 2 ||
	    stat_start_ticks(text, start_ticks))
		return true;
	return (flags & 0x00200000) || ppid == sel->self; /* PF_KTHREAD */
}

static bool pid_selected(const struct resident_settings *settings, pid_t pid)
{
	for (int i = 0; i < settings->filter.nr_pids; i++)
		if (settings->filter.pids[i] == pid)
			return true;
	return !settings->filter.nr_pids;
}

/* With -p: whether the process of pid that started at start_ticks is the one that had the pid
 * at start-up (not a later one that took it after that one ended). */
static bool pid_start_selected(const struct resident_settings *settings, pid_t pid,
			       unsigned long long start_ticks)
{
	for (int i = 0; i < settings->filter.nr_pids; i++)
		if (settings->filter.pids[i] == pid)
			return !settings->filter.pid_started_before[i] ||
			       start_ticks * clock_tick_ns() <
				   settings->filter.pid_started_before[i];
	return !settings->filter.nr_pids;
}

/* A process's cgroup path below the cgroup2 mount, as /proc/PID/cgroup's "0::" line gives it,
 * into path (of `size` bytes): 0, or -1 (gone, in no cgroup of cgroup2, or a path longer than
 * `size`). Read to the file's end if need be, a block at a time, allocating nothing: the
 * resident opener's child calls this (see cgroup_v2_line). */
static int cgroup_path(pid_t pid, char *path, size_t size)
{
	struct cgroup_v2_line line;
	char file[64], block[4096];
	ssize_t n = 0;
	int fd;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	if (!size || (fd = open(file, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	cgroup_v2_line_init(&line, path, size);
	while ((n = read(fd, block, sizeof(block))) > 0 && !cgroup_v2_line_feed(&line, block, n))
		;
	close(fd);
	return n < 0 ? -1 : cgroup_v2_line_end(&line);
}

int resident_selector_init(struct resident_selector *sel, const struct resident_settings *settings,
			   bool with_cgroup)
{
	*sel = (struct resident_selector){
	    .settings = settings,
	    .self = getpid(),
	    .with_cgroup = with_cgroup || settings->by == FS_BY_CGROUP || settings->nr_cgroups};
	if (settings->nr_cgroups && cgroup2_mount(sel->mount, sizeof(sel->mount)))
		return -ENOENT;
	return 0;
}

int resident_pids(const struct resident_settings *settings, pid_t **pids, size_t *nr, size_t *cap)
{
	struct dirent *entry;
	DIR *proc;
	int err = 0;

	*nr = 0;
	if (!(proc = opendir("/proc")))
		return -errno;
	while (!err && (entry = readdir(proc))) {
		char *rest;
		long pid = strtol(entry->d_name, &rest, 10);

		if (*rest || pid <= 0 || (pid_t)pid == getpid() ||
		    !pid_selected(settings, (pid_t)pid))
			continue;
		if (!(err = array_reserve_one(pids, cap, *nr, sizeof(**pids))))
			(*pids)[(*nr)++] = (pid_t)pid;
	}
	closedir(proc);
	return err;
}

int resident_selected(const struct resident_selector *sel, pid_t pid, struct resident_identity *id)
{
	const struct resident_settings *settings = sel->settings;
	char comm[FS_COMM_LEN + 2];

	if (pid <= 0 || pid == sel->self || !pid_selected(settings, pid))
		return -EACCES;
	if (read_small(pid, "comm", comm, sizeof(comm)) < 0)
		return -ENOENT; /* gone already */
	comm[strcspn(comm, "\n")] = '\0';
	if (settings->filter.comm && strcmp(settings->filter.comm, comm))
		return -EACCES;
	if (left_out(sel, pid, &id->start_ticks))
		return process_start_ticks(pid, &id->start_ticks) == -ENOENT ? -ENOENT : -EACCES;
	if (!pid_start_selected(settings, pid, id->start_ticks))
		return -EACCES;
	id->cgroup[0] = '\0';
	if ((sel->with_cgroup || settings->nr_cgroups) &&
	    cgroup_path(pid, id->cgroup, sizeof(id->cgroup)) && settings->nr_cgroups)
		return -ENOENT; /* gone, or in no cgroup of cgroup2 */
	if (settings->nr_cgroups && !in_selected_cgroup(settings, sel->mount, id->cgroup))
		return -EACCES;
	memset(id->comm, 0, sizeof(id->comm));
	memcpy(id->comm, comm, sizeof(id->comm) - 1); /* (15 at most) */
	return 0;
}

bool resident_select(const struct resident_selector *sel, pid_t pid, struct resident_candidate *c)
{
	struct resident_identity id;

	if (resident_selected(sel, pid, &id))
		return false;
	*c = (struct resident_candidate){.pid = pid,
					 .start_ticks = id.start_ticks,
					 .start_ns = id.start_ticks * clock_tick_ns()};
	memcpy(c->comm, id.comm, sizeof(c->comm));
	if (sel->with_cgroup && id.cgroup[0] && !(c->cgroup = strdup(id.cgroup)))
		return false;
	return true;
}

int resident_read(const struct resident_scanner *s, pid_t pid, unsigned long long start_ticks,
		  const struct resident_pace *pace, struct resident_counts *counts,
		  struct resident_reading *reading)
{
	struct resident_files files;
	int err;

	*reading = (struct resident_reading){0};
	test_resident_before_open(pid);
	if ((err = resident_open(s->opener, pid, start_ticks, !s->host.pagemap_scan, &files)))
		return err;
	err = resident_scan(&s->host, &files, pace, counts, reading);
	resident_close(&files);
	return err;
}

/* --by cgroup and --by comm: rows of the same cgroup or name, one after the other. */
static int compare_group(const void *a, const void *b, void *by)
{
	const struct resident_row *ra = a, *rb = b;

	if (*(const enum fs_row_kind *)by == FS_BY_COMM)
		return strncmp(ra->comm, rb->comm, sizeof(ra->comm));
	if (!ra->cgroup || !rb->cgroup)
		return !ra->cgroup - !rb->cgroup;
	return strcmp(ra->cgroup, rb->cgroup);
}

/* Fold the processes' rows into a row per cgroup or name (their figures added up, the oldest
 * reading's time kept). */
static void group_rows(struct resident_report *r, enum fs_row_kind by)
{
	size_t kept = 0;

	qsort_r(r->rows, r->nr, sizeof(*r->rows), compare_group, &by);
	for (size_t i = 0; i < r->nr; i++) {
		struct resident_row *row = &r->rows[i], *into = kept ? &r->rows[kept - 1] : NULL;

		if (into && !compare_group(into, row, &by)) {
			add_counts(&into->counts, &row->counts);
			into->processes += row->processes;
			if (row->scanned_at < into->scanned_at)
				into->scanned_at = row->scanned_at;
			into->cut_short |= row->cut_short;
			free(row->cgroup);
			continue;
		}
		r->rows[kept] = *row;
		r->rows[kept].pid = 0;
		r->rows[kept].start_ns = 0;
		if (by == FS_BY_CGROUP)
			memset(r->rows[kept].comm, 0, sizeof(r->rows[kept].comm));
		if (by == FS_BY_COMM) {
			free(r->rows[kept].cgroup);
			r->rows[kept].cgroup = NULL;
		}
		kept++;
	}
	r->nr = kept;
}

static int compare_large(const void *a, const void *b)
{
	const struct resident_row *pa = a, *pb = b;
	__u64 la = resident_large_pages(&pa->counts), lb = resident_large_pages(&pb->counts);
	__u64 ra = resident_pages(&pa->counts), rb = resident_pages(&pb->counts);

	if (la != lb)
		return la > lb ? -1 : 1;
	if (ra != rb)
		return ra > rb ? -1 : 1;
	if (pa->pid != pb->pid)
		return pa->pid < pb->pid ? -1 : 1;
	return compare_group(a, b, &(enum fs_row_kind){FS_BY_CGROUP});
}

void resident_report_finish(struct resident_report *r, enum fs_row_kind by)
{
	if (by != FS_BY_PROCESS)
		group_rows(r, by);
	qsort(r->rows, r->nr, sizeof(*r->rows), compare_large);
}

void resident_report_clear(struct resident_report *r)
{
	for (size_t i = 0; i < r->nr; i++)
		free(r->rows[i].cgroup);
	r->nr = r->scanned = r->gone = r->failed = r->cut_short = 0;
	r->first_error = 0;
	r->passes = 0;
	r->swept = false;
	r->seconds = r->cpu_seconds = r->taken_at = 0;
	memset(&r->total, 0, sizeof(r->total));
}

static double clock_s(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int resident_collect(const struct resident_scanner *s, const struct resident_settings *settings,
		     struct resident_report *r)
{
	double begin = clock_s(CLOCK_MONOTONIC), cpu = clock_s(CLOCK_THREAD_CPUTIME_ID);
	struct resident_selector sel;
	pid_t *pids = NULL;
	size_t nr = 0, cap = 0;
	__u64 most = 0;
	int err;

	resident_report_clear(r);
	if (!(err = resident_selector_init(&sel, settings, false)))
		err = resident_pids(settings, &pids, &nr, &cap);
	for (size_t i = 0; !err && i < nr; i++) {
		struct resident_candidate c;
		struct resident_reading reading;
		struct resident_row *p;
		int ret;

		if (!resident_select(&sel, pids[i], &c))
			continue;
		if ((err = array_reserve_one(&r->rows, &r->cap, r->nr, sizeof(*r->rows)))) {
			free(c.cgroup);
			break;
		}
		p = &r->rows[r->nr];
		*p = (struct resident_row){.pid = (__u32)c.pid,
					   .start_ns = c.start_ns,
					   .processes = 1,
					   .scanned_at = clock_s(CLOCK_MONOTONIC)};
		memcpy(p->comm, c.comm, sizeof(p->comm));
		ret = resident_read(s, c.pid, c.start_ticks, NULL, &p->counts, &reading);
		if (reading.entries > most)
			most = reading.entries;
		if (ret == -ENOENT || ret == -ESRCH) {
			r->gone++;
		} else if (ret == -EPERM && !r->scanned) {
			/* No frame numbers before any process was read (no CAP_SYS_ADMIN for the
			 * opener), or the opener gone: none will be read. */
			r->failed++;
			r->first_error = ret;
			err = ret;
		} else if (ret) {
			if (settings->verbose)
				fprintf(stderr, "foliostat: --resident: process %d not read: %s\n",
					(int)c.pid, strerror(-ret));
			if (!r->failed++)
				r->first_error = ret;
		} else {
			r->scanned++;
			p->cut_short = reading.cut_short;
			r->cut_short += reading.cut_short;
			add_counts(&r->total, &p->counts);
			/* (a process that maps nothing, a zombie say, has no row) */
			if (resident_pages(&p->counts)) {
				p->cgroup = c.cgroup;
				c.cgroup = NULL;
				r->nr++;
			}
		}
		free(c.cgroup);
	}
	free(pids);
	bound_set_entries(BOUND_RESIDENT_PAGES, most);
	bound_evicted(BOUND_RESIDENT_PAGES, r->cut_short);
	resident_report_finish(r, settings->by);
	r->passes = 1;
	r->pagemap_scan = s->host.pagemap_scan;
	r->taken_at = clock_s(CLOCK_MONOTONIC);
	r->seconds = r->taken_at - begin;
	r->cpu_seconds = clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu;
	return err;
}

void resident_report_free(struct resident_report *r)
{
	resident_report_clear(r);
	free(r->rows);
	memset(r, 0, sizeof(*r));
}
