/* SPDX-License-Identifier: GPL-2.0 */
/* A BPF program on a perf software event, on every CPU: where the kernel has no tracepoint for
 * what is counted (page faults outside x86). A perf event belongs to one CPU and opens only
 * while that CPU is online, so the set is refreshed at every read: CPUs brought online since
 * get theirs, and an event the kernel stopped when its CPU went offline is opened anew. */
#ifndef FS_PERF_EVENTS_H
#define FS_PERF_EVENTS_H

#include <stdbool.h>
#include <linux/types.h>

struct bpf_program;
struct bpf_link;

struct perf_event_links {
	struct bpf_program *prog;
	unsigned long long config;
	int nr_cpus;		 /* possible CPUs: the arrays' length */
	struct bpf_link **links; /* by CPU, NULL where no event is open */
	int *fds;		 /* by CPU: the event, to read its enabled time (-1: none) */
	__u64 *enabled;		 /* by CPU: its enabled time at the last refresh */
	int nr;			 /* events open */
	bool cannot_open;	 /* opening more is refused (no privileges left): stop trying */
	int opener;		 /* once privileges are dropped: the opener's socket (-1: none) */
};

/*
 * Fork the opener, before privileges are dropped: a process that keeps CAP_PERFMON alone (and
 * no_new_privs, and none of foliostat's descriptors) and only opens the page-fault software
 * events on a CPU it is asked for, handing each back over the socket returned; it exits when
 * foliostat does. Returns the socket, or a negative errno.
 */
int perf_opener_start(void);

/* Open software event `config` (PERF_COUNT_SW_*) on every online CPU, each occurrence a sample,
 * and attach `prog` to each. Returns 0, or a negative errno with nothing left attached. */
int perf_events_attach(struct perf_event_links *pel, struct bpf_program *prog,
		       unsigned long long config);
/*
 * Follow the CPUs online now (`online`, by CPU, nr_cpus of them): open the event on each that
 * has none, reopen one the kernel no longer runs (its enabled time stood still: its CPU went
 * offline and came back since the last refresh), close those of offline CPUs. Returns how many
 * CPUs got an event, or a negative errno (the others keep theirs): a refusal (EACCES, EPERM)
 * once, after which no CPU is tried again.
 */
int perf_events_refresh(struct perf_event_links *pel, const bool *online, int nr_cpus);
void perf_events_detach(struct perf_event_links *pel);

/* Parse a CPU list as /sys/devices/system/cpu/online writes it ("0-3,6\n") into online[0..nr).
 * Returns 0, or -EINVAL. */
int parse_cpu_list(const char *text, bool *online, int nr);

#endif /* FS_PERF_EVENTS_H */
