// SPDX-License-Identifier: GPL-2.0
/* The test build's hooks (see test_hooks.h); nothing in a release build. */
#include "test_hooks.h"

#ifdef FOLIOSTAT_TEST_HOOKS
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>

/* "foliostat test: WHAT: succeeded", or the error that stopped it. */
static void say(const char *what, int error)
{
	fprintf(stderr, "foliostat test: %s: %s\n", what, error ? strerror(error) : "succeeded");
}

static int try_open(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0600);
	int error = 0;

	if (fd < 0)
		return errno;
	if ((flags & O_ACCMODE) != O_RDONLY && write(fd, "escaped\n", 8) != 8)
		error = errno;
	close(fd);
	return error;
}

void test_escape(const char *path)
{
	const char *slash = strrchr(path, '/');
	char beside[4096];
	pid_t child;
	int fd, status;

	snprintf(beside, sizeof(beside), "%.*s/escaped", slash ? (int)(slash - path) : 1,
		 slash ? path : ".");
	say("read", try_open(path, O_RDONLY));
	say("write", try_open(path, O_WRONLY | O_APPEND));
	say("create", try_open(beside, O_WRONLY | O_CREAT | O_EXCL));
	/* In a child, so that a successful exec does not end foliostat: it exits 0 (true). */
	child = fork();
	if (child == 0) {
		char *argv[] = {"true", NULL}, *envp[] = {NULL};

		execve("/bin/true", argv, envp);
		_exit(errno);
	}
	if (child < 0)
		say("exec", errno);
	else if (waitpid(child, &status, 0) == child)
		say("exec", WIFEXITED(status) ? WEXITSTATUS(status) : EINTR);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	say("socket", fd < 0 ? errno : 0);
	if (fd >= 0)
		close(fd);
	/* Typing into the terminal foliostat was started from (standard input: a test gives it
	 * a pseudo-terminal); TIOCLINUX's subcode 6 only reads the shift state. */
	say("tiocsti", ioctl(STDIN_FILENO, TIOCSTI, "#") ? errno : 0);
	say("tioclinux", ioctl(STDIN_FILENO, TIOCLINUX, (char[]){6, 0}) ? errno : 0);
}

bool test_preemptible(const char **why)
{
	const char *forced = getenv("FOLIOSTAT_TEST_PREEMPTIBLE");

	if (!forced || strcmp(forced, "1") != 0)
		return false;
	*why = "FOLIOSTAT_TEST_PREEMPTIBLE=1";
	return true;
}

bool test_no_pagemap_scan(void)
{
	const char *forced = getenv("FOLIOSTAT_TEST_NO_PAGEMAP_SCAN");

	return forced && !strcmp(forced, "1");
}

bool test_count_nodes(void)
{
	const char *forced = getenv("FOLIOSTAT_TEST_COUNT_NODES");

	return forced && !strcmp(forced, "1");
}

bool test_no_landlock(void)
{
	const char *forced = getenv("FOLIOSTAT_TEST_NO_LANDLOCK");

	return forced && !strcmp(forced, "1");
}

void test_resident_before_open(int pid)
{
	const char *delay = getenv("FOLIOSTAT_TEST_RESIDENT_OPEN_DELAY");
	double s = delay ? atof(delay) : 0;
	struct timespec t = {.tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};

	if (s <= 0)
		return;
	fprintf(stderr, "foliostat test: selected %d\n", pid);
	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

/* The program's first instruction exits before r0 is set; the rest, kept so that CO-RE
 * relocations still apply, is unreachable. */
void test_refuse_program(struct bpf_program *program, const char *probe)
{
	static struct bpf_insn broken[4096];
	const char *name = getenv("FOLIOSTAT_TEST_REFUSE_PROBE");
	size_t cnt;

	if (!name || strcmp(name, probe) != 0)
		return;
	cnt = bpf_program__insn_cnt(program);
	if (cnt > 4096)
		return;
	memcpy(broken, bpf_program__insns(program), cnt * sizeof(broken[0]));
	broken[0] = (struct bpf_insn){.code = BPF_JMP | BPF_EXIT};
	bpf_program__set_insns(program, broken, cnt);
}
#endif
