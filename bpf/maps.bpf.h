/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps every concern shares, and the one way events are charged to them. tasks.bpf.c
 * defines the maps (FS_DEFINE_MAPS); every other .bpf.c sees extern declarations that the BPF
 * static linker resolves to those definitions.
 */
#ifndef FS_MAPS_BPF_H
#define FS_MAPS_BPF_H

#include "compat.bpf.h"
#include "foliostat.h"

#ifdef FS_DEFINE_MAPS
#define FS_MAP
#else
#define FS_MAP extern
#endif

/* Per-thread counters. No preallocation: memory follows the threads actually seen, and the
 * capacity (set by the loader) only bounds it. */
FS_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FS_DEFAULT_MAX_TASKS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct fs_task);
} fs_tasks SEC(".maps");

/* Per-process collapse outcomes (struct fs_proc), keyed by the owner's tgid. */
FS_MAP struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FS_DEFAULT_MAX_TASKS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct fs_proc);
} fs_procs SEC(".maps");

/* System-wide counters and CPU state, per CPU so that no two CPUs ever write the same line. */
FS_MAP struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fs_cpu);
} fs_cpus SEC(".maps");

static __always_inline struct fs_cpu *this_cpu(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&fs_cpus, &zero);
}

/*
 * Who is running, without asking the kernel. Helper calls are what the hot programs would
 * spend most on otherwise (three per event: the task as a pointer and as a number for the
 * stack test, and its pid), so each CPU records the thread running on it (struct fs_cpu): an
 * event that finds no record, or a wrong one, asks the kernel once and records the answer for
 * the events after it; the context-switch program drops the record at every switch.
 *
 * The record is checked by the frame's address: a frame on the recorded thread's stack is that
 * thread's, in task context or in a handler counted by irq_depth; a frame elsewhere is in an
 * interrupt, or the record is out of date and the kernel is asked. Records can outlive their
 * thread's turn on the CPU: a switch BPF does not see (some kernels leave some threads'
 * switches untraced, and sched_switch may not be attached), and between the sched_switch
 * tracepoint and the switch itself; the stack test catches them, and a slot claim (below)
 * always records afresh.
 */
static __always_inline void record_running(struct fs_cpu *cpu, struct task_struct *task)
{
	/* Storing a pointer in a map value needs CAP_PERFMON; the volatile load brings it back
	 * as a number the verifier lets a stack's address be subtracted from. */
	cpu->self = (__u64)cpu;
	cpu->running_owner = FS_OWNER((__u64)task->tgid << 32 | (__u32)task->pid);
	cpu->running_stack = (__u64)task->stack - *(volatile __u64 *)&cpu->self;
}

/* Is the frame on the recorded thread's stack? (frame - cpu) - (stack - cpu): no helper call. */
static __always_inline int on_running_stack(struct fs_cpu *cpu)
{
	return cpu->self && (__u64)(frame_minus(cpu) - cpu->running_stack) < fs_task_stack_size;
}

/*
 * The slow path, out of line: ask the kernel whether the frame is on the current thread's
 * stack. If it is not, this is interrupt context (1); if it is, this is task context (0) and
 * the current thread is recorded as running.
 */
static __noinline int ask_kernel(struct fs_cpu *cpu)
{
	struct task_struct *task = bpf_get_current_task_btf();

	if (frame_off_current_stack(task))
		return 1;
	record_running(cpu, task);
	return 0;
}

/* Interrupt context: inside a handler counted by irq_depth, or off the current thread's stack
 * (see compat.bpf.h). In task context, the running thread is recorded when this returns. */
static __always_inline int in_interrupt_context(struct fs_cpu *cpu)
{
	if (cpu->irq_depth)
		return 1;
	if (on_running_stack(cpu))
		return 0;
	return ask_kernel(cpu);
}

/* Zeroed values to create entries from: the values outgrow the 512-byte BPF stack. Never
 * written. */
static const struct fs_task zero_task;

/* A zeroed entry for thread `key`, or NULL when the table is full. The caller names it if its
 * name is still empty. */
static __always_inline struct fs_task *task_entry_new(__u64 key)
{
	/* BPF_NOEXIST: if the thread raced us here from another program, keep its entry. */
	bpf_map_update_elem(&fs_tasks, &key, &zero_task, BPF_NOEXIST);
	return bpf_map_lookup_elem(&fs_tasks, &key);
}

/* Kept out of line: it runs once per thread, and inlining it into every hot program would
 * only make them longer. */
static __noinline struct fs_task *task_create(__u64 pid_tgid)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fs_task *entry = task_entry_new(pid_tgid);

	if (entry && !entry->comm[0])
		BPF_CORE_READ_STR_INTO(&entry->comm, task, group_leader, comm);
	return entry;
}

/* Too large for the BPF stack: new process entries are made from this. Never written. */
static const struct fs_proc zero_proc;

/*
 * The process-table entry of `task`'s thread group, created on first use, or NULL when the table
 * is full. Its events are rare (collapses, stalls): clarity over speed. Threads of one process
 * on several CPUs share the entry: update it with atomic adds.
 */
static __always_inline struct fs_proc *proc_entry(struct task_struct *task)
{
	__u32 tgid = BPF_CORE_READ(task, tgid);
	struct fs_proc *entry = bpf_map_lookup_elem(&fs_procs, &tgid);

	if (!entry) {
		bpf_map_update_elem(&fs_procs, &tgid, &zero_proc, BPF_NOEXIST);
		entry = bpf_map_lookup_elem(&fs_procs, &tgid);
		if (entry && !entry->comm[0])
			BPF_CORE_READ_STR_INTO(&entry->comm, task, group_leader, comm);
	}
	return entry;
}

/*
 * Where a task-context event is charged on the slow path: the current thread's entry, created
 * on first use, or NULL when the table is full (the caller then counts it as untracked).
 */
static __always_inline struct fs_counters *task_counters(void)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct fs_task *entry;

	entry = bpf_map_lookup_elem(&fs_tasks, &pid_tgid);
	if (!entry)
		entry = task_create(pid_tgid);
	return entry ? &entry->counters : NULL;
}

/*
 * Move this CPU's slot into its thread's entry (see struct fs_cpu), creating the entry under the
 * name the slot recorded, or into the untracked group if the table is full. Out of line: it
 * runs once per change of thread on a CPU, not once per event.
 */
static __noinline void slot_flush(struct fs_cpu *cpu)
{
	__u32 *from = (__u32 *)&cpu->slot, *to;
	__u64 owner = cpu->slot_owner, key = owner - 1;
	struct fs_task *entry;

	if (owner == FS_NO_OWNER)
		return;
	cpu->slot_seq++;
	entry = bpf_map_lookup_elem(&fs_tasks, &key);
	if (!entry) {
		entry = task_entry_new(key);
		if (entry && !entry->comm[0])
			__builtin_memcpy(entry->comm, cpu->slot_comm, FS_COMM_LEN);
	}
	to = entry ? (__u32 *)&entry->counters : (__u32 *)&cpu->system.untracked;
	for (int i = 0; i < (int)(sizeof(struct fs_counters) / sizeof(__u32)); i++) {
		/* Atomic: the entry may be written at the same time from another CPU (this
		 * thread's slot there being moved too, or a TLB shootdown charged to it). Most
		 * words are zero: skip them. */
		if (from[i]) {
			__sync_fetch_and_add(&to[i], from[i]);
			from[i] = 0;
		}
	}
	cpu->slot_owner = FS_NO_OWNER;
	cpu->slot_seq++;
}

/*
 * Make the slot the current thread's, moving the previous thread's counts out first. Claims
 * are rare, so the running thread is recorded afresh from the kernel's answer here: the stack
 * test cannot tell a thread from one that took over the stack of an exited thread whose
 * switches BPF did not see.
 */
static __noinline void slot_claim(struct fs_cpu *cpu)
{
	struct task_struct *task = bpf_get_current_task_btf();

	record_running(cpu, task);
	slot_flush(cpu);
	cpu->slot_seq++;
	cpu->slot_owner = cpu->running_owner;
	/* Plain loads through the task's BTF pointers: a helper call for each pointer would cost
	 * more than the rest of the claim. */
	__builtin_memcpy(cpu->slot_comm, task->group_leader->comm, FS_COMM_LEN);
	cpu->slot_comm[FS_COMM_LEN - 1] = 0; /* as the kernel keeps it, whatever a rename does */
	cpu->slot_seq++;
}

/*
 * The fast path for task-context events: the CPU's slot, once it is the current thread's.
 * Only programs that never run in interrupt context may use it (an interrupt could land in the
 * middle of a flush); tracepoint programs run with preemption off, so no other thread can
 * come between.
 */
static __always_inline struct fs_counters *slot_counters(struct fs_cpu *cpu)
{
	if (cpu->slot_owner != cpu->running_owner)
		slot_claim(cpu);
	return &cpu->slot;
}

/*
 * The counters an event is charged to besides the system total: the current thread's in task
 * context; the interrupt group in interrupt context, where the interrupted task did not ask
 * for the work.
 */
static __always_inline struct fs_counters *charge_target(struct fs_cpu *cpu)
{
	if (in_interrupt_context(cpu))
		return &cpu->system.interrupt;
	return slot_counters(cpu);
}

/* For task events that may also come in interrupt context on behalf of the interrupted thread
 * (a TLB shootdown IPI): its entry, never the slot (owned_slot() below is the cheaper try). */
static __always_inline struct fs_counters *charge_current_entry(struct fs_cpu *cpu)
{
	struct fs_counters *counters = task_counters();

	return counters ? counters : &cpu->system.untracked;
}

/*
 * For events that may come in interrupt context on behalf of the interrupted thread, and too
 * rarely per thread run to be worth a claim: the CPU's slot when, in task context, it is
 * already the current thread's; NULL otherwise, and the caller charges the entry.
 */
static __always_inline struct fs_counters *owned_slot(struct fs_cpu *cpu)
{
	if (in_interrupt_context(cpu) || cpu->slot_owner != cpu->running_owner)
		return NULL;
	return &cpu->slot;
}

/* For events that only ever happen in task context (a fault taken in user mode): no need to
 * look at the interrupt depth, only at who is running. */
static __always_inline struct fs_counters *charge_task_context(struct fs_cpu *cpu)
{
	if (!on_running_stack(cpu) && ask_kernel(cpu))
		return charge_current_entry(cpu); /* not expected; safe */
	return slot_counters(cpu);
}

static __always_inline unsigned int order_bucket(unsigned int order)
{
	return order < FS_NR_ORDERS ? order : FS_NR_ORDERS - 1;
}

#endif /* FS_MAPS_BPF_H */
