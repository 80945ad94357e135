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

void snapshot_sort(struct snapshot *snap)
{
	qsort(snap->tasks, snap->nr_tasks, sizeof(*snap->tasks), compare_keys);
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

static int read_system(struct snapshot *snap, int fd, int nr_cpus)
{
	struct fs_cpu *per_cpu = calloc(nr_cpus, sizeof(*per_cpu));
	__u32 zero = 0;
	int err = 0;

	if (!per_cpu)
		return -ENOMEM;
	memset(&snap->system, 0, sizeof(snap->system));
	if (bpf_map_lookup_elem(fd, &zero, per_cpu))
		err = -errno;
	for (int cpu = 0; !err && cpu < nr_cpus; cpu++)
		words_add((__u64 *)&snap->system, (const __u64 *)&per_cpu[cpu].system,
			  FS_WORDS(snap->system));
	free(per_cpu);
	return err;
}

int snapshot_read(struct snapshot *snap, int tasks_fd, int procs_fd, int cpus_fd, int nr_cpus)
{
	int err;

	snap->nr_tasks = 0;
	snap->nr_procs = 0;
	err = read_map(snap, tasks_fd, sizeof(__u64), sizeof(struct fs_task), append_task);
	if (!err)
		err = read_map(snap, procs_fd, sizeof(__u32), sizeof(struct fs_proc), append_proc);
	if (err)
		return err;
	snapshot_sort(snap);
	return read_system(snap, cpus_fd, nr_cpus);
}
