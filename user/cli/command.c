// SPDX-License-Identifier: GPL-2.0
/* Running the command foliostat follows (see command.h). */
#define _GNU_SOURCE /* pipe2 */
#include "command.h"
#include "event_loop.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

/* Why the child could not run the command, sent back over exec_fd. */
struct child_failure {
	int stage; /* 0: the change to the invoking user, 1: exec */
	int error;
};

static bool parse_id(const char *text, long *id)
{
	char *end;

	if (!text || !*text)
		return false;
	errno = 0;
	*id = strtol(text, &end, 10);
	return !errno && !*end && *id >= 0 && *id < INT_MAX;
}

/* Under sudo, become the user who ran it: the command is theirs, not root's. The supplementary
 * groups are the user's where the user database says, else the primary group alone. */
static int become_invoking_user(void)
{
	long uid, gid;
	struct passwd *pw;

	if (geteuid() != 0 || !parse_id(getenv("SUDO_UID"), &uid) ||
	    !parse_id(getenv("SUDO_GID"), &gid))
		return 0;
	pw = getpwuid((uid_t)uid);
	if (!pw || initgroups(pw->pw_name, (gid_t)gid)) {
		gid_t only = (gid_t)gid;

		if (setgroups(1, &only))
			return -1;
	}
	return setgid((gid_t)gid) || setuid((uid_t)uid) ? -1 : 0;
}

static void child_main(char **argv, const struct event_loop *loop, int go_fd, int exec_fd)
{
	struct child_failure failure = {0};
	char go;

	/* foliostat's handlers are no use here, and its ignored SIGPIPE would pass through exec.
	 * The command gets what foliostat was given, at once: a signal to it while it waits
	 * (Ctrl-C, or one foliostat passes on) ends it then, not once it execs. */
	event_loop_child_defaults(loop);
	/* foliostat exits (a failed start-up) without a word: never run the command then. */
	if (read(go_fd, &go, 1) != 1)
		_exit(127);
	close(go_fd);
	if (become_invoking_user()) {
		failure.error = errno;
	} else {
		execvp(argv[0], argv);
		failure = (struct child_failure){.stage = 1, .error = errno};
	}
	if (write(exec_fd, &failure, sizeof(failure)) < 0)
		_exit(127);
	_exit(127);
}

int command_prepare(struct command *cmd, char **argv, const struct event_loop *loop, char *err,
		    size_t err_len)
{
	sigset_t all, before;
	int go[2], exec[2];

	*cmd = (struct command){.argv = argv, .go_fd = -1, .exec_fd = -1};
	if (pipe2(go, O_CLOEXEC) || pipe2(exec, O_CLOEXEC)) {
		snprintf(err, err_len, "failed to create a pipe for the command: %s",
			 strerror(errno));
		return -1;
	}
	fflush(NULL);
	/* No handler of foliostat's may run in the child before it has its own dispositions. */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &before);
	cmd->pid = fork();
	if (cmd->pid == 0) {
		close(go[1]);
		close(exec[0]);
		child_main(argv, loop, go[0], exec[1]);
	}
	sigprocmask(SIG_SETMASK, &before, NULL);
	if (cmd->pid < 0) {
		snprintf(err, err_len, "failed to fork the command: %s", strerror(errno));
		return -1;
	}
	close(go[0]);
	close(exec[1]);
	cmd->go_fd = go[1];
	cmd->exec_fd = exec[0];
	return 0;
}

int command_start(struct command *cmd, char *err, size_t err_len)
{
	struct child_failure failure;
	ssize_t n;

	n = write(cmd->go_fd, "g", 1);
	if (n != 1)
		return command_lost(cmd, err, err_len);
	close(cmd->go_fd);
	cmd->go_fd = -1;
	/* EOF when exec closed the pipe (it is close-on-exec): the command runs. */
	do
		n = read(cmd->exec_fd, &failure, sizeof(failure));
	while (n < 0 && errno == EINTR);
	close(cmd->exec_fd);
	cmd->exec_fd = -1;
	if (n != (ssize_t)sizeof(failure))
		return 0;
	waitpid(cmd->pid, &cmd->status, 0);
	cmd->exited = true;
	if (failure.stage == 0) {
		snprintf(err, err_len, "failed to run '%s' as the invoking user (SUDO_UID): %s",
			 cmd->argv[0], strerror(failure.error));
		return 126;
	}
	snprintf(err, err_len, "failed to run '%s': %s", cmd->argv[0], strerror(failure.error));
	return failure.error == ENOENT ? 127 : 126;
}

int command_lost(struct command *cmd, char *err, size_t err_len)
{
	if (cmd->go_fd >= 0)
		close(cmd->go_fd);
	if (cmd->exec_fd >= 0)
		close(cmd->exec_fd);
	cmd->go_fd = cmd->exec_fd = -1;
	if (!cmd->exited)
		waitpid(cmd->pid, &cmd->status, 0);
	cmd->exited = true;
	snprintf(err, err_len, "failed to start '%s': %s before it ran", cmd->argv[0],
		 WIFSIGNALED(cmd->status) ? strsignal(WTERMSIG(cmd->status)) : "it exited");
	return command_exit_code(cmd);
}

bool command_reap(struct command *cmd)
{
	if (!cmd->exited && waitpid(cmd->pid, &cmd->status, WNOHANG) == cmd->pid)
		cmd->exited = true;
	return cmd->exited;
}

void command_abandon(struct command *cmd)
{
	bool waiting = cmd->go_fd >= 0;

	/* A waiting child reads EOF and exits without running anything; one that runs already
	 * is left to finish. */
	if (waiting)
		close(cmd->go_fd);
	if (cmd->exec_fd >= 0)
		close(cmd->exec_fd);
	cmd->go_fd = cmd->exec_fd = -1;
	if (waiting && cmd->pid > 0) {
		waitpid(cmd->pid, &cmd->status, 0);
		cmd->exited = true;
	}
}

int command_exit_code(const struct command *cmd)
{
	if (WIFSIGNALED(cmd->status))
		return 128 + WTERMSIG(cmd->status);
	return WEXITSTATUS(cmd->status);
}
