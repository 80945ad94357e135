// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only programs that ask foliostat's interrupt-context test (maps.bpf.h) about events
 * whose context is known: timer-wheel callbacks run in softirq, hrtimer callbacks in hard
 * interrupt (or softirq for soft hrtimers), and sched_switch always in task context; and whether
 * the thread it records as running is the kernel's current one. Linked with
 * foliostat's own tasks and interrupts objects, so it tests the very code foliostat runs.
 */
#include "maps.bpf.h"

#include <bpf/bpf_tracing.h>

/* [event][0]: judged interrupt context, [event][1]: judged task context */
__u64 verdicts[3][2];
/* [event][0]: judged so by the interrupt depth, [event][1]: by the stack test */
__u64 reasons[3][2];
/* Task-context verdicts: [event][0] the recorded running thread is the kernel's current one,
 * [event][1] it is not (the record foliostat's hot programs charge events to) */
__u64 running[3][2];

static __always_inline void judge(int event)
{
	struct fs_cpu *cpu = this_cpu();

	if (!cpu)
		return;
	if (in_interrupt_context(cpu)) {
		__sync_fetch_and_add(&verdicts[event][0], 1);
	} else {
		__sync_fetch_and_add(&verdicts[event][1], 1);
		__sync_fetch_and_add(
		    &running[event][cpu->running_owner == FS_OWNER(bpf_get_current_pid_tgid()) ? 0 : 1], 1);
	}
	if (cpu->irq_depth)
		__sync_fetch_and_add(&reasons[event][0], 1);
	if (frame_off_current_stack(bpf_get_current_task_btf()))
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
