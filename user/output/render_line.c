// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming in table mode: a line per INTERVAL, as vmstat(8) prints, that a person can watch
 * (the full tables of each record are --full's). The line holds the system's figures over the
 * interval, what matters first about large folios then what it cost, and the first row of the
 * table (--sort's first process, cgroup or name).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cgroup_names.h"
#include "counters.h"
#include "measures.h"
#include "report.h"
#include "sanitize.h"
#include "table_cells.h"

/* The first row's cell: "PID COMM" or the cgroup or name, in this many columns. */
#define FIRST_WIDTH 23

/* The record's first row, as the table names it. */
static void first_cell(FILE *out, const struct fs_report *r)
{
	const struct process_row *row = r->nr_shown ? &r->processes->rows[0] : NULL;
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

/* The shootdowns the system's CPUs received: the reason the kernel names remote_shootdown. */
static __u64 remote_shootdowns(const struct fs_report *r)
{
	for (int v = 0; v < FS_NR_TLB_REASONS; v++)
		if (r->tlb_known[v] && !strcmp(r->tlb_names[v], "remote_shootdown"))
			return r->system.total.tlb_flushes[v];
	return 0;
}

void render_line_header(FILE *out, const struct fs_report *r)
{
	fprintf(out, "%s%8s %9s %6s %6s %6s %8s %7s %7s %8s %s%s\n", r->colour ? "\033[1m" : "",
		"TIME", "ALLOC_MiB", "LARGE%", "THP", "FALLBK", "FAULTS", "TLB", "SHOOTDN",
		"LRU_MiB",
		r->by == FS_BY_PROCESS	? "FIRST PROCESS"
		: r->by == FS_BY_CGROUP ? "FIRST CGROUP"
					: "FIRST NAME",
		r->colour ? "\033[0m" : "");
}

int render_line(FILE *out, const struct fs_report *r)
{
	const struct fs_totals *c = &r->system.total;
	const bool *m = r->measured;
	long ps = r->host->page_size;
	__u64 alloc[FS_NR_ORDERS], movable[FS_NR_ORDERS], failed[FS_NR_ORDERS], lru = 0;
	char when[16], share[16];
	struct tm tm;
	time_t t = r->end.tv_sec;

	folio_hist(c, HIST_ALLOC, alloc);
	folio_hist(c, HIST_ALLOC_MOVABLE, movable);
	folio_hist(c, HIST_ALLOC_FAILED, failed);
	for (int l = 0; l < FS_NR_LRU_LISTS; l++)
		lru += c->lru_insert[l][FS_PAGES];
	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	if (!m[MEASURE_ALLOCATED])
		snprintf(share, sizeof(share), "n/a");
	else if (!hist_pages(movable))
		snprintf(share, sizeof(share), "-");
	else
		snprintf(share, sizeof(share), "%.0f%%", hist_large_share(movable));
	fprintf(out, "%8s", when);
	print_mib(out, 9, hist_pages(alloc), ps, m[MEASURE_ALLOCATED]);
	fprintf(out, " %6s", share);
	print_count(out, 6, c->thp_fault_alloc, m[MEASURE_THP_FAULT_ALLOC]);
	print_count(out, 6, hist_large_folios(failed), m[MEASURE_ALLOCATED]);
	print_count(out, 8, fault_count(c, FS_FAULT_USER) + fault_count(c, FS_FAULT_KERNEL),
		    m[MEASURE_FAULT_USER] && m[MEASURE_FAULT_KERNEL]);
	print_count(out, 7, words_sum(c->tlb_flushes, FS_NR_TLB_REASONS), m[MEASURE_TLB]);
	print_count(out, 7, remote_shootdowns(r), m[MEASURE_TLB]);
	print_mib(out, 8, lru, ps, m[MEASURE_LRU_INSERT]);
	first_cell(out, r);
	return fflush(out) == EOF || ferror(out) ? -1 : 0;
}
