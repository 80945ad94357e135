// SPDX-License-Identifier: GPL-2.0
/* Per-CPU perf software events with a BPF program attached (see perf_events.h). */
#include "perf_events.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>

/* An event and what its read() gives (read_format below). */
struct event_read {
	__u64 value, enabled;
};

static void close_cpu(struct perf_event_links *pel, int cpu)
{
	if (!pel->links[cpu])
		return;
	bpf_link__destroy(pel->links[cpu]);
	close(pel->fds[cpu]);
	pel->links[cpu] = NULL;
	pel->fds[cpu] = -1;
	pel->nr--;
}

/* Open and attach the event on `cpu`. Returns 1, 0 for an offline CPU, or a negative errno. */
static int open_cpu(struct perf_event_links *pel, int cpu)
{
	/* One sample per event: the program sees each, and its return of 0 keeps perf from
	 * writing the sample (there is no buffer to write it to anyway). No frequency mode, so
	 * the kernel's sample-rate limit does not apply; a single event never throttles. The
	 * enabled time tells an event the kernel still runs (see perf_events_refresh()). */
	struct perf_event_attr attr = {
	    .type = PERF_TYPE_SOFTWARE,
	    .size = sizeof(attr),
	    .config = pel->config,
	    .sample_period = 1,
	    .read_format = PERF_FORMAT_TOTAL_TIME_ENABLED,
	};
	struct event_read now;
	struct bpf_link *link;
	int fd, mine;

	fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno == ENODEV ? 0 : -errno; /* ENODEV: a possible CPU that is offline */
	/* The link owns fd (and may hold a BPF link's descriptor instead): keep one of ours. */
	mine = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (mine < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	link = bpf_program__attach_perf_event(pel->prog, fd);
	if (!link) {
		int err = -errno;

		close(fd);
		close(mine);
		return err;
	}
	pel->links[cpu] = link;
	pel->fds[cpu] = mine;
	pel->enabled[cpu] = read(mine, &now, sizeof(now)) == sizeof(now) ? now.enabled : 0;
	pel->nr++;
	return 1;
}

int perf_events_attach(struct perf_event_links *pel, struct bpf_program *prog,
		       unsigned long long config)
{
	int nr_cpus = libbpf_num_possible_cpus();
	int err = 0;

	memset(pel, 0, sizeof(*pel));
	if (nr_cpus < 0)
		return nr_cpus;
	pel->prog = prog;
	pel->config = config;
	pel->nr_cpus = nr_cpus;
	pel->links = calloc(nr_cpus, sizeof(*pel->links));
	pel->fds = malloc(nr_cpus * sizeof(*pel->fds));
	pel->enabled = calloc(nr_cpus, sizeof(*pel->enabled));
	if (!pel->links || !pel->fds || !pel->enabled) {
		perf_events_detach(pel);
		return -ENOMEM;
	}
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		pel->fds[cpu] = -1;
	for (int cpu = 0; cpu < nr_cpus && err >= 0; cpu++)
		err = open_cpu(pel, cpu);
	if (err < 0) {
		perf_events_detach(pel);
		return err;
	}
	return 0;
}

int perf_events_refresh(struct perf_event_links *pel, const bool *online, int nr_cpus)
{
	int opened = 0, err = 0;

	for (int cpu = 0; cpu < pel->nr_cpus; cpu++) {
		bool up = cpu < nr_cpus && online[cpu];
		struct event_read now;

		if (pel->links[cpu] && up) {
			/* An event of a CPU that went offline is taken out of its CPU's context
			 * and stays out when the CPU comes back: its enabled time stops. */
			if (read(pel->fds[cpu], &now, sizeof(now)) == sizeof(now) &&
			    now.enabled != pel->enabled[cpu]) {
				pel->enabled[cpu] = now.enabled;
				continue;
			}
		}
		close_cpu(pel, cpu);
		if (!up || pel->cannot_open)
			continue;
		err = open_cpu(pel, cpu);
		if (err == -EACCES || err == -EPERM)
			pel->cannot_open = true;
		else if (err < 0)
			break;
		else
			opened += err;
	}
	return err < 0 && !pel->cannot_open ? err : opened;
}

void perf_events_detach(struct perf_event_links *pel)
{
	for (int cpu = 0; pel->links && cpu < pel->nr_cpus; cpu++)
		close_cpu(pel, cpu);
	free(pel->links);
	free(pel->fds);
	free(pel->enabled);
	memset(pel, 0, sizeof(*pel));
}

int parse_cpu_list(const char *text, bool *online, int nr)
{
	const char *p = text;

	memset(online, 0, nr * sizeof(*online));
	while (*p && *p != '\n') {
		char *end;
		long first = strtol(p, &end, 10), last = first;

		if (end == p || first < 0)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			last = strtol(p + 1, &end, 10);
			if (end == p + 1 || last < first)
				return -EINVAL;
			p = end;
		}
		for (long cpu = first; cpu <= last && cpu < nr; cpu++)
			online[cpu] = true;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	return 0;
}
