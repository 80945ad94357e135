// SPDX-License-Identifier: GPL-2.0
/* Start-up (see start_up.h): loading and attaching aside while the loop waits, then the drop of
 * privileges and the command's start. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "start_up.h"
#include "privileges.h"
#include "settings.h"
#include "test_hooks.h"

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

/* A run that keeps uid 0 where the kernel has no Landlock is less confined than the man page's
 * SECURITY section promises: say so, once, so that whoever runs it may choose another way. */
static void warn_root_without_landlock(const struct privileges_after *after)
{
	char why[128];

	if (!privileges_root_without_landlock(after, false, 0, why, sizeof(why)))
		return;
	fprintf(stderr,
		"foliostat: warning: this run keeps uid 0 (%s) and the kernel has no Landlock: "
		"after start-up %s keeps a flaw from reading and writing the files root owns\n",
		why, after->seccomp ? "only the seccomp filter" : "nothing");
}

static void start_collection(void *arg)
{
	struct start_up *s = arg;
	struct loader_settings settings = loader_settings_of(s->opts);
	int ret;

	if (loader_start(s->loader, &settings, s->err, sizeof(s->err))) {
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
int start_up(struct event_loop *loop, struct start_up *s, struct command *command, char *err,
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
	/* Cgroups are named by their file handles, which takes a privilege too (without it, by
	 * walks of the hierarchy: cgroup_names.h). */
	if (s->opts->by != FS_BY_COMM)
		cgroup_names_start_opener(&s->collector->cgroup_names);
	/* --resident reads other processes' page tables, with privileges of its own opener. */
	if (s->opts->resident) {
		if (resident_scanner_start(&s->collector->resident,
					   &s->collector->resident_settings, err, err_len))
			return -1;
		s->collector->resident_on = true;
	}
	/* The last step of start-up: from here on, everything is counted. */
	if (drop_privileges(s->loader, s->opts, s->file->dir_fd, &s->privileges, err, err_len))
		return -1;
	warn_root_without_landlock(&s->privileges);
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
