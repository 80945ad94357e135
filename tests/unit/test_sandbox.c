// SPDX-License-Identifier: GPL-2.0
/* Landlock and the seccomp filter (sandbox.c), each applied in a child process of its own:
 * neither needs privileges, and neither can be undone. */
#define _GNU_SOURCE
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "sandbox.h"

/* Run `body` in a child after no_new_privs: true when it returns 0. Its failures are printed
 * by the child. */
static bool in_child(int (*body)(void *), void *arg)
{
	pid_t child;
	int status;

	fflush(NULL);
	child = fork();
	if (child == 0)
		_exit(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ? 99 : body(arg));
	return ASSERT_TRUE(child > 0 && waitpid(child, &status, 0) == child) &&
	       ASSERT_TRUE(WIFEXITED(status)) && ASSERT_EQ(WEXITSTATUS(status), 0);
}

/* ASSERT_EQ of a call's result and errno: -1 and `expected`. */
#define ASSERT_REFUSED(call, expected) (ASSERT_EQ((call), -1) && ASSERT_EQ(errno, (expected)))

static int seccomp_body(void *arg)
{
	char *argv[] = {"true", NULL}, *envp[] = {NULL};
	union bpf_attr attr = {0};
	int fd;

	(void)arg;
	if (!ASSERT_EQ(seccomp_apply(), 0))
		return 1;
	if (!ASSERT_REFUSED(execve("/bin/true", argv, envp), EPERM) ||
	    !ASSERT_REFUSED(socket(AF_INET, SOCK_STREAM, 0), EPERM) ||
	    !ASSERT_REFUSED(socket(AF_UNIX, SOCK_STREAM, 0), EPERM) ||
	    !ASSERT_REFUSED(syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr)), EPERM) ||
	    !ASSERT_REFUSED(syscall(__NR_setresuid, 0, 0, 0), EPERM) ||
	    !ASSERT_REFUSED(syscall(__NR_ptrace, 0, 0, 0, 0), EPERM) ||
	    !ASSERT_REFUSED(syscall(__NR_clone3, NULL, 0), ENOSYS) ||
	    !ASSERT_REFUSED(fchmod(0, 0777), EPERM))
		return 1;
	/* What a run does keeps working: files, a map lookup reaching the kernel (EBADF). */
	fd = open("/proc/self/status", O_RDONLY);
	attr.map_fd = (__u32)-1;
	if (!ASSERT_TRUE(fd >= 0) ||
	    !ASSERT_REFUSED(syscall(__NR_bpf, BPF_MAP_LOOKUP_ELEM, &attr, sizeof(attr)), EBADF))
		return 1;
	close(fd);
	return 0;
}

static bool seccomp_refuses_exec_sockets_and_bpf_loads(void)
{
	if (!seccomp_available()) {
		printf("  SKIP seccomp: not available here\n");
		return true;
	}
	return in_child(seccomp_body, NULL);
}

/*
 * The ioctls that type into a terminal are refused on a real one (a pseudo-terminal this test
 * opens, its controlling terminal, where TIOCSTI works without the filter wherever
 * dev.tty.legacy_tiocsti is 1), whatever the request's high half holds; other ioctls on it
 * still work.
 */
static int terminal_body(void *arg)
{
	int *fds = arg, pending = -1;
	char c = 'x', sub[2] = {6 /* TIOCL_GETSHIFTSTATE */, 0};

	if (!ASSERT_EQ(seccomp_apply(), 0))
		return 1;
	if (!ASSERT_REFUSED(ioctl(fds[1], TIOCSTI, &c), EPERM) ||
	    !ASSERT_REFUSED(syscall(__NR_ioctl, fds[1], (1UL << 32) | TIOCSTI, &c), EPERM) ||
	    !ASSERT_REFUSED(ioctl(fds[1], TIOCLINUX, sub), EPERM) ||
	    !ASSERT_REFUSED(ioctl(fds[2], TIOCSTI, &c), EPERM) ||
	    !ASSERT_EQ(ioctl(fds[1], FIONREAD, &pending), 0) || !ASSERT_TRUE(pending >= 0))
		return 1;
	return 0;
}

/* The control: without the filter, TIOCSTI on the controlling terminal is taken. */
static int terminal_without_filter(void *arg)
{
	int *fds = arg;
	char c = 'x';

	return ASSERT_EQ(ioctl(fds[1], TIOCSTI, &c), 0) ? 0 : 1;
}

/* (fds: the master, the slave, and a file that is no terminal.) */
static int in_session(void *arg)
{
	int *fds = arg;
	int (*body)(void *) = fds[3] ? terminal_body : terminal_without_filter;

	if (!ASSERT_TRUE(setsid() > 0) || !ASSERT_EQ(ioctl(fds[1], TIOCSCTTY, 0), 0))
		return 1;
	return body(arg);
}

static bool seccomp_refuses_typing_into_a_terminal(void)
{
	int fds[4] = {posix_openpt(O_RDWR | O_NOCTTY), -1, open("/proc/self/status", O_RDONLY), 1};
	bool ok = false, legacy;
	FILE *f = fopen("/proc/sys/dev/tty/legacy_tiocsti", "r");

	legacy = !f || fgetc(f) != '0';
	if (f)
		fclose(f);
	if (!seccomp_available()) {
		printf("  SKIP seccomp: not available here\n");
		ok = true;
		goto out;
	}
	if (!ASSERT_TRUE(fds[0] >= 0) || !ASSERT_EQ(grantpt(fds[0]), 0) ||
	    !ASSERT_EQ(unlockpt(fds[0]), 0) ||
	    !ASSERT_TRUE((fds[1] = open(ptsname(fds[0]), O_RDWR | O_NOCTTY)) >= 0) ||
	    !ASSERT_TRUE(fds[2] >= 0))
		goto out;
	/* The control, where this kernel still honours TIOCSTI: the character does come through. */
	fds[3] = 0;
	if (legacy && !in_child(in_session, fds))
		goto out;
	fds[3] = 1;
	ok = in_child(in_session, fds);
out:
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return ok;
}

/* The allow-list as the perf opener uses it: what it names passes, anything else is EPERM. */
static int allow_only_body(void *arg)
{
	/* write: the child's failures are printed. */
	static const int calls[] = {__NR_getppid, __NR_write, __NR_exit_group};

	(void)arg;
	if (!ASSERT_EQ(seccomp_allow_only(calls, sizeof(calls) / sizeof(calls[0])), 0))
		return 1;
	if (!ASSERT_TRUE(syscall(__NR_getppid) > 0) ||
	    !ASSERT_REFUSED(syscall(__NR_getpid), EPERM) ||
	    !ASSERT_REFUSED(open("/proc/self/status", O_RDONLY), EPERM) ||
	    !ASSERT_REFUSED(socket(AF_UNIX, SOCK_SEQPACKET, 0), EPERM) ||
	    !ASSERT_REFUSED(close(0), EPERM))
		return 1;
	return 0;
}

static bool seccomp_allow_list_passes_only_what_it_names(void)
{
	static const int too_many[FS_MAX_ALLOWED_CALLS + 1];

	if (!seccomp_available()) {
		printf("  SKIP seccomp: not available here\n");
		return true;
	}
	return ASSERT_EQ(seccomp_allow_only(too_many, FS_MAX_ALLOWED_CALLS + 1), -E2BIG) &&
	       in_child(allow_only_body, NULL);
}

static int landlock_body(void *arg)
{
	const char *dir = arg;
	const char *const read_paths[] = {"/proc", "/sys", NULL};
	char path[4096];
	int dir_fd = open(dir, O_RDONLY | O_DIRECTORY), fd;

	if (!ASSERT_TRUE(dir_fd >= 0) || !ASSERT_TRUE(landlock_apply(read_paths, dir_fd, true) > 0))
		return 1;
	snprintf(path, sizeof(path), "%s/record", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (!ASSERT_TRUE(fd >= 0))
		return 1;
	close(fd);
	snprintf(path, sizeof(path), "%s/sub", dir);
	if (!ASSERT_REFUSED(mkdir(path, 0755), EACCES) ||
	    !ASSERT_REFUSED(open("/etc/passwd", O_RDONLY), EACCES) ||
	    !ASSERT_REFUSED(open("/", O_RDONLY | O_DIRECTORY), EACCES))
		return 1;
	fd = open("/proc/self/status", O_RDONLY);
	if (!ASSERT_TRUE(fd >= 0))
		return 1;
	close(fd);
	fd = open("/sys/kernel/mm/transparent_hugepage", O_RDONLY | O_DIRECTORY);
	return ASSERT_TRUE(fd >= 0) ? 0 : 1;
}

static bool landlock_reads_proc_and_sys_writes_only_beneath_the_output_directory(void)
{
	char dir[] = "/tmp/foliostat-unit-landlock.XXXXXX", path[64];
	bool ok;

	if (!landlock_abi()) {
		printf("  SKIP landlock: not available here\n");
		return true;
	}
	if (!ASSERT_TRUE(mkdtemp(dir)))
		return false;
	ok = in_child(landlock_body, dir);
	snprintf(path, sizeof(path), "%s/record", dir);
	ok = ASSERT_EQ(unlink(path), 0) && ok;
	rmdir(dir);
	return ok;
}

const struct unit_test sandbox_tests[] = {
    UNIT_TEST(seccomp_refuses_exec_sockets_and_bpf_loads),
    UNIT_TEST(seccomp_allow_list_passes_only_what_it_names),
    UNIT_TEST(seccomp_refuses_typing_into_a_terminal),
    UNIT_TEST(landlock_reads_proc_and_sys_writes_only_beneath_the_output_directory),
    {},
};
