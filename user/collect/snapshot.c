// SPDX-License-Identifier: GPL-2.0
/* Reading the BPF maps (see snapshot.h). The tables are read in place through their mappings;
 * the per-CPU map with one lookup for all CPUs. */
#define _GNU_SOURCE /* qsort_r */
#include "snapshot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "array.h"

/* Room for one more thread delta, not yet counted in: NULL without memory. */
static struct thread_delta *thread_delta_next(struct snapshot *snap)
{
	if (array_reserve_one(&snap->threads, &snap->cap_threads, snap->nr_threads,
			      sizeof(*snap->threads)) ||
	    array_reserve_one(&snap->order, &snap->cap_order, snap->nr_order, sizeof(*snap->order)))
		return NULL;
	return &snap->threads[snap->nr_threads];
}

/* Count in the delta thread_delta_next() gave, its counts already in place. */
static void thread_delta_commit(struct snapshot *snap, const struct fs_entry_head *head, bool late,
				struct counters_growth grew)
{
	struct thread_delta *d = &snap->threads[snap->nr_threads];

	d->key = head->key;
	d->row = process_key(head->key >> 32, head->start);
	memcpy(d->comm, head->comm, FS_COMM_LEN);
	d->comm[FS_COMM_LEN - 1] = '\0';
	d->cgroup = head->cgroup;
	d->start = head->start;
	d->exited = head->exited;
	d->late = late;
	snap->order[snap->nr_order++] =
	    (struct thread_ref){.key = head->key, .at = snap->nr_threads, .grew = grew};
	snap->nr_threads++;
}

int snapshot_append(struct snapshot *snap, const struct fs_entry_head *head, bool late,
		    const struct fs_counters *counts)
{
	struct thread_delta *d = thread_delta_next(snap);

	if (!d)
		return -ENOMEM;
	d->counts = *counts;
	thread_delta_commit(snap, head, late, counters_growth_of(counts));
	return 0;
}

int snapshot_append_proc(struct snapshot *snap, const struct fs_entry_head *head, bool late,
			 const struct fs_proc_counters *counts)
{
	struct proc_delta *d;

	if (array_reserve_one(&snap->procs, &snap->cap_procs, snap->nr_procs, sizeof(*snap->procs)))
		return -ENOMEM;
	d = &snap->procs[snap->nr_procs++];
	d->tgid = (__u32)head->key;
	d->start = head->start;
	d->row = process_key(d->tgid, d->start);
	d->late = late;
	d->cgroup = head->cgroup;
	memcpy(d->comm, head->comm, FS_COMM_LEN);
	d->comm[FS_COMM_LEN - 1] = '\0';
	d->counts = *counts;
	return 0;
}

int snapshot_append_node(struct snapshot *snap, const struct fs_entry_head *head, bool late,
			     int node, int order, __u64 folios)
{
	struct node_delta *d;

	if (array_reserve_one(&snap->nodes, &snap->cap_nodes, snap->nr_nodes, sizeof(*snap->nodes)))
		return -ENOMEM;
	d = &snap->nodes[snap->nr_nodes++];
	*d = (struct node_delta){.tgid = head->key >> 32, .late = late, .node = (__u8)node,
				 .order = (__u8)order, .start = head->start, .cgroup = head->cgroup,
				 .folios = folios};
	d->row = process_key(d->tgid, d->start);
	memcpy(d->comm, head->comm, FS_COMM_LEN);
	d->comm[FS_COMM_LEN - 1] = '\0';
	return 0;
}

static int compare_refs(const void *a, const void *b)
{
	__u64 ka = ((const struct thread_ref *)a)->key, kb = ((const struct thread_ref *)b)->key;

	return ka < kb ? -1 : ka > kb;
}

static int compare_procs(const void *a, const void *b)
{
	return row_key_cmp(&((const struct proc_delta *)a)->row,
			   &((const struct proc_delta *)b)->row);
}

static int compare_nodes(const void *a, const void *b)
{
	return row_key_cmp(&((const struct node_delta *)a)->row,
			   &((const struct node_delta *)b)->row);
}

/* Threads of one row's hi by their row's lo, then by key (see separate_rows()). */
static int compare_refs_by_row(const void *a, const void *b, void *ctx)
{
	const struct thread_ref *ra = a, *rb = b;
	const struct snapshot *snap = ctx;
	int cmp = row_key_cmp(&snap->threads[ra->at].row, &snap->threads[rb->at].row);

	return cmp ? cmp : compare_refs(a, b);
}

/*
 * Refs sorted by key have each row's threads together where the key tells rows apart; where it
 * does not, the rows that share a key's run are put one after the other, in row order. A pid
 * reused within a read gives two processes' threads one tgid (the exited one's late or last
 * counts and the new one's): the older's come first, and the window makes a row of each. Two
 * names alike in their first 8 bytes share a run too. A pass over refs already in key order;
 * a run of one row (nearly all) is left as it is.
 */
static void separate_rows(struct snapshot *snap)
{
	struct thread_ref *refs = snap->order;

	for (size_t i = 0; i < snap->nr_order;) {
		const struct row_key *row = &snap->threads[refs[i].at].row;
		size_t first = i;
		bool mixed = false;

		for (i++; i < snap->nr_order && snap->threads[refs[i].at].row.hi == row->hi; i++)
			mixed |= snap->threads[refs[i].at].row.lo != row->lo;
		if (mixed)
			qsort_r(&refs[first], i - first, sizeof(*refs), compare_refs_by_row, snap);
	}
}

/*
 * Order the refs by key: a radix sort, a byte at a time from the lowest, skipping bytes that
 * every key shares (most of them: pids are small). The tables give their entries in index
 * order, and a comparison sort of 10,000 keys costs several times more. The second buffer
 * stays from read to read (a fresh one each second would be fresh pages to fault in). Falls back
 * to qsort() when there is no memory for it.
 */
static void sort_refs(struct thread_ref *refs, size_t n, struct thread_ref **space, size_t *cap)
{
	struct thread_ref *other, *from = refs, *to;
	__u64 varying = 0;
	size_t sorted = 1;

	/* Often there is nothing to do: a table filled in fork order gives its entries by pid. */
	while (sorted < n && refs[sorted - 1].key <= refs[sorted].key)
		sorted++;
	if (sorted >= n)
		return;
	if (array_reserve(space, cap, 0, n, sizeof(**space))) {
		qsort(refs, n, sizeof(*refs), compare_refs);
		return;
	}
	other = to = *space;
	for (size_t i = 1; i < n; i++)
		varying |= refs[i].key ^ refs[0].key;
	for (int shift = 0; shift < 64; shift += 8) {
		size_t at[256] = {0}, sum = 0;

		if (!((varying >> shift) & 0xff))
			continue;
		for (size_t i = 0; i < n; i++)
			at[(from[i].key >> shift) & 0xff]++;
		for (int d = 0; d < 256; d++) {
			size_t count = at[d];

			at[d] = sum;
			sum += count;
		}
		for (size_t i = 0; i < n; i++)
			to[at[(from[i].key >> shift) & 0xff]++] = from[i];
		from = to;
		to = from == refs ? other : refs;
	}
	if (from != refs)
		memcpy(refs, from, n * sizeof(*refs));
}

void snapshot_sort(struct snapshot *snap)
{
	sort_refs(snap->order, snap->nr_order, &snap->sort_space, &snap->cap_sort_space);
	separate_rows(snap);
	qsort(snap->procs, snap->nr_procs, sizeof(*snap->procs), compare_procs);
	qsort(snap->nodes, snap->nr_nodes, sizeof(*snap->nodes), compare_nodes);
}

bool snapshot_shrink(struct snapshot *snap)
{
	bool shrank;

	shrank = array_shrink(&snap->threads, &snap->cap_threads, snap->nr_threads,
			      sizeof(*snap->threads));
	shrank |=
	    array_shrink(&snap->order, &snap->cap_order, snap->nr_order, sizeof(*snap->order));
	shrank |= array_shrink(&snap->sort_space, &snap->cap_sort_space, snap->nr_order,
			       sizeof(*snap->sort_space));
	shrank |=
	    array_shrink(&snap->procs, &snap->cap_procs, snap->nr_procs, sizeof(*snap->procs));
	shrank |=
	    array_shrink(&snap->nodes, &snap->cap_nodes, snap->nr_nodes, sizeof(*snap->nodes));
	return shrank;
}

bool reader_shrink(struct reader *r)
{
	bool shrank = table_shrink(&r->tasks);

	shrank |= table_shrink(&r->procs);
	return shrank;
}

void snapshot_free(struct snapshot *snap)
{
	free(snap->threads);
	free(snap->order);
	free(snap->sort_space);
	free(snap->procs);
	free(snap->nodes);
	memset(snap, 0, sizeof(*snap));
}

/* An unlinked thread entry's table, for its late counts. */
struct late_reads {
	struct snapshot *snap;
	const struct table *t;
};

/* A thread's allocations by node and order over a read (its side entry's growth, see struct
 * fs_node_orders), into the snapshot as its process's figures if it made any, and into the
 * system's. */
static int add_thread_nodes(struct snapshot *snap, const struct fs_entry_head *head, bool late,
			    struct fs_node_orders *last, const struct fs_node_orders *now)
{
	__u64 orders[FS_MAX_NODES][FS_NR_ORDERS];
	int err = 0;

	if (!node_orders_read_delta(orders, last, now))
		return 0;
	words_add((__u64 *)snap->system.alloc_by_node_order, (const __u64 *)orders,
		  FS_WORDS(orders));
	for (int node = 0; node < FS_MAX_NODES; node++)
		for (int order = 0; order < FS_NR_ORDERS && !err; order++)
			if (orders[node][order])
				err = snapshot_append_node(snap, head, late, node, order,
							orders[node][order]);
	return err;
}

/* What reached an unlinked thread entry after the read that last reported it, into the snapshot
 * if anything did (its side's too, where the table has one). */
static int add_late_thread(void *ctx, __u32 index, const void *now_entry, const void *then_entry)
{
	const struct fs_task *now = now_entry, *then = then_entry;
	const struct late_reads *late = ctx;
	struct fs_counters delta;
	int err = 0;

	(void)index;
	if (late->t->side_size) {
		struct fs_node_orders then_side;

		memcpy(&then_side, (const unsigned char *)then + late->t->value_size,
		       sizeof(then_side));
		err = add_thread_nodes(late->snap, &now->head, true, &then_side,
				       (const void *)((const unsigned char *)now +
						      late->t->value_size));
	}
	if (err || !counters_delta(&delta, &now->counters, &then->counters).events)
		return err;
	totals_add(&late->snap->system.total, &delta);
	return snapshot_append(late->snap, &now->head, true, &delta);
}

/*
 * The system's process-level figures (collapse outcomes, stalls, the pages reclaimed in them,
 * compaction by order) are each CPU's part, what no process entry holds, plus the processes':
 * both from the same read, so that the groups add up to the system at every read. (Counted
 * twice in BPF, the system's and a process's copies of one stall could fall in different
 * reads: a group then had a stall the system had not yet, and the exporter's other group got it
 * again at the next read.)
 */
static void system_add_proc(struct system_totals *system, const struct fs_proc_counters *delta)
{
	words_add((__u64 *)&system->thp, (const __u64 *)&delta->thp, FS_WORDS(system->thp));
	words_add((__u64 *)system->stalls, (const __u64 *)delta->stalls,
		  FS_NR_STALLS * FS_WORDS(system->stalls[0]));
	words_add(system->reclaimed, delta->reclaimed, FS_NR_STALLS);
	words_add((__u64 *)&system->compaction_by_order, (const __u64 *)&delta->compaction_by_order,
		  FS_WORDS(system->compaction_by_order));
}

/* A process entry's growth between two copies of it, into the snapshot if it grew. */
static int add_proc(struct snapshot *snap, const struct fs_proc *now, const struct fs_proc *then,
		    bool late, bool *grew)
{
	struct fs_proc_counters delta;

	words_delta((__u64 *)&delta, (const __u64 *)&now->counters, (const __u64 *)&then->counters,
		    FS_WORDS(delta));
	*grew = words_sum((const __u64 *)&delta, FS_WORDS(delta)) != 0;
	if (!*grew)
		return 0;
	system_add_proc(&snap->system, &delta);
	return snapshot_append_proc(snap, &now->head, late, &delta);
}

static int add_late_proc(void *ctx, __u32 index, const void *now, const void *then)
{
	bool grew;

	(void)index;
	return add_proc(ctx, now, then, true, &grew);
}

/* Every live thread entry's growth since the last read. An entry is unlinked once it has been
 * reported exited, or had nothing to report: the table holds the threads active within a read. */
int snapshot_add_threads(struct snapshot *snap, struct table *t)
{
	struct late_reads late = {.snap = snap, .t = t};
	int err = table_read_unlinked(t, add_late_thread, &late);

	if (!err)
		err = table_add_taken(t);
	for (size_t i = 0; !err && i < t->nr_live; i++) {
		const struct fs_task *entry = (const struct fs_task *)table_head(t, t->live[i]);
		struct fs_task *last = table_last(t, i);
		struct thread_delta *d = thread_delta_next(snap);
		struct counters_growth grew;

		if (!d) {
			err = -ENOMEM;
			break;
		}
		/* The entries lie in index order, each a few cache lines: fetch ahead. */
		if (i + 4 < t->nr_live)
			__builtin_prefetch(table_head(t, t->live[i + 4]));
		/* The growth goes straight into the snapshot's next delta, counted in only if
		 * the thread did anything. */
		table_copy_head(t, t->live[i], &last->head);
		grew = counters_read_delta(&d->counts, &last->counters, entry, &snap->system.total);
		if (grew.events)
			thread_delta_commit(snap, &last->head, false, grew);
		if (t->side_size)
			err = add_thread_nodes(snap, &last->head, false,
					       (void *)((unsigned char *)last + t->value_size),
					       table_side(t, t->live[i]));
		if (last->head.exited || !grew.events)
			table_mark_unlink(t, i);
	}
	return err ? err : table_unlink_marked(t);
}

int snapshot_add_procs(struct snapshot *snap, struct table *t)
{
	struct fs_proc now;
	int err = table_read_unlinked(t, add_late_proc, snap);

	if (!err)
		err = table_add_taken(t);
	for (size_t i = 0; !err && i < t->nr_live; i++) {
		struct fs_proc *last = table_last(t, i);
		bool grew;

		table_copy(t, t->live[i], &now);
		err = add_proc(snap, &now, last, false, &grew);
		*last = now;
		/* Retired by a move (BPF unlinked it): freed once reported, as a thread's. */
		if (!grew || now.head.exited)
			table_mark_unlink(t, i);
	}
	return err ? err : table_unlink_marked(t);
}

/* The system-only figures, after the counter groups: 64-bit words in both layouts. */
#define SYSTEM_TAIL_WORDS ((sizeof(struct fs_cpu) - offsetof(struct fs_cpu, freed)) / 8)
_Static_assert(sizeof(struct system_totals) - offsetof(struct system_totals, freed) ==
		   sizeof(struct fs_cpu) - offsetof(struct fs_cpu, freed),
	       "the system-only figures differ between struct fs_cpu and struct system_totals");

void system_add_cpu_growth(struct system_totals *system, const struct fs_cpu *now,
			   const struct fs_cpu *last)
{
	const __u64 *n = (const __u64 *)&now->freed, *l = (const __u64 *)&last->freed;
	__u64 *t = (__u64 *)&system->freed;

	totals_add_growth(&system->interrupt, &now->interrupt, &last->interrupt);
	totals_add_growth(&system->untracked, &now->untracked, &last->untracked);
	totals_add_growth(&system->total, &now->interrupt, &last->interrupt);
	totals_add_growth(&system->total, &now->untracked, &last->untracked);
	/* Outside the selection: in the host's figures, in no process row. */
	totals_add_growth(&system->unselected, &now->unselected, &last->unselected);
	totals_add_growth(&system->total, &now->unselected, &last->unselected);
	for (size_t i = 0; i < SYSTEM_TAIL_WORDS; i++)
		t[i] += n[i] - l[i];
}

static int read_cpus(struct snapshot *snap, struct reader *r)
{
	__u32 zero = 0;

	if (bpf_map_lookup_elem(r->cpus_fd, &zero, r->cpus_now))
		return -errno;
	for (int cpu = 0; cpu < r->nr_cpus; cpu++) {
		system_add_cpu_growth(&snap->system, &r->cpus_now[cpu], &r->cpus_last[cpu]);
		r->cpus_last[cpu] = r->cpus_now[cpu];
	}
	return 0;
}

int reader_init_cpus(struct reader *r, int cpus_fd, int nr_cpus)
{
	r->cpus_fd = cpus_fd;
	r->nr_cpus = nr_cpus;
	r->cpus_now = calloc(nr_cpus, sizeof(*r->cpus_now));
	r->cpus_last = calloc(nr_cpus, sizeof(*r->cpus_last));
	return r->cpus_now && r->cpus_last ? 0 : -ENOMEM;
}

void reader_close(struct reader *r)
{
	table_close(&r->tasks);
	table_close(&r->procs);
	free(r->cpus_now);
	free(r->cpus_last);
	memset(r, 0, sizeof(*r));
}

int snapshot_read(struct snapshot *snap, struct reader *r)
{
	int err;

	snap->nr_threads = snap->nr_order = snap->nr_procs = snap->nr_nodes = 0;
	memset(&snap->system, 0, sizeof(snap->system));
	err = snapshot_add_threads(snap, &r->tasks);
	if (!err)
		err = snapshot_add_procs(snap, &r->procs);
	if (!err)
		err = read_cpus(snap, r);
	if (!err)
		snapshot_sort(snap);
	return err;
}
