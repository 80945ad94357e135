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

/* The counters' files, opened once: reading about 200 files by path every second would cost
 * more than reading the BPF tables. */
struct kernel_counter_file {
	int fd;
	char name[80]; /* the counter's name, as in struct kernel_counter */
};

struct kernel_counter_files {
	int vmstat_fd; /* -1: none */
	struct kernel_counter_file *mthp;
	size_t nr_mthp;
	size_t cap_mthp;
};

/* Open the files there are (missing ones are not an error). Returns 0 or a negative errno. */
int kernel_counter_files_open(struct kernel_counter_files *files);
void kernel_counter_files_close(struct kernel_counter_files *files);
/* Read every counter now. Returns 0 or a negative errno. */
int kernel_counters_read(const struct kernel_counter_files *files, struct kernel_counters *kc);
/* out = now - before, by name; a counter new in `now` counts from zero. A few of these are
 * gauges (nr_anon, ...) that can go down: the difference is then negative, in two's
 * complement, and callers print values as signed. */
int kernel_counters_delta(const struct kernel_counters *before, const struct kernel_counters *now,
			  struct kernel_counters *out);
/* acc += add, by name. */
int kernel_counters_accumulate(struct kernel_counters *acc, const struct kernel_counters *add);
void kernel_counters_free(struct kernel_counters *kc);

#endif
