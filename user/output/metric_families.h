/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exposition's families, as data: one row per family foliostat exports (the groups' and the
 * system's counters, the system's own figures, what memory holds, free memory, foliostat's own
 * health and bounds), saying once its name, type, HELP, labels, what measures it, how its
 * samples are written (its kind: exposition.c has one writer per kind, none per family) and
 * what foliostat-metrics(7) and docs/prometheus.md say of it (`make docs` generates both
 * lists). A record figure (record_layout.c) names the families that expose it by their id, so
 * a counter figure is declared in its record row and in the family rows that row points to.
 * No HELP text is written from anywhere else (tests/unit/test_figures.c).
 */
#ifndef FS_METRIC_FAMILIES_H
#define FS_METRIC_FAMILIES_H

#include <stdbool.h>
#include <linux/types.h>

#include "measures.h"

/* The families, in the order the exposition writes them; MF_NONE ends a record figure's list. */
enum metric_id {
	MF_NONE,
	/* a word of each group's counters, and the system's */
	MF_FOLIOS_ALLOCATED,
	MF_ALLOCATED_BYTES,
	MF_PAGECACHE_FOLIOS,
	MF_PAGECACHE_BYTES,
	MF_ALLOC_FAILED,
	MF_DISCARDED,
	MF_NODE_FOLIOS,
	MF_NODE_BYTES,
	MF_THP_FAULT_ALLOC,
	MF_PAGE_FAULTS,
	MF_PAGE_FAULTS_BY_MODE,
	MF_FILE_FAULTS,
	MF_MAJOR_FAULTS,
	MF_MINOR_FAULTS,
	MF_TLB_FLUSHES,
	MF_TLB_PAGES,
	MF_TLB_FULL,
	MF_LRU_INSERTED_FOLIOS,
	MF_LRU_INSERTED_PAGES,
	MF_LRU_ACTIVATED_FOLIOS,
	MF_LRU_ACTIVATED_PAGES,
	MF_MIGRATE,
	/* a process's figures (collapses, stalls, by node and order), and the system's */
	MF_COLLAPSE_RESULTS,
	MF_COLLAPSE_ZERO_FILLED,
	MF_STALL_SECONDS,
	MF_STALL_RECLAIMED,
	MF_COMPACTION_BY_ORDER,
	MF_COMPACTION_BY_ORDER_SECONDS,
	MF_NODE_ORDERS,
	/* the system's alone */
	MF_SYSTEM_FREED,
	MF_SYSTEM_FREED_BYTES,
	MF_SYSTEM_VMSTAT,
	MF_SYSTEM_MTHP,
	MF_SYSTEM_VMSCAN,
	MF_SYSTEM_KSWAPD_WAKES,
	MF_SYSTEM_RECLAIM_WRITTEN,
	MF_SYSTEM_PROCESSES,
	/* foliostat itself */
	MF_BUILD_INFO,
	MF_START_TIME,
	MF_PROBE_ATTACHED,
	MF_BPF_RUNS,
	MF_BPF_RUN_SECONDS,
	MF_BPF_MISSED_RUNS,
	MF_UNTRACKED_EVENTS,
	MF_LOADER_CPU,
	MF_LOADER_RESIDENT,
	MF_SERIES,
	MF_SERIES_FOLDED,
	MF_BOUND_LIMIT,
	MF_BOUND_ENTRIES,
	MF_BOUND_EVICTIONS,
	MF_SCRAPES,
	MF_SCRAPE_DURATION,
	/* free memory by block size */
	MF_FREE_BLOCKS,
	MF_FREE_UNUSABLE,
	MF_FREE_BY_MIGRATE_TYPE,
	/* what memory holds (--resident) */
	MF_RESIDENT_BYTES,
	MF_RESIDENT_LARGE_FOLIOS,
	MF_RESIDENT_OLDEST,
	MF_RESIDENT_PROCESSES,
	MF_RESIDENT_CUT_SHORT,
	MF_RESIDENT_PASSES,
	MF_RESIDENT_PASS_SECONDS,
	MF_RESIDENT_PASS_CPU,
	NR_METRIC_FAMILIES,
};

/* Where the docs list a family, and which the exposition writes: the groups' families (and the
 * system's of each), the system's alone, --resident's, free memory's (where read), foliostat's. */
enum metric_section {
	SECTION_GROUPS,
	SECTION_SYSTEM,
	SECTION_RESIDENT,
	SECTION_FREE_MEMORY,
	SECTION_SELF,
	NR_METRIC_SECTIONS,
};

enum metric_type { METRIC_COUNTER, METRIC_GAUGE, METRIC_HISTOGRAM, METRIC_INFO };

/* How a family's samples are written: one writer each (exposition_families.c). */
enum metric_kind {
	MK_BY_DIMS, /* each group's and the system's counters, per (a, b) of dim_a, dim_b */
	MK_COLLAPSE_RESULTS, /* by event and the kernel's scan result, the groups with outcomes */
	MK_COLLAPSE_COUNT,   /* a word of the collapse outcomes (`at`), the groups with outcomes */
	MK_STALL_HISTOGRAM,  /* a histogram per stall kind */
	MK_STALL_RECLAIMED,  /* pages reclaimed in reclaim stalls, by kind */
	MK_STALLS_BY_ORDER,  /* direct compaction stalls by order (`seconds`: their time) */
	MK_NODE_ORDERS,	     /* folios allocated by node and order */
	MK_SYSTEM_ORDERS,    /* the system's histogram by order at `at` (words of system_totals) */
	MK_SYSTEM_BYTES,     /* its bytes */
	MK_KERNEL_VMSTAT,    /* the kernel's thp_* vmstat counters */
	MK_KERNEL_MTHP,	     /* the kernel's per-size mTHP counters */
	MK_VMSCAN,	     /* pages by reclaimer, action and list */
	MK_COUNT,	     /* one sample: the word at `at` of struct metric_scalars */
	MK_REAL,	     /* one sample: the double at `at` of struct metric_scalars, %.9g */
	MK_UNIX_TIME,	     /* one sample: the same with six decimals (10 digits before them) */
	MK_BUILD_INFO,	     /* foliostat's version */
	MK_PROBE_ATTACHED,   /* 1 or 0 per probe that is needed */
	MK_PER_PROBE,	     /* the words at `at` of struct self_cost, per attached probe */
	MK_BOUND,	     /* the word at `at` of struct bound_count, per structure in use */
	MK_RESIDENT,	     /* per row of --resident: at 0, bytes by type and order; else large
			      * folios by type and mapping */
	MK_FREE_ZONES,	     /* per node, zone and order: at 0, blocks; 1, the unusable share; 2,
			      * blocks by migrate type (where read) */
	NR_METRIC_KINDS,
};

/* foliostat's figures that have a family of one sample, gathered once per exposition: a
 * family's `at` is the offset of its field. */
struct metric_scalars {
	__u64 kswapd_wakes, reclaim_written, processes;
	__u64 untracked_events, loader_resident, series, series_folded, scrapes;
	__u64 resident_processes, resident_cut_short, resident_passes;
	double start_time, loader_cpu, scrape_duration;
	double resident_oldest, resident_pass_seconds, resident_pass_cpu;
};

struct fs_totals;
struct host_info;
typedef __u64 (*figure_value_fn)(const struct fs_totals *c, int a, int b,
				 const struct host_info *host);

struct metric_family {
	/* after foliostat_; the system's family of a group's is foliostat_system_ + it */
	const char *name;
	/* What one of its samples counts or measures: a family's one unit, which its name says
	 * where it is bytes or seconds (the Prometheus convention; tests/unit/test_figures.c) */
	const char *unit;
	unsigned char section;	    /* enum metric_section */
	unsigned char type;	    /* enum metric_type */
	unsigned char kind;	    /* enum metric_kind */
	unsigned char dim_a, dim_b; /* enum figure_dim (figures.h): its labels by index */
	const char *help;	    /* its HELP line (the groups' family's) */
	const char *system_help;    /* the system's family's (NULL: the same) */
	/* Its labels where the dimensions do not say them (NULL: none), in the order samples have
	 * them (tests/unit/test_figures.c), as foliostat-metrics(7) says them: "event, result" */
	const char *labels;
	const char *doc; /* foliostat-metrics(7)'s paragraph, in roff (NULL: the HELP) */
	/* docs/prometheus.md's table: labels (NULL: the label names) and meaning */
	const char *md_labels, *md_meaning;
	/* Shown where one of these is measured, or one of dim_a's samples is (the dimension's
	 * measures, figures.h: faults by mode, each mode's tracepoint or perf's event; migration's
	 * large_folio_split only on kernels that report it), never where `unless` is (faults by
	 * mode alone, where they are by kind); with none of either, always. A sample not measured
	 * is left out, never written as 0. */
	enum fs_measure any_of[4], unless;
	/* MK_BY_DIMS: the value at (a, b) is value's, or where it is NULL, the word of struct
	 * fs_totals at word `at` + a * stride_a + b * stride_b; other kinds: see the kind */
	figure_value_fn value;
	unsigned short at, stride_a, stride_b;
	bool seconds;  /* nanoseconds, written as seconds */
	bool run_time; /* MK_PER_PROBE: only where the run time is counted (--self) */
};

extern const struct metric_family metric_families[NR_METRIC_FAMILIES];

/* Whether family m is shown with these measures (figures.c). */
bool metric_shown(enum metric_id m, const bool measured[NR_MEASURES]);
/* Whether its samples at a (of dim_a) are: each where its own measure is. */
bool metric_shown_at(enum metric_id m, const bool measured[NR_MEASURES], int a);

#endif /* FS_METRIC_FAMILIES_H */
