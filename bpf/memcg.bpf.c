// SPDX-License-Identifier: GPL-2.0
/*
 * Events the kernel counts per memory cgroup (memcg:count_memcg_events, on kernels newer than
 * 6.1), charged to the thread that counts them: of these, THP faults that got a huge page
 * (THP_FAULT_ALLOC). The event fires for every counted item, a page fault's PGFAULT among them,
 * so the program compares the item with a constant the loader's CO-RE relocation fixes from
 * the kernel's own enum vm_event_item (its values move between kernels), and returns at once
 * for every other.
 */
#include "attribution.bpf.h"

#include <bpf/bpf_tracing.h>

SEC("tp_btf/count_memcg_events")
int BPF_PROG(fs_memcg_event, struct mem_cgroup *memcg, int item, unsigned long val)
{
	struct fs_cpu_state *st;

	if (item != bpf_core_enum_value(enum vm_event_item, THP_FAULT_ALLOC))
		return 0;
	st = this_cpu_state();
	if (st) /* counted in the faulting thread */
		fs_count(charge_task_context(st)->thp_fault_alloc, val);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
