// SPDX-License-Identifier: GPL-2.0
/* The JSON renderer: one record per line (NDJSON), schema documented in foliostat(8). Written
 * straight into a buffer by json_writer.c, through which every string passes to be made valid
 * (sanitize.h): names from the kernel are handed to it as they are. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "cgroup_labels.h"
#include "cgroup_names.h"
#include "counters.h"
#include "file_table.h"
#include "json_writer.h"
#include "nodes.h"
#include "render_resident.h"
#include "process_start.h"
#include "record_layout.h"
#include "report.h"

#define FS_SCHEMA_VERSION 1
/* Significant digits of every real (the record's reals are rounded before, to ms or tenths). */
#define REAL_PRECISION 12

/* Order (as a decimal string) -> folios, zero buckets omitted. */
static void hist_json(struct json_writer *w, const __u64 hist[FS_NR_ORDERS])
{
	jw_counts_by_index(w, hist, FS_NR_ORDERS);
}

/* "by_order": {"9": {"stalls": N, "total_us": N}, ...}: direct compaction by the order that
 * asked for it, orders without any left out. */
static void by_order_json(struct json_writer *w, const struct fs_order_stalls *by_order)
{
	char key[12];

	jw_object_begin(w);
	for (int o = 0; o < FS_NR_ORDERS; o++) {
		if (!by_order->count[o])
			continue;
		snprintf(key, sizeof(key), "%d", o);
		jw_key(w, key);
		jw_object_begin(w);
		jw_member_int(w, "stalls", (long long)by_order->count[o]);
		jw_member_int(w, "total_us", (long long)(by_order->total_ns[o] / 1000));
		jw_object_end(w);
	}
	jw_object_end(w);
}

/* {"0": n, "1": n, "2": n, "4": n, ...}: each bucket's lower bound in microseconds, empty
 * buckets left out. */
static void stall_hist_json(struct json_writer *w, const __u64 hist[FS_NR_STALL_BUCKETS])
{
	char key[24];

	jw_object_begin(w);
	for (int b = 0; b < FS_NR_STALL_BUCKETS; b++) {
		if (!hist[b])
			continue;
		snprintf(key, sizeof(key), "%llu", b ? 1ULL << (b - 1) : 0ULL);
		jw_member_int(w, key, (long long)hist[b]);
	}
	jw_object_end(w);
}

/* Result name -> count, zero results left out. */
static void results_json(struct json_writer *w, const struct fs_report *r, const __u64 *results)
{
	jw_object_begin(w);
	for (int v = 0; v < FS_NR_SCAN_RESULTS; v++)
		if (results[v])
			jw_member_int(w, r->scan_names[v], (long long)results[v]);
	jw_object_end(w);
}

/* The size of an mTHP counter's name ("mthp/SIZE/counter"), or 0 if it is not one. */
static size_t mthp_size_len(const char *name, const char **counter)
{
	const char *slash;

	if (strncmp(name, "mthp/", 5) != 0 || !(slash = strchr(name + 5, '/')))
		return 0;
	*counter = slash + 1;
	return (size_t)(slash - name - 5);
}

/* Page sizes from 8 KiB to 2 GiB and more, with room to spare. */
#define MAX_MTHP_SIZES 32

/* {"thp_fault_alloc": N, ...} */
static void vmstat_json(struct json_writer *w, const struct kernel_counters *kc)
{
	size_t nr = kc ? kc->nr : 0;

	jw_object_begin(w);
	for (size_t i = 0; i < nr; i++)
		if (strncmp(kc->items[i].name, "vmstat/", 7) == 0)
			jw_member_int(w, kc->items[i].name + 7, (long long)kc->items[i].value);
	jw_object_end(w);
}

/* {"64kB": {"anon_fault_alloc": N, ...}}: an mTHP size's counters together, in the order of its
 * first. */
static void mthp_json(struct json_writer *w, const struct kernel_counters *kc)
{
	size_t nr = kc ? kc->nr : 0;
	char sizes_written[MAX_MTHP_SIZES][32];

	jw_object_begin(w);
	for (size_t i = 0, nr_sizes = 0; i < nr; i++) {
		const char *name = kc->items[i].name, *counter;
		size_t len = mthp_size_len(name, &counter);
		char size[32];
		bool seen = false;

		if (!len || len >= sizeof(size))
			continue;
		/* The sizes written so far: a dozen at most, where the counters are ten times more. */
		for (size_t k = 0; k < nr_sizes && !seen; k++)
			seen = strlen(sizes_written[k]) == len && !strncmp(sizes_written[k], name + 5, len);
		if (seen || nr_sizes == MAX_MTHP_SIZES)
			continue;
		snprintf(size, sizeof(size), "%.*s", (int)len, name + 5);
		memcpy(sizes_written[nr_sizes++], size, sizeof(size));
		jw_key(w, size);
		jw_object_begin(w);
		for (size_t j = i; j < nr; j++)
			if (mthp_size_len(kc->items[j].name, &counter) == len &&
			    !strncmp(kc->items[j].name + 5, name + 5, len))
				jw_member_int(w, counter, (long long)kc->items[j].value);
		jw_object_end(w);
	}
	jw_object_end(w);
}

/* Reason -> flushes: every reason the kernel names, zero or not; unnamed ones when nonzero. */
static void tlb_reasons_json(struct json_writer *w, const struct fs_report *r,
			     const __u64 *flushes)
{
	jw_object_begin(w);
	for (int v = 0; v < FS_NR_TLB_REASONS; v++)
		if (r->tlb_known[v] || flushes[v])
			jw_member_int(w, r->tlb_names[v], (long long)flushes[v]);
	jw_object_end(w);
}

/* List -> {"folios", "pages"} (amounts) or pages: every list the kernel names, zero or not;
 * unnamed ones when nonzero. */
static void per_list_json(struct json_writer *w, const struct fs_report *r, const __u64 *words,
			  bool amounts)
{
	jw_object_begin(w);
	for (int l = 0; l < FS_NR_LRU_LISTS; l++) {
		const __u64 *list = amounts ? &words[l * FS_NR_AMOUNTS] : &words[l];

		if (!r->lru_known[l] && !list[0])
			continue;
		jw_key(w, r->lru_names[l]);
		if (!amounts) {
			jw_int(w, (long long)list[0]);
			continue;
		}
		jw_object_begin(w);
		jw_member_int(w, "folios", (long long)list[FS_FOLIOS]);
		jw_member_int(w, "pages", (long long)list[FS_PAGES]);
		jw_object_end(w);
	}
	jw_object_end(w);
}

/* "alloc_by_node": {"0": {"folios": N, "pages": N}, ...}, or with orders (`by_node`, row i's
 * words), {"0": {"0": N, ...}}: every node with memory, zeros too, since "none on node 1" is an
 * answer. */
static void per_node_json(struct json_writer *w, const struct fs_report *r,
			  const struct figures_view *v, const __u64 *by_node)
{
	const struct fs_totals *c = (const struct fs_totals *)v->from[FROM_TOTALS];
	const struct memory_nodes *nodes = r->host->nodes;
	__u64 hist[FS_NR_ORDERS];
	char key[12];

	jw_object_begin(w);
	for (int i = 0; i < nodes->nr; i++) {
		snprintf(key, sizeof(key), "%d", nodes->ids[i]);
		jw_key(w, key);
		if (by_node) {
			node_allocated_orders((const __u64(*)[FS_NR_ORDERS])by_node, c, nodes,
					      nodes->ids[i], hist);
			hist_json(w, hist);
			continue;
		}
		jw_object_begin(w);
		for (int amount = 0; amount < FS_NR_AMOUNTS; amount++)
			jw_member_int(w, amount == FS_FOLIOS ? "folios" : "pages",
				      (long long)node_allocated(c, nodes, nodes->ids[i], amount));
		jw_object_end(w);
	}
	jw_object_end(w);
}

static void figures_json(struct json_writer *w, const struct fs_report *r,
			 const struct figures_view *v, int first);

/* Order -> value, for every order the kernel lists (a zero is an answer here). */
static void every_order_json(struct json_writer *w, const __u64 *counts, int nr_orders)
{
	char key[12];

	jw_object_begin(w);
	for (int o = 0; o < nr_orders; o++) {
		snprintf(key, sizeof(key), "%d", o);
		jw_member_int(w, key, (long long)counts[o]);
	}
	jw_object_end(w);
}

/* system.free_memory: per node and zone, the free blocks of each order now and the fewest
 * during the window, the share of free memory unusable for each order, and by migrate type. */
static void free_memory_json(struct json_writer *w, const struct free_blocks *f)
{
	char key[12];

	if (!f) {
		jw_null(w);
		return;
	}
	jw_object_begin(w);
	jw_member_int(w, "samples", (long long)f->samples);
	jw_key(w, "by_migrate_type_age_seconds");
	if (f->nr_types)
		jw_real(w, f->read_at - f->types_read_at, 3);
	else
		jw_null(w);
	jw_key(w, "zones");
	jw_array_begin(w);
	for (size_t i = 0; i < f->nr_zones; i++) {
		const struct free_zone *z = &f->zones[i];

		jw_object_begin(w);
		jw_member_int(w, "node", z->node);
		jw_key(w, "zone");
		jw_string_n(w, z->name, sizeof(z->name));
		jw_member_int(w, "free_pages", (long long)free_zone_pages(z, f->nr_orders));
		jw_key(w, "free_blocks");
		every_order_json(w, z->blocks, f->nr_orders);
		jw_key(w, "fewest_free_blocks");
		every_order_json(w, z->fewest, f->nr_orders);
		for (int most = 0; most <= 1; most++) {
			jw_key(w, most ? "most_unusable" : "unusable");
			jw_object_begin(w);
			for (int o = 0; o < f->nr_orders; o++) {
				snprintf(key, sizeof(key), "%d", o);
				jw_key(w, key);
				jw_real(w,
					most ? z->most_unusable[o]
					     : free_zone_unusable(z, f->nr_orders, o),
					6);
			}
			jw_object_end(w);
		}
		jw_key(w, "by_migrate_type");
		if (!f->nr_types) {
			jw_null(w);
		} else {
			jw_object_begin(w);
			for (size_t t = 0; t < f->nr_types; t++) {
				jw_key(w, f->types[t]);
				every_order_json(w, z->by_type[t], f->nr_orders);
			}
			jw_object_end(w);
		}
		jw_object_end(w);
	}
	jw_array_end(w);
	jw_object_end(w);
}

static void figure_value_json(struct json_writer *w, const struct fs_report *r,
			      const struct figures_view *v, int i)
{
	const struct record_figure *f = &record_figures[i];
	const __u64 *words = record_figure_words(v, i);
	__u64 hist[FS_NR_ORDERS];

	switch (f->kind) {
	case RK_OBJECT:
		figures_json(w, r, v, i + 1);
		break;
	case RK_COUNT:
		jw_int(w, (long long)words[0]);
		break;
	case RK_MICROS:
		jw_int(w, (long long)(words[0] / 1000));
		break;
	case RK_FAULTS:
		jw_int(w, (long long)fault_count((const struct fs_totals *)v->from[FROM_TOTALS],
						 f->arg));
		break;
	case RK_ORDERS:
		record_figure_orders(v, i, hist);
		hist_json(w, hist);
		break;
	case RK_STALL_HIST:
		stall_hist_json(w, words);
		break;
	case RK_STALLS_BY_ORDER:
		by_order_json(w, (const struct fs_order_stalls *)words);
		break;
	case RK_SCAN_RESULTS:
		results_json(w, r, words);
		break;
	case RK_TLB_REASONS:
		tlb_reasons_json(w, r, words);
		break;
	case RK_LIST_AMOUNTS:
	case RK_LIST_PAGES:
		per_list_json(w, r, words, f->kind == RK_LIST_AMOUNTS);
		break;
	case RK_VMSTAT:
		vmstat_json(w, r->kernel);
		break;
	case RK_MTHP:
		mthp_json(w, r->kernel);
		break;
	case RK_MGLRU:
		jw_bool(w, r->mglru);
		break;
	case RK_PROCESSES:
		jw_int(w, (long long)r->rows->nr_active);
		break;
	case RK_FREE_MEMORY:
		free_memory_json(w, r->free);
		break;
	case RK_NODE_AMOUNTS:
	case RK_NODE_ORDERS:
		per_node_json(w, r, v, f->kind == RK_NODE_ORDERS ? words : NULL);
		break;
	case RK_GROUP: {
		struct figures_view group = {.scope = IN_GROUP, .from[FROM_TOTALS] = words};

		figures_json(w, r, &group, 0);
		break;
	}
	}
}

/* The members of an object: the rows from `first` at its depth that are in v's scope, each
 * null where what measures it is not measured (not measured is not zero). */
static void figures_members_json(struct json_writer *w, const struct fs_report *r,
				 const struct figures_view *v, int first)
{
	int depth = record_figures[first].depth;

	for (int i = first; i < nr_record_figures && record_figures[i].depth == depth;
	     i = record_figure_skip(i)) {
		const struct record_figure *f = &record_figures[i];

		if (!(f->scopes & v->scope))
			continue;
		jw_key(w, f->key);
		if (f->measure != MEASURE_NONE && !r->measured[f->measure])
			jw_null(w);
		else
			figure_value_json(w, r, v, i);
	}
}

static void figures_json(struct json_writer *w, const struct fs_report *r,
			 const struct figures_view *v, int first)
{
	jw_object_begin(w);
	figures_members_json(w, r, v, first);
	jw_object_end(w);
}

static void host_json(struct json_writer *w, const struct host_info *host)
{
	jw_object_begin(w);
	jw_key(w, "hostname");
	jw_string_n(w, host->hostname, sizeof(host->hostname));
	jw_key(w, "kernel");
	jw_string_n(w, host->kernel, sizeof(host->kernel));
	jw_member_int(w, "nr_cpus", host->nr_cpus);
	jw_member_int(w, "page_size", host->page_size);
	jw_object_end(w);
}

static void probes_json(struct json_writer *w, const struct fs_report *r)
{
	jw_object_begin(w);
	for (int i = 0; i < r->nr_probes; i++) {
		jw_key(w, r->probes[i].name);
		jw_string(w, r->probes[i].attached ? "attached" : r->probes[i].reason);
	}
	jw_object_end(w);
}

/* The system's figures: every event, whoever caused it, and the groups charged to no row. */
static void system_json(struct json_writer *w, const struct fs_report *r)
{
	struct figures_view v = {.scope = IN_SYSTEM,
				 .from = {[FROM_TOTALS] = (const __u64 *)&r->system.total,
					  [FROM_SYSTEM] = (const __u64 *)&r->system}};

	figures_json(w, r, &v, 0);
}

/* "cgroup": its path below the cgroup2 mount (null when it cannot be named: removed before it
 * was seen, or no cgroup2), and "cgroup_id". */
static void cgroup_json(struct json_writer *w, const struct fs_report *r, __u64 id)
{
	const char *path = r->cgroup_names ? cgroup_name_known(r->cgroup_names, id) : NULL;

	jw_key(w, "cgroup");
	if (path)
		jw_string(w, path);
	else
		jw_null(w);
	jw_member_int(w, "cgroup_id", (long long)id);
}

/* A label read off a cgroup's path, null when the path has none. */
static void label_json(struct json_writer *w, const char *name, const char *value)
{
	jw_key(w, name);
	if (value[0])
		jw_string(w, value);
	else
		jw_null(w);
}

/* What identifies a row: a process's pid, name and cgroup; a cgroup's path, id and the unit,
 * container and pod its path names; a name. */
static void row_identity_json(struct json_writer *w, const struct fs_report *r,
			      const struct row *row)
{
	const char *path;
	struct cgroup_labels labels;

	switch (r->by) {
	case FS_BY_PROCESS:
		jw_member_int(w, "pid", (long long)row_pid(row));
		/* With the pid, which process: one that took an exited one's pid is another row. */
		jw_key(w, "start_time_s");
		jw_real(w, start_time_s(row_start(row)), 15);
		jw_key(w, "comm");
		jw_string_n(w, row->comm, FS_COMM_LEN);
		cgroup_json(w, r, row->cgroup);
		break;
	case FS_BY_CGROUP:
		cgroup_json(w, r, row->cgroup);
		path = r->cgroup_names ? cgroup_name_known(r->cgroup_names, row->cgroup) : NULL;
		/* (labels only from paths that start at the hierarchy's root: cgroup2_is_root) */
		cgroup_labels_parse(path && r->cgroup_names->from_root ? path : "", &labels);
		label_json(w, "unit", labels.unit);
		label_json(w, "container_runtime", labels.runtime);
		label_json(w, "container_id", labels.container_id);
		label_json(w, "pod_uid", labels.pod_uid);
		label_json(w, "qos_class", labels.qos_class);
		break;
	case FS_BY_COMM:
		jw_key(w, "comm");
		jw_string_n(w, row->comm, FS_COMM_LEN);
		break;
	}
}

/* A row: what identifies it, and its figures. */
static void process_json(struct json_writer *w, const struct fs_report *r, const struct row *row)
{
	static const struct proc_totals none;
	const struct row_proc_totals *found = process_proc(r->rows, row);
	struct figures_view v = {
	    .scope = IN_ROW,
	    .from = {[FROM_TOTALS] = (const __u64 *)&row->totals,
		     [FROM_PROC] = (const __u64 *)(found ? &found->totals : &none)}};

	jw_object_begin(w);
	row_identity_json(w, r, row);
	/* (the figures are the row's object's members, after its identity) */
	figures_members_json(w, r, &v, 0);
	jw_object_end(w);
}

/* "bounds": {structure: {"limit", "entries", "evictions"}} for each bounded structure in use:
 * what other users made the loader hold (bounds.h). */
static void bounds_json(struct json_writer *w, const struct self_cost *s)
{
	jw_key(w, "bounds");
	jw_object_begin(w);
	for (int b = 0; b < FS_NR_BOUNDS; b++) {
		if (!s->bounds[b].limit)
			continue;
		jw_key(w, bound_name(b));
		jw_object_begin(w);
		jw_member_int(w, "limit", (long long)s->bounds[b].limit);
		jw_member_int(w, "entries", (long long)s->bounds[b].entries);
		jw_member_int(w, "evictions", (long long)s->bounds[b].evictions);
		jw_object_end(w);
	}
	jw_object_end(w);
}

/* "self": {"probes": {name: {"events", "ns_per_event", "missed"}}, "bpf_ms", "loader_cpu_ms",
 * "loader_rss_kib", "attribution", "bounds"}: what foliostat cost during the window, and how its programs
 * found the thread to charge. */
static void self_json(struct json_writer *w, const struct fs_report *r)
{
	const struct self_cost *s = r->self;
	__u64 total_ns = 0;

	jw_object_begin(w);
	jw_key(w, "probes");
	jw_object_begin(w);
	for (int i = 0; i < r->nr_probes && i < FS_MAX_PROBES; i++) {
		if (!r->probes[i].attached)
			continue;
		total_ns += s->run_ns[i];
		jw_key(w, r->probes[i].name);
		jw_object_begin(w);
		jw_member_int(w, "events", (long long)s->events[i]);
		jw_key(w, "ns_per_event");
		jw_real(w,
			s->events[i] ? round((double)s->run_ns[i] / s->events[i] * 10) / 10 : 0.0,
			REAL_PRECISION);
		jw_member_int(w, "missed", (long long)s->misses[i]);
		jw_object_end(w);
	}
	jw_object_end(w);
	jw_key(w, "bpf_ms");
	jw_real(w, round(total_ns / 1e3) / 1e3, REAL_PRECISION);
	jw_key(w, "loader_cpu_ms");
	jw_real(w, round(s->loader_cpu_s * 1e6) / 1e3, REAL_PRECISION);
	jw_member_int(w, "loader_rss_kib", (long long)s->loader_rss_kib);
	jw_key(w, "attribution");
	jw_string(w, r->attribution);
	bounds_json(w, s);
	jw_object_end(w);
}

/* A device as user space writes it, "MAJOR:MINOR". */
static void dev_json(struct json_writer *w, __u32 dev)
{
	char text[24];

	snprintf(text, sizeof(text), "%u:%u", FILE_DEV_MAJOR(dev), FILE_DEV_MINOR(dev));
	jw_key(w, "dev");
	jw_string(w, text);
}

/* A string from the kernel or the mount table; null for NULL. */
static void name_json(struct json_writer *w, const char *name, const char *value)
{
	jw_key(w, name);
	if (value)
		jw_string(w, value);
	else
		jw_null(w);
}

/* --files: "files", the top files by pages added, and "filesystems", every file system with
 * additions (see foliostat(8)). */
static void files_json(struct json_writer *w, const struct fs_report *r)
{
	const struct file_summary *s = r->files;
	char path[FS_FILE_NAME_DEPTH * FS_FILE_NAME_LEN + 4096];
	int min, max;

	jw_key(w, "files");
	jw_array_begin(w);
	for (size_t i = 0; i < s->nr_shown; i++) {
		const struct file_row *row = s->ranked[i];
		bool complete;

		jw_object_begin(w);
		name_json(w, "path", file_path(s, row, path, sizeof(path), &complete));
		jw_key(w, "path_complete");
		jw_bool(w, complete);
		dev_json(w, row->dev);
		jw_key(w, "ino");
		jw_uint(w, row->ino);
		jw_member_int(w, "pages", (long long)row->pages);
		jw_key(w, "folios");
		hist_json(w, row->folios);
		jw_key(w, "readahead_order");
		if (r->measured[MEASURE_FILES_READAHEAD] && row->readahead_order)
			jw_int(w, (long long)row->readahead_order - 1);
		else
			jw_null(w);
		jw_key(w, "folio_orders");
		if (file_row_orders(row, &min, &max)) {
			jw_object_begin(w);
			jw_member_int(w, "min", min);
			jw_member_int(w, "max", max);
			jw_object_end(w);
		} else {
			jw_null(w);
		}
		jw_object_end(w);
	}
	jw_array_end(w);
	jw_key(w, "filesystems");
	jw_array_begin(w);
	for (size_t i = 0; i < s->nr_systems; i++) {
		const struct file_system *fs = &s->systems[i];

		jw_object_begin(w);
		dev_json(w, fs->dev);
		name_json(w, "mount", fs->mount ? fs->mount->point : NULL);
		name_json(w, "fstype", fs->mount ? fs->mount->fstype : NULL);
		jw_member_int(w, "pages", (long long)hist_pages(fs->folios));
		jw_key(w, "folios");
		hist_json(w, fs->folios);
		jw_member_int(w, "files", (long long)fs->files);
		jw_member_int(w, "untracked_pages", (long long)hist_pages(fs->untracked));
		jw_member_int(w, "files_orders_known", (long long)fs->files_known);
		jw_member_int(w, "files_allowing_large_folios", (long long)fs->files_large);
		jw_key(w, "max_folio_order_allowed");
		if (fs->max_allowed >= 0)
			jw_int(w, fs->max_allowed);
		else
			jw_null(w);
		jw_object_end(w);
	}
	jw_array_end(w);
}

/* --by: the array the rows are in (what a row is: fs_row_kind_names). */

int render_json(FILE *out, const struct fs_report *r)
{
	/* Kept from record to record, and the record goes out in one write. */
	static struct json_writer w;
	char time[64];

	format_rfc3339(&r->end, time, sizeof(time));
	jw_reset(&w);
	jw_object_begin(&w);
	jw_member_int(&w, "schema", FS_SCHEMA_VERSION);
	/* Which foliostat wrote it: schema 1 gains members from version to version. */
	jw_key(&w, "version");
	jw_string(&w, FOLIOSTAT_VERSION);
	jw_key(&w, "time");
	jw_string(&w, time);
	jw_key(&w, "interval_s");
	jw_real(&w, round(r->interval_s * 1000) / 1000, REAL_PRECISION);
	jw_key(&w, "host");
	host_json(&w, r->host);
	jw_key(&w, "probes");
	probes_json(&w, r);
	jw_key(&w, "by");
	jw_string(&w, fs_row_kind_names[r->by]);
	jw_key(&w, "system");
	system_json(&w, r);
	jw_key(&w, fs_row_array_names[r->by]);
	jw_array_begin(&w);
	for (size_t i = 0; i < r->nr_shown; i++)
		process_json(&w, r, &r->rows->rows[i]);
	jw_array_end(&w);
	if (r->self) {
		jw_key(&w, "self");
		self_json(&w, r);
	}
	if (r->files)
		files_json(&w, r);
	if (r->resident)
		resident_json(&w, r);
	jw_object_end(&w);
	jw_raw(&w, "\n", 1);
	if (w.failed) {
		errno = ENOMEM;
		return -1;
	}
	if (fwrite(w.text, 1, w.len, out) != w.len || fflush(out) == EOF)
		return -1;
	jw_shrink(&w);
	return 0;
}
