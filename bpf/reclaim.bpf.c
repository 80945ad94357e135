// SPDX-License-Identifier: GPL-2.0
/*
 * Page reclaim: stalls in direct and memcg reclaim, charged to the stalling process with the
 * pages they reclaimed; and over the system, pages scanned, reclaimed and deactivated per LRU
 * list by kswapd and by direct reclaimers, kswapd wake-ups, and folios written back by reclaim.
 * (The multi-generational LRU reclaims through other tracepoints: see foliostat(8).)
 */
#include "stalls.bpf.h"

#include <bpf/bpf_tracing.h>

/* current_is_kswapd(): PF_KSWAPD has been this bit of task->flags since Linux 2.6. */
#define FS_PF_KSWAPD 0x00020000

static __always_inline int reclaimer(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return task->flags & FS_PF_KSWAPD ? FS_BY_KSWAPD : FS_BY_DIRECT;
}

/* file ? LRU_INACTIVE_FILE : LRU_INACTIVE_ANON, plus the active offset for active lists */
static __always_inline unsigned int lru_of(int file, bool active)
{
	unsigned int lru = file ? bpf_core_enum_value(enum lru_list, LRU_INACTIVE_FILE)
				: bpf_core_enum_value(enum lru_list, LRU_INACTIVE_ANON);

	if (active)
		lru += bpf_core_enum_value(enum lru_list, LRU_ACTIVE_ANON) -
		       bpf_core_enum_value(enum lru_list, LRU_INACTIVE_ANON);
	return verifier_bounded(lru, FS_NR_LRU_LISTS);
}

SEC("tp_btf/mm_vmscan_direct_reclaim_begin")
int BPF_PROG(fs_direct_reclaim_begin)
{
	stall_begin(FS_STALL_DIRECT_RECLAIM);
	return 0;
}

SEC("tp_btf/mm_vmscan_direct_reclaim_end")
int BPF_PROG(fs_direct_reclaim_end, unsigned long nr_reclaimed)
{
	stall_end(FS_STALL_DIRECT_RECLAIM, nr_reclaimed);
	return 0;
}

SEC("tp_btf/mm_vmscan_memcg_reclaim_begin")
int BPF_PROG(fs_memcg_reclaim_begin)
{
	stall_begin(FS_STALL_MEMCG_RECLAIM);
	return 0;
}

SEC("tp_btf/mm_vmscan_memcg_reclaim_end")
int BPF_PROG(fs_memcg_reclaim_end, unsigned long nr_reclaimed)
{
	stall_end(FS_STALL_MEMCG_RECLAIM, nr_reclaimed);
	return 0;
}

static __always_inline void count_isolated(unsigned long scanned, unsigned int lru)
{
	struct fs_cpu *cpu = this_cpu();

	if (!cpu)
		return;
	lru = verifier_bounded(lru < FS_NR_LRU_LISTS ? lru : FS_NR_LRU_LISTS - 1, FS_NR_LRU_LISTS);
	fs_count(cpu->vmscan.scanned[reclaimer()][lru], scanned);
}

/*
 * mm_vmscan_lru_isolate in two layouts, one program each; the loader loads the one whose
 * arguments match the kernel's prototype: 6.x, and before it dropped isolate_mode (6.1).
 */
SEC("tp_btf/mm_vmscan_lru_isolate")
int BPF_PROG(fs_lru_isolate, int highest_zoneidx, int order, unsigned long nr_requested,
	     unsigned long nr_scanned, unsigned long nr_skipped, unsigned long nr_taken, int lru)
{
	count_isolated(nr_scanned, lru);
	return 0;
}

SEC("tp_btf/mm_vmscan_lru_isolate")
int BPF_PROG(fs_lru_isolate_with_mode, int highest_zoneidx, int order, unsigned long nr_requested,
	     unsigned long nr_scanned, unsigned long nr_skipped, unsigned long nr_taken,
	     unsigned int isolate_mode, int lru)
{
	count_isolated(nr_scanned, lru);
	return 0;
}

SEC("tp_btf/mm_vmscan_lru_shrink_inactive")
int BPF_PROG(fs_shrink_inactive, int nid, unsigned long nr_scanned, unsigned long nr_reclaimed,
	     void *stat, int priority, int file)
{
	struct fs_cpu *cpu = this_cpu();

	if (cpu)
		fs_count(cpu->vmscan.reclaimed[reclaimer()][lru_of(file, false)], nr_reclaimed);
	return 0;
}

SEC("tp_btf/mm_vmscan_lru_shrink_active")
int BPF_PROG(fs_shrink_active, int nid, unsigned long nr_taken, unsigned long nr_active,
	     unsigned long nr_deactivated, unsigned long nr_referenced, int priority, int file)
{
	struct fs_cpu *cpu = this_cpu();

	if (cpu)
		fs_count(cpu->vmscan.deactivated[reclaimer()][lru_of(file, true)], nr_deactivated);
	return 0;
}

SEC("tp_btf/mm_vmscan_kswapd_wake")
int BPF_PROG(fs_kswapd_wake)
{
	struct fs_cpu *cpu = this_cpu();

	if (cpu)
		fs_count(cpu->vmscan.kswapd_wakes, 1);
	return 0;
}

SEC("tp_btf/mm_vmscan_write_folio")
int BPF_PROG(fs_reclaim_write, struct folio *folio)
{
	struct fs_cpu *cpu = this_cpu();

	if (!cpu)
		return 0;
	fs_count(cpu->vmscan.written[FS_FOLIOS], 1);
	fs_count(cpu->vmscan.written[FS_PAGES], 1UL << folio_order_of(folio));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
