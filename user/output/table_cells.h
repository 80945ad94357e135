/* SPDX-License-Identifier: GPL-2.0 */
/* The cells of a line of text output (the tables, and streaming's line): each is a space, then
 * its value right-aligned in its width, or n/a where its probe is not attached. */
#ifndef FS_TABLE_CELLS_H
#define FS_TABLE_CELLS_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "record_layout.h"
#include "report.h"

double pages_to_mib(__u64 pages, long page_size);
/* The widest column of untrusted text. */
#define MAX_COLUMN 256
/* Untrusted text (up to `len` bytes or a NUL) in at most `max` columns (MAX_COLUMN at most),
 * padded with spaces to `pad` columns: a column of a row, or (pad 0) part of a line; shown
 * through terminal_text() (sanitize.h). */
void print_text(FILE *out, const char *text, size_t len, size_t max, size_t pad);
/* A count. */
void print_count(FILE *out, int width, __u64 value, bool measured);
/* Pages, as MiB with one decimal. */
void print_mib(FILE *out, int width, __u64 pages, long page_size, bool measured);
/* Column `column` of the rows' table (row_columns.h) for the figures in v, in `width` columns:
 * on a terminal (r->colour) a share of large folios of half or more in green, large folios
 * that fell back or were discarded in red. */
void print_row_column(FILE *out, const struct fs_report *r, const struct figures_view *v,
		      size_t column, int width);

#endif
