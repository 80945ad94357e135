/* SPDX-License-Identifier: GPL-2.0 */
/* foliostat's own cost (--self): per probe, the events its program ran for and the time it took,
 * from the kernel's BPF run-time statistics, and the loader's CPU time and memory. */
#ifndef FS_SELF_H
#define FS_SELF_H

#include <linux/types.h>

#include "bounds.h"

#define FS_MAX_PROBES 64

struct self_cost {
	__u64 events[FS_MAX_PROBES]; /* program runs */
	__u64 run_ns[FS_MAX_PROBES]; /* time in the program */
	__u64 misses[FS_MAX_PROBES]; /* runs the kernel skipped (recursion) */
	double loader_cpu_s;	     /* user + system time of the loader */
	long loader_rss_kib;	     /* its resident memory at the end of the window */
	/* What other users made the loader hold: limits and entries at the end of the window,
	 * evictions during it (bounds.h) */
	struct bound_count bounds[FS_NR_BOUNDS];
};

struct loader;

/* Switch the statistics on, before the programs load, so that every run since attach is counted,
 * as the tables count every event since attach. Returns a file descriptor that keeps them on
 * (hand it to the loader after loader_start) or -errno. */
int self_start(void);
/* The totals since attach, into *now. */
void self_read(const struct loader *loader, struct self_cost *now);
/* The starting point of the first window: no program runs yet, the loader's CPU time so far. */
void self_baseline(struct self_cost *before);
/* out = now - before (the RSS is now's). */
void self_delta(const struct self_cost *before, const struct self_cost *now, struct self_cost *out);
/* acc += add (the RSS is add's). */
void self_accumulate(struct self_cost *acc, const struct self_cost *add);
void self_stop(struct loader *loader);

#endif
