// SPDX-License-Identifier: GPL-2.0
/* Reading the BPF maps. The task table is read with batched lookups, a few syscalls for the
 * whole table, falling back to one key at a time on kernels without batch support. */
#include "snapshot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "counters.h"

#define BATCH_CHUNK 1024

int snapshot_append(struct snapshot *snap, __u64 key, const struct fs_task *task)
{
	if (snap->nr_tasks == snap->cap_tasks) {
		size_t cap = snap->cap_tasks ? snap->cap_tasks * 2 : 256;
		struct task_sample *grown = realloc(snap->tasks, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		snap->tasks = grown;
		snap->cap_tasks = cap;
	}
	snap->tasks[snap->nr_tasks].key = key;
	snap->tasks[snap->nr_tasks].evict = false;
	snap->tasks[snap->nr_tasks].task = *task;
	snap->nr_tasks++;
	return 0;
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
}

void snapshot_drop_evicted(struct snapshot *snap)
{
	size_t kept = 0;

	for (size_t i = 0; i < snap->nr_tasks; i++)
		if (!snap->tasks[i].evict)
			snap->tasks[kept++] = snap->tasks[i];
	snap->nr_tasks = kept;
}

void snapshot_free(struct snapshot *snap)
{
	free(snap->tasks);
	memset(snap, 0, sizeof(*snap));
}

static int read_tasks_batched(struct snapshot *snap, int fd)
{
	static __u64 keys[BATCH_CHUNK];
	static struct fs_task values[BATCH_CHUNK];
	__u64 cursor = 0;
	bool first = true;

	for (;;) {
		__u32 count = BATCH_CHUNK;
		int err = bpf_map_lookup_batch(fd, first ? NULL : &cursor, &cursor, keys, values,
					       &count, NULL);

		if (err && errno != ENOENT)
			return -errno;
		for (__u32 i = 0; i < count; i++)
			if (snapshot_append(snap, keys[i], &values[i]))
				return -ENOMEM;
		if (err) /* ENOENT: the table has been read to its end */
			return 0;
		first = false;
	}
}

static int read_tasks_one_by_one(struct snapshot *snap, int fd)
{
	__u64 key, next;
	struct fs_task value;
	__u64 *prev = NULL;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		if (bpf_map_lookup_elem(fd, &next, &value) == 0 &&
		    snapshot_append(snap, next, &value))
			return -ENOMEM;
		key = next;
		prev = &key;
	}
	return 0;
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

int snapshot_read(struct snapshot *snap, int tasks_fd, int cpus_fd, int nr_cpus)
{
	int err;

	snap->nr_tasks = 0;
	err = read_tasks_batched(snap, tasks_fd);
	if (err == -EINVAL || err == -ENOTSUP || err == -EOPNOTSUPP) {
		snap->nr_tasks = 0;
		err = read_tasks_one_by_one(snap, tasks_fd);
	}
	if (err)
		return err;
	snapshot_sort(snap);
	return read_system(snap, cpus_fd, nr_cpus);
}
