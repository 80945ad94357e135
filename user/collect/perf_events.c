// SPDX-License-Identifier: GPL-2.0
/* Per-CPU perf software events with a BPF program attached (see perf_events.h). */
#define _GNU_SOURCE /* close_range */
#include "perf_events.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <bpf/libbpf.h>
#include <cap-ng.h>
#include <linux/capability.h>

#include "sandbox.h"

/* An event and what its read() gives (read_format below). */
struct event_read {
	__u64 value, enabled;
};

/* The opener's request and answer (see perf_opener_start()). */
struct open_request {
	__u64 config;
	__s32 cpu;
};

struct open_answer {
	__s32 error; /* 0: the event's descriptor comes with it */
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

/* The opener: only page-fault software events, only per CPU, nothing else. */
static bool request_allowed(const struct open_request *req)
{
	return (req->config == PERF_COUNT_SW_PAGE_FAULTS ||
		req->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ ||
		req->config == PERF_COUNT_SW_PAGE_FAULTS_MIN) &&
	       req->cpu >= 0;
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

/* The opener's calls once it serves: recv() is recvfrom on both architectures; exit_group is
 * _exit's; rt_sigreturn and restart_syscall are the kernel's own returns. */
static const int opener_calls[] = {
    __NR_recvfrom,   __NR_sendmsg, __NR_perf_event_open, __NR_close,
    __NR_exit_group, __NR_exit,	   __NR_rt_sigreturn,	 __NR_restart_syscall,
};
#define NR_OPENER_CALLS (sizeof(opener_calls) / sizeof(opener_calls[0]))

static void opener_main(int sock)
{
	struct open_request req;
	bool sys_admin;

	/* A name of its own: it is no second foliostat (run-tests.sh looks for those). */
	prctl(PR_SET_NAME, "foliostat-perf", 0, 0, 0);
	/* Ended by foliostat's end alone (a Ctrl-C reaches its process group too). */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	/* Nothing of foliostat's but the socket: no map, program or link stays alive here. */
	if (dup2(sock, 3) != 3 || close_range(4, ~0U, 0))
		_exit(1);
	sys_admin = perf_wants_sys_admin();
	capng_clear(CAPNG_SELECT_BOTH);
	if (capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_PERFMON) ||
	    (sys_admin &&
	     capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_SYS_ADMIN)) ||
	    capng_apply(CAPNG_SELECT_BOTH) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_PDEATHSIG, SIGKILL))
		_exit(1);
	/* Its every call from here on is known: only those pass. */
	if (seccomp_available() && seccomp_allow_only(opener_calls, NR_OPENER_CALLS))
		_exit(1);
	/* foliostat's end closes its end of the socket: recv() returns 0. */
	while (recv(3, &req, sizeof(req), 0) == (ssize_t)sizeof(req)) {
		char control[CMSG_SPACE(sizeof(int))] = {0};
		struct open_answer answer = {0};
		struct iovec iov = {.iov_base = &answer, .iov_len = sizeof(answer)};
		struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
		struct perf_event_attr attr;
		int fd = -1;

		if (!request_allowed(&req)) {
			answer.error = EINVAL;
		} else {
			event_attr(&attr, req.config);
			fd = syscall(SYS_perf_event_open, &attr, -1, req.cpu, -1,
				     PERF_FLAG_FD_CLOEXEC);
			answer.error = fd < 0 ? errno : 0;
		}
		if (fd >= 0) {
			struct cmsghdr *cmsg;

			msg.msg_control = control;
			msg.msg_controllen = sizeof(control);
			cmsg = CMSG_FIRSTHDR(&msg);
			cmsg->cmsg_level = SOL_SOCKET;
			cmsg->cmsg_type = SCM_RIGHTS;
			cmsg->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cmsg), &fd, sizeof(fd));
		}
		if (sendmsg(3, &msg, 0) < 0)
			_exit(1);
		if (fd >= 0)
			close(fd);
	}
	_exit(0);
}

int perf_opener_start(void)
{
	int sv[2];
	pid_t pid;

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
		opener_main(sv[1]);
	close(sv[1]);
	return sv[0];
}

/* Ask the opener for the event on `cpu`: its descriptor, or a negative errno. */
static int open_through(int opener, unsigned long long config, int cpu)
{
	struct open_request req = {.config = config, .cpu = cpu};
	char control[CMSG_SPACE(sizeof(int))];
	struct open_answer answer;
	struct iovec iov = {.iov_base = &answer, .iov_len = sizeof(answer)};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control,
			     .msg_controllen = sizeof(control)};
	struct cmsghdr *cmsg;
	int fd;

	if (send(opener, &req, sizeof(req), 0) != (ssize_t)sizeof(req) ||
	    recvmsg(opener, &msg, MSG_CMSG_CLOEXEC) != (ssize_t)sizeof(answer))
		return -EPERM; /* the opener is gone: nothing more can be opened */
	if (answer.error)
		return -answer.error;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS || cmsg->cmsg_len != CMSG_LEN(sizeof(int)))
		return -EPROTO;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(fd));
	return fd;
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
