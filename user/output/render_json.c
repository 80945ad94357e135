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
#include "process_start.h"
#include "report.h"

#define FS_SCHEMA_VERSION 1
/* Significant digits of every real (the record's reals are rounded before, to ms or tenths). */
#define REAL_PRECISION 12

/* Order (as a decimal string) -> folios, zero buckets omitted. */
static void hist_json(struct json_writer *w, const __u64 hist[FS_NR_ORDERS])
{
	char key[8];

	jw_object_begin(w);
	for (int order = 0; order < FS_NR_ORDERS; order++) {
		if (!hist[order])
			continue;
		snprintf(key, sizeof(key), "%d", order);
		jw_member_int(w, key, (long long)hist[order]);
	}
	jw_object_end(w);
}

/* Histograms whose probe is not attached are null: not measured is not zero. */
static void folios_json(struct json_writer *w, const struct fs_report *r, const struct fs_totals *c,
			const __u64 *freed)
{
	__u64 hist[FS_NR_ORDERS];

	jw_object_begin(w);
	for (int h = 0; h < NR_HISTS; h++) {
		jw_key(w, hist_names[h]);
		if (r->measured[hist_measures[h]]) {
			folio_hist(c, h, hist);
			hist_json(w, hist);
		} else {
			jw_null(w);
		}
	}
	if (freed) {
		jw_key(w, "free");
		if (r->measured[MEASURE_FREED])
			hist_json(w, freed);
		else
			jw_null(w);
	}
	jw_object_end(w);
}

/* A count, or null where its probe is not attached. */
static void count_or_null(struct json_writer *w, const char *name, bool measured, __u64 count)
{
	if (measured)
		jw_member_int(w, name, (long long)count);
	else
		jw_member_null(w, name);
}

/* Counters whose probe is not attached are null, as histograms are. */
static void faults_json(struct json_writer *w, const struct fs_report *r, const struct fs_totals *c)
{
	jw_object_begin(w);
	for (int f = 0; f < FS_NR_FAULT_COUNTERS; f++)
		count_or_null(w, fault_names[f], r->measured[fault_measures[f]], fault_count(c, f));
	jw_object_end(w);
}

/* Result name -> count, zero results omitted; null if the event's probe is not attached. */
static void results_json(struct json_writer *w, const struct fs_report *r,
			 const struct fs_thp_results *thp, int event)
{
	if (!r->measured[MEASURE_THP_RESULTS + event]) {
		jw_null(w);
		return;
	}
	jw_object_begin(w);
	for (int v = 0; v < FS_NR_SCAN_RESULTS; v++)
		if (thp->results[event][v])
			jw_member_int(w, r->scan_names[v], (long long)thp->results[event][v]);
	jw_object_end(w);
}

static void migrate_json(struct json_writer *w, const struct fs_report *r,
			 const struct fs_totals *c)
{
	jw_object_begin(w);
	for (int m = 0; m < FS_NR_MIGRATE_COUNTERS; m++)
		count_or_null(w, migrate_names[m], r->measured[migrate_measures[m]], c->migrate[m]);
	jw_object_end(w);
}

/* "by_order": {"9": {"stalls": N, "total_us": N}, ...}: direct compaction by the order that
 * asked for it, orders without any omitted; null without its probe. */
static void by_order_json(struct json_writer *w, const struct fs_report *r,
			  const struct fs_order_stalls *by_order)
{
	char key[8];

	jw_key(w, "by_order");
	if (!r->measured[MEASURE_COMPACTION_BY_ORDER]) {
		jw_null(w);
		return;
	}
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

/* {"stalls": N, "total_us": N, "hist_us": {"0": n, "1": n, "2": n, "4": n, ...}}: histogram
 * keys are each bucket's lower bound in microseconds; empty buckets are omitted. Then the pages
 * reclaimed in them, the stalls of threads the table had no room for, and compaction's stalls
 * by order, where given. */
static void stalls_json(struct json_writer *w, const struct fs_report *r, int kind,
			const struct fs_stalls *s, const __u64 *reclaimed, const __u64 *untracked,
			const struct fs_order_stalls *by_order)
{
	char key[24];

	if (!r->measured[MEASURE_STALLS + kind]) {
		jw_null(w);
		return;
	}
	jw_object_begin(w);
	jw_member_int(w, "stalls", (long long)s->count);
	jw_member_int(w, "total_us", (long long)(s->total_ns / 1000));
	jw_key(w, "hist_us");
	jw_object_begin(w);
	for (int b = 0; b < FS_NR_STALL_BUCKETS; b++) {
		if (!s->hist[b])
			continue;
		snprintf(key, sizeof(key), "%llu", b ? 1ULL << (b - 1) : 0ULL);
		jw_member_int(w, key, (long long)s->hist[b]);
	}
	jw_object_end(w);
	if (reclaimed)
		jw_member_int(w, "reclaimed", (long long)*reclaimed);
	if (untracked)
		jw_member_int(w, "untracked", (long long)*untracked);
	if (kind == FS_STALL_COMPACTION)
		by_order_json(w, r, by_order);
	jw_object_end(w);
}

/* The collapse outcomes by event, as members of the thp object the caller has opened. */
static void thp_members(struct json_writer *w, const struct fs_report *r,
			const struct fs_thp_results *thp)
{
	for (int e = 0; e < FS_NR_THP_EVENTS; e++) {
		jw_key(w, thp_event_names[e]);
		results_json(w, r, thp, e);
	}
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

/* "vmstat": {"thp_fault_alloc": N, ...}, "mthp": {"64kB": {"anon_fault_alloc": N, ...}}, as
 * members of the thp object; an mTHP size's counters together, in the order of its first. */
static void kernel_counters_json(struct json_writer *w, const struct kernel_counters *kc)
{
	size_t nr = kc ? kc->nr : 0;
	char sizes_written[MAX_MTHP_SIZES][32];

	jw_key(w, "vmstat");
	jw_object_begin(w);
	for (size_t i = 0; i < nr; i++)
		if (strncmp(kc->items[i].name, "vmstat/", 7) == 0)
			jw_member_int(w, kc->items[i].name + 7, (long long)kc->items[i].value);
	jw_object_end(w);
	jw_key(w, "mthp");
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

/* {"flushes": {reason: N, ...}, "pages": N, "full": N}, or null without the probe. Every reason
 * the kernel names is listed, zero or not; unnamed values only when nonzero. */
static void tlb_json(struct json_writer *w, const struct fs_report *r, const struct fs_totals *c)
{
	if (!r->measured[MEASURE_TLB]) {
		jw_null(w);
		return;
	}
	jw_object_begin(w);
	jw_key(w, "flushes");
	jw_object_begin(w);
	for (int v = 0; v < FS_NR_TLB_REASONS; v++)
		if (r->tlb_known[v] || c->tlb_flushes[v])
			jw_member_int(w, r->tlb_names[v], (long long)c->tlb_flushes[v]);
	jw_object_end(w);
	jw_member_int(w, "pages", (long long)c->tlb_pages);
	jw_member_int(w, "full", (long long)c->tlb_full);
	jw_object_end(w);
}

static void amounts_json(struct json_writer *w, const __u64 amounts[FS_NR_AMOUNTS])
{
	jw_object_begin(w);
	jw_member_int(w, "folios", (long long)amounts[FS_FOLIOS]);
	jw_member_int(w, "pages", (long long)amounts[FS_PAGES]);
	jw_object_end(w);
}

/* {"insert": {list: {"folios", "pages"}, ...}, "activate": {"folios", "pages"}}, and the
 * system's "mglru" when asked. */
static void lru_json(struct json_writer *w, const struct fs_report *r, const struct fs_totals *c,
		     bool with_mglru)
{
	jw_object_begin(w);
	jw_key(w, "insert");
	if (r->measured[MEASURE_LRU_INSERT]) {
		jw_object_begin(w);
		for (int l = 0; l < FS_NR_LRU_LISTS; l++) {
			if (r->lru_known[l] || c->lru_insert[l][FS_FOLIOS]) {
				jw_key(w, r->lru_names[l]);
				amounts_json(w, c->lru_insert[l]);
			}
		}
		jw_object_end(w);
	} else {
		jw_null(w);
	}
	jw_key(w, "activate");
	if (r->measured[MEASURE_LRU_ACTIVATE])
		amounts_json(w, c->lru_activate);
	else
		jw_null(w);
	if (with_mglru) {
		jw_key(w, "mglru");
		jw_bool(w, r->mglru);
	}
	jw_object_end(w);
}

/* The interrupt, untracked and unselected groups: what a process row counts per thread, in its
 * places. */
static void group_json(struct json_writer *w, const struct fs_report *r, const struct fs_totals *c)
{
	jw_object_begin(w);
	jw_key(w, "folios");
	folios_json(w, r, c, NULL);
	jw_key(w, "faults");
	faults_json(w, r, c);
	jw_key(w, "tlb");
	tlb_json(w, r, c);
	jw_key(w, "lru");
	lru_json(w, r, c, false);
	jw_key(w, "thp");
	jw_object_begin(w);
	count_or_null(w, "fault_alloc", r->measured[MEASURE_THP_FAULT_ALLOC], c->thp_fault_alloc);
	jw_key(w, "migrate");
	migrate_json(w, r, c);
	jw_object_end(w);
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

/* A stall object of a process: the stalls, and the pages reclaimed in them (reclaim only). */
static void stall_json(struct json_writer *w, const struct fs_report *r,
		       const struct fs_proc_counters *pc, int kind)
{
	stalls_json(w, r, kind, &pc->stalls[kind],
		    kind != FS_STALL_COMPACTION ? &pc->reclaimed[kind] : NULL, NULL,
		    &pc->compaction_by_order);
}

/* The same over the system, with the stalls of processes the table had no room for. */
static void system_stall_json(struct json_writer *w, const struct fs_report *r, int kind)
{
	stalls_json(w, r, kind, &r->system.stalls[kind],
		    kind != FS_STALL_COMPACTION ? &r->system.reclaimed[kind] : NULL,
		    &r->system.stalls_untracked[kind], &r->system.compaction_by_order);
}

/* {list: pages} for the lists the kernel names, or null without the probe. */
static void per_list_json(struct json_writer *w, const struct fs_report *r, bool measured,
			  const __u64 *pages)
{
	if (!measured) {
		jw_null(w);
		return;
	}
	jw_object_begin(w);
	for (int l = 0; l < FS_NR_LRU_LISTS; l++)
		if (r->lru_known[l] || pages[l])
			jw_member_int(w, r->lru_names[l], (long long)pages[l]);
	jw_object_end(w);
}

static void reclaimer_json(struct json_writer *w, const struct fs_report *r, int who)
{
	const struct fs_vmscan *v = &r->system.vmscan;

	jw_object_begin(w);
	jw_key(w, "scanned");
	per_list_json(w, r, r->measured[MEASURE_VMSCAN + FS_VMSCAN_SCANNED], v->scanned[who]);
	jw_key(w, "reclaimed");
	per_list_json(w, r, r->measured[MEASURE_VMSCAN + FS_VMSCAN_RECLAIMED], v->reclaimed[who]);
	jw_key(w, "deactivated");
	per_list_json(w, r, r->measured[MEASURE_VMSCAN + FS_VMSCAN_DEACTIVATED],
		      v->deactivated[who]);
	jw_object_end(w);
}

static void system_reclaim_json(struct json_writer *w, const struct fs_report *r)
{
	const struct fs_vmscan *v = &r->system.vmscan;

	jw_object_begin(w);
	jw_key(w, "direct");
	system_stall_json(w, r, FS_STALL_DIRECT_RECLAIM);
	jw_key(w, "memcg");
	system_stall_json(w, r, FS_STALL_MEMCG_RECLAIM);
	jw_key(w, "vmscan");
	jw_object_begin(w);
	jw_key(w, "kswapd");
	reclaimer_json(w, r, FS_BY_KSWAPD);
	jw_key(w, "direct");
	reclaimer_json(w, r, FS_BY_DIRECT);
	count_or_null(w, "kswapd_wakes", r->measured[MEASURE_VMSCAN + FS_VMSCAN_KSWAPD_WAKES],
		      v->kswapd_wakes);
	jw_key(w, "written");
	if (r->measured[MEASURE_VMSCAN + FS_VMSCAN_WRITTEN])
		amounts_json(w, v->written);
	else
		jw_null(w);
	jw_object_end(w);
	jw_object_end(w);
}

static void system_json(struct json_writer *w, const struct fs_report *r)
{
	jw_object_begin(w);
	jw_key(w, "folios");
	folios_json(w, r, &r->system.total, r->system.freed);
	jw_key(w, "faults");
	faults_json(w, r, &r->system.total);
	jw_key(w, "tlb");
	tlb_json(w, r, &r->system.total);
	jw_key(w, "lru");
	lru_json(w, r, &r->system.total, true);
	jw_key(w, "thp");
	jw_object_begin(w);
	count_or_null(w, "fault_alloc", r->measured[MEASURE_THP_FAULT_ALLOC],
		      r->system.total.thp_fault_alloc);
	thp_members(w, r, &r->system.thp);
	jw_key(w, "unattributed");
	jw_object_begin(w);
	thp_members(w, r, &r->system.thp_unattributed);
	jw_object_end(w);
	jw_key(w, "untracked");
	jw_object_begin(w);
	thp_members(w, r, &r->system.thp_untracked);
	jw_object_end(w);
	kernel_counters_json(w, r->kernel);
	jw_key(w, "migrate");
	migrate_json(w, r, &r->system.total);
	jw_key(w, "compaction");
	system_stall_json(w, r, FS_STALL_COMPACTION);
	jw_object_end(w);
	jw_key(w, "reclaim");
	system_reclaim_json(w, r);
	jw_key(w, "interrupt");
	group_json(w, r, &r->system.interrupt);
	jw_key(w, "untracked");
	group_json(w, r, &r->system.untracked);
	jw_key(w, "unselected");
	group_json(w, r, &r->system.unselected);
	jw_member_int(w, "processes", (long long)r->processes->nr_active);
	jw_object_end(w);
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
			      const struct process_row *row)
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
		cgroup_labels_parse(path ? path : "", &labels);
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

static void process_json(struct json_writer *w, const struct fs_report *r,
			 const struct process_row *row)
{
	static const struct fs_proc_counters none;
	const struct proc_row *found = process_proc(r->processes, row);
	const struct fs_proc_counters *pc = found ? &found->counters : &none;

	jw_object_begin(w);
	row_identity_json(w, r, row);
	jw_key(w, "folios");
	folios_json(w, r, &row->counters, NULL);
	jw_key(w, "faults");
	faults_json(w, r, &row->counters);
	jw_key(w, "tlb");
	tlb_json(w, r, &row->counters);
	jw_key(w, "lru");
	lru_json(w, r, &row->counters, false);
	jw_key(w, "thp");
	jw_object_begin(w);
	count_or_null(w, "fault_alloc", r->measured[MEASURE_THP_FAULT_ALLOC],
		      row->counters.thp_fault_alloc);
	thp_members(w, r, &pc->thp);
	jw_key(w, "migrate");
	migrate_json(w, r, &row->counters);
	jw_key(w, "compaction");
	stall_json(w, r, pc, FS_STALL_COMPACTION);
	jw_object_end(w);
	jw_key(w, "reclaim");
	jw_object_begin(w);
	jw_key(w, "direct");
	stall_json(w, r, pc, FS_STALL_DIRECT_RECLAIM);
	jw_key(w, "memcg");
	stall_json(w, r, pc, FS_STALL_MEMCG_RECLAIM);
	jw_object_end(w);
	jw_object_end(w);
}

/* "self": {"probes": {name: {"events", "ns_per_event", "missed"}}, "bpf_ms", "loader_cpu_ms",
 * "loader_rss_kib", "attribution"}: what foliostat cost during the window, and how its programs
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
static void files_json(struct json_writer *w, const struct file_summary *s)
{
	char path[FS_FILE_NAME_DEPTH * FS_FILE_NAME_LEN + 4096];

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
		jw_object_end(w);
	}
	jw_array_end(w);
}

/* --by: the array the rows are in (what a row is: fs_row_kind_names). */
static const char *const row_array_names[] = {
    [FS_BY_PROCESS] = "processes", [FS_BY_CGROUP] = "cgroups", [FS_BY_COMM] = "comms"};

int render_json(FILE *out, const struct fs_report *r)
{
	/* Kept from record to record, and the record goes out in one write. */
	static struct json_writer w;
	char time[64];

	format_rfc3339(&r->end, time, sizeof(time));
	jw_reset(&w);
	jw_object_begin(&w);
	jw_member_int(&w, "schema", FS_SCHEMA_VERSION);
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
	jw_key(&w, row_array_names[r->by]);
	jw_array_begin(&w);
	for (size_t i = 0; i < r->nr_shown; i++)
		process_json(&w, r, &r->processes->rows[i]);
	jw_array_end(&w);
	if (r->self) {
		jw_key(&w, "self");
		self_json(&w, r);
	}
	if (r->files)
		files_json(&w, r->files);
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
