// SPDX-License-Identifier: GPL-2.0
/* foliostat's one event loop (see event_loop.h). */
#define _GNU_SOURCE /* ppoll */
#include "event_loop.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>

int event_loop_open(struct event_loop *loop, bool with_command)
{
	sigset_t set;

	*loop = (struct event_loop){.signal_fd = -1};
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	/* Without a command SIGHUP keeps its default: a hang-up ends foliostat as it ends any
	 * program of the terminal. */
	if (with_command)
		sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, &loop->old_mask))
		return -errno;
	loop->signal_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (loop->signal_fd < 0) {
		int err = -errno;

		sigprocmask(SIG_SETMASK, &loop->old_mask, NULL);
		return err;
	}
	signal(SIGPIPE, SIG_IGN); /* a closed pipe shows up as EPIPE from the writes */
	return 0;
}

void event_loop_set_command(struct event_loop *loop, pid_t pid)
{
	loop->command = pid;
}

double event_loop_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void exit_now(int sig)
{
	(void)sig;
	/* Links are file descriptors: exiting detaches everything. */
	_exit(130);
}

/*
 * The first stop request is the loop's to act on; a second one means "now", and must work even
 * where no wait would see it (a write blocked on a full pipe, a long last read): from here on
 * the stop signals exit from a handler.
 */
static void stop_requested(struct event_loop *loop)
{
	struct sigaction now = {.sa_handler = exit_now};
	sigset_t set;

	if (loop->stopped)
		exit_now(0);
	loop->stopped = true;
	sigemptyset(&now.sa_mask);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaction(SIGINT, &now, NULL);
	sigaction(SIGTERM, &now, NULL);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* Act on every signal pending in the signalfd; returns the LOOP_* bits they make. */
static int take_signals(struct event_loop *loop)
{
	struct signalfd_siginfo info;
	int events = 0;

	while (read(loop->signal_fd, &info, sizeof(info)) == (ssize_t)sizeof(info)) {
		if (info.ssi_signo == SIGCHLD) {
			events |= LOOP_CHILD;
		} else if (loop->command > 0) {
			/* While a command runs, the run ends when it does, and stop signals are
			 * the command's: a terminal's Ctrl-C reaches it directly (it is in the
			 * terminal's foreground process group, like foliostat), and one sent to
			 * foliostat alone (kill, a service manager) is passed on to it. */
			if ((int)info.ssi_code <= 0)
				kill(loop->command, (int)info.ssi_signo);
		} else {
			stop_requested(loop);
			events |= LOOP_STOP;
		}
	}
	return events;
}

int event_loop_wait(struct event_loop *loop, int fd, double until)
{
	struct pollfd pfd[2] = {{.fd = loop->signal_fd, .events = POLLIN},
				{.fd = fd, .events = POLLIN}};
	int events = take_signals(loop);

	for (;;) {
		struct timespec timeout, *wait = NULL;
		int n;

		if (loop->stopped)
			return events | LOOP_STOP;
		if (events)
			return events;
		if (until >= 0) {
			double left = until - event_loop_now();

			if (left <= 0)
				return 0;
			timeout.tv_sec = (time_t)left;
			timeout.tv_nsec = (long)((left - (double)timeout.tv_sec) * 1e9);
			wait = &timeout;
		}
		n = ppoll(pfd, fd >= 0 ? 2 : 1, wait, NULL);
		if (n < 0 && errno != EINTR)
			return -1;
		if (n > 0 && fd >= 0 && (pfd[1].revents & (POLLIN | POLLERR | POLLHUP)))
			events |= LOOP_FD;
		events |= take_signals(loop);
		if (events & LOOP_FD)
			return events | (loop->stopped ? LOOP_STOP : 0);
	}
}

void event_loop_close(struct event_loop *loop)
{
	if (loop->signal_fd >= 0)
		close(loop->signal_fd);
	loop->signal_fd = -1;
}

static void *aside_main(void *arg)
{
	struct aside *aside = arg;
	uint64_t one = 1;

	aside->fn(aside->arg);
	if (write(aside->done_fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		abort(); /* an eventfd below its maximum takes every write */
	return NULL;
}

int aside_start(struct aside *aside, void (*fn)(void *arg), void *arg)
{
	int err;

	aside->fn = fn;
	aside->arg = arg;
	aside->done_fd = eventfd(0, EFD_CLOEXEC);
	if (aside->done_fd < 0)
		return -errno;
	err = pthread_create(&aside->thread, NULL, aside_main, aside);
	if (err) {
		close(aside->done_fd);
		aside->done_fd = -1;
		return -err;
	}
	return 0;
}

void aside_join(struct aside *aside)
{
	pthread_join(aside->thread, NULL);
	close(aside->done_fd);
	aside->done_fd = -1;
}
