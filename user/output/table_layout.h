/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The table's sections, as data: each a title and lines, each line a kind of renderer
 * (render_table.c), its label and the registry figures it shows (record_layout.c, by path),
 * so that the table reads the words JSON reads, and shows "n/a" where the registry says a
 * figure is not measured. A figure added to the registry reaches the table by a line here.
 */
#ifndef FS_TABLE_LAYOUT_H
#define FS_TABLE_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

/* The most figures (or headings) one line names: the ten fault counters, or a section's
 * condition. */
#define TABLE_MAX_CELLS 14

enum table_line_kind {
	LINE_SECTION,	    /* begins a section: its title, headings, when and whose it is */
	LINE_HEADER,	    /* the window, the host, the probes not attached */
	LINE_COLUMNS,	    /* a label, then a cell per figure; a line per entry of a figure by LRU
			     * list, TLB reason, node or kernel counter (its name in the label) */
	LINE_SENTENCE,	    /* prose with figures in it, as its format says */
	LINE_LIST,	    /* "    label   name 4, name 2": a figure's nonzero entries in a line */
	LINE_HISTOGRAM,	    /* a figure by order, or a stall histogram, as bars */
	LINE_ROWS,	    /* the rows' table (row_columns.c) and its legend */
	LINE_WATERFALL,	    /* what THP faults got: huge pages, fallbacks, and free blocks */
	LINE_COST_BY_ORDER, /* compaction stalls by order, and their time per folio allocated */
	LINE_RESIDENT,	    /* --resident's tables (render_resident.c) */
	LINE_FILES,	    /* --files' tables */
	LINE_SELF,	    /* --self's tables */
};

/* When a line (or a section) is shown. */
enum table_line_when {
	WHEN_ALWAYS,	       /* its figures, or n/a where one is not measured */
	WHEN_MEASURED,	       /* where its figures are measured */
	WHEN_NONZERO,	       /* where its first figure is not zero (of each entry: a line each) */
	WHEN_ANY_NONZERO,      /* where one of its figures is not zero (of each entry) */
	WHEN_NONZERO_IN_BLOCK, /* where its first figure is not zero under lines of its block */
	WHEN_GROUP_ACTIVE,     /* where the group it is in had events */
	WHEN_MGLRU_UNMEASURED, /* where its first figure is not measured, the multi-gen LRU on */
	WHEN_WITH_PREVIOUS,    /* a section shown where the one before it is */
};

/* How a cell shows its figure: a count (summed over its entries), folios or pages (of a
 * histogram, or of an amount by list or node), pages as MiB, nanoseconds as ms, or a change
 * that may be negative. */
enum table_cell_shows {
	CELL_COUNT,
	CELL_FOLIOS,
	CELL_PAGES,
	CELL_MIB,
	CELL_MS,
	CELL_SIGNED,
};

struct table_cell {
	const char *figure;  /* the registry's path; NULL: a heading */
	unsigned char shows; /* enum table_cell_shows */
	unsigned char width;
	const char *heading; /* a section's column heading */
};

/* Whose name a block of lines goes under: fixed text, "pid N (comm)", or the row as --by
 * names it; and how: in its histograms' titles, in a line of its own before its first line
 * shown, or (--by process) in a line naming its cgroup. */
enum table_who { WHO_TEXT, WHO_PID, WHO_ROW };
enum table_who_shown { WHO_IN_TITLES, WHO_LINE, WHO_CGROUP_LINE };

/* Each of the top rows, for a section's `rows`. */
#define TABLE_EACH_ROW 255

struct table_line {
	unsigned char kind;  /* enum table_line_kind */
	unsigned char when;  /* enum table_line_when */
	unsigned char width; /* COLUMNS: the label's columns; SECTION: the title's */
	/* COLUMNS: cells show what was counted even where it is not measured, as the table
	 * always has for allocations and reclaim (a SENTENCE's figures always are) */
	bool raw;
	/* COLUMNS: its label, "%s" the entry's name; SENTENCE: what "%s" says; LIST: its label
	 * (NULL: the figure's key); HISTOGRAM: its title after the block's name; SECTION: its
	 * title (NULL: none) */
	const char *label;
	const char *format; /* SENTENCE: printf's, each conversion but %s a cell's figure */
	/* A group of the system's ("interrupt", "untracked") whose figures the line shows; NULL:
	 * its section's */
	const char *in;
	/* The figures it shows; a SECTION's: its column headings, and the figures its `when`
	 * looks at, in the system's figures */
	struct table_cell cells[TABLE_MAX_CELLS];
	/* SECTION: whose figures its lines show: the system's (0), or each of the top `rows`
	 * rows' (TABLE_EACH_ROW: all those shown) in turn; and their blocks' names */
	unsigned char rows, who, who_shown; /* enum table_who, enum table_who_shown */
	const char *who_text;
};

extern const struct table_line table_lines[];
extern const size_t nr_table_lines;

/* The `in` group's slot for table_line_figure(). */
#define TABLE_IN_GROUP TABLE_MAX_CELLS

/* The registry row of line `at`'s cell k (or TABLE_IN_GROUP), -1 for none: found by path
 * once. A path the registry lacks, or a figure of a kind its line cannot show, stops the
 * program at the first table, saying which (table_layout_check()). */
int table_line_figure(size_t at, int k);

/* Whether every figure `lines` name (table_lines, or a test's) is in the registry, of a kind
 * its line shows; if not, what is wrong, in `why`. */
bool table_layout_check(const struct table_line *lines, size_t nr, char *why, size_t len);

#endif /* FS_TABLE_LAYOUT_H */
