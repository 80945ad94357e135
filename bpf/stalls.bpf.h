/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stalls timed from a begin to an end tracepoint in the stalling thread (compaction, direct and
 * memcg reclaim): the start is kept in the thread's entry, the result charged to its process
 * and to the system, with a log2 histogram of the length.
 */
#ifndef FS_STALLS_BPF_H
#define FS_STALLS_BPF_H

#include "maps.bpf.h"

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
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct fs_task *entry = bpf_map_lookup_elem(&fs_tasks, &pid_tgid);

	if (!entry)
		entry = task_create(pid_tgid);
	if (entry)
		entry->stall_start_ns[kind] = bpf_ktime_get_ns();
}

static __always_inline void stall_end(int kind, __u64 reclaimed)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct fs_task *entry = bpf_map_lookup_elem(&fs_tasks, &pid_tgid);
	struct fs_cpu *cpu = this_cpu();
	struct fs_proc *proc;
	unsigned int bucket;
	__u64 ns;

	/* No start: the table was full at the begin, or we attached in the middle. */
	if (!cpu || !entry || !entry->stall_start_ns[kind])
		return;
	ns = bpf_ktime_get_ns() - entry->stall_start_ns[kind];
	entry->stall_start_ns[kind] = 0;
	bucket = stall_bucket(ns);
	cpu->system.stalls[kind].count++;
	cpu->system.stalls[kind].total_ns += ns;
	cpu->system.stalls[kind].hist[bucket]++;
	cpu->system.reclaimed[kind] += reclaimed;
	proc = proc_entry(bpf_get_current_task_btf());
	if (!proc) {
		cpu->system.stalls_untracked[kind]++;
		return;
	}
	__sync_fetch_and_add(&proc->counters.stalls[kind].count, 1);
	__sync_fetch_and_add(&proc->counters.stalls[kind].total_ns, ns);
	__sync_fetch_and_add(&proc->counters.stalls[kind].hist[bucket], 1);
	if (reclaimed)
		__sync_fetch_and_add(&proc->counters.reclaimed[kind], reclaimed);
}

#endif /* FS_STALLS_BPF_H */
