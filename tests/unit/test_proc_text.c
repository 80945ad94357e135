// SPDX-License-Identifier: GPL-2.0
/* /proc files read whole (proc_text.c): files longer than any fixed buffer foliostat had, read
 * to their last byte; a file past its bound refused, never its first part parsed; the cgroup
 * v2 path of a /proc/PID/cgroup line longer than a page. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroups.h"
#include "proc_text.h"
#include "unit.h"

/* A temporary file holding `text`, opened for reading (and unlinked at once): its fd. */
static int file_of(const char *text, size_t len)
{
	char path[] = "/tmp/foliostat-unit-proc.XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	return fd;
}

/* 300 KiB of numbered lines (more than the 64 KiB pagetypeinfo was read into): every byte
 * read, the last line whole; read again from the start into the same buffer. */
static bool a_long_file_is_read_to_its_end(void)
{
	size_t size = 300 * 1024, used = 0;
	char *text = malloc(size + 64);
	struct proc_text t = {0};
	bool ok;
	int fd;

	if (!ASSERT_TRUE(text))
		return false;
	for (int i = 0; used < size; i++)
		used += (size_t)snprintf(text + used, size + 64 - used, "line %d\n", i);
	fd = file_of(text, used);
	ok = ASSERT_TRUE(fd >= 0) && ASSERT_EQ(proc_text_read(&t, fd, (1 << 20)), 0) &&
	     ASSERT_EQ(t.len, used) && ASSERT_TRUE(!memcmp(t.text, text, used)) &&
	     ASSERT_EQ(t.text[used], '\0') &&
	     ASSERT_EQ(proc_text_read(&t, fd, (1 << 20)), 0) && ASSERT_EQ(t.len, used);
	if (fd >= 0)
		close(fd);
	proc_text_free(&t);
	free(text);
	return ok;
}

/* A file of exactly the bound is read; one byte more is -EFBIG, with nothing left to parse
 * (not the bound's worth of it, whose last line would be cut). */
static bool a_file_past_its_bound_is_refused(void)
{
	static char text[10000];
	struct proc_text t = {0};
	int fd;
	bool ok;

	memset(text, '7', sizeof(text));
	fd = file_of(text, sizeof(text));
	ok = ASSERT_TRUE(fd >= 0) && ASSERT_EQ(proc_text_read(&t, fd, sizeof(text)), 0) &&
	     ASSERT_EQ(t.len, sizeof(text)) &&
	     ASSERT_EQ(proc_text_read(&t, fd, sizeof(text) - 1), -EFBIG) && ASSERT_EQ(t.len, 0) &&
	     ASSERT_STREQ(t.text, "") &&
	     ASSERT_EQ(proc_text_read_path(&t, "/nonexistent/foliostat", 100), -ENOENT);
	if (fd >= 0)
		close(fd);
	proc_text_free(&t);
	return ok;
}

/*
 * A /proc/PID/cgroup of a hybrid host whose v2 path is 20 directories of 250 bytes (over 5 KiB,
 * longer than the 4 KiB that was read of it), after v1 lines, one of them with a path that
 * holds "0::/" (a v1 cgroup another user named so), given a block of 4 KiB at a time as the
 * resident opener reads it: the v2 line's path, whole.
 */
static bool a_long_cgroup_line_is_read_whole(void)
{
	static char path[20 * 251 + 1], text[sizeof(path) + 256], found[sizeof(path) + 1];
	struct cgroup_v2_line line;
	struct proc_text t = {0};
	size_t used = 0, len, at = 0;
	bool ok;

	for (int i = 0; i < 20; i++) {
		path[used++] = '/';
		memset(path + used, 'a' + i, 250);
		used += 250;
	}
	snprintf(text, sizeof(text),
		 "12:cpu,cpuacct:/user.slice\n"
		 "1:name=systemd:/user.slice/evil0::/system.slice/sshd.service\n"
		 "0::%s\n",
		 path);
	len = strlen(text);
	cgroup_v2_line_init(&line, found, sizeof(found));
	while (at < len && !cgroup_v2_line_feed(&line, text + at, len - at < 4096 ? len - at : 4096))
		at += 4096;
	ok = ASSERT_TRUE(len > 5000) && ASSERT_EQ(cgroup_v2_line_end(&line), 0) &&
	     ASSERT_EQ(strlen(found), strlen(path)) && ASSERT_STREQ(found, path);
	/* No v2 line: no path; this process's own: one, at the hierarchy's root or below. */
	ok = ok && ASSERT_EQ(proc_cgroup_v2_path("1:name=systemd:/0::/x\n", 22, found,
						 sizeof(found)),
			     -1) &&
	     ASSERT_EQ(proc_text_read_path(&t, "/proc/self/cgroup", 1 << 20), 0) &&
	     ASSERT_EQ(proc_cgroup_v2_path(t.text, t.len, found, sizeof(found)), 0) &&
	     ASSERT_EQ(found[0], '/');
	proc_text_free(&t);
	return ok;
}

const struct unit_test proc_text_tests[] = {
    UNIT_TEST(a_long_file_is_read_to_its_end),
    UNIT_TEST(a_file_past_its_bound_is_refused),
    UNIT_TEST(a_long_cgroup_line_is_read_whole),
    {},
};
