// SPDX-License-Identifier: GPL-2.0
/* Openers (see opener.h). */
#define _GNU_SOURCE /* close_range */
#include "opener.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <cap-ng.h>

#include "sandbox.h"

/* The largest request any kind makes. */
#define MAX_REQUEST 64

struct answer {
	int32_t error; /* 0: the descriptor comes with it */
};

/* The loop's calls: recv() is recvfrom on both architectures; exit_group is _exit's;
 * rt_sigreturn and restart_syscall are the kernel's own returns. */
static const int loop_calls[] = {
    __NR_recvfrom, __NR_sendmsg,      __NR_close,	    __NR_exit_group,
    __NR_exit,	   __NR_rt_sigreturn, __NR_restart_syscall,
};
#define NR_LOOP_CALLS (sizeof(loop_calls) / sizeof(loop_calls[0]))
#define MAX_CALLS 32

/* Keep only `kind`'s capabilities, those of them foliostat has. */
static int keep_capabilities(const struct opener_kind *kind)
{
	bool has[kind->nr_caps ? kind->nr_caps : 1];

	if (capng_get_caps_process())
		return -1;
	for (size_t i = 0; i < kind->nr_caps; i++)
		has[i] = capng_have_capability(CAPNG_PERMITTED, (unsigned)kind->caps[i]);
	capng_clear(CAPNG_SELECT_BOTH);
	for (size_t i = 0; i < kind->nr_caps; i++)
		if (has[i] && capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED,
					   (unsigned)kind->caps[i]))
			return -1;
	return capng_apply(CAPNG_SELECT_BOTH);
}

static int send_answer(int error, int fd)
{
	char control[CMSG_SPACE(sizeof(int))] = {0};
	struct answer answer = {.error = error};
	struct iovec iov = {.iov_base = &answer, .iov_len = sizeof(answer)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *cmsg;

	if (fd >= 0) {
		msg.msg_control = control;
		msg.msg_controllen = sizeof(control);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(fd));
	}
	return sendmsg(3, &msg, 0) < 0 ? -1 : 0;
}

static void opener_main(const struct opener_kind *kind, int sock)
{
	int calls[MAX_CALLS], nr_calls = 0;
	char request[MAX_REQUEST];

	/* A name of its own: it is no second foliostat (run-tests.sh looks for those). */
	prctl(PR_SET_NAME, kind->name, 0, 0, 0);
	/* Ended by foliostat's end alone (a Ctrl-C reaches its process group too). */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	/* Nothing of foliostat's but the socket: no map, program or link stays alive here. */
	if (dup2(sock, 3) != 3 || close_range(4, ~0U, 0))
		_exit(1);
	if (keep_capabilities(kind) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_PDEATHSIG, SIGKILL))
		_exit(1);
	/* Its every call from here on is known: only those pass. */
	for (size_t i = 0; i < NR_LOOP_CALLS; i++)
		calls[nr_calls++] = loop_calls[i];
	for (size_t i = 0; i < kind->nr_calls && nr_calls < MAX_CALLS; i++)
		calls[nr_calls++] = kind->calls[i];
	if (seccomp_available() && seccomp_allow_only(calls, (size_t)nr_calls))
		_exit(1);
	/* foliostat's end closes its end of the socket: recv() returns 0. */
	while (recv(3, request, kind->request_size, 0) == (ssize_t)kind->request_size) {
		int fd = kind->open(request);

		if (send_answer(fd < 0 ? -fd : 0, fd))
			_exit(1);
		if (fd >= 0)
			close(fd);
	}
	_exit(0);
}

int opener_start(const struct opener_kind *kind)
{
	int sv[2];
	pid_t pid;

	if (kind->request_size > MAX_REQUEST || kind->nr_calls + NR_LOOP_CALLS > MAX_CALLS)
		return -EINVAL;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(sv[0]);
		close(sv[1]);
		return err;
	}
	if (pid == 0)
		opener_main(kind, sv[1]);
	close(sv[1]);
	return sv[0];
}

/* Descriptors a malformed answer may carry, received so that they can be closed (a peer that
 * sends more than one cannot leave them open in foliostat). */
#define MAX_RECEIVED_FDS 8

int opener_take_fd(const struct msghdr *msg)
{
	int fd = -1, extra = 0;

	for (struct cmsghdr *cmsg = CMSG_FIRSTHDR(msg); cmsg;
	     cmsg = CMSG_NXTHDR((struct msghdr *)msg, cmsg)) {
		size_t n;

		if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS ||
		    cmsg->cmsg_len < CMSG_LEN(0)) {
			extra++;
			continue;
		}
		n = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int got;

			memcpy(&got, CMSG_DATA(cmsg) + i * sizeof(int), sizeof(got));
			if (fd < 0 && !extra) {
				fd = got;
				continue;
			}
			close(got);
			extra++;
		}
	}
	/* Exactly one descriptor, in one SCM_RIGHTS message, nothing cut off: else none. */
	if (extra || (msg->msg_flags & (MSG_CTRUNC | MSG_TRUNC)) || fd < 0) {
		if (fd >= 0)
			close(fd);
		return -EPROTO;
	}
	return fd;
}

int opener_ask(int opener, const void *request, size_t size)
{
	char control[CMSG_SPACE(MAX_RECEIVED_FDS * sizeof(int))];
	struct answer answer;
	struct iovec iov = {.iov_base = &answer, .iov_len = sizeof(answer)};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control,
			     .msg_controllen = sizeof(control)};
	ssize_t got;
	int fd;

	if (send(opener, request, size, 0) != (ssize_t)size ||
	    (got = recvmsg(opener, &msg, MSG_CMSG_CLOEXEC)) <= 0)
		return -EPERM; /* the opener is gone: nothing more can be opened */
	fd = opener_take_fd(&msg);
	if (got == (ssize_t)sizeof(answer) && !answer.error)
		return fd;
	/* An error (or an answer of another size) comes alone: whatever came with it is closed. */
	if (fd >= 0)
		close(fd);
	return got == (ssize_t)sizeof(answer) && answer.error > 0 ? -answer.error : -EPROTO;
}
