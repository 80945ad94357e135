// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupt depth per CPU: handlers and softirqs that run on the interrupted task's own stack
 * are invisible to the stack test in compat.bpf.h, so their entry and exit are counted here.
 *
 * A lost exit would leave a CPU "in an interrupt" for good, so:
 * - exits are attached before entries (and come first in this file, for skeleton attach);
 * - an exit never takes the depth below zero (attaching mid-handler sees an exit alone);
 * - a context switch, which never happens inside an interrupt, resets the depth. That heals
 *   the one loss BPF can cause: a hard hrtimer firing while a soft hrtimer's exit program runs
 *   finds that program busy on this CPU, and its own exit is skipped.
 */
#include "maps.bpf.h"

#include <bpf/bpf_tracing.h>

static __always_inline void enter_interrupt(void)
{
	struct fs_cpu *cpu = this_cpu();

	if (cpu)
		cpu->irq_depth++;
}

static __always_inline void leave_interrupt(void)
{
	struct fs_cpu *cpu = this_cpu();

	if (cpu && cpu->irq_depth)
		cpu->irq_depth--;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(fs_irq_exit)
{
	leave_interrupt();
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(fs_softirq_exit)
{
	leave_interrupt();
	return 0;
}

SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(fs_hrtimer_exit)
{
	leave_interrupt();
	return 0;
}

/*
 * A context switch: reset the interrupt depth, and mark this CPU's record of the running thread
 * out of date (see record_running() in maps.bpf.h); the next thread's first event that needs it
 * asks the kernel. One store: recording the next thread here would read its task_struct,
 * likely cold, at every switch, events or not.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(fs_switch)
{
	struct fs_cpu *cpu = this_cpu();

	/* Both in the line every event reads, which this store dirties anyway: no test first. */
	if (cpu) {
		cpu->irq_depth = 0;
		cpu->self = 0;
	}
	return 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(fs_irq_entry)
{
	enter_interrupt();
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(fs_softirq_entry)
{
	enter_interrupt();
	return 0;
}

/* hrtimer callbacks run in hard interrupt context from the timer vector, which has no
 * irq_handler event of its own. */
SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(fs_hrtimer_entry)
{
	enter_interrupt();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
