// SPDX-License-Identifier: GPL-2.0
/*
 * foliostat: per-process folio activity from BPF tracepoints. This file only wires the parts
 * together: the options, start-up (start_up.c), the collector (collector.c), one of the
 * two kinds of run (runs.c), and the one way out.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cgroups.h"
#include "collector.h"
#include "command.h"
#include "event_loop.h"
#include "http_server.h"
#include "options.h"
#include "output_file.h"
#include "process_start.h"
#include "runs.h"
#include "self.h"
#include "start_up.h"

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

int main(int argc, char **argv)
{
	struct fs_options opts;
	struct command command = {.pid = -1, .go_fd = -1, .exec_fd = -1};
	struct loader loader;
	struct output_file file = {.dir_fd = -1};
	struct collector collector;
	struct http_server server = {.listen_fd = -1};
	struct http_settings listen_settings;
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

		/* A usage error, as a --cgroup that is no cgroup is: the command line must change. */
		if (kill(opts.pids[i], 0) && errno == ESRCH) {
			fprintf(stderr, "foliostat: invalid --pid '%d': no such process\n",
				opts.pids[i]);
			return 2;
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
	if (opts.output &&
	    output_file_open(&file, opts.output, !opts.replace, opts.output_mode, err, sizeof(err)))
		goto fail;
	/* Likewise a port in use, or a web config that is not right; and a port below 1024 and a
	 * key only root reads need the privileges dropped later. (Nothing is served before the
	 * collector is open: run_endpoint.) */
	listen_settings = (struct http_settings){.addr = (const struct sockaddr *)&opts.listen_addr,
						 .addr_len = opts.listen_addr_len,
						 .web_config = opts.web_config};
	if (opts.listen && (ret = http_server_open(&server, &listen_settings, scrape_read,
						   scrape_render, &collector, err, sizeof(err)))) {
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
		ret = run_records(&collector, opts.output ? &file : NULL, err, sizeof(err));
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
