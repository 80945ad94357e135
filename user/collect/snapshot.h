/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Collection: one read of the BPF maps, as what each thread, process and CPU counted since the
 * last read. Every count is in exactly one read: an entry is read in place, compared with what
 * it held at the last read, and freed only after a last read of what reached it late.
 */
#ifndef FS_SNAPSHOT_H
#define FS_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "counters.h"
#include "foliostat.h"
#include "table.h"

/*
 * What a row of the record is, by --by: a process is its pid and start time (a pid is reused),
 * a cgroup its id, a name its 16 bytes. Rows are told apart, ordered and merged by it alone.
 * A read gives each delta its process's; grouping by cgroup or name gives it the group's
 * (regroup.h).
 */
struct row_key {
	__u64 hi; /* a process's pid, a cgroup's id, or a name's first 8 bytes */
	__u64 lo; /* a process's start (ns since boot), 0, or a name's last 8 bytes */
};

static inline int row_key_cmp(const struct row_key *a, const struct row_key *b)
{
	if (a->hi != b->hi)
		return a->hi < b->hi ? -1 : 1;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static inline bool row_key_eq(const struct row_key *a, const struct row_key *b)
{
	return a->hi == b->hi && a->lo == b->lo;
}

/* A process's row key, its pid and start: what a read gives every delta. */
static inline struct row_key process_key(__u32 tgid, __u64 start)
{
	return (struct row_key){.hi = tgid, .lo = start};
}

/* A thread's counts over one read. */
struct thread_delta {
	__u64 key;		/* tgid << 32 | tid */
	struct row_key row;	/* the row it counts in */
	char comm[FS_COMM_LEN]; /* its process's name, as its entry has it */
	__u64 cgroup;		/* its cgroup's id while these counts happened (its entry's) */
	__u64 start;  /* when its process started (ns since boot): with the tgid, which process */
	__u32 exited; /* the thread has exited (FS_ENTRY_EXITED), or moved to another cgroup
		       * (FS_ENTRY_MOVED), or exited and a new process took its pid
		       * (FS_ENTRY_REUSED) */
	bool late; /* counts that reached its entry after the read that last reported it */
	struct fs_counters counts; /* growth over the read (its sums are in its thread_ref) */
};

/* The thread deltas with their growth, in the order of their rows (each row's threads together:
 * by key, and where two processes had one pid within a read, each one's together, the older
 * first): the window ranks rows from these alone, in order, before it sums any thread's counts. */
struct thread_ref {
	__u64 key; /* what the order sorts by: the thread's key, or its row's hi once regrouped */
	__u32 at; /* in threads[] */
	struct counters_growth grew;
};

/* A process's collapse outcomes and stalls over one read. */
struct proc_delta {
	struct row_key row; /* the row it counts in */
	__u32 tgid;
	bool late;
	__u64 start; /* when the process started (see struct thread_delta) */
	char comm[FS_COMM_LEN];
	__u64 cgroup;
	struct fs_proc_counters counts;
};

/* A thread's folios of one order on one node over a read (its side entry's growth: see struct
 * fs_node_orders), counted in its process's figures; a few per thread at most, so kept apart
 * from the large process deltas. Named as a process delta is. */
struct node_delta {
	struct row_key row;
	__u32 tgid;
	bool late;
	__u8 node, order;
	__u64 start;
	char comm[FS_COMM_LEN];
	__u64 cgroup;
	__u64 folios;
};

struct snapshot {
	struct thread_delta *threads; /* in the tables' order */
	size_t nr_threads, cap_threads;
	struct thread_ref *order; /* by key, after snapshot_sort() */
	size_t nr_order, cap_order;
	struct thread_ref *sort_space; /* the sort's second buffer, kept from read to read */
	size_t cap_sort_space;
	struct proc_delta *procs; /* by tgid and start, after snapshot_sort() */
	size_t nr_procs, cap_procs;
	struct node_delta *nodes; /* the same */
	size_t nr_nodes, cap_nodes;
	struct system_totals system; /* the read's system figures */
};

/* What persists between reads: the two tables, and each CPU's figures at the last read. */
struct reader {
	struct table tasks;
	struct table procs;
	int cpus_fd;
	int nr_cpus;
	struct fs_cpu *cpus_now;  /* room for one lookup of the per-CPU map */
	struct fs_cpu *cpus_last; /* each CPU's figures at the last read */
};

/* Returns 0 or a negative errno. */
int reader_init_cpus(struct reader *r, int cpus_fd, int nr_cpus);
/* The same for the reader's copies of the tables. */
bool reader_shrink(struct reader *r);
void reader_close(struct reader *r);

/* Read the tables and the per-CPU map into snap (emptied first), ordered. Returns 0 or a
 * negative errno. */
int snapshot_read(struct snapshot *snap, struct reader *r);
/* One table's part of snapshot_read(): the growth of its entries since the last read, and the
 * late counts of those unlinked at the last read (also for tests, over a table in memory). */
int snapshot_add_threads(struct snapshot *snap, struct table *t);
int snapshot_add_procs(struct snapshot *snap, struct table *t);
/* Add a thread's or a process's counts (used by the reads, and by tests); snapshot_sort() then
 * puts them in order. */
int snapshot_append(struct snapshot *snap, const struct fs_entry_head *head, bool late,
		    const struct fs_counters *counts);
int snapshot_append_proc(struct snapshot *snap, const struct fs_entry_head *head, bool late,
			 const struct fs_proc_counters *counts);
/* A thread's (`head`'s) folios of `order` on `node` over a read, as its process's. */
int snapshot_append_node(struct snapshot *snap, const struct fs_entry_head *head, bool late,
			 int node, int order, __u64 folios);
void snapshot_sort(struct snapshot *snap);
/* Give back memory a burst of threads left (see array_shrink()). Returns whether any was given
 * back. */
bool snapshot_shrink(struct snapshot *snap);
void snapshot_free(struct snapshot *snap);

/*
 * The per-CPU part of a read, given each CPU's figures now and at the last read: the growth of
 * the interrupt and untracked groups and of the system-only figures, added to `system`. Both
 * only grow; the groups' 32-bit words are taken modulo 2^32.
 */
void system_add_cpu_growth(struct system_totals *system, const struct fs_cpu *now,
			   const struct fs_cpu *last);

#endif
