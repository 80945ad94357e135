// SPDX-License-Identifier: GPL-2.0
/* Deltas between snapshots and the per-process table (see window.h). Both snapshots are sorted
 * by tgid << 32 | tid, so one merge pass pairs each thread with its previous sample and visits
 * the threads of a process consecutively. */
#include "window.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "counters.h"

bool process_selected(const struct fs_options *opts, __u32 tgid, const char *comm)
{
	bool pid_ok = opts->nr_pids == 0;

	for (int i = 0; i < opts->nr_pids && !pid_ok; i++)
		pid_ok = (__u32)opts->pids[i] == tgid;
	return pid_ok && (!opts->comm || strncmp(opts->comm, comm, FS_COMM_LEN) == 0);
}

static struct process_row *table_push(struct process_table *t)
{
	if (array_reserve_one(&t->rows, &t->cap, t->nr, sizeof(*t->rows)))
		return NULL;
	memset(&t->rows[t->nr], 0, sizeof(t->rows[0]));
	return &t->rows[t->nr++];
}

static bool stalling(const struct fs_task *task)
{
	for (int k = 0; k < FS_NR_STALLS; k++)
		if (task->stall_start_ns[k])
			return true;
	return false;
}

/*
 * A thread's counts since `before`. Its observed counts can read lower than last time when a
 * CPU's slot was moved into its entry while the tables were being read (the slot was then left
 * out): that is not a new thread, only a late one, so no word goes below what was seen.
 */
static void thread_delta(struct task_sample *now, const struct task_sample *before,
			 struct fs_counters *out)
{
	if (!before)
		*out = now->task.counters;
	else
		words_delta_monotonic((__u64 *)out, (__u64 *)&now->task.counters,
				      (const __u64 *)&before->task.counters, FS_WORDS(*out));
}

static struct proc_row *proc_push(struct process_table *t)
{
	if (array_reserve_one(&t->procs, &t->cap_procs, t->nr_procs, sizeof(*t->procs)))
		return NULL;
	memset(&t->procs[t->nr_procs], 0, sizeof(t->procs[0]));
	return &t->procs[t->nr_procs++];
}

static int compare_row_tgids(const void *a, const void *b)
{
	__u32 ta = ((const struct process_row *)a)->tgid,
	      tb = ((const struct process_row *)b)->tgid;

	return ta < tb ? -1 : ta > tb;
}

/*
 * Process-level figures (collapse outcomes, stalls) per process from the process-table samples,
 * and a row for every process that has some, even with no activity of its own threads
 * (khugepaged collapsed its memory, say).
 */
static int window_procs(const struct snapshot *before, struct snapshot *now,
			const struct fs_options *opts, struct process_table *out)
{
	size_t b = 0, nr_rows = out->nr;

	out->nr_procs = 0;
	for (size_t i = 0; i < now->nr_procs; i++) {
		struct proc_sample *s = &now->procs[i];
		struct fs_proc_counters delta;
		struct process_row key = {.tgid = s->tgid}, *row;
		struct proc_row *proc;

		while (b < before->nr_procs && before->procs[b].tgid < s->tgid)
			b++;
		if (s->carried || b == before->nr_procs || before->procs[b].tgid != s->tgid ||
		    !words_delta((__u64 *)&delta, (const __u64 *)&s->proc.counters,
				 (const __u64 *)&before->procs[b].proc.counters, FS_WORDS(delta)))
			delta = s->proc.counters;
		s->evict = s->carried || !words_sum((const __u64 *)&delta, FS_WORDS(delta));
		if (s->evict && !s->carried)
			continue;
		row = bsearch(&key, out->rows, nr_rows, sizeof(*row), compare_row_tgids);
		if (!row) {
			char comm[FS_COMM_LEN];

			memcpy(comm, s->proc.comm, FS_COMM_LEN);
			comm[FS_COMM_LEN - 1] = '\0';
			if (!process_selected(opts, s->tgid, comm))
				continue;
			row = table_push(out);
			if (!row)
				return -ENOMEM;
			row->tgid = s->tgid;
			memcpy(row->comm, comm, FS_COMM_LEN);
		}
		row->events += proc_activity(&delta);
		proc = proc_push(out);
		if (!proc)
			return -ENOMEM;
		proc->tgid = s->tgid;
		proc->counters = delta;
	}
	/* Rows added for processes with only process-level figures went to the end. */
	qsort(out->rows, out->nr, sizeof(*out->rows), compare_row_tgids);
	return 0;
}

const struct proc_row *process_proc(const struct process_table *table, __u32 tgid)
{
	size_t lo = 0, hi = table->nr_procs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (table->procs[mid].tgid == tgid)
			return &table->procs[mid];
		if (table->procs[mid].tgid < tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int window_processes(const struct snapshot *before, struct snapshot *now,
		     const struct fs_options *opts, struct process_table *out)
{
	size_t b = 0;

	out->nr = 0;
	for (size_t i = 0; i < now->nr_tasks;) {
		__u32 tgid = sample_tgid(&now->tasks[i]);
		struct process_row row = {.tgid = tgid};
		bool named_by_leader = false;

		/* All threads of this process. */
		for (; i < now->nr_tasks && sample_tgid(&now->tasks[i]) == tgid; i++) {
			struct task_sample *s = &now->tasks[i];
			const struct task_sample *prev = NULL;
			struct fs_counters delta;

			while (b < before->nr_tasks && before->tasks[b].key < s->key)
				b++;
			if (!s->carried && b < before->nr_tasks && before->tasks[b].key == s->key)
				prev = &before->tasks[b];
			thread_delta(s, prev, &delta);
			counters_add(&row.counters, &delta);
			/* A thread in the middle of a stall keeps its entry for the end, and one whose
			 * counts sit in a CPU's slot keeps it for when they are moved there. */
			s->evict = s->carried ||
				   ((s->task.exited || (!counters_events(&delta) &&
							!stalling(&s->task))) &&
				    !snapshot_slotted(now, s->key));
			/* The leader's name is the process's name; any thread's will do without
			 * it. */
			if (!named_by_leader) {
				memcpy(row.comm, s->task.comm, FS_COMM_LEN);
				row.comm[FS_COMM_LEN - 1] = '\0';
				named_by_leader = sample_tid(s) == tgid;
			}
		}
		row.events = counters_activity(&row.counters);
		if (counters_events(&row.counters) && process_selected(opts, tgid, row.comm)) {
			struct process_row *slot = table_push(out);

			if (!slot)
				return -ENOMEM;
			*slot = row;
		}
	}
	return window_procs(before, now, opts, out);
}

void window_system(const struct snapshot *before, const struct snapshot *now, struct fs_system *out)
{
	const __u64 *n = (const __u64 *)&now->system, *b = (const __u64 *)&before->system;
	__u64 *o = (__u64 *)out;

	for (size_t i = 0; i < FS_WORDS(*out); i++)
		o[i] = n[i] >= b[i] ? n[i] - b[i] : n[i];
}

/* merged->procs = acc->procs + add->procs, both sorted by tgid. */
static int accumulate_procs(struct process_table *merged, const struct process_table *acc,
			    const struct process_table *add)
{
	size_t a = 0, b = 0;

	while (a < acc->nr_procs || b < add->nr_procs) {
		struct proc_row *slot = proc_push(merged);

		if (!slot)
			return -ENOMEM;
		if (b == add->nr_procs ||
		    (a < acc->nr_procs && acc->procs[a].tgid < add->procs[b].tgid)) {
			*slot = acc->procs[a++];
		} else if (a == acc->nr_procs || add->procs[b].tgid < acc->procs[a].tgid) {
			*slot = add->procs[b++];
		} else {
			*slot = acc->procs[a++];
			words_add((__u64 *)&slot->counters,
				  (const __u64 *)&add->procs[b++].counters,
				  FS_WORDS(slot->counters));
		}
	}
	return 0;
}

int process_table_accumulate(struct process_table *acc, const struct process_table *add)
{
	struct process_table merged = {0};
	size_t a = 0, b = 0;

	while (a < acc->nr || b < add->nr) {
		struct process_row *slot = table_push(&merged);

		if (!slot) {
			process_table_free(&merged);
			return -ENOMEM;
		}
		if (b == add->nr || (a < acc->nr && acc->rows[a].tgid < add->rows[b].tgid)) {
			*slot = acc->rows[a++];
		} else if (a == acc->nr || add->rows[b].tgid < acc->rows[a].tgid) {
			*slot = add->rows[b++];
		} else {
			/* Same process in both: sum, and keep the newer name (exec renames). */
			*slot = acc->rows[a++];
			counters_add(&slot->counters, &add->rows[b].counters);
			slot->events += add->rows[b].events;
			memcpy(slot->comm, add->rows[b].comm, FS_COMM_LEN);
			b++;
		}
	}
	if (accumulate_procs(&merged, acc, add)) {
		process_table_free(&merged);
		return -ENOMEM;
	}
	process_table_free(acc);
	*acc = merged;
	return 0;
}

static int compare_activity(const void *a, const void *b)
{
	const struct process_row *ra = a, *rb = b;

	if (ra->events != rb->events)
		return ra->events > rb->events ? -1 : 1;
	return ra->tgid < rb->tgid ? -1 : ra->tgid > rb->tgid;
}

void process_table_rank(struct process_table *table)
{
	qsort(table->rows, table->nr, sizeof(*table->rows), compare_activity);
}

void process_table_shrink(struct process_table *table)
{
	array_shrink(&table->rows, &table->cap, table->nr, sizeof(*table->rows));
	array_shrink(&table->procs, &table->cap_procs, table->nr_procs, sizeof(*table->procs));
}

void process_table_free(struct process_table *table)
{
	free(table->rows);
	free(table->procs);
	memset(table, 0, sizeof(*table));
}
