// SPDX-License-Identifier: GPL-2.0
/* The cells of a line of text output (see table_cells.h). */
#include <string.h>

#include "counters.h"
#include "row_columns.h"
#include "sanitize.h"
#include "table_cells.h"

double pages_to_mib(__u64 pages, long page_size)
{
	return (double)pages * page_size / (1024.0 * 1024.0);
}

void print_text(FILE *out, const char *text, size_t len, size_t max, size_t pad)
{
	char shown[TERMINAL_TEXT_SIZE(MAX_COLUMN)];
	size_t columns = terminal_text(text, len, max < MAX_COLUMN ? max : MAX_COLUMN, shown);

	fprintf(out, "%s%*s", shown, columns < pad ? (int)(pad - columns) : 0, "");
}

void print_count(FILE *out, int width, __u64 value, bool measured)
{
	if (measured)
		fprintf(out, " %*llu", width, (unsigned long long)value);
	else
		fprintf(out, " %*s", width, "n/a");
}

void print_mib(FILE *out, int width, __u64 pages, long page_size, bool measured)
{
	if (measured)
		fprintf(out, " %*.1f", width, pages_to_mib(pages, page_size));
	else
		fprintf(out, " %*s", width, "n/a");
}

/* Terminal colours (SGR), only when the report asks for them (struct fs_report, colour). */
#define GREEN "\033[32m"
#define RED "\033[31m"
#define PLAIN "\033[0m"

/* `text` right-aligned in `width` columns, in `colour` (none: NULL). */
static void print_cell(FILE *out, int width, const char *text, const char *colour)
{
	int len = (int)strlen(text);

	if (!colour) {
		fprintf(out, " %*s", width, text);
		return;
	}
	fprintf(out, " %*s%s%s" PLAIN, len < width ? width - len : 0, "", colour, text);
}

/* "100%", "37%": the share of histogram figure i's pages in large folios; "-" with no page.
 * On a terminal, half or more is green. */
static void print_large_share(FILE *out, int width, const struct figures_view *v, int i,
			      bool measured, bool colour)
{
	__u64 hist[FS_NR_ORDERS];
	char text[16];

	record_figure_orders(v, i, hist);
	if (!measured || !hist_pages(hist)) {
		fprintf(out, " %*s", width, measured ? "-" : "n/a");
		return;
	}
	snprintf(text, sizeof(text), "%.0f%%", hist_large_share(hist));
	print_cell(out, width, text, colour && hist_large_share(hist) >= 50.0 ? GREEN : NULL);
}

void print_row_column(FILE *out, const struct fs_report *r, const struct figures_view *v,
		      size_t column, int width)
{
	__u64 amount = row_column_amount(v, column);
	bool measured = true;
	char text[24];

	for (int k = 0; k < 2; k++)
		if (row_column_figure(column, k) >= 0)
			measured &=
			    record_figure_measured(row_column_figure(column, k), r->measured);
	switch (row_columns[column].shows) {
	case SHOW_LARGE_SHARE:
		print_large_share(out, width, v, row_column_figure(column, 0), measured, r->colour);
		break;
	case SHOW_MAX_ORDER:
		if (!measured || !amount)
			fprintf(out, " %*s", width, measured ? "-" : "n/a");
		else
			fprintf(out, " %*llu", width, (unsigned long long)amount - 1);
		break;
	case SHOW_MIB:
		print_mib(out, width, amount, r->host->page_size, measured);
		break;
	case SHOW_LARGE_FOLIOS:
		if (r->colour && measured && amount) {
			/* Large folios that fell back or were discarded: what to look at, in red.
			 */
			snprintf(text, sizeof(text), "%llu", (unsigned long long)amount);
			print_cell(out, width, text, RED);
			break;
		}
		/* fall through */
	default:
		print_count(out, width, amount, measured);
	}
}
