// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only programs that ask foliostat's interrupt-context test (attribution.bpf.h) about
 * events whose context is known: timer-wheel callbacks run in softirq, hrtimer callbacks in hard
 * interrupt (or softirq for soft hrtimers), and sched_switch always in task context; and whether
 * the thread whose record a task-context event is charged to is the kernel's current one.
 * Linked with foliostat's own tasks and interrupts objects, so it tests the very code foliostat
 * runs.
 */
#include "attribution.bpf.h"

#include <bpf/bpf_tracing.h>

/* [event][0]: judged interrupt context, [event][1]: judged task context */
__u64 verdicts[3][2];
/* [event][0]: judged so by the interrupt depth, [event][1]: by the stack test */
__u64 reasons[3][2];
/* Task-context verdicts: [event][0] the thread whose record the event is charged to (the
 * running one's, or the previous one's for the events of a switch) is the kernel's current one,
 * [event][1] it is not */
__u64 running[3][2];

/* The key of the thread a task-context event is charged to, as the hot programs choose it. */
static __always_inline __u64 charged_key(struct fs_cpu_state *st, struct task_struct *current)
{
	if (st->self) {
		if (on_recorded_stack(st, &st->running))
			return st->running.key;
		if (on_recorded_stack(st, &st->previous))
			return st->previous.key;
	}
	return thread_key(current);
}

static __always_inline void judge(int event)
{
	struct task_struct *current = bpf_get_current_task_btf();
	struct fs_cpu_state *st = this_cpu_state();

	if (!st)
		return;
	if (!task_context_counters(st)) {
		__sync_fetch_and_add(&verdicts[event][0], 1);
	} else {
		__sync_fetch_and_add(&verdicts[event][1], 1);
		__sync_fetch_and_add(
		    &running[event][charged_key(st, current) == thread_key(current) ? 0 : 1], 1);
	}
	if (st->irq_depth)
		__sync_fetch_and_add(&reasons[event][0], 1);
	if (frame_off_current_stack(bpf_get_current_task_btf(), st->stack_size))
		__sync_fetch_and_add(&reasons[event][1], 1);
}

SEC("tp_btf/timer_expire_entry")
int BPF_PROG(check_timer_softirq)
{
	judge(0);
	return 0;
}

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(check_hrtimer)
{
	judge(1);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(check_sched_switch)
{
	judge(2);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
