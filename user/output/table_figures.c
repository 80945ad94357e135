// SPDX-License-Identifier: GPL-2.0
/* A registry figure's values as the table shows them (see table_figures.h). */
#include "table_figures.h"

#include <stdio.h>

#include "counters.h"
#include "kernel_counters.h"
#include "nodes.h"

size_t figure_extent(int i)
{
	const struct record_figure *f = &record_figures[i];

	switch (f->kind) {
	case RK_COUNT:
	case RK_MICROS:
		return 1;
	case RK_ORDERS:
		return FS_NR_ORDERS * (f->arg ? f->arg : 1);
	case RK_STALL_HIST:
		return FS_NR_STALL_BUCKETS;
	case RK_STALLS_BY_ORDER:
		return FS_WORDS(struct fs_order_stalls);
	case RK_SCAN_RESULTS:
		return FS_NR_SCAN_RESULTS;
	case RK_TLB_REASONS:
		return FS_NR_TLB_REASONS;
	case RK_LIST_AMOUNTS:
		return FS_NR_LRU_LISTS * FS_NR_AMOUNTS;
	case RK_LIST_PAGES:
		return FS_NR_LRU_LISTS;
	case RK_NODE_AMOUNTS:
		return FS_MAX_NODES * FS_NR_AMOUNTS;
	case RK_NODE_ORDERS:
		return FS_MAX_NODES * FS_NR_ORDERS;
	default:
		return 0;
	}
}

bool figure_nonzero(const struct fs_report *r, const struct figures_view *v, int i)
{
	const struct record_figure *f = &record_figures[i];

	switch (f->kind) {
	case RK_OBJECT:
		for (int j = i + 1; j < record_figure_skip(i); j++)
			if (record_figures[j].kind != RK_OBJECT && figure_nonzero(r, v, j))
				return true;
		return false;
	case RK_FAULTS:
		return fault_count((const struct fs_totals *)v->from[FROM_TOTALS], f->arg) != 0;
	case RK_VMSTAT:
		for (size_t k = 0; r->kernel && k < r->kernel->nr; k++)
			if (r->kernel->items[k].value)
				return true;
		return false;
	default:
		return words_sum(record_figure_words(v, i), figure_extent(i)) != 0;
	}
}

bool figure_entry(const struct fs_report *r, int i, int n, struct figure_entry *e)
{
	int kind = record_figures[i].kind;

	*e = (struct figure_entry){.index = n, .size = FS_ENUM_NAME_LEN};
	switch (kind) {
	case RK_LIST_AMOUNTS:
	case RK_LIST_PAGES:
		e->name = r->lru_names[n];
		return n < FS_NR_LRU_LISTS;
	case RK_TLB_REASONS:
		e->name = r->tlb_names[n];
		return n < FS_NR_TLB_REASONS;
	case RK_NODE_AMOUNTS:
		if (!r->host->nodes->counted || n >= r->host->nodes->nr)
			return false;
		e->index = r->host->nodes->ids[n];
		snprintf(e->number, sizeof(e->number), "%d", e->index);
		e->name = e->number;
		return true;
	case RK_VMSTAT:
		if (!r->kernel || (size_t)n >= r->kernel->nr)
			return false;
		e->name = r->kernel->items[n].name;
		e->size = sizeof(r->kernel->items[n].name);
		return true;
	default:
		e->index = -1;
		return n == 0;
	}
}

__u64 figure_amount(const struct fs_report *r, const struct figures_view *v, int i, int entry,
		    enum table_cell_shows shows)
{
	const struct record_figure *f = &record_figures[i];
	const __u64 *words = record_figure_words(v, i);
	int amount = shows == CELL_FOLIOS || shows == CELL_COUNT ? FS_FOLIOS : FS_PAGES;
	__u64 hist[FS_NR_ORDERS], sum = 0;

	switch (f->kind) {
	case RK_ORDERS:
		record_figure_orders(v, i, hist);
		return amount == FS_FOLIOS ? hist_folios(hist) : hist_pages(hist);
	case RK_FAULTS:
		return fault_count((const struct fs_totals *)v->from[FROM_TOTALS], f->arg);
	case RK_LIST_AMOUNTS:
	case RK_NODE_AMOUNTS:
		if (entry >= 0)
			return words[entry * FS_NR_AMOUNTS + amount];
		for (size_t e = 0; e < figure_extent(i); e += FS_NR_AMOUNTS)
			sum += words[e + amount];
		return sum;
	case RK_VMSTAT: /* a counter's line (the layout allows no sum of unlike counters) */
		return entry >= 0 && r && r->kernel ? r->kernel->items[entry].value : 0;
	case RK_LIST_PAGES:
	case RK_TLB_REASONS:
		return entry < 0 ? words_sum(words, figure_extent(i)) : words[entry];
	default:
		return words[0];
	}
}
