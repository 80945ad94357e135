/* SPDX-License-Identifier: GPL-2.0 */
/* Collection: one consistent-enough read of the BPF maps, task entries ordered by key. */
#ifndef FS_SNAPSHOT_H
#define FS_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "counters.h"
#include "foliostat.h"

/* One task sample in key order: the sample itself stays where it was read (it is large, and
 * sorting or dropping samples moves only these). */
struct task_ref {
	__u64 key;    /* tgid << 32 | tid: ordering by key groups threads by process */
	__u32 index;  /* of the sample in keys[] and tasks[] */
	bool evict;   /* reported, and its slot is to be freed (exited, or idle for a window) */
	bool carried; /* counts that reached a slot after its last read: count once, drop */
};

struct proc_sample {
	__u32 tgid;
	bool evict;   /* reported, and its slot is to be freed (idle for a window) */
	bool carried; /* as in task_ref */
	struct fs_proc proc;
};

/* A CPU's slot as read: the pending counts of thread `key` (see struct fs_cpu). */
struct slot_sample {
	__u64 seq;
	bool owned; /* the slot belongs to a thread (key 0 is the idle task's) */
	__u64 key;
	char comm[FS_COMM_LEN];
	struct fs_counters counters;
};

/* The per-CPU map as the loader follows it: each CPU's system figures at the last read, and
 * their growth since the start summed over CPUs and widened (BPF's counter words wrap). */
struct cpu_sums {
	int nr_cpus;
	struct fs_cpu *read;	/* room for one lookup of the per-CPU map */
	struct fs_system *last; /* each CPU's figures at the last read */
	struct system_totals totals;
};

struct snapshot {
	/* The task samples in the order the table gave them: keys[i] and tasks[i], read there
	 * directly by the batched lookups. */
	__u64 *keys;
	struct fs_task *tasks;
	size_t nr_tasks;
	size_t cap_keys, cap_tasks;
	/* The samples ordered by key (after snapshot_sort()), less the dropped ones. */
	struct task_ref *order;
	size_t nr_order;
	size_t cap_order;
	struct proc_sample *procs; /* sorted by tgid */
	size_t nr_procs;
	size_t cap_procs;
	struct system_totals system; /* since the start, summed over CPUs */
	/* Keys whose counts sat in a CPU's slot through the whole read (their slot was stable):
	 * their table entries must not be freed this window, or the slot's counts would come
	 * back as new. */
	__u64 *slotted;
	size_t nr_slotted;
	size_t cap_slotted;
};

static inline __u32 ref_tgid(const struct task_ref *r)
{
	return r->key >> 32;
}

static inline __u32 ref_tid(const struct task_ref *r)
{
	return (__u32)r->key;
}

static inline struct fs_task *ref_task(const struct snapshot *snap, const struct task_ref *r)
{
	return &snap->tasks[r->index];
}

int cpu_sums_init(struct cpu_sums *sums, int nr_cpus);
void cpu_sums_free(struct cpu_sums *sums);

/* Read the task and process tables (batched) and the per-CPU map into snap, ordered. Returns 0
 * or a negative errno. */
int snapshot_read(struct snapshot *snap, int tasks_fd, int procs_fd, int cpus_fd,
		  struct cpu_sums *sums);
/* Add a sample (used by tests and by the readers); snapshot_sort() then puts it in order. */
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
