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

int snapshot_append(struct snapshot *snap, __u64 key, const struct fs_task *task)
{
	if (array_reserve_one(&snap->tasks, &snap->cap_tasks, snap->nr_tasks, sizeof(*snap->tasks)))
		return -ENOMEM;
	snap->tasks[snap->nr_tasks].key = key;
	snap->tasks[snap->nr_tasks].evict = false;
	snap->tasks[snap->nr_tasks].carried = false;
	snap->tasks[snap->nr_tasks].task = *task;
	snap->nr_tasks++;
	return 0;
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

static int compare_keys(const void *a, const void *b)
{
	__u64 ka = ((const struct task_sample *)a)->key;
	__u64 kb = ((const struct task_sample *)b)->key;

	return ka < kb ? -1 : ka > kb;
}

struct key_index {
	__u64 key;
	size_t index;
};

static int compare_key_index(const void *a, const void *b)
{
	__u64 ka = ((const struct key_index *)a)->key, kb = ((const struct key_index *)b)->key;

	return ka < kb ? -1 : ka > kb;
}

/*
 * Sort the task samples by key. They are large (the counters), so sorting them directly spends
 * its time moving them: sort small (key, index) pairs instead, then put each sample in its place
 * by following the permutation's cycles, one move per sample.
 */
static void sort_tasks(struct snapshot *snap)
{
	struct key_index *order = malloc(snap->nr_tasks * sizeof(*order));
	struct task_sample held;

	if (!order) { /* no memory for the fast way: the slow way needs none */
		qsort(snap->tasks, snap->nr_tasks, sizeof(*snap->tasks), compare_keys);
		return;
	}
	for (size_t i = 0; i < snap->nr_tasks; i++)
		order[i] = (struct key_index){.key = snap->tasks[i].key, .index = i};
	qsort(order, snap->nr_tasks, sizeof(*order), compare_key_index);
	/* order[i].index: where the sample that belongs at i is now. */
	for (size_t start = 0; start < snap->nr_tasks; start++) {
		size_t at = start;

		if (order[start].index == start)
			continue;
		held = snap->tasks[start];
		while (order[at].index != start) {
			size_t from = order[at].index;

			snap->tasks[at] = snap->tasks[from];
			order[at].index = at;
			at = from;
		}
		snap->tasks[at] = held;
		order[at].index = at;
	}
	free(order);
}

void snapshot_sort(struct snapshot *snap)
{
	sort_tasks(snap);
	qsort(snap->procs, snap->nr_procs, sizeof(*snap->procs), compare_proc_tgids);
}

int snapshot_absorb(struct snapshot *snap, struct snapshot *carry)
{
	for (size_t i = 0; i < carry->nr_tasks; i++) {
		if (snapshot_append(snap, carry->tasks[i].key, &carry->tasks[i].task))
			return -ENOMEM;
		snap->tasks[snap->nr_tasks - 1].carried = true;
	}
	for (size_t i = 0; i < carry->nr_procs; i++) {
		if (snapshot_append_proc(snap, carry->procs[i].tgid, &carry->procs[i].proc))
			return -ENOMEM;
		snap->procs[snap->nr_procs - 1].carried = true;
	}
	carry->nr_tasks = 0;
	carry->nr_procs = 0;
	snapshot_sort(snap);
	return 0;
}

void snapshot_drop_evicted(struct snapshot *snap)
{
	size_t kept = 0;

	for (size_t i = 0; i < snap->nr_tasks; i++)
		if (!snap->tasks[i].evict)
			snap->tasks[kept++] = snap->tasks[i];
	snap->nr_tasks = kept;
	kept = 0;
	for (size_t i = 0; i < snap->nr_procs; i++)
		if (!snap->procs[i].evict)
			snap->procs[kept++] = snap->procs[i];
	snap->nr_procs = kept;
}

void snapshot_shrink(struct snapshot *snap)
{
	array_shrink(&snap->tasks, &snap->cap_tasks, snap->nr_tasks, sizeof(*snap->tasks));
	array_shrink(&snap->procs, &snap->cap_procs, snap->nr_procs, sizeof(*snap->procs));
}

void snapshot_free(struct snapshot *snap)
{
	free(snap->slotted);
	free(snap->tasks);
	free(snap->procs);
	memset(snap, 0, sizeof(*snap));
}

typedef int (*append_fn)(struct snapshot *snap, const void *key, const void *value);

static int append_task(struct snapshot *snap, const void *key, const void *value)
{
	return snapshot_append(snap, *(const __u64 *)key, value);
}

static int append_proc(struct snapshot *snap, const void *key, const void *value)
{
	return snapshot_append_proc(snap, *(const __u32 *)key, value);
}

/* Read a whole hash map, BATCH_CHUNK entries per syscall. */
static int read_map_batched(struct snapshot *snap, int fd, size_t key_size, size_t value_size,
			    append_fn append)
{
	static __u64 keys[BATCH_CHUNK];
	static char values[BATCH_CHUNK * sizeof(struct fs_proc)];
	__u64 cursor = 0;
	bool first = true;
	__u32 chunk =
	    sizeof(values) / value_size < BATCH_CHUNK ? sizeof(values) / value_size : BATCH_CHUNK;

	for (;;) {
		__u32 count = chunk;
		int err = bpf_map_lookup_batch(fd, first ? NULL : &cursor, &cursor, keys, values,
					       &count, NULL);

		if (err && errno != ENOENT)
			return -errno;
		for (__u32 i = 0; i < count; i++)
			if (append(snap, (char *)keys + i * key_size, values + i * value_size))
				return -ENOMEM;
		if (err) /* ENOENT: the table has been read to its end */
			return 0;
		first = false;
	}
}

/* The same, one key at a time, for kernels without batch operations on hash maps. */
static int read_map_one_by_one(struct snapshot *snap, int fd, append_fn append)
{
	static char value[sizeof(struct fs_proc) > sizeof(struct fs_task) ? sizeof(struct fs_proc)
									  : sizeof(struct fs_task)];
	__u64 key = 0, next = 0;
	bool first = true;

	while (bpf_map_get_next_key(fd, first ? NULL : &key, &next) == 0) {
		if (bpf_map_lookup_elem(fd, &next, value) == 0 && append(snap, &next, value))
			return -ENOMEM;
		key = next;
		first = false;
	}
	return 0;
}

static int read_map(struct snapshot *snap, int fd, size_t key_size, size_t value_size,
		    append_fn append)
{
	int err = read_map_batched(snap, fd, key_size, value_size, append);

	if (err == -EINVAL || err == -ENOTSUP || err == -EOPNOTSUPP)
		err = read_map_one_by_one(snap, fd, append);
	return err;
}

/* Read the per-CPU map: the system figures summed (when `system` is given) and each CPU's slot. */
static int read_cpus(int fd, int nr_cpus, struct fs_system *system, struct slot_sample *slots)
{
	struct fs_cpu *per_cpu = calloc(nr_cpus, sizeof(*per_cpu));
	__u32 zero = 0;
	int err = 0;

	if (!per_cpu)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &zero, per_cpu))
		err = -errno;
	if (system)
		memset(system, 0, sizeof(*system));
	for (int cpu = 0; !err && cpu < nr_cpus; cpu++) {
		if (system)
			words_add((__u64 *)system, (const __u64 *)&per_cpu[cpu].system,
				  FS_WORDS(*system));
		slots[cpu].seq = per_cpu[cpu].slot_seq;
		slots[cpu].key = per_cpu[cpu].slot_key;
		memcpy(slots[cpu].comm, per_cpu[cpu].slot_comm, FS_COMM_LEN);
		slots[cpu].counters = per_cpu[cpu].slot;
	}
	free(per_cpu);
	return err;
}

static int compare_key_to_sample(const void *key, const void *sample)
{
	__u64 k = *(const __u64 *)key, s = ((const struct task_sample *)sample)->key;

	return k < s ? -1 : k > s;
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
	size_t sorted = snap->nr_tasks;
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
		struct task_sample *sample;

		if (!slot->key || slot->seq % 2 || slot->seq != second[cpu].seq)
			continue;
		snap->slotted[snap->nr_slotted++] = slot->key;
		sample = bsearch(&slot->key, snap->tasks, sorted, sizeof(*snap->tasks),
				 compare_key_to_sample);
		if (sample) {
			counters_add(&sample->task.counters, &slot->counters);
		} else {
			struct fs_task task = { 0 };

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

int snapshot_read(struct snapshot *snap, int tasks_fd, int procs_fd, int cpus_fd, int nr_cpus)
{
	struct slot_sample *slots = calloc(2 * nr_cpus, sizeof(*slots));
	int err;

	if (!slots)
		return -ENOMEM;
	snap->nr_tasks = 0;
	snap->nr_procs = 0;
	/* Slots before and after the tables (see snapshot_add_slots()). */
	err = read_cpus(cpus_fd, nr_cpus, NULL, slots);
	if (!err)
		err = read_map(snap, tasks_fd, sizeof(__u64), sizeof(struct fs_task), append_task);
	if (!err)
		err = read_map(snap, procs_fd, sizeof(__u32), sizeof(struct fs_proc), append_proc);
	if (!err)
		err = read_cpus(cpus_fd, nr_cpus, &snap->system, slots + nr_cpus);
	if (!err) {
		snapshot_sort(snap);
		err = snapshot_add_slots(snap, slots, slots + nr_cpus, nr_cpus);
	}
	free(slots);
	return err;
}
