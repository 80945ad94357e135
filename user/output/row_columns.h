/* SPDX-License-Identifier: GPL-2.0 */
/* The columns of the rows' table (a process, cgroup or name per row): what each shows, from
 * which record figures, and the --sort keys, each of which ranks the rows by a column's figure:
 * one definition of what "pages", "faults" or "tlb" means for a row, for the table, the line
 * of streaming and the order of every output's rows. */
#ifndef FS_ROW_COLUMNS_H
#define FS_ROW_COLUMNS_H

#include <stddef.h>
#include <linux/types.h>

#include "record_layout.h"
#include "report.h"

/* How a column shows its figures: folios, or their MiB (histograms, LRU lists' amounts), a
 * count (summed over a figure's words: TLB flushes over their reasons); of a histogram, the
 * share of its pages in large folios (order 1 and up), its largest order, or its large
 * folios. */
enum column_shows {
	SHOW_FOLIOS,
	SHOW_MIB,
	SHOW_COUNT,
	SHOW_LARGE_SHARE,
	SHOW_MAX_ORDER,
	SHOW_LARGE_FOLIOS,
};

/* A column: record figures (record_layout.c, by path) added together, n/a unless each is
 * measured; its legend says what it shows, under the table. */
struct table_column {
	const char *heading;
	int width;
	enum column_shows shows;
	const char *figures[2];
	const char *legend;
};

extern const struct table_column row_columns[];
extern const size_t nr_row_columns;

/* The column of this heading (a heading no column has is the caller's mistake: abort). */
size_t row_column_named(const char *heading);
/* The registry row of the column's k-th figure (k 0 or 1), -1 where it has none. */
int row_column_figure(size_t column, int k);
/* The column's amount for the row in v: pages where it shows MiB or a share of large folios
 * (the pages in large folios), the largest order plus one (0: no folio), otherwise the count
 * it shows. */
__u64 row_column_amount(const struct figures_view *v, size_t column);
/* The figures of a row of the table. */
struct figures_view row_figures(const struct row_table *table, const struct row *row);

/* What --sort KEY ranks by, as the line above the table says it. */
const char *sort_title(enum fs_sort sort);
/* Rank the table's rows by the --sort key's column, greatest first; by events counted for
 * events, and for ties: the first `shown` rows (all of them with 0) in that order, the rest
 * after them in some order. -ENOMEM, the rows unmoved, without memory for the ranking. */
int rank_rows(struct row_table *table, enum fs_sort sort, size_t shown);

#endif
