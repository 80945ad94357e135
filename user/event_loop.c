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

/*
 * What the handler saw, for the loop: signals do not wait in a queue here (they are caught,
 * never blocked), so that a second stop request exits even while foliostat is blocked in a
 * write no wait would see; the loop learns of them through wake_fd, an eventfd the handler
 * writes after setting a flag, so none is missed between a check and a wait either.
 */
static volatile sig_atomic_t stop_requests, child_event;
/* The signals on_signal() takes (SIGHUP only while a command runs). */
static const int loop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGCHLD};
#define NR_LOOP_SIGNALS (sizeof(loop_signals) / sizeof(loop_signals[0]))
static volatile pid_t command_pid;
static int wake_fd = -1;

static void on_signal(int sig, siginfo_t *info, void *context)
{
	int saved = errno;
	uint64_t one = 1;

	(void)context;
	if (sig == SIGCHLD) {
		child_event = 1;
	} else if (command_pid > 0) {
		/* While a command runs, the run ends when it does, and stop signals are the
		 * command's: a terminal's Ctrl-C reaches it directly (it is in the terminal's
		 * foreground process group, like foliostat), and one sent to foliostat alone
		 * (kill, a service manager) is passed on to it. */
		if (info->si_code <= 0)
			kill(command_pid, sig);
		errno = saved;
		return;
	} else if (stop_requests++) {
		/* A second stop request means "now": links are file descriptors, so exiting
		 * detaches everything. (Only the loop's thread takes these signals, see
		 * aside_start(): two never run this at once.) */
		_exit(130);
	}
	if (write(wake_fd, &one, sizeof(one)) < 0) {
		/* (only when the count is at its maximum: the loop is awake already) */
	}
	errno = saved;
}

int event_loop_open(struct event_loop *loop, bool with_command)
{
	struct sigaction action = {.sa_sigaction = on_signal,
				   .sa_flags = SA_SIGINFO | SA_RESTART};
	struct sigaction child = action;

	*loop = (struct event_loop){.signal_fd = -1};
	if (sigprocmask(SIG_SETMASK, NULL, &loop->old_mask))
		return -errno;
	loop->signal_fd = wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (loop->signal_fd < 0)
		return -errno;
	sigemptyset(&action.sa_mask);
	child.sa_flags |= SA_NOCLDSTOP;
	sigemptyset(&child.sa_mask);
	/* Without a command SIGHUP keeps its default: a hang-up ends foliostat as it ends any
	 * program of the terminal. */
	if (sigaction(SIGINT, &action, NULL) || sigaction(SIGTERM, &action, NULL) ||
	    (with_command && sigaction(SIGHUP, &action, NULL)) ||
	    sigaction(SIGCHLD, &child, NULL))
		return -errno;
	signal(SIGPIPE, SIG_IGN); /* a closed pipe shows up as EPIPE from the writes */
	return 0;
}

void event_loop_set_command(struct event_loop *loop, pid_t pid)
{
	loop->command = command_pid = pid;
}

double event_loop_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What the handler saw since the last call, as LOOP_* bits. */
static int take_signals(struct event_loop *loop)
{
	uint64_t count;
	int events = 0;

	if (read(loop->signal_fd, &count, sizeof(count)) < 0) {
		/* (EAGAIN: nothing since the last read) */
	}
	if (child_event) {
		child_event = 0;
		events |= LOOP_CHILD;
	}
	if (stop_requests)
		loop->stopped = true;
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
	loop->signal_fd = wake_fd = -1;
}

void event_loop_child_defaults(const struct event_loop *loop)
{
	size_t i;

	for (i = 0; i < NR_LOOP_SIGNALS; i++)
		signal(loop_signals[i], SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, &loop->old_mask, NULL);
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
	sigset_t caught, mask;
	size_t i;
	int err;

	aside->fn = fn;
	aside->arg = arg;
	aside->done_fd = eventfd(0, EFD_CLOEXEC);
	if (aside->done_fd < 0)
		return -errno;
	/*
	 * The thread starts with the loop's signals blocked, so the kernel gives them all to the
	 * loop's thread, which takes every pending one before it runs on. Were one taken aside, the
	 * loop could act on a first stop request (exit 0 during start-up) before the thread ran
	 * the handler for a second that came with it (130), and exiting would drop that one.
	 */
	sigemptyset(&caught);
	for (i = 0; i < NR_LOOP_SIGNALS; i++)
		sigaddset(&caught, loop_signals[i]);
	pthread_sigmask(SIG_BLOCK, &caught, &mask);
	err = pthread_create(&aside->thread, NULL, aside_main, aside);
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
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
