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

#include "files.h" /* (mapping_folio_orders()'s encoding) */

/*
 * Both sides of each difference are named here, not taken from vmlinux.h: the x86 header comes
 * from a 6.18 kernel and the arm64 one from 6.1, and the same code builds against either.
 */

/* Kernels up to 6.17 declare folio->flags as a plain unsigned long; newer ones wrap it in
 * memdesc_flags_t. Field existence fails on a type mismatch, which tells the two apart. */
struct folio___ulong_flags {
	unsigned long flags;
} __attribute__((preserve_access_index));

struct memdesc_flags___wrapped {
	unsigned long f;
} __attribute__((preserve_access_index));

struct folio___wrapped_flags {
	struct memdesc_flags___wrapped flags;
} __attribute__((preserve_access_index));

/* Older kernels (6.1 among them) keep a large folio's order in a byte of the first tail page;
 * newer ones keep it in the low byte of _flags_1. */
struct folio___order_byte {
	unsigned char _folio_order;
} __attribute__((preserve_access_index));

struct folio___flags_1 {
	unsigned long _flags_1;
} __attribute__((preserve_access_index));

/*
 * Folios come to tp_btf programs as typed kernel pointers, so their fields are read with plain
 * loads (relocated by CO-RE, guarded by the JIT) rather than bpf_probe_read_kernel() calls: these
 * run on every LRU insertion and page-cache addition.
 */
static __always_inline unsigned long folio_head_flags(struct folio *folio)
{
	if (bpf_core_field_exists(struct folio___ulong_flags, flags))
		return ((struct folio___ulong_flags *)folio)->flags;
	return ((struct folio___wrapped_flags *)folio)->flags.f;
}

/* folio_order() for any kernel: 0 unless PG_head marks a large folio. */
static __always_inline unsigned int folio_order_of(struct folio *folio)
{
	unsigned long head = 1UL << bpf_core_enum_value(enum pageflags, PG_head);

	if (!(folio_head_flags(folio) & head))
		return 0;
	if (bpf_core_field_exists(struct folio___order_byte, _folio_order))
		return ((struct folio___order_byte *)folio)->_folio_order;
	return ((struct folio___flags_1 *)folio)->_flags_1 & 0xff;
}

/*
 * Is the current thread running its own code, or was it interrupted? The kernel's answer,
 * preempt_count(), lives in a per-CPU variable that a BPF program can reach only through a typed
 * ksym, which the kernel resolves through kallsyms, and per-CPU variables are in kallsyms only
 * with CONFIG_KALLSYMS_ALL, which many hosts (this project's CI among them) lack. So two cheaper
 * facts are combined (see attribution.bpf.h):
 *
 * - Interrupts taken in kernel mode, softirqs run on bottom-half enable, and NMIs run on per-CPU
 *   stacks of their own, never on the task's stack. A BPF program's frame lives on whatever
 *   stack it runs on, so a frame outside the task's stack means interrupt context.
 * - Interrupts taken in user mode run on the task's stack (x86 switches stacks only when the
 *   kernel stack is in use), and so may softirqs at their exit or in ksoftirqd. Those are seen
 *   by the irq_handler, softirq and hrtimer_expire entry/exit tracepoints, which keep a per-CPU
 *   depth (interrupts.bpf.c).
 *
 * What neither sees: IPI and irq_work vectors taken in user mode, whose handlers do not
 * allocate folios in practice.
 *
 * The stack's size is THREAD_SIZE, which no BTF type gives: the loader measures it at start-up
 * from a frame of its own in a known task context (threads.bpf.c) and sets each CPU's stack_size
 * (struct fs_cpu_state) before it attaches any program that tests stacks.
 */

/*
 * The BPF frame's address minus base's, as a number. Pointer minus pointer is how an address
 * becomes a number (it needs CAP_PERFMON, which foliostat needs anyway). The verifier allows
 * pointer - pointer but not scalar + frame pointer: keep clang from reassociating what the
 * caller adds into the latter.
 */
static __always_inline long frame_minus(const void *base)
{
	long frame_marker = 0;
	long offset = (long)&frame_marker - (long)base;

	asm volatile("" : "+r"(offset));
	return offset;
}

/* Is the frame off the current task's stack? `current` is bpf_get_current_task_btf()'s answer:
 * it gives the stack, and bpf_get_current_task(), the same task as a number, turns
 * frame - task into frame - stack. (attribution.bpf.h records the answer, to ask less often.) */
static __always_inline int frame_off_current_stack(struct task_struct *current, __u64 stack_size)
{
	return bpf_get_current_task() + frame_minus(current) - (__u64)current->stack >= stack_size;
}

/*
 * idx & (size - 1), for a power-of-two size, done where the verifier sees it. Clang knows an
 * already-clamped index is in range and drops a plain mask, then bounds one register and
 * indexes with another; the verifier cannot follow that and rejects the access.
 */
static __always_inline __u64 verifier_bounded(__u64 idx, __u64 size)
{
	__u64 mask = size - 1;

	asm volatile("%0 &= %1" : "+r"(idx) : "r"(mask));
	return idx;
}

/* PF_EXITING, task->flags' bit for a task in do_exit(): 0x4 in every kernel since 2.6 (a
 * #define, which BTF does not carry). */
#define FS_PF_EXITING 0x00000004

/* __GFP_RETRY_MAYFAIL: bit 14 of gfp_t in every kernel since 4.13, a #define up to 6.9 and an
 * anonymous enum (which CO-RE cannot name) since, at the same place. */
#define FS_GFP_RETRY_MAYFAIL (1U << 14)

/* The order readahead chose, in its state since Linux 6.10 (readahead:page_cache_ra_order
 * passes that state). */
struct file_ra_state___order {
	unsigned short order;
} __attribute__((preserve_access_index));

/*
 * The folio orders a file's mapping allows. Linux 6.11 and later keep the smallest and the
 * largest in two fields of its flags (AS_FOLIO_ORDER_MIN and _MAX, AS_FOLIO_ORDER_BITS wide);
 * before, one flag said whether it takes large folios at all (AS_LARGE_FOLIO_SUPPORT), up to
 * the page cache's largest order. Read once per file entry, not per addition.
 */
enum mapping_flags___orders {
	AS_FOLIO_ORDER_BITS___fs,
	AS_FOLIO_ORDER_MIN___fs,
	AS_FOLIO_ORDER_MAX___fs,
};

enum mapping_flags___large {
	AS_LARGE_FOLIO_SUPPORT___fs,
};

static __always_inline __u32 mapping_folio_orders(struct address_space *mapping)
{
	unsigned long flags = mapping->flags, mask;

	if (bpf_core_enum_value_exists(enum mapping_flags___orders, AS_FOLIO_ORDER_MIN___fs)) {
		mask = (1UL << bpf_core_enum_value(enum mapping_flags___orders,
						   AS_FOLIO_ORDER_BITS___fs)) -
		       1;
		return FS_FILE_ORDERS_KNOWN |
		       ((flags >> bpf_core_enum_value(enum mapping_flags___orders,
						      AS_FOLIO_ORDER_MIN___fs)) &
			mask & 0xff) |
		       (((flags >> bpf_core_enum_value(enum mapping_flags___orders,
						       AS_FOLIO_ORDER_MAX___fs)) &
			 mask & 0xff)
			<< 8);
	}
	if (bpf_core_enum_value_exists(enum mapping_flags___large, AS_LARGE_FOLIO_SUPPORT___fs))
		return FS_FILE_ORDERS_KNOWN |
		       (flags & (1UL << bpf_core_enum_value(enum mapping_flags___large,
							    AS_LARGE_FOLIO_SUPPORT___fs))
			    ? FS_FILE_ORDERS_UP_TO_MAX
			    : 0);
	return 0;
}

#endif /* FS_COMPAT_BPF_H */
