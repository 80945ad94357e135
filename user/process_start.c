// SPDX-License-Identifier: GPL-2.0
/* A process's start time from /proc (see process_start.h). */
#include "process_start.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int stat_start_ticks(const char *line, unsigned long long *ticks)
{
	/* The name ends at the last ')': fields 3 onwards are numbers and one letter. */
	const char *p = strrchr(line, ')');
	char *end;

	if (!p)
		return -EINVAL;
	p++;
	/* Fields 3 (state) to 21, then 22. */
	for (int field = 3; field <= 22; field++) {
		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			return -EINVAL;
		if (field == 22)
			break;
		while (*p && *p != ' ')
			p++;
	}
	errno = 0;
	*ticks = strtoull(p, &end, 10);
	return end == p || errno || (*end && *end != ' ' && *end != '\n') ? -EINVAL : 0;
}

int process_start_ticks(int pid, unsigned long long *ticks)
{
	/* A line is short: the name is at most 64 bytes, and the 50-odd numbers ~20 each. */
	char path[32], line[2048];
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -errno;
	len = read(fd, line, sizeof(line) - 1);
	if (len < 0) {
		int err = -errno;

		close(fd);
		/* Read as the process is reaped. */
		return err == -ESRCH ? -ENOENT : err;
	}
	close(fd);
	line[len] = '\0';
	return stat_start_ticks(line, ticks);
}

void format_start_time(__u64 start_ns, char buf[FS_START_TIME_LEN])
{
	snprintf(buf, FS_START_TIME_LEN, "%llu.%06llu", (unsigned long long)(start_ns / 1000000000),
		 (unsigned long long)(start_ns / 1000 % 1000000));
}

__u64 clock_tick_ns(void)
{
	long hz = sysconf(_SC_CLK_TCK);

	return 1000000000ULL / (__u64)(hz > 0 ? hz : 100);
}

bool process_alive(int pid, __u64 start_ns)
{
	unsigned long long ticks;
	int err = process_start_ticks(pid, &ticks);

	if (!err)
		return ticks == start_tick(start_ns, clock_tick_ns());
	/* Hidden (/proc mounted with hidepid) or unreadable: the pid's process, if any, is
	 * taken for it. */
	return !(kill(pid, 0) && errno == ESRCH);
}
