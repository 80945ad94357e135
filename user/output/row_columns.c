// SPDX-License-Identifier: GPL-2.0
/* The rows' table's columns and the --sort keys that name them (see row_columns.h). */
#define _GNU_SOURCE /* qsort_r */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "row_columns.h"
#include "table_figures.h"

/* Whether a process gets large folios, first; then what it costs. 96 columns in all. */
/* clang-format off */
const struct table_column row_columns[] = {
    {"ALLOC_MiB", 9, SHOW_MIB, {"folios.alloc"}, "allocated"},
    {"LARGE%", 6, SHOW_LARGE_SHARE, {"folios.alloc_movable"},
     "of movable pages in large folios (order >= 1)"},
    {"MAXORD", 6, SHOW_MAX_ORDER, {"folios.alloc_movable"}, "largest order"},
    {"THP", 6, SHOW_COUNT, {"thp.fault_alloc"}, "huge-page faults that got one"},
    {"FALLBK", 6, SHOW_LARGE_FOLIOS, {"folios.alloc_failed"}, "large allocations that fell back"},
    {"DISCRD", 6, SHOW_LARGE_FOLIOS, {"folios.discarded"},
     "large folios discarded (charge refused)"},
    {"FAULTS", 9, SHOW_COUNT, {"faults.user", "faults.kernel"}, "page faults"},
    {"TLB", 8, SHOW_COUNT, {"tlb.flushes"}, "TLB flushes"},
    {"LRU_MiB", 8, SHOW_MIB, {"lru.insert"}, "put on LRU lists"},
};
/* clang-format on */
const size_t nr_row_columns = sizeof(row_columns) / sizeof(row_columns[0]);

/* Each --sort key: the column whose amount it ranks by (none: the events counted), and how the
 * line above the table says it. */
/* clang-format off */
static const struct sort_key {
	const char *column;
	const char *title;
} sort_keys[] = {
    [FS_SORT_PAGES] = {"ALLOC_MiB", "pages allocated"},
    [FS_SORT_LARGE] = {"LARGE%", "pages in large folios"},
    [FS_SORT_THP] = {"THP", "THP faults that got a huge page"},
    [FS_SORT_FALLBACK] = {"FALLBK", "large allocations that fell back"},
    [FS_SORT_FAULTS] = {"FAULTS", "page faults"},
    [FS_SORT_TLB] = {"TLB", "TLB flushes"},
    [FS_SORT_LRU] = {"LRU_MiB", "pages put on LRU lists"},
    [FS_SORT_EVENTS] = {NULL, "events counted"},
};
/* clang-format on */

size_t row_column_named(const char *heading)
{
	for (size_t c = 0; c < nr_row_columns; c++)
		if (!strcmp(row_columns[c].heading, heading))
			return c;
	abort();
}

/* The registry rows of each column's figures, found once. A path the registry does not have
 * is this file's mistake, which the first table any test renders stops at. */
int row_column_figure(size_t column, int k)
{
	static int found[sizeof(row_columns) / sizeof(row_columns[0])][2];
	static bool looked;

	if (!looked) {
		for (size_t c = 0; c < nr_row_columns; c++)
			for (int j = 0; j < 2; j++) {
				found[c][j] = -1;
				if (row_columns[c].figures[j] &&
				    (found[c][j] = record_figure_find(row_columns[c].figures[j])) <
					0)
					abort();
			}
		looked = true;
	}
	return found[column][k];
}

/* Figure i's amount in v, as column `shows` counts it: a histogram's derived here, the rest
 * as the table's cells count them (table_figures.c). */
static __u64 figure_amount_shown(const struct figures_view *v, int i, enum column_shows shows)
{
	__u64 hist[FS_NR_ORDERS];
	int top = FS_NR_ORDERS;

	if (record_figures[i].kind != RK_ORDERS || shows == SHOW_FOLIOS || shows == SHOW_MIB ||
	    shows == SHOW_COUNT)
		return figure_amount(NULL, v, i, -1,
				     shows == SHOW_FOLIOS ? CELL_FOLIOS : CELL_PAGES);
	record_figure_orders(v, i, hist);
	switch (shows) {
	case SHOW_LARGE_FOLIOS:
		return hist_large_folios(hist);
	case SHOW_LARGE_SHARE:
		return hist_large_pages(hist);
	default: /* SHOW_MAX_ORDER */
		while (top > 0 && !hist[top - 1])
			top--;
		return (__u64)top;
	}
}

__u64 row_column_amount(const struct figures_view *v, size_t column)
{
	__u64 total = 0;

	for (int k = 0; k < 2; k++) {
		int i = row_column_figure(column, k);

		if (i >= 0)
			total += figure_amount_shown(v, i, row_columns[column].shows);
	}
	return total;
}

struct figures_view row_figures(const struct row_table *table, const struct row *row)
{
	static const struct proc_totals none;
	const struct row_proc_totals *found = process_proc(table, row);

	return (struct figures_view){
	    .scope = IN_ROW,
	    .from = {[FROM_TOTALS] = (const __u64 *)&row->totals,
		     [FROM_PROC] = (const __u64 *)(found ? &found->totals : &none)}};
}

const char *sort_title(enum fs_sort sort)
{
	return sort_keys[sort].title;
}

/* A row's place in the ranking: its amount, found once per row rather than at every
 * comparison (a --sort column sums histograms: with 10,000 rows, comparing them that way was
 * half of the loader's time). */
struct ranked_row {
	__u64 amount;
	const struct row *row;
	size_t at; /* its index in the table */
};

static __u64 rank_amount(const struct row_table *table, const struct row *row, long column)
{
	struct figures_view v;

	if (column < 0)
		return row->events;
	v = row_figures(table, row);
	return row_column_amount(&v, (size_t)column);
}

static int compare_ranked(const void *a, const void *b)
{
	const struct ranked_row *ra = a, *rb = b;

	if (ra->amount != rb->amount)
		return ra->amount > rb->amount ? -1 : 1;
	return row_compare_activity(ra->row, rb->row);
}

/* rows[k] = the row ranked k-th (ranked[k].at), for k < n: n swaps at most, whatever the
 * table's size; the rest of the rows stay in some order. `where` and `whose` (nr each) track
 * which row is where as they move. */
static void bring_to_front(struct row *rows, const struct ranked_row *ranked, size_t nr, size_t n,
			   size_t *where, size_t *whose)
{
	for (size_t i = 0; i < nr; i++)
		where[i] = whose[i] = i;
	for (size_t k = 0; k < n; k++) {
		size_t wanted = ranked[k].at, at = where[wanted];
		struct row aside;

		if (at == k)
			continue;
		aside = rows[k];
		rows[k] = rows[at];
		rows[at] = aside;
		where[whose[k]] = at;
		whose[at] = whose[k];
		where[wanted] = k;
		whose[k] = wanted;
	}
}

int rank_rows(struct row_table *table, enum fs_sort sort, size_t shown)
{
	long column = sort_keys[sort].column ? (long)row_column_named(sort_keys[sort].column) : -1;
	size_t nr = table->nr, n = shown && shown < nr ? shown : nr;
	struct ranked_row *ranked;
	size_t *where, *whose;

	if (nr < 2)
		return 0;
	/* One block: the ranking, then where each row is and whose row each place holds. */
	ranked = malloc(nr * (sizeof(*ranked) + 2 * sizeof(size_t)));
	if (!ranked)
		return -ENOMEM;
	where = (size_t *)(ranked + nr);
	whose = where + nr;
	for (size_t i = 0; i < nr; i++)
		ranked[i] =
		    (struct ranked_row){.amount = rank_amount(table, &table->rows[i], column),
					.row = &table->rows[i],
					.at = i};
	qsort(ranked, nr, sizeof(*ranked), compare_ranked);
	bring_to_front(table->rows, ranked, nr, n, where, whose);
	free(ranked);
	return 0;
}
