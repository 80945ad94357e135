// SPDX-License-Identifier: GPL-2.0
/*
 * Openers (user/opener.c, user/resident/resident_opener.c): what foliostat takes from an
 * answer (exactly one descriptor, in one SCM_RIGHTS message, nothing cut off; anything else
 * closed), and the resident opener's refusal of processes the selection does not have, or of
 * a pid that is another process's now.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "opener.h"
#include "process_start.h"
#include "resident_opener.h"
#include "unit.h"

/* Descriptors open in this process now. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* (the directory's own) */
}

/* Send an answer (error) with `nr` descriptors (of /dev/null) over sock. */
static bool send_fds(int sock, int32_t error, int nr)
{
	char control[CMSG_SPACE(4 * sizeof(int))] = {0};
	struct iovec iov = {.iov_base = &error, .iov_len = sizeof(error)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	int fds[4];
	bool ok;

	for (int i = 0; i < nr; i++)
		fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (nr) {
		struct cmsghdr *cmsg;

		msg.msg_control = control;
		msg.msg_controllen = CMSG_SPACE((size_t)nr * sizeof(int));
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN((size_t)nr * sizeof(int));
		memcpy(CMSG_DATA(cmsg), fds, (size_t)nr * sizeof(int));
	}
	ok = sendmsg(sock, &msg, 0) == sizeof(error);
	for (int i = 0; i < nr; i++)
		close(fds[i]);
	return ok;
}

/* Receive one answer with room for `room` descriptors, and take its descriptor. */
static int receive(int sock, size_t room)
{
	char control[CMSG_SPACE(8 * sizeof(int))];
	int32_t error;
	struct iovec iov = {.iov_base = &error, .iov_len = sizeof(error)};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control,
			     .msg_controllen = CMSG_SPACE(room * sizeof(int))};

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != sizeof(error))
		return -EIO;
	return opener_take_fd(&msg);
}

static bool one_descriptor_is_taken_and_others_refused(void)
{
	int sv[2], before, fd, on = 1;
	bool ok;

	if (!ASSERT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0))
		return false;
	before = open_fds();
	/* One: taken. */
	ok = ASSERT_TRUE(send_fds(sv[1], 0, 1)) && ASSERT_TRUE((fd = receive(sv[0], 8)) >= 0) &&
	     ASSERT_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC) && ASSERT_EQ(close(fd), 0);
	/* Two in one message: none taken, both closed. */
	ok = ok && ASSERT_TRUE(send_fds(sv[1], 0, 2)) && ASSERT_EQ(receive(sv[0], 8), -EPROTO) &&
	     ASSERT_EQ(open_fds(), before);
	/* Three where one fits: cut off (MSG_CTRUNC), the one that came closed. */
	ok = ok && ASSERT_TRUE(send_fds(sv[1], 0, 3)) && ASSERT_EQ(receive(sv[0], 1), -EPROTO) &&
	     ASSERT_EQ(open_fds(), before);
	/* None: no descriptor. */
	ok = ok && ASSERT_TRUE(send_fds(sv[1], 0, 0)) && ASSERT_EQ(receive(sv[0], 8), -EPROTO);
	/* One, after a message of another type (credentials, SO_PASSCRED): refused, closed. */
	ok = ok && ASSERT_EQ(setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)), 0) &&
	     ASSERT_TRUE(send_fds(sv[1], 0, 1)) && ASSERT_EQ(receive(sv[0], 8), -EPROTO) &&
	     ASSERT_EQ(open_fds(), before);
	close(sv[0]);
	close(sv[1]);
	return ok;
}

/* opener_ask() against a peer that answers wrongly: an error that brings a descriptor, or two
 * descriptors, leave none open in foliostat. */
static bool ask_leaves_nothing_open(void)
{
	int sv[2], before, request = 1;
	bool ok;

	if (!ASSERT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0))
		return false;
	before = open_fds();
	ok = ASSERT_TRUE(send_fds(sv[1], EACCES, 1)) &&
	     ASSERT_EQ(opener_ask(sv[0], &request, sizeof(request)), -EACCES) &&
	     ASSERT_EQ(open_fds(), before) && ASSERT_TRUE(send_fds(sv[1], 0, 2)) &&
	     ASSERT_EQ(opener_ask(sv[0], &request, sizeof(request)), -EPROTO) &&
	     ASSERT_EQ(open_fds(), before);
	close(sv[0]);
	close(sv[1]);
	return ok;
}

/* A child that waits to be killed. */
static pid_t idle_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		pause();
		_exit(0);
	}
	return pid;
}

static void end_child(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* The resident opener, given -p A: opens A's files, the one started when selected; refuses
 * B's (not selected), and A's pid asked with another start time (as when the pid is another
 * process's now), and a pid that no longer runs. */
static bool resident_opener_serves_only_the_selection(void)
{
	static pid_t pids[1];
	static const __u64 any_start[1];
	static struct resident_settings settings;
	struct resident_selector sel;
	struct resident_files files;
	unsigned long long a_start = 0, b_start = 0;
	pid_t a = idle_child(), b = idle_child();
	int opener = -1;
	bool ok;

	pids[0] = a;
	settings = (struct resident_settings){
	    .filter = {.pids = pids, .pid_started_before = any_start, .nr_pids = 1}};
	ok = ASSERT_TRUE(a > 0 && b > 0) && ASSERT_EQ(process_start_ticks(a, &a_start), 0) &&
	     ASSERT_EQ(process_start_ticks(b, &b_start), 0) &&
	     ASSERT_EQ(resident_selector_init(&sel, &settings, false), 0);
	/* (the children are this process's, as an opener's would be foliostat's: not left out) */
	sel.self = 1;
	ok = ok && ASSERT_TRUE((opener = resident_opener_start(&sel)) >= 0) &&
	     ASSERT_EQ(resident_open(opener, a, a_start, true, &files), 0);
	if (ok) {
		ok = ASSERT_TRUE(files.mappings >= 0 && files.pagemap >= 0 &&
				 files.smaps_rollup >= 0);
		resident_close(&files);
	}
	ok = ok && ASSERT_EQ(resident_open(opener, b, b_start, true, &files), -EACCES) &&
	     ASSERT_EQ(resident_open(opener, a, a_start + 1, false, &files), -ESRCH);
	end_child(a);
	a = 0;
	ok = ok && ASSERT_EQ(resident_open(opener, pids[0], a_start, true, &files), -ENOENT);
	if (opener >= 0)
		close(opener);
	end_child(a);
	end_child(b);
	return ok;
}

const struct unit_test opener_tests[] = {
    UNIT_TEST(one_descriptor_is_taken_and_others_refused),
    UNIT_TEST(ask_leaves_nothing_open),
    UNIT_TEST(resident_opener_serves_only_the_selection),
    {},
};
