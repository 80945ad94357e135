/* SPDX-License-Identifier: GPL-2.0 */
/* Collection: one consistent-enough read of the BPF maps, task entries sorted by key. */
#ifndef FS_SNAPSHOT_H
#define FS_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "foliostat.h"

struct task_sample {
	__u64 key;    /* tgid << 32 | tid: sorting by key groups threads by process */
	bool evict;   /* reported, and its slot is to be freed (exited, or idle for a window) */
	bool carried; /* counts that reached a slot after its last read: count once, drop */
	struct fs_task task;
};

struct proc_sample {
	__u32 tgid;
	bool evict;   /* reported, and its slot is to be freed (idle for a window) */
	bool carried; /* as in task_sample */
	struct fs_proc proc;
};

/* A CPU's slot as read: the pending counts of thread `key` (see struct fs_cpu). */
struct slot_sample {
	__u64 seq;
	__u64 key;
	char comm[FS_COMM_LEN];
	struct fs_counters counters;
};

struct snapshot {
	struct task_sample *tasks;
	size_t nr_tasks;
	size_t cap_tasks;
	struct proc_sample *procs; /* sorted by tgid */
	size_t nr_procs;
	size_t cap_procs;
	struct fs_system system; /* summed over CPUs */
	/* Keys whose counts sat in a CPU's slot through the whole read (their slot was stable):
	 * their table entries must not be freed this window, or the slot's counts would come
	 * back as new. */
	__u64 *slotted;
	size_t nr_slotted;
	size_t cap_slotted;
};

static inline __u32 sample_tgid(const struct task_sample *s)
{
	return s->key >> 32;
}

static inline __u32 sample_tid(const struct task_sample *s)
{
	return (__u32)s->key;
}

/* Read the task and process tables (batched) and the per-CPU system counters into snap. Returns 0
 * or a negative errno. */
int snapshot_read(struct snapshot *snap, int tasks_fd, int procs_fd, int cpus_fd, int nr_cpus);
/* Add a sample (used by tests and by the batch reader); keeps no order. */
int snapshot_append(struct snapshot *snap, __u64 key, const struct fs_task *task);
int snapshot_append_proc(struct snapshot *snap, __u32 tgid, const struct fs_proc *proc);
void snapshot_sort(struct snapshot *snap);
/* Move `carry`'s samples into snap as carried samples (snap is then re-sorted); empties carry. */
int snapshot_absorb(struct snapshot *snap, struct snapshot *carry);
/* Drop the samples (tasks and processes) marked for eviction (after they were reported). */
void snapshot_drop_evicted(struct snapshot *snap);
/* Give back memory a burst of threads left (see array_shrink()). */
void snapshot_shrink(struct snapshot *snap);
void snapshot_free(struct snapshot *snap);
/* Is this thread's key in a stable slot of the last read? */
bool snapshot_slotted(const struct snapshot *snap, __u64 key);
/* Add the counts of the slots that stayed stable between two reads of the per-CPU map to their
 * threads' samples (appending a sample for a thread not in the table yet). */
int snapshot_add_slots(struct snapshot *snap, const struct slot_sample *first,
		       const struct slot_sample *second, int nr_cpus);

#endif
