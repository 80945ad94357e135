// SPDX-License-Identifier: GPL-2.0
/*
 * foliostat: per-process folio activity from BPF tracepoints. This file only wires the parts
 * together: options, loader, the collection loop, and the renderers.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>

#include "cgroup_names.h"
#include "cgroups.h"
#include "command.h"
#include "exposition.h"
#include "file_table.h"
#include "http_server.h"
#include "loader.h" /* (before the skeleton: foliostat.h's types) */
#include "foliostat.skel.h"
#include "options.h"
#include "output_file.h"
#include "privileges.h"
#include "process_start.h"
#include "regroup.h"
#include "report.h"
#include "snapshot.h"
#include "counters.h"
#include "check.h"
#include "event_loop.h"
#include "self.h"
#include "series.h"
#include "test_hooks.h"
#include "window.h"

/* One-shot mode still reads the table this often, so exited and idle threads leave it during
 * long runs and its capacity only has to cover the threads active within one tick. */
#define ONE_SHOT_TICK_S 1.0
/* --listen reads the maps at each scrape, and by itself only when no scrape has for this long:
 * with a scrape a second (or more often) the scrapes' reads are the only ones, each over the
 * whole span since the last; rarer scrapes leave the tables to these reads. Longer than a
 * second, so that a scraper a little slower than one a second does not get reads of a few
 * milliseconds between two of the loop's. */
#define ENDPOINT_TICK_S 2.0
/* A streaming record of a longer interval is made of several reads: BPF's 32-bit counts must
 * not wrap between two (2^31 events of one thread in 10 s is far beyond any thread). */
#define MAX_READ_PERIOD_S 10.0

static double monotonic_now(void)
{
	return event_loop_now();
}

struct collector {
	struct loader *loader;
	const struct fs_options *opts;
	struct event_loop *loop; /* every wait */
	struct command *command; /* -- COMMAND: the run ends when it exits */
	/* What the window selects rows with: opts, or for --by cgroup/comm no filter (-p and -n
	 * select processes before their counts are regrouped: regroup.h). */
	struct fs_options row_opts;
	struct cgroup_names cgroup_names; /* the rows' cgroups by name */
	struct reader reader;		  /* the maps, and what they held at the last read */
	struct snapshot read;		  /* the last read */
	struct process_table window;
	struct kernel_counter_files kernel_files;
	struct kernel_counters kernel_before, kernel_now, kernel_window;
	struct self_cost self_before, self_now, self_window; /* --self */
	/* --format prometheus and --listen: counts since the start, and their text. */
	struct series_store *series;
	struct exposition exposition;
	/* --files: the record's files so far, and what the record shows of them. */
	struct file_table files;
	struct file_summary file_summary;
	struct fs_report *report;
	double start_time;	/* Unix seconds */
	__u64 expositions;	/* made so far */
	double last_duration_s; /* how long the last one took */
	double last_read;	/* monotonic seconds of the last read of the maps */
	double scrape_began;	/* --listen: when the scrapes' last read began */
	bool cpus_refused_said; /* the warning that a CPU brought online went uncounted, once */
};

/* Read the maps: what happened since the last read, with rows for the `keep` most active
 * processes (0: all). */
static int collect_window(struct collector *c, size_t keep, char *err, size_t err_len)
{
	bool shrank;
	int ret;

	c->last_read = monotonic_now();
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
		snapshot_regroup(&c->read, c->opts);
		ret = window_processes(&c->read, &c->row_opts, keep, &c->window);
	}
	/* Name the rows' cgroups now, while they exist: one made and removed between two records
	 * would have no name by the time its row is printed. */
	for (size_t i = 0; !ret && c->opts->by != FS_BY_COMM && i < c->window.nr; i++)
		cgroup_name(&c->cgroup_names, c->window.rows[i].cgroup);
	if (!ret && c->opts->files)
		ret = file_table_read(&c->files);
	if (ret) {
		snprintf(err, err_len, "failed to read BPF maps: %s", strerror(-ret));
		return -1;
	}
	ret = kernel_counters_read(&c->kernel_files, &c->kernel_now);
	if (!ret)
		ret = kernel_counters_delta(&c->kernel_before, &c->kernel_now, &c->kernel_window);
	if (ret) {
		snprintf(err, err_len, "failed to read the kernel's THP counters: %s",
			 strerror(-ret));
		return -1;
	}
	if (c->series) {
		double now = monotonic_now();

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
 * it began (a scrape's read of the maps included). Returns 0 or -ENOMEM. */
static int make_exposition(struct collector *c, bool openmetrics, double began)
{
	struct exposition_health health = {
	    .start_time = c->start_time,
	    .bpf = &c->self_now,
	    .bpf_run_time = c->opts->self,
	    .scrapes = c->expositions,
	    .last_duration_s = c->last_duration_s,
	};
	double rendered = monotonic_now();
	int ret;

	self_read(c->loader, &c->self_now);
	health.loader_cpu_s = c->self_now.loader_cpu_s;
	health.loader_rss_bytes = c->self_now.loader_rss_kib * 1024;
	c->report->processes = &c->window;
	ret = render_exposition(&c->exposition, c->report, c->series, &health, openmetrics);
	series_exposed(c->series, rendered); /* every count read so far is in it */
	c->expositions++;
	c->last_duration_s = monotonic_now() - began;
	return ret;
}

/* Print a record to standard output, or put it in --output's file. */
static int emit(struct collector *c, struct output_file *file, struct fs_report *report,
		struct process_table *table)
{
	const struct fs_options *opts = c->opts;
	FILE *out = stdout;
	int ret;

	clock_gettime(CLOCK_REALTIME, &report->end);
	process_table_rank(table);
	report->processes = table;
	report->nr_shown =
	    opts->top && (size_t)opts->top < table->nr ? (size_t)opts->top : table->nr;
	if (opts->format == FS_FORMAT_PROMETHEUS && make_exposition(c, false, monotonic_now())) {
		errno = ENOMEM;
		return -1;
	}
	if (opts->files) {
		ret = file_table_summarize(&c->files, (size_t)opts->top, "/proc/self/mountinfo",
					   &c->file_summary);
		if (ret) {
			errno = -ret;
			return -1;
		}
		report->files = &c->file_summary;
	}
	if (file && !(out = output_file_begin(file)))
		return -1;
	if (opts->format == FS_FORMAT_PROMETHEUS)
		ret = fwrite(c->exposition.text, 1, c->exposition.len, out) != c->exposition.len ||
			      fflush(out) == EOF
			  ? -1
			  : 0;
	else
		ret = opts->json ? render_json(out, report) : render_table(out, report);
	if (file) {
		int saved = errno;

		/* A record that failed to render never replaces the last good one. */
		if (ret) {
			output_file_discard(file);
			errno = saved;
		} else {
			ret = output_file_commit(file);
		}
	}
	return ret;
}

/* Output errors end the run: quietly when the reader went away, loudly otherwise. */
static int output_failed(const struct fs_options *opts, char *err, size_t err_len)
{
	if (errno == EPIPE && !opts->output)
		return 0;
	if (opts->output)
		snprintf(err, err_len, "failed to write '%s': %s", opts->output, strerror(errno));
	else
		snprintf(err, err_len, "failed to write output: %s", strerror(errno));
	return -1;
}

/* Which probe each single figure of the report needs (the others are set in report_measured()). */
#define MEASURED_BY(field, probe)                        \
	{                                                \
		offsetof(struct fs_report, field), probe \
	}
static const struct {
	size_t offset; /* of a bool in struct fs_report */
	enum fs_probe probe;
} measured_by[] = {
    MEASURED_BY(measured[HIST_PAGECACHE], PROBE_PAGECACHE_ADD),
    MEASURED_BY(free_measured, PROBE_PAGE_FREE),
    MEASURED_BY(faults_measured[FS_FAULT_FILE], PROBE_FAULT_FILE),
    MEASURED_BY(faults_measured[FS_FAULT_MAJOR], PROBE_FAULT_MAJOR),
    MEASURED_BY(faults_measured[FS_FAULT_MINOR], PROBE_FAULT_MINOR),
    MEASURED_BY(thp_fault_alloc_measured, PROBE_MEMCG_EVENTS),
    MEASURED_BY(compaction_by_order_measured, PROBE_COMPACTION_REQUEST),
    MEASURED_BY(thp_measured[FS_THP_COLLAPSE], PROBE_THP_COLLAPSE),
    MEASURED_BY(thp_measured[FS_THP_COLLAPSE_FILE], PROBE_THP_COLLAPSE_FILE),
    MEASURED_BY(thp_measured[FS_THP_SCAN], PROBE_THP_SCAN),
    MEASURED_BY(thp_measured[FS_THP_SCAN_FILE], PROBE_THP_SCAN_FILE),
    MEASURED_BY(stall_measured[FS_STALL_COMPACTION], PROBE_COMPACTION_BEGIN),
    MEASURED_BY(stall_measured[FS_STALL_DIRECT_RECLAIM], PROBE_DIRECT_RECLAIM_BEGIN),
    MEASURED_BY(stall_measured[FS_STALL_MEMCG_RECLAIM], PROBE_MEMCG_RECLAIM_BEGIN),
    MEASURED_BY(vmscan_measured[FS_VMSCAN_SCANNED], PROBE_LRU_ISOLATE),
    MEASURED_BY(vmscan_measured[FS_VMSCAN_RECLAIMED], PROBE_SHRINK_INACTIVE),
    MEASURED_BY(vmscan_measured[FS_VMSCAN_DEACTIVATED], PROBE_SHRINK_ACTIVE),
    MEASURED_BY(vmscan_measured[FS_VMSCAN_KSWAPD_WAKES], PROBE_KSWAPD_WAKE),
    MEASURED_BY(vmscan_measured[FS_VMSCAN_WRITTEN], PROBE_RECLAIM_WRITE),
    MEASURED_BY(tlb_measured, PROBE_TLB_FLUSH),
    MEASURED_BY(lru_insert_measured, PROBE_LRU_INSERT),
    MEASURED_BY(lru_activate_measured, PROBE_LRU_ACTIVATE),
};

/* Which figures the attached probes measure: the others are reported as null. */
static void report_measured(struct fs_report *report, const struct loader *loader)
{
	const struct probe_status *p = loader->probes;
	bool by_mode = p[PROBE_FAULT_EVENT].attached; /* mode only, user and kernel */
	bool user_faults = p[PROBE_FAULT_USER].attached;
	bool kernel_faults = p[PROBE_FAULT_KERNEL].attached;

	report->probes = loader->probes;
	report->nr_probes = NR_PROBES;
	for (size_t i = 0; i < sizeof(measured_by) / sizeof(measured_by[0]); i++)
		*(bool *)((char *)report + measured_by[i].offset) =
		    p[measured_by[i].probe].attached;
	/* Allocations are always measured: their probe is required. */
	report->measured[HIST_ALLOC] = true;
	report->measured[HIST_ALLOC_MOVABLE] = true;
	report->measured[HIST_ALLOC_KERNEL] = true;
	report->measured[HIST_ALLOC_FAILED] = true;
	/* A discard is a free before an LRU insertion: both must be seen. */
	report->measured[HIST_DISCARDED] =
	    p[PROBE_PAGE_FREE].attached && p[PROBE_LRU_INSERT].attached;
	/* The breakdown by access and cause covers both modes, so it needs both tracepoints;
	 * perf's page-fault event tells the mode only (FS_FAULT_KIND_MODE_ONLY). */
	for (int f = FS_FAULT_READ; f <= FS_FAULT_PROTECTION; f++)
		report->faults_measured[f] = user_faults && kernel_faults;
	report->faults_measured[FS_FAULT_USER] = user_faults || by_mode;
	report->faults_measured[FS_FAULT_KERNEL] = kernel_faults || by_mode;
	for (int m = 0; m < FS_NR_MIGRATE_COUNTERS; m++)
		report->migrate_measured[m] = p[PROBE_MIGRATE].attached;
	report->migrate_measured[FS_MIGRATE_LARGE_FOLIO_SPLIT] &= loader->migrate_large_split;
	report->scan_names = loader->scan_names;
	report->tlb_names = loader->tlb_names;
	report->tlb_known = loader->tlb_known;
	report->lru_names = loader->lru_names;
	report->lru_known = loader->lru_known;
	report->mglru = host_mglru_enabled();
	report->attribution = attribution_name(loader->facts.attribution);
}

/* The store's questions (series.h): a cgroup's path, and whether a group's cgroup or process
 * is gone. */
static const char *series_cgroup_path(__u64 cgroup, void *ctx)
{
	struct collector *c = ctx;

	return cgroup_name(&c->cgroup_names, cgroup);
}

static bool series_group_gone(const struct series_group *g, void *ctx)
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
	struct timespec now;

	c->series = malloc(sizeof(*c->series));
	if (!c->series) {
		snprintf(err, err_len, "failed to allocate: %s", strerror(ENOMEM));
		return -1;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	c->start_time = now.tv_sec + now.tv_nsec / 1e9;
	series_init(c->series, c->opts, series_cgroup_path, series_group_gone, c, monotonic_now());
	return 0;
}

static void collector_close(struct collector *c)
{
	if (c->series) {
		series_free(c->series);
		free(c->series);
		c->series = NULL;
	}
	exposition_free(&c->exposition);
	file_summary_free(&c->file_summary);
	file_table_close(&c->files);
	cgroup_names_close(&c->cgroup_names);
	process_table_free(&c->window);
	kernel_counters_free(&c->kernel_before);
	kernel_counters_free(&c->kernel_now);
	kernel_counters_free(&c->kernel_window);
	snapshot_free(&c->read);
	reader_close(&c->reader);
	kernel_counter_files_close(&c->kernel_files);
}

/*
 * Take the starting points of everything read from outside the maps (the kernel's THP
 * counters, the BPF run-time statistics), so that the first window has a "before". This is
 * done before start-up ends (privileges dropped): from then on every figure counts everything.
 */
static int collector_open(struct collector *c, struct loader *loader, const struct fs_options *opts,
			  char *err, size_t err_len)
{
	int ret;

	*c = (struct collector){.loader = loader, .opts = opts, .row_opts = *opts};
	if (opts->by != FS_BY_PROCESS) {
		c->row_opts.nr_pids = 0;
		c->row_opts.comm = NULL;
	}
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
static void report_prepare(struct fs_report *report, struct collector *c, struct host_info *host)
{
	report_measured(report, c->loader);
	host_info_read(host);
	report->host = host;
	report->cgroup_names = &c->cgroup_names;
	report->by = c->opts->by;
	c->report = report;
}

/* --listen: the read of the maps that the scrapes waiting share (http_server.h). */
static int scrape_read(void *ctx)
{
	struct collector *c = ctx;
	char err[256];

	c->scrape_began = monotonic_now();
	if (collect_window(c, 0, err, sizeof(err)))
		return -1;
	if (process_table_shrink(&c->window))
		malloc_trim(0);
	return 0;
}

/* --listen: the counts since the start, as of the last read, in a scrape's format. */
static int scrape_render(void *ctx, bool openmetrics, const char **text, size_t *len)
{
	struct collector *c = ctx;

	if (make_exposition(c, openmetrics, c->scrape_began))
		return -1;
	*text = c->exposition.text;
	*len = c->exposition.len;
	return 0;
}

/*
 * --listen: serve scrapes until SIGINT/SIGTERM (or --duration), reading the maps by itself
 * whenever no scrape has for ENDPOINT_TICK_S, so that exited threads leave the tables and no
 * 32-bit count can wrap however rarely Prometheus comes.
 */
static int run_endpoint(struct collector *c, struct http_server *server, char *err, size_t err_len)
{
	const struct fs_options *opts = c->opts;
	struct fs_report report = {0};
	struct host_info host;
	double start = monotonic_now();
	double end = opts->duration_s ? start + opts->duration_s : 0;

	report_prepare(&report, c, &host);
	c->last_read = start;
	for (;;) {
		double next = c->last_read + ENDPOINT_TICK_S, now = monotonic_now();
		double until = end && end < next ? end : next;
		int server_ms = http_server_timeout_ms(server);
		int events;

		if (server_ms >= 0 && now + server_ms / 1000.0 < until)
			until = now + server_ms / 1000.0;
		events = event_loop_wait(c->loop, http_server_fd(server), until);
		if (events < 0) {
			snprintf(err, err_len, "failed to wait for scrapes: %s", strerror(errno));
			return -1;
		}
		if (events & LOOP_STOP)
			break;
		http_server_run(server);
		now = monotonic_now();
		if (end && now >= end)
			break;
		if (now >= c->last_read + ENDPOINT_TICK_S) {
			if (collect_window(c, 0, err, err_len))
				return -1;
			if (process_table_shrink(&c->window))
				malloc_trim(0);
		}
	}
	return 0;
}

/* Wait until monotonic `until`; *last: the run ends now (a stop request, the command's end). */
static int wait_tick(struct collector *c, double until, bool *last, char *err, size_t err_len)
{
	for (;;) {
		int events = event_loop_wait(c->loop, -1, until);

		if (events < 0) {
			snprintf(err, err_len, "failed to wait: %s", strerror(errno));
			return -1;
		}
		*last = (events & LOOP_STOP) || (c->command && command_reap(c->command));
		if (*last || !events)
			return 0;
	}
}

/* The collection loop: a read every tick, a record every INTERVAL (or one at the end). */
static int run(struct collector *c, struct output_file *file, char *err, size_t err_len)
{
	const struct fs_options *opts = c->opts;
	struct process_table total = {0};
	struct fs_report report = {0};
	struct kernel_counters kernel_total = {0};
	struct self_cost self_total = {0};
	struct host_info host;
	bool streaming = opts->interval_s > 0;
	/* Reads per record (0: one record at the end): one, unless the interval is long. */
	int per_record = 0;
	double tick = ONE_SHOT_TICK_S;
	double start = monotonic_now(), window_start = start, next = start;
	long records = 0;
	int in_record = 0;
	int ret = 0;

	report_prepare(&report, c, &host);
	if (streaming) {
		for (per_record = 1; opts->interval_s / per_record > MAX_READ_PERIOD_S;
		     per_record++)
			;
		tick = opts->interval_s / per_record;
	}
	if (opts->format == FS_FORMAT_TABLE && !c->command)
		fprintf(stderr, "foliostat: tracing folio activity%s; Ctrl-C to end\n",
			streaming ? "" : ", summary at the end");

	while (!ret) {
		double end = opts->duration_s ? start + opts->duration_s : 0;
		bool last, record_done;

		next += tick;
		ret = wait_tick(c, end && end < next ? end : next, &last, err, err_len);
		if (ret)
			break;
		last = last || (end && monotonic_now() >= end);
		/* A record of one read needs rows for the processes it shows only. */
		ret = collect_window(c, per_record == 1 && !c->series ? (size_t)opts->top : 0, err,
				     err_len);
		if (ret)
			break;
		record_done = last || (per_record && ++in_record == per_record);
		if (c->series) {
			/* The counts since the start are the store's: nothing to sum here. */
		} else if (per_record == 1) {
			report.system = c->read.system;
			report.kernel = &c->kernel_window;
			report.self = opts->self ? &c->self_window : NULL;
		} else {
			words_add_system(&report.system, &c->read.system);
			report.kernel = &kernel_total;
			self_accumulate(&self_total, &c->self_window);
			report.self = opts->self ? &self_total : NULL;
			if (process_table_accumulate(&total, &c->window, (size_t)opts->max_tasks) ||
			    kernel_counters_accumulate(&kernel_total, &c->kernel_window)) {
				snprintf(err, err_len, "failed to aggregate: %s", strerror(ENOMEM));
				ret = -1;
				break;
			}
		}
		if (record_done) {
			double now = monotonic_now();

			report.interval_s = now - window_start;
			window_start = now;
			if (emit(c, file, &report, per_record == 1 ? &c->window : &total)) {
				ret = output_failed(opts, err, err_len);
				break;
			}
			last = last || (streaming && opts->count && ++records >= opts->count);
			/* The next record starts from nothing. */
			in_record = 0;
			file_table_clear(&c->files);
			process_table_free(&total);
			kernel_counters_free(&kernel_total);
			memset(&report.system, 0, sizeof(report.system));
			memset(&self_total, 0, sizeof(self_total));
		}
		if (process_table_shrink(&c->window))
			malloc_trim(0);
		if (last)
			break;
	}
	process_table_free(&total);
	kernel_counters_free(&kernel_total);
	return ret;
}

/*
 * -p compares pids as the kernel's tracepoints see them, in the initial PID namespace. Inside
 * another one (a container), foliostat's pids are not those: say so rather than match nothing,
 * or the wrong process.
 */
static int pids_comparable(const struct loader *loader, const struct fs_options *opts, char *err,
			   size_t err_len)
{
	if ((!opts->nr_pids && !opts->command) || !loader->facts.pid_namespaced)
		return 0;
	snprintf(err, err_len,
		 "failed to %s: foliostat runs in a PID namespace (it is pid "
		 "%d here, %u to the kernel's tracepoints), and %s the kernel's pids; run it "
		 "in the host's PID namespace (e.g. nsenter -t 1 -p)",
		 opts->command ? "follow the command" : "select processes by pid", (int)getpid(),
		 (unsigned)(loader->facts.own_key >> 32),
		 opts->command ? "following takes" : "-p takes");
	return -1;
}

/* --cgroup's paths, found on the host: 0, or the exit code with a message in err (2 for a path
 * that is no cgroup2 directory, 1 for a host without cgroup2). */
static int find_cgroups(struct fs_options *opts, char *err, size_t err_len)
{
	char mount[4096];
	int ret = cgroup2_mount(mount, sizeof(mount));

	if (ret) {
		snprintf(err, err_len,
			 "failed to find the cgroup v2 hierarchy in /proc/self/mountinfo: %s "
			 "(--cgroup needs it mounted)",
			 strerror(-ret));
		return 1;
	}
	for (int i = 0; i < opts->nr_cgroups; i++)
		if (cgroup_resolve(mount, opts->cgroups[i], &opts->cgroup_refs[i], err, err_len))
			return 2;
	return 0;
}

/* The end of a run with -- COMMAND: the command's exit code once it has exited (waiting for it
 * if foliostat's output ended first, passing stop signals on meanwhile), 1 if foliostat failed. */
static int command_outcome(struct event_loop *loop, struct command *cmd, int ret)
{
	if (ret) {
		command_abandon(cmd); /* one never started must not wait for good */
		return 1;
	}
	while (!command_reap(cmd))
		if (event_loop_wait(loop, -1, -1) < 0)
			return 1;
	return command_exit_code(cmd);
}

/* Start-up, the part of it that blocks for seconds: see start_up(). */
struct start_up {
	struct loader *loader;
	const struct fs_options *opts;
	struct collector *collector;
	struct output_file *file;
	struct event_loop *loop;
	pid_t command;
	int stats_fd;			    /* --self's (0: off) */
	struct privileges_after privileges; /* what the run kept after start-up */
	int ret;
	char err[512];
	bool loaded, collecting; /* what there is to undo */
};

static void start_collection(void *arg)
{
	struct start_up *s = arg;
	int ret;

	if (loader_start(s->loader, s->opts, s->err, sizeof(s->err))) {
		s->ret = -1;
		return;
	}
	s->loaded = true;
	s->loader->stats_fd = s->stats_fd;
	ret = pids_comparable(s->loader, s->opts, s->err, sizeof(s->err));
	if (!ret && s->command > 0 && (ret = loader_follow(s->loader, s->command)))
		snprintf(s->err, sizeof(s->err), "failed to follow the command: %s",
			 strerror(-ret));
	if (!ret)
		ret = collector_open(s->collector, s->loader, s->opts, s->err, sizeof(s->err));
	s->collecting = !ret;
	s->collector->loop = s->loop;
	s->ret = ret ? -1 : 0;
}

/*
 * Load, attach and open everything, then drop privileges and let the command run. Loading and
 * verifying the programs takes seconds in calls no signal interrupts, so it runs aside while
 * the loop waits: a stop request meanwhile ends foliostat at once (exit status 0, no record: it
 * counted nothing), and so does the command's death (a signal passed on to it, a Ctrl-C), with
 * its status; the kernel frees what the unfinished start-up held. Returns 0, -1 with a message
 * in err, or the exit status of a command that never ran.
 */
static int start_up(struct event_loop *loop, struct start_up *s, struct command *command, char *err,
		    size_t err_len)
{
	struct aside aside;
	int ret, events = 0;

	s->loop = loop;
	s->command = command->pid;
	ret = aside_start(&aside, start_collection, s);
	if (ret) {
		snprintf(err, err_len, "failed to start a thread: %s", strerror(-ret));
		return -1;
	}
	while (!(events & LOOP_FD)) {
		int status = 0;

		events = event_loop_wait(loop, aside.done_fd, -1);
		if (events < 0) {
			fprintf(stderr, "foliostat: failed to wait for start-up: %s\n",
				strerror(errno));
			status = 1;
		}
		if (events < 0 || (events & LOOP_STOP)) {
			command_abandon(command);
			fflush(NULL);
			_exit(status);
		}
		if (s->command > 0 && (events & LOOP_CHILD) && command_reap(command)) {
			ret = command_lost(command, err, err_len);
			fprintf(stderr, "foliostat: %s\n", err);
			fflush(NULL);
			_exit(ret);
		}
	}
	aside_join(&aside);
	if (s->ret) {
		snprintf(err, err_len, "%s", s->err);
		return -1;
	}
	/* CPUs brought online later need perf events opened with a privilege the drop takes away:
	 * a process of its own keeps it (without it they are not counted: the run goes on). */
	loader_start_opener(s->loader);
	/* The last step of start-up: from here on, everything is counted. */
	if (drop_privileges(s->loader, s->opts, s->file->dir_fd, &s->privileges, err, err_len))
		return -1;
	/* Records are written without privileges: try one now, not after a whole run. */
	if (s->opts->output && output_file_try(s->file, err, err_len))
		return -1;
#ifdef FOLIOSTAT_TEST_HOOKS
	if (s->opts->test_escape)
		test_escape(s->opts->test_escape);
#endif
	if (s->command > 0) {
		s->collector->command = command;
		ret = command_start(command, err, err_len);
		if (ret)
			return ret; /* not run at all, as a shell would say (127, 126): no record */
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct fs_options opts;
	struct command command = {.pid = -1, .go_fd = -1, .exec_fd = -1};
	struct loader loader;
	struct output_file file = {.dir_fd = -1};
	struct collector collector;
	struct http_server server = {.listen_fd = -1};
	struct event_loop loop;
	struct start_up start = {
	    .loader = &loader, .opts = &opts, .collector = &collector, .file = &file};
	char err[512] = "";
	int status = 1;
	int ret;

	/* The tables are large arrays that grow and shrink with the processes on the host: keep
	 * them in mappings of their own, given back whole when freed. (glibc would otherwise raise
	 * its threshold after the first such free and carve them from the heap, where a churn of
	 * processes leaves holes that stay resident.) */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);

	switch (parse_options(argc, argv, &opts, err, sizeof(err), stdout)) {
	case FS_PARSE_EXIT:
		return 0;
	case FS_PARSE_USAGE:
		fprintf(stderr, "foliostat: %s\n", err);
		fprintf(stderr,
			"Usage: foliostat [OPTIONS] [INTERVAL [COUNT]] [-- COMMAND [ARGS...]]; "
			"see foliostat --help\n");
		return 2;
	case FS_PARSE_RUN:
		break;
	}
	/* A PID filter that matches nothing is almost surely a typo: say so rather than report
	 * an empty table. Each is the process that has the pid now, not one that takes it
	 * later (pid_started_before). */
	for (int i = 0; i < opts.nr_pids; i++) {
		unsigned long long ticks;

		if (kill(opts.pids[i], 0) && errno == ESRCH) {
			fprintf(stderr, "foliostat: failed to find process %d: %s\n", opts.pids[i],
				strerror(errno));
			return 1;
		}
		if (!process_start_ticks(opts.pids[i], &ticks))
			opts.pid_started_before[i] = (ticks + 1) * clock_tick_ns();
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (opts.check)
		return run_check(&opts);
	if (opts.nr_cgroups) {
		ret = find_cgroups(&opts, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "foliostat: %s\n", err);
			return ret;
		}
	}
	/* From here on a signal is caught for the loop, whatever foliostat is doing. Before, a
	 * signal's default ends foliostat with nothing started. */
	ret = event_loop_open(&loop, opts.command != NULL);
	if (ret) {
		fprintf(stderr, "foliostat: failed to install signal handlers: %s\n",
			strerror(-ret));
		return 1;
	}
	/* The command first, waiting, with foliostat's signal dispositions and mask as they were
	 * given and none of its files: it execs once followed, when start-up is done. */
	if (opts.command) {
		if (command_prepare(&command, opts.command, &loop, err, sizeof(err)))
			goto fail;
		event_loop_set_command(&loop, command.pid);
	}
	/* Before anything is loaded: a missing directory is a quick error. */
	if (opts.output && output_file_open(&file, opts.output, err, sizeof(err)))
		goto fail;
	/* Likewise a port in use, or a web config that is not right; and a port below 1024 and a
	 * key only root reads need the privileges dropped later. (Nothing is served before the
	 * collector is open: run_endpoint.) */
	if (opts.listen && (ret = http_server_open(&server, &opts, scrape_read, scrape_render,
						   &collector, err, sizeof(err)))) {
		status = ret;
		goto fail;
	}
	if (opts.self && (start.stats_fd = self_start()) < 0) {
		snprintf(err, sizeof(err), "failed to enable BPF run-time statistics: %s",
			 strerror(-start.stats_fd));
		start.stats_fd = 0;
		goto fail;
	}
	ret = start_up(&loop, &start, &command, err, sizeof(err));
	if (ret > 0) {
		status = ret; /* the command could not run or did not live to: no record */
		goto fail;
	}
	if (ret)
		goto fail;
	if (opts.listen)
		ret = run_endpoint(&collector, &server, err, sizeof(err));
	else
		ret = run(&collector, opts.output ? &file : NULL, err, sizeof(err));
	if (!ret)
		status = 0;
fail:
	/* The one way out: what start-up and the run left, undone in reverse. */
	if (start.collecting)
		collector_close(&collector);
	http_server_stop(&server);
	if (start.loaded) {
		self_stop(&loader);
		loader_stop(&loader);
	} else if (start.stats_fd > 0) {
		close(start.stats_fd);
	}
	output_file_close(&file);
	if (status && *err)
		fprintf(stderr, "foliostat: %s\n", err);
	/* (A status above 1 is the command's already: it never ran.) */
	if (opts.command && status <= 1)
		status = command_outcome(&loop, &command, status);
	event_loop_close(&loop);
	return status;
}
