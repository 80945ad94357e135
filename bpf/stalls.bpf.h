/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stalls timed from a begin to an end tracepoint in the stalling thread (compaction, direct and
 * memcg reclaim): the start is kept in the task's own storage, so it needs no table entry; the
 * result is charged to the system and to the stalling process's entry (or, if the process
 * table has no room, counted as untracked), with a log2 histogram of the length. Direct
 * compaction is also charged to the order of the allocation that asked for it.
 */
#ifndef FS_STALLS_BPF_H
#define FS_STALLS_BPF_H

#include "entries.bpf.h"

/* floor(log2(v)) for v > 0, without loops. */
static __always_inline unsigned int log2_u64(__u64 v)
{
	unsigned int r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	return r + (v >> 1);
}

/* Bucket 0: under 1 us; bucket k: [2^(k-1), 2^k) us; the last holds anything longer. */
static __always_inline unsigned int stall_bucket(__u64 ns)
{
	__u64 us = ns / 1000;
	unsigned int bucket = us ? log2_u64(us) + 1 : 0;

	bucket = bucket < FS_NR_STALL_BUCKETS ? bucket : FS_NR_STALL_BUCKETS - 1;
	return verifier_bounded(bucket, FS_NR_STALL_BUCKETS);
}

static __always_inline void stall_begin(int kind)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fs_task_state *state;
	struct fs_cpu *cpu;

	state = bpf_task_storage_get(&fs_task_state, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (state) {
		state->stall_start_ns[kind] = bpf_ktime_get_ns();
		return;
	}
	/* No storage for the start (out of memory): the stall is counted, untimed and
	 * unattributed. */
	cpu = this_cpu();
	if (cpu) {
		fs_count(cpu->stalls[kind].count, 1);
		fs_count(cpu->stalls_untracked[kind], 1);
	}
}

static __always_inline void stall_end(int kind, __u64 reclaimed)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fs_cpu *cpu = this_cpu();
	struct fs_task_state *state;
	unsigned int bucket, order = 0;
	struct fs_proc *proc;
	bool chosen;
	__u64 ns;

	state = bpf_task_storage_get(&fs_task_state, task, 0, 0);
	/* No start: it began before foliostat attached. */
	if (!cpu || !state || !state->stall_start_ns[kind])
		return;
	ns = bpf_ktime_get_ns() - state->stall_start_ns[kind];
	state->stall_start_ns[kind] = 0;
	if (kind == FS_STALL_COMPACTION)
		order = verifier_bounded(state->compaction_order, FS_NR_ORDERS);
	bucket = stall_bucket(ns);
	chosen = selected(bpf_get_current_task());
	/* A process's cgroup is its leader's (threads may be in other threaded cgroups). */
	proc = chosen
		   ? proc_entry(task->tgid, task->group_leader->comm,
				BPF_CORE_READ(task, group_leader, cgroups, dfl_cgrp, kn, id),
				task->group_leader->start_boottime)
		   : NULL;
	if (proc) {
		__sync_fetch_and_add(&proc->counters.stalls[kind].count, 1);
		__sync_fetch_and_add(&proc->counters.stalls[kind].total_ns, ns);
		__sync_fetch_and_add(&proc->counters.stalls[kind].hist[bucket], 1);
		if (reclaimed)
			__sync_fetch_and_add(&proc->counters.reclaimed[kind], reclaimed);
		if (order) {
			__sync_fetch_and_add(&proc->counters.compaction_by_order.count[order], 1);
			__sync_fetch_and_add(&proc->counters.compaction_by_order.total_ns[order],
					     ns);
		}
		return;
	}
	/* No process entry holds it (outside the selection, or the table full): the CPU's part
	 * of the system figures, which the loader adds to the processes' of the same read. */
	fs_count(cpu->stalls[kind].count, 1);
	fs_count(cpu->stalls[kind].total_ns, ns);
	fs_count(cpu->stalls[kind].hist[bucket], 1);
	fs_count(cpu->reclaimed[kind], reclaimed);
	if (order) {
		fs_count(cpu->compaction_by_order.count[order], 1);
		fs_count(cpu->compaction_by_order.total_ns[order], ns);
	}
	if (chosen)
		fs_count(cpu->stalls_untracked[kind], 1);
}

#endif /* FS_STALLS_BPF_H */
