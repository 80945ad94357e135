// SPDX-License-Identifier: GPL-2.0
/*
 * The human-readable renderer: a header, system totals, a table of the most active rows and the
 * folio-order histograms of the top few, within 100 columns. Its sections are data
 * (table_layout.c): this file walks them and holds a renderer per kind of line, each reading
 * the registry's figures (record_layout.c) as JSON does. Every string it did not write itself
 * (names, paths, the kernel's) is shown through terminal_text() (sanitize.h), so the table
 * holds no control byte but its own newlines.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_names.h"
#include "counters.h"
#include "file_table.h"
#include "histogram_text.h"
#include "record_layout.h"
#include "render_resident.h"
#include "report.h"
#include "row_columns.h"
#include "sanitize.h"
#include "table_cells.h"
#include "table_figures.h"
#include "table_layout.h"

/* Room for a name shown in a line: its escapes take up to four columns a byte. */
#define NAME_COLUMNS 32

/* Terminal colours (SGR): see table_cells.h. */
#define BOLD "\033[1m"
#define PLAIN "\033[0m"

/* A block of a section's lines: whose figures they show (the system's, or a row's), its name,
 * and whether a line of it has been shown. */
struct block {
	const struct fs_report *r;
	const struct table_line *section;
	const struct row *row; /* NULL: the system's */
	struct figures_view view;
	char who[256];
	bool started;
};

/* A process name in at most `width` columns, for a line of text. */
static const char *shown_comm(const char *comm, char *out, size_t width)
{
	terminal_text(comm, FS_COMM_LEN, width, out);
	return out;
}

/* Cgroup `id`'s path in at most `width` columns (out: TERMINAL_TEXT_SIZE(width)), its end kept
 * ("...end"); "?" if unnamed. */
static const char *cgroup_tail(const struct fs_report *r, __u64 id, char *out, size_t width)
{
	const char *path = r->cgroup_names ? cgroup_name_known(r->cgroup_names, id) : NULL;

	if (!path)
		return "?";
	terminal_text(path, SIZE_MAX, width, out);
	return out;
}

/* Line `at`'s k-th figure (its registry row). */
#define FIGURE(at, k) table_line_figure(at, k)

/* "name 4, name 2": the nonzero entries of figure i in v: a list's kernel names, an object's
 * members' keys, a histogram's orders above 0. */
static void write_entries(FILE *out, const struct fs_report *r, const struct figures_view *v, int i)
{
	const struct record_figure *f = &record_figures[i];
	const __u64 *words = record_figure_words(v, i);
	const char *sep = "";

	if (f->kind == RK_OBJECT) {
		for (int j = i + 1; j < record_figure_skip(i); j++) {
			__u64 n = *record_figure_words(v, j);

			if (!n)
				continue;
			fprintf(out, "%s%s %llu", sep, record_figures[j].key,
				(unsigned long long)n);
			sep = ", ";
		}
		return;
	}
	for (int e = f->kind == RK_ORDERS;
	     e < (f->kind == RK_ORDERS ? FS_NR_ORDERS : FS_NR_SCAN_RESULTS); e++) {
		if (!words[e])
			continue;
		fputs(sep, out);
		if (f->kind == RK_ORDERS)
			fprintf(out, "order %d", e);
		else
			print_text(out, r->scan_names[e], FS_ENUM_NAME_LEN, FS_ENUM_NAME_LEN, 0);
		fprintf(out, " %llu", (unsigned long long)words[e]);
		sep = ", ";
	}
}

static void print_header(FILE *out, const struct fs_report *r)
{
	int attached = 0, wanted = 0;

	/* A stand-in that is not needed here is neither missing nor counted. */
	for (int i = 0; i < r->nr_probes; i++) {
		attached += r->probes[i].attached;
		wanted += !r->probes[i].not_needed;
	}
	fprintf(out, "foliostat: %.2f s on ", r->interval_s);
	print_text(out, r->host->hostname, sizeof(r->host->hostname), 64, 0);
	fprintf(out, "%s", ", Linux ");
	print_text(out, r->host->kernel, sizeof(r->host->kernel), 64, 0);
	fprintf(out, ", %d CPUs, %ld KiB pages\n", r->host->nr_cpus, r->host->page_size / 1024);
	fprintf(out, "probes: %d of %d attached\n", attached, wanted);
	for (int i = 0; i < r->nr_probes; i++) {
		if (r->probes[i].attached || r->probes[i].not_needed)
			continue;
		fprintf(out, "  %s: ", r->probes[i].name);
		print_text(out, r->probes[i].reason, sizeof(r->probes[i].reason), MAX_COLUMN, 0);
		fprintf(out, "\n");
	}
	fprintf(out, "\n");
}

/* A label, padded to `width` columns; "%s" in it the entry's name. */
static void write_label(FILE *out, const char *label, const struct figure_entry *e, int width)
{
	const char *name_at = strstr(label, "%s");
	char shown[TERMINAL_TEXT_SIZE(MAX_COLUMN)];
	size_t columns;

	if (!name_at || !e->name) {
		fprintf(out, "%-*s", width, label);
		return;
	}
	columns =
	    terminal_text(e->name, e->size, e->size < MAX_COLUMN ? e->size : MAX_COLUMN, shown);
	columns += strlen(label) - 2;
	fprintf(out, "%.*s%s%s%*s", (int)(name_at - label), label, shown, name_at + 2,
		columns < (size_t)width ? (int)(width - columns) : 0, "");
}

/* A label and a cell per figure, for each entry of the first (where its `when` says). */
static void print_columns(FILE *out, const struct block *b, const struct figures_view *v, size_t at)
{
	const struct table_line *line = &table_lines[at];
	const struct fs_report *r = b->r;
	struct figure_entry e;

	for (int n = 0; figure_entry(r, FIGURE(at, 0), n, &e); n++) {
		bool any = false;

		for (int k = 0; k < TABLE_MAX_CELLS && line->cells[k].figure; k++)
			if ((k == 0 || line->when == WHEN_ANY_NONZERO) &&
			    figure_amount(r, v, FIGURE(at, k), e.index, line->cells[k].shows))
				any = true;
		if (!any && (line->when == WHEN_NONZERO || line->when == WHEN_ANY_NONZERO))
			continue;
		write_label(out, line->label, &e, line->width);
		for (int k = 0; k < TABLE_MAX_CELLS && line->cells[k].figure; k++) {
			const struct table_cell *c = &line->cells[k];
			int i = FIGURE(at, k);
			__u64 value = figure_amount(r, v, i, e.index, c->shows);
			bool measured = line->raw || record_figure_measured(i, r->measured);

			if (c->shows == CELL_MIB)
				print_mib(out, c->width, value, r->host->page_size, measured);
			else if (c->shows == CELL_SIGNED)
				fprintf(out, " %*lld", c->width, (long long)value);
			else
				print_count(out, c->width, value, measured);
		}
		fprintf(out, "\n");
	}
}

/* The line's format, each conversion but %s (the label) a figure's value: an integer, or (%f)
 * pages as MiB or nanoseconds as ms. */
static void print_sentence(FILE *out, const struct block *b, const struct figures_view *v,
			   size_t at)
{
	const struct table_line *line = &table_lines[at];
	const char *f = line->format, *conv;
	int k = 0;

	while ((conv = strchr(f, '%'))) {
		size_t n = strcspn(conv + 1, "sudf") + 2;
		const struct table_cell *c = &line->cells[k];
		char spec[16];
		__u64 value;

		fwrite(f, 1, (size_t)(conv - f), out);
		if (conv[1] == '%') { /* a percent sign */
			fputc('%', out);
			f = conv + 2;
			continue;
		}
		f = conv + n;
		snprintf(spec, sizeof(spec), "%.*s", (int)n, conv);
		if (spec[n - 1] == 's') {
			fprintf(out, spec, line->label);
			continue;
		}
		value = figure_amount(b->r, v, FIGURE(at, k++), -1, c->shows);
		if (spec[n - 1] == 'f')
			fprintf(out, spec,
				c->shows == CELL_MS ? value / 1e6
						    : pages_to_mib(value, b->r->host->page_size));
		else
			fprintf(out, spec, (unsigned long long)value);
	}
	fputs(f, out);
}

/* "    collapse      succeed 4, exceed_none_pte 2": a figure's nonzero entries. */
static void print_list(FILE *out, const struct block *b, const struct figures_view *v, size_t at)
{
	int i = FIGURE(at, 0);

	fprintf(out, "    %-14s",
		table_lines[at].label ? table_lines[at].label : record_figures[i].key);
	write_entries(out, b->r, v, i);
	fprintf(out, "\n");
}

/* A figure by order, or a stall histogram, under "who: label". */
static void print_histogram(FILE *out, const struct block *b, const struct figures_view *v,
			    size_t at)
{
	int i = FIGURE(at, 0);
	char title[320];
	__u64 hist[FS_NR_ORDERS];

	snprintf(title, sizeof(title), "%s: %s", b->who, table_lines[at].label);
	if (record_figures[i].kind == RK_STALL_HIST) {
		print_stall_hist(out, title, record_figure_words(v, i), FS_NR_STALL_BUCKETS);
		return;
	}
	record_figure_orders(v, i, hist);
	print_order_hist(out, title, hist);
}

static const char *const row_kinds[] = {
    [FS_BY_PROCESS] = "processes", [FS_BY_CGROUP] = "cgroups", [FS_BY_COMM] = "comms"};

/* The rows' table: a line per row shown, a cell per column (row_columns.c); then each
 * column's heading and legend, on lines of 100 columns at most. */
static void print_rows(FILE *out, const struct fs_report *r)
{
	int used = 0;

	fprintf(out, "%s with activity: %zu", row_kinds[r->by], r->rows->nr_active);
	if (r->nr_shown < r->rows->nr_active)
		fprintf(out, " (top %zu shown)", r->nr_shown);
	fprintf(out, ", by %s\n", sort_title(r->sort));
	if (!r->nr_shown)
		return;
	if (r->colour)
		fprintf(out, BOLD);
	if (r->by == FS_BY_PROCESS)
		fprintf(out, "%7s %-15s", "PID", "COMM");
	else
		fprintf(out, "%-23s", r->by == FS_BY_CGROUP ? "CGROUP" : "COMM");
	for (size_t c = 0; c < nr_row_columns; c++)
		fprintf(out, " %*s", row_columns[c].width, row_columns[c].heading);
	fprintf(out, "%s\n", r->colour ? PLAIN : "");
	for (size_t i = 0; i < r->nr_shown; i++) {
		const struct row *row = &r->rows->rows[i];
		struct figures_view v = row_figures(r->rows, row);
		const char *path;

		if (r->by == FS_BY_PROCESS) {
			fprintf(out, "%7u ", row_pid(row));
			print_text(out, row->comm, FS_COMM_LEN, 15, 15);
		} else if (r->by == FS_BY_COMM) {
			print_text(out, row->comm, FS_COMM_LEN, 23, 23);
		} else {
			path = r->cgroup_names ? cgroup_name_known(r->cgroup_names, row->cgroup)
					       : NULL;
			print_text(out, path ? path : "?", SIZE_MAX, 23, 23);
		}
		for (size_t c = 0; c < nr_row_columns; c++)
			print_row_column(out, r, &v, c, row_columns[c].width);
		fprintf(out, "\n");
	}
	for (size_t c = 0; c < nr_row_columns; c++) {
		const char *end = c + 1 < nr_row_columns ? ";" : "";
		int len = 1 + (int)(strlen(row_columns[c].heading) + 1 +
				    strlen(row_columns[c].legend) + strlen(end));

		if (used && used + len > 100) {
			fprintf(out, "\n");
			used = 0;
		}
		used +=
		    fprintf(out, " %s %s%s", row_columns[c].heading, row_columns[c].legend, end);
	}
	fprintf(out, "\n\n");
}

/*
 * Why the memory did not come in large folios, for PMD-sized THP faults: "thp faults 32 got
 * 2 MiB, 4 fell back (memcg limit, race), 2 fell back (none free)": the memory cgroup refused
 * the charge of a folio allocated for the fault (or another thread mapped the range first), or
 * no free block was found; then large allocations of other orders that failed or were
 * discarded, by order; and where the line names the free memory (the system's), for each order
 * that found no free block: "    free blocks order 9 at worst: 0 on node 0 Normal, 93% of free
 * memory unusable; 2 on node 0 DMA32, 0%": in each zone with free memory, the fewest free
 * blocks of that order during the window, and the highest share of the zone's free memory in
 * smaller blocks (each at its own worst sample).
 */
static void print_waterfall(FILE *out, const struct block *b, const struct figures_view *v,
			    size_t at)
{
	const struct fs_report *r = b->r;
	const struct free_blocks *f = FIGURE(at, 3) >= 0 ? r->free : NULL;
	const __u64 *discarded = record_figure_words(v, FIGURE(at, 1));
	const __u64 *failed = record_figure_words(v, FIGURE(at, 2));
	int pmd = pmd_order_of(r->host->page_size);

	fprintf(out, "    %-14s", "thp faults");
	if (record_figure_measured(FIGURE(at, 0), r->measured))
		fprintf(out, "%llu", (unsigned long long)*record_figure_words(v, FIGURE(at, 0)));
	else
		fprintf(out, "n/a");
	fprintf(out, " got %ld MiB", (r->host->page_size << pmd) >> 20);
	if (record_figure_measured(FIGURE(at, 1), r->measured))
		fprintf(out, ", %llu fell back (memcg limit, race)",
			(unsigned long long)discarded[pmd]);
	fprintf(out, ", %llu fell back (none free)\n", (unsigned long long)failed[pmd]);
	if (words_sum(failed + 1, FS_NR_ORDERS - 1) != failed[pmd]) {
		fprintf(out, "    %-14s", "no folio");
		write_entries(out, r, v, FIGURE(at, 2));
		fprintf(out, "\n");
	}
	if (words_sum(discarded + 1, FS_NR_ORDERS - 1) != discarded[pmd]) {
		fprintf(out, "    %-14s", "discarded");
		write_entries(out, r, v, FIGURE(at, 1));
		fprintf(out, "\n");
	}
	for (int o = 1; f && o < f->nr_orders; o++) {
		const char *sep = "";

		if (!failed[o])
			continue;
		fprintf(out, "    %-14sorder %d at worst: ", "free blocks", o);
		for (size_t i = 0; i < f->nr_zones; i++) {
			const struct free_zone *z = &f->zones[i];

			if (!free_zone_pages(z, f->nr_orders))
				continue;
			fprintf(out, "%s%llu on node %d %s, %.0f%%%s", sep,
				(unsigned long long)z->fewest[o], z->node, z->name,
				100 * z->most_unusable[o], *sep ? "" : " of free memory unusable");
			sep = "; ";
		}
		fprintf(out, "\n");
	}
}

/* "      by order    9: 3 stalls, 12.4 ms, 4.1 ms per folio allocated": direct compaction by
 * the order that asked for it, and its cost per folio of that order the allocator handed out. */
static void print_cost_by_order(FILE *out, const struct figures_view *v, size_t at)
{
	const struct fs_order_stalls *by_order =
	    (const struct fs_order_stalls *)record_figure_words(v, FIGURE(at, 0));
	__u64 alloc[FS_NR_ORDERS];

	record_figure_orders(v, FIGURE(at, 1), alloc);
	for (int o = 1; o < FS_NR_ORDERS; o++) {
		if (!by_order->count[o])
			continue;
		fprintf(out, "      %-12s%d: %llu stalls, %.1f ms", "by order", o,
			(unsigned long long)by_order->count[o], by_order->total_ns[o] / 1e6);
		if (alloc[o])
			fprintf(out, ", %.2f ms per order-%d folio allocated",
				by_order->total_ns[o] / 1e6 / (double)alloc[o], o);
		fprintf(out, "\n");
	}
}

/* The largest order of a histogram with a count (0 for an empty one). */
static int hist_largest(const __u64 *hist)
{
	int largest = 0;

	for (int o = 0; o < FS_NR_ORDERS; o++)
		if (hist[o])
			largest = o;
	return largest;
}

/* "  9" or "  -": the largest order allowed, where known. */
static const char *shown_allowed(int allowed, char out[12])
{
	if (allowed < 0)
		return "-";
	snprintf(out, 12, "%d", allowed);
	return out;
}

/* PAGE-CACHE FILES (--files): the top files by pages added, then a line per file system; MAX
 * the largest order each got, CAN the largest its mapping allows (- where the kernel does not
 * say): a file system that cannot hold large folios is told apart from one whose large folios
 * fell back. */
static void print_files(FILE *out, const struct fs_report *r)
{
	const struct file_summary *s = r->files;
	char path[FS_FILE_NAME_DEPTH * FS_FILE_NAME_LEN + 4096];
	char dev[24], allowed[12];
	long ps = r->host->page_size;

	fprintf(out, "%-62s %11s %9s %6s %3s %3s\n", "PAGE-CACHE FILES (pages added)", "PAGES",
		"MiB", "LARGE", "MAX", "CAN");
	for (size_t i = 0; i < s->nr_shown; i++) {
		const struct file_row *row = s->ranked[i];
		const char *p;
		bool complete;
		int min, max;

		p = file_path(s, row, path, sizeof(path), &complete);
		if (!p) {
			snprintf(path, sizeof(path), "(no name: inode %llu on %u:%u)",
				 (unsigned long long)row->ino, FILE_DEV_MAJOR(row->dev),
				 FILE_DEV_MINOR(row->dev));
			p = path;
		}
		fprintf(out, "  ");
		print_text(out, p, SIZE_MAX, 60, 60);
		fprintf(out, " %11llu %9.1f %5.1f%% %3d %3s\n", (unsigned long long)row->pages,
			pages_to_mib(row->pages, ps), hist_large_share(row->folios),
			hist_largest(row->folios),
			shown_allowed(file_row_orders(row, &min, &max) ? max : -1, allowed));
	}
	fprintf(out, "\n%-34s %-10s %10s %9s %6s %3s %3s %7s %10s\n", "FILE SYSTEMS", "DEV",
		"PAGES", "MiB", "LARGE", "MAX", "CAN", "FILES", "UNTRACKED");
	for (size_t i = 0; i < s->nr_systems; i++) {
		const struct file_system *fs = &s->systems[i];
		__u64 pages = hist_pages(fs->folios);

		if (fs->mount)
			snprintf(path, sizeof(path), "%s (%s)", fs->mount->point,
				 fs->mount->fstype);
		else
			snprintf(path, sizeof(path), "(not mounted here)");
		snprintf(dev, sizeof(dev), "%u:%u", FILE_DEV_MAJOR(fs->dev),
			 FILE_DEV_MINOR(fs->dev));
		fprintf(out, "  ");
		print_text(out, path, sizeof(path), 32, 32);
		fprintf(out, " %-10s %10llu %9.1f %5.1f%% %3d %3s %7zu %10llu\n", dev,
			(unsigned long long)pages, pages_to_mib(pages, ps),
			hist_large_share(fs->folios), hist_largest(fs->folios),
			shown_allowed(fs->max_allowed, allowed), fs->files,
			(unsigned long long)hist_pages(fs->untracked));
	}
	fprintf(out, "\n");
}

/* SELF (--self): what foliostat cost in the window; then the bounded structures in use: what
 * they hold, their limit, and what they dropped. */
static void print_self(FILE *out, const struct fs_report *r)
{
	const struct self_cost *s = r->self;
	__u64 total_ns = 0;
	bool any = false;

	fprintf(out, "%-44s %14s %12s %10s\n", "SELF (BPF run-time statistics)", "EVENTS",
		"NS/EVENT", "MISSED");
	for (int i = 0; i < r->nr_probes && i < FS_MAX_PROBES; i++) {
		total_ns += s->run_ns[i];
		if (!r->probes[i].attached || !s->events[i])
			continue;
		fprintf(out, "  %-42s %14llu %12.1f %10llu\n", r->probes[i].name,
			(unsigned long long)s->events[i], (double)s->run_ns[i] / s->events[i],
			(unsigned long long)s->misses[i]);
	}
	fprintf(out, "  in all %.1f ms in BPF programs; loader %.1f ms of CPU, RSS %.1f MiB\n\n",
		total_ns / 1e6, s->loader_cpu_s * 1e3, s->loader_rss_kib / 1024.0);
	for (int b = 0; b < FS_NR_BOUNDS; b++) {
		const struct bound_count *c = &s->bounds[b];

		if (!c->limit)
			continue;
		if (!any)
			fprintf(out, "%-44s %14s %12s %10s\n",
				"  BOUNDED (what other users can grow)", "ENTRIES", "LIMIT",
				"EVICTED");
		any = true;
		fprintf(out, "    %-40s %14llu %12llu %10llu\n", bound_name(b),
			(unsigned long long)c->entries, (unsigned long long)c->limit,
			(unsigned long long)c->evictions);
	}
	if (any)
		fputc('\n', out);
}

/* The figures line `at` reads: those of the group of the system it names, or its block's. */
static struct figures_view line_view(const struct block *b, size_t at)
{
	int group = FIGURE(at, TABLE_IN_GROUP);

	if (group < 0)
		return b->view;
	return (struct figures_view){.scope = IN_GROUP,
				     .from[FROM_TOTALS] = record_figure_words(&b->view, group)};
}

/* Whether line `at` is shown in its block: where its kind has anything to show, and its `when`
 * holds (a line per entry decides each entry's itself). */
static bool line_shown(const struct block *b, const struct figures_view *v, size_t at)
{
	const struct table_line *line = &table_lines[at];
	const struct fs_report *r = b->r;
	int first = FIGURE(at, 0);
	const __u64 *words = first >= 0 ? record_figure_words(v, first) : NULL;
	bool any = false;

	switch (line->kind) {
	case LINE_LIST:
		return figure_nonzero(r, v, first);
	case LINE_WATERFALL:
		/* a THP fault, or a large movable allocation, that came out without a folio */
		return *words ||
		       words_sum(record_figure_words(v, FIGURE(at, 2)) + 1, FS_NR_ORDERS - 1) ||
		       figure_nonzero(r, v, FIGURE(at, 1));
	case LINE_COST_BY_ORDER:
		return words_sum(((const struct fs_order_stalls *)words)->count + 1,
				 FS_NR_ORDERS - 1) != 0;
	}
	switch (line->when) {
	case WHEN_MEASURED:
		return record_figure_measured(first, r->measured);
	case WHEN_MGLRU_UNMEASURED:
		return r->mglru && !record_figure_measured(first, r->measured);
	case WHEN_GROUP_ACTIVE:
		return totals_events((const struct fs_totals *)v->from[FROM_TOTALS]) != 0;
	case WHEN_NONZERO_IN_BLOCK:
		return b->started && figure_nonzero(r, v, first);
	case WHEN_NONZERO:
		return line->kind == LINE_COLUMNS || figure_nonzero(r, v, first);
	case WHEN_ANY_NONZERO:
		for (int k = 0; k < TABLE_MAX_CELLS && line->cells[k].figure; k++)
			any = any || figure_nonzero(r, v, FIGURE(at, k));
		return line->kind == LINE_COLUMNS || any;
	default:
		return true;
	}
}

static void render_table_line(FILE *out, const struct block *b, const struct figures_view *v,
			      size_t at)
{
	const struct fs_report *r = b->r;

	switch (table_lines[at].kind) {
	case LINE_HEADER:
		print_header(out, r);
		break;
	case LINE_COLUMNS:
		print_columns(out, b, v, at);
		break;
	case LINE_SENTENCE:
		print_sentence(out, b, v, at);
		break;
	case LINE_LIST:
		print_list(out, b, v, at);
		break;
	case LINE_HISTOGRAM:
		print_histogram(out, b, v, at);
		break;
	case LINE_ROWS:
		print_rows(out, r);
		break;
	case LINE_WATERFALL:
		print_waterfall(out, b, v, at);
		break;
	case LINE_COST_BY_ORDER:
		print_cost_by_order(out, v, at);
		break;
	case LINE_RESIDENT:
		if (r->resident)
			print_resident(out, r);
		break;
	case LINE_FILES:
		if (r->files)
			print_files(out, r);
		break;
	case LINE_SELF:
		if (r->self)
			print_self(out, r);
		break;
	}
}

/* Whether section `at` is shown: always, where its figures are measured, where one has
 * anything in the system's figures, or where the section before it is (`previous`). */
static bool section_shown(const struct fs_report *r, const struct figures_view *system, size_t at,
			  bool previous)
{
	const struct table_line *section = &table_lines[at];
	bool measured = true, any = false;

	for (int k = 0; k < TABLE_MAX_CELLS; k++) {
		if (!section->cells[k].figure)
			continue;
		measured = measured && record_figure_measured(FIGURE(at, k), r->measured);
		any = any || figure_nonzero(r, system, FIGURE(at, k));
	}
	switch (section->when) {
	case WHEN_WITH_PREVIOUS:
		return previous;
	case WHEN_MEASURED:
		return measured;
	case WHEN_ANY_NONZERO:
		return any;
	default:
		return true;
	}
}

/* A block's name: the section's, or its row's ("pid N (comm)", "comm NAME", "cgroup PATH"). */
static void name_block(struct block *b)
{
	const struct fs_report *r = b->r;
	char comm[TERMINAL_TEXT_SIZE(NAME_COLUMNS)], name[TERMINAL_TEXT_SIZE(50)];

	if (!b->row) {
		snprintf(b->who, sizeof(b->who), "%s",
			 b->section->who_text ? b->section->who_text : "");
		return;
	}
	shown_comm(b->row->comm, comm, NAME_COLUMNS);
	if (b->section->who == WHO_PID || r->by == FS_BY_PROCESS)
		snprintf(b->who, sizeof(b->who), "pid %u (%s)", row_pid(b->row), comm);
	else if (r->by == FS_BY_COMM)
		snprintf(b->who, sizeof(b->who), "comm %s", comm);
	else
		snprintf(b->who, sizeof(b->who), "cgroup %s",
			 cgroup_tail(r, b->row->cgroup, name, 50));
}

/* Section `at` (its lines up to `end`): its title and headings, then its lines, once for the
 * system or for each of the top rows; a block's name before its first line shown, or "pid N
 * (comm): cgroup PATH" before its lines, the path's end kept within 100 columns. */
static void render_section(FILE *out, const struct fs_report *r, const struct figures_view *system,
			   size_t at, size_t end)
{
	const struct table_line *section = &table_lines[at];
	size_t nr_blocks = section->rows ? r->nr_shown : 1;
	char shown[TERMINAL_TEXT_SIZE(100)];

	if (section->rows && nr_blocks > section->rows)
		nr_blocks = section->rows;
	if (section->label) {
		fprintf(out, "%-*s", section->width, section->label);
		for (int k = 0; k < TABLE_MAX_CELLS; k++)
			if (section->cells[k].heading)
				fprintf(out, " %*s", section->cells[k].width,
					section->cells[k].heading);
		fprintf(out, "\n");
	}
	for (size_t n = 0; n < nr_blocks; n++) {
		struct block b = {.r = r, .section = section, .view = *system};
		size_t used;

		if (section->rows) {
			b.row = &r->rows->rows[n];
			b.view = row_figures(r->rows, b.row);
		}
		name_block(&b);
		if (section->who_shown == WHO_CGROUP_LINE && r->by == FS_BY_PROCESS &&
		    r->cgroup_names) {
			/* A name's escapes may leave little room: the path gets 40 columns at
			 * least. */
			used = strlen(b.who) + strlen(": cgroup ");
			fprintf(out, "%s: cgroup %s\n\n", b.who,
				cgroup_tail(r, b.row->cgroup, shown, used < 60 ? 100 - used : 40));
		}
		for (size_t l = at + 1; l < end; l++) {
			struct figures_view v = line_view(&b, l);

			if (!line_shown(&b, &v, l))
				continue;
			if (!b.started && section->who_shown == WHO_LINE)
				fprintf(out, "  %s\n", b.who);
			b.started = true;
			render_table_line(out, &b, &v, l);
		}
	}
}

int render_table(FILE *out, const struct fs_report *r)
{
	struct figures_view system = {.scope = IN_SYSTEM,
				      .from = {[FROM_TOTALS] = (const __u64 *)&r->system.total,
					       [FROM_SYSTEM] = (const __u64 *)&r->system}};
	bool shown = false;

	for (size_t at = 0, end; at < nr_table_lines; at = end) {
		for (end = at + 1; end < nr_table_lines && table_lines[end].kind != LINE_SECTION;
		     end++)
			;
		shown = section_shown(r, &system, at, shown);
		if (shown)
			render_section(out, r, &system, at, end);
	}
	return fflush(out) == EOF || ferror(out) ? -1 : 0;
}
