// SPDX-License-Identifier: GPL-2.0
/* The per-process table of a read (see row_table.h). The snapshot's thread deltas are ordered by
 * their rows (snapshot_sort()), so the threads of a row come together. */
#include "row_table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "counters.h"

bool process_selected(const struct process_filter *filter, __u32 tgid, __u64 start,
		      const char *comm)
{
	bool pid_ok = filter->nr_pids == 0;

	for (int i = 0; i < filter->nr_pids && !pid_ok; i++)
		pid_ok = (__u32)filter->pids[i] == tgid &&
			 (!filter->pid_started_before[i] || start < filter->pid_started_before[i]);
	return pid_ok && (!filter->comm || strncmp(filter->comm, comm, FS_COMM_LEN) == 0);
}

static struct row *table_push(struct row_table *t)
{
	if (array_reserve_one(&t->rows, &t->cap, t->nr, sizeof(*t->rows)))
		return NULL;
	memset(&t->rows[t->nr], 0, sizeof(t->rows[0]));
	return &t->rows[t->nr++];
}

static struct process_candidate *candidate_push(struct row_table *t, size_t nr)
{
	if (array_reserve_one(&t->candidates, &t->cap_candidates, nr, sizeof(*t->candidates)))
		return NULL;
	memset(&t->candidates[nr], 0, sizeof(t->candidates[0]));
	return &t->candidates[nr];
}

static struct row_proc_totals *proc_push(struct row_table *t)
{
	if (array_reserve_one(&t->procs, &t->cap_procs, t->nr_procs, sizeof(*t->procs)))
		return NULL;
	memset(&t->procs[t->nr_procs], 0, sizeof(t->procs[0]));
	return &t->procs[t->nr_procs++];
}

static int compare_row_ids(const void *a, const void *b)
{
	const struct row *ra = a, *rb = b;

	return row_key_cmp(&ra->key, &rb->key);
}

static int compare_candidate_ids(const void *a, const void *b)
{
	const struct process_candidate *ca = a, *cb = b;

	return row_key_cmp(&ca->key, &cb->key);
}

/* Who a row of process-level figures is named after where it has no thread of its own. */
struct proc_name {
	__u32 tgid;
	bool late;
	__u64 start, cgroup;
	const char *comm;
};

/* The next row of the process deltas (from *p) and the node deltas (from *n), both in row
 * order: its figures summed into `sum`, its name into `name` (a live entry's over a late one's),
 * and both positions past it. */
static struct row_key next_proc_key(const struct snapshot *now, size_t *p, size_t *n,
				    struct proc_totals *sum, struct proc_name *name)
{
	struct row_key key;

	if (*n >= now->nr_nodes ||
	    (*p < now->nr_procs && row_key_cmp(&now->procs[*p].row, &now->nodes[*n].row) <= 0))
		key = now->procs[*p].row;
	else
		key = now->nodes[*n].row;
	memset(sum, 0, sizeof(*sum));
	name->comm = NULL;
	for (; *p < now->nr_procs && row_key_eq(&now->procs[*p].row, &key); (*p)++) {
		const struct proc_delta *d = &now->procs[*p];

		words_add((__u64 *)sum, (const __u64 *)&d->counts, FS_WORDS(d->counts));
		if (!name->comm || name->late)
			*name = (struct proc_name){d->tgid, d->late, d->start, d->cgroup, d->comm};
	}
	for (; *n < now->nr_nodes && row_key_eq(&now->nodes[*n].row, &key); (*n)++) {
		const struct node_delta *d = &now->nodes[*n];

		sum->alloc_by_node_order[d->node][d->order] += d->folios;
		if (!name->comm || name->late)
			*name = (struct proc_name){d->tgid, d->late, d->start, d->cgroup, d->comm};
	}
	return key;
}

/*
 * Process-level figures (collapse outcomes, stalls, allocations by node and order) per process
 * from the process and node deltas (an entry's late counts and its new entry's, if both, are
 * summed), and a candidate for every process that has some, even with no activity of its own
 * threads (khugepaged collapsed its memory, say). Candidates stay sorted by key.
 */
static int window_procs(const struct snapshot *now, const struct process_filter *filter,
			struct row_table *out, size_t *nr)
{
	size_t nr_threaded = *nr, p = 0, n = 0;
	struct proc_totals *sum = malloc(sizeof(*sum));

	if (!sum)
		return -ENOMEM;
	out->nr_procs = 0;
	while (p < now->nr_procs || n < now->nr_nodes) {
		struct proc_name name = {0};
		struct process_candidate key = {.key = next_proc_key(now, &p, &n, sum, &name)},
					 *found;
		struct row_proc_totals *proc;

		found = bsearch(&key, out->candidates, nr_threaded, sizeof(*found),
				compare_candidate_ids);
		if (!found) {
			if (!process_selected(filter, name.tgid, name.start, name.comm))
				continue;
			found = candidate_push(out, *nr);
			if (!found)
				goto nomem;
			(*nr)++;
			found->key = key.key;
			memcpy(found->comm, name.comm, FS_COMM_LEN);
			found->cgroup = name.cgroup;
		}
		found->events += proc_activity(sum);
		proc = proc_push(out);
		if (!proc)
			goto nomem;
		proc->key = key.key;
		proc->totals = *sum;
	}
	free(sum);
	/* Candidates added for processes with only process-level figures went to the end. */
	if (*nr > nr_threaded)
		qsort(out->candidates, *nr, sizeof(*out->candidates), compare_candidate_ids);
	return 0;
nomem:
	free(sum);
	return -ENOMEM;
}

const struct row_proc_totals *process_proc(const struct row_table *table, const struct row *row)
{
	size_t lo = 0, hi = table->nr_procs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct row_proc_totals *p = &table->procs[mid];
		int cmp = row_key_cmp(&p->key, &row->key);

		if (!cmp)
			return p;
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The counts of a process's threads, now->order[first..end): their sum into *sum unless it is
 * NULL, and their growth. */
static struct counters_growth sum_threads(const struct snapshot *now, size_t first, size_t end,
					  struct fs_totals *sum)
{
	struct counters_growth all = {0};

	if (sum)
		memset(sum, 0, sizeof(*sum));
	for (size_t i = first; i < end; i++) {
		all.events += now->order[i].grew.events;
		all.activity += now->order[i].grew.activity;
		if (sum)
			totals_add(sum, &now->threads[now->order[i].at].counts);
	}
	return all;
}

static struct row *row_for(struct row_table *out, const struct process_candidate *c)
{
	struct row *row = table_push(out);

	if (row) {
		row->key = c->key;
		memcpy(row->comm, c->comm, FS_COMM_LEN);
		row->cgroup = c->cgroup;
		row->events = c->events;
	}
	return row;
}

/* The one ranking rule, for candidates and rows: more active first, ties by key (a process's
 * pid, then start), so output is stable. */
static bool outranks(__u64 events_a, const struct row_key *a, __u64 events_b,
		     const struct row_key *b)
{
	return events_a != events_b ? events_a > events_b : row_key_cmp(a, b) < 0;
}

static bool ranks_before(const struct process_candidate *a, const struct process_candidate *b)
{
	return outranks(a->events, &a->key, b->events, &b->key);
}

static void swap_candidates(struct process_candidate *a, struct process_candidate *b)
{
	struct process_candidate t = *a;

	*a = *b;
	*b = t;
}

/* Restore the heap below `at`: the least ranked of heap[0..n) on top. */
static void sift_down(struct process_candidate *heap, size_t n, size_t at)
{
	for (;;) {
		size_t least = at, l = 2 * at + 1, r = l + 1;

		if (l < n && ranks_before(&heap[least], &heap[l]))
			least = l;
		if (r < n && ranks_before(&heap[least], &heap[r]))
			least = r;
		if (least == at)
			return;
		swap_candidates(&heap[at], &heap[least]);
		at = least;
	}
}

/* Move the `keep` most active of candidates[0..nr) to its front, in no order: a heap of the
 * best so far, so the cost is nr log keep, not a sort of all. */
static void select_most_active(struct process_candidate *candidates, size_t nr, size_t keep)
{
	if (keep >= nr)
		return;
	for (size_t i = keep / 2; i-- > 0;)
		sift_down(candidates, keep, i);
	for (size_t i = keep; i < nr; i++) {
		if (ranks_before(&candidates[i], &candidates[0])) {
			swap_candidates(&candidates[i], &candidates[0]);
			sift_down(candidates, keep, 0);
		}
	}
}

/* The name of a process: its leader's, else any thread's; names in late counts (of a thread that
 * has exited, whose pid may be another's by now) only when there is no other. An entry retired
 * by a move to another cgroup keeps the name it had then, while renames (an exec) reach only
 * the entry that replaced it: the live one names the process. */
static const char *process_name(const struct snapshot *now, size_t first, size_t end)
{
	const struct thread_delta *named = NULL;
	int best = -1;

	for (size_t i = first; i < end; i++) {
		const struct thread_delta *d = &now->threads[now->order[i].at];
		int rank = !d->late * 4 + (d->exited != FS_ENTRY_MOVED) * 2 +
			   ((__u32)d->key == d->key >> 32);

		if (rank > best) {
			named = d;
			best = rank;
		}
	}
	return named->comm;
}

/* The cgroup of a process: a live thread's (one that neither exited nor moved away since), its
 * leader's first; else an exited thread's (the cgroup it ended in); a late entry's or one
 * retired by a move only when there is no other. */
static __u64 process_cgroup(const struct snapshot *now, size_t first, size_t end)
{
	const struct thread_delta *chosen = NULL;
	int best = -1;

	for (size_t i = first; i < end; i++) {
		const struct thread_delta *d = &now->threads[now->order[i].at];
		int rank = !d->late * 8 + (d->exited != FS_ENTRY_MOVED) * 4 + !d->exited * 2 +
			   ((__u32)d->key == d->key >> 32);

		if (rank > best) {
			chosen = d;
			best = rank;
		}
	}
	return chosen->cgroup;
}

int row_table_of_read(const struct snapshot *now, const struct process_filter *filter, size_t keep,
		      struct row_table *out)
{
	size_t nr = 0;

	out->nr = 0;
	/* First pass: every row's activity, from all its threads' deltas, and its sums when
	 * every row is wanted (snapshot_sort() put each row's threads together). */
	for (size_t i = 0; i < now->nr_order;) {
		const struct thread_delta *head = &now->threads[now->order[i].at];
		size_t first = i;
		struct fs_totals sum;
		struct counters_growth grew;
		struct process_candidate *c;
		char comm[FS_COMM_LEN];

		while (i < now->nr_order &&
		       row_key_eq(&now->threads[now->order[i].at].row, &head->row))
			i++;
		grew = sum_threads(now, first, i, keep ? NULL : &sum);
		if (!grew.events)
			continue;
		memcpy(comm, process_name(now, first, i), FS_COMM_LEN);
		if (!process_selected(filter, head->key >> 32, head->start, comm))
			continue;
		c = candidate_push(out, nr);
		if (!c)
			return -ENOMEM;
		nr++;
		memcpy(c->comm, comm, FS_COMM_LEN);
		c->cgroup = process_cgroup(now, first, i);
		c->key = head->row;
		c->events = grew.activity;
		c->first = first;
		c->end = i;
		if (!keep) {
			struct row *row = row_for(out, c);

			if (!row)
				return -ENOMEM;
			row->totals = sum;
		}
	}
	if (window_procs(now, filter, out, &nr))
		return -ENOMEM;
	out->nr_active = nr;
	if (!keep) {
		/* Rows for processes with only process-level figures. */
		size_t r = 0, nr_rows = out->nr;

		for (size_t k = 0; k < nr; k++) {
			const struct process_candidate *c = &out->candidates[k];

			while (r < nr_rows && row_key_cmp(&out->rows[r].key, &c->key) < 0)
				r++;
			if (r < nr_rows && row_key_eq(&out->rows[r].key, &c->key)) {
				out->rows[r].events = out->candidates[k].events;
				continue;
			}
			if (!row_for(out, &out->candidates[k]))
				return -ENOMEM;
		}
		if (out->nr > nr_rows)
			qsort(out->rows, out->nr, sizeof(*out->rows), compare_row_ids);
		return 0;
	}
	/* Second pass, only for the most active: their sums, made again. */
	select_most_active(out->candidates, nr, keep);
	for (size_t k = 0; k < nr && k < keep; k++) {
		const struct process_candidate *c = &out->candidates[k];
		struct row *row = row_for(out, c);

		if (!row)
			return -ENOMEM;
		if (c->end > c->first)
			sum_threads(now, c->first, c->end, &row->totals);
	}
	qsort(out->rows, out->nr, sizeof(*out->rows), compare_row_ids);
	return 0;
}

/* The order of two process figures: their rows'. */
static int compare_procs(const struct row_proc_totals *a, const struct row_proc_totals *b)
{
	return row_key_cmp(&a->key, &b->key);
}

/* merged->procs = acc->procs + add->procs, both sorted by key. */
static int accumulate_procs(struct row_table *merged, const struct row_table *acc,
			    const struct row_table *add)
{
	size_t a = 0, b = 0;

	while (a < acc->nr_procs || b < add->nr_procs) {
		struct row_proc_totals *row = proc_push(merged);

		if (!row)
			return -ENOMEM;
		if (b == add->nr_procs ||
		    (a < acc->nr_procs && compare_procs(&acc->procs[a], &add->procs[b]) < 0)) {
			*row = acc->procs[a++];
		} else if (a == acc->nr_procs ||
			   compare_procs(&add->procs[b], &acc->procs[a]) < 0) {
			*row = add->procs[b++];
		} else {
			*row = acc->procs[a++];
			words_add((__u64 *)&row->totals, (const __u64 *)&add->procs[b++].totals,
				  FS_WORDS(row->totals));
		}
	}
	return 0;
}

int row_compare_activity(const void *a, const void *b)
{
	const struct row *ra = a, *rb = b;

	if (outranks(ra->events, &ra->key, rb->events, &rb->key))
		return -1;
	return outranks(rb->events, &rb->key, ra->events, &ra->key);
}

/* Keep the `keep` most active rows (and their process-level figures), sorted by key. */
static void drop_least_active(struct row_table *t, size_t keep)
{
	size_t kept = 0;

	qsort(t->rows, t->nr, sizeof(*t->rows), row_compare_activity);
	t->nr_dropped += t->nr - keep;
	t->nr = keep;
	qsort(t->rows, t->nr, sizeof(*t->rows), compare_row_ids);
	for (size_t i = 0; i < t->nr_procs; i++) {
		struct row key = {.key = t->procs[i].key};

		if (bsearch(&key, t->rows, t->nr, sizeof(*t->rows), compare_row_ids))
			t->procs[kept++] = t->procs[i];
	}
	t->nr_procs = kept;
}

/*
 * acc->rows += add->rows in place: room is made at the end of acc for the processes new to it,
 * and the two lists (sorted by key) are merged from the back, so no second table of
 * all the rows is ever built. A process that took an exited one's pid is another row.
 */
static int accumulate_rows(struct row_table *acc, const struct row_table *add)
{
	size_t common = 0, a = 0, b = 0, total, at;

	while (a < acc->nr && b < add->nr) {
		int cmp = compare_row_ids(&acc->rows[a], &add->rows[b]);

		if (!cmp)
			common++, a++, b++;
		else if (cmp < 0)
			a++;
		else
			b++;
	}
	total = acc->nr + add->nr - common;
	if (array_reserve(&acc->rows, &acc->cap, acc->nr, total - acc->nr, sizeof(*acc->rows)))
		return -ENOMEM;
	a = acc->nr;
	b = add->nr;
	at = total;
	while (b > 0) {
		const struct row *from = &add->rows[b - 1];
		struct row *to = &acc->rows[--at];

		int cmp = a > 0 ? compare_row_ids(&acc->rows[a - 1], from) : -1;

		if (cmp > 0) {
			*to = acc->rows[--a];
		} else if (cmp == 0) {
			/* Same process in both: sum, and keep the newer name (exec renames) and
			 * cgroup (a move). */
			*to = acc->rows[--a];
			totals_add_totals(&to->totals, &from->totals);
			to->events += from->events;
			memcpy(to->comm, from->comm, FS_COMM_LEN);
			to->cgroup = from->cgroup;
			b--;
		} else {
			*to = *from;
			b--;
		}
	}
	/* What is left of acc is already in place. */
	acc->nr = total;
	return 0;
}

int row_table_accumulate(struct row_table *acc, const struct row_table *add, size_t limit)
{
	struct row_table procs = {0};

	/* Procs first: they only read acc, whose rows the second step changes in place, so a
	 * failure leaves acc as it was. */
	if (accumulate_procs(&procs, acc, add) || accumulate_rows(acc, add)) {
		free(procs.procs);
		return -ENOMEM;
	}
	free(acc->procs);
	acc->procs = procs.procs;
	acc->nr_procs = procs.nr_procs;
	acc->cap_procs = procs.cap_procs;
	if (limit && acc->nr > limit) {
		drop_least_active(acc, limit - limit / 4);
		/* Give back all the room the drop freed: growth doubles, and a table that has
		 * filled once would otherwise keep twice its bound for good. */
		array_resize(&acc->rows, &acc->cap, acc->nr,
			     sizeof(*acc->rows)); /* may fail: kept */
	}
	acc->nr_active = acc->nr + acc->nr_dropped;
	row_table_shrink(acc);
	return 0;
}

bool row_table_shrink(struct row_table *table)
{
	bool shrank;

	shrank = array_shrink(&table->rows, &table->cap, table->nr, sizeof(*table->rows));
	shrank |=
	    array_shrink(&table->procs, &table->cap_procs, table->nr_procs, sizeof(*table->procs));
	shrank |= array_shrink(&table->candidates, &table->cap_candidates, table->nr_active,
			       sizeof(*table->candidates));
	return shrank;
}

void row_table_free(struct row_table *table)
{
	free(table->rows);
	free(table->procs);
	free(table->candidates);
	memset(table, 0, sizeof(*table));
}
