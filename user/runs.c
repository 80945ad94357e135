// SPDX-License-Identifier: GPL-2.0
/*
 * The two kinds of run, once started up: records (a read every tick, a record every INTERVAL or
 * one at the end, to standard output or --output's file) and the --listen endpoint (scrapes,
 * and a read by itself when none comes). See runs.h.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "row_columns.h"
#include "runs.h"

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

/* Colours for a person at a terminal only: never in a pipe or a file, nor where NO_COLOR is
 * set (https://no-color.org) or the terminal is "dumb". */
static bool wants_colour(FILE *out)
{
	const char *no_colour = getenv("NO_COLOR"), *term = getenv("TERM");

	return isatty(fileno(out)) && !(no_colour && *no_colour) &&
	       !(term && !strcmp(term, "dumb"));
}

/* Lines between two lines of headings on a terminal, as vmstat(8) repeats them. */
#define LINES_PER_HEADER 20

/*
 * Streaming in table mode: the record's line, under a line of headings at the start (of the
 * output, or of each --replace file) and, on a terminal, every LINES_PER_HEADER lines.
 */
static int emit_line(FILE *out, const struct output_file *file, const struct fs_report *report)
{
	static unsigned long lines;

	if (!lines || (file && !file->append) ||
	    (!file && !(lines % LINES_PER_HEADER) && isatty(fileno(out))))
		render_line_header(out, report);
	lines++;
	return render_line(out, report);
}

/* Print a record to standard output, or put it in --output's file. */
static int emit(struct collector *c, struct output_file *file, struct fs_report *report,
		struct row_table *table)
{
	const struct fs_options *opts = c->opts;
	FILE *out = stdout;
	int ret;

	clock_gettime(CLOCK_REALTIME, &report->end);
	report->colour = !file && wants_colour(stdout);
	report->rows = table;
	report->nr_shown =
	    opts->top && (size_t)opts->top < table->nr ? (size_t)opts->top : table->nr;
	if (rank_rows(table, opts->sort, report->nr_shown)) {
		errno = ENOMEM;
		return -1;
	}
	if (opts->format == FS_FORMAT_PROMETHEUS && collector_expose(c, false, event_loop_now())) {
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
	else if (opts->json)
		ret = render_json(out, report);
	else if (opts->interval_s > 0 && !opts->full)
		ret = emit_line(out, file, report);
	else
		ret = render_table(out, report);
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

/* --listen: the read of the maps that the scrapes waiting share (http_server.h). */
int scrape_read(void *ctx)
{
	struct collector *c = ctx;
	char err[256];

	c->scrape_began = event_loop_now();
	if (collector_read(c, 0, err, sizeof(err)))
		return -1;
	if (row_table_shrink(&c->window))
		malloc_trim(0);
	return 0;
}

/* --listen: the counts since the start, as of the last read, in a scrape's format. */
int scrape_render(void *ctx, bool openmetrics, const char **text, size_t *len)
{
	struct collector *c = ctx;

	if (collector_expose(c, openmetrics, c->scrape_began))
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
int run_endpoint(struct collector *c, struct http_server *server, char *err, size_t err_len)
{
	const struct fs_options *opts = c->opts;
	struct fs_report report = {0};
	struct host_info host;
	double start = event_loop_now();
	double end = opts->duration_s ? start + opts->duration_s : 0;

	collector_report_init(&report, c, &host);
	if (collector_resident_start(c, err, err_len))
		return -1;
	c->last_read = start;
	for (;;) {
		double next = c->last_read + ENDPOINT_TICK_S, now = event_loop_now();
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
		/* (an exporter asked for --resident that cannot read any says why and ends) */
		if (collector_resident_failed(c, err, err_len))
			return -1;
		http_server_run(server);
		now = event_loop_now();
		if (end && now >= end)
			break;
		if (now >= c->last_read + ENDPOINT_TICK_S) {
			if (collector_read(c, 0, err, err_len))
				return -1;
			if (row_table_shrink(&c->window))
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
int run_records(struct collector *c, struct output_file *file, char *err, size_t err_len)
{
	const struct fs_options *opts = c->opts;
	struct row_table total = {0};
	struct fs_report report = {0};
	struct kernel_counters kernel_total = {0};
	struct self_cost self_total = {0};
	struct host_info host;
	bool streaming = opts->interval_s > 0;
	/* Reads per record (0: one record at the end): one, unless the interval is long. */
	int per_record = 0;
	double tick = ONE_SHOT_TICK_S;
	double start = event_loop_now(), window_start = start, next = start;
	long records = 0;
	int in_record = 0;
	int ret = 0;

	collector_report_init(&report, c, &host);
	if (collector_resident_start(c, err, err_len))
		return -1;
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
		last = last || (end && event_loop_now() >= end);
		/* A record of one read needs rows for the processes it shows only: the most
		 * active, when that is what ranks them (other keys need every row summed). */
		ret = collector_read(c,
				     per_record == 1 && !c->series && opts->sort == FS_SORT_EVENTS
					 ? (size_t)opts->top
					 : 0,
				     err, err_len);
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
			if (row_table_accumulate(&total, &c->window, (size_t)opts->max_tasks) ||
			    kernel_counters_accumulate(&kernel_total, &c->kernel_window)) {
				snprintf(err, err_len, "failed to aggregate: %s", strerror(ENOMEM));
				ret = -1;
				break;
			}
		}
		if (record_done) {
			double now;

			/* (first: its read of pagetypeinfo takes milliseconds, which are the
			 * window's, not a gap between its end and the record's time) */
			collector_free_blocks_record(c);
			now = event_loop_now();
			report.interval_s = now - window_start;
			window_start = now;
			if (opts->resident && (ret = collector_resident(c, err, err_len)))
				break;
			if (emit(c, file, &report, per_record == 1 ? &c->window : &total)) {
				ret = output_failed(opts, err, err_len);
				break;
			}
			if (c->free_on)
				free_blocks_window_begin(&c->free);
			last = last || (streaming && opts->count && ++records >= opts->count);
			/* The next record starts from nothing. */
			in_record = 0;
			file_table_clear(&c->files);
			row_table_free(&total);
			kernel_counters_free(&kernel_total);
			memset(&report.system, 0, sizeof(report.system));
			memset(&self_total, 0, sizeof(self_total));
		}
		if (row_table_shrink(&c->window))
			malloc_trim(0);
		if (last)
			break;
	}
	row_table_free(&total);
	kernel_counters_free(&kernel_total);
	return ret;
}
