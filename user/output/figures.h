/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the figure registry's rows (the record's, record_layout.h; the exposition's families,
 * metric_families.h) share: one rule per measure (measures.h) saying which probes, and what of
 * the host, it needs, and the dimensions samples are labelled by. Whether anything a record
 * shows is measured (JSON's null, the table's n/a, a family left out) is derived from those
 * rules alone, never set by hand.
 */
#ifndef FS_FIGURES_H
#define FS_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "counters.h"
#include "figure_names.h"
#include "loader.h"
#include "measures.h"
#include "metric_families.h"

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

/* A dimension's label names (the second only for DIM_FAULT_MODE_ACCESS), its size, how
 * foliostat-metrics(7) names its labels where that says more than the names, its label values
 * where they are the same on every host (NULL: read from the report: the kernel's names, the
 * host's nodes), and what measures the samples at each index where that is not the family's
 * (NULL: the family's). */
struct figure_dim_info {
	const char *label, *label2;
	int size;
	const char *doc;
	const char *const *values, *const *values2;
	const enum fs_measure *measures;
};
extern const struct figure_dim_info figure_dims[NR_FIGURE_DIMS];

/* Family m's value in a group's counters at (a, b) (MK_BY_DIMS; the host: its page size for
 * figures in bytes, its nodes for figures by node). */
__u64 metric_value(enum metric_id m, const struct fs_totals *c, int a, int b,
		   const struct host_info *host);

#endif /* FS_FIGURES_H */
