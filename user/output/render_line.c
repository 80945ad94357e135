// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming in table mode: a line per INTERVAL, as vmstat(8) prints, that a person can watch
 * (the full tables of each record are --full's). The line holds the system's figures over the
 * interval, what matters first about large folios then what it cost, and the first row of the
 * table (--sort's first process, cgroup or name).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgroup_names.h"
#include "record_layout.h"
#include "report.h"
#include "row_columns.h"
#include "sanitize.h"
#include "table_cells.h"
#include "table_figures.h"

/* The first row's cell: "PID COMM" or the cgroup or name, in this many columns. */
#define FIRST_WIDTH 23

/* The record's first row, as the table names it. */
static void first_cell(FILE *out, const struct fs_report *r)
{
	const struct row *row = r->nr_shown ? &r->rows->rows[0] : NULL;
	char shown[TERMINAL_TEXT_SIZE(FIRST_WIDTH)], cell[FIRST_WIDTH * 4 + 32];
	const char *path;

	if (!row) {
		fprintf(out, " -\n");
		return;
	}
	if (r->by == FS_BY_PROCESS) {
		terminal_text(row->comm, FS_COMM_LEN, FIRST_WIDTH - 8, shown);
		snprintf(cell, sizeof(cell), "%u %s", row_pid(row), shown);
	} else if (r->by == FS_BY_COMM) {
		terminal_text(row->comm, FS_COMM_LEN, FIRST_WIDTH, shown);
		snprintf(cell, sizeof(cell), "%s", shown);
	} else {
		path = r->cgroup_names ? cgroup_name_known(r->cgroup_names, row->cgroup) : NULL;
		terminal_text(path ? path : "?", SIZE_MAX, FIRST_WIDTH, shown);
		snprintf(cell, sizeof(cell), "%s", shown);
	}
	fprintf(out, " %s\n", cell);
}

/* The shootdowns the system's CPUs received: the system's TLB flushes (the registry's
 * tlb.flushes) for the reason the kernel names remote_shootdown. */
static __u64 remote_shootdowns(const struct fs_report *r, const struct figures_view *system,
			       int flushes)
{
	for (int v = 0; v < FS_NR_TLB_REASONS; v++)
		if (r->tlb_known[v] && !strcmp(r->tlb_names[v], "remote_shootdown"))
			return figure_amount(r, system, flushes, v, CELL_COUNT);
	return 0;
}

/* The line's cells after TIME, each a column of the rows' table (row_columns.h) of the
 * system's figures, in its own width, but SHOOTDN, the shootdowns received, the one figure of
 * the line that is not a column. */
static const struct line_cell {
	const char *heading;
	int width;
} line_cells[] = {
    {"ALLOC_MiB", 9}, {"LARGE%", 6}, {"THP", 6},     {"FALLBK", 6},
    {"FAULTS", 8},    {"TLB", 7},    {"SHOOTDN", 7}, {"LRU_MiB", 8},
};
#define NR_LINE_CELLS (sizeof(line_cells) / sizeof(line_cells[0]))

void render_line_header(FILE *out, const struct fs_report *r)
{
	fprintf(out, "%s%8s", r->colour ? "\033[1m" : "", "TIME");
	for (size_t i = 0; i < NR_LINE_CELLS; i++)
		fprintf(out, " %*s", line_cells[i].width, line_cells[i].heading);
	fprintf(out, " %s%s\n",
		r->by == FS_BY_PROCESS	? "FIRST PROCESS"
		: r->by == FS_BY_CGROUP ? "FIRST CGROUP"
					: "FIRST NAME",
		r->colour ? "\033[0m" : "");
}

int render_line(FILE *out, const struct fs_report *r)
{
	struct figures_view system = {.scope = IN_SYSTEM,
				      .from = {[FROM_TOTALS] = (const __u64 *)&r->system.total,
					       [FROM_SYSTEM] = (const __u64 *)&r->system}};
	static int flushes = -1;
	char when[16];
	struct tm tm;
	time_t t = r->end.tv_sec;

	if (flushes < 0 && (flushes = record_figure_find("tlb.flushes")) < 0)
		abort();

	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	fprintf(out, "%8s", when);
	for (size_t i = 0; i < NR_LINE_CELLS; i++) {
		const struct line_cell *cell = &line_cells[i];

		if (!strcmp(cell->heading, "SHOOTDN"))
			print_count(out, cell->width, remote_shootdowns(r, &system, flushes),
				    record_figure_measured(flushes, r->measured));
		else
			print_row_column(out, r, &system, row_column_named(cell->heading),
					 cell->width);
	}
	first_cell(out, r);
	return fflush(out) == EOF || ferror(out) ? -1 : 0;
}
