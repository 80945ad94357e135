/* SPDX-License-Identifier: GPL-2.0 */
/* One record: everything a renderer needs, gathered once so the table and JSON renderers
 * always describe the same figures. */
#ifndef FS_REPORT_H
#define FS_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <linux/types.h>

#include "figure_names.h" /* the names and measures of figures' parts */
#include "foliostat.h"
#include "free_blocks.h"
#include "host.h"
#include "kernel_counters.h"
#include "measures.h"
#include "resident_report.h"
#include "self.h"
#include "row_table.h"

struct cgroup_names;
struct file_summary;

struct fs_report {
	struct timespec end; /* wall-clock end of the window */
	/* the rows' cgroups, named when the record was made (NULL: none are named) */
	const struct cgroup_names *cgroup_names;
	enum fs_row_kind by;		   /* what a row is (--by) */
	enum fs_sort sort;		   /* what ranks the rows (--sort) */
	bool colour; /* tables for a terminal: headings bold, figures to look at coloured */
	double interval_s;
	const struct host_info *host;
	const struct probe_status *probes;
	int nr_probes;
	/* What the attached probes measure (measures.h): the rest the renderers show as not
	 * measured (null, n/a), never as zero. */
	bool measured[NR_MEASURES];
	/* Names of kernel enum values from its BTF, lowercased, without their prefix:
	 * enum scan_result, enum tlb_flush_reason, enum lru_list. *_known: which values the
	 * kernel names (the others are shown only when nonzero). */
	const char (*scan_names)[FS_ENUM_NAME_LEN];
	const char (*tlb_names)[FS_ENUM_NAME_LEN];
	const bool *tlb_known;
	const char (*lru_names)[FS_ENUM_NAME_LEN];
	const bool *lru_known;
	bool mglru; /* multi-generational LRU is on: activations are not reported the same way */
	const struct kernel_counters *kernel; /* THP counters' change over the window */
	const struct self_cost *self;	      /* foliostat's own cost (--self), or NULL */
	const char *attribution; /* how events find their thread: "records", "lookups" */
	struct system_totals system;
	const struct row_table *rows; /* ranked, most active first */
	const struct file_summary *files;      /* --files, or NULL */
	const struct resident_report *resident; /* --resident, or NULL */
	const struct free_blocks *free;		/* free memory by block size, or NULL */
	size_t resident_shown;			/* its processes to print (--top) */
	size_t nr_shown;		       /* how many of them to print (--top) */
};

/* Folios or pages (amount) allocated on `node`: BPF's count where it counts per node, else (one
 * node) every allocation on the host's node and none on another. */
__u64 node_allocated(const struct fs_totals *c, const struct memory_nodes *nodes, int node,
		     enum fs_amount amount);
/* The same by order, out[order], of an object whose counter group is `c` and whose allocations
 * by node and order (a process's, or the system's, where counted) are `by_node`. */
void node_allocated_orders(const __u64 by_node[FS_MAX_NODES][FS_NR_ORDERS],
			   const struct fs_totals *c, const struct memory_nodes *nodes, int node,
			   __u64 out[FS_NR_ORDERS]);

__u64 fault_count(const struct fs_totals *c, enum fs_fault_counter f); /* from the kinds */


/* Renderers return 0, or -1 with errno set when the output could not be written. */
int render_json(FILE *out, const struct fs_report *report);
int render_table(FILE *out, const struct fs_report *report);
/* Streaming in table mode (render_line.c): a line per record, under a line of headings. */
void render_line_header(FILE *out, const struct fs_report *report);
int render_line(FILE *out, const struct fs_report *report);

#endif
