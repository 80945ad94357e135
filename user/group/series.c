// SPDX-License-Identifier: GPL-2.0
/* The exporter's counts since the start, per row and for the system (see series.h). */
#define _GNU_SOURCE /* qsort_r */
#include "series.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "bounds.h"
#include "row_table.h"

#define PROC_WORDS FS_WORDS(struct proc_totals)

void series_init(struct series_store *s, const struct series_settings *settings,
		 series_name_fn cgroup_path, series_gone_fn gone, void *ctx, double now)
{
	*s = (struct series_store){
	    .by = settings->by,
	    .max_series =
		settings->max_series ? (size_t)settings->max_series : FS_DEFAULT_MAX_SERIES,
	    .grace_s = settings->grace_s > 0 ? settings->grace_s : FS_DEFAULT_SERIES_GRACE_S,
	    .admit_top = settings->by == FS_BY_PROCESS ? (size_t)settings->top : 0,
	    .cgroup_path = cgroup_path,
	    .gone = gone,
	    .ctx = ctx,
	    .last_exposed = now,
	};
	bound_set_limit(BOUND_SERIES, s->max_series);
	bound_set_entries(BOUND_SERIES, 0);
}

/* Groups are ordered by process (its pid and start), then by name (a process's series is its
 * own, whatever its name: a renamed process is found by its pid and start). */
static int series_row_cmp(const struct series_store *s, __u32 pid, __u64 start, const char *name,
			  const struct series_row *g)
{
	if (pid != g->pid)
		return pid < g->pid ? -1 : 1;
	if (start != g->start)
		return start < g->start ? -1 : 1;
	return s->by == FS_BY_PROCESS ? 0 : strcmp(name, g->name);
}

/* The row's series among the sorted ones, then among those made in this read (after them). */
static struct series_row *series_row_find(struct series_store *s, size_t nr_sorted, __u32 pid,
					  __u64 start, const char *name)
{
	size_t lo = 0, hi = nr_sorted;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = series_row_cmp(s, pid, start, name, s->rows[mid]);

		if (!cmp)
			return s->rows[mid];
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	for (size_t i = nr_sorted; i < s->nr; i++)
		if (!series_row_cmp(s, pid, start, name, s->rows[i]))
			return s->rows[i];
	return NULL;
}

/* --by process: a row's series is its process's: its pid and start; other rows' have neither. */
static __u32 row_series_pid(const struct series_store *s, const struct row *row)
{
	return s->by == FS_BY_PROCESS ? row_pid(row) : 0;
}

static __u64 row_series_start(const struct series_store *s, const struct row *row)
{
	return s->by == FS_BY_PROCESS ? row_start(row) : 0;
}

/* What identifies a row's series: NULL when it cannot be named (its counts then go to other). */
static const char *row_name(struct series_store *s, const struct row *row)
{
	if (s->by == FS_BY_CGROUP)
		return s->cgroup_path ? s->cgroup_path(row->cgroup, s->ctx) : NULL;
	return row->comm;
}

/* dst -= src, where src is a part of dst (never below zero, should the parts not add up). */
static void words_take(__u64 *dst, const __u64 *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = dst[i] > src[i] ? dst[i] - src[i] : 0;
}

/* The row's counts are its series' now, no longer other's. */
static void series_row_free(struct series_row *g)
{
	free(g->name);
	free(g->cgroup_path);
	free(g);
}

/* A process's row is labelled with its cgroup's path: named now, at the read, as a record's
 * rows are (the exposition only prints), and again when the process moves. */
static void series_row_name_cgroup(struct series_store *s, struct series_row *g, __u64 cgroup)
{
	const char *path;

	if (s->by != FS_BY_PROCESS || (g->cgroup == cgroup && g->cgroup_path))
		return;
	path = s->cgroup_path ? s->cgroup_path(cgroup, s->ctx) : NULL;
	free(g->cgroup_path);
	g->cgroup_path = path ? strdup(path) : NULL;
}

static void series_row_add(struct series_store *s, struct series_row *g,
			   const struct row_table *rows, const struct row *row, double now,
			   struct fs_totals *other, struct proc_totals *other_proc)
{
	const struct row_proc_totals *proc = process_proc(rows, row);

	series_row_name_cgroup(s, g, row->cgroup);

	totals_add_totals(&g->totals, &row->totals);
	words_take((__u64 *)other, (const __u64 *)&row->totals, FS_WORDS(*other));
	if (proc) {
		words_add((__u64 *)&g->proc, (const __u64 *)&proc->totals, PROC_WORDS);
		words_take((__u64 *)other_proc, (const __u64 *)&proc->totals, PROC_WORDS);
	}
	g->cgroup = row->cgroup;
	g->last_event = now;
}

/* The row that has been idle longest, and whose last counts have been exposed: taking its
 * place loses nothing a scraper has not seen. NULL if every row is busier than that. */
static struct series_row *series_row_to_fold(struct series_store *s, size_t nr_sorted)
{
	struct series_row *oldest = NULL;

	for (size_t i = 0; i < nr_sorted; i++) {
		struct series_row *g = s->rows[i];

		if (!g->leaving && g->last_event < s->last_exposed &&
		    (!oldest || g->last_event < oldest->last_event))
			oldest = g;
	}
	return oldest;
}

/* Drop the rows that leave (folded or expired), keeping the order. */
static void series_rows_compact(struct series_store *s)
{
	size_t kept = 0;

	for (size_t i = 0; i < s->nr; i++) {
		if (s->rows[i]->leaving)
			series_row_free(s->rows[i]);
		else
			s->rows[kept++] = s->rows[i];
	}
	s->nr = kept;
}

static int by_pid_then_name(const void *a, const void *b, void *arg)
{
	const struct series_row *ga = *(struct series_row *const *)a;
	const struct series_row *gb = *(struct series_row *const *)b;

	return series_row_cmp(arg, ga->pid, ga->start, ga->name, gb);
}

/* Rows by activity, most active first. */
static int by_events_desc(const void *a, const void *b)
{
	const struct row *ra = *(const struct row *const *)a;
	const struct row *rb = *(const struct row *const *)b;

	if (ra->events != rb->events)
		return ra->events > rb->events ? -1 : 1;
	return row_key_cmp(&ra->key, &rb->key);
}

/* A new row's series: in a free place, or in the place of the row idle longest (which
 * leaves: compacted away at the end of the read). NULL if there is none. */
static struct series_row *series_row_make(struct series_store *s, size_t nr_sorted, __u32 pid,
					  __u64 start, const char *name)
{
	struct series_row *g;

	if (s->nr_live == s->max_series) {
		struct series_row *idle = series_row_to_fold(s, nr_sorted);

		if (!idle)
			return NULL;
		idle->leaving = true;
		s->nr_live--;
		s->folded++;
		bound_evicted(BOUND_SERIES, 1);
	}
	if (array_reserve_one(&s->rows, &s->cap, s->nr, sizeof(*s->rows)) ||
	    !(g = calloc(1, sizeof(*g))))
		return NULL;
	if (!(g->name = strdup(name))) {
		free(g);
		return NULL;
	}
	g->pid = pid;
	g->start = start;
	s->nr_live++;
	s->rows[s->nr++] = g;
	return g;
}

/* The activity of the n-th most active row (n < rows->nr): one pass keeping the n largest, in
 * order; n is a --top, a few dozen, where a read has thousands of rows. */
static __u64 top_events(const struct row_table *rows, size_t n)
{
	__u64 *largest = calloc(n, sizeof(*largest));
	__u64 least;

	if (!largest)
		return ~0ULL; /* none is admitted: they count in other */
	for (size_t i = 0; i < rows->nr; i++) {
		__u64 events = rows->rows[i].events;
		size_t at = n;

		if (events <= largest[n - 1])
			continue;
		while (at > 0 && largest[at - 1] < events)
			at--;
		memmove(&largest[at + 1], &largest[at], (n - 1 - at) * sizeof(*largest));
		largest[at] = events;
	}
	least = largest[n - 1];
	free(largest);
	return least;
}

int series_add_read(struct series_store *s, const struct row_table *rows,
		    const struct system_totals *system, const struct kernel_counters *kernel,
		    double now)
{
	const struct row **pending = NULL;
	size_t nr_pending = 0, nr_sorted = s->nr;
	struct fs_totals other = system->total;
	struct proc_totals other_proc = {0};
	int ret = 0;

	words_add_system(&s->system, system);
	if (kernel_counters_accumulate(&s->kernel, kernel))
		ret = -ENOMEM;

	/* What the threads were charged, apart from the groups that are no rows. */
	words_take((__u64 *)&other, (const __u64 *)&system->interrupt, FS_WORDS(other));
	words_take((__u64 *)&other, (const __u64 *)&system->untracked, FS_WORDS(other));
	words_take((__u64 *)&other, (const __u64 *)&system->unselected, FS_WORDS(other));
	other_proc.thp = system->thp;
	words_take((__u64 *)&other_proc.thp, (const __u64 *)&system->thp_unattributed,
		   FS_WORDS(other_proc.thp));
	words_take((__u64 *)&other_proc.thp, (const __u64 *)&system->thp_untracked,
		   FS_WORDS(other_proc.thp));
	memcpy(other_proc.stalls, system->stalls, sizeof(other_proc.stalls));
	memcpy(other_proc.reclaimed, system->reclaimed, sizeof(other_proc.reclaimed));
	other_proc.compaction_by_order = system->compaction_by_order;
	memcpy(other_proc.alloc_by_node_order, system->alloc_by_node_order,
	       sizeof(other_proc.alloc_by_node_order));

	if (rows->nr && !(pending = malloc(rows->nr * sizeof(*pending))))
		ret = -ENOMEM;
	/* Rows with a series first: a series found here is busy now, so none of them
	 * gives its place to a new one in the second pass. */
	for (size_t i = 0; i < rows->nr; i++) {
		const struct row *row = &rows->rows[i];
		const char *name = row_name(s, row);
		struct series_row *g;

		if (!name)
			continue;
		g = series_row_find(s, nr_sorted, row_series_pid(s, row), row_series_start(s, row),
				    name);
		if (g && s->by == FS_BY_PROCESS && strcmp(g->name, name)) {
			/* A new name (an exec): the process's series goes on under it, which is a
			 * new label set, so a new series to Prometheus, whose first value
			 * increase() does not count, as for any row's first scrape. Its counts
			 * stay, so the rows still add up at every scrape. */
			char *copy = strdup(name);

			if (copy) {
				free(g->name);
				g->name = copy;
			}
		}
		if (g)
			series_row_add(s, g, rows, row, now, &other, &other_proc);
		else if (pending)
			pending[nr_pending++] = row;
	}
	/* New rows: by process only those among the top N of the read; the most active first. */
	if (nr_pending && s->admit_top && s->admit_top < rows->nr) {
		__u64 least = top_events(rows, s->admit_top);
		size_t kept = 0;

		for (size_t i = 0; i < nr_pending; i++)
			if (pending[i]->events >= least)
				pending[kept++] = pending[i];
		nr_pending = kept;
	}
	if (nr_pending)
		qsort(pending, nr_pending, sizeof(*pending), by_events_desc);
	for (size_t i = 0; i < nr_pending; i++) {
		const struct row *row = pending[i];
		const char *name = row_name(s, row);
		__u32 pid = row_series_pid(s, row);
		__u64 start = row_series_start(s, row);
		struct series_row *g = series_row_find(s, nr_sorted, pid, start, name);

		if (!g)
			g = series_row_make(s, nr_sorted, pid, start, name);
		if (g)
			series_row_add(s, g, rows, row, now, &other, &other_proc);
	}
	free(pending);

	/* Whatever no series took is other's. */
	totals_add_totals(&s->other, &other);
	words_add((__u64 *)&s->other_proc, (const __u64 *)&other_proc, PROC_WORDS);

	/* Sorted again only when rows came or went: pointers, a few thousand at most. */
	if (s->nr != nr_sorted || s->nr_live != s->nr) {
		series_rows_compact(s);
		qsort_r(s->rows, s->nr, sizeof(*s->rows), by_pid_then_name, s);
	}
	bound_set_entries(BOUND_SERIES, s->nr_live);
	return ret;
}

void series_expire(struct series_store *s, double now)
{
	bool dropped = false;

	for (size_t i = 0; i < s->nr; i++) {
		struct series_row *g = s->rows[i];

		if (now - g->last_event <= s->grace_s || g->last_event >= s->last_exposed)
			continue;
		/* A name has no end of its own: gone when idle that long. */
		if (s->by == FS_BY_COMM || !s->gone || s->gone(g, s->ctx)) {
			g->leaving = true;
			s->nr_live--;
			dropped = true;
		}
	}
	if (dropped)
		series_rows_compact(s);
	bound_set_entries(BOUND_SERIES, s->nr_live);
}

void series_free(struct series_store *s)
{
	for (size_t i = 0; i < s->nr; i++)
		series_row_free(s->rows[i]);
	free(s->rows);
	kernel_counters_free(&s->kernel);
	memset(s, 0, sizeof(*s));
}
