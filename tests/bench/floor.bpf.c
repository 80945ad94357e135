// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's floor: on each tracepoint foliostat uses, the least a tracer can do, one add
 * to a per-CPU counter. What foliostat costs above this is what its own work costs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} floor_events SEC(".maps");

/* The one add every floor program makes. */
static __always_inline int count_event(void)
{
	__u32 zero = 0;
	__u64 *count = bpf_map_lookup_elem(&floor_events, &zero);

	if (count)
		(*count)++;
	return 0;
}

#define FS_TRACEPOINT(group, event)      \
	SEC("tp_btf/" #event)            \
	int floor_##event(void *ctx)     \
	{                                \
		return count_event();    \
	}
#include "tracepoints.h"

/* perf's software events foliostat counts completed faults with (major-faults, minor-faults):
 * floor.c opens them on every CPU. */
#define FS_PERF_EVENT(name)               \
	SEC("perf_event")                 \
	int floor_perf_##name(void *ctx)  \
	{                                 \
		return count_event();     \
	}
FS_PERF_EVENT(major_faults)
FS_PERF_EVENT(minor_faults)

char LICENSE[] SEC("license") = "GPL";
