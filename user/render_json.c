// SPDX-License-Identifier: GPL-2.0
/* The JSON renderer: one record per line (NDJSON), schema documented in foliostat(8). Built with
 * jansson so escaping is never hand-rolled; names are made valid UTF-8 first because jansson
 * refuses anything else. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>
#include <stdio.h>

#include "array.h"
#include "counters.h"
#include "report.h"
#include "utf8.h"

#define FS_SCHEMA_VERSION 1

/* Order (as a decimal string) -> folios, zero buckets omitted. */
static json_t *hist_json(const __u64 hist[FS_NR_ORDERS])
{
	json_t *obj = json_object();
	char key[8];

	for (int order = 0; order < FS_NR_ORDERS; order++) {
		if (!hist[order])
			continue;
		snprintf(key, sizeof(key), "%d", order);
		json_object_set_new(obj, key, json_integer((json_int_t)hist[order]));
	}
	return obj;
}

/* Histograms whose probe is not attached are null: not measured is not zero. */
static json_t *folios_json(const struct fs_report *r, const struct fs_totals *c, const __u64 *freed)
{
	json_t *obj = json_object();
	__u64 hist[FS_NR_ORDERS];

	for (int h = 0; h < NR_HISTS; h++) {
		folio_hist(c, h, hist);
		json_object_set_new(obj, hist_names[h],
				    r->measured[h] ? hist_json(hist) : json_null());
	}
	if (freed)
		json_object_set_new(obj, "free", r->free_measured ? hist_json(freed) : json_null());
	return obj;
}

/* Counters whose probe is not attached are null, as histograms are. */
static json_t *faults_json(const struct fs_report *r, const struct fs_totals *c)
{
	json_t *obj = json_object();

	for (int f = 0; f < FS_NR_FAULT_COUNTERS; f++)
		json_object_set_new(obj, fault_names[f],
				    r->faults_measured[f]
					? json_integer((json_int_t)fault_count(c, f))
					: json_null());
	return obj;
}

/* Result name -> count, zero results omitted; null if the event's probe is not attached. */
static json_t *results_json(const struct fs_report *r, const struct fs_thp_results *thp, int event)
{
	json_t *obj;

	if (!r->thp_measured[event])
		return json_null();
	obj = json_object();
	for (int v = 0; v < FS_NR_SCAN_RESULTS; v++)
		if (thp->results[event][v])
			json_object_set_new(obj, r->scan_names[v],
					    json_integer((json_int_t)thp->results[event][v]));
	return obj;
}

static json_t *migrate_json(const struct fs_report *r, const struct fs_totals *c)
{
	json_t *obj = json_object();

	for (int m = 0; m < FS_NR_MIGRATE_COUNTERS; m++)
		json_object_set_new(obj, migrate_names[m],
				    r->migrate_measured[m] ? json_integer((json_int_t)c->migrate[m])
							   : json_null());
	return obj;
}

/* {"stalls": N, "total_us": N, "hist_us": {"0": n, "1": n, "2": n, "4": n, ...}}: histogram
 * keys are each bucket's lower bound in microseconds; empty buckets are omitted. */
static json_t *stalls_json(bool measured, const struct fs_stalls *s)
{
	json_t *hist;
	char key[24];

	if (!measured)
		return json_null();
	hist = json_object();
	for (int b = 0; b < FS_NR_STALL_BUCKETS; b++) {
		if (!s->hist[b])
			continue;
		snprintf(key, sizeof(key), "%llu", b ? 1ULL << (b - 1) : 0ULL);
		json_object_set_new(hist, key, json_integer((json_int_t)s->hist[b]));
	}
	return json_pack("{s:I, s:I, s:o}", "stalls", (json_int_t)s->count, "total_us",
			 (json_int_t)(s->total_ns / 1000), "hist_us", hist);
}

static json_t *thp_json(const struct fs_report *r, const struct fs_thp_results *thp)
{
	static const struct fs_thp_results none;
	json_t *obj = json_object();

	for (int e = 0; e < FS_NR_THP_EVENTS; e++)
		json_object_set_new(obj, thp_event_names[e], results_json(r, thp ? thp : &none, e));
	return obj;
}

/* "vmstat": {"thp_fault_alloc": N, ...}, "mthp": {"64kB": {"anon_fault_alloc": N, ...}} */
static void kernel_counters_json(const struct kernel_counters *kc, json_t *thp)
{
	json_t *vmstat = json_object(), *mthp = json_object();

	for (size_t i = 0; kc && i < kc->nr; i++) {
		const char *name = kc->items[i].name;
		json_t *value = json_integer((json_int_t)kc->items[i].value);
		char size[32];
		const char *slash;

		if (strncmp(name, "vmstat/", 7) == 0) {
			json_object_set_new(vmstat, name + 7, value);
		} else if (strncmp(name, "mthp/", 5) == 0 && (slash = strchr(name + 5, '/')) &&
			   (size_t)(slash - name - 5) < sizeof(size)) {
			json_t *per_size;

			snprintf(size, sizeof(size), "%.*s", (int)(slash - name - 5), name + 5);
			per_size = json_object_get(mthp, size);
			if (!per_size) {
				per_size = json_object();
				json_object_set_new(mthp, size, per_size);
			}
			json_object_set_new(per_size, slash + 1, value);
		} else {
			json_decref(value);
		}
	}
	json_object_set_new(thp, "vmstat", vmstat);
	json_object_set_new(thp, "mthp", mthp);
}

/* {"flushes": {reason: N, ...}, "pages": N, "full": N}, or null without the probe. Every reason
 * the kernel names is listed, zero or not; unnamed values only when nonzero. */
static json_t *tlb_json(const struct fs_report *r, const struct fs_totals *c)
{
	json_t *flushes;

	if (!r->tlb_measured)
		return json_null();
	flushes = json_object();
	for (int v = 0; v < FS_NR_TLB_REASONS; v++)
		if (r->tlb_known[v] || c->tlb_flushes[v])
			json_object_set_new(flushes, r->tlb_names[v],
					    json_integer((json_int_t)c->tlb_flushes[v]));
	return json_pack("{s:o, s:I, s:I}", "flushes", flushes, "pages", (json_int_t)c->tlb_pages,
			 "full", (json_int_t)c->tlb_full);
}

static json_t *amounts_json(const __u64 amounts[FS_NR_AMOUNTS])
{
	return json_pack("{s:I, s:I}", "folios", (json_int_t)amounts[FS_FOLIOS], "pages",
			 (json_int_t)amounts[FS_PAGES]);
}

/* {"insert": {list: {"folios", "pages"}, ...}, "activate": {"folios", "pages"}} */
static json_t *lru_json(const struct fs_report *r, const struct fs_totals *c)
{
	json_t *lists, *lru = json_object();

	if (r->lru_insert_measured) {
		lists = json_object();
		for (int l = 0; l < FS_NR_LRU_LISTS; l++)
			if (r->lru_known[l] || c->lru_insert[l][FS_FOLIOS])
				json_object_set_new(lists, r->lru_names[l],
						    amounts_json(c->lru_insert[l]));
		json_object_set_new(lru, "insert", lists);
	} else {
		json_object_set_new(lru, "insert", json_null());
	}
	json_object_set_new(lru, "activate",
			    r->lru_activate_measured && !r->mglru ? amounts_json(c->lru_activate)
								  : json_null());
	return lru;
}

/* The interrupt and untracked groups: what a process row counts per thread, in its places. */
static json_t *group_json(const struct fs_report *r, const struct fs_totals *c)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:{s:o}}", "folios", folios_json(r, c, NULL),
			 "faults", faults_json(r, c), "tlb", tlb_json(r, c), "lru", lru_json(r, c),
			 "thp", "migrate", migrate_json(r, c));
}

static json_t *host_json(const struct host_info *host)
{
	char name[UTF8_SANITIZED_SIZE(sizeof(host->hostname))];
	char kernel[UTF8_SANITIZED_SIZE(sizeof(host->kernel))];

	utf8_sanitize(host->hostname, sizeof(host->hostname), name);
	utf8_sanitize(host->kernel, sizeof(host->kernel), kernel);
	return json_pack("{s:s, s:s, s:i, s:I}", "hostname", name, "kernel", kernel, "nr_cpus",
			 host->nr_cpus, "page_size", (json_int_t)host->page_size);
}

static json_t *probes_json(const struct fs_report *r)
{
	json_t *obj = json_object();

	for (int i = 0; i < r->nr_probes; i++)
		json_object_set_new(
		    obj, r->probes[i].name,
		    json_string(r->probes[i].attached ? "attached" : r->probes[i].reason));
	return obj;
}

/* A stall object of a process: the stalls, and the pages reclaimed in them (reclaim only). */
static json_t *stall_json(const struct fs_report *r, const struct fs_proc_counters *pc, int kind)
{
	json_t *obj = stalls_json(r->stall_measured[kind], &pc->stalls[kind]);

	if (obj && !json_is_null(obj) && kind != FS_STALL_COMPACTION)
		json_object_set_new(obj, "reclaimed",
				    json_integer((json_int_t)pc->reclaimed[kind]));
	return obj;
}

/* The same over the system, with the stalls of processes the table had no room for. */
static json_t *system_stall_json(const struct fs_report *r, int kind)
{
	json_t *obj = stalls_json(r->stall_measured[kind], &r->system.stalls[kind]);

	if (json_is_null(obj))
		return obj;
	if (kind != FS_STALL_COMPACTION)
		json_object_set_new(obj, "reclaimed",
				    json_integer((json_int_t)r->system.reclaimed[kind]));
	json_object_set_new(obj, "untracked",
			    json_integer((json_int_t)r->system.stalls_untracked[kind]));
	return obj;
}

/* {list: pages} for the lists the kernel names, or null without the probe. */
static json_t *per_list_json(const struct fs_report *r, bool measured, const __u64 *pages)
{
	json_t *obj;

	if (!measured)
		return json_null();
	obj = json_object();
	for (int l = 0; l < FS_NR_LRU_LISTS; l++)
		if (r->lru_known[l] || pages[l])
			json_object_set_new(obj, r->lru_names[l],
					    json_integer((json_int_t)pages[l]));
	return obj;
}

static json_t *reclaimer_json(const struct fs_report *r, int who)
{
	const struct fs_vmscan *v = &r->system.vmscan;

	return json_pack(
	    "{s:o, s:o, s:o}", "scanned",
	    per_list_json(r, r->vmscan_measured[FS_VMSCAN_SCANNED], v->scanned[who]), "reclaimed",
	    per_list_json(r, r->vmscan_measured[FS_VMSCAN_RECLAIMED], v->reclaimed[who]),
	    "deactivated",
	    per_list_json(r, r->vmscan_measured[FS_VMSCAN_DEACTIVATED], v->deactivated[who]));
}

static json_t *system_reclaim_json(const struct fs_report *r)
{
	const struct fs_vmscan *v = &r->system.vmscan;
	json_t *vmscan = json_object();

	json_object_set_new(vmscan, "kswapd", reclaimer_json(r, FS_BY_KSWAPD));
	json_object_set_new(vmscan, "direct", reclaimer_json(r, FS_BY_DIRECT));
	json_object_set_new(vmscan, "kswapd_wakes",
			    r->vmscan_measured[FS_VMSCAN_KSWAPD_WAKES]
				? json_integer((json_int_t)v->kswapd_wakes)
				: json_null());
	json_object_set_new(vmscan, "written",
			    r->vmscan_measured[FS_VMSCAN_WRITTEN] ? amounts_json(v->written)
								  : json_null());
	return json_pack("{s:o, s:o, s:o}", "direct", system_stall_json(r, FS_STALL_DIRECT_RECLAIM),
			 "memcg", system_stall_json(r, FS_STALL_MEMCG_RECLAIM), "vmscan", vmscan);
}

static json_t *system_json(const struct fs_report *r)
{
	json_t *sys = json_object(), *thp, *lru;

	json_object_set_new(sys, "folios", folios_json(r, &r->system.total, r->system.freed));
	json_object_set_new(sys, "faults", faults_json(r, &r->system.total));
	json_object_set_new(sys, "tlb", tlb_json(r, &r->system.total));
	lru = lru_json(r, &r->system.total);
	json_object_set_new(lru, "mglru", json_boolean(r->mglru));
	json_object_set_new(sys, "lru", lru);
	thp = thp_json(r, &r->system.thp);
	json_object_set_new(thp, "unattributed", thp_json(r, &r->system.thp_unattributed));
	json_object_set_new(thp, "untracked", thp_json(r, &r->system.thp_untracked));
	kernel_counters_json(r->kernel, thp);
	json_object_set_new(thp, "migrate", migrate_json(r, &r->system.total));
	json_object_set_new(thp, "compaction", system_stall_json(r, FS_STALL_COMPACTION));
	json_object_set_new(sys, "thp", thp);
	json_object_set_new(sys, "reclaim", system_reclaim_json(r));
	json_object_set_new(sys, "interrupt", group_json(r, &r->system.interrupt));
	json_object_set_new(sys, "untracked", group_json(r, &r->system.untracked));
	json_object_set_new(sys, "processes", json_integer((json_int_t)r->processes->nr_active));
	return sys;
}

static json_t *process_json(const struct fs_report *r, const struct process_row *row)
{
	char comm[UTF8_SANITIZED_SIZE(FS_COMM_LEN)];
	static const struct fs_proc_counters none;
	const struct proc_row *found;
	const struct fs_proc_counters *pc;
	json_t *proc, *thp;

	utf8_sanitize(row->comm, FS_COMM_LEN, comm);
	proc = json_pack("{s:I, s:s}", "pid", (json_int_t)row->tgid, "comm", comm);
	json_object_set_new(proc, "folios", folios_json(r, &row->counters, NULL));
	json_object_set_new(proc, "faults", faults_json(r, &row->counters));
	json_object_set_new(proc, "tlb", tlb_json(r, &row->counters));
	json_object_set_new(proc, "lru", lru_json(r, &row->counters));
	found = process_proc(r->processes, row->tgid);
	pc = found ? &found->counters : &none;
	thp = thp_json(r, &pc->thp);
	json_object_set_new(thp, "migrate", migrate_json(r, &row->counters));
	json_object_set_new(thp, "compaction", stall_json(r, pc, FS_STALL_COMPACTION));
	json_object_set_new(proc, "thp", thp);
	json_object_set_new(proc, "reclaim",
			    json_pack("{s:o, s:o}", "direct",
				      stall_json(r, pc, FS_STALL_DIRECT_RECLAIM), "memcg",
				      stall_json(r, pc, FS_STALL_MEMCG_RECLAIM)));
	return proc;
}

/* "self": {"probes": {name: {"events", "ns_per_event", "missed"}}, "bpf_ms", "loader_cpu_ms",
 * "loader_rss_kib", "attribution"}: what foliostat cost during the window, and how its programs
 * found the thread to charge. */
static json_t *self_json(const struct fs_report *r)
{
	const struct self_cost *s = r->self;
	json_t *probes = json_object();
	__u64 total_ns = 0;

	for (int i = 0; i < r->nr_probes && i < FS_MAX_PROBES; i++) {
		if (!r->probes[i].attached)
			continue;
		total_ns += s->run_ns[i];
		json_object_set_new(
		    probes, r->probes[i].name,
		    json_pack("{s:I, s:f, s:I}", "events", (json_int_t)s->events[i], "ns_per_event",
			      s->events[i] ? round((double)s->run_ns[i] / s->events[i] * 10) / 10
					   : 0.0,
			      "missed", (json_int_t)s->misses[i]));
	}
	return json_pack("{s:o, s:f, s:f, s:I, s:s}", "probes", probes, "bpf_ms",
			 round(total_ns / 1e3) / 1e3, "loader_cpu_ms",
			 round(s->loader_cpu_s * 1e6) / 1e3, "loader_rss_kib",
			 (json_int_t)s->loader_rss_kib, "attribution", r->attribution);
}

/* A record's text, built in memory and kept from record to record: the dump's many small pieces
 * would each be a call into stdio, and a record then goes out in one write. */
struct text_buffer {
	char *text;
	size_t len, cap;
};

static int append_text(const char *piece, size_t size, void *data)
{
	struct text_buffer *b = data;

	if (array_reserve(&b->text, &b->cap, b->len, size + 1, 1))
		return -1;
	memcpy(b->text + b->len, piece, size);
	b->len += size;
	return 0;
}

int render_json(FILE *out, const struct fs_report *r)
{
	static struct text_buffer buffer;
	char time[64];
	json_t *record, *procs;
	int err;

	format_rfc3339(&r->end, time, sizeof(time));
	procs = json_array();
	for (size_t i = 0; i < r->nr_shown; i++)
		json_array_append_new(procs, process_json(r, &r->processes->rows[i]));
	record = json_pack("{s:i, s:s, s:f, s:o, s:o, s:o, s:o}", "schema", FS_SCHEMA_VERSION,
			   "time", time, "interval_s", round(r->interval_s * 1000) / 1000, "host",
			   host_json(r->host), "probes", probes_json(r), "system", system_json(r),
			   "processes", procs);
	if (!record) {
		errno = ENOMEM;
		return -1;
	}
	if (r->self)
		json_object_set_new(record, "self", self_json(r));
	buffer.len = 0;
	err = json_dump_callback(record, append_text, &buffer,
				 JSON_COMPACT | JSON_REAL_PRECISION(12));
	json_decref(record);
	if (err || append_text("\n", 1, &buffer)) {
		errno = ENOMEM;
		return -1;
	}
	if (fwrite(buffer.text, 1, buffer.len, out) != buffer.len || fflush(out) == EOF)
		return -1;
	return 0;
}
