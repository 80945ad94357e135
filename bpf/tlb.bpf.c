// SPDX-License-Identifier: GPL-2.0
/*
 * TLB flushes, charged to the thread running the event: the one that initiates a flush (of its
 * own mm, or by sending shootdown IPIs), and for a remote shootdown the thread that was
 * interrupted on the receiving CPU, which pays for it. So interrupt context is not set apart
 * here: who suffers a shootdown is the point.
 */
#include "maps.bpf.h"

#include <bpf/bpf_tracing.h>

#define FS_TLB_FLUSH_ALL (~0UL) /* the kernel's TLB_FLUSH_ALL: the whole TLB */

/* One flush in a thread's counters: `shared` when they are its entry, which slot moves on
 * other CPUs write too (see slot_flush()); the CPU's own slot takes plain adds. */
static __always_inline void count_flush(struct fs_counters *c, unsigned int bucket,
					unsigned long pages, bool shared)
{
	if (shared) {
		__sync_fetch_and_add(&c->tlb_flushes[bucket], 1);
		if (pages == FS_TLB_FLUSH_ALL)
			__sync_fetch_and_add(&c->tlb_full, 1);
		else
			__sync_fetch_and_add(&c->tlb_pages, (__u32)pages);
		return;
	}
	c->tlb_flushes[bucket]++;
	if (pages == FS_TLB_FLUSH_ALL)
		c->tlb_full++;
	else
		c->tlb_pages += (__u32)pages;
}

/*
 * Flushes on task switch come at context-switch rate on a busy host, in the context of the
 * thread switching away; the CPU's slot takes them when it is that thread's already (the
 * thread had faults or allocations in its turn: 112 ns per run on a compile, against 293 ns
 * through the entry, statistics on). Otherwise, and for shootdowns received in interrupt
 * context, the thread's entry: a slot claim for one flush would cost more.
 */
SEC("tp_btf/tlb_flush")
int BPF_PROG(fs_tlb_flush, int reason, unsigned long pages)
{
	unsigned int bucket =
	    reason >= 0 && reason < FS_NR_TLB_REASONS ? reason : FS_NR_TLB_REASONS - 1;
	struct fs_cpu *cpu = this_cpu();
	struct fs_counters *target;

	if (!cpu)
		return 0;
	bucket = verifier_bounded(bucket, FS_NR_TLB_REASONS);
	count_flush(&cpu->system.total, bucket, pages, false);
	target = owned_slot(cpu);
	if (target)
		count_flush(target, bucket, pages, false);
	else
		count_flush(charge_current_entry(cpu), bucket, pages, true);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
