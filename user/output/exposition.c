// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus exposition (see exposition.h). A family's samples must be together, so the text
 * is written metric by metric, each over every group; each group's labels are made once.
 * Counters appear once nonzero (as most exporters do), except the system's, which are always
 * there: a dashboard's system panel has a line from the first scrape.
 */
#include "exposition.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "array.h"
#include "bounds.h"
#include "cgroup_labels.h"
#include "cgroup_names.h"
#include "figures.h"
#include "nodes.h"
#include "process_start.h"
#include "resident_report.h"
#include "sanitize.h"

/* The stall histograms' bounds: every other power of two of the BPF buckets' (1 us, 4 us, ...
 * 16.8 s), so the cumulative counts are exact and a series has 14 buckets instead of 32. */
#define STALL_BUCKET_STEP 2
#define STALL_BUCKET_LAST 24 /* 2^24 us: 16.8 s */

/* Room for `more` bytes at the end of the text (and its terminating NUL). */
static bool reserve(struct exposition *e, size_t more)
{
	if (!e->failed && array_reserve(&e->text, &e->cap, e->len, more + 1, 1))
		e->failed = true;
	return !e->failed;
}

static void emit(struct exposition *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(struct exposition *e, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !reserve(e, (size_t)n)) {
		e->failed = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(e->text + e->len, e->cap - e->len, fmt, ap);
	va_end(ap);
	e->len += (size_t)n;
}

/* Label lists being made (comma-separated name="value" pairs, no braces), one after another
 * in one buffer, each ended by a NUL: the list being made begins at `start`. */
struct label_text {
	char *text;
	size_t len, cap, start;
	bool failed; /* out of memory */
};

/* Append name="value": every label value of the exposition is quoted by label_value_quoted(),
 * the one rule for them (sanitize.h). */
static void label_add(struct label_text *l, const char *name, const char *value)
{
	char quoted[LABEL_VALUE_QUOTED_SIZE];
	size_t len = label_value_quoted(value, quoted), name_len = strlen(name);

	if (l->failed || array_reserve(&l->text, &l->cap, l->len, name_len + len + 3, 1)) {
		l->failed = true;
		return;
	}
	if (l->len > l->start)
		l->text[l->len++] = ',';
	memcpy(l->text + l->len, name, name_len);
	l->len += name_len;
	l->text[l->len++] = '=';
	memcpy(l->text + l->len, quoted, len + 1);
	l->len += len;
}

/* The same into a fixed buffer, for the short labels of a sample (enum and counter names):
 * the whole pair or nothing (false), never a value cut inside its quotes. */
static bool label_pair(char *out, size_t size, const char *name, const char *value)
{
	size_t used = strlen(out);
	char quoted[LABEL_VALUE_QUOTED_SIZE];
	int n;

	label_value_quoted(value, quoted);
	n = snprintf(out + used, size - used, "%s%s=%s", used ? "," : "", name, quoted);
	if (n < 0 || (size_t)n >= size - used) {
		out[used] = '\0';
		return false;
	}
	return true;
}

/* A series group as the exposition sees it: the store's groups, then the groups that are no
 * rows (other, interrupt, untracked, unselected), and for collapse outcomes unattributed. */
struct expo_group {
	const char *labels;
	const struct fs_totals *counters;    /* NULL: none (unattributed) */
	const struct proc_figures *proc; /* NULL: none (interrupt, unselected, ...) */
	const struct fs_thp_results *thp;    /* NULL: none */
	bool always;			     /* shown even when zero */
};

struct expo {
	struct exposition *e;
	const struct fs_report *r;
	const struct series_store *s;
	bool om; /* OpenMetrics */
	struct expo_group *groups;
	size_t nr_groups;
	const struct expo_group *system;
};

/* HELP and TYPE of a family. OpenMetrics names a counter's family without its _total. */
static void family(struct expo *x, const char *name, const char *type, const char *help)
{
	size_t len = strlen(name);

	if (x->om && !strcmp(type, "counter") && len > 6 && !strcmp(name + len - 6, "_total"))
		len -= 6;
	emit(x->e, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)len, name, help, (int)len, name, type);
}

/* A family of the registry's others (figures.h): its name, for the groups or the system, into
 * name, and its HELP and TYPE. */
static void layout_family(struct expo *x, enum family_layout layout, bool system, char *name,
			  size_t len)
{
	const struct family *f = &families[layout];

	snprintf(name, len, "foliostat_%s%s", system && !f->system_only ? "system_" : "",
		 f->metric);
	family(x, name, f->type, system ? f->system_help : f->help);
}

/* name{labels,extra} value */
static void put(struct exposition *e, const char *text, size_t len)
{
	memcpy(e->text + e->len, text, len);
	e->len += len;
}

/*
 * name{labels,extra} value: the line a scrape repeats tens of thousands of times, so it is put
 * together by hand rather than by printf, which parsed its format and measured its strings for
 * each (a third of a scrape's time with a thousand groups).
 */
static void sample(struct expo *x, const char *name, const char *labels, const char *extra,
		   unsigned long long value)
{
	size_t name_len = strlen(name), labels_len = strlen(labels), extra_len = strlen(extra);
	char digits[24];
	int n = (int)sizeof(digits);

	if (!reserve(x->e, name_len + labels_len + extra_len + sizeof(digits) + 5))
		return;
	do
		digits[--n] = (char)('0' + value % 10);
	while ((value /= 10));
	put(x->e, name, name_len);
	if (labels_len || extra_len) {
		put(x->e, "{", 1);
		put(x->e, labels, labels_len);
		if (labels_len && extra_len)
			put(x->e, ",", 1);
		put(x->e, extra, extra_len);
		put(x->e, "}", 1);
	}
	put(x->e, " ", 1);
	put(x->e, digits + n, sizeof(digits) - n);
	put(x->e, "\n", 1);
}

static void sample_real(struct expo *x, const char *name, const char *labels, double value)
{
	if (labels[0])
		emit(x->e, "%s{%s} %.9g\n", name, labels, value);
	else
		emit(x->e, "%s %.9g\n", name, value);
}

/* One family over the groups (or the system only) for every (a, b) with a label each. */
struct figure_labels {
	const char *name_a; /* label of the first index, or NULL */
	const char *const *values_a;
	int nr_a;
	const char *name_b;
	const char *const *values_b;
	int nr_b;
	const char
	    *name_a2; /* a second label of the first index (a fault kind's access), or NULL */
	const char *const *values_a2;
};

/* The extra labels of each (a, b): the same for every group, so made once per family; "" for a
 * value the kernel does not name (skipped). */
#define MAX_FIGURES (FS_NR_ORDERS * 2 > FS_NR_FAULT_KINDS ? FS_NR_ORDERS * 2 : FS_NR_FAULT_KINDS)
struct figure_extras {
	char text[MAX_FIGURES][256];
	int nr_a, nr_b;
	bool labelled; /* "" is then a value not named */
};
_Static_assert(FS_NR_TLB_REASONS <= MAX_FIGURES && FS_NR_LRU_LISTS <= MAX_FIGURES &&
		   FS_NR_MIGRATE_COUNTERS <= MAX_FIGURES,
	       "every family's label values fit");

static void figure_extras(const struct figure_labels *l, struct figure_extras *out)
{
	out->nr_a = l->nr_a ? l->nr_a : 1;
	out->nr_b = l->nr_b ? l->nr_b : 1;
	out->labelled = l->nr_a || l->nr_b;
	for (int a = 0; a < out->nr_a; a++) {
		for (int b = 0; b < out->nr_b; b++) {
			char *text = out->text[a * out->nr_b + b];

			text[0] = '\0';
			if ((l->nr_a && !l->values_a[a]) || (l->nr_b && !l->values_b[b]))
				continue;
			if ((l->nr_a &&
			     !label_pair(text, sizeof(out->text[0]), l->name_a, l->values_a[a])) ||
			    (l->nr_a && l->name_a2 &&
			     !label_pair(text, sizeof(out->text[0]), l->name_a2,
					 l->values_a2[a])) ||
			    (l->nr_b &&
			     !label_pair(text, sizeof(out->text[0]), l->name_b, l->values_b[b])))
				text[0] = '\0';
		}
	}
}

static void figure_samples(struct expo *x, const char *metric, const struct expo_group *g,
			   const struct figure *f, const struct figure_extras *extras)
{
	for (int a = 0; a < extras->nr_a; a++) {
		if (!figure_measured_at(f, x->r->measured, a))
			continue;
		for (int b = 0; b < extras->nr_b; b++) {
			const char *extra = extras->text[a * extras->nr_b + b];
			__u64 v = figure_value(f, g->counters, a, b, x->r->host);

			if ((!v && !g->always) || (extras->labelled && !extra[0]))
				continue;
			sample(x, metric, g->labels, extra, v);
		}
	}
}

/* A registry figure's family for the groups, foliostat_X, and the one for the system,
 * foliostat_system_X; none at all where it is not measured (not measured is not zero). */
static void group_and_system(struct expo *x, const struct figure *f, const struct figure_labels *l)
{
	char metric[128];

	static struct figure_extras extras; /* 8 KiB: not on the stack */

	if (!figure_measured(f, x->r->measured))
		return;
	figure_extras(l, &extras);
	snprintf(metric, sizeof(metric), "foliostat_%s", f->metric);
	family(x, metric, "counter", f->help);
	for (size_t i = 0; i < x->nr_groups; i++)
		if (x->groups[i].counters)
			figure_samples(x, metric, &x->groups[i], f, &extras);
	snprintf(metric, sizeof(metric), "foliostat_system_%s", f->metric);
	family(x, metric, "counter", f->help);
	figure_samples(x, metric, x->system, f, &extras);
}

static const char *order_names[FS_NR_ORDERS] = {"0", "1", "2",	"3",  "4",  "5",  "6",	"7",
						"8", "9", "10", "11", "12", "13", "14", "15"};
/* Orders of large folios only: order 0 is never discarded nor compacted for (skipped). */
static const char *large_order_names[FS_NR_ORDERS] = {
    NULL, "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15"};
static const char *const folio_kind_names[] = {"movable", "kernel"};
static const char *const node_names[FS_MAX_NODES] = {"0", "1", "2", "3", "4", "5", "6", "7"};
static const char *const mode_names[FS_NR_FAULT_MODES] = {"user", "kernel"};
static const char *const access_names[FS_NR_FAULT_ACCESSES] = {"read", "write", "exec"};
static const char *const cause_names[FS_NR_FAULT_CAUSES] = {"not_present", "protection"};

/* Labels a kernel enum's names give, NULL for values it does not name (skipped). */
static void known_names(const char (*names)[FS_ENUM_NAME_LEN], const bool *known, int nr,
			const char **out)
{
	for (int i = 0; i < nr; i++)
		out[i] = !known || known[i] ? names[i] : NULL;
}

/* The label values of every dimension of the registry, for this report. */
struct dim_values {
	const char *const *values[NR_FIGURE_DIMS];
	const char *const *values2[NR_FIGURE_DIMS]; /* DIM_FAULT_MODE_ACCESS's access */
	const char *tlb[FS_NR_TLB_REASONS], *lru[FS_NR_LRU_LISTS];
	const char *node[FS_MAX_NODES]; /* the nodes with memory; NULL: none */
	const char *kind_mode[FS_NR_FAULT_MODES * FS_NR_FAULT_ACCESSES];
	const char *kind_access[FS_NR_FAULT_MODES * FS_NR_FAULT_ACCESSES];
};

static void dim_values(const struct fs_report *r, struct dim_values *d)
{
	/* A fault kind's first index has two labels: its mode and its access. */
	for (int m = 0; m < FS_NR_FAULT_MODES; m++) {
		for (int a = 0; a < FS_NR_FAULT_ACCESSES; a++) {
			d->kind_mode[m * FS_NR_FAULT_ACCESSES + a] = mode_names[m];
			d->kind_access[m * FS_NR_FAULT_ACCESSES + a] = access_names[a];
		}
	}
	known_names(r->tlb_names, r->tlb_known, FS_NR_TLB_REASONS, d->tlb);
	known_names(r->lru_names, r->lru_known, FS_NR_LRU_LISTS, d->lru);
	d->values[DIM_ORDER] = order_names;
	d->values[DIM_LARGE_ORDER] = large_order_names;
	d->values[DIM_FOLIO_KIND] = folio_kind_names;
	d->values[DIM_FAULT_MODE] = mode_names;
	d->values[DIM_FAULT_MODE_ACCESS] = d->kind_mode;
	d->values2[DIM_FAULT_MODE_ACCESS] = d->kind_access;
	d->values[DIM_FAULT_CAUSE] = cause_names;
	d->values[DIM_TLB_REASON] = d->tlb;
	d->values[DIM_LRU_LIST] = d->lru;
	d->values[DIM_MIGRATE_COUNTER] = migrate_names;
	memset(d->node, 0, sizeof(d->node));
	for (int i = 0; i < r->host->nodes->nr; i++)
		d->node[r->host->nodes->ids[i]] = node_names[r->host->nodes->ids[i]];
	d->values[DIM_NODE] = d->node;
}

/* Every figure of the registry (figures.c), in its order. */
static void thread_metrics(struct expo *x)
{
	static struct dim_values d;

	dim_values(x->r, &d);
	for (int i = 0; i < nr_group_figures; i++) {
		const struct figure *f = &group_figures[i];
		const struct figure_dim_info *a = &figure_dims[f->dim_a],
					     *b = &figure_dims[f->dim_b];
		struct figure_labels l = {
		    .name_a = a->label,
		    .values_a = d.values[f->dim_a],
		    .nr_a = f->dim_a ? a->size : 0,
		    .name_b = b->label,
		    .values_b = d.values[f->dim_b],
		    .nr_b = f->dim_b ? b->size : 0,
		    .name_a2 = a->label2,
		    .values_a2 = d.values2[f->dim_a],
		};

		group_and_system(x, f, &l);
	}
}

/* Collapse outcomes: of the groups, of the untracked and unattributed, and of the system. */
static void thp_results(struct expo *x, const char *metric, const struct expo_group *g)
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
			if (!label_pair(extra, sizeof(extra), "event", thp_event_names[e]) ||
			    !label_pair(extra, sizeof(extra), "result", r->scan_names[v]))
				continue;
			sample(x, metric, g->labels, extra, g->thp->results[e][v]);
		}
	}
}

static const char *const stall_kind_names[FS_NR_STALLS] = {
    [FS_STALL_COMPACTION] = "compaction",
    [FS_STALL_DIRECT_RECLAIM] = "direct_reclaim",
    [FS_STALL_MEMCG_RECLAIM] = "memcg_reclaim",
};

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
		 stall_kind_names[kind]);
	for (int b = 0; b < FS_NR_STALL_BUCKETS; b++) {
		cumulative += st->hist[b];
		if (b % STALL_BUCKET_STEP || b > STALL_BUCKET_LAST)
			continue;
		/* Bucket b holds stalls shorter than 2^b us. */
		snprintf(extra, sizeof(extra), "le=\"%.9g\"", (double)(1ULL << b) / 1e6);
		snprintf(metric, sizeof(metric), "%s_bucket", family_name);
		sample(x, metric, lbl, extra, cumulative);
	}
	sample(x, metric, lbl, "le=\"+Inf\"", st->count);
	emit(x->e, "%s_sum{%s} %.9g\n", family_name, lbl, st->total_ns / 1e9);
	snprintf(metric, sizeof(metric), "%s_count", family_name);
	sample(x, metric, lbl, "", st->count);
	free(lbl);
}

/* Pages collapses filled with zeroes: of the groups, the untracked, the unattributed and the
 * system, where any. */
static void thp_zero_filled(struct expo *x, const char *metric, const struct expo_group *g)
{
	if (g->thp->zero_filled)
		sample(x, metric, g->labels, "", g->thp->zero_filled);
}

static void proc_metrics(struct expo *x)
{
	const struct fs_report *r = x->r;
	const struct system_totals *sys = &x->s->system;
	struct expo_group system = *x->system;
	char extra[64], name[96];

	if (family_shown(FAMILY_COLLAPSE_RESULTS, r->measured)) {
		layout_family(x, FAMILY_COLLAPSE_RESULTS, false, name, sizeof(name));
		for (size_t i = 0; i < x->nr_groups; i++)
			if (x->groups[i].thp)
				thp_results(x, name, &x->groups[i]);
		layout_family(x, FAMILY_COLLAPSE_RESULTS, true, name, sizeof(name));
		system.thp = &sys->thp;
		thp_results(x, name, &system);
	}
	if (family_shown(FAMILY_COLLAPSE_ZERO_FILLED, r->measured)) {
		layout_family(x, FAMILY_COLLAPSE_ZERO_FILLED, false, name, sizeof(name));
		for (size_t i = 0; i < x->nr_groups; i++)
			if (x->groups[i].thp)
				thp_zero_filled(x, name, &x->groups[i]);
		layout_family(x, FAMILY_COLLAPSE_ZERO_FILLED, true, name, sizeof(name));
		system.thp = &sys->thp;
		thp_zero_filled(x, name, &system);
	}
	if (family_shown(FAMILY_STALL_SECONDS, r->measured)) {
		layout_family(x, FAMILY_STALL_SECONDS, false, name, sizeof(name));
		for (size_t i = 0; i < x->nr_groups; i++) {
			const struct expo_group *g = &x->groups[i];

			for (int k = 0; g->proc && k < FS_NR_STALLS; k++)
				if (r->measured[MEASURE_STALLS + k] && g->proc->stalls[k].count)
					stall_histogram(x, name, g->labels, k, &g->proc->stalls[k]);
		}
		layout_family(x, FAMILY_STALL_SECONDS, true, name, sizeof(name));
		for (int k = 0; k < FS_NR_STALLS; k++)
			if (r->measured[MEASURE_STALLS + k])
				stall_histogram(x, name, "", k, &sys->stalls[k]);
	}
	if (!family_shown(FAMILY_STALL_RECLAIMED, r->measured))
		return;
	layout_family(x, FAMILY_STALL_RECLAIMED, false, name, sizeof(name));
	for (size_t i = 0; i < x->nr_groups; i++) {
		const struct expo_group *g = &x->groups[i];

		for (int k = FS_STALL_DIRECT_RECLAIM; g->proc && k < FS_NR_STALLS; k++) {
			if (!r->measured[MEASURE_STALLS + k] || !g->proc->reclaimed[k])
				continue;
			snprintf(extra, sizeof(extra), "kind=\"%s\"", stall_kind_names[k]);
			sample(x, name, g->labels, extra, g->proc->reclaimed[k]);
		}
	}
	layout_family(x, FAMILY_STALL_RECLAIMED, true, name, sizeof(name));
	for (int k = FS_STALL_DIRECT_RECLAIM; k < FS_NR_STALLS; k++) {
		if (!r->measured[MEASURE_STALLS + k])
			continue;
		snprintf(extra, sizeof(extra), "kind=\"%s\"", stall_kind_names[k]);
		sample(x, name, "", extra, sys->reclaimed[k]);
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
			sample(x, metric, labels, extra, st->count[o]);
		else
			emit(x->e, "%s{%s%s%s} %.9g\n", metric, labels, labels[0] ? "," : "", extra,
			     st->total_ns[o] / 1e9);
	}
}

/* Direct compaction by order, per process as the stall histograms are: the groups, other (with
 * the processes the table had no room for and the threads outside the selection), the system. */
static void compaction_by_order_metrics(struct expo *x)
{
	static const enum family_layout layouts[] = {FAMILY_COMPACTION_BY_ORDER,
						     FAMILY_COMPACTION_BY_ORDER_S};
	const struct fs_order_stalls *sys = &x->s->system.compaction_by_order;
	char metric[96];

	for (size_t f = 0; f < sizeof(layouts) / sizeof(layouts[0]); f++) {
		bool seconds = layouts[f] == FAMILY_COMPACTION_BY_ORDER_S;

		if (!family_shown(layouts[f], x->r->measured))
			continue;
		layout_family(x, layouts[f], false, metric, sizeof(metric));
		for (size_t i = 0; i < x->nr_groups; i++)
			if (x->groups[i].proc)
				compaction_orders(x, metric, x->groups[i].labels,
						  &x->groups[i].proc->compaction_by_order, seconds,
						  false);
		layout_family(x, layouts[f], true, metric, sizeof(metric));
		compaction_orders(x, metric, "", sys, seconds, true);
	}
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
			snprintf(extra, sizeof(extra), "node=\"%d\",order=\"%d\"", nodes->ids[i], o);
			sample(x, metric, labels, extra, hist[o]);
		}
	}
}

/* Folios allocated by node and order, then the system's. Where nodes are counted, the groups with
 * a process's figures (the store's, and other, which has interrupt context's and the rest);
 * where they are not (one node), every group with counters, each one's allocations on the node. */
static void node_orders_metrics(struct expo *x)
{
	const struct system_totals *sys = &x->s->system;
	static const __u64 none[FS_MAX_NODES][FS_NR_ORDERS];
	bool counted = x->r->host->nodes->counted;
	char metric[96];

	if (!family_shown(FAMILY_NODE_ORDERS, x->r->measured))
		return;
	layout_family(x, FAMILY_NODE_ORDERS, false, metric, sizeof(metric));
	for (size_t i = 0; i < x->nr_groups; i++) {
		const struct expo_group *g = &x->groups[i];

		if (g->counters && (!counted || g->proc))
			node_orders(x, metric, g->labels, g->proc ? g->proc->alloc_by_node_order : none,
				    g->counters);
	}
	layout_family(x, FAMILY_NODE_ORDERS, true, metric, sizeof(metric));
	node_orders(x, metric, "", sys->alloc_by_node_order, &sys->total);
}

static __u64 bytes_of(const struct expo *x, const __u64 *hist)
{
	return hist_pages(hist) * (__u64)x->r->host->page_size;
}

/* The system-only figures: frees, the kernel's own THP counters, reclaim's scanning. */
static void system_metrics(struct expo *x)
{
	const struct fs_report *r = x->r;
	const struct system_totals *sys = &x->s->system;
	const struct kernel_counters *kc = &x->s->kernel;
	const struct fs_vmscan *v = &sys->vmscan;
	static const char *const reclaimers[FS_NR_RECLAIMERS] = {"kswapd", "direct"};
	char extra[256], name[96];

	if (family_shown(FAMILY_SYSTEM_FREED, r->measured)) {
		layout_family(x, FAMILY_SYSTEM_FREED, true, name, sizeof(name));
		for (int o = 0; o < FS_NR_ORDERS; o++) {
			snprintf(extra, sizeof(extra), "order=\"%d\"", o);
			sample(x, name, "", extra, sys->freed[o]);
		}
	}
	if (family_shown(FAMILY_SYSTEM_FREED_BYTES, r->measured)) {
		layout_family(x, FAMILY_SYSTEM_FREED_BYTES, true, name, sizeof(name));
		sample(x, name, "", "", bytes_of(x, sys->freed));
	}
	layout_family(x, FAMILY_SYSTEM_VMSTAT, true, name, sizeof(name));
	for (size_t i = 0; i < kc->nr; i++) {
		if (strncmp(kc->items[i].name, "vmstat/thp_", 11))
			continue;
		extra[0] = '\0';
		if (label_pair(extra, sizeof(extra), "counter", kc->items[i].name + 7))
			sample(x, name, "", extra, kc->items[i].value);
	}
	layout_family(x, FAMILY_SYSTEM_MTHP, true, name, sizeof(name));
	for (size_t i = 0; i < kc->nr; i++) {
		const char *item = kc->items[i].name, *slash;
		char size[sizeof(kc->items[i].name)];

		if (strncmp(item, "mthp/", 5) || !(slash = strchr(item + 5, '/')))
			continue;
		/* nr_anon, nr_anon_partially_mapped: levels, not events */
		if (!strncmp(slash + 1, "nr_", 3))
			continue;
		snprintf(size, sizeof(size), "%.*s", (int)(slash - item - 5), item + 5);
		extra[0] = '\0';
		if (label_pair(extra, sizeof(extra), "size", size) &&
		    label_pair(extra, sizeof(extra), "counter", slash + 1))
			sample(x, name, "", extra, kc->items[i].value);
	}
	if (family_shown(FAMILY_SYSTEM_VMSCAN, r->measured)) {
		static const char *const actions[] = {"scanned", "reclaimed", "deactivated"};
		const __u64(*per_action[])[FS_NR_LRU_LISTS] = {v->scanned, v->reclaimed,
							       v->deactivated};

		layout_family(x, FAMILY_SYSTEM_VMSCAN, true, name, sizeof(name));
		for (int a = 0; a < 3; a++) {
			if (!r->measured[MEASURE_VMSCAN + FS_VMSCAN_SCANNED + a])
				continue;
			for (int who = 0; who < FS_NR_RECLAIMERS; who++) {
				for (int l = 0; l < FS_NR_LRU_LISTS; l++) {
					if (!r->lru_known[l] && !per_action[a][who][l])
						continue;
					snprintf(extra, sizeof(extra),
						 "reclaimer=\"%s\",action=\"%s\"", reclaimers[who],
						 actions[a]);
					if (label_pair(extra, sizeof(extra), "list",
						       r->lru_names[l]))
						sample(x, name, "", extra, per_action[a][who][l]);
				}
			}
		}
	}
	if (family_shown(FAMILY_SYSTEM_KSWAPD_WAKES, r->measured)) {
		layout_family(x, FAMILY_SYSTEM_KSWAPD_WAKES, true, name, sizeof(name));
		sample(x, name, "", "", v->kswapd_wakes);
	}
	if (family_shown(FAMILY_SYSTEM_RECLAIM_WRITTEN, r->measured)) {
		layout_family(x, FAMILY_SYSTEM_RECLAIM_WRITTEN, true, name, sizeof(name));
		sample(x, name, "", "", v->written[FS_PAGES]);
	}
	layout_family(x, FAMILY_SYSTEM_PROCESSES, true, name, sizeof(name));
	sample(x, name, "", "", x->r->processes ? x->r->processes->nr_active : 0);
}

/* A counter family with a sample per attached probe: its value, times scale (seconds from
 * nanoseconds). */
static void per_probe(struct expo *x, const char *name, const char *help, const __u64 *values,
		      double scale)
{
	const struct fs_report *r = x->r;
	char extra[256];

	family(x, name, "counter", help);
	for (int i = 0; i < r->nr_probes && i < FS_MAX_PROBES; i++) {
		if (!r->probes[i].attached)
			continue;
		extra[0] = '\0';
		if (!label_pair(extra, sizeof(extra), "probe", r->probes[i].name))
			continue;
		if (scale == 1)
			sample(x, name, "", extra, values[i]);
		else
			emit(x->e, "%s{%s} %.9g\n", name, extra, values[i] * scale);
	}
}

/* Each bounded structure in use (bounds.h): its limit, what it holds, what it dropped. */
static void bound_metrics(struct expo *x)
{
	static const struct {
		const char *name, *type, *help;
	} families[] = {
	    {"foliostat_bound_limit", "gauge",
	     "The most a structure that other users can grow may hold (see foliostat(8), SECURITY)."},
	    {"foliostat_bound_entries", "gauge", "What a bounded structure holds now."},
	    {"foliostat_bound_evictions_total", "counter",
	     "Entries a bounded structure dropped, or work it cut short, to stay within its limit."},
	};
	struct bound_count counts[FS_NR_BOUNDS];
	char extra[128];
	bool any = false;

	bounds_read(counts);
	for (int b = 0; b < FS_NR_BOUNDS && !any; b++)
		any = counts[b].limit != 0;
	for (size_t f = 0; any && f < sizeof(families) / sizeof(families[0]); f++) {
		family(x, families[f].name, families[f].type, families[f].help);
		for (int b = 0; b < FS_NR_BOUNDS; b++) {
			const __u64 value[] = {counts[b].limit, counts[b].entries,
					       counts[b].evictions};

			extra[0] = '\0';
			if (!counts[b].limit ||
			    !label_pair(extra, sizeof(extra), "structure", bound_name(b)))
				continue;
			sample(x, families[f].name, "", extra, value[f]);
		}
	}
}

static void health_metrics(struct expo *x, const struct exposition_health *h)
{
	const struct fs_report *r = x->r;
	char extra[256];

	if (x->om) {
		emit(x->e,
		     "# HELP foliostat_build foliostat's version.\n# TYPE foliostat_build info\n");
	} else {
		family(x, "foliostat_build_info", "gauge", "foliostat's version.");
	}
	emit(x->e, "foliostat_build_info{version=\"%s\"} 1\n", FOLIOSTAT_VERSION);
	family(x, "foliostat_start_time_seconds", "gauge",
	       "When foliostat started counting (Unix time).");
	/* Not %.9g: a Unix time has 10 digits before the point (that rounded it to 10 s). */
	emit(x->e, "foliostat_start_time_seconds %.6f\n", h->start_time);
	family(x, "foliostat_probe_attached", "gauge",
	       "Whether a probe (tracepoint group:event) is attached: 1, or 0 (see --check for why "
	       "not).");
	for (int i = 0; i < r->nr_probes; i++) {
		if (r->probes[i].not_needed)
			continue;
		extra[0] = '\0';
		if (label_pair(extra, sizeof(extra), "probe", r->probes[i].name))
			sample(x, "foliostat_probe_attached", "", extra, r->probes[i].attached);
	}
	if (h->bpf && h->bpf_run_time) {
		per_probe(x, "foliostat_bpf_runs_total", "Runs of a probe's BPF program.",
			  h->bpf->events, 1);
		per_probe(x, "foliostat_bpf_run_seconds_total",
			  "Time spent in a probe's BPF program.", h->bpf->run_ns, 1e-9);
	}
	if (h->bpf)
		per_probe(x, "foliostat_bpf_missed_runs_total",
			  "Runs of a probe's BPF program the kernel skipped (recursion).",
			  h->bpf->misses, 1);
	family(
	    x, "foliostat_untracked_events_total", "counter",
	    "Counts charged to no thread because the in-kernel table was full (see --max-tasks).");
	sample(x, "foliostat_untracked_events_total", "", "",
	       totals_events(&x->s->system.untracked));
	family(x, "foliostat_loader_cpu_seconds_total", "counter",
	       "CPU time of foliostat's loader (user and system).");
	sample_real(x, "foliostat_loader_cpu_seconds_total", "", h->loader_cpu_s);
	family(x, "foliostat_loader_resident_bytes", "gauge",
	       "Resident memory of foliostat's loader.");
	sample(x, "foliostat_loader_resident_bytes", "", "",
	       (unsigned long long)h->loader_rss_bytes);
	family(x, "foliostat_series", "gauge", "Groups exported with series of their own.");
	sample(x, "foliostat_series", "", "", x->s->nr_live);
	family(x, "foliostat_series_folded_total", "counter",
	       "Groups that gave their series to a new group (--max-series).");
	sample(x, "foliostat_series_folded_total", "", "", x->s->folded);
	bound_metrics(x);
	family(x, "foliostat_scrapes_total", "counter",
	       "Expositions made (scrapes, or files written).");
	sample(x, "foliostat_scrapes_total", "", "", h->scrapes + 1);
	family(x, "foliostat_scrape_duration_seconds", "gauge",
	       "How long the previous exposition took to make (maps read and text written).");
	sample_real(x, "foliostat_scrape_duration_seconds", "", h->last_duration_s);
}

/* Whether the cgroup paths start at the hierarchy's root, where the unit, container and pod
 * labels are read from (else a namespace's or a subtree's path could pass for a pod's). */
static bool paths_from_root(const struct fs_report *r)
{
	return r->cgroup_names && r->cgroup_names->from_root;
}

/* What identifies a group under --by, as labels: a store group's, or --resident's row's. */
static void identity_labels(enum fs_row_kind by, const char *name, __u32 pid, __u64 start_ns,
			    const char *cgroup_path, bool from_root, struct label_text *labels)
{
	struct cgroup_labels cl;
	char pid_text[16], start[FS_START_TIME_LEN];

	switch (by) {
	case FS_BY_CGROUP:
		label_add(labels, "cgroup", name);
		cgroup_labels_parse(from_root ? name : "", &cl);
		if (cl.unit[0])
			label_add(labels, "unit", cl.unit);
		if (cl.runtime[0])
			label_add(labels, "container_runtime", cl.runtime);
		if (cl.container_id[0])
			label_add(labels, "container_id", cl.container_id);
		if (cl.pod_uid[0])
			label_add(labels, "pod_uid", cl.pod_uid);
		if (cl.qos_class[0])
			label_add(labels, "qos_class", cl.qos_class);
		break;
	case FS_BY_PROCESS:
		snprintf(pid_text, sizeof(pid_text), "%u", pid);
		label_add(labels, "pid", pid_text);
		/* With the pid, which process: one that took an exited one's pid is another. */
		format_start_time(start_ns, start);
		label_add(labels, "start_time_s", start);
		label_add(labels, "comm", name);
		if (cgroup_path)
			label_add(labels, "cgroup", cgroup_path);
		break;
	case FS_BY_COMM:
		label_add(labels, "comm", name);
		break;
	}
}

static void group_labels(const struct series_store *s, const struct series_group *g,
			 bool from_root, struct label_text *labels)
{
	identity_labels(s->by, g->name, g->pid, g->start, g->cgroup_path, from_root, labels);
}

static const char *const resident_types[NR_RESIDENT_TYPES] = {"anon", "file", "shmem"};
static const char *const resident_mappings[NR_RESIDENT_MAPPINGS] = {"pmd", "pte", "pte_unaligned",
								    "partial"};

/* One --resident row's gauges: its bytes by type and order, and its large folios by type and
 * mapping, each where nonzero. */
static void resident_samples(struct expo *x, const char *labels, const struct resident_counts *c,
			     bool bytes)
{
	__u64 page_size = (__u64)x->r->host->page_size;
	char extra[64];

	for (int t = 0; t < NR_RESIDENT_TYPES; t++) {
		if (bytes) {
			for (int o = 0; o < FS_NR_ORDERS; o++) {
				if (!c->pages[t][o])
					continue;
				snprintf(extra, sizeof(extra), "type=\"%s\",order=\"%d\"",
					 resident_types[t], o);
				sample(x, "foliostat_resident_bytes", labels, extra,
				       c->pages[t][o] * page_size);
			}
			continue;
		}
		for (int m = 0; m < NR_RESIDENT_MAPPINGS; m++) {
			if (!c->large[t][m])
				continue;
			snprintf(extra, sizeof(extra), "type=\"%s\",mapping=\"%s\"",
				 resident_types[t], resident_mappings[m]);
			sample(x, "foliostat_resident_large_folios", labels, extra, c->large[t][m]);
		}
	}
}

/* A row that has a name to label it with: not a cgroup whose path was not found. */
static bool named(const struct expo *x, const struct resident_row *row)
{
	return x->s->by != FS_BY_CGROUP || row->cgroup;
}

/*
 * --resident: what memory holds, per row of the --by kind, the rows with the most pages in
 * large folios first: --max-series of them with series of their own, the rest added up in
 * group="other". Gauges of the last readings (resident_sweep.h: each as old as its process's
 * last reading, foliostat_resident_oldest_seconds the oldest).
 */
static void resident_metrics(struct expo *x)
{
	const struct resident_report *res = x->r->resident;
	size_t own = res->nr < x->s->max_series ? res->nr : x->s->max_series;
	struct resident_counts other = {0};
	struct label_text labels = {0};

	for (size_t i = 0; i < res->nr; i++)
		if (i >= own || !named(x, &res->rows[i]))
			words_add((__u64 *)&other, (const __u64 *)&res->rows[i].counts,
				  FS_WORDS(other));
	for (int bytes = 1; bytes >= 0; bytes--) {
		family(x, bytes ? "foliostat_resident_bytes" : "foliostat_resident_large_folios",
		       "gauge",
		       bytes ? "Memory the group maps now, by type and the order of the folio of "
			       "each page (--resident)."
			     : "Large folios the group maps now, by type and how they are mapped "
			       "(--resident).");
		for (size_t i = 0; i < own; i++) {
			const struct resident_row *row = &res->rows[i];

			if (!named(x, row))
				continue;
			labels.len = labels.start = 0;
			identity_labels(x->s->by,
					x->s->by == FS_BY_CGROUP ? row->cgroup : row->comm,
					row->pid, row->start_ns, row->cgroup,
					paths_from_root(x->r), &labels);
			if (labels.failed ||
			    array_reserve(&labels.text, &labels.cap, labels.len, 1, 1)) {
				x->e->failed = true;
				break;
			}
			labels.text[labels.len] = '\0';
			resident_samples(x, labels.text, &row->counts, bytes);
		}
		resident_samples(x, "group=\"other\"", &other, bytes);
	}
	free(labels.text);
	family(x, "foliostat_resident_oldest_seconds", "gauge",
	       "The age of the oldest reading of --resident's figures.");
	sample_real(x, "foliostat_resident_oldest_seconds", "", resident_oldest_s(res));
	family(x, "foliostat_resident_processes", "gauge",
	       "Processes with a reading of what their memory holds (--resident).");
	sample(x, "foliostat_resident_processes", "", "", res->scanned);
	family(x, "foliostat_resident_cut_short_processes", "gauge",
	       "Processes whose reading stopped at the most pagemap entries a process may take in "
	       "a pass: their figures are what was read, at least (--resident).");
	sample(x, "foliostat_resident_cut_short_processes", "", "", res->cut_short);
	family(x, "foliostat_resident_passes_total", "counter",
	       "Whole readings of every selected process (--resident).");
	sample(x, "foliostat_resident_passes_total", "", "", res->passes);
	family(x, "foliostat_resident_pass_seconds", "gauge",
	       "How long the last whole reading of every selected process took (--resident).");
	sample_real(x, "foliostat_resident_pass_seconds", "", res->seconds);
	family(x, "foliostat_resident_pass_cpu_seconds", "gauge",
	       "The CPU time of the last whole reading of every selected process (--resident).");
	sample_real(x, "foliostat_resident_pass_cpu_seconds", "", res->cpu_seconds);
}

/* Free memory by block size (free_blocks.h), per node, zone and order, every order the kernel
 * lists (a zero is an answer: no block of that size). */
/* node="N",zone="Z"[,migrate_type="T"],order="O" into labels (the values quoted as every
 * label's are). */
static void zone_labels(char *labels, size_t size, const struct free_zone *z, const char *type,
			int order)
{
	char number[16];

	labels[0] = '\0';
	snprintf(number, sizeof(number), "%d", z->node);
	label_pair(labels, size, "node", number);
	label_pair(labels, size, "zone", z->name);
	if (type)
		label_pair(labels, size, "migrate_type", type);
	snprintf(number, sizeof(number), "%d", order);
	label_pair(labels, size, "order", number);
}

static void free_memory_metrics(struct expo *x)
{
	const struct free_blocks *f = x->r->free;
	char labels[256];

	family(x, "foliostat_free_blocks", "gauge",
	       "Free blocks of each order per NUMA node and zone (/proc/buddyinfo).");
	for (size_t i = 0; i < f->nr_zones; i++)
		for (int o = 0; o < f->nr_orders; o++) {
			zone_labels(labels, sizeof(labels), &f->zones[i], NULL, o);
			sample(x, "foliostat_free_blocks", labels, "", f->zones[i].blocks[o]);
		}
	family(x, "foliostat_free_unusable_ratio", "gauge",
	       "The share of a zone's free memory in blocks smaller than the order: what an "
	       "allocation of that order cannot use without compaction.");
	for (size_t i = 0; i < f->nr_zones; i++)
		for (int o = 0; o < f->nr_orders; o++) {
			zone_labels(labels, sizeof(labels), &f->zones[i], NULL, o);
			sample_real(x, "foliostat_free_unusable_ratio", labels,
				    free_zone_unusable(&f->zones[i], f->nr_orders, o));
		}
	if (!f->nr_types)
		return;
	family(x, "foliostat_free_blocks_by_migrate_type", "gauge",
	       "Free blocks of each order per NUMA node, zone and migrate type "
	       "(/proc/pagetypeinfo, read at most every 10 s).");
	for (size_t i = 0; i < f->nr_zones; i++)
		for (size_t t = 0; t < f->nr_types; t++)
			for (int o = 0; o < f->nr_orders; o++) {
				zone_labels(labels, sizeof(labels), &f->zones[i], f->types[t], o);
				sample(x, "foliostat_free_blocks_by_migrate_type", labels, "",
				       f->zones[i].by_type[t][o]);
			}
}

int render_exposition(struct exposition *e, const struct fs_report *r, const struct series_store *s,
		      const struct exposition_health *health, bool openmetrics)
{
	const struct system_totals *sys = &s->system;
	struct expo x = {.e = e, .r = r, .s = s, .om = openmetrics};
	struct expo_group system = {.labels = "", .counters = &sys->total, .always = true};
	struct label_text labels = {0};
	size_t n = 0, *starts;

	e->len = 0;
	e->failed = false;
	x.groups = calloc(s->nr + 5, sizeof(*x.groups));
	starts = calloc(s->nr + 1, sizeof(*starts));
	if (!x.groups || !starts) {
		free(x.groups);
		free(starts);
		return -ENOMEM;
	}
	/* Each group's labels are made once per exposition, for all its samples, all in one
	 * buffer (an allocation per group was most of a scrape's time). */
	for (size_t i = 0; i < s->nr && !labels.failed; i++) {
		labels.start = starts[i] = labels.len;
		group_labels(s, s->groups[i], paths_from_root(r), &labels);
		if (!labels.failed && !array_reserve(&labels.text, &labels.cap, labels.len, 1, 1))
			labels.text[labels.len++] = '\0';
		else
			labels.failed = true;
	}
	if (labels.failed) {
		e->failed = true;
		goto out;
	}
	for (size_t i = 0; i < s->nr; i++)
		x.groups[n++] = (struct expo_group){.labels = labels.text + starts[i],
						    .counters = &s->groups[i]->counters,
						    .proc = &s->groups[i]->proc,
						    .thp = &s->groups[i]->proc.thp};
	x.groups[n++] = (struct expo_group){.labels = "group=\"other\"",
					    .counters = &s->other,
					    .proc = &s->other_proc,
					    .thp = &s->other_proc.thp};
	x.groups[n++] =
	    (struct expo_group){.labels = "group=\"interrupt\"", .counters = &sys->interrupt};
	x.groups[n++] = (struct expo_group){.labels = "group=\"untracked\"",
					    .counters = &sys->untracked,
					    .thp = &sys->thp_untracked};
	x.groups[n++] =
	    (struct expo_group){.labels = "group=\"unselected\"", .counters = &sys->unselected};
	x.groups[n++] =
	    (struct expo_group){.labels = "group=\"unattributed\"", .thp = &sys->thp_unattributed};
	x.nr_groups = n;
	x.system = &system;

	thread_metrics(&x);
	proc_metrics(&x);
	compaction_by_order_metrics(&x);
	node_orders_metrics(&x);
	system_metrics(&x);
	health_metrics(&x, health);
	if (r->free)
		free_memory_metrics(&x);
	if (r->resident)
		resident_metrics(&x);
	if (openmetrics)
		emit(e, "# EOF\n");
out:
	free(labels.text);
	free(starts);
	free(x.groups);
	return e->failed ? -ENOMEM : 0;
}

void exposition_free(struct exposition *e)
{
	free(e->text);
	memset(e, 0, sizeof(*e));
}

/* Accept: application/openmetrics-text; version=1.0.0, text/plain;q=0.5, ... (Prometheus asks
 * for OpenMetrics first when it can read it). A q=0 entry is a refusal. */
bool accepts_openmetrics(const char *accept)
{
	const char *p = accept;

	while (p && *p) {
		const char *end = strchr(p, ','), *q;
		size_t len = end ? (size_t)(end - p) : strlen(p);

		while (*p == ' ')
			p++, len--;
		if (len >= 28 && !strncasecmp(p, "application/openmetrics-text", 28)) {
			q = strstr(p, "q=");
			if (!q || q >= p + len || strtod(q + 2, NULL) > 0)
				return true;
		}
		p = end ? end + 1 : NULL;
	}
	return false;
}
