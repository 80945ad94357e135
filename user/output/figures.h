/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The figure registry: one row per figure a group (a process, cgroup or name, and the other,
 * interrupt, untracked and unselected groups) and the system are charged with, saying once
 * what it is called, what it counts, by which dimensions, and which probes measure it. The
 * exposition's per-group families are made from it, whether a figure is measured is derived
 * from it (never set by hand), and foliostat(8)'s list of those families is generated from it
 * (`make docs`; tests/integration_docs.sh fails when the checked-in copy differs).
 */
#ifndef FS_FIGURES_H
#define FS_FIGURES_H

#include <stdbool.h>
#include <linux/types.h>

#include "counters.h"
#include "loader.h"

/* What a figure's samples are told apart by: each dimension is one or two labels. */
enum figure_dim {
	DIM_NONE,
	DIM_ORDER,	 /* order: 0 .. 15 */
	DIM_LARGE_ORDER, /* order: 1 .. 15 (order 0 is never a large folio) */
	DIM_FOLIO_KIND,	 /* kind: movable, kernel */
	DIM_FAULT_MODE,	 /* mode: user, kernel */
	/* mode and access together (one index per pair): user/read ... kernel/exec */
	DIM_FAULT_MODE_ACCESS,
	DIM_FAULT_CAUSE,     /* cause: not_present, protection */
	DIM_TLB_REASON,	     /* reason: the kernel's enum tlb_flush_reason */
	DIM_LRU_LIST,	     /* list: the kernel's enum lru_list */
	DIM_MIGRATE_COUNTER, /* counter: succeeded, failed, thp_succeeded, ... */
	NR_FIGURE_DIMS,
};

/* Beside the probes, what the host must be for a figure to be measured. */
enum figure_condition {
	WHEN_ALWAYS,
	/* Faults by access and cause: both exceptions tracepoints (x86) */
	WHEN_FAULT_KINDS,
	/* Faults by mode only: perf's page-fault event, or one exceptions tracepoint alone */
	WHEN_NO_FAULT_KINDS,
	/* Activations are not counted the same way under the multi-generational LRU */
	WHEN_NOT_MGLRU,
};

typedef __u64 (*figure_value_fn)(const struct fs_totals *c, int a, int b, long page_size);

struct figure {
	const char *metric; /* the family's name after foliostat_ (groups), foliostat_system_ */
	const char *help;   /* its HELP line */
	/* foliostat(8)'s paragraph after "Labels: ...", in the man page's roff; NULL: the HELP */
	const char *doc;
	enum figure_dim dim_a, dim_b; /* DIM_NONE where it has fewer */
	/* The figure of one group's counters at (a, b): `value`'s, or where it is NULL, the word
	 * of struct fs_totals at word index `at` + a * `stride_a` + b * `stride_b`. */
	figure_value_fn value;
	/* Measured when every probe of `all` is attached, or where `all` is empty, one of
	 * `any`; and the condition holds. Probes are enum fs_probe + 1: 0 ends a list. */
	unsigned char all[3], any[4];
	enum figure_condition when;
	unsigned short at, stride_a, stride_b;
	/* Where a figure's samples are measured by different probes (faults by mode alone: each
	 * mode's tracepoint, or perf's event for both), whether the samples at a are; NULL: all
	 * are, where the figure is. A sample not measured is left out, never written as 0. */
	bool (*measured_at)(const struct probe_status *probes, int a);
};

extern const struct figure group_figures[];
extern const int nr_group_figures;

/* A dimension's label names (the second only for DIM_FAULT_MODE_ACCESS), its size, and how
 * foliostat(8) names its labels where that says more than the names. */
struct figure_dim_info {
	const char *label, *label2;
	int size;
	const char *doc;
};
extern const struct figure_dim_info figure_dims[NR_FIGURE_DIMS];

/* f's value in a group's counters at (a, b) (page_size: for figures in bytes). */
__u64 figure_value(const struct figure *f, const struct fs_totals *c, int a, int b, long page_size);

/* Faults of a mode (0 user, 1 kernel) counted without access and cause: by that mode's
 * exceptions tracepoint, or by perf's page-fault event (both modes). */
bool fault_mode_measured(const struct probe_status *probes, int mode);

/* Whether `f` is measured with these probe states on this host (mglru: the multi-generational
 * LRU is on). */
bool figure_measured(const struct figure *f, const struct probe_status *probes, bool mglru);

#endif /* FS_FIGURES_H */
