/* SPDX-License-Identifier: GPL-2.0 */
/* Facts about the host that every record carries (its name, kernel, CPUs, pages, memory nodes,
 * the multi-generational LRU) and the status of each probe, as the loader found them. */
#ifndef FS_HOST_H
#define FS_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "pmd_order.h"

/* Room for the name of a kernel enum value, as the loader reads it from the kernel's BTF. */
#define FS_ENUM_NAME_LEN 40

struct memory_nodes;

struct host_info {
	char hostname[256];
	char kernel[256];
	int nr_cpus;
	long page_size;
	const struct memory_nodes *nodes; /* the nodes with memory (nodes.h); always set */
};

struct probe_status {
	const char *name; /* "group:event", as users know tracepoints */
	bool attached;
	bool not_needed;  /* a stand-in for probes that are attached (reason says which) */
	char reason[160]; /* why not attached */
};

int host_info_read(struct host_info *host);
/* Is the multi-generational LRU on (where the kernel has it: a nonzero enabled mask)? */
bool host_mglru_enabled(void);
/* RFC 3339 UTC with milliseconds: 2026-12-03T08:09:23.123Z */
void format_rfc3339(const struct timespec *ts, char *buf, size_t len);

#endif
