// SPDX-License-Identifier: GPL-2.0
/*
 * Context switches and interrupt depth per CPU. sched_switch records the thread switched to
 * (attribution.bpf.h). Handlers and softirqs that run on the interrupted task's own stack are
 * invisible to the stack test in compat.bpf.h, so their entry and exit are counted here.
 *
 * A lost exit would leave a CPU "in an interrupt" for good, so:
 * - exits are attached before entries, and only with sched_switch (loader.c);
 * - an exit never takes the depth below zero (attaching mid-handler sees an exit alone);
 * - a context switch, which never happens inside an interrupt, resets the depth. That heals
 *   the one loss BPF can cause: a hard hrtimer firing while a soft hrtimer's exit program runs
 *   finds that program busy on this CPU, and its own exit is skipped.
 */
#include "attribution.bpf.h"

#include <bpf/bpf_tracing.h>

static __always_inline void enter_interrupt(void)
{
	struct fs_cpu_state *st = this_cpu_state();

	if (st)
		st->irq_depth++;
}

static __always_inline void leave_interrupt(void)
{
	struct fs_cpu_state *st = this_cpu_state();

	if (st && st->irq_depth)
		st->irq_depth--;
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
 * A context switch: reset the interrupt depth, and record the thread switched to (its entry is
 * found by its first event), keeping the one switched from for the events of the switch itself.
 * Both tasks' fields were just read by the scheduler: cheap loads.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(fs_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct fs_cpu_state *st = this_cpu_state();

	if (!st)
		return 0;
	st->irq_depth = 0;
	if (!fs_use_records)
		return 0;
	if (st->self && st->running.key == thread_key(prev))
		st->previous = st->running;
	else
		record_running(st, &st->previous, prev);
	record_running(st, &st->running, next);
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
