// SPDX-License-Identifier: GPL-2.0
/*
 * irqcheck: attaches foliostat's interrupt-depth programs and tests/irqcheck.bpf.c for SECS
 * seconds (default 3), then prints how each known-context event was judged, as JSON:
 * {"timer_softirq":[interrupt,task],"hrtimer":[...],"sched_switch":[...],"reasons":{...}}
 * where reasons counts, per event, interrupt verdicts by the depth and by the stack test, and
 * running, per event judged task context, whether the thread recorded as running was the
 * kernel's current one ([right, wrong]).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "irqcheck.skel.h"

int main(int argc, char **argv)
{
	struct irqcheck_bpf *skel = irqcheck_bpf__open();
	static const char *const names[] = {"timer_softirq", "hrtimer", "sched_switch"};
	int secs = argc > 1 ? atoi(argv[1]) : 3;

	if (!skel || irqcheck_bpf__load(skel) || irqcheck_bpf__attach(skel)) {
		perror("irqcheck: failed to load or attach");
		return 1;
	}
	sleep(secs);
	printf("{");
	for (int e = 0; e < 3; e++)
		printf("\"%s\":[%llu,%llu],", names[e], skel->bss->verdicts[e][0],
		       skel->bss->verdicts[e][1]);
	printf("\"reasons\":{");
	for (int e = 0; e < 3; e++)
		printf("\"%s\":{\"depth\":%llu,\"stack\":%llu}%s", names[e],
		       skel->bss->reasons[e][0], skel->bss->reasons[e][1], e < 2 ? "," : "");
	printf("},\"running\":{");
	for (int e = 0; e < 3; e++)
		printf("\"%s\":[%llu,%llu]%s", names[e], skel->bss->running[e][0],
		       skel->bss->running[e][1], e < 2 ? "," : "");
	printf("}}\n");
	irqcheck_bpf__destroy(skel);
	return 0;
}
