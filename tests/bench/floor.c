// SPDX-License-Identifier: GPL-2.0
/*
 * floor: load and attach floor.bpf.c's counting programs (those whose tracepoint this kernel
 * has, and those of perf's software events on every CPU), print "floor: attached N" on stderr,
 * and hold them until SIGINT or SIGTERM. Built a second time as `empty` (TRACER "empty"), with
 * the skeleton of the same programs' empty bodies (FS_DISPATCH_ONLY in floor.bpf.c).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "floor.skel.h"

#ifndef TRACER
#define TRACER "floor"
#endif

static volatile sig_atomic_t done;

/* Attach `prog` to perf's software event `config` on every online CPU, each occurrence a
 * sample, as foliostat does (user/collect/perf_events.c); returns how many CPUs it is attached
 * on. */
static int attach_software_event(struct bpf_program *prog, unsigned long long config)
{
	struct perf_event_attr attr;
	int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN), attached = 0;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.size = sizeof(attr);
	attr.config = config;
	attr.sample_period = 1;
	for (int cpu = 0; cpu < cpus; cpu++) {
		int fd = (int)syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd >= 0 && bpf_program__attach_perf_event(prog, fd))
			attached++;
	}
	return attached;
}

static void on_signal(int sig)
{
	(void)sig;
	done = 1;
}

int main(void)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	struct floor_bpf *skel = floor_bpf__open();
	struct bpf_program *prog;
	int attached = 0;
	char name[128];

	if (!vmlinux || !skel) {
		perror(TRACER ": failed to open");
		return 1;
	}
	bpf_object__for_each_program(prog, skel->obj)
	{
		if (strncmp(bpf_program__name(prog), "floor_perf_", 11) == 0)
			continue;
		/* floor_<event> attaches to tp_btf/<event> */
		snprintf(name, sizeof(name), "btf_trace_%s", bpf_program__name(prog) + 6);
		if (btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF) < 0)
			bpf_program__set_autoload(prog, false);
	}
	if (floor_bpf__load(skel)) {
		perror(TRACER ": failed to load");
		return 1;
	}
	bpf_object__for_each_program(prog, skel->obj)
	{
		const char *prog_name = bpf_program__name(prog);

		if (strcmp(prog_name, "floor_perf_major_faults") == 0)
			attached += attach_software_event(prog, PERF_COUNT_SW_PAGE_FAULTS_MAJ) > 0;
		else if (strcmp(prog_name, "floor_perf_minor_faults") == 0)
			attached += attach_software_event(prog, PERF_COUNT_SW_PAGE_FAULTS_MIN) > 0;
		else if (bpf_program__autoload(prog) && bpf_program__attach(prog))
			attached++;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, TRACER ": attached %d\n", attached);
	while (!done)
		pause();
	return 0;
}
