/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, in one place. Each flavour struct below names the layout of an
 * older or newer kernel; bpf_core_field_exists()/bpf_core_type_exists() pick the one the running
 * kernel has when the program is loaded, and the other branch is pruned by the verifier.
 */
#ifndef FS_COMPAT_BPF_H
#define FS_COMPAT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

/* Kernels up to 6.17 declare folio->flags as a plain unsigned long; newer ones wrap it in
 * memdesc_flags_t. Field existence fails on a type mismatch, which tells the two apart. */
struct folio___ulong_flags {
	unsigned long flags;
} __attribute__((preserve_access_index));

/* Older kernels (6.1 among them) keep a large folio's order in a byte of the first tail page;
 * newer ones keep it in the low byte of _flags_1. */
struct folio___order_byte {
	unsigned char _folio_order;
} __attribute__((preserve_access_index));

static __always_inline unsigned long folio_head_flags(struct folio *folio)
{
	if (bpf_core_field_exists(struct folio___ulong_flags, flags))
		return BPF_CORE_READ((struct folio___ulong_flags *)folio, flags);
	return BPF_CORE_READ(folio, flags.f);
}

/* folio_order() for any kernel: 0 unless PG_head marks a large folio. */
static __always_inline unsigned int folio_order_of(struct folio *folio)
{
	unsigned long head = 1UL << bpf_core_enum_value(enum pageflags, PG_head);

	if (!(folio_head_flags(folio) & head))
		return 0;
	if (bpf_core_field_exists(struct folio___order_byte, _folio_order))
		return BPF_CORE_READ((struct folio___order_byte *)folio, _folio_order);
	return BPF_CORE_READ(folio, _flags_1) & 0xff;
}

/*
 * Interrupt context. The kernel's own test, preempt_count(), lives in a per-CPU variable that a
 * BPF program can only reach through a typed ksym, and that needs CONFIG_KALLSYMS, which many
 * hosts (this project's CI among them) lack. So ask where we are running instead: hard
 * interrupts, softirqs run at interrupt exit or bottom-half enable, and NMIs all run on per-CPU
 * stacks of their own, never on the interrupted task's stack. A BPF program's frame lives on
 * whatever kernel stack it runs on, so "is my frame inside current->stack?" answers "am I in
 * task context?". Softirq work done by ksoftirqd runs on ksoftirqd's stack and is charged to it.
 * Pointer subtraction turns the frame address into a number; it needs CAP_PERFMON, which
 * foliostat needs anyway.
 */
extern const volatile __u64 fs_task_stack_size; /* THREAD_SIZE, set by the loader */

static __always_inline int in_interrupt_context(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	long frame_marker = 0;
	long frame_from_task = (long)&frame_marker - (long)task;

	/* The verifier allows pointer - pointer but not scalar + frame pointer: keep clang from
	 * reassociating the sum below into the latter. */
	asm volatile("" : "+r"(frame_from_task));
	return bpf_get_current_task() + frame_from_task - (__u64)task->stack >=
	       fs_task_stack_size;
}

#endif /* FS_COMPAT_BPF_H */
