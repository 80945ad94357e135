/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where an event is charged: the entry of the thread that caused it, the CPU's interrupt group
 * (interrupt context: the interrupted thread did not ask for the work), or the CPU's untracked
 * group (the thread table had no room). Each event lands in exactly one of them; the loader
 * sums the three into the system figures.
 *
 * Who is running, without asking the kernel: at every context switch, sched_switch records on
 * the CPU the thread switched to (its key and stack) and keeps the one switched from as
 * `previous`, for the events of the switch itself (a TLB flush in switch_mm). An event whose
 * frame is on one of the two recorded stacks is that thread's; a frame elsewhere is interrupt
 * context (the stack test, compat.bpf.h) or a switch BPF did not see, and the kernel is asked.
 * The first event of a thread's turn finds its entry (the CPU's cache of references, or the
 * index) and records the reference for the rest of the turn; every use checks it against the
 * entry, which the loader may have unlinked meanwhile.
 *
 * Records are used only where sched_switch keeps them (use_records): without it a new
 * thread could run on a dead thread's stack under the dead thread's record, and on a
 * preemptible kernel another thread's program may be writing the record. Events then look
 * their thread up, from the kernel's answer, every time.
 */
#ifndef FS_ATTRIBUTION_BPF_H
#define FS_ATTRIBUTION_BPF_H

#include "entries.bpf.h"

enum fs_group { FS_GROUP_INTERRUPT, FS_GROUP_UNTRACKED, FS_GROUP_UNSELECTED };

/* The CPU's share of a group (struct fs_cpu), for events no thread entry takes: out of line,
 * as no event of a known thread calls it, so that the programs' common paths stay short. */
static __noinline struct fs_counters *cpu_group(enum fs_group group)
{
	struct fs_cpu *cpu = this_cpu();

	if (!cpu)
		return &fs_no_cpu.counters;
	if (group == FS_GROUP_INTERRUPT)
		return &cpu->interrupt;
	if (group == FS_GROUP_UNTRACKED)
		return &cpu->untracked;
	return &cpu->unselected;
}

/* Is `counters` one of the CPU's groups rather than a thread's entry? (cpu: this_cpu()) */
static __always_inline bool is_cpu_group(struct fs_cpu *cpu, struct fs_counters *counters)
{
	return !cpu || counters == &cpu->interrupt || counters == &cpu->untracked ||
	       counters == &cpu->unselected || counters == &fs_no_cpu.counters;
}

/*
 * An exited thread's entry stays linked until the loader has reported it, so that its last
 * events (those of exit itself) still reach it. A thread of a new process that took its key
 * (the pid was reused meanwhile) must not continue it: is `head`, an exited thread's entry,
 * another process's than `task`'s? It is then retired (entries.bpf.h). Asked only of exited
 * entries, once per turn at most: a live thread's key is its own.
 */
static __always_inline bool retired_for_new_process(struct fs_entry_head *head, __u64 key,
						    struct fs_entry_ref ref,
						    struct task_struct *task)
{
	if (head->start == task->group_leader->start_boottime)
		return false;
	entry_retire_reused(&fs_tasks_index, head, key, ref, head->exited);
	return true;
}

/*
 * The counters of the thread whose key is `key` (`task`): its entry's, through the CPU's cache
 * of recent references or the index, and if it has none yet (or only a dead process's, see
 * above), an entry made under its leader's name. If the table is full, the untracked group's;
 * if its process is outside the selection, the unselected group's, and no entry is made.
 * ref->index is the entry's, or FS_UNTRACKED or FS_UNSELECTED.
 */
static __noinline struct fs_counters *
thread_entry(struct fs_cpu_state *st, __u64 key, struct task_struct *task, struct fs_entry_ref *ref)
{
	struct fs_cached_ref *cached = &st->cached[(__u32)key % FS_NR_CACHED_REFS];
	struct fs_entry_head *head = NULL;
	struct fs_entry_ref *linked;

	if (cached->key == key) {
		*ref = cached->ref;
		head = entry_checked(&fs_tasks, key, *ref);
		if (head && !(head->exited && retired_for_new_process(head, key, *ref, task)))
			return &((struct fs_task *)head)->counters;
	}
	linked = bpf_map_lookup_elem(&fs_tasks_index, &key);
	if (linked) {
		*ref = *linked;
		head = entry_checked(&fs_tasks, key, *ref);
		if (head && head->exited && retired_for_new_process(head, key, *ref, task))
			linked = NULL;
	}
	if (!linked) {
		/* Read before judging: a move the judgement may have missed counts after it. */
		__u32 moves = *(volatile __u32 *)&fs_moves;

		if (!selected(bpf_get_current_task())) {
			/* No entry: the gen of the mark is the moves it was judged after. */
			ref->index = FS_UNSELECTED;
			ref->gen = moves;
			return cpu_group(FS_GROUP_UNSELECTED);
		}
		/* Made in the thread's own context, always: its cgroup is the current one. */
		head = entry_make(&fs_tasks_index, &fs_tasks, &fs_tasks_free, &fs_tasks_taken, key,
				  task->group_leader->comm, bpf_get_current_cgroup_id(),
				  task->group_leader->start_boottime, ref);
		/* Made past the thread's exit (its exit event has been, or is about to be): marked
		 * as sched_process_exit would have, so that the loader frees it once reported and
		 * a new process taking the pid meanwhile does not continue it. */
		if (head && (task->flags & FS_PF_EXITING))
			head->exited = FS_ENTRY_EXITED;
	}
	if (!head) {
		ref->index = FS_UNTRACKED;
		return cpu_group(FS_GROUP_UNTRACKED);
	}
	/* A preempted writer can leave the cache torn; every use checks it against the entry. */
	cached->key = key;
	cached->ref = *ref;
	return &((struct fs_task *)head)->counters;
}

/* The thread key of `task`: its pid, or for an idle task (pid 0 on every CPU), the CPU's. */
static __always_inline __u64 thread_key(struct task_struct *task)
{
	if (!task->pid)
		return FS_THREAD_KEY(0, bpf_get_smp_processor_id());
	return FS_THREAD_KEY(task->tgid, task->pid);
}

/* Record `task` as running on the CPU, its entry not yet found. */
static __always_inline void record_running(struct fs_cpu_state *st, struct fs_running *run,
					   struct task_struct *task)
{
	/* Storing a pointer in a map value needs CAP_PERFMON; the volatile load brings it back
	 * as a number the verifier lets a stack's address be subtracted from. */
	st->self = (__u64)st;
	run->key = thread_key(task);
	run->stack = (__u64)task->stack - *(volatile __u64 *)&st->self;
	run->index = FS_NO_ENTRY;
}

/* Is the frame on the stack `run` records? (frame - st) - (stack - st): no helper call. A
 * stack offset of 0 (a stack at the state structure's own address) is no record. */
static __always_inline bool on_recorded_stack(struct fs_cpu_state *st, struct fs_running *run)
{
	return run->stack && (__u64)(frame_minus(st) - run->stack) < st->stack_size;
}

/* The counters of the thread `run` records: its entry through the recorded reference, found
 * (and recorded) on the turn's first event; the untracked group if the table had no room. */
static __noinline struct fs_counters *recorded_thread_counters(struct fs_cpu_state *st,
							       struct fs_running *run)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fs_counters *counters;
	struct fs_entry_ref ref;

	/* A switch BPF did not see would leave another thread's record on this stack (some
	 * kernels leave some threads' switches untraced): the kernel's answer wins. */
	if (thread_key(task) != run->key)
		record_running(st, run, task);
	counters = thread_entry(st, run->key, task, &ref);
	run->index = ref.index;
	run->gen = ref.gen;
	return counters;
}

/* The counters of the thread `run` records (see above). */
static __always_inline struct fs_counters *running_counters(struct fs_cpu_state *st,
							    struct fs_running *run)
{
	__u32 index = run->index;
	struct fs_task *entry;

	/* One test on the path of every event for the three marks, all above any index (the
	 * third, FS_NO_ENTRY, is found by the lookup failing, below). A thread outside the
	 * selection stays so until a task moves to another cgroup (it may be this one): then it
	 * is judged again, through the failing lookup. */
	if (index >= FS_UNSELECTED) {
		if (index == FS_UNTRACKED)
			return cpu_group(FS_GROUP_UNTRACKED);
		if (index == FS_UNSELECTED && run->gen == *(volatile __u32 *)&fs_moves)
			return cpu_group(FS_GROUP_UNSELECTED);
	}
	entry = bpf_map_lookup_elem(&fs_tasks, &index);
	if (entry && entry->head.gen == run->gen)
		return &entry->counters;
	return recorded_thread_counters(st, run);
}

/*
 * The slow path, out of line: ask the kernel whether the frame is on the current thread's
 * stack. If it is not, this is interrupt context (NULL); if it is, the current thread is
 * recorded as running (records in use) and its counters are returned.
 */
static __noinline struct fs_counters *current_thread_counters(struct fs_cpu_state *st)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fs_entry_ref ref;

	if (frame_off_current_stack(task, st->stack_size))
		return NULL;
	if (fs_use_records) {
		record_running(st, &st->running, task);
		return recorded_thread_counters(st, &st->running);
	}
	return thread_entry(st, thread_key(task), task, &ref);
}

/*
 * The counters of the thread whose event this is, in task context; NULL in interrupt context
 * (counted by irq_depth, or off the current stack).
 */
static __always_inline struct fs_counters *task_context_counters(struct fs_cpu_state *st)
{
#ifdef FS_BENCH_UNATTRIBUTED /* make bench's build without attribution (Makefile) */
	return cpu_group(FS_GROUP_INTERRUPT);
#endif
	if (st->irq_depth)
		return NULL;
	/* Records are kept only with fs_use_records (so the verifier drops this without), and
	 * no stack is recorded before the first (on_recorded_stack). */
	if (fs_use_records) {
		if (on_recorded_stack(st, &st->running))
			return running_counters(st, &st->running);
		if (on_recorded_stack(st, &st->previous))
			return running_counters(st, &st->previous);
	}
	return current_thread_counters(st);
}

/* Where an event is charged besides nothing else: the thread's counters in task context, the
 * interrupt group in interrupt context. */
static __always_inline struct fs_counters *charge_target(struct fs_cpu_state *st)
{
	struct fs_counters *counters = task_context_counters(st);

	return counters ? counters : cpu_group(FS_GROUP_INTERRUPT);
}

/*
 * For events that only ever happen in task context (a fault taken in user mode, migration):
 * no need to look at the interrupt depth. Should the stack test still say otherwise, the event
 * is charged to the interrupt group rather than to a guess.
 */
static __always_inline struct fs_counters *charge_task_context(struct fs_cpu_state *st)
{
	struct fs_counters *counters = NULL;

#ifdef FS_BENCH_UNATTRIBUTED
	return cpu_group(FS_GROUP_INTERRUPT);
#endif
	if (fs_use_records && on_recorded_stack(st, &st->running))
		counters = running_counters(st, &st->running);
	if (!counters)
		counters = current_thread_counters(st);
	return counters ? counters : cpu_group(FS_GROUP_INTERRUPT);
}

/*
 * For events charged to the current thread even in interrupt context (a TLB shootdown is paid
 * for by the thread it interrupts): its counters, which in interrupt context are found by its
 * key (the CPU's record, when it is the current thread's, or a lookup). The caller adds
 * atomically: the interrupted thread may have been in the middle of an event of its own.
 */
static __noinline struct fs_counters *interrupted_thread_counters(struct fs_cpu_state *st)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 key = thread_key(task);
	struct fs_running *run = &st->running;
	struct fs_entry_ref ref;
	struct fs_task *entry;

	/* Read the record, never write it: the interrupted program may be writing it. */
	if (st->self && run->key == key && run->index < FS_UNSELECTED) {
		ref.index = run->index;
		ref.gen = run->gen;
		entry = (struct fs_task *)entry_checked(&fs_tasks, key, ref);
		if (entry)
			return &entry->counters;
	}
	return thread_entry(st, key, task, &ref);
}

static __always_inline struct fs_counters *charge_current_thread(struct fs_cpu_state *st)
{
	struct fs_counters *counters = task_context_counters(st);

	return counters ? counters : interrupted_thread_counters(st);
}

#endif /* FS_ATTRIBUTION_BPF_H */
