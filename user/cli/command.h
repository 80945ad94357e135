/* SPDX-License-Identifier: GPL-2.0 */
/* foliostat -- COMMAND: the command is forked before anything is attached and waits; it execs
 * once its pid is followed in the kernel, so nothing it does is missed. */
#ifndef FS_COMMAND_H
#define FS_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct command {
	char **argv;
	pid_t pid;
	int go_fd;   /* write end of the pipe the waiting child reads to go on */
	int exec_fd; /* read end of the pipe the child reports a failed exec on (EOF: it ran) */
	bool exited;
	int status; /* waitpid()'s, once exited */
};

struct event_loop;

/* Fork the child; it takes the signal dispositions and mask foliostat was given (not the
 * loop's) and waits for command_start(). Returns 0, or -1 with a message in err. */
int command_prepare(struct command *cmd, char **argv, const struct event_loop *loop, char *err,
		    size_t err_len);

/*
 * Let the child exec (as the invoking user when foliostat runs through sudo: SUDO_UID and
 * SUDO_GID). Returns 0 once the command runs; or the exit code a shell would give when it
 * could not be run (127: not found, 126: not executable), with a message in err.
 */
int command_start(struct command *cmd, char *err, size_t err_len);

/* The waiting child died before command_start() (a signal to the process group, or one
 * foliostat passed on, during start-up): reap it and return the exit code a shell would give,
 * with "failed to start 'CMD': Terminated before it ran" in err. */
int command_lost(struct command *cmd, char *err, size_t err_len);

/* Has the command exited? Reaps it without waiting. */
bool command_reap(struct command *cmd);

/* foliostat failed: a child still waiting exits without running the command (and is reaped);
 * one already running is left to finish. */
void command_abandon(struct command *cmd);

/* foliostat's exit code for the command's end: its own, or 128 + the signal that killed it. */
int command_exit_code(const struct command *cmd);

#endif /* FS_COMMAND_H */
