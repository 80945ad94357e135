/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collector: what a run reads (the BPF maps, the kernel's THP counters, --self's
 * statistics, --files' table) and keeps between reads (the last read, the window of processes,
 * the exporter's series), and the report every record is rendered from. It drives every layer
 * below it (collect/, resident/, group/, output/), each with settings of its own made from the
 * options (cli/settings.h), and so sits at the top of user/ beside runs.c.
 */
#ifndef FS_COLLECTOR_H
#define FS_COLLECTOR_H

#include <stdbool.h>
#include <linux/types.h>

#include "cgroup_names.h"
#include "command.h"
#include "counters.h"
#include "event_loop.h"
#include "exposition.h"
#include "file_table.h"
#include "free_blocks.h"
#include "kernel_counters.h"
#include "loader.h"
#include "options.h"
#include "report.h"
#include "resident_report.h"
#include "resident_sweep.h"
#include "self.h"
#include "series.h"
#include "snapshot.h"
#include "row_table.h"

struct collector {
	struct loader *loader;
	const struct fs_options *opts;
	struct event_loop *loop;	 /* every wait */
	struct command *command;	 /* -- COMMAND: the run ends when it exits */
	struct process_filter selection; /* -p, -n */
	/* What the window selects rows with: the selection, or for --by cgroup/comm no filter (-p
	 * and -n select processes before their counts are regrouped: regroup.h). */
	struct process_filter row_filter;
	struct cgroup_names cgroup_names; /* the rows' cgroups by name */
	struct reader reader;		  /* the maps, and what they held at the last read */
	struct snapshot read;		  /* the last read */
	struct row_table window;
	struct kernel_counter_files kernel_files;
	struct kernel_counters kernel_before, kernel_now, kernel_window;
	/* Free memory by block size (free_blocks.h): sampled at every read; off where
	 * /proc/buddyinfo cannot be read (records say null). */
	bool free_on;
	struct free_blocks free;
	struct self_cost self_before, self_now, self_window; /* --self */
	/* --format prometheus and --listen: counts since the start, and their text. */
	struct series_store *series;
	struct exposition exposition;
	/* --files: the record's files so far, and what the record shows of them. */
	struct file_table files;
	struct file_summary file_summary;
	/* --resident: the opener and host it reads through, the sweep that reads while records
	 * stream and scrapes come, and what the record or exposition shows. */
	bool resident_on;
	struct resident_settings resident_settings;
	struct resident_scanner resident;
	struct resident_sweep resident_sweep;
	struct resident_report resident_report;
	struct fs_report *report;
	double start_time;	/* Unix seconds */
	__u64 expositions;	/* made so far */
	double last_duration_s; /* how long the last one took */
	double last_read;	/* monotonic seconds of the last read of the maps */
	double scrape_began;	/* --listen: when the scrapes' last read began */
	bool cpus_refused_said; /* the warning that a CPU brought online went uncounted, once */
};

/*
 * Open what is read from outside the maps, and take its starting points, so that the first
 * window has a "before" (see collector.c). Returns 0, or -1 with a message in err.
 */
int collector_open(struct collector *c, struct loader *loader, const struct fs_options *opts,
		   char *err, size_t err_len);
void collector_close(struct collector *c);

/* Read the maps: what happened since the last read, with rows for the `keep` most active
 * processes (0: all). Returns 0, or -1 with a message in err. */
int collector_read(struct collector *c, size_t keep, char *err, size_t err_len);

/* The exposition of the counts since the start, into c->exposition; `began`: when the work for
 * it began (a scrape's read of the maps included). Returns 0, -ENOMEM, or -1 when --resident's
 * readings cannot be taken (collector_resident_failed() says why). */
int collector_expose(struct collector *c, bool openmetrics, double began);

/* --resident: start reading what memory holds, within its budget, when records stream or
 * scrapes come (a one-shot run reads it all at the end). Returns 0, or -1 with a message. */
int collector_resident_start(struct collector *c, char *err, size_t err_len);
/* --resident: what memory holds, into c->resident_report and the report (its rows shown under
 * --top): all read now in a one-shot run, the sweep's last readings otherwise. Returns 0, or
 * -1 with a message in err. */
int collector_resident(struct collector *c, char *err, size_t err_len);
/* --resident's sweep ended before it read a process, and none will be: -1 with why in err (the
 * run then ends, as a run whose records cannot say what memory holds), else 0. */
int collector_resident_failed(struct collector *c, char *err, size_t err_len);

/* A record is made (or a scrape answered) now: free memory by block size sampled once more,
 * by migrate type too. */
void collector_free_blocks_record(struct collector *c);

/* What every record says beside its counts (probes, which figures they measure, names, host),
 * into `report`, which the collector's expositions use from then on. */
void collector_report_init(struct fs_report *report, struct collector *c, struct host_info *host);

#endif
