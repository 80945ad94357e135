// SPDX-License-Identifier: GPL-2.0
/*
 * The exposition's families (see exposition_text.h): one writer per kind of registry row
 * (metric_families.h), each writing a family's samples over the groups and the system; none
 * writes a name or HELP of its own (expo_family() writes the row's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "bounds.h"
#include "counters.h"
#include "exposition_text.h"
#include "figures.h"
#include "nodes.h"
#include "resident_report.h"

/* The stall histograms' bounds: every other power of two of the BPF buckets' (1 us, 4 us, ...
 * 16.8 s), so the cumulative counts are exact and a series has 14 buckets instead of 32. */
#define STALL_BUCKET_STEP 2
#define STALL_BUCKET_LAST 24 /* 2^24 us: 16.8 s */


/* The extra labels of each (a, b) of a family's dimensions: the same for every group, so made
 * once per family; "" for a value the kernel does not name (skipped). */
#define MAX_FIGURES (FS_NR_ORDERS * 2 > FS_NR_FAULT_KINDS ? FS_NR_ORDERS * 2 : FS_NR_FAULT_KINDS)
struct figure_extras {
	char text[MAX_FIGURES][256];
	int nr_a, nr_b;
	bool labelled; /* "" is then a value not named */
};
_Static_assert(FS_NR_TLB_REASONS <= MAX_FIGURES && FS_NR_LRU_LISTS <= MAX_FIGURES &&
		   FS_NR_MIGRATE_COUNTERS <= MAX_FIGURES && FS_MAX_NODES <= MAX_FIGURES,
	       "every family's label values fit");

static const char *const node_names[FS_MAX_NODES] = {"0", "1", "2", "3", "4", "5", "6", "7"};

/* Labels a kernel enum's names give, NULL for values it does not name (skipped). */
static void known_names(const char (*names)[FS_ENUM_NAME_LEN], const bool *known, int nr,
			const char **out)
{
	for (int i = 0; i < nr; i++)
		out[i] = !known || known[i] ? names[i] : NULL;
}

/* The label values of each dimension for this report: the registry's (figures.c), or where they
 * are the host's, the kernel's names and the nodes with memory. */
struct dim_values {
	const char *const *values[NR_FIGURE_DIMS];
	const char *tlb[FS_NR_TLB_REASONS], *lru[FS_NR_LRU_LISTS];
	const char *node[FS_MAX_NODES]; /* the nodes with memory; NULL: none */
};

static void dim_values(const struct fs_report *r, struct dim_values *d)
{
	for (int i = 0; i < NR_FIGURE_DIMS; i++)
		d->values[i] = figure_dims[i].values;
	known_names(r->tlb_names, r->tlb_known, FS_NR_TLB_REASONS, d->tlb);
	known_names(r->lru_names, r->lru_known, FS_NR_LRU_LISTS, d->lru);
	d->values[DIM_TLB_REASON] = d->tlb;
	d->values[DIM_LRU_LIST] = d->lru;
	memset(d->node, 0, sizeof(d->node));
	for (int i = 0; i < r->host->nodes->nr; i++)
		d->node[r->host->nodes->ids[i]] = node_names[r->host->nodes->ids[i]];
	d->values[DIM_NODE] = d->node;
}

static void figure_extras(const struct metric_family *f, const struct dim_values *d,
			  struct figure_extras *out)
{
	const struct figure_dim_info *da = &figure_dims[f->dim_a], *db = &figure_dims[f->dim_b];
	const char *const *va = d->values[f->dim_a], *const *vb = d->values[f->dim_b];
	int nr_a = f->dim_a ? da->size : 0, nr_b = f->dim_b ? db->size : 0;
	size_t size = sizeof(out->text[0]);

	out->nr_a = nr_a ? nr_a : 1;
	out->nr_b = nr_b ? nr_b : 1;
	out->labelled = nr_a || nr_b;
	for (int a = 0; a < out->nr_a; a++) {
		for (int b = 0; b < out->nr_b; b++) {
			char *text = out->text[a * out->nr_b + b];

			text[0] = '\0';
			if ((nr_a && !va[a]) || (nr_b && !vb[b]))
				continue;
			if ((nr_a && !expo_label_pair(text, size, da->label, va[a])) ||
			    (nr_a && da->label2 &&
			     !expo_label_pair(text, size, da->label2, da->values2[a])) ||
			    (nr_b && !expo_label_pair(text, size, db->label, vb[b])))
				text[0] = '\0';
		}
	}
}

static void figure_samples(struct expo *x, const char *metric, const struct expo_subject *g,
			   enum metric_id m, const struct figure_extras *extras)
{
	for (int a = 0; a < extras->nr_a; a++) {
		if (!metric_shown_at(m, x->r->measured, a))
			continue;
		for (int b = 0; b < extras->nr_b; b++) {
			const char *extra = extras->text[a * extras->nr_b + b];
			__u64 v = metric_value(m, g->totals, a, b, x->r->host);

			if ((!v && !g->always) || (extras->labelled && !extra[0]))
				continue;
			expo_sample(x, metric, g->labels, extra, v);
		}
	}
}

/* MK_BY_DIMS: the family of the groups, foliostat_X, and the one of the system,
 * foliostat_system_X. */
static void write_by_dims(struct expo *x, enum metric_id m)
{
	static struct figure_extras extras; /* 8 KiB: not on the stack */
	static struct dim_values d;
	char metric[128];

	dim_values(x->r, &d);
	figure_extras(&metric_families[m], &d, &extras);
	expo_family(x, m, false, metric, sizeof(metric));
	for (size_t i = 0; i < x->nr_subjects; i++)
		if (x->subjects[i].totals)
			figure_samples(x, metric, &x->subjects[i], m, &extras);
	expo_family(x, m, true, metric, sizeof(metric));
	figure_samples(x, metric, x->system, m, &extras);
}

/* Collapse outcomes: of the groups, of the untracked and unattributed, and of the system. */
static void thp_results(struct expo *x, const char *metric, const struct expo_subject *g)
{
	const struct fs_report *r = x->r;
	char extra[256];

	for (int e = 0; e < FS_NR_THP_EVENTS; e++) {
		if (!r->measured[MEASURE_THP_RESULTS + e])
			continue;
		for (int v = 0; v < FS_NR_SCAN_RESULTS; v++) {
			if (!g->thp->results[e][v])
				continue;
			extra[0] = '\0';
			if (!expo_label_pair(extra, sizeof(extra), "event", thp_event_names[e]) ||
			    !expo_label_pair(extra, sizeof(extra), "result", r->scan_names[v]))
				continue;
			expo_sample(x, metric, g->labels, extra, g->thp->results[e][v]);
		}
	}
}

/* A word of the collapse outcomes (MK_COLLAPSE_COUNT's `at`), where any. */
static void thp_count(struct expo *x, const char *metric, const struct expo_subject *g,
		      enum metric_id m)
{
	__u64 v = ((const __u64 *)g->thp)[metric_families[m].at];

	if (v)
		expo_sample(x, metric, g->labels, "", v);
}

/* MK_COLLAPSE_RESULTS, MK_COLLAPSE_COUNT: the groups with collapse outcomes, then the system. */
static void write_collapses(struct expo *x, enum metric_id m)
{
	struct expo_subject system = *x->system;
	char name[96];

	system.thp = &x->s->system.thp;
	expo_family(x, m, false, name, sizeof(name));
	for (size_t i = 0; i < x->nr_subjects; i++) {
		if (!x->subjects[i].thp)
			continue;
		if (metric_families[m].kind == MK_COLLAPSE_RESULTS)
			thp_results(x, name, &x->subjects[i]);
		else
			thp_count(x, name, &x->subjects[i], m);
	}
	expo_family(x, m, true, name, sizeof(name));
	if (metric_families[m].kind == MK_COLLAPSE_RESULTS)
		thp_results(x, name, &system);
	else
		thp_count(x, name, &system, m);
}

/* One stall histogram: cumulative buckets at every other power of two of a microsecond. */
static void stall_histogram(struct expo *x, const char *family_name, const char *labels, int kind,
			    const struct fs_stalls *st)
{
	size_t lbl_size = strlen(labels) + 64;
	char extra[160], *lbl = malloc(lbl_size), metric[96];
	__u64 cumulative = 0;

	if (!lbl) {
		x->e->failed = true;
		return;
	}
	snprintf(lbl, lbl_size, "%s%skind=\"%s\"", labels, labels[0] ? "," : "",
		 stall_kind_names[kind].label);
	for (int b = 0; b < FS_NR_STALL_BUCKETS; b++) {
		cumulative += st->hist[b];
		if (b % STALL_BUCKET_STEP || b > STALL_BUCKET_LAST)
			continue;
		/* Bucket b holds stalls shorter than 2^b us. */
		snprintf(extra, sizeof(extra), "le=\"%.9g\"", (double)(1ULL << b) / 1e6);
		snprintf(metric, sizeof(metric), "%s_bucket", family_name);
		expo_sample(x, metric, lbl, extra, cumulative);
	}
	expo_sample(x, metric, lbl, "le=\"+Inf\"", st->count);
	expo_emit(x->e, "%s_sum{%s} %.9g\n", family_name, lbl, st->total_ns / 1e9);
	snprintf(metric, sizeof(metric), "%s_count", family_name);
	expo_sample(x, metric, lbl, "", st->count);
	free(lbl);
}

/* MK_STALL_HISTOGRAM: each group's histogram of each stall kind it had, then the system's. */
static void write_stall_histograms(struct expo *x, enum metric_id m)
{
	const struct fs_report *r = x->r;
	char name[96];

	expo_family(x, m, false, name, sizeof(name));
	for (size_t i = 0; i < x->nr_subjects; i++) {
		const struct expo_subject *g = &x->subjects[i];

		for (int k = 0; g->proc && k < FS_NR_STALLS; k++)
			if (r->measured[MEASURE_STALLS + k] && g->proc->stalls[k].count)
				stall_histogram(x, name, g->labels, k, &g->proc->stalls[k]);
	}
	expo_family(x, m, true, name, sizeof(name));
	for (int k = 0; k < FS_NR_STALLS; k++)
		if (r->measured[MEASURE_STALLS + k])
			stall_histogram(x, name, "", k, &x->s->system.stalls[k]);
}

/* MK_STALL_RECLAIMED: pages reclaimed in each reclaim stall kind, of each group, then the
 * system. */
static void write_stall_reclaimed(struct expo *x, enum metric_id m)
{
	const struct fs_report *r = x->r;
	const struct system_totals *sys = &x->s->system;
	char extra[64], name[96];

	expo_family(x, m, false, name, sizeof(name));
	for (size_t i = 0; i < x->nr_subjects; i++) {
		const struct expo_subject *g = &x->subjects[i];

		for (int k = FS_STALL_DIRECT_RECLAIM; g->proc && k < FS_NR_STALLS; k++) {
			if (!r->measured[MEASURE_STALLS + k] || !g->proc->reclaimed[k])
				continue;
			snprintf(extra, sizeof(extra), "kind=\"%s\"", stall_kind_names[k].label);
			expo_sample(x, name, g->labels, extra, g->proc->reclaimed[k]);
		}
	}
	expo_family(x, m, true, name, sizeof(name));
	for (int k = FS_STALL_DIRECT_RECLAIM; k < FS_NR_STALLS; k++) {
		if (!r->measured[MEASURE_STALLS + k])
			continue;
		snprintf(extra, sizeof(extra), "kind=\"%s\"", stall_kind_names[k].label);
		expo_sample(x, name, "", extra, sys->reclaimed[k]);
	}
}

/* A group's (or the system's) direct compaction by the order asking for it: its stalls, or
 * their seconds. */
static void compaction_orders(struct expo *x, const char *metric, const char *labels,
			      const struct fs_order_stalls *st, bool seconds, bool always)
{
	char extra[32];

	for (int o = 1; o < FS_NR_ORDERS; o++) {
		if (!st->count[o] && !always)
			continue;
		snprintf(extra, sizeof(extra), "order=\"%d\"", o);
		if (!seconds)
			expo_sample(x, metric, labels, extra, st->count[o]);
		else
			expo_emit(x->e, "%s{%s%s%s} %.9g\n", metric, labels, labels[0] ? "," : "",
				  extra, st->total_ns[o] / 1e9);
	}
}

/* MK_STALLS_BY_ORDER: direct compaction by order, per process as the stall histograms are: the
 * groups, other (with the processes the table had no room for and the threads outside the
 * selection), the system. */
static void write_stalls_by_order(struct expo *x, enum metric_id m)
{
	bool seconds = metric_families[m].seconds;
	char metric[96];

	expo_family(x, m, false, metric, sizeof(metric));
	for (size_t i = 0; i < x->nr_subjects; i++)
		if (x->subjects[i].proc)
			compaction_orders(x, metric, x->subjects[i].labels,
					  &x->subjects[i].proc->compaction_by_order, seconds,
					  false);
	expo_family(x, m, true, metric, sizeof(metric));
	compaction_orders(x, metric, "", &x->s->system.compaction_by_order, seconds, true);
}

/* A group's (or the system's) folios allocated by node and order, where any. */
static void node_orders(struct expo *x, const char *metric, const char *labels,
			const __u64 by_node[FS_MAX_NODES][FS_NR_ORDERS], const struct fs_totals *c)
{
	const struct memory_nodes *nodes = x->r->host->nodes;
	__u64 hist[FS_NR_ORDERS];
	char extra[48];

	for (int i = 0; i < nodes->nr; i++) {
		node_allocated_orders(by_node, c, nodes, nodes->ids[i], hist);
		for (int o = 0; o < FS_NR_ORDERS; o++) {
			if (!hist[o])
				continue;
			snprintf(extra, sizeof(extra), "node=\"%d\",order=\"%d\"", nodes->ids[i],
				 o);
			expo_sample(x, metric, labels, extra, hist[o]);
		}
	}
}

/* MK_NODE_ORDERS: folios allocated by node and order, then the system's. Where nodes are
 * counted, the groups with a process's figures (the store's, and other, which has interrupt
 * context's and the rest); where they are not (one node), every group with counters, each one's
 * allocations on the node. */
static void write_node_orders(struct expo *x, enum metric_id m)
{
	const struct system_totals *sys = &x->s->system;
	static const __u64 none[FS_MAX_NODES][FS_NR_ORDERS];
	bool counted = x->r->host->nodes->counted;
	char metric[96];

	expo_family(x, m, false, metric, sizeof(metric));
	for (size_t i = 0; i < x->nr_subjects; i++) {
		const struct expo_subject *g = &x->subjects[i];

		if (g->totals && (!counted || g->proc))
			node_orders(x, metric, g->labels,
				    g->proc ? g->proc->alloc_by_node_order : none, g->totals);
	}
	expo_family(x, m, true, metric, sizeof(metric));
	node_orders(x, metric, "", sys->alloc_by_node_order, &sys->total);
}

/* MK_SYSTEM_ORDERS, MK_SYSTEM_BYTES: the system's histogram by order at `at`, or its bytes. */
static void write_system_orders(struct expo *x, enum metric_id m)
{
	const struct metric_family *f = &metric_families[m];
	const __u64 *hist = (const __u64 *)&x->s->system + f->at;
	char extra[32], name[96];

	expo_family(x, m, true, name, sizeof(name));
	if (f->kind == MK_SYSTEM_BYTES) {
		expo_sample(x, name, "", "", hist_pages(hist) * (__u64)x->r->host->page_size);
		return;
	}
	for (int o = 0; o < FS_NR_ORDERS; o++) {
		snprintf(extra, sizeof(extra), "order=\"%d\"", o);
		expo_sample(x, name, "", extra, hist[o]);
	}
}

/* MK_KERNEL_VMSTAT, MK_KERNEL_MTHP: the growth of the kernel's own THP counters. */
static void write_kernel_counters(struct expo *x, enum metric_id m)
{
	const struct kernel_counters *kc = &x->s->kernel;
	char extra[256], name[96];

	expo_family(x, m, true, name, sizeof(name));
	for (size_t i = 0; i < kc->nr; i++) {
		const char *item = kc->items[i].name, *slash;
		char size[sizeof(kc->items[i].name)];

		extra[0] = '\0';
		if (metric_families[m].kind == MK_KERNEL_VMSTAT) {
			if (!strncmp(item, "vmstat/thp_", 11) &&
			    expo_label_pair(extra, sizeof(extra), "counter", item + 7))
				expo_sample(x, name, "", extra, kc->items[i].value);
			continue;
		}
		if (strncmp(item, "mthp/", 5) || !(slash = strchr(item + 5, '/')))
			continue;
		/* nr_anon, nr_anon_partially_mapped: levels, not events */
		if (!strncmp(slash + 1, "nr_", 3))
			continue;
		snprintf(size, sizeof(size), "%.*s", (int)(slash - item - 5), item + 5);
		if (expo_label_pair(extra, sizeof(extra), "size", size) &&
		    expo_label_pair(extra, sizeof(extra), "counter", slash + 1))
			expo_sample(x, name, "", extra, kc->items[i].value);
	}
}

/* MK_VMSCAN: the pages each reclaimer scanned, reclaimed and deactivated, per LRU list. */
static void write_vmscan(struct expo *x, enum metric_id m)
{
	const struct fs_report *r = x->r;
	const struct fs_vmscan *v = &x->s->system.vmscan;
	const __u64(*per_action[])[FS_NR_LRU_LISTS] = {v->scanned, v->reclaimed, v->deactivated};
	char extra[256], name[96];

	expo_family(x, m, true, name, sizeof(name));
	for (int a = 0; a < FS_NR_VMSCAN_ACTIONS; a++) {
		if (!r->measured[MEASURE_VMSCAN + FS_VMSCAN_SCANNED + a])
			continue;
		for (int who = 0; who < FS_NR_RECLAIMERS; who++) {
			for (int l = 0; l < FS_NR_LRU_LISTS; l++) {
				if (!r->lru_known[l] && !per_action[a][who][l])
					continue;
				snprintf(extra, sizeof(extra), "reclaimer=\"%s\",action=\"%s\"",
					 reclaimer_names[who].label, vmscan_action_names[a]);
				if (expo_label_pair(extra, sizeof(extra), "list", r->lru_names[l]))
					expo_sample(x, name, "", extra, per_action[a][who][l]);
			}
		}
	}
}

/* MK_COUNT, MK_REAL, MK_UNIX_TIME: one sample of the scalars gathered for this exposition. */
static void write_scalar(struct expo *x, enum metric_id m)
{
	const struct metric_family *f = &metric_families[m];
	const char *at = (const char *)&x->scalars + f->at;
	char name[96];
	double real;

	expo_family(x, m, true, name, sizeof(name));
	if (f->kind == MK_COUNT) {
		__u64 count;

		memcpy(&count, at, sizeof(count));
		expo_sample(x, name, "", "", count);
		return;
	}
	memcpy(&real, at, sizeof(real));
	/* Not %.9g for a Unix time: it has 10 digits before the point (that rounded it to 10 s). */
	if (f->kind == MK_UNIX_TIME)
		expo_emit(x->e, "%s %.6f\n", name, real);
	else
		expo_sample_real(x, name, "", real);
}

/* MK_BUILD_INFO: foliostat's version. */
static void write_build_info(struct expo *x, enum metric_id m)
{
	char name[96];

	expo_family(x, m, true, name, sizeof(name));
	expo_emit(x->e, "%s{version=\"%s\"} 1\n", name, FOLIOSTAT_VERSION);
}

/* MK_PROBE_ATTACHED: 1 or 0 per probe, but the stand-ins not needed. */
static void write_probe_attached(struct expo *x, enum metric_id m)
{
	const struct fs_report *r = x->r;
	char extra[256], name[96];

	expo_family(x, m, true, name, sizeof(name));
	for (int i = 0; i < r->nr_probes; i++) {
		if (r->probes[i].not_needed)
			continue;
		extra[0] = '\0';
		if (expo_label_pair(extra, sizeof(extra), "probe", r->probes[i].name))
			expo_sample(x, name, "", extra, r->probes[i].attached);
	}
}

/* MK_PER_PROBE: the words of struct self_cost at `at`, a sample per attached probe (seconds
 * from nanoseconds where the family says so). */
static void write_per_probe(struct expo *x, enum metric_id m)
{
	const struct metric_family *f = &metric_families[m];
	const struct fs_report *r = x->r;
	const __u64 *values;
	char extra[256], name[96];

	if (!x->health->bpf || (f->run_time && !x->health->bpf_run_time))
		return;
	values = (const __u64 *)((const char *)x->health->bpf + f->at);
	expo_family(x, m, true, name, sizeof(name));
	for (int i = 0; i < r->nr_probes && i < FS_MAX_PROBES; i++) {
		if (!r->probes[i].attached)
			continue;
		extra[0] = '\0';
		if (!expo_label_pair(extra, sizeof(extra), "probe", r->probes[i].name))
			continue;
		if (!f->seconds)
			expo_sample(x, name, "", extra, values[i]);
		else
			expo_emit(x->e, "%s{%s} %.9g\n", name, extra, values[i] * 1e-9);
	}
}

/* MK_BOUND: the word of struct bound_count at `at` of each bounded structure in use (bounds.h,
 * as the health's self figures read them); none where none is. */
static void write_bound(struct expo *x, enum metric_id m)
{
	const struct bound_count *counts = x->health->bpf ? x->health->bpf->bounds : NULL;
	char extra[128], name[96];
	bool any = false;

	for (int b = 0; counts && b < FS_NR_BOUNDS && !any; b++)
		any = counts[b].limit != 0;
	if (!any)
		return;
	expo_family(x, m, true, name, sizeof(name));
	for (int b = 0; b < FS_NR_BOUNDS; b++) {
		const char *count = (const char *)&counts[b] + metric_families[m].at;
		__u64 value;

		extra[0] = '\0';
		if (!counts[b].limit ||
		    !expo_label_pair(extra, sizeof(extra), "structure", bound_name(b)))
			continue;
		memcpy(&value, count, sizeof(value));
		expo_sample(x, name, "", extra, value);
	}
}


/* One --resident row's gauges: its bytes by type and order, or its large folios by type and
 * mapping, each where nonzero. */
static void resident_samples(struct expo *x, const char *name, const char *labels,
			     const struct resident_counts *c, bool bytes)
{
	__u64 page_size = (__u64)x->r->host->page_size;
	char extra[64];

	for (int t = 0; t < NR_RESIDENT_TYPES; t++) {
		if (bytes) {
			for (int o = 0; o < FS_NR_ORDERS; o++) {
				if (!c->pages[t][o])
					continue;
				snprintf(extra, sizeof(extra), "type=\"%s\",order=\"%d\"",
					 resident_type_names[t], o);
				expo_sample(x, name, labels, extra, c->pages[t][o] * page_size);
			}
			continue;
		}
		for (int m = 0; m < NR_RESIDENT_MAPPINGS; m++) {
			if (!c->large[t][m])
				continue;
			snprintf(extra, sizeof(extra), "type=\"%s\",mapping=\"%s\"",
				 resident_type_names[t], resident_mapping_names[m]);
			expo_sample(x, name, labels, extra, c->large[t][m]);
		}
	}
}

/* A row that has a name to label it with: not a cgroup whose path was not found. */
static bool named(const struct expo *x, const struct resident_row *row)
{
	return x->s->by != FS_BY_CGROUP || row->cgroup;
}

/*
 * MK_RESIDENT: what memory holds, per row of the --by kind, the rows with the most pages in
 * large folios first: --max-series of them with series of their own, the rest added up in
 * group="other". Gauges of the last readings (resident_sweep.h: each as old as its process's
 * last reading, foliostat_resident_oldest_seconds the oldest).
 */
static void write_resident(struct expo *x, enum metric_id m)
{
	const struct resident_report *res = x->r->resident;
	size_t own = res->nr < x->s->max_series ? res->nr : x->s->max_series;
	bool bytes = metric_families[m].at == 0;
	struct resident_counts other = {0};
	struct label_text labels = {0};
	char name[96];

	for (size_t i = 0; i < res->nr; i++)
		if (i >= own || !named(x, &res->rows[i]))
			words_add((__u64 *)&other, (const __u64 *)&res->rows[i].counts,
				  FS_WORDS(other));
	expo_family(x, m, true, name, sizeof(name));
	for (size_t i = 0; i < own; i++) {
		const struct resident_row *row = &res->rows[i];

		if (!named(x, row))
			continue;
		labels.len = labels.start = 0;
		expo_identity_labels(x->s->by, x->s->by == FS_BY_CGROUP ? row->cgroup : row->comm,
				     row->pid, row->start_ns, row->cgroup, expo_paths_from_root(x->r),
				     &labels);
		if (labels.failed || array_reserve(&labels.text, &labels.cap, labels.len, 1, 1)) {
			x->e->failed = true;
			break;
		}
		labels.text[labels.len] = '\0';
		resident_samples(x, name, labels.text, &row->counts, bytes);
	}
	resident_samples(x, name, "group=\"other\"", &other, bytes);
	free(labels.text);
}

/* node="N",zone="Z"[,migrate_type="T"],order="O" into labels (the values quoted as every
 * label's are). */
static void zone_labels(char *labels, size_t size, const struct free_zone *z, const char *type,
			int order)
{
	char number[16];

	labels[0] = '\0';
	snprintf(number, sizeof(number), "%d", z->node);
	expo_label_pair(labels, size, "node", number);
	expo_label_pair(labels, size, "zone", z->name);
	if (type)
		expo_label_pair(labels, size, "migrate_type", type);
	snprintf(number, sizeof(number), "%d", order);
	expo_label_pair(labels, size, "order", number);
}

/* MK_FREE_ZONES: free memory by block size (free_blocks.h), per node, zone and order, every
 * order the kernel lists (a zero is an answer: no block of that size): at 0, the free blocks; 1,
 * the share unusable for the order; 2, the free blocks by migrate type, where they are read. */
static void write_free_zones(struct expo *x, enum metric_id m)
{
	const struct free_blocks *f = x->r->free;
	unsigned short what = metric_families[m].at;
	char labels[256], name[96];

	if (what == 2 && !f->nr_types)
		return;
	expo_family(x, m, true, name, sizeof(name));
	for (size_t i = 0; i < f->nr_zones; i++) {
		for (size_t t = 0; t < (what == 2 ? f->nr_types : 1); t++) {
			for (int o = 0; o < f->nr_orders; o++) {
				zone_labels(labels, sizeof(labels), &f->zones[i],
					    what == 2 ? f->types[t] : NULL, o);
				if (what == 1)
					expo_sample_real(x, name, labels,
						    free_zone_unusable(&f->zones[i], f->nr_orders,
								       o));
				else
					expo_sample(x, name, labels, "",
					       what == 2 ? f->zones[i].by_type[t][o]
							 : f->zones[i].blocks[o]);
			}
		}
	}
}

typedef void (*metric_writer)(struct expo *x, enum metric_id m);

/* The writer of each kind of family. */
static const metric_writer writers[NR_METRIC_KINDS] = {
    [MK_BY_DIMS] = write_by_dims,
    [MK_COLLAPSE_RESULTS] = write_collapses,
    [MK_COLLAPSE_COUNT] = write_collapses,
    [MK_STALL_HISTOGRAM] = write_stall_histograms,
    [MK_STALL_RECLAIMED] = write_stall_reclaimed,
    [MK_STALLS_BY_ORDER] = write_stalls_by_order,
    [MK_NODE_ORDERS] = write_node_orders,
    [MK_SYSTEM_ORDERS] = write_system_orders,
    [MK_SYSTEM_BYTES] = write_system_orders,
    [MK_KERNEL_VMSTAT] = write_kernel_counters,
    [MK_KERNEL_MTHP] = write_kernel_counters,
    [MK_VMSCAN] = write_vmscan,
    [MK_COUNT] = write_scalar,
    [MK_REAL] = write_scalar,
    [MK_UNIX_TIME] = write_scalar,
    [MK_BUILD_INFO] = write_build_info,
    [MK_PROBE_ATTACHED] = write_probe_attached,
    [MK_PER_PROBE] = write_per_probe,
    [MK_BOUND] = write_bound,
    [MK_RESIDENT] = write_resident,
    [MK_FREE_ZONES] = write_free_zones,
};

/* foliostat's figures of one sample each, where the exposition finds them. */
static void gather_scalars(const struct expo *x, struct metric_scalars *v)
{
	const struct resident_report *res = x->r->resident;
	const struct series_store *s = x->s;

	*v = (struct metric_scalars){
	    .kswapd_wakes = s->system.vmscan.kswapd_wakes,
	    .reclaim_written = s->system.vmscan.written[FS_PAGES],
	    .processes = x->r->rows ? x->r->rows->nr_active : 0,
	    .untracked_events = totals_events(&s->system.untracked),
	    .loader_resident = (unsigned long long)x->health->loader_rss_bytes,
	    .series = s->nr_live,
	    .series_folded = s->folded,
	    .scrapes = x->health->scrapes + 1,
	    .start_time = x->health->start_time,
	    .loader_cpu = x->health->loader_cpu_s,
	    .scrape_duration = x->health->last_duration_s,
	};
	if (!res)
		return;
	v->resident_processes = res->scanned;
	v->resident_cut_short = res->cut_short;
	v->resident_passes = res->passes;
	v->resident_oldest = resident_oldest_s(res);
	v->resident_pass_seconds = res->seconds;
	v->resident_pass_cpu = res->cpu_seconds;
}

/* Every family of the registry, in its order: those measured here, of the sections this
 * exposition has. */
void expo_write_families(struct expo *x)
{
	gather_scalars(x, &x->scalars);
	for (int m = MF_NONE + 1; m < NR_METRIC_FAMILIES; m++) {
		const struct metric_family *f = &metric_families[m];

		if ((f->section == SECTION_RESIDENT && !x->r->resident) ||
		    (f->section == SECTION_FREE_MEMORY && !x->r->free) ||
		    !metric_shown(m, x->r->measured))
			continue;
		writers[f->kind](x, m);
	}
}


