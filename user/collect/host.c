// SPDX-License-Identifier: GPL-2.0
/* Facts about the host and the clock that every record carries. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "host.h"

int host_info_read(struct host_info *host)
{
	struct utsname uts;

	if (uname(&uts))
		return -errno;
	snprintf(host->hostname, sizeof(host->hostname), "%s", uts.nodename);
	snprintf(host->kernel, sizeof(host->kernel), "%s", uts.release);
	host->nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	host->page_size = sysconf(_SC_PAGESIZE);
	return 0;
}

bool host_mglru_enabled(void)
{
	FILE *f = fopen("/sys/kernel/mm/lru_gen/enabled", "r");
	unsigned int mask = 0;

	if (!f)
		return false;
	if (fscanf(f, "%x", &mask) != 1)
		mask = 0;
	fclose(f);
	return mask != 0;
}

void format_rfc3339(const struct timespec *ts, char *buf, size_t len)
{
	struct tm tm;
	char seconds[32];

	gmtime_r(&ts->tv_sec, &tm);
	strftime(seconds, sizeof(seconds), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03ldZ", seconds, ts->tv_nsec / 1000000);
}
