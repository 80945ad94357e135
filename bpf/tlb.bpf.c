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
	target = charge_current_entry(cpu);
	cpu->system.total.tlb_flushes[bucket]++;
	/* The entry is shared with slot moves on other CPUs: atomic adds (see slot_flush()). */
	__sync_fetch_and_add(&target->tlb_flushes[bucket], 1);
	if (pages == FS_TLB_FLUSH_ALL) {
		cpu->system.total.tlb_full++;
		__sync_fetch_and_add(&target->tlb_full, 1);
	} else {
		cpu->system.total.tlb_pages += (__u32)pages;
		__sync_fetch_and_add(&target->tlb_pages, (__u32)pages);
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
