/* SPDX-License-Identifier: GPL-2.0 */
/* Command-line options: what the user asked for, parsed and validated. */
#ifndef FS_OPTIONS_H
#define FS_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <linux/types.h>

#include "files.h"
#include "foliostat.h"
#include "rows.h"

#define FS_MAX_PID_FILTERS 64
#define FS_MAX_CGROUP_FILTERS 8 /* FS_MAX_CGROUPS */
#define FS_DEFAULT_TOP 20
/* --resident while records stream or scrapes come: the share of one CPU its reads may take
 * (percent), and, with --listen, how often a pass over the processes may start at most. */
#define FS_DEFAULT_RESIDENT_BUDGET 2.0
#define FS_RESIDENT_LISTEN_PERIOD_S 10.0

/* The port --listen takes without one (foliostat(8): outside the range of Prometheus's
 * exporter ports, which is all given out, and no well-known service's). */
#define FS_DEFAULT_LISTEN_PORT 10140

/* How records are written: tables, NDJSON, or the Prometheus exposition (counts since start). */
enum fs_format { FS_FORMAT_TABLE, FS_FORMAT_JSON, FS_FORMAT_PROMETHEUS };
extern const char *const fs_format_names[]; /* "table", "json", "prometheus" */

struct fs_options {
	double interval_s; /* 0: one-shot summary; > 0: streaming */
	long count;	   /* records to print in streaming mode; 0: unlimited */
	double duration_s; /* one-shot: stop after this long; 0: until a signal */
	bool json;	   /* format == FS_FORMAT_JSON */
	enum fs_format format;
	bool verbose;
	pid_t pids[FS_MAX_PID_FILTERS];
	int nr_pids;
	/* -p's processes are those that had the pids at start-up: each one started before this
	 * (ns since boot, the end of the clock tick /proc/PID/stat gave then: main.c), not a
	 * later one that took the pid after it exited; 0: any with the pid. */
	__u64 pid_started_before[FS_MAX_PID_FILTERS];
	const char *comm;    /* only processes with exactly this name */
	long top;	     /* at most this many processes per record; 0: all */
	long max_tasks;	     /* capacity of the BPF task table (threads) */
	bool self;	     /* report foliostat's own cost in each record */
	bool files;	     /* --files: page-cache additions per file and file system */
	long max_files;	     /* --max-files: files a read, and a record, keeps at most */
	bool resident;	     /* --resident: what memory holds (resident_report.h) */
	bool check;	     /* only report what this host offers, then exit */
	const char *output;  /* write each record to this file (-o, --replace); NULL: stdout */
	bool replace;	     /* --replace: each record replaces the file; -o appends */
	/* --output-mode: the exact mode of the file -o creates or --replace writes; -1: the
	 * default, 0600 for -o (records name other users' processes, cgroups and files) and 0644
	 * for --replace (node_exporter's textfile collector reads it as another user), less the
	 * umask's bits */
	int output_mode;
	enum fs_row_kind by; /* --by (cgroup by default when exporting) */
	enum fs_sort sort;   /* --sort */
	bool full;	     /* --full: streaming in table mode prints whole tables, not lines */
	/* --listen [ADDR:]PORT or unix:PATH: serve /metrics there until SIGTERM; NULL: none. */
	const char *listen;
	const char *web_config; /* --web.config.file: TLS and basic auth of --listen; NULL: none */
	struct sockaddr_storage listen_addr;
	socklen_t listen_addr_len;
	long max_series;       /* --max-series: groups exported at most */
	double series_grace_s; /* --series-grace: how long a gone group stays exported */
	/* --resident-budget: the percent of one CPU --resident's sweep may take */
	double resident_budget;
	char **command; /* -- COMMAND [ARGS...]: run and follow it (NULL-terminated); NULL: none */
	const char *cgroups[FS_MAX_CGROUP_FILTERS]; /* --cgroup PATH, as given */
	int nr_cgroups;
	/* The same cgroups found on the host (main.c, with cgroups.c), for the loader. */
	struct fs_cgroup_ref cgroup_refs[FS_MAX_CGROUP_FILTERS];
#ifdef FOLIOSTAT_TEST_HOOKS
	const char *test_escape; /* --test-escape FILE (test builds only: test_hooks.h) */
#endif
};

enum fs_parse_result {
	FS_PARSE_RUN,	/* options are valid: run */
	FS_PARSE_EXIT,	/* --help or --version was printed: exit 0 */
	FS_PARSE_USAGE, /* invalid: the message is in err; exit 2 */
};

enum fs_parse_result parse_options(int argc, char **argv, struct fs_options *opts, char *err,
				   size_t err_len, FILE *out);
void print_usage(FILE *out);

#endif
