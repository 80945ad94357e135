/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The JSON record's figures, as data: one row per member of a group's object (a process, cgroup
 * or name row; the interrupt, untracked and unselected groups; the system), in the order they
 * are written, each with its key, its depth below the group's object, where it appears, what it
 * holds and where its words are, what measures it (null where that is not measured: derived
 * from the registry's rules, measures.h), its one-line meaning, and the exposition's families
 * that expose it (metric_families.h). render_json.c writes a
 * group's object by walking the rows; `make docs` generates the schema's figure members and
 * foliostat(8)'s list of them from the same rows (scripts/gen-docs.c), so a figure added here is
 * written, validated and documented at once.
 */
#ifndef FS_RECORD_LAYOUT_H
#define FS_RECORD_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "measures.h"
#include "metric_families.h"

/* Where a row appears: a bit per kind of object. */
enum record_scope {
	IN_ROW = 1,    /* a process, cgroup or name row (--by) */
	IN_GROUP = 2,  /* the system's interrupt, untracked and unselected groups */
	IN_SYSTEM = 4, /* the system's object */
	IN_ALL = IN_ROW | IN_GROUP | IN_SYSTEM,
};

/* Whose words a row reads: the object's counter group (struct fs_totals), a row's process-level
 * figures (struct proc_totals: collapses and stalls), the system's (struct
 * system_totals). */
enum record_source { FROM_TOTALS, FROM_PROC, FROM_SYSTEM, NR_RECORD_SOURCES };

/* What a row holds, and so how it is written and what its schema is. */
enum record_kind {
	RK_OBJECT,	    /* its members: the rows after it, one level deeper */
	RK_COUNT,	    /* a word */
	RK_MICROS,	    /* a word of nanoseconds, written in microseconds */
	RK_FAULTS,	    /* fault_count() of the counter group's `arg` (enum fs_fault_counter) */
	RK_ORDERS,	    /* a folio histogram: order -> folios, zero orders left out; `arg`
			     * adjacent histograms summed (alloc: movable + kernel), 0 meaning 1 */
	RK_STALL_HIST,	    /* a stall histogram: bucket's lower bound in us -> stalls */
	RK_STALLS_BY_ORDER, /* struct fs_order_stalls: order -> {stalls, total_us} */
	RK_SCAN_RESULTS,    /* enum scan_result -> count, zero results left out */
	RK_TLB_REASONS,	    /* reason -> flushes: every reason the kernel names, others if not 0 */
	RK_LIST_AMOUNTS,    /* LRU list -> {folios, pages}: every list the kernel names */
	RK_LIST_PAGES,	    /* LRU list -> pages: every list the kernel names */
	RK_VMSTAT,	    /* the change of each thp_* counter of /proc/vmstat */
	RK_MTHP,	    /* mTHP size -> the change of each counter of its stats */
	RK_MGLRU,	    /* whether the multi-generational LRU is on */
	RK_PROCESSES,	    /* how many processes had events */
	RK_GROUP,	    /* a group's object: the rows IN_GROUP over the counter group here */
	RK_FREE_MEMORY,	    /* free blocks by order per node and zone (free_blocks.h) */
	RK_NODE_AMOUNTS,    /* node -> {folios, pages} allocated: every node with memory */
	RK_NODE_ORDERS,	    /* node -> folios allocated by order: every node with memory */
	NR_RECORD_KINDS,
};

/* A row's words: in `from`'s struct, at this word index. */
struct record_place {
	unsigned char from; /* enum record_source */
	unsigned short at;
};

struct record_figure {
	unsigned char depth;	 /* 0: a member of the group's object */
	unsigned char scopes;	 /* enum record_scope bits */
	unsigned char kind;	 /* enum record_kind */
	unsigned char arg;	 /* see enum record_kind */
	enum fs_measure measure; /* null where not measured; MEASURE_NONE: never null */
	const char *key;
	/* its words in a row's object and the groups' (row), in the system's (system) */
	struct record_place row, system;
	const char *doc; /* one sentence, plain text: the schema's description, foliostat(8)'s */
	/* The exposition's families that expose it (enum metric_id, metric_families.h; MF_NONE
	 * ends the list): a family is shown exactly where one of its figures is measured. */
	unsigned char exposed_by[3];
	/* The integration test (a test_ function of tests/integration_*.sh) that checks its value
	 * against an independent count: the workload's known events, perf, /proc, sysfs. NULL:
	 * none yet, an object's members' own, or a figure only the suite's invariants check (the
	 * unit test figures_name_their_tests lists those, and fails on a new one). */
	const char *test;
};

extern const struct record_figure record_figures[];
extern const int nr_record_figures;

/* One object the rows are read in: its scope, and the structs its rows' words are in (those of
 * the sources its rows name). */
struct figures_view {
	enum record_scope scope;
	const __u64 *from[NR_RECORD_SOURCES];
};

/* Row i's words in the object v. */
static inline const __u64 *record_figure_words(const struct figures_view *v, int i)
{
	const struct record_figure *f = &record_figures[i];
	const struct record_place *place = v->scope == IN_SYSTEM ? &f->system : &f->row;

	return v->from[place->from] + place->at;
}

/* Row i's folios by order in v, a histogram's (RK_ORDERS): its `arg` histograms summed. */
void record_figure_orders(const struct figures_view *v, int i, __u64 hist[]);

/* Whether row i is measured: what measures it and each object it is in (null where not). */
bool record_figure_measured(int i, const bool measured[NR_MEASURES]);

/* The index of the row at `path` ("faults.user"), or -1. */
int record_figure_find(const char *path);

/* Row i's path below a group's object: "thp.compaction.by_order". */
void record_figure_path(int i, char *path, size_t len);

/* The index of the row after i's members (i's next sibling, or its parent's). */
int record_figure_skip(int i);

#endif /* FS_RECORD_LAYOUT_H */
