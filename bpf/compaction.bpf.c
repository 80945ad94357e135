// SPDX-License-Identifier: GPL-2.0
/*
 * Memory compaction and migration, charged to the thread that does them: a task that compacts
 * directly while allocating stalls for it (kcompactd's background work is charged to
 * kcompactd), and page migration for compaction, NUMA balancing or MADV_COLLAPSE is reported by
 * the kernel per batch.
 */
#include "attribution.bpf.h"
#include "stalls.bpf.h"

#include <bpf/bpf_tracing.h>

SEC("tp_btf/mm_compaction_begin")
int BPF_PROG(fs_compaction_begin)
{
	stall_begin(FS_STALL_COMPACTION);
	return 0;
}

/* An allocation asks for direct compaction: its stalls until the allocation ends are charged to
 * the order it wants (folios.bpf.c ends the request). */
SEC("tp_btf/mm_compaction_try_to_compact_pages")
int BPF_PROG(fs_compaction_request, int order, gfp_t gfp_mask, int prio)
{
	struct fs_task_state *state;

	state = bpf_task_storage_get(&fs_task_state, bpf_get_current_task_btf(), 0,
				     BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (state)
		state->compaction_order = order_bucket(order);
	return 0;
}

SEC("tp_btf/mm_compaction_end")
int BPF_PROG(fs_compaction_end)
{
	stall_end(FS_STALL_COMPACTION, 0);
	return 0;
}

static __always_inline void count_migration(const unsigned long *counts, int nr_counts)
{
	struct fs_cpu_state *st = this_cpu_state();
	struct fs_counters *target;

	if (!st)
		return;
	target = charge_task_context(st);
	for (int i = 0; i < nr_counts && i < FS_NR_MIGRATE_COUNTERS; i++)
		fs_count(target->migrate[i], counts[i]);
}

/*
 * mm_migrate_pages in two layouts, one program each; the loader loads the one whose arguments
 * match the kernel's prototype: 6.x, which reports large_folio_split, and before (6.1).
 */
SEC("tp_btf/mm_migrate_pages")
int BPF_PROG(fs_migrate_pages, unsigned long succeeded, unsigned long failed,
	     unsigned long thp_succeeded, unsigned long thp_failed, unsigned long thp_split,
	     unsigned long large_folio_split, int mode, int reason)
{
	unsigned long counts[] = {succeeded,  failed,	 thp_succeeded,
				  thp_failed, thp_split, large_folio_split};

	count_migration(counts, FS_NR_MIGRATE_COUNTERS);
	return 0;
}

SEC("tp_btf/mm_migrate_pages")
int BPF_PROG(fs_migrate_pages_without_large_split, unsigned long succeeded, unsigned long failed,
	     unsigned long thp_succeeded, unsigned long thp_failed, unsigned long thp_split,
	     int mode, int reason)
{
	unsigned long counts[] = {succeeded, failed, thp_succeeded, thp_failed, thp_split};

	count_migration(counts, FS_MIGRATE_LARGE_FOLIO_SPLIT);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
