/* SPDX-License-Identifier: GPL-2.0 */
/* A BPF program on a perf software event, on every CPU: where the kernel has no tracepoint for
 * what is counted (page faults outside x86). */
#ifndef FS_PERF_EVENTS_H
#define FS_PERF_EVENTS_H

struct bpf_program;
struct bpf_link;

struct perf_event_links {
	struct bpf_link **links; /* one per online CPU */
	int nr;
};

/* Open software event `config` (PERF_COUNT_SW_*) on every online CPU, each occurrence a sample,
 * and attach `prog` to each. Returns 0, or a negative errno with nothing left attached. */
int perf_events_attach(struct perf_event_links *pel, struct bpf_program *prog,
		       unsigned long long config);
void perf_events_detach(struct perf_event_links *pel);

#endif /* FS_PERF_EVENTS_H */
