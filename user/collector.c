// SPDX-License-Identifier: GPL-2.0
/* The collector (see collector.h): each read of the maps and of the kernel's counters, and what
 * the records and the exposition are made from. */
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "collector.h"
#include "figures.h"
#include "process_start.h"
#include "regroup.h"
#include "settings.h"

/* Read the maps: what happened since the last read, with rows for the `keep` most active
 * processes (0: all). */
int collector_read(struct collector *c, size_t keep, char *err, size_t err_len)
{
	bool shrank;
	int ret;

	c->last_read = event_loop_now();
	/* CPUs brought online since the last read get their perf events. A failure there leaves
	 * those CPUs uncounted by the perf probes until a later read succeeds; the run goes on,
	 * and says so once (a refusal is usually for good: each read would repeat it). */
	ret = loader_follow_cpus(c->loader);
	if (ret && !c->cpus_refused_said) {
		fprintf(stderr,
			"foliostat: failed to open perf events on a CPU brought online: %s; "
			"its faults from perf's events go uncounted\n",
			strerror(-ret));
		c->cpus_refused_said = true;
	}
	ret = snapshot_read(&c->read, &c->reader);
	if (!ret) {
		snapshot_regroup(&c->read, c->opts->by, &c->selection);
		ret = row_table_of_read(&c->read, &c->row_filter, keep, &c->window);
	}
	/* Name the rows' cgroups now, while they exist: one made and removed between two records
	 * would have no name by the time its row is printed. Only these names are kept. */
	if (!ret && c->opts->by != FS_BY_COMM) {
		cgroup_names_read_begins(&c->cgroup_names, c->last_read);
		for (size_t i = 0; i < c->window.nr; i++)
			cgroup_names_want(&c->cgroup_names, c->window.rows[i].cgroup);
		cgroup_names_resolve(&c->cgroup_names);
	}
	if (!ret && c->opts->files)
		ret = file_table_read(&c->files);
	if (ret) {
		snprintf(err, err_len, "failed to read BPF maps: %s", strerror(-ret));
		return -1;
	}
	/* (a failed sample keeps the last: the record's figures do not depend on it) */
	if (c->free_on)
		free_blocks_sample(&c->free, false, c->last_read);
	ret = kernel_counters_read(&c->kernel_files, &c->kernel_now);
	if (!ret)
		ret = kernel_counters_delta(&c->kernel_before, &c->kernel_now, &c->kernel_window);
	if (ret) {
		snprintf(err, err_len, "failed to read the kernel's THP counters: %s",
			 strerror(-ret));
		return -1;
	}
	if (c->series) {
		double now = event_loop_now();

		ret =
		    series_add_read(c->series, &c->window, &c->read.system, &c->kernel_window, now);
		series_expire(c->series, now);
		if (ret) {
			snprintf(err, err_len, "failed to aggregate: %s", strerror(-ret));
			return -1;
		}
	}
	{
		struct kernel_counters kswap = c->kernel_before;

		c->kernel_before = c->kernel_now;
		c->kernel_now = kswap;
	}
	if (c->opts->self) {
		self_read(c->loader, &c->self_now);
		self_delta(&c->self_before, &c->self_now, &c->self_window);
		c->self_before = c->self_now;
	}
	/* Freed blocks go back to the heap, not the system, unless asked; but only after a burst
	 * has gone: the heap's top given back each second would be fresh pages to fault in at the
	 * next record, which costs more than the record itself on a host with slow faults. */
	shrank = snapshot_shrink(&c->read);
	shrank |= reader_shrink(&c->reader);
	if (shrank)
		malloc_trim(0);
	return 0;
}

/* The exposition of the counts since the start, into c->exposition; `began`: when the work for
 * it began (a scrape's read of the maps included). Returns 0, -ENOMEM, or -1 when --resident's
 * readings cannot be taken (collector_resident_failed() says why). */
int collector_expose(struct collector *c, bool openmetrics, double began)
{
	struct exposition_health health = {
	    .start_time = c->start_time,
	    .bpf = &c->self_now,
	    .bpf_run_time = c->opts->self,
	    .scrapes = c->expositions,
	    .last_duration_s = c->last_duration_s,
	};
	double rendered = event_loop_now();
	int ret;

	self_read(c->loader, &c->self_now);
	health.loader_cpu_s = c->self_now.loader_cpu_s;
	health.loader_rss_bytes = c->self_now.loader_rss_kib * 1024;
	c->report->rows = &c->window;
	if (c->opts->listen) /* (a record samples before its window ends: runs.c) */
		collector_free_blocks_record(c);
	/* (a record takes the readings itself, before it is rendered: runs.c) */
	if (c->resident_sweep.running && !c->opts->interval_s && collector_resident(c, NULL, 0))
		return -1;
	ret = render_exposition(&c->exposition, c->report, c->series, &health, openmetrics);
	series_exposed(c->series, rendered); /* every count read so far is in it */
	c->expositions++;
	c->last_duration_s = event_loop_now() - began;
	return ret;
}

int collector_resident_start(struct collector *c, char *err, size_t err_len)
{
	const struct fs_options *opts = c->opts;
	/* A pass at most once per record, or, for scrapes, once per FS_RESIDENT_LISTEN_PERIOD_S. */
	double period = opts->interval_s > 0 ? opts->interval_s : FS_RESIDENT_LISTEN_PERIOD_S;
	int ret;

	if (!c->resident_on || (opts->interval_s <= 0 && !opts->listen))
		return 0;
	ret = resident_sweep_start(&c->resident_sweep, &c->resident, &c->resident_settings,
				   opts->resident_budget / 100, period);
	if (ret) {
		snprintf(err, err_len, "failed to start reading what memory holds: %s",
			 strerror(-ret));
		return -1;
	}
	return 0;
}

static void resident_failure(int ret, char *err, size_t err_len)
{
	if (err)
		snprintf(err, err_len, "failed to read what memory holds: %s%s", strerror(-ret),
			 ret == -EPERM ? " (pagemap shows no page frame numbers without "
					 "CAP_SYS_ADMIN)"
				       : "");
}

int collector_resident_failed(struct collector *c, char *err, size_t err_len)
{
	int ret = c->resident_sweep.running ? resident_sweep_error(&c->resident_sweep) : 0;

	if (!ret)
		return 0;
	resident_failure(ret, err, err_len);
	return -1;
}

int collector_resident(struct collector *c, char *err, size_t err_len)
{
	const struct fs_options *opts = c->opts;
	struct resident_report *r = &c->resident_report;
	int ret = c->resident_sweep.running
		      ? resident_sweep_take(&c->resident_sweep, r)
		      : resident_collect(&c->resident, &c->resident_settings, r);

	if (ret) {
		resident_failure(ret, err, err_len);
		return -1;
	}
	c->report->resident = r;
	c->report->resident_shown =
	    opts->top && (size_t)opts->top < r->nr ? (size_t)opts->top : r->nr;
	return 0;
}

/* Which figures the attached probes measure (the registry's rules): the others are reported
 * as null. */
static void report_measured(struct fs_report *report, const struct loader *loader)
{
	report->probes = loader->probes;
	report->nr_probes = NR_PROBES;
	report->mglru = host_mglru_enabled();
	measures_of(loader, report->mglru, report->measured);
	report->scan_names = loader->scan_names;
	report->tlb_names = loader->tlb_names;
	report->tlb_known = loader->tlb_known;
	report->lru_names = loader->lru_names;
	report->lru_known = loader->lru_known;
	report->attribution = attribution_name(loader->facts.attribution);
}

/* The store's questions (series.h): a cgroup's path (a row's: named by collector_read()), and
 * whether a group's cgroup or process is gone. */
static const char *series_cgroup_path(__u64 cgroup, void *ctx)
{
	struct collector *c = ctx;

	return cgroup_name_known(&c->cgroup_names, cgroup);
}

static bool series_row_gone(const struct series_row *g, void *ctx)
{
	struct collector *c = ctx;
	char path[8192];
	struct stat st;

	if (c->opts->by == FS_BY_PROCESS)
		return !process_alive((int)g->pid, g->start);
	/* A cgroup made again at the same path is the same series: a restarted service's. */
	snprintf(path, sizeof(path), "%s%s", c->cgroup_names.mount, g->name);
	return stat(path, &st) && errno == ENOENT;
}

/* --format prometheus, --listen: the store of counts since the start. */
static int collector_open_series(struct collector *c, char *err, size_t err_len)
{
	struct series_settings settings = series_settings_of(c->opts);
	struct timespec now;

	c->series = malloc(sizeof(*c->series));
	if (!c->series) {
		snprintf(err, err_len, "failed to allocate: %s", strerror(ENOMEM));
		return -1;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	c->start_time = now.tv_sec + now.tv_nsec / 1e9;
	series_init(c->series, &settings, series_cgroup_path, series_row_gone, c, event_loop_now());
	return 0;
}

void collector_close(struct collector *c)
{
	if (c->series) {
		series_free(c->series);
		free(c->series);
		c->series = NULL;
	}
	exposition_free(&c->exposition);
	file_summary_free(&c->file_summary);
	file_table_close(&c->files);
	if (c->resident_on) {
		resident_sweep_stop(&c->resident_sweep);
		resident_report_free(&c->resident_report);
		resident_scanner_close(&c->resident);
		c->resident_on = false;
	}
	cgroup_names_close(&c->cgroup_names);
	row_table_free(&c->window);
	kernel_counters_free(&c->kernel_before);
	kernel_counters_free(&c->kernel_now);
	kernel_counters_free(&c->kernel_window);
	snapshot_free(&c->read);
	reader_close(&c->reader);
	kernel_counter_files_close(&c->kernel_files);
	if (c->free_on)
		free_blocks_close(&c->free);
	c->free_on = false;
}

void collector_free_blocks_record(struct collector *c)
{
	if (c->free_on)
		free_blocks_sample(&c->free, true, event_loop_now());
}

/*
 * Take the starting points of everything read from outside the maps (the kernel's THP
 * counters, the BPF run-time statistics), so that the first window has a "before". This is
 * done before start-up ends (privileges dropped): from then on every figure counts everything.
 */
int collector_open(struct collector *c, struct loader *loader, const struct fs_options *opts,
		   char *err, size_t err_len)
{
	int ret;

	*c = (struct collector){.loader = loader,
				.opts = opts,
				.selection = process_filter_of(opts),
				.resident_settings = resident_settings_of(opts)};
	if (opts->by == FS_BY_PROCESS)
		c->row_filter = c->selection;
	ret = loader_open_reader(loader, &c->reader);
	if (ret) {
		snprintf(err, err_len, "failed to map the BPF tables: %s", strerror(-ret));
		return -1;
	}
	ret = kernel_counter_files_open(&c->kernel_files);
	if (ret) {
		snprintf(err, err_len, "failed to open the kernel's THP counters: %s",
			 strerror(-ret));
		reader_close(&c->reader);
		return -1;
	}
	kernel_counters_read(&c->kernel_files, &c->kernel_before);
	/* (before privileges are dropped: pagetypeinfo is root's only) */
	ret = free_blocks_open(&c->free);
	c->free_on = !ret;
	/* More zones than a kernel can have: the free-memory figures are null, and why is told. */
	if (ret == -E2BIG || ret == -EFBIG)
		fprintf(stderr,
			"foliostat: free memory by block size is not reported: /proc/buddyinfo "
			"lists more than %d zones or %d MiB\n",
			FS_MAX_ZONES, FS_FREE_TEXT_MAX >> 20);
	cgroup_names_open(&c->cgroup_names);
	if (opts->files) {
		ret = file_table_open(&c->files, (size_t)opts->max_files, loader->skel);
		if (ret) {
			snprintf(err, err_len, "failed to allocate the table of files: %s",
				 strerror(-ret));
			collector_close(c);
			return -1;
		}
	}
	if (opts->self)
		self_baseline(&c->self_before);
	if (opts->format == FS_FORMAT_PROMETHEUS && collector_open_series(c, err, err_len)) {
		collector_close(c);
		return -1;
	}
	return 0;
}

/* What every record says beside its counts: probes, names, host. */
void collector_report_init(struct fs_report *report, struct collector *c, struct host_info *host)
{
	report_measured(report, c->loader);
	host_info_read(host);
	host->nodes = &c->loader->nodes;
	report->host = host;
	report->cgroup_names = &c->cgroup_names;
	report->by = c->opts->by;
	report->sort = c->opts->sort;
	report->free = c->free_on ? &c->free : NULL;
	c->report = report;
}
