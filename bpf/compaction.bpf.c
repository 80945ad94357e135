// SPDX-License-Identifier: GPL-2.0
/*
 * Memory compaction and migration, charged to the thread that does them: a task that compacts
 * directly while allocating stalls for it (kcompactd's background work is charged to
 * kcompactd), and page migration for compaction, NUMA balancing or MADV_COLLAPSE is reported by
 * the kernel per batch.
 */
#include "stalls.bpf.h"

#include <bpf/bpf_tracing.h>

/* mm_migrate_pages gained large_folio_split (argument 5) in 6.x; the loader says whether this
 * kernel has it, from the tracepoint's BTF prototype. */
const volatile bool fs_migrate_has_large_folio_split = true;

SEC("tp_btf/mm_compaction_begin")
int BPF_PROG(fs_compaction_begin)
{
	stall_begin(FS_STALL_COMPACTION);
	return 0;
}

SEC("tp_btf/mm_compaction_end")
int BPF_PROG(fs_compaction_end)
{
	stall_end(FS_STALL_COMPACTION, 0);
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
