// SPDX-License-Identifier: GPL-2.0
/*
 * irqcheck: attaches foliostat's interrupt-depth programs and tests/irqcheck.bpf.c for SECS
 * seconds (default 3), then prints how each known-context event was judged, as JSON:
 * {"timer_softirq":[interrupt,task],"hrtimer":[...],"sched_switch":[...]}
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "irqcheck.skel.h"

int main(int argc, char **argv)
{
	struct irqcheck_bpf *skel = irqcheck_bpf__open();
	int secs = argc > 1 ? atoi(argv[1]) : 3;

	if (!skel || irqcheck_bpf__load(skel) || irqcheck_bpf__attach(skel)) {
		perror("irqcheck: failed to load or attach");
		return 1;
	}
	sleep(secs);
	printf("{\"timer_softirq\":[%llu,%llu],\"hrtimer\":[%llu,%llu],\"sched_switch\":[%llu,%llu]}\n",
	       skel->bss->verdicts[0][0], skel->bss->verdicts[0][1], skel->bss->verdicts[1][0],
	       skel->bss->verdicts[1][1], skel->bss->verdicts[2][0], skel->bss->verdicts[2][1]);
	irqcheck_bpf__destroy(skel);
	return 0;
}
