// SPDX-License-Identifier: GPL-2.0
/* The table's sections and lines (see table_layout.h), in the order they are printed. */
#include "table_layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figure_names.h"
#include "record_layout.h"

/* clang-format off */
#define SECTION(...) {.kind = LINE_SECTION, __VA_ARGS__}
#define HEADING(text, w) {.heading = text, .width = w}
#define CELL(path, how, w) {.figure = path, .shows = how, .width = w}
#define COUNT(path, w) CELL(path, CELL_COUNT, w)
/* A figure's folios, pages and MiB, under the headings FOLIOS, PAGES, MiB. */
#define AMOUNTS(path)                                                                              \
	CELL(path, CELL_FOLIOS, 14), CELL(path, CELL_PAGES, 14), CELL(path, CELL_MIB, 12)
#define AMOUNT_HEADINGS HEADING("FOLIOS", 14), HEADING("PAGES", 14), HEADING("MiB", 12)
#define AMOUNT_LINE(text, path, ...)                                                               \
	{.kind = LINE_COLUMNS, .label = text, .width = 32, .cells = {AMOUNTS(path)}, __VA_ARGS__}
#define BLANK {.kind = LINE_SENTENCE, .format = "\n"}
/* "    compaction    3 stalls, 259.1 ms in all" (+ ", 1234 pages reclaimed"), if any. */
#define STALL_LINE(text, object)                                                                   \
	{.kind = LINE_SENTENCE, .when = WHEN_NONZERO, .label = text,                               \
	 .format = "    %-14s%llu stalls, %.1f ms in all\n",                                       \
	 .cells = {COUNT(object ".stalls", 0), CELL(object ".total_us", CELL_MS, 0)}}
#define RECLAIM_STALL_LINE(text, object)                                                           \
	{.kind = LINE_SENTENCE, .when = WHEN_NONZERO, .label = text,                               \
	 .format = "    %-14s%llu stalls, %.1f ms in all, %llu pages reclaimed\n",                 \
	 .cells = {COUNT(object ".stalls", 0), CELL(object ".total_us", CELL_MS, 0),               \
		   COUNT(object ".reclaimed", 0)}}
/* Each khugepaged event's collapse outcomes, then the pages they filled with zeroes: of
 * `object` ("thp", "thp.unattributed", ...). */
#define OUTCOMES(object)                                                                           \
	{.kind = LINE_LIST, .cells = {COUNT(object ".collapse", 0)}},                              \
	    {.kind = LINE_LIST, .cells = {COUNT(object ".collapse_file", 0)}},                     \
	    {.kind = LINE_LIST, .cells = {COUNT(object ".scan", 0)}},                              \
	    {.kind = LINE_LIST, .cells = {COUNT(object ".scan_file", 0)}},                         \
	    {.kind = LINE_SENTENCE, .when = WHEN_NONZERO_IN_BLOCK, .label = "zero-filled",         \
	     .format = "    %-14s%llu pages (%.1f MiB) of the huge pages made were filled with "   \
		       "zeroes\n",                                                                 \
	     .cells = {COUNT(object ".zero_filled", 0), CELL(object ".zero_filled", CELL_MIB, 0)}}
/* A process's (or the system's) THP faults, collapses, migration and stalls. */
#define ACTIVITY(free_blocks)                                                                      \
	OUTCOMES("thp"),                                                                           \
	    {.kind = LINE_WATERFALL,                                                               \
	     .cells = {COUNT("thp.fault_alloc", 0), COUNT("folios.discarded", 0),                  \
		       COUNT("folios.alloc_failed", 0), free_blocks}},                             \
	    {.kind = LINE_LIST, .cells = {COUNT("thp.migrate", 0)}},                               \
	    STALL_LINE(STALL_COMPACTION_NAME(TABLE_TEXT),                                          \
		       "thp." STALL_COMPACTION_NAME(JSON_KEY)),                                    \
	    {.kind = LINE_COST_BY_ORDER,                                                           \
	     .cells = {COUNT("thp.compaction.by_order", 0), COUNT("folios.alloc", 0)}},            \
	    RECLAIM_STALL_LINE(STALL_DIRECT_RECLAIM_NAME(TABLE_TEXT),                              \
			       "reclaim." STALL_DIRECT_RECLAIM_NAME(JSON_KEY)),                    \
	    RECLAIM_STALL_LINE(STALL_MEMCG_RECLAIM_NAME(TABLE_TEXT),                               \
			       "reclaim." STALL_MEMCG_RECLAIM_NAME(JSON_KEY))
/* What one reclaimer did to each LRU list. */
#define RECLAIMER_LINE(text, reclaimer)                                                            \
	{.kind = LINE_COLUMNS, .when = WHEN_ANY_NONZERO, .raw = true, .label = text, .width = 32,  \
	 .cells = {COUNT("reclaim.vmscan." reclaimer ".scanned", 14),                              \
		   COUNT("reclaim.vmscan." reclaimer ".reclaimed", 14),                            \
		   COUNT("reclaim.vmscan." reclaimer ".deactivated", 14)}}
/* The collapse outcomes of memory whose owner is not known, and the like: `object`'s, under
 * `name`. */
#define OUTCOMES_OF(object, name)                                                                  \
	SECTION(.when = WHEN_WITH_PREVIOUS, .who_text = name, .who_shown = WHO_LINE),              \
	    OUTCOMES(object)

const struct table_line table_lines[] = {
    SECTION(.when = WHEN_ALWAYS),
    {.kind = LINE_HEADER},

    SECTION(.label = "SYSTEM", .width = 32, .cells = {AMOUNT_HEADINGS}),
    /* Allocations as counted: foliostat does not run without kmem:mm_page_alloc. */
    AMOUNT_LINE("  allocated", "folios.alloc", .raw = true),
    AMOUNT_LINE("    movable (user, page cache)", "folios.alloc_movable", .raw = true),
    AMOUNT_LINE("    kernel", "folios.alloc_kernel", .raw = true),
    AMOUNT_LINE("    in interrupt context", "folios.alloc", .in = "interrupt", .raw = true),
    /* where the host has more than one node (one has them all) */
    AMOUNT_LINE("    on node %s", "folios.alloc_by_node"),
    AMOUNT_LINE("  added to the page cache", "folios.pagecache"),
    AMOUNT_LINE("  freed", "folios.free"),
    AMOUNT_LINE("  allocated, untracked (table full)", "folios.alloc", .in = "untracked",
		.when = WHEN_GROUP_ACTIVE, .raw = true),
    AMOUNT_LINE("  page cache, untracked (table full)", "folios.pagecache", .in = "untracked",
		.when = WHEN_GROUP_ACTIVE),
    BLANK,
    SECTION(.who_text = "system"),
    {.kind = LINE_HISTOGRAM, .label = "folios allocated, by order",
     .cells = {COUNT("folios.alloc", 0)}},

    /* The JSON's names, squeezed to fit 100 columns. */
    SECTION(.label = "FAULTS", .width = 8,
	    .cells = {HEADING("user", 8), HEADING("kernel", 8), HEADING("read", 8),
		      HEADING("write", 8), HEADING("exec", 8), HEADING("notprsnt", 8),
		      HEADING("protect", 8), HEADING("file", 8), HEADING("major", 8),
		      HEADING("minor", 8)}),
    {.kind = LINE_COLUMNS, .label = "  system", .width = 8,
     .cells = {COUNT("faults.user", 8), COUNT("faults.kernel", 8), COUNT("faults.read", 8),
	       COUNT("faults.write", 8), COUNT("faults.exec", 8),
	       COUNT("faults.not_present", 8), COUNT("faults.protection", 8),
	       COUNT("faults.file", 8), COUNT("faults.major", 8), COUNT("faults.minor", 8)}},
    BLANK,

    /* TLB flushes and LRU activity over the system, the nonzero parts. */
    SECTION(.when = WHEN_MEASURED, .cells = {COUNT("tlb.flushes", 0)}),
    {.kind = LINE_SENTENCE,
     .format = "TLB FLUSHES  %llu in all: %llu whole-TLB, %llu pages in ranged flushes\n",
     .cells = {COUNT("tlb.flushes", 0), COUNT("tlb.full", 0), COUNT("tlb.pages", 0)}},
    {.kind = LINE_COLUMNS, .when = WHEN_NONZERO, .label = "  %s", .width = 32,
     .cells = {COUNT("tlb.flushes", 14)}},
    BLANK,
    SECTION(.label = "LRU", .width = 32, .when = WHEN_MEASURED,
	    .cells = {AMOUNT_HEADINGS, COUNT("lru.insert", 0)}),
    AMOUNT_LINE("  added to %s", "lru.insert", .when = WHEN_NONZERO),
    {.kind = LINE_COLUMNS, .when = WHEN_MEASURED, .label = "  activated", .width = 32,
     .cells = {COUNT("lru.activate.folios", 14), COUNT("lru.activate.pages", 14),
	       CELL("lru.activate.pages", CELL_MIB, 12)}},
    {.kind = LINE_SENTENCE, .when = WHEN_MGLRU_UNMEASURED,
     .format = "  activations: not reported under the multi-generational LRU\n",
     .cells = {COUNT("lru.activate.folios", 0)}},
    BLANK,

    SECTION(.when = WHEN_ALWAYS),
    {.kind = LINE_ROWS},
    {.kind = LINE_RESIDENT},
    {.kind = LINE_FILES},
    {.kind = LINE_SELF},

    /* THP AND STALLS, only when there was any: collapse outcomes (charged to the owners of the
     * memory), THP faults, migration and stalls, for the system and each row shown; the
     * kernel's THP counters that changed; and the stall histograms of the system. */
    SECTION(.label = "THP AND STALLS", .when = WHEN_ANY_NONZERO, .who_text = "system",
	    .who_shown = WHO_LINE,
	    .cells = {COUNT("thp.migrate", 0), COUNT("thp.compaction.stalls", 0),
		      COUNT("reclaim.direct.stalls", 0), COUNT("reclaim.memcg.stalls", 0),
		      COUNT("thp.fault_alloc", 0), COUNT("folios.alloc_failed", 0),
		      COUNT("folios.discarded", 0), COUNT("thp.collapse", 0),
		      COUNT("thp.collapse_file", 0), COUNT("thp.scan", 0),
		      COUNT("thp.scan_file", 0), COUNT("thp.zero_filled", 0),
		      COUNT("thp.vmstat", 0)}),
    ACTIVITY(COUNT("free_memory", 0)),
    OUTCOMES_OF("thp.unattributed", "owner unknown"),
    OUTCOMES_OF("thp.untracked", "table full"),
    SECTION(.when = WHEN_WITH_PREVIOUS, .rows = TABLE_EACH_ROW, .who = WHO_PID,
	    .who_shown = WHO_LINE),
    ACTIVITY({0}),
    SECTION(.when = WHEN_WITH_PREVIOUS, .who_text = "system"),
    {.kind = LINE_COLUMNS, .when = WHEN_NONZERO, .label = "  %s", .width = 62,
     .cells = {CELL("thp.vmstat", CELL_SIGNED, 14)}},
    BLANK,
    {.kind = LINE_HISTOGRAM, .label = STALL_COMPACTION_NAME(TABLE_TEXT) " stalls",
     .cells = {COUNT("thp." STALL_COMPACTION_NAME(JSON_KEY) ".hist_us", 0)}},
    {.kind = LINE_HISTOGRAM, .label = STALL_DIRECT_RECLAIM_NAME(TABLE_TEXT) " stalls",
     .cells = {COUNT("reclaim." STALL_DIRECT_RECLAIM_NAME(JSON_KEY) ".hist_us", 0)}},
    {.kind = LINE_HISTOGRAM, .label = STALL_MEMCG_RECLAIM_NAME(TABLE_TEXT) " stalls",
     .cells = {COUNT("reclaim." STALL_MEMCG_RECLAIM_NAME(JSON_KEY) ".hist_us", 0)}},

    /* Reclaim by kswapd and by direct reclaimers, per LRU list, when there was any. */
    SECTION(.label = "RECLAIM (pages)", .width = 32, .when = WHEN_ANY_NONZERO,
	    .cells = {HEADING("SCANNED", 14), HEADING("RECLAIMED", 14),
		      HEADING("DEACTIVATED", 14), COUNT("reclaim.vmscan", 0)}),
    RECLAIMER_LINE("  " RECLAIMER_KSWAPD_NAME(TABLE_TEXT) " %s", RECLAIMER_KSWAPD_NAME(JSON_KEY)),
    RECLAIMER_LINE("  " RECLAIMER_DIRECT_NAME(TABLE_TEXT) " %s", RECLAIMER_DIRECT_NAME(JSON_KEY)),
    {.kind = LINE_SENTENCE,
     .format = "  kswapd wake-ups %llu, folios written by reclaim %llu (%llu pages)\n\n",
     .cells = {COUNT("reclaim.vmscan.kswapd_wakes", 0),
	       COUNT("reclaim.vmscan.written.folios", 0),
	       COUNT("reclaim.vmscan.written.pages", 0)}},

    /* The histograms of the top rows. */
    SECTION(.rows = 3, .who = WHO_ROW, .who_shown = WHO_CGROUP_LINE),
    {.kind = LINE_HISTOGRAM, .label = "folios allocated, by order",
     .cells = {COUNT("folios.alloc", 0)}},
    {.kind = LINE_HISTOGRAM, .label = "folios added to the page cache",
     .cells = {COUNT("folios.pagecache", 0)}},
};
/* clang-format on */
const size_t nr_table_lines = sizeof(table_lines) / sizeof(table_lines[0]);

#define NR_LINES (sizeof(table_lines) / sizeof(table_lines[0]))

/* Whether a figure of `kind` can be cell k of a line of `line`'s kind. */
static bool kind_fits(const struct table_line *line, int k, int kind)
{
	switch (line->kind) {
	case LINE_SECTION:
		return kind != RK_GROUP;
	case LINE_SENTENCE: /* one value each: the kernel's counters are a line each */
		if (kind == RK_VMSTAT)
			return false;
		/* fall through */
	case LINE_COLUMNS:
		return kind == RK_COUNT || kind == RK_MICROS || kind == RK_ORDERS ||
		       kind == RK_FAULTS || kind == RK_LIST_AMOUNTS || kind == RK_LIST_PAGES ||
		       kind == RK_TLB_REASONS || kind == RK_NODE_AMOUNTS || kind == RK_VMSTAT;
	case LINE_LIST:
		return kind == RK_SCAN_RESULTS || kind == RK_OBJECT || kind == RK_ORDERS;
	case LINE_HISTOGRAM:
		return kind == RK_ORDERS || kind == RK_STALL_HIST;
	case LINE_WATERFALL:
		return kind == (k == 0 ? RK_COUNT : k < 3 ? RK_ORDERS : RK_FREE_MEMORY);
	case LINE_COST_BY_ORDER:
		return kind == (k == 0 ? RK_STALLS_BY_ORDER : RK_ORDERS);
	default:
		return false;
	}
}

/* How many of a sentence's conversions are figures' (each but %s, the label, and %%). */
static int figure_conversions(const char *format)
{
	int n = 0;

	for (const char *p = format; p && (p = strchr(p, '%'));) {
		if (p[1] == '%') {
			p += 2;
			continue;
		}
		p += strcspn(p + 1, "sudf") + 1;
		if (!*p)
			break;
		n += *p++ != 's';
	}
	return n;
}

bool table_layout_check(const struct table_line *lines, size_t nr, char *why, size_t len)
{
	for (size_t at = 0; at < nr; at++) {
		const struct table_line *line = &lines[at];
		int figures = 0;

		while (figures < TABLE_MAX_CELLS && line->cells[figures].figure)
			figures++;
		/* a figure named and not shown would vanish from the table unseen, unless the line
		 * names it for its condition (whether it is measured) */
		if (line->kind == LINE_SENTENCE &&
		    (figure_conversions(line->format) > figures ||
		     (figure_conversions(line->format) < figures &&
		      line->when != WHEN_MGLRU_UNMEASURED && line->when != WHEN_MEASURED))) {
			snprintf(why, len, "line %zu: \"%s\" shows %d figures, names %d", at,
				 line->format, figure_conversions(line->format), figures);
			return false;
		}

		for (int k = 0; k <= TABLE_IN_GROUP; k++) {
			const char *path = k == TABLE_IN_GROUP ? line->in : line->cells[k].figure;
			int i = path ? record_figure_find(path) : -1;

			if (!path)
				continue;
			if (i < 0) {
				snprintf(why, len, "line %zu: no figure %s in the registry", at,
					 path);
				return false;
			}
			if (k == TABLE_IN_GROUP ? record_figures[i].kind != RK_GROUP
						: !kind_fits(line, k, record_figures[i].kind)) {
				snprintf(why, len, "line %zu: %s is of a kind the line cannot show",
					 at, path);
				return false;
			}
		}
	}
	return true;
}

int table_line_figure(size_t at, int k)
{
	static short found[NR_LINES][TABLE_MAX_CELLS + 1];
	static bool looked;
	char why[256];

	if (!looked) {
		if (!table_layout_check(table_lines, NR_LINES, why, sizeof(why))) {
			fprintf(stderr, "foliostat: the table's layout: %s\n", why);
			abort();
		}
		for (size_t l = 0; l < NR_LINES; l++)
			for (int j = 0; j <= TABLE_IN_GROUP; j++) {
				const char *path = j == TABLE_IN_GROUP
						       ? table_lines[l].in
						       : table_lines[l].cells[j].figure;

				found[l][j] = (short)(path ? record_figure_find(path) : -1);
			}
		looked = true;
	}
	return found[at][k];
}
