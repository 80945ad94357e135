// SPDX-License-Identifier: GPL-2.0
/*
 * irqcheck [SECS [STACK_SIZE]]: attaches foliostat's context-switch and interrupt-depth programs
 * and tests/irqcheck.bpf.c for SECS seconds (default 3), with the kernel stack size foliostat
 * measured (from foliostat --check; default 16384), then prints how each known-context event was
 * judged, as JSON:
 * {"timer_softirq":[interrupt,task],"hrtimer":[...],"sched_switch":[...],"reasons":{...}}
 * where reasons counts, per event, interrupt verdicts by the depth and by the stack test, and
 * running, per event judged task context, whether the thread recorded as running was the
 * kernel's current one ([right, wrong]).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/types.h>

/* The skeleton names the types of every linked object's globals: files.bpf.c's too. */
#include "files.h"
#include "foliostat.h"
#include "irqcheck.skel.h"

/* Only the programs under test: the checks, and what keeps the records and the depth. */
static bool under_test(const char *name)
{
	static const char *const prefixes[] = {"check_", "fs_switch", "fs_irq_", "fs_softirq_",
					       "fs_hrtimer_"};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* The stacks' size, which foliostat's loader gives every CPU (struct fs_cpu_state) once loaded. */
static int configure_cpus(struct irqcheck_bpf *skel, __u64 stack_size)
{
	int nr_cpus = libbpf_num_possible_cpus(), err;
	struct fs_cpu_state *values = calloc(nr_cpus > 0 ? nr_cpus : 1, sizeof(*values));
	__u32 zero = 0;

	if (!values || nr_cpus < 0)
		return -1;
	for (int i = 0; i < nr_cpus; i++)
		values[i].stack_size = stack_size;
	err = bpf_map__update_elem(skel->maps.fs_cpu_states, &zero, sizeof(zero), values,
				   nr_cpus * sizeof(*values), 0);
	free(values);
	return err;
}

int main(int argc, char **argv)
{
	struct irqcheck_bpf *skel = irqcheck_bpf__open();
	static const char *const names[] = {"timer_softirq", "hrtimer", "sched_switch"};
	int secs = argc > 1 ? atoi(argv[1]) : 3;
	struct bpf_program *prog;

	if (!skel) {
		perror("irqcheck: failed to open");
		return 1;
	}
	bpf_object__for_each_program(prog, skel->obj)
	    bpf_program__set_autoload(prog, under_test(bpf_program__name(prog)));
	/* Records in use, as foliostat's loader sets them before load (maps.bpf.h). */
	skel->rodata->fs_use_records = 1;
	if (irqcheck_bpf__load(skel) ||
	    configure_cpus(skel, argc > 2 ? strtoull(argv[2], NULL, 0) : 16384))
		goto fail;
	if (irqcheck_bpf__attach(skel)) {
	fail:
		perror("irqcheck: failed to load or attach");
		irqcheck_bpf__destroy(skel);
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
