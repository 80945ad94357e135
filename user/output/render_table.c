// SPDX-License-Identifier: GPL-2.0
/* The human-readable renderer: a header, system totals, a table of the most active processes
 * and the folio-order histograms of the top few, within 100 columns. Every string it did not
 * write itself (names, paths, the kernel's) is shown through terminal_text() (sanitize.h), so
 * the table holds no control byte but its own newlines. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_names.h"
#include "counters.h"
#include "file_table.h"
#include "histogram_text.h"
#include "nodes.h"
#include "record_layout.h"
#include "render_resident.h"
#include "report.h"
#include "row_columns.h"
#include "sanitize.h"
#include "table_cells.h"

/* Detailed histograms for this many of the top processes. */
#define DETAILED_PROCESSES 3

/* The widest column of untrusted text. */
#define MAX_COLUMN 256

/* Untrusted text (up to `len` bytes or a NUL) in at most `max` columns (MAX_COLUMN at most),
 * padded with spaces to `pad` columns: a column of a row, or (pad 0) part of a line. */
static void print_text(FILE *out, const char *text, size_t len, size_t max, size_t pad)
{
	char shown[TERMINAL_TEXT_SIZE(MAX_COLUMN)];
	size_t columns = terminal_text(text, len, max < MAX_COLUMN ? max : MAX_COLUMN, shown);

	fprintf(out, "%s%*s", shown, columns < pad ? (int)(pad - columns) : 0, "");
}

/* A process name in at most `width` columns, for a line of text. */
static const char *shown_comm(const char *comm, char *out, size_t width)
{
	terminal_text(comm, FS_COMM_LEN, width, out);
	return out;
}

/* Room for a name shown in a line: its escapes take up to four columns a byte. */
#define NAME_COLUMNS 32

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

static void print_system_amounts(FILE *out, const char *label, __u64 folios, __u64 pages,
				 long page_size, bool measured)
{
	if (!measured) {
		fprintf(out, "  %-30s %14s %14s %12s\n", label, "n/a", "n/a", "n/a");
		return;
	}
	fprintf(out, "  %-30s %14llu %14llu %12.1f\n", label, (unsigned long long)folios,
		(unsigned long long)pages, pages_to_mib(pages, page_size));
}

static void print_system_line(FILE *out, const char *label, const __u64 *hist, long page_size,
			      bool measured)
{
	print_system_amounts(out, label, hist_folios(hist), hist_pages(hist), page_size, measured);
}

/* Allocations by node, where the host has more than one (one node has them all). */
static void print_nodes(FILE *out, const struct fs_report *r)
{
	const struct memory_nodes *nodes = r->host->nodes;
	char label[32];

	if (!nodes->counted)
		return;
	for (int i = 0; i < nodes->nr; i++) {
		snprintf(label, sizeof(label), "  on node %d", nodes->ids[i]);
		print_system_amounts(
		    out, label, node_allocated(&r->system.total, nodes, nodes->ids[i], FS_FOLIOS),
		    node_allocated(&r->system.total, nodes, nodes->ids[i], FS_PAGES),
		    r->host->page_size, r->measured[MEASURE_NODES]);
	}
}

static void print_system(FILE *out, const struct fs_report *r)
{
	const struct system_totals *sys = &r->system;
	long ps = r->host->page_size;
	__u64 hist[FS_NR_ORDERS];

	fprintf(out, "%-32s %14s %14s %12s\n", "SYSTEM", "FOLIOS", "PAGES", "MiB");
	folio_hist(&sys->total, HIST_ALLOC, hist);
	print_system_line(out, "allocated", hist, ps, true);
	folio_hist(&sys->total, HIST_ALLOC_MOVABLE, hist);
	print_system_line(out, "  movable (user, page cache)", hist, ps, true);
	folio_hist(&sys->total, HIST_ALLOC_KERNEL, hist);
	print_system_line(out, "  kernel", hist, ps, true);
	folio_hist(&sys->interrupt, HIST_ALLOC, hist);
	print_system_line(out, "  in interrupt context", hist, ps, true);
	print_nodes(out, r);
	folio_hist(&sys->total, HIST_PAGECACHE, hist);
	print_system_line(out, "added to the page cache", hist, ps, r->measured[MEASURE_PAGECACHE]);
	print_system_line(out, "freed", sys->freed, ps, r->measured[MEASURE_FREED]);
	if (totals_events(&sys->untracked)) {
		folio_hist(&sys->untracked, HIST_ALLOC, hist);
		print_system_line(out, "allocated, untracked (table full)", hist, ps, true);
		folio_hist(&sys->untracked, HIST_PAGECACHE, hist);
		print_system_line(out, "page cache, untracked (table full)", hist, ps,
				  r->measured[MEASURE_PAGECACHE]);
	}
	fprintf(out, "\n");
}

/* TLB flushes and LRU activity over the system, the nonzero parts. */
static void print_tlb_lru(FILE *out, const struct fs_report *r)
{
	const struct fs_totals *c = &r->system.total;
	long ps = r->host->page_size;

	if (r->measured[MEASURE_TLB]) {
		fprintf(out,
			"TLB FLUSHES  %llu in all: %llu whole-TLB, %llu pages in ranged flushes\n",
			(unsigned long long)words_sum(c->tlb_flushes, FS_NR_TLB_REASONS),
			(unsigned long long)c->tlb_full, (unsigned long long)c->tlb_pages);
		for (int v = 0; v < FS_NR_TLB_REASONS; v++) {
			if (!c->tlb_flushes[v])
				continue;
			fprintf(out, "  ");
			print_text(out, r->tlb_names[v], FS_ENUM_NAME_LEN, FS_ENUM_NAME_LEN, 30);
			fprintf(out, " %14llu\n", (unsigned long long)c->tlb_flushes[v]);
		}
		fprintf(out, "\n");
	}
	if (r->measured[MEASURE_LRU_INSERT]) {
		fprintf(out, "%-32s %14s %14s %12s\n", "LRU", "FOLIOS", "PAGES", "MiB");
		for (int l = 0; l < FS_NR_LRU_LISTS; l++) {
			if (!c->lru_insert[l][FS_FOLIOS])
				continue;
			fprintf(out, "  added to ");
			print_text(out, r->lru_names[l], FS_ENUM_NAME_LEN, FS_ENUM_NAME_LEN, 21);
			fprintf(out, " %14llu %14llu %12.1f\n",
				(unsigned long long)c->lru_insert[l][FS_FOLIOS],
				(unsigned long long)c->lru_insert[l][FS_PAGES],
				pages_to_mib(c->lru_insert[l][FS_PAGES], ps));
		}
		if (r->measured[MEASURE_LRU_ACTIVATE])
			fprintf(out, "  %-30s %14llu %14llu %12.1f\n", "activated",
				(unsigned long long)c->lru_activate[FS_FOLIOS],
				(unsigned long long)c->lru_activate[FS_PAGES],
				pages_to_mib(c->lru_activate[FS_PAGES], ps));
		else if (r->mglru)
			fprintf(out,
				"  activations: not reported under the multi-generational LRU\n");
		fprintf(out, "\n");
	}
}

static void print_faults(FILE *out, const struct fs_report *r)
{
	/* The JSON names, squeezed to fit 100 columns. */
	static const char *const headers[FS_NR_FAULT_COUNTERS] = {
	    "user",	"kernel",  "read", "write", "exec",
	    "notprsnt", "protect", "file", "major", "minor",
	};

	fprintf(out, "%-8s", "FAULTS");
	for (int f = 0; f < FS_NR_FAULT_COUNTERS; f++)
		fprintf(out, " %8s", headers[f]);
	fprintf(out, "\n%-8s", "  system");
	for (int f = 0; f < FS_NR_FAULT_COUNTERS; f++)
		print_count(out, 8, fault_count(&r->system.total, f),
			    r->measured[fault_measures[f]]);
	fprintf(out, "\n\n");
}

static const char *const row_kinds[] = {
    [FS_BY_PROCESS] = "processes", [FS_BY_CGROUP] = "cgroups", [FS_BY_COMM] = "comms"};

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

/* Terminal colours (SGR): see table_cells.h. */
#define BOLD "\033[1m"
#define PLAIN "\033[0m"

/* Each column's heading and legend, on lines of 100 columns at most. */
static void print_legend(FILE *out)
{
	int used = 0;

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
	fprintf(out, "\n");
}

static void print_processes(FILE *out, const struct fs_report *r)
{
	fprintf(out, "%s with activity: %zu", row_kinds[r->by], r->processes->nr_active);
	if (r->nr_shown < r->processes->nr_active)
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
		const struct process_row *row = &r->processes->rows[i];
		struct figures_view v = row_figures(r->processes, row);
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
	print_legend(out);
	fprintf(out, "\n");
}

/* "  collapse: succeed 4, exceed_none_pte 2" for each event with any result; false if none. */
static bool print_results(FILE *out, const struct fs_report *r, const char *who,
			  const struct fs_thp_results *thp)
{
	bool any = false;

	for (int e = 0; e < FS_NR_THP_EVENTS; e++) {
		const char *sep = "";

		if (!words_sum(thp->results[e], FS_NR_SCAN_RESULTS))
			continue;
		if (!any)
			fprintf(out, "  %s\n", who);
		any = true;
		fprintf(out, "    %-14s", thp_event_names[e]);
		for (int v = 0; v < FS_NR_SCAN_RESULTS; v++) {
			if (!thp->results[e][v])
				continue;
			fprintf(out, "%s", sep);
			print_text(out, r->scan_names[v], FS_ENUM_NAME_LEN, FS_ENUM_NAME_LEN, 0);
			fprintf(out, " %llu", (unsigned long long)thp->results[e][v]);
			sep = ", ";
		}
		fprintf(out, "\n");
	}
	if (any && thp->zero_filled)
		fprintf(out, "    %-14s%llu pages (%.1f MiB) of the huge pages made were filled with "
			     "zeroes\n",
			"zero-filled", (unsigned long long)thp->zero_filled,
			pages_to_mib(thp->zero_filled, r->host->page_size));
	return any;
}

/* "    migrate       succeeded 17203, failed 34": the nonzero counters only. */
static void print_migrate(FILE *out, const struct fs_totals *c)
{
	const char *sep = "";

	if (!words_sum(c->migrate, FS_NR_MIGRATE_COUNTERS))
		return;
	fprintf(out, "    %-14s", "migrate");
	for (int m = 0; m < FS_NR_MIGRATE_COUNTERS; m++) {
		if (!c->migrate[m])
			continue;
		fprintf(out, "%s%s %llu", sep, migrate_names[m], (unsigned long long)c->migrate[m]);
		sep = ", ";
	}
	fprintf(out, "\n");
}

static const char *const stall_labels[FS_NR_STALLS] = {
    [FS_STALL_COMPACTION] = "compaction",
    [FS_STALL_DIRECT_RECLAIM] = "direct reclaim",
    [FS_STALL_MEMCG_RECLAIM] = "memcg reclaim",
};

/* "    compaction    3 stalls, 259.1 ms in all" (+ ", 1234 pages reclaimed"), if any. */
static void print_stall(FILE *out, const struct fs_stalls *stalls, __u64 reclaimed, int kind)
{
	if (!stalls[kind].count)
		return;
	fprintf(out, "    %-14s%llu stalls, %.1f ms in all", stall_labels[kind],
		(unsigned long long)stalls[kind].count, stalls[kind].total_ns / 1e6);
	if (kind != FS_STALL_COMPACTION)
		fprintf(out, ", %llu pages reclaimed", (unsigned long long)reclaimed);
	fprintf(out, "\n");
}

static bool any_stalls(const struct fs_stalls *stalls)
{
	for (int k = 0; k < FS_NR_STALLS; k++)
		if (stalls[k].count)
			return true;
	return false;
}

/* The order of a PMD-sized huge page: a page table holds page_size / 8 entries. */
static int pmd_order(const struct fs_report *r)
{
	return pmd_order_of(r->host->page_size);
}

/* Did a THP fault, or any large movable allocation, come out of the window without a folio? */
static bool any_thp_faults(const struct fs_totals *c)
{
	return c->thp_fault_alloc ||
	       words_sum(c->folios[FS_FOLIO_ALLOC_FAILED] + 1, FS_NR_ORDERS - 1) ||
	       words_sum(c->folios[FS_FOLIO_DISCARDED], FS_NR_ORDERS);
}

/* "order 4 12, order 9 3": the orders of a histogram above 0 with a count. */
static void print_orders(FILE *out, const __u64 *hist)
{
	const char *sep = "";

	for (int o = 1; o < FS_NR_ORDERS; o++) {
		if (!hist[o])
			continue;
		fprintf(out, "%sorder %d %llu", sep, o, (unsigned long long)hist[o]);
		sep = ", ";
	}
}

/*
 * Under the allocation failures, for each order that found no free block: "    free blocks
 * order 9 at worst: 0 on node 0 Normal, 93% of free memory unusable; 2 on node 0 DMA32, 0%":
 * in each zone with free memory, the fewest free blocks of that order during the window, and
 * the highest share of the zone's free memory in smaller blocks (each at its own worst
 * sample).
 */
static void print_free_blocks(FILE *out, const struct fs_report *r, const struct fs_totals *c)
{
	const struct free_blocks *f = r->free;
	const __u64 *failed = c->folios[FS_FOLIO_ALLOC_FAILED];

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
				100 * z->most_unusable[o],
				*sep ? "" : " of free memory unusable");
			sep = "; ";
		}
		fprintf(out, "\n");
	}
}

/*
 * Why the memory did not come in large folios, in one line for PMD-sized THP faults: "thp faults
 * 32 got 2 MiB, 4 fell back (memcg limit, race), 2 fell back (none free)": the memory cgroup
 * refused the charge of a folio allocated for the fault (or another thread mapped the range
 * first), or no free block was found;
 * then large allocations of other orders that failed or were discarded, by order.
 */
static void print_thp_faults(FILE *out, const struct fs_report *r, const struct fs_totals *c)
{
	const __u64 *failed = c->folios[FS_FOLIO_ALLOC_FAILED];
	const __u64 *discarded = c->folios[FS_FOLIO_DISCARDED];
	int pmd = pmd_order(r);
	__u64 other_failed = words_sum(failed + 1, FS_NR_ORDERS - 1) - failed[pmd];
	__u64 other_discarded = words_sum(discarded + 1, FS_NR_ORDERS - 1) - discarded[pmd];

	if (!any_thp_faults(c))
		return;
	fprintf(out, "    %-14s", "thp faults");
	if (r->measured[MEASURE_THP_FAULT_ALLOC])
		fprintf(out, "%llu", (unsigned long long)c->thp_fault_alloc);
	else
		fprintf(out, "n/a");
	fprintf(out, " got %ld MiB", (r->host->page_size << pmd) >> 20);
	if (r->measured[MEASURE_DISCARDED])
		fprintf(out, ", %llu fell back (memcg limit, race)",
			(unsigned long long)discarded[pmd]);
	fprintf(out, ", %llu fell back (none free)\n", (unsigned long long)failed[pmd]);
	if (other_failed) {
		fprintf(out, "    %-14s", "no folio");
		print_orders(out, failed);
		fprintf(out, "\n");
	}
	if (other_discarded) {
		fprintf(out, "    %-14s", "discarded");
		print_orders(out, discarded);
		fprintf(out, "\n");
	}
	if (c == &r->system.total)
		print_free_blocks(out, r, c);
}

/* "    by order      9: 3 stalls, 12.4 ms, 4.1 ms per folio allocated": direct compaction by
 * the order that asked for it, and its cost per folio of that order the allocator handed out. */
static void print_compaction_by_order(FILE *out, const struct fs_order_stalls *by_order,
				      const struct fs_totals *c)
{
	__u64 alloc[FS_NR_ORDERS];

	folio_hist(c, HIST_ALLOC, alloc);
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

/* One block of the THP AND STALLS section: THP fault outcomes, collapse outcomes, migration,
 * stalls. */
static void print_activity_block(FILE *out, const struct fs_report *r, const char *who,
				 const struct fs_thp_results *thp, const struct fs_totals *c,
				 const struct fs_stalls *stalls, const __u64 *reclaimed,
				 const struct fs_order_stalls *by_order)
{
	bool migrated = c && words_sum(c->migrate, FS_NR_MIGRATE_COUNTERS);
	bool faults = c && any_thp_faults(c);

	if (!print_results(out, r, who, thp) && (migrated || faults || any_stalls(stalls)))
		fprintf(out, "  %s\n", who);
	if (c) {
		print_thp_faults(out, r, c);
		print_migrate(out, c);
	}
	for (int k = 0; k < FS_NR_STALLS; k++) {
		print_stall(out, stalls, reclaimed[k], k);
		if (k == FS_STALL_COMPACTION && c)
			print_compaction_by_order(out, by_order, c);
	}
}

/*
 * The THP AND STALLS section, only when there was any: collapse outcomes (charged to the owners
 * of the memory), migration and stalls, for the system and each process shown; the kernel's
 * THP counters that changed; and the stall histograms of the system.
 */
static void print_thp_and_stalls(FILE *out, const struct fs_report *r)
{
	static const struct proc_figures none;
	const struct system_totals *sys = &r->system;
	char comm[TERMINAL_TEXT_SIZE(NAME_COLUMNS)], who[192], title[64];
	bool header = words_sum(sys->total.migrate, FS_NR_MIGRATE_COUNTERS) ||
		      any_stalls(sys->stalls) || any_thp_faults(&sys->total) ||
		      words_sum((const __u64 *)&sys->thp, FS_WORDS(sys->thp));

	for (size_t i = 0; !header && r->kernel && i < r->kernel->nr; i++)
		header = r->kernel->items[i].value != 0;
	if (!header)
		return;
	fprintf(out, "THP AND STALLS\n");
	print_activity_block(out, r, "system", &sys->thp, &sys->total, sys->stalls, sys->reclaimed,
			     &sys->compaction_by_order);
	print_results(out, r, "owner unknown", &sys->thp_unattributed);
	print_results(out, r, "table full", &sys->thp_untracked);
	for (size_t i = 0; i < r->nr_shown; i++) {
		const struct process_row *row = &r->processes->rows[i];
		const struct proc_row *found = process_proc(r->processes, row);
		const struct proc_figures *pc = found ? &found->counters : &none;

		snprintf(who, sizeof(who), "pid %u (%s)", row_pid(row),
			 shown_comm(row->comm, comm, NAME_COLUMNS));
		print_activity_block(out, r, who, &pc->thp, &row->counters, pc->stalls,
				     pc->reclaimed, &pc->compaction_by_order);
	}
	for (size_t i = 0; r->kernel && i < r->kernel->nr; i++) {
		const struct kernel_counter *kc = &r->kernel->items[i];

		if (!kc->value)
			continue;
		fprintf(out, "  ");
		print_text(out, kc->name, sizeof(kc->name), sizeof(kc->name), 60);
		fprintf(out, " %14lld\n", (long long)kc->value);
	}
	fprintf(out, "\n");
	for (int k = 0; k < FS_NR_STALLS; k++) {
		snprintf(title, sizeof(title), "system: %s stalls", stall_labels[k]);
		print_stall_hist(out, title, sys->stalls[k].hist, FS_NR_STALL_BUCKETS);
	}
}

/* Reclaim by kswapd and by direct reclaimers, per LRU list, when there was any. */
static void print_vmscan(FILE *out, const struct fs_report *r)
{
	static const char *const who[FS_NR_RECLAIMERS] = {"kswapd", "direct"};
	const struct fs_vmscan *v = &r->system.vmscan;

	if (!words_sum((const __u64 *)v, FS_WORDS(*v)))
		return;
	fprintf(out, "%-32s %14s %14s %14s\n", "RECLAIM (pages)", "SCANNED", "RECLAIMED",
		"DEACTIVATED");
	for (int w = 0; w < FS_NR_RECLAIMERS; w++) {
		for (int l = 0; l < FS_NR_LRU_LISTS; l++) {
			if (!v->scanned[w][l] && !v->reclaimed[w][l] && !v->deactivated[w][l])
				continue;
			fprintf(out, "  %-6s ", who[w]);
			print_text(out, r->lru_names[l], FS_ENUM_NAME_LEN, FS_ENUM_NAME_LEN, 23);
			fprintf(out, " %14llu %14llu %14llu\n",
				(unsigned long long)v->scanned[w][l],
				(unsigned long long)v->reclaimed[w][l],
				(unsigned long long)v->deactivated[w][l]);
		}
	}
	fprintf(out, "  kswapd wake-ups %llu, folios written by reclaim %llu (%llu pages)\n\n",
		(unsigned long long)v->kswapd_wakes, (unsigned long long)v->written[FS_FOLIOS],
		(unsigned long long)v->written[FS_PAGES]);
}

/* "pid N (comm): cgroup PATH", its end kept when it would not fit in 100 columns. */
static void print_cgroup_line(FILE *out, const struct fs_report *r, const struct process_row *row,
			      const char *comm)
{
	char who[192], shown[TERMINAL_TEXT_SIZE(100)];
	size_t used;

	if (!r->cgroup_names)
		return;
	snprintf(who, sizeof(who), "pid %u (%s): cgroup ", row_pid(row), comm);
	/* A name's escapes may leave little room: the path gets 40 columns at least. */
	used = strlen(who);
	fprintf(out, "%s%s\n\n", who,
		cgroup_tail(r, row->cgroup, shown, used < 60 ? 100 - used : 40));
}

/* The histograms each of the top rows gets: record figures (by path) of kind RK_ORDERS. */
static const struct {
	const char *figure, *title;
} row_histograms[] = {
    {"folios.alloc", "folios allocated, by order"},
    {"folios.pagecache", "folios added to the page cache"},
};
#define NR_ROW_HISTOGRAMS (sizeof(row_histograms) / sizeof(row_histograms[0]))

/* A histogram figure's folios by order in v (its histograms summed where it has several). A
 * path the registry does not have, or of another kind, is this file's mistake (abort). */
static void figure_orders(const struct figures_view *v, const char *path, __u64 hist[FS_NR_ORDERS])
{
	int i = record_figure_find(path);

	if (i < 0 || record_figures[i].kind != RK_ORDERS)
		abort();
	record_figure_orders(v, i, hist);
}

static void print_details(FILE *out, const struct fs_report *r)
{
	char comm[TERMINAL_TEXT_SIZE(NAME_COLUMNS)], name[TERMINAL_TEXT_SIZE(50)], who[256];
	char title[320];
	__u64 hist[FS_NR_ORDERS];

	for (size_t i = 0; i < r->nr_shown && i < DETAILED_PROCESSES; i++) {
		const struct process_row *row = &r->processes->rows[i];

		shown_comm(row->comm, comm, NAME_COLUMNS);
		if (r->by == FS_BY_PROCESS) {
			print_cgroup_line(out, r, row, comm);
			snprintf(who, sizeof(who), "pid %u (%s)", row_pid(row), comm);
		} else if (r->by == FS_BY_COMM) {
			snprintf(who, sizeof(who), "comm %s", comm);
		} else {
			snprintf(who, sizeof(who), "cgroup %s",
				 cgroup_tail(r, row->cgroup, name, 50));
		}
		for (size_t h = 0; h < NR_ROW_HISTOGRAMS; h++) {
			struct figures_view v = {
			    .scope = IN_ROW, .from[FROM_TOTALS] = (const __u64 *)&row->counters};

			figure_orders(&v, row_histograms[h].figure, hist);
			snprintf(title, sizeof(title), "%s: %s", who, row_histograms[h].title);
			print_order_hist(out, title, hist);
		}
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
static void print_allowed(FILE *out, int allowed)
{
	if (allowed >= 0)
		fprintf(out, " %3d", allowed);
	else
		fprintf(out, " %3s", "-");
}

/* PAGE-CACHE FILES (--files): the top files by pages added, then a line per file system; MAX
 * the largest order each got, CAN the largest its mapping allows (- where the kernel does not
 * say): a file system that cannot hold large folios is told apart from one whose large folios
 * fell back. */
static void print_files(FILE *out, const struct fs_report *r)
{
	const struct file_summary *s = r->files;
	char path[FS_FILE_NAME_DEPTH * FS_FILE_NAME_LEN + 4096];
	char dev[24];
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
		fprintf(out, " %11llu %9.1f %5.1f%% %3d", (unsigned long long)row->pages,
			pages_to_mib(row->pages, ps), hist_large_share(row->folios),
			hist_largest(row->folios));
		print_allowed(out, file_row_orders(row, &min, &max) ? max : -1);
		fprintf(out, "\n");
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
		fprintf(out, " %-10s %10llu %9.1f %5.1f%% %3d", dev, (unsigned long long)pages,
			pages_to_mib(pages, ps), hist_large_share(fs->folios),
			hist_largest(fs->folios));
		print_allowed(out, fs->max_allowed);
		fprintf(out, " %7zu %10llu\n", fs->files, (unsigned long long)hist_pages(fs->untracked));
	}
	fprintf(out, "\n");
}

/* SELF: what foliostat cost in the window (--self). */
/* The bounded structures in use: what they hold, their limit, and what they dropped. */
static void print_bounds(FILE *out, const struct self_cost *s)
{
	bool any = false;

	for (int b = 0; b < FS_NR_BOUNDS; b++) {
		const struct bound_count *c = &s->bounds[b];

		if (!c->limit)
			continue;
		if (!any)
			fprintf(out, "%-44s %14s %12s %10s\n", "  BOUNDED (what other users can grow)",
				"ENTRIES", "LIMIT", "EVICTED");
		any = true;
		fprintf(out, "    %-40s %14llu %12llu %10llu\n", bound_name(b),
			(unsigned long long)c->entries, (unsigned long long)c->limit,
			(unsigned long long)c->evictions);
	}
	if (any)
		fputc('\n', out);
}

static void print_self(FILE *out, const struct fs_report *r)
{
	const struct self_cost *s = r->self;
	__u64 total_ns = 0;

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
	print_bounds(out, s);
}

int render_table(FILE *out, const struct fs_report *r)
{
	struct figures_view system = {.scope = IN_SYSTEM,
				      .from = {[FROM_TOTALS] = (const __u64 *)&r->system.total,
					       [FROM_SYSTEM] = (const __u64 *)&r->system}};
	__u64 hist[FS_NR_ORDERS];
	char title[64];

	print_header(out, r);
	print_system(out, r);
	figure_orders(&system, row_histograms[0].figure, hist);
	snprintf(title, sizeof(title), "system: %s", row_histograms[0].title);
	print_order_hist(out, title, hist);
	print_faults(out, r);
	print_tlb_lru(out, r);
	print_processes(out, r);
	if (r->resident)
		print_resident(out, r);
	if (r->files)
		print_files(out, r);
	if (r->self)
		print_self(out, r);
	print_thp_and_stalls(out, r);
	print_vmscan(out, r);
	print_details(out, r);
	return fflush(out) == EOF || ferror(out) ? -1 : 0;
}
