// SPDX-License-Identifier: GPL-2.0
/* Reading the BPF maps. The task table is read with batched lookups, a few syscalls for the
 * whole table, falling back to one key at a time on kernels without batch support. */
#include "snapshot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "array.h"
#include "counters.h"

#define BATCH_CHUNK 1024

/* An order entry for the sample just placed at `index`. */
static int push_ref(struct snapshot *snap, __u64 key, size_t index, bool carried)
{
	if (array_reserve_one(&snap->order, &snap->cap_order, snap->nr_order, sizeof(*snap->order)))
		return -ENOMEM;
	snap->order[snap->nr_order++] =
	    (struct task_ref){.key = key, .index = (__u32)index, .carried = carried};
	return 0;
}

/* Room for `more` samples in keys[] and tasks[]. */
static int reserve_samples(struct snapshot *snap, size_t more)
{
	if (array_reserve(&snap->keys, &snap->cap_keys, snap->nr_tasks, more,
			  sizeof(*snap->keys)) ||
	    array_reserve(&snap->tasks, &snap->cap_tasks, snap->nr_tasks, more,
			  sizeof(*snap->tasks)))
		return -ENOMEM;
	return 0;
}

static int append_sample(struct snapshot *snap, __u64 key, const struct fs_task *task, bool carried)
{
	if (reserve_samples(snap, 1) || push_ref(snap, key, snap->nr_tasks, carried))
		return -ENOMEM;
	snap->keys[snap->nr_tasks] = key;
	snap->tasks[snap->nr_tasks] = *task;
	snap->nr_tasks++;
	return 0;
}

int snapshot_append(struct snapshot *snap, __u64 key, const struct fs_task *task)
{
	return append_sample(snap, key, task, false);
}

int snapshot_append_proc(struct snapshot *snap, __u32 tgid, const struct fs_proc *proc)
{
	if (array_reserve_one(&snap->procs, &snap->cap_procs, snap->nr_procs, sizeof(*snap->procs)))
		return -ENOMEM;
	snap->procs[snap->nr_procs].tgid = tgid;
	snap->procs[snap->nr_procs].evict = false;
	snap->procs[snap->nr_procs].carried = false;
	snap->procs[snap->nr_procs].proc = *proc;
	snap->nr_procs++;
	return 0;
}

static int compare_proc_tgids(const void *a, const void *b)
{
	__u32 ta = ((const struct proc_sample *)a)->tgid,
	      tb = ((const struct proc_sample *)b)->tgid;

	return ta < tb ? -1 : ta > tb;
}

static int compare_refs(const void *a, const void *b)
{
	__u64 ka = ((const struct task_ref *)a)->key, kb = ((const struct task_ref *)b)->key;

	return ka < kb ? -1 : ka > kb;
}

/*
 * Order the refs by key: a radix sort, a byte at a time from the lowest, skipping bytes that
 * every key shares (most of them: pids are small). Each read is sorted afresh, since the table
 * gives its entries in hash order, and a comparison sort of 10,000 keys costs several times
 * more. Falls back to qsort() when there is no memory for the second buffer.
 */
static void sort_refs(struct task_ref *refs, size_t n)
{
	struct task_ref *other = malloc(n * sizeof(*refs)), *from = refs, *to = other;
	__u64 varying = 0;

	if (!other) {
		qsort(refs, n, sizeof(*refs), compare_refs);
		return;
	}
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
	free(other);
}

void snapshot_sort(struct snapshot *snap)
{
	sort_refs(snap->order, snap->nr_order);
	qsort(snap->procs, snap->nr_procs, sizeof(*snap->procs), compare_proc_tgids);
}

int snapshot_absorb(struct snapshot *snap, struct snapshot *carry)
{
	if (!carry->nr_tasks && !carry->nr_procs)
		return 0; /* the usual case: snap is sorted already */
	for (size_t i = 0; i < carry->nr_tasks; i++)
		if (append_sample(snap, carry->keys[i], &carry->tasks[i], true))
			return -ENOMEM;
	for (size_t i = 0; i < carry->nr_procs; i++) {
		if (snapshot_append_proc(snap, carry->procs[i].tgid, &carry->procs[i].proc))
			return -ENOMEM;
		snap->procs[snap->nr_procs - 1].carried = true;
	}
	carry->nr_tasks = 0;
	carry->nr_order = 0;
	carry->nr_procs = 0;
	snapshot_sort(snap);
	return 0;
}

void snapshot_drop_evicted(struct snapshot *snap)
{
	size_t kept = 0;

	/* The samples stay where they are until the next read refills the arrays. */
	for (size_t i = 0; i < snap->nr_order; i++)
		if (!snap->order[i].evict)
			snap->order[kept++] = snap->order[i];
	snap->nr_order = kept;
	kept = 0;
	for (size_t i = 0; i < snap->nr_procs; i++)
		if (!snap->procs[i].evict)
			snap->procs[kept++] = snap->procs[i];
	snap->nr_procs = kept;
}

void snapshot_shrink(struct snapshot *snap)
{
	array_shrink(&snap->keys, &snap->cap_keys, snap->nr_tasks, sizeof(*snap->keys));
	array_shrink(&snap->tasks, &snap->cap_tasks, snap->nr_tasks, sizeof(*snap->tasks));
	array_shrink(&snap->order, &snap->cap_order, snap->nr_order, sizeof(*snap->order));
	array_shrink(&snap->procs, &snap->cap_procs, snap->nr_procs, sizeof(*snap->procs));
}

void snapshot_free(struct snapshot *snap)
{
	free(snap->slotted);
	free(snap->keys);
	free(snap->tasks);
	free(snap->order);
	free(snap->procs);
	memset(snap, 0, sizeof(*snap));
}

/* Read the task table, BATCH_CHUNK entries per syscall, straight into keys[] and tasks[]. */
static int read_tasks_batched(struct snapshot *snap, int fd)
{
	__u64 cursor = 0;
	bool first = true;

	for (;;) {
		__u32 count = BATCH_CHUNK;
		size_t at = snap->nr_tasks;
		int err;

		if (reserve_samples(snap, BATCH_CHUNK))
			return -ENOMEM;
		err = bpf_map_lookup_batch(fd, first ? NULL : &cursor, &cursor, snap->keys + at,
					   snap->tasks + at, &count, NULL);
		if (err && errno != ENOENT)
			return -errno;
		for (__u32 i = 0; i < count; i++)
			if (push_ref(snap, snap->keys[at + i], at + i, false))
				return -ENOMEM;
		snap->nr_tasks += count;
		if (err) /* ENOENT: the table has been read to its end */
			return 0;
		first = false;
	}
}

/* Read the process table (small: only processes with collapses or stalls), batched. */
static int read_procs_batched(struct snapshot *snap, int fd)
{
	static __u32 keys[BATCH_CHUNK / 16];
	static struct fs_proc values[BATCH_CHUNK / 16];
	__u32 cursor = 0;
	bool first = true;

	for (;;) {
		__u32 count = BATCH_CHUNK / 16;
		int err = bpf_map_lookup_batch(fd, first ? NULL : &cursor, &cursor, keys, values,
					       &count, NULL);

		if (err && errno != ENOENT)
			return -errno;
		for (__u32 i = 0; i < count; i++)
			if (snapshot_append_proc(snap, keys[i], &values[i]))
				return -ENOMEM;
		if (err)
			return 0;
		first = false;
	}
}

/* Both tables one key at a time, for kernels without batch operations on hash maps. */
static int read_one_by_one(struct snapshot *snap, int fd, bool tasks)
{
	static char value[sizeof(struct fs_proc) > sizeof(struct fs_task) ? sizeof(struct fs_proc)
									  : sizeof(struct fs_task)];
	__u64 key = 0, next = 0;
	bool first = true;

	while (bpf_map_get_next_key(fd, first ? NULL : &key, &next) == 0) {
		if (bpf_map_lookup_elem(fd, &next, value) == 0 &&
		    (tasks
			 ? snapshot_append(snap, next, (const struct fs_task *)value)
			 : snapshot_append_proc(snap, (__u32)next, (const struct fs_proc *)value)))
			return -ENOMEM;
		key = next;
		first = false;
	}
	return 0;
}

static bool batch_unsupported(int err)
{
	return err == -EINVAL || err == -ENOTSUP || err == -EOPNOTSUPP;
}

static int read_tables(struct snapshot *snap, int tasks_fd, int procs_fd)
{
	int err = read_tasks_batched(snap, tasks_fd);

	if (batch_unsupported(err)) {
		snap->nr_tasks = snap->nr_order = 0;
		err = read_one_by_one(snap, tasks_fd, true);
	}
	if (err)
		return err;
	err = read_procs_batched(snap, procs_fd);
	if (batch_unsupported(err)) {
		snap->nr_procs = 0;
		err = read_one_by_one(snap, procs_fd, false);
	}
	return err;
}

int cpu_sums_init(struct cpu_sums *sums, int nr_cpus)
{
	memset(sums, 0, sizeof(*sums));
	sums->nr_cpus = nr_cpus;
	sums->read = calloc(nr_cpus, sizeof(*sums->read));
	sums->last = calloc(nr_cpus, sizeof(*sums->last));
	if (!sums->read || !sums->last) {
		cpu_sums_free(sums);
		return -ENOMEM;
	}
	return 0;
}

void cpu_sums_free(struct cpu_sums *sums)
{
	free(sums->read);
	free(sums->last);
	memset(sums, 0, sizeof(*sums));
}

/* The 64-bit words of the system figures after the counter groups: the same in both layouts. */
#define SYSTEM_TAIL_WORDS ((sizeof(struct fs_system) - offsetof(struct fs_system, freed)) / 8)
_Static_assert(sizeof(struct system_totals) - offsetof(struct system_totals, freed) ==
		   sizeof(struct fs_system) - offsetof(struct fs_system, freed),
	       "system figures after the counter groups differ");

/* totals += what CPU's figures grew by since `last`; last = now. */
static void add_system_growth(struct system_totals *totals, struct fs_system *last,
			      const struct fs_system *now)
{
	const __u64 *n = (const __u64 *)&now->freed;
	__u64 *l = (__u64 *)&last->freed, *t = (__u64 *)&totals->freed;

	totals_add_growth(&totals->total, &now->total, &last->total);
	totals_add_growth(&totals->interrupt, &now->interrupt, &last->interrupt);
	totals_add_growth(&totals->untracked, &now->untracked, &last->untracked);
	for (size_t i = 0; i < SYSTEM_TAIL_WORDS; i++)
		t[i] += n[i] - l[i];
	*last = *now;
}

/* Read the per-CPU map: each CPU's slot, and (when `system` is given) the system figures'
 * growth into sums->totals, a copy of which goes to *system. */
static int read_cpus(int fd, struct cpu_sums *sums, struct system_totals *system,
		     struct slot_sample *slots)
{
	__u32 zero = 0;

	if (bpf_map_lookup_elem(fd, &zero, sums->read))
		return -errno;
	for (int cpu = 0; cpu < sums->nr_cpus; cpu++) {
		const struct fs_cpu *c = &sums->read[cpu];

		if (system)
			add_system_growth(&sums->totals, &sums->last[cpu], &c->system);
		slots[cpu].seq = c->slot_seq;
		slots[cpu].owned = c->slot_owner != FS_NO_OWNER;
		slots[cpu].key = c->slot_owner - 1;
		memcpy(slots[cpu].comm, c->slot_comm, FS_COMM_LEN);
		slots[cpu].counters = c->slot;
	}
	if (system)
		*system = sums->totals;
	return 0;
}

static int compare_key_to_ref(const void *key, const void *ref)
{
	__u64 k = *(const __u64 *)key, r = ((const struct task_ref *)ref)->key;

	return k < r ? -1 : k > r;
}

bool snapshot_slotted(const struct snapshot *snap, __u64 key)
{
	for (size_t i = 0; i < snap->nr_slotted; i++)
		if (snap->slotted[i] == key)
			return true;
	return false;
}

/*
 * A slot read the same (same even seq) before and after the tables were read was not moved in
 * between: its counts are not in the entry we read, so they add to it. A slot that changed is
 * left out: its counts are in the entry or will be, and show next time.
 */
int snapshot_add_slots(struct snapshot *snap, const struct slot_sample *first,
		       const struct slot_sample *second, int nr_cpus)
{
	size_t sorted = snap->nr_order;
	bool appended = false;

	snap->nr_slotted = 0;
	if (snap->cap_slotted < (size_t)nr_cpus) {
		__u64 *grown = realloc(snap->slotted, nr_cpus * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		snap->slotted = grown;
		snap->cap_slotted = nr_cpus;
	}
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		const struct slot_sample *slot = &first[cpu];
		struct task_ref *ref;

		if (!slot->owned || slot->seq % 2 || slot->seq != second[cpu].seq)
			continue;
		snap->slotted[snap->nr_slotted++] = slot->key;
		ref = bsearch(&slot->key, snap->order, sorted, sizeof(*snap->order),
			      compare_key_to_ref);
		if (ref) {
			counters_add(&ref_task(snap, ref)->counters, &slot->counters);
		} else {
			struct fs_task task = {0};

			memcpy(task.comm, slot->comm, FS_COMM_LEN);
			task.counters = slot->counters;
			if (snapshot_append(snap, slot->key, &task))
				return -ENOMEM;
			appended = true;
		}
	}
	if (appended)
		snapshot_sort(snap);
	return 0;
}

int snapshot_read(struct snapshot *snap, int tasks_fd, int procs_fd, int cpus_fd,
		  struct cpu_sums *sums)
{
	int nr_cpus = sums->nr_cpus;
	struct slot_sample *slots = calloc(2 * nr_cpus, sizeof(*slots));
	int err;

	if (!slots)
		return -ENOMEM;
	snap->nr_tasks = 0;
	snap->nr_order = 0;
	snap->nr_procs = 0;
	/* Slots before and after the tables (see snapshot_add_slots()). */
	err = read_cpus(cpus_fd, sums, NULL, slots);
	if (!err)
		err = read_tables(snap, tasks_fd, procs_fd);
	if (!err)
		err = read_cpus(cpus_fd, sums, &snap->system, slots + nr_cpus);
	if (!err) {
		snapshot_sort(snap);
		err = snapshot_add_slots(snap, slots, slots + nr_cpus, nr_cpus);
	}
	free(slots);
	return err;
}
