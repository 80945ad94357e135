/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The figure registry: one row per figure a group (a process, cgroup or name, and the other,
 * interrupt, untracked and unselected groups) and the system are charged with, saying once
 * what it is called, what it counts, by which dimensions, and what measures it; and one rule
 * per measure (measures.h) saying which probes, and what of the host, it needs. Whether
 * anything a record shows is measured (JSON's null, the table's n/a, a family left out) is
 * derived from those rules alone, never set by hand. The exposition's per-group families are
 * made from the rows, and foliostat(8)'s list of those families is generated from them
 * (`make docs`; tests/integration_docs.sh fails when the checked-in copy differs).
 */
#ifndef FS_FIGURES_H
#define FS_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "counters.h"
#include "loader.h"
#include "measures.h"

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
	DIM_NODE,	     /* node: the host's nodes with memory */
	NR_FIGURE_DIMS,
};

/* When a measure (measures.h) is measured: every probe of `all` attached, or where `all` is
 * empty, one of `any`; and the host's condition holding. Probes are enum fs_probe + 1: 0 ends
 * a list. */
enum measure_condition {
	WHEN_PROBES,
	/* Activations are not counted the same way under the multi-generational LRU */
	WHEN_NOT_MGLRU,
	/* The kernel's mm_migrate_pages reports large folio splits (not 6.1's) */
	WHEN_LARGE_FOLIO_SPLIT,
	/* The node of each allocation is known: one node, or page flags checked (nodes.h) */
	WHEN_NODES_KNOWN,
};

struct measure_rule {
	unsigned char all[3], any[3];
	enum measure_condition when;
};
extern const struct measure_rule measure_rules[NR_MEASURES];

/* What the host is, beside its probes, for the conditions above. */
struct measure_facts {
	bool mglru;		  /* the multi-generational LRU is on */
	bool migrate_large_split; /* mm_migrate_pages has large_folio_split */
	bool nodes_known;	  /* memory_nodes.known */
};

/* Which measures these probe states and facts give: the one place a record's "measured" is
 * decided. */
void measures_derive(const struct probe_status *probes, const struct measure_facts *facts,
		     bool measured[NR_MEASURES]);

/* What measure m needs, in words: "kmem:mm_page_free and pagemap:mm_lru_insertion attached",
 * "exceptions:page_fault_user or software:page-faults attached", and the host's condition. */
void measure_needs(enum fs_measure m, char *text, size_t len);

/* The measures of a started loader's probes on this host, with the multi-generational LRU on or
 * off (measures_derive()). */
void measures_of(const struct loader *loader, bool mglru, bool measured[NR_MEASURES]);

typedef __u64 (*figure_value_fn)(const struct fs_totals *c, int a, int b,
				 const struct host_info *host);

struct figure {
	const char *metric; /* the family's name after foliostat_ (groups), foliostat_system_ */
	const char *help;   /* its HELP line */
	/* foliostat(8)'s paragraph after "Labels: ...", in the man page's roff; NULL: the HELP */
	const char *doc;
	/* The record figures (record_layout.c) it exposes, by path, space-separated: it is shown
	 * exactly where one of them is measured (tests/unit/test_figures.c) */
	const char *record;
	enum figure_dim dim_a, dim_b; /* DIM_NONE where it has fewer */
	/* The figure of one group's counters at (a, b): `value`'s, or where it is NULL, the word
	 * of struct fs_totals at word index `at` + a * `stride_a` + b * `stride_b`. */
	figure_value_fn value;
	/* Its family is shown where `measure` is measured, or where `measure_at` is given, where
	 * one of its samples is: the sample at a is measured by measure_at[a] (faults by mode:
	 * each mode's tracepoint, or perf's event for both; migration: large_folio_split only on
	 * kernels that report it). A sample not measured is left out, never written as 0. And
	 * never where `unless` is measured (faults by mode alone, where they are by kind). */
	enum fs_measure measure;
	const enum fs_measure *measure_at;
	enum fs_measure unless;
	unsigned short at, stride_a, stride_b;
};

extern const struct figure group_figures[];
extern const int nr_group_figures;

/*
 * The exposition's other families: the process-level figures (collapse outcomes, stalls,
 * compaction by order), whose layouts are their own, and the system's own figures. Each row
 * says once what the family is called, what it says (HELP, and foliostat(8)'s entry), which
 * record figures it exposes, and what must be measured for it to be shown; exposition.c writes
 * its samples by its layout (one per row).
 */
enum family_layout {
	FAMILY_COLLAPSE_RESULTS,       /* by event and the kernel's result, the groups with any */
	FAMILY_COLLAPSE_ZERO_FILLED,   /* pages collapses filled with zeroes, the groups with any */
	FAMILY_STALL_SECONDS,	       /* a histogram of each stall kind */
	FAMILY_STALL_RECLAIMED,	       /* pages reclaimed in reclaim stalls, by kind */
	FAMILY_COMPACTION_BY_ORDER,    /* direct compaction stalls, by order */
	FAMILY_COMPACTION_BY_ORDER_S,  /* their seconds */
	FAMILY_NODE_ORDERS,	       /* folios allocated, by node and order */
	FAMILY_SYSTEM_FREED,	       /* folios freed, by order */
	FAMILY_SYSTEM_FREED_BYTES,     /* their bytes */
	FAMILY_SYSTEM_VMSTAT,	       /* the kernel's thp_* vmstat counters */
	FAMILY_SYSTEM_MTHP,	       /* the kernel's per-size mTHP counters */
	FAMILY_SYSTEM_VMSCAN,	       /* pages by reclaimer, action and list */
	FAMILY_SYSTEM_KSWAPD_WAKES,    /* kswapd wake-ups */
	FAMILY_SYSTEM_RECLAIM_WRITTEN, /* pages written back by reclaim */
	FAMILY_SYSTEM_PROCESSES,       /* rows with activity */
	NR_FAMILY_LAYOUTS,
};

struct family {
	/* after foliostat_ for the groups' family, which foliostat_system_ + it has for the
	 * system's; or, where there is no groups' family, the system's whole name after
	 * foliostat_ */
	const char *metric;
	bool system_only;
	const char *type;	       /* counter, gauge, histogram */
	const char *help, *system_help; /* HELP of the groups' family, and of the system's */
	const char *labels;	       /* foliostat(8): "Labels: ..." (NULL: none) */
	const char *doc;	       /* foliostat(8)'s paragraph, in roff */
	const char *record;	       /* the record figures it exposes, as struct figure's */
	/* shown where one of these is measured (none listed: always) */
	enum fs_measure any_of[4];
};
extern const struct family families[NR_FAMILY_LAYOUTS];

/* Whether family `layout` is shown with these measures. */
bool family_shown(enum family_layout layout, const bool measured[NR_MEASURES]);

/* A dimension's label names (the second only for DIM_FAULT_MODE_ACCESS), its size, and how
 * foliostat(8) names its labels where that says more than the names. */
struct figure_dim_info {
	const char *label, *label2;
	int size;
	const char *doc;
};
extern const struct figure_dim_info figure_dims[NR_FIGURE_DIMS];

/* f's value in a group's counters at (a, b) (the host: its page size for figures in bytes, its
 * nodes for figures by node). */
__u64 figure_value(const struct figure *f, const struct fs_totals *c, int a, int b,
		   const struct host_info *host);

/* Whether f's family, and its sample at a, are measured in a record with these measures. */
bool figure_measured(const struct figure *f, const bool measured[NR_MEASURES]);
bool figure_measured_at(const struct figure *f, const bool measured[NR_MEASURES], int a);

#endif /* FS_FIGURES_H */
