// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel-count test's control on tlb:tlb_flush: a BPF program of its own, on the same hook
 * and attached the same way as foliostat's (tp_btf), that adds one per flush to a per-CPU count
 * of its reason. Nothing is shared with foliostat: what this counts is what the kernel ran a
 * BPF program for, which the test compares with perf's count of the same hits.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define CONTROL_REASONS 16 /* more than any kernel's enum tlb_flush_reason; the last: others */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CONTROL_REASONS);
	__type(key, __u32);
	__type(value, __u64);
} control_flushes SEC(".maps");

SEC("tp_btf/tlb_flush")
int BPF_PROG(control_tlb_flush, int reason, unsigned long pages)
{
	__u32 key = reason >= 0 && reason < CONTROL_REASONS ? reason : CONTROL_REASONS - 1;
	__u64 *count = bpf_map_lookup_elem(&control_flushes, &key);

	if (count)
		(*count)++;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
