/* SPDX-License-Identifier: GPL-2.0 */
/* foliostat's own cost (--self): per probe, the events its program ran for and the time it took,
 * from the kernel's BPF run-time statistics, and the loader's CPU time and memory. */
#ifndef FS_SELF_H
#define FS_SELF_H

#include <linux/types.h>

#define FS_MAX_PROBES 64

struct self_cost {
	__u64 events[FS_MAX_PROBES]; /* program runs */
	__u64 run_ns[FS_MAX_PROBES]; /* time in the program */
	__u64 misses[FS_MAX_PROBES]; /* runs the kernel skipped (recursion) */
	double loader_cpu_s;	     /* user + system time of the loader */
	long loader_rss_kib;	     /* its resident memory at the end of the window */
};

struct loader;

/* Switch the statistics on (they stay on while foliostat runs). Returns 0 or -errno. */
int self_start(struct loader *loader);
/* The totals since the start, into *now. */
void self_read(const struct loader *loader, struct self_cost *now);
/* out = now - before (the RSS is now's). */
void self_delta(const struct self_cost *before, const struct self_cost *now, struct self_cost *out);
/* acc += add (the RSS is add's). */
void self_accumulate(struct self_cost *acc, const struct self_cost *add);
void self_stop(struct loader *loader);

#endif
