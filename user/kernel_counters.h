/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own THP counters, read beside the BPF figures so a record shows both: what was
 * attributed, and what the kernel counts but has no tracepoint for (fallbacks, for one).
 * /proc/vmstat thp_* counters are named "vmstat/<name>"; the per-size mTHP counters under
 * /sys/kernel/mm/transparent_hugepage/hugepages-<size>/stats/ are "mthp/<size>/<name>".
 */
#ifndef FS_KERNEL_COUNTERS_H
#define FS_KERNEL_COUNTERS_H

#include <stddef.h>
#include <linux/types.h>

struct kernel_counter {
	char name[80];
	__u64 value;
};

struct kernel_counters {
	struct kernel_counter *items; /* sorted by name */
	size_t nr;
	size_t cap;
};

/* Read every counter now. Returns 0 or a negative errno; missing files are not an error. */
int kernel_counters_read(struct kernel_counters *kc);
/* out = now - before, by name; a counter new in `now` counts from zero. A few of these are
 * gauges (nr_anon, ...) that can go down: the difference is then negative, in two's
 * complement, and callers print values as signed. */
int kernel_counters_delta(const struct kernel_counters *before, const struct kernel_counters *now,
			  struct kernel_counters *out);
/* acc += add, by name. */
int kernel_counters_accumulate(struct kernel_counters *acc, const struct kernel_counters *add);
void kernel_counters_free(struct kernel_counters *kc);

#endif
