// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's floor: on each tracepoint foliostat uses, the least a tracer can do, one add
 * to a per-CPU counter. What foliostat costs above this is what its own work costs.
 *
 * Built with FS_DISPATCH_ONLY, the same programs on the same hooks do nothing at all (the
 * benchmark's "empty" configuration): what the kernel's dispatch to a program costs, the limit
 * no tracer of these hooks can go below.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} floor_events SEC(".maps");

/* The one add every floor program makes; none in the empty ones. */
static __always_inline int count_event(void)
{
#ifdef FS_DISPATCH_ONLY
	return 0;
#else
	__u32 zero = 0;
	__u64 *count = bpf_map_lookup_elem(&floor_events, &zero);

	if (count)
		(*count)++;
	return 0;
#endif
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
