/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps every concern shares, and the settings the loader gives all programs. threads.bpf.c
 * defines them (FS_DEFINE_MAPS); every other .bpf.c sees extern declarations that the BPF static
 * linker resolves to those definitions.
 */
#ifndef FS_MAPS_BPF_H
#define FS_MAPS_BPF_H

#include "compat.bpf.h"
#include "foliostat.h"

#ifdef FS_DEFINE_MAPS
#define FS_MAP
#define FS_SETTING(type, name) const volatile type name = 0
#else
#define FS_MAP extern
#define FS_SETTING(type, name) extern const volatile type name
#endif

/*
 * The settings known before load, in read-only data (.rodata): the loader sets them in the
 * skeleton between open and load, and the kernel freezes them, so the verifier knows their
 * values and drops every branch they rule out from the programs it loads. What can only be
 * known once programs run (the stacks' size, measured with one) is in struct fs_cpu_state instead.
 * - fs_use_records: sched_switch keeps each CPU's record of its running thread
 *   (attribution.bpf.h): its program loads, and no program can be preempted;
 * - fs_preemptible: the kernel may preempt a tracepoint program (PREEMPT_RT runs them with
 *   only migration disabled), so two threads' programs can interleave on one CPU: per-CPU
 *   counters then take atomic adds (fs_count), and no program trusts the records;
 * - fs_select_followed: only the processes in fs_followed (a command and its descendants)
 *   have entries (attribution.bpf.h);
 * - fs_nr_select_cgroups: only the tasks in or below one of the first fs_nr_select_cgroups of
 *   fs_select_cgroups (threads.bpf.c) have entries.
 */
FS_SETTING(__u32, fs_use_records);
FS_SETTING(__u32, fs_preemptible);
FS_SETTING(__u32, fs_select_followed);
FS_SETTING(__u32, fs_nr_select_cgroups);

/*
 * An indexed table (see struct fs_entry_head): the entries, in an array the loader maps; the
 * index from keys to entries; the queue of free entries, which the loader fills; a bit per
 * entry taken since the loader last looked. The loader sets the capacities.
 */
#define FS_INDEXED_TABLE(name, key_type, value_type)            \
	FS_MAP struct {                                         \
		__uint(type, BPF_MAP_TYPE_ARRAY);               \
		__uint(max_entries, FS_DEFAULT_MAX_TASKS);      \
		__uint(map_flags, BPF_F_MMAPABLE);              \
		__type(key, __u32);                             \
		__type(value, value_type);                      \
	} name SEC(".maps");                                    \
	FS_MAP struct {                                         \
		__uint(type, BPF_MAP_TYPE_HASH);                \
		__uint(max_entries, FS_DEFAULT_MAX_TASKS);      \
		__type(key, key_type);                          \
		__type(value, struct fs_entry_ref);             \
	} name##_index SEC(".maps");                            \
	FS_MAP struct {                                         \
		__uint(type, BPF_MAP_TYPE_QUEUE);               \
		__uint(max_entries, FS_DEFAULT_MAX_TASKS);      \
		__type(value, __u32);                           \
	} name##_free SEC(".maps");                             \
	FS_MAP struct {                                         \
		__uint(type, BPF_MAP_TYPE_ARRAY);               \
		__uint(max_entries, FS_DEFAULT_MAX_TASKS / 64); \
		__uint(map_flags, BPF_F_MMAPABLE);              \
		__type(key, __u32);                             \
		__type(value, __u64);                           \
	} name##_taken SEC(".maps")

/* Threads, keyed by FS_THREAD_KEY(). */
FS_INDEXED_TABLE(fs_tasks, __u64, struct fs_task);
/* Processes with collapse outcomes or stalls, keyed by tgid. */
FS_INDEXED_TABLE(fs_procs, __u64, struct fs_proc);

/* Threads' allocations by node and order, at their entries' indexes (struct fs_node_orders):
 * sized as fs_tasks where nodes are counted, else one entry that nothing writes. */
FS_MAP struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FS_DEFAULT_MAX_TASKS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct fs_node_orders);
} fs_task_nodes SEC(".maps");

/* What every event reads first (struct fs_cpu_state), per CPU, apart from the rest. */
FS_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fs_cpu_state);
} fs_cpu_states SEC(".maps");

/* The per-CPU groups and figures (struct fs_cpu), per CPU so that no two CPUs ever write the
 * same line. */
FS_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fs_cpu);
} fs_cpus SEC(".maps");

/* A task's state between two of its events, in the task's own storage: it needs no table entry,
 * and goes away with the task. Only tasks that stall or allocate large folios get one. */
struct fs_task_state {
	__u64 stall_start_ns[FS_NR_STALLS]; /* when each stall in progress began */
	/* The order of the allocation that asked for direct compaction, from
	 * mm_compaction_try_to_compact_pages until that allocation ends (its mm_page_alloc); 0
	 * outside one (kcompactd, a write to compact_memory), since no order-0 allocation ever
	 * asks for compaction. */
	__u32 compaction_order;
	__u32 unused;
	/* The last movable large folio the task allocated, until it reaches an LRU list or is
	 * freed (then discarded): see folios.bpf.c. */
	__u64 pending_folio;
};

FS_MAP struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct fs_task_state);
} fs_task_state SEC(".maps");

/* The processes followed (-- COMMAND): the command, then every process forked by one already
 * in it (threads.bpf.c), by tgid. Sized by the loader. */
FS_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FS_DEFAULT_MAX_TASKS);
	__type(key, __u32);
	__type(value, __u8);
} fs_followed SEC(".maps");

/* Cgroup moves so far (threads.bpf.c counts them): a thread found outside a --cgroup selection is
 * judged again at its next event once any task has moved since (attribution.bpf.h). */
FS_MAP __u32 fs_moves;

static __always_inline struct fs_cpu_state *this_cpu_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&fs_cpu_states, &zero);
}

static __always_inline struct fs_cpu *this_cpu(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&fs_cpus, &zero);
}

/* Where a group's counts would go if the lookup of the CPU's only entry failed, which it does
 * only for a broken map: rather than every caller testing for it. Nothing reads them. An
 * entry's counters, as a thread's are, so that its header is where a thread's would be. */
FS_MAP struct fs_task fs_no_cpu;

/* p += n, for counters that two programs may write at once on a preemptible kernel (the
 * per-CPU groups and figures, and a thread's counters in its entry). The verifier keeps one of
 * the two adds. */
#define fs_count(p, n)                                 \
	do {                                           \
		if (fs_preemptible)                    \
			__sync_fetch_and_add(&(p), n); \
		else                                   \
			(p) += (n);                    \
	} while (0)

static __always_inline unsigned int order_bucket(unsigned int order)
{
	return order < FS_NR_ORDERS ? order : FS_NR_ORDERS - 1;
}

#endif /* FS_MAPS_BPF_H */
