// SPDX-License-Identifier: GPL-2.0
/*
 * tlbcontrol: attach tlbcontrol.bpf.c's program to tlb:tlb_flush, say "tlbcontrol: attached" on
 * standard error, and at SIGINT or SIGTERM print what it counted, a line "REASON COUNT" per
 * reason value (the kernel's enum tlb_flush_reason) it saw, summed over the CPUs, and a line
 * "missed N": the runs the kernel skipped because the program was already running on the CPU
 * (a shootdown's IPI in the middle of a run), which it counted for no reason.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "tlbcontrol.skel.h"

static volatile sig_atomic_t done;

static void on_signal(int sig)
{
	(void)sig;
	done = 1;
}

int main(void)
{
	struct tlbcontrol_bpf *skel;
	struct bpf_prog_info info = {0};
	__u32 len = sizeof(info);
	int cpus = libbpf_num_possible_cpus(), fd;
	__u64 *values;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	skel = tlbcontrol_bpf__open_and_load();
	if (!skel || tlbcontrol_bpf__attach(skel)) {
		perror("tlbcontrol: failed to attach");
		return 1;
	}
	values = calloc((size_t)(cpus > 0 ? cpus : 1), sizeof(*values));
	if (!values) {
		perror("tlbcontrol");
		return 1;
	}
	fprintf(stderr, "tlbcontrol: attached\n");
	while (!done)
		pause();
	/* Detached before the counts are read: none is added after. */
	tlbcontrol_bpf__detach(skel);
	fd = bpf_map__fd(skel->maps.control_flushes);
	for (__u32 reason = 0; reason < bpf_map__max_entries(skel->maps.control_flushes);
	     reason++) {
		__u64 sum = 0;

		if (bpf_map_lookup_elem(fd, &reason, values)) {
			perror("tlbcontrol: failed to read the counts");
			return 1;
		}
		for (int cpu = 0; cpu < cpus; cpu++)
			sum += values[cpu];
		if (sum)
			printf("%u %llu\n", reason, (unsigned long long)sum);
	}
	if (bpf_obj_get_info_by_fd(bpf_program__fd(skel->progs.control_tlb_flush), &info, &len)) {
		perror("tlbcontrol: failed to read the program's misses");
		return 1;
	}
	printf("missed %llu\n", (unsigned long long)info.recursion_misses);
	tlbcontrol_bpf__destroy(skel);
	free(values);
	return 0;
}
