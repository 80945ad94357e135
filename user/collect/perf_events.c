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
#include <cap-ng.h>
#include <linux/capability.h>

#include "opener.h"

/* An event and what its read() gives (read_format below). */
struct event_read {
	__u64 value, enabled;
};

/* The opener's request (see perf_opener_start()). */
struct open_request {
	__u64 config;
	__s32 cpu;
};

static void event_attr(struct perf_event_attr *attr, unsigned long long config)
{
	/* One sample per event: the program sees each, and its return of 0 keeps perf from
	 * writing the sample (there is no buffer to write it to anyway). No frequency mode, so
	 * the kernel's sample-rate limit does not apply; a single event never throttles. The
	 * enabled time tells an event the kernel still runs (see perf_events_refresh()). */
	*attr = (struct perf_event_attr){
	    .type = PERF_TYPE_SOFTWARE,
	    .size = sizeof(*attr),
	    .config = config,
	    .sample_period = 1,
	    .read_format = PERF_FORMAT_TOTAL_TIME_ENABLED,
	};
}

/* The CPUs the host may have, known before the opener's fork (it reads no file after). */
static int possible_cpus;

/* The opener: only page-fault software events, only per CPU (of every task, none in
 * particular: no pid is ever asked for), of a CPU the host may have, nothing else. */
static bool request_allowed(const struct open_request *req)
{
	return (req->config == PERF_COUNT_SW_PAGE_FAULTS ||
		req->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ ||
		req->config == PERF_COUNT_SW_PAGE_FAULTS_MIN) &&
	       req->cpu >= 0 && req->cpu < possible_cpus;
}

/*
 * Whether to keep CAP_SYS_ADMIN too: Debian's and Ubuntu's kernels add perf_event_paranoid
 * levels above 2 (their default is 3) at which perf_event_open() refuses every caller without
 * CAP_SYS_ADMIN, even one with CAP_PERFMON. Kept only if foliostat has it (a service may not).
 */
static bool perf_wants_sys_admin(void)
{
	char text[16] = "";
	int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 && atoi(text) > 2 && !capng_get_caps_process() &&
	       capng_have_capability(CAPNG_PERMITTED, CAP_SYS_ADMIN);
}

/* In the opener: the event of `request`, if it is one an opener may open. */
static int open_event(const void *request)
{
	const struct open_request *req = request;
	struct perf_event_attr attr;
	int fd;

	if (!request_allowed(req))
		return -EINVAL;
	event_attr(&attr, req->config);
	fd = syscall(SYS_perf_event_open, &attr, -1, req->cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int perf_opener_start(void)
{
	static const int calls[] = {__NR_perf_event_open};
	static int caps[2];
	struct opener_kind kind = {
	    .name = "foliostat-perf",
	    .caps = caps,
	    .nr_caps = 1,
	    .calls = calls,
	    .nr_calls = 1,
	    .request_size = sizeof(struct open_request),
	    .open = open_event,
	};

	possible_cpus = libbpf_num_possible_cpus();
	if (possible_cpus <= 0)
		return possible_cpus < 0 ? possible_cpus : -EINVAL;
	caps[0] = CAP_PERFMON;
	if (perf_wants_sys_admin())
		caps[kind.nr_caps++] = CAP_SYS_ADMIN;
	return opener_start(&kind);
}

/* Ask the opener for the event on `cpu`: its descriptor, or a negative errno. */
static int open_through(int opener, unsigned long long config, int cpu)
{
	struct open_request req = {.config = config, .cpu = cpu};

	return opener_ask(opener, &req, sizeof(req));
}

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
	struct perf_event_attr attr;
	struct event_read now;
	struct bpf_link *link;
	int fd, mine;

	if (pel->opener >= 0) {
		fd = open_through(pel->opener, pel->config, cpu);
	} else {
		event_attr(&attr, pel->config);
		fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			fd = -errno;
	}
	if (fd < 0)
		return fd == -ENODEV ? 0 : fd; /* ENODEV: a possible CPU that is offline */
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
	pel->opener = -1;
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
	/* A refusal is returned once, at the refresh that met it; later ones no longer try. */
	return err < 0 ? err : opened;
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
