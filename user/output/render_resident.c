// SPDX-License-Identifier: GPL-2.0
/* --resident in a record (see render_resident.h). */
#include "render_resident.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "counters.h"
#include "figure_names.h"
#include "resident_report.h"
#include "sanitize.h"
#include "table_cells.h"


static __u64 type_pages(const struct resident_counts *c, int t)
{
	return words_sum(c->pages[t], FS_NR_ORDERS);
}

static __u64 mapped(const struct resident_counts *c, enum resident_mapping m)
{
	__u64 sum = 0;

	for (int t = 0; t < NR_RESIDENT_TYPES; t++)
		sum += c->large[t][m];
	return sum;
}

static int max_order(const struct resident_counts *c)
{
	int top = -1;

	for (int t = 0; t < NR_RESIDENT_TYPES; t++)
		for (int o = FS_NR_ORDERS - 1; o > top; o--)
			if (c->pages[t][o])
				top = o;
	return top;
}

/* One row: the process (PID COMM), cgroup or name, in 23 columns, then its figures. */
static void print_row(FILE *out, const struct fs_report *r, const struct resident_row *p)
{
	const struct resident_counts *c = &p->counts;
	__u64 pages = resident_pages(c), large = resident_large_pages(c);
	long ps = r->host->page_size;
	char name[TERMINAL_TEXT_SIZE(23)], share[16];
	int top = max_order(c);
	size_t width;

	snprintf(share, sizeof(share), "%.0f%%", pages ? 100.0 * (double)large / (double)pages : 0);
	if (r->by == FS_BY_PROCESS) {
		terminal_text(p->comm, FS_COMM_LEN, 15, name);
		fprintf(out, "%7u %-15s", p->pid, name);
	} else {
		width = r->by == FS_BY_CGROUP
			    ? terminal_text(p->cgroup ? p->cgroup : "?", SIZE_MAX, 23, name)
			    : terminal_text(p->comm, FS_COMM_LEN, 23, name);
		fprintf(out, "%s%*s", name, (int)(23 - width), "");
	}
	print_mib(out, 9, pages, ps, true);
	/* (a reading cut short: its figures are what was read, at least; the legend says so) */
	fprintf(out, "%s%6s", p->cut_short ? "+" : " ", pages ? share : "-");
	for (int t = 0; t < NR_RESIDENT_TYPES; t++)
		print_mib(out, 7, type_pages(c, t), ps, true);
	for (int m = 0; m < NR_RESIDENT_MAPPINGS; m++)
		print_count(out, 6, mapped(c, (enum resident_mapping)m), true);
	if (top < 0)
		fprintf(out, " %6s\n", "-");
	else
		fprintf(out, " %6d\n", top);
}

/* "anon: order 0 12.3 MiB, order 9 64.0 MiB" for each type with pages. */
static void print_orders(FILE *out, const struct fs_report *r, const struct resident_counts *c)
{
	for (int t = 0; t < NR_RESIDENT_TYPES; t++) {
		const char *sep = "";

		if (!type_pages(c, t))
			continue;
		fprintf(out, "  %s:", resident_type_names[t]);
		for (int o = 0; o < FS_NR_ORDERS; o++) {
			if (!c->pages[t][o])
				continue;
			fprintf(out, "%s order %d %.1f MiB (%llu folios)", sep, o,
				pages_to_mib(c->pages[t][o], r->host->page_size),
				(unsigned long long)c->folios[t][o]);
			sep = ",";
		}
		fprintf(out, "\n");
	}
}

static const char *error_text(int error)
{
	return error == -ENOSPC ? "more processes than --max-tasks" : strerror(-error);
}

void print_resident(FILE *out, const struct fs_report *r)
{
	const struct resident_report *res = r->resident;

	if (res->swept)
		fprintf(out,
			"RESIDENT (what memory holds: readings of %zu processes, the oldest %.0f s "
			"old; %lu whole passes, the last %.1f s, %.2f s of CPU",
			res->scanned, resident_oldest_s(res), res->passes, res->seconds,
			res->cpu_seconds);
	else
		fprintf(out, "RESIDENT (what memory holds at the end: %zu processes read in %.2f s",
			res->scanned, res->seconds);
	if (res->gone)
		fprintf(out, "; %zu ended first", res->gone);
	if (res->failed)
		fprintf(out, "; %zu not read: %s", res->failed, error_text(res->first_error));
	if (res->cut_short)
		fprintf(out, "; %zu read in part (+)", res->cut_short);
	fprintf(out, ")\n");
	if (r->by == FS_BY_PROCESS)
		fprintf(out, "%7s %-15s", "PID", "COMM");
	else
		fprintf(out, "%-23s", r->by == FS_BY_CGROUP ? "CGROUP" : "COMM");
	fprintf(out, " %9s %6s %7s %7s %7s %6s %6s %6s %6s %6s\n", "RSS_MiB", "LARGE%", "ANON",
		"FILE", "SHMEM", "PMD", "PTE", "UNALGN", "PARTL", "MAXORD");
	for (size_t i = 0; i < r->resident_shown; i++)
		print_row(out, r, &res->rows[i]);
	fprintf(out, " LARGE%% of resident pages in large folios (order >= 1); ANON FILE SHMEM "
		     "MiB of each; PMD PTE\n UNALGN PARTL large folios mapped by a PMD, whole by "
		     "PTEs at their alignment, whole\n elsewhere, in part; MAXORD largest order\n");
	if (res->cut_short)
		fprintf(out,
			" + read in part: more pagemap entries than a process may take in a pass; "
			"its figures are\n   what was read, at least\n");
	fprintf(out, "every process read, by the order of each page's folio:\n");
	print_orders(out, r, &res->total);
	fprintf(out, "\n");
}

/* Seconds to the millisecond. */
static double millis(double s)
{
	return (double)(long long)(s * 1000 + 0.5) / 1000;
}

static void counts_json(struct json_writer *w, const struct resident_counts *c)
{
	jw_object_begin(w);
	for (int t = 0; t < NR_RESIDENT_TYPES; t++) {
		jw_key(w, resident_type_names[t]);
		jw_object_begin(w);
		jw_key(w, "pages");
		jw_counts_by_index(w, c->pages[t], FS_NR_ORDERS);
		jw_key(w, "folios");
		jw_counts_by_index(w, c->folios[t], FS_NR_ORDERS);
		jw_key(w, "large_folios");
		jw_object_begin(w);
		for (int m = 0; m < NR_RESIDENT_MAPPINGS; m++)
			jw_member_int(w, resident_mapping_names[m], (long long)c->large[t][m]);
		jw_object_end(w);
		jw_object_end(w);
	}
	jw_object_end(w);
}

void resident_json(struct json_writer *w, const struct fs_report *r)
{
	const struct resident_report *res = r->resident;

	jw_key(w, "resident");
	jw_object_begin(w);
	jw_member_int(w, "processes_read", (long long)res->scanned);
	jw_member_int(w, "processes_gone", (long long)res->gone);
	jw_member_int(w, "processes_failed", (long long)res->failed);
	jw_member_int(w, "processes_cut_short", (long long)res->cut_short);
	jw_key(w, "method");
	jw_string(w, res->pagemap_scan ? "pagemap_scan" : "pagemap");
	jw_member_int(w, "passes", (long long)res->passes);
	jw_key(w, "seconds");
	jw_real(w, millis(res->seconds), 12);
	jw_key(w, "cpu_seconds");
	jw_real(w, millis(res->cpu_seconds), 12);
	jw_key(w, "oldest_seconds");
	jw_real(w, millis(resident_oldest_s(res)), 12);
	jw_key(w, "total");
	counts_json(w, &res->total);
	jw_key(w, fs_row_array_names[r->by]);
	jw_array_begin(w);
	for (size_t i = 0; i < r->resident_shown; i++) {
		const struct resident_row *p = &res->rows[i];

		jw_object_begin(w);
		if (r->by == FS_BY_PROCESS)
			jw_member_int(w, "pid", (long long)p->pid);
		if (r->by == FS_BY_CGROUP) {
			jw_key(w, "cgroup");
			if (p->cgroup)
				jw_string(w, p->cgroup);
			else
				jw_null(w);
		} else {
			jw_key(w, "comm");
			jw_string_n(w, p->comm, FS_COMM_LEN);
		}
		if (r->by != FS_BY_PROCESS)
			jw_member_int(w, "processes", (long long)p->processes);
		jw_key(w, "age_seconds");
		jw_real(w, millis(res->taken_at - p->scanned_at), 12);
		jw_key(w, "cut_short");
		jw_bool(w, p->cut_short);
		jw_key(w, "memory");
		counts_json(w, &p->counts);
		jw_object_end(w);
	}
	jw_array_end(w);
	jw_object_end(w);
}
