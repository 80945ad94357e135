// SPDX-License-Identifier: GPL-2.0
/*
 * Page faults: hardware faults by mode and by cause (x86 exceptions tracepoints), or by mode
 * only where those do not exist (the perf software event), faults served through the page
 * cache (filemap), and completed faults, major and minor (perf), charged to the faulting
 * thread.
 */
#include "attribution.bpf.h"

#include <bpf/bpf_tracing.h>

/* Bits of the x86 page-fault error code, fixed by the architecture (SDM vol. 3, 4.7). */
#define PF_PROT 0x1   /* 0: the page was not present; 1: a protection violation */
#define PF_WRITE 0x2  /* the access was a write */
#define PF_INSTR 0x10 /* the access was an instruction fetch */

/* The power of two above the fault kinds, for the verifier's bound on the index. */
#define KIND_BOUND 16
_Static_assert(FS_NR_FAULT_KINDS <= KIND_BOUND, "fault kinds fit under their bound");

/* One fault of `kind` (FS_FAULT_KIND()), taken in `mode`, charged to the faulting thread. */
static __always_inline void count_fault(struct fs_cpu_state *st, int mode, __u64 kind)
{
	/* A fault taken in user mode interrupted user code: task context by definition. */
	struct fs_counters *target =
	    mode == FS_MODE_USER ? charge_task_context(st) : charge_target(st);

	fs_count(target->fault_kinds[kind], 1);
}

static __always_inline void count_hardware_fault(int mode, unsigned long error_code)
{
	struct fs_cpu_state *st = this_cpu_state();
	int access = FS_ACCESS_READ;
	__u64 kind; /* 64 bits: a sign extension of an int would lose the bound below */

	if (!st)
		return;
	if (error_code & PF_INSTR)
		access = FS_ACCESS_EXEC;
	else if (error_code & PF_WRITE)
		access = FS_ACCESS_WRITE;
	kind = FS_FAULT_KIND(mode, access,
			     error_code & PF_PROT ? FS_CAUSE_PROTECTION : FS_CAUSE_NOT_PRESENT);
	/* Clang joins the parts of the kind with an OR, and older verifiers forget every bound of
	 * an OR with a register (Linux 6.1 then refuses the index): a mask gives it back, at one
	 * instruction. The masked index stays inside the entry, and the kind is below 12 anyway. */
	count_fault(st, mode, verifier_bounded(kind, KIND_BOUND));
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(fs_fault_user, unsigned long address, struct pt_regs *regs, unsigned long error_code)
{
	count_hardware_fault(FS_MODE_USER, error_code);
	return 0;
}

SEC("tp_btf/page_fault_kernel")
int BPF_PROG(fs_fault_kernel, unsigned long address, struct pt_regs *regs, unsigned long error_code)
{
	count_hardware_fault(FS_MODE_KERNEL, error_code);
	return 0;
}

/*
 * Other architectures have no fault tracepoints; perf's software event "page-faults" fires on
 * all of them, in the faulting thread, with the registers of the faulting context (the loader
 * opens one per CPU, each event a sample, and this program consumes it: 0 keeps perf from
 * writing it anywhere). The architecture's syndrome (arm64's ESR, which says read or write,
 * translation or permission fault) is not among them, so only the mode is known: the kernel
 * lives in the upper half of the address space on the architectures foliostat builds for, so a
 * fault is a user-mode one when its instruction pointer is in the lower half.
 */
#if !defined(__TARGET_ARCH_x86) && !defined(__TARGET_ARCH_arm64)
#error "the fault event's mode test assumes a kernel in the upper half of the address space"
#endif

SEC("perf_event")
int fs_fault_event(struct bpf_perf_event_data *ctx)
{
	struct fs_cpu_state *st = this_cpu_state();

	if (!st)
		return 0;
	if ((long)PT_REGS_IP(&ctx->regs) >= 0)
		count_fault(st, FS_MODE_USER, FS_FAULT_KIND_MODE_ONLY(FS_MODE_USER));
	else
		count_fault(st, FS_MODE_KERNEL, FS_FAULT_KIND_MODE_ONLY(FS_MODE_KERNEL));
	return 0;
}

/*
 * Completed faults as the kernel accounts them to the task: mm_account_fault() adds each to the
 * task's maj_flt or min_flt (getrusage's majflt and minflt) and raises perf's software event
 * page-faults-maj or -min beside it, in the faulting thread, on every architecture. Faults that
 * failed or will be retried raise neither; faults taken on another's behalf by
 * get_user_pages() (no registers) only the task's counts.
 */
static __always_inline void count_completed_fault(bool major)
{
	struct fs_cpu_state *st = this_cpu_state();
	struct fs_counters *target;

	if (!st)
		return;
	target = charge_task_context(st);
	if (major)
		fs_count(target->major_faults, 1);
	else
		fs_count(target->minor_faults, 1);
}

SEC("perf_event")
int fs_fault_major(struct bpf_perf_event_data *ctx)
{
	count_completed_fault(true);
	return 0;
}

SEC("perf_event")
int fs_fault_minor(struct bpf_perf_event_data *ctx)
{
	count_completed_fault(false);
	return 0;
}

SEC("tp_btf/mm_filemap_fault")
int BPF_PROG(fs_fault_file)
{
	struct fs_cpu_state *st = this_cpu_state();

	if (st)
		fs_count(charge_target(st)->file_faults, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
