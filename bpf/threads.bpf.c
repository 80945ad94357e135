// SPDX-License-Identifier: GPL-2.0
/*
 * Task lifecycle: the maps and settings are defined here; thread exit marks a thread's entry for
 * the loader to free once reported, and renames keep entries' names those of their process.
 * The loader's own rename at start-up is its measure of the kernel's stacks.
 */
#define FS_DEFINE_MAPS
#include "attribution.bpf.h"
#include "start_up.bpf.h"

#include <bpf/bpf_tracing.h>

/* --cgroup's cgroups, the first fs_nr_select_cgroups: a setting like those of maps.bpf.h, set
 * by the loader before load. */
const volatile struct fs_cgroup_ref fs_select_cgroups[FS_MAX_CGROUPS] = {};

/*
 * See entries.bpf.h. A task is in or below a selected cgroup when its cgroup's ancestor at that
 * cgroup's level (its depth) is that cgroup, as the kernel's cgroup_is_descendant() asks.
 */
__noinline int fs_task_selected(__u64 task_addr)
{
	struct task_struct *task = (struct task_struct *)task_addr;
	__u32 tgid = BPF_CORE_READ(task, tgid);
	struct cgroup *cgrp, *ancestor;
	void *ancestors;
	int level;

	if (fs_select_followed && !bpf_map_lookup_elem(&fs_followed, &tgid))
		return 0;
	if (!fs_nr_select_cgroups)
		return 1;
	if (!bpf_core_field_exists(struct cgroup, ancestors))
		return 0;
	cgrp = BPF_CORE_READ(task, cgroups, dfl_cgrp);
	if (!cgrp)
		return 0;
	level = BPF_CORE_READ(cgrp, level);
	ancestors = (void *)cgrp + bpf_core_field_offset(struct cgroup, ancestors);
	for (__u32 i = 0; i < FS_MAX_CGROUPS && i < fs_nr_select_cgroups; i++) {
		__u32 at = fs_select_cgroups[i].level;

		ancestor = NULL;
		if ((int)at > level ||
		    bpf_probe_read_kernel(&ancestor, sizeof(ancestor), ancestors + at * sizeof(ancestor)))
			continue;
		if (ancestor && BPF_CORE_READ(ancestor, kn, id) == fs_select_cgroups[i].id)
			return 1;
	}
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(fs_task_exit)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 key = thread_key(task);
	struct fs_entry_ref *ref = bpf_map_lookup_elem(&fs_tasks_index, &key);
	struct fs_entry_head *head;

	/* Its last events (those of exit itself) still reach the entry: the loader reads it
	 * again a read after it has reported it, before freeing it. */
	if (ref) {
		head = entry_checked(&fs_tasks, key, *ref);
		if (head)
			head->exited = FS_ENTRY_EXITED;
	}
	/* A followed process leaves the set with its last thread (signal->live counts the
	 * threads not yet past this point), so that the set stays as small as the live tree. */
	if (fs_select_followed && !BPF_CORE_READ(task, signal, live.counter)) {
		__u32 tgid = task->tgid;

		bpf_map_delete_elem(&fs_followed, &tgid);
	}
	return 0;
}

/*
 * Tasks moved to another cgroup: their events from now on belong there. cgroup_attach_task()
 * fires once per move, after it has moved every task: with the thread a write to cgroup.threads
 * names, or with the leader of a process a write to cgroup.procs moves whole (`threadgroup`),
 * whose other threads the tracepoint does not name: they are found on the process's list of
 * threads. Each moved thread's entry (made in the old cgroup) is retired here, in the mover's
 * context (entry_retire(), entries.bpf.h): marked moved and its gen bumped in one swap, which
 * makes every reference to it stale (the CPUs' records and caches), then unlinked from the index
 * (the loader reports it and frees it as it does an exited thread's, without unlinking it
 * again): the thread's next event makes a new entry in its new cgroup. An entry the loader is
 * unlinking meanwhile is left to it. An entry is retired only if the thread's cgroup (v2) is no
 * longer the entry's: a move in a v1 hierarchy changes nothing here. Events racing the move on
 * another CPU land on either side of it; an entry being made during the move by the thread
 * itself, before the walk, with the cgroup it read before the move, stays in the old cgroup
 * until the loader frees it (the first read in which the thread is idle).
 *
 * The process's entry (collapse outcomes and stalls; its cgroup is its leader's) is retired in
 * the same way when the leader moves. Threads outside a --cgroup selection have no entry: the
 * count of moves tells their CPUs' records to judge them again (attribution.bpf.h).
 */

/* The most threads one walk visits: PID_MAX_LIMIT on 64-bit kernels (4M pids), more threads
 * than one process can have, so a walk always ends at the end of the list. bpf_loop() allows
 * 8M. */
#define FS_MAX_MOVED_THREADS (1U << 22)

/* Retire the entry of `key` in the table of `index`/`values` if it was made in a cgroup other
 * than `cgroup`. */
static __always_inline void retire_moved(void *index, void *values, __u64 key, __u64 cgroup)
{
	struct fs_entry_ref *ref = bpf_map_lookup_elem(index, &key);
	struct fs_entry_head *head = ref ? entry_checked(values, key, *ref) : NULL;

	if (head && head->cgroup != cgroup)
		entry_retire(index, head, key, *ref, head->exited, FS_ENTRY_MOVED);
}

/* The thread at `task` (a kernel address, read with probe reads: the list gives no typed
 * pointer) has moved: retire its entry if it is in another cgroup. */
static __always_inline void retire_moved_thread(struct task_struct *task)
{
	__u32 pid = BPF_CORE_READ(task, pid);

	if (pid) /* idle tasks never move */
		retire_moved(&fs_tasks_index, &fs_tasks, FS_THREAD_KEY(BPF_CORE_READ(task, tgid), pid),
			     BPF_CORE_READ(task, cgroups, dfl_cgrp, kn, id));
}

/* Where a walk of a process's threads is: the list's head (in its signal_struct) and the node
 * (a thread's thread_node) last visited, as kernel addresses. */
struct thread_walk {
	__u64 head;
	__u64 node;
};

static long retire_next_thread(__u64 i, struct thread_walk *walk)
{
	struct list_head *at = (struct list_head *)walk->node;
	__u64 node = (__u64)BPF_CORE_READ(at, next);

	if (!node || node == walk->head)
		return 1;
	walk->node = node;
	retire_moved_thread(
	    (struct task_struct *)(node - bpf_core_field_offset(struct task_struct, thread_node)));
	return 0;
}

SEC("tp_btf/cgroup_attach_task")
int BPF_PROG(fs_cgroup_attach, struct cgroup *dst, const char *path, struct task_struct *task,
	     bool threadgroup)
{
	struct thread_walk walk;

	__sync_fetch_and_add(&fs_moves, 1);
	if (threadgroup) {
		walk.head = (__u64)BPF_CORE_READ(task, signal) +
			    bpf_core_field_offset(struct signal_struct, thread_head);
		walk.node = walk.head;
		bpf_loop(FS_MAX_MOVED_THREADS, retire_next_thread, &walk, 0);
	} else {
		retire_moved_thread(task);
	}
	if (task->pid == task->tgid)
		retire_moved(&fs_procs_index, &fs_procs, task->tgid,
			     BPF_CORE_READ(task, cgroups, dfl_cgrp, kn, id));
	return 0;
}

/*
 * Following a command (-- COMMAND): every process forked by a followed one is followed too,
 * before it can run (the tracepoint fires before the child is woken), so nothing it does is
 * missed. Threads share their process's tgid and need nothing. Attached only when following.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(fs_task_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 parent_tgid = parent->tgid, child_tgid = child->tgid;
	__u8 yes = 1;

	if (child_tgid != parent_tgid && bpf_map_lookup_elem(&fs_followed, &parent_tgid))
		bpf_map_update_elem(&fs_followed, &child_tgid, &yes, BPF_ANY);
	return 0;
}

/* What the loader's rename at start-up showed (see loader.c): how far its frame was from the
 * base of its kernel stack, and its thread key as the kernel's tracepoints see it. */
struct {
	__u64 frame_offset;
	__u64 key;
	__u32 seen;
} fs_probe;

/*
 * Attached only while the loader renames itself at start-up, and heeding only the loader's own
 * thread (start_up.bpf.h): a task that renames itself meanwhile, whatever name it takes, cannot
 * pass for it, and fs_task_rename, attached for the whole run, does no start-up work.
 */
SEC("tp_btf/task_rename")
int BPF_PROG(fs_start_up_rename, struct task_struct *task, const char *comm)
{
	struct task_struct *current = bpf_get_current_task_btf();

	if (task != current || !is_loader_thread())
		return 0;
	fs_probe.frame_offset =
	    bpf_get_current_task() + frame_minus(current) - (__u64)current->stack;
	fs_probe.key = FS_THREAD_KEY(current->tgid, current->pid);
	fs_probe.seen = 1;
	return 0;
}

/*
 * The process's name is its leader's: follow renames of the leader (exec, prctl(PR_SET_NAME),
 * writes to /proc/PID/comm, not necessarily by the task itself) in its thread and process
 * entries. A thread naming itself does not rename its process.
 */
SEC("tp_btf/task_rename")
int BPF_PROG(fs_task_rename, struct task_struct *task, const char *comm)
{
	struct task_struct *current = bpf_get_current_task_btf();
	__u64 key = FS_THREAD_KEY(task->tgid, task->pid);
	struct fs_cpu_state *st = this_cpu_state();
	struct fs_entry_head *head;
	struct fs_entry_ref *ref;

	/* exec renames the thread that called it, which may just have taken its leader's pid
	 * (de_thread()) on the same stack: record it afresh. */
	if (task == current && st && st->self)
		record_running(st, &st->running, current);
	if (task->pid != task->tgid)
		return 0;
	/* The entries linked under its pid may still be those of a process that had the pid
	 * before (exited, not yet freed): only its own are renamed (its start time is its
	 * leader's, which exec keeps). */
	ref = bpf_map_lookup_elem(&fs_tasks_index, &key);
	head = ref ? entry_checked(&fs_tasks, key, *ref) : NULL;
	if (head && head->start == task->start_boottime)
		bpf_probe_read_kernel_str(head->comm, sizeof(head->comm), comm);
	key = task->tgid;
	ref = bpf_map_lookup_elem(&fs_procs_index, &key);
	head = ref ? entry_checked(&fs_procs, key, *ref) : NULL;
	if (head && head->start == task->start_boottime)
		bpf_probe_read_kernel_str(head->comm, sizeof(head->comm), comm);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
