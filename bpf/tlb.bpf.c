// SPDX-License-Identifier: GPL-2.0
/*
 * TLB flushes, charged to the thread running the event: the one that initiates a flush (of its
 * own mm, or by sending shootdown IPIs), and for a remote shootdown the thread that was
 * interrupted on the receiving CPU, which pays for it. So interrupt context is not set apart
 * here: who suffers a shootdown is the point.
 */
#include "attribution.bpf.h"

#include <bpf/bpf_tracing.h>

#define FS_TLB_FLUSH_ALL (~0UL) /* the kernel's TLB_FLUSH_ALL: the whole TLB */

/*
 * Flushes on task switch come at context-switch rate on a busy host, in the context of the
 * thread switching away, which the CPU's record keeps as `previous`. Adds are atomic: a
 * shootdown received in interrupt context is charged to the thread it interrupts, which may
 * have been counting a flush of its own in the same words.
 */
SEC("tp_btf/tlb_flush")
int BPF_PROG(fs_tlb_flush, int reason, unsigned long pages)
{
	unsigned int bucket =
	    reason >= 0 && reason < FS_NR_TLB_REASONS ? reason : FS_NR_TLB_REASONS - 1;
	struct fs_cpu_state *st = this_cpu_state();
	struct fs_counters *target;

	if (!st)
		return 0;
	bucket = verifier_bounded(bucket, FS_NR_TLB_REASONS);
	target = charge_current_thread(st);
	__sync_fetch_and_add(&target->tlb_flushes[bucket], 1);
	if (pages == FS_TLB_FLUSH_ALL)
		__sync_fetch_and_add(&target->tlb_full, 1);
	else
		__sync_fetch_and_add(&target->tlb_pages, (__u32)pages);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
