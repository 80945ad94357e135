/* SPDX-License-Identifier: GPL-2.0 */
/*
 * foliostat's one event loop: every wait of the process (a tick, a scrape, the command's end,
 * start-up) is a poll of one descriptor the signal handler wakes, beside at most one other.
 * The handler only records a signal (or passes it on to the command) and writes to that
 * descriptor, so a signal that arrives while foliostat works ends the next wait at once: none
 * is missed between a check and a wait. Signals are caught rather than blocked and read from a
 * signalfd so that a second stop request still exits at once while foliostat is blocked in a
 * write to a reader that stalled, where no wait would see it.
 */
#ifndef FS_EVENT_LOOP_H
#define FS_EVENT_LOOP_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

/* What ended a wait (event_loop_wait()'s bits). */
#define LOOP_STOP 1  /* a stop request: see event_loop_stopped() */
#define LOOP_CHILD 2 /* SIGCHLD: the command may have exited (command_reap() says) */
#define LOOP_FD 4    /* the descriptor given is readable */

struct event_loop {
	int signal_fd;	   /* the eventfd the handler writes */
	sigset_t old_mask; /* the mask foliostat started with: the command's */
	pid_t command;	   /* -- COMMAND: stop signals sent by a process go to it (0: none yet) */
	bool stopped;	   /* a stop request came (never with a command: it ends with it) */
};

/* Catch SIGINT, SIGTERM and SIGCHLD (and SIGHUP with a command, whose signal it is then);
 * ignore SIGPIPE. Done before anything is started: a signal is never lost from then on.
 * Returns 0 or a negative errno. */
int event_loop_open(struct event_loop *loop, bool with_command);
/* In a child about to exec: the dispositions and mask foliostat was given. */
void event_loop_child_defaults(const struct event_loop *loop);
/* The command's pid, to pass stop signals on to from now on. */
void event_loop_set_command(struct event_loop *loop, pid_t pid);
/* Monotonic seconds. */
double event_loop_now(void);
/*
 * Wait until monotonic `until` (< 0: no limit), fd (>= 0) is readable, or a signal comes; a
 * wait after a stop request returns at once. Stop signals sent to foliostat alone are passed on
 * to the command, if there is one, and end no wait; without a command the first one is a stop
 * request (LOOP_STOP) and a second one exits at once with status 130, whatever foliostat is
 * doing then. Returns the LOOP_* bits (0: the time came), or -1 with errno set.
 */
int event_loop_wait(struct event_loop *loop, int fd, double until);
void event_loop_close(struct event_loop *loop);

/*
 * Work that blocks for long in calls no signal interrupts (start-up: loading and verifying the
 * programs takes seconds), run on a thread of its own so that the loop keeps answering signals
 * meanwhile. The thread blocks the signals the loop takes (see aside_start()). If the loop
 * must end first, the only way out is to exit the process (the kernel then ends the thread and
 * frees all it held).
 */
struct aside {
	pthread_t thread;
	int done_fd; /* readable once fn has returned: wait for it with event_loop_wait() */
	void (*fn)(void *arg);
	void *arg;
};

/* Start fn(arg) on its thread. Returns 0 or a negative errno. */
int aside_start(struct aside *aside, void (*fn)(void *arg), void *arg);
/* Once done_fd was readable: join the thread. */
void aside_join(struct aside *aside);

#endif /* FS_EVENT_LOOP_H */
