// SPDX-License-Identifier: GPL-2.0
/*
 * Memory compaction and migration, charged to the thread that does them: a task that compacts
 * directly while allocating stalls for it (kcompactd's background work is charged to
 * kcompactd), and page migration for compaction, NUMA balancing or MADV_COLLAPSE is reported by
 * the kernel per batch.
 */
#include "maps.bpf.h"

#include <bpf/bpf_tracing.h>

/* mm_migrate_pages gained large_folio_split (argument 5) in 6.x; the loader says whether this
 * kernel has it, from the tracepoint's BTF prototype. */
const volatile bool fs_migrate_has_large_folio_split = true;

/* floor(log2(v)) for v > 0, without loops (the verifier needs none here). */
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

static __always_inline unsigned int stall_bucket(__u64 ns)
{
	__u64 us = ns / 1000;
	unsigned int bucket = us ? log2_u64(us) + 1 : 0;

	bucket = bucket < FS_NR_STALL_BUCKETS ? bucket : FS_NR_STALL_BUCKETS - 1;
	return verifier_bounded(bucket, FS_NR_STALL_BUCKETS);
}

static __always_inline void add_stall(struct fs_stalls *stalls, __u64 ns, unsigned int bucket)
{
	stalls->count++;
	stalls->total_ns += ns;
	stalls->hist[bucket]++;
}

SEC("tp_btf/mm_compaction_begin")
int BPF_PROG(fs_compaction_begin)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct fs_task *entry = bpf_map_lookup_elem(&fs_tasks, &pid_tgid);

	if (!entry)
		entry = task_create(pid_tgid);
	if (entry)
		entry->compaction_start_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/mm_compaction_end")
int BPF_PROG(fs_compaction_end)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct fs_task *entry = bpf_map_lookup_elem(&fs_tasks, &pid_tgid);
	struct fs_cpu *cpu = this_cpu();
	unsigned int bucket;
	__u64 ns;

	/* No start: the table was full at begin, or we attached in the middle of it. */
	if (!cpu || !entry || !entry->compaction_start_ns)
		return 0;
	ns = bpf_ktime_get_ns() - entry->compaction_start_ns;
	entry->compaction_start_ns = 0;
	bucket = stall_bucket(ns);
	add_stall(&cpu->system.total.compaction, ns, bucket);
	add_stall(&entry->counters.compaction, ns, bucket);
	return 0;
}

SEC("tp_btf/mm_migrate_pages")
int fs_migrate_pages(__u64 *ctx)
{
	struct fs_cpu *cpu = this_cpu();
	struct fs_counters *target;
	__u64 arg5 = ctx[5]; /* read at a fixed offset; every layout has at least 7 arguments */

	if (!cpu)
		return 0;
	target = charge_task_context(cpu);
	for (int i = FS_MIGRATE_SUCCEEDED; i <= FS_MIGRATE_THP_SPLIT; i++) {
		cpu->system.total.migrate[i] += ctx[i];
		target->migrate[i] += ctx[i];
	}
	if (fs_migrate_has_large_folio_split) {
		cpu->system.total.migrate[FS_MIGRATE_LARGE_FOLIO_SPLIT] += arg5;
		target->migrate[FS_MIGRATE_LARGE_FOLIO_SPLIT] += arg5;
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
