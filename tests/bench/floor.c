// SPDX-License-Identifier: GPL-2.0
/*
 * floor: load and attach floor.bpf.c's counting programs (those whose tracepoint this kernel
 * has), print "floor: attached N" on stderr, and hold them until SIGINT or SIGTERM.
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "floor.skel.h"

static volatile sig_atomic_t done;

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
		perror("floor: failed to open");
		return 1;
	}
	bpf_object__for_each_program(prog, skel->obj)
	{
		/* floor_<event> attaches to tp_btf/<event> */
		snprintf(name, sizeof(name), "btf_trace_%s", bpf_program__name(prog) + 6);
		if (btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF) < 0)
			bpf_program__set_autoload(prog, false);
	}
	if (floor_bpf__load(skel)) {
		perror("floor: failed to load");
		return 1;
	}
	bpf_object__for_each_program(prog, skel->obj) if (bpf_program__autoload(prog) &&
							  bpf_program__attach(prog)) attached++;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "floor: attached %d\n", attached);
	while (!done)
		pause();
	return 0;
}
