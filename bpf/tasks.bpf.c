// SPDX-License-Identifier: GPL-2.0
/*
 * Task lifecycle: the maps and settings are defined here; thread exit marks a thread's entry for
 * the loader to free once reported, and renames keep entries' names those of their process.
 * The loader's own rename at start-up is its measure of the kernel's stacks.
 */
#define FS_DEFINE_MAPS
#include "attribution.bpf.h"

#include <bpf/bpf_tracing.h>

/* --cgroup's cgroups, set by the loader before any program is attached. */
struct fs_cgroup_ref fs_select_cgroups[FS_MAX_CGROUPS];

/*
 * See entries.bpf.h. A task is in or below a selected cgroup when its cgroup's ancestor at that
 * cgroup's level (its depth) is that cgroup, as the kernel's cgroup_is_descendant() asks.
 */
__noinline int fs_task_selected(__u32 select_followed, __u32 select_cgroups, __u64 task_addr)
{
	struct task_struct *task = (struct task_struct *)task_addr;
	__u32 tgid = BPF_CORE_READ(task, tgid);
	struct cgroup *cgrp, *ancestor;
	void *ancestors;
	int level;

	if (select_followed && !bpf_map_lookup_elem(&fs_followed, &tgid))
		return 0;
	if (!select_cgroups)
		return 1;
	if (!bpf_core_field_exists(struct cgroup, ancestors))
		return 0;
	cgrp = BPF_CORE_READ(task, cgroups, dfl_cgrp);
	if (!cgrp)
		return 0;
	level = BPF_CORE_READ(cgrp, level);
	ancestors = (void *)cgrp + bpf_core_field_offset(struct cgroup, ancestors);
	for (__u32 i = 0; i < FS_MAX_CGROUPS && i < select_cgroups; i++) {
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

/* What the loader's rename to FS_PROBE_COMM showed (see loader.c): how far its frame was from
 * the base of its kernel stack, and its thread key as the kernel's tracepoints see it. */
struct {
	__u64 frame_offset;
	__u64 key;
	__u32 seen;
} fs_probe;

SEC("tp_btf/sched_process_exit")
int BPF_PROG(fs_task_exit)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 key = thread_key(task);
	struct fs_entry_ref *ref = bpf_map_lookup_elem(&fs_tasks_index, &key);
	struct fs_entry_head *head;
	struct fs_cpu *cpu;

	/* Its last events (those of exit itself) still reach the entry: the loader reads it
	 * again a read after it has reported it, before freeing it. */
	if (ref) {
		head = entry_checked(&fs_tasks, key, *ref);
		if (head)
			head->exited = FS_ENTRY_EXITED;
	}
	/* A followed process leaves the set with its last thread (signal->live counts the
	 * threads not yet past this point), so that the set stays as small as the live tree. */
	cpu = this_cpu();
	if (cpu && cpu->select_followed && !BPF_CORE_READ(task, signal, live.counter)) {
		__u32 tgid = task->tgid;

		bpf_map_delete_elem(&fs_followed, &tgid);
	}
	return 0;
}

/*
 * A thread moved to another cgroup: its events from now on belong there. Its entry (made in the
 * old cgroup) is retired here, in the mover's context: marked moved (the loader reports it
 * and frees it as it does an exited thread's, without unlinking it again), unlinked from the
 * index, and its gen bumped, which makes every reference to it stale (the CPUs' records and
 * caches): the thread's next event makes a new entry in its new cgroup. Events racing the move
 * on another CPU land on either side of it. The CPU's record of a thread that moves itself is
 * cleared too: one outside a --cgroup selection has no entry to retire, and is judged again at
 * its next event.
 */
SEC("tp_btf/cgroup_attach_task")
int BPF_PROG(fs_cgroup_attach, struct cgroup *dst, const char *path, struct task_struct *task)
{
	struct fs_cpu *cpu = this_cpu();
	__u64 key = thread_key(task);
	struct fs_entry_ref *ref = bpf_map_lookup_elem(&fs_tasks_index, &key);
	struct fs_entry_head *head = ref ? entry_checked(&fs_tasks, key, *ref) : NULL;

	if (head && head->cgroup != dst->kn->id) {
		head->exited = FS_ENTRY_MOVED;
		bpf_map_delete_elem(&fs_tasks_index, &key);
		__sync_fetch_and_add(&head->gen, 1);
	}
	if (cpu && task == bpf_get_current_task_btf() && cpu->running.key == key)
		cpu->running.index = FS_NO_ENTRY;
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

static __always_inline bool is_probe_name(const char *comm)
{
	static const char probe[FS_COMM_LEN] = FS_PROBE_COMM;
	char name[FS_COMM_LEN];

	if (bpf_probe_read_kernel_str(name, sizeof(name), comm) != sizeof(FS_PROBE_COMM))
		return false;
	for (int i = 0; i < (int)sizeof(FS_PROBE_COMM); i++)
		if (name[i] != probe[i])
			return false;
	return true;
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
	struct fs_cpu *cpu = this_cpu();
	struct fs_entry_head *head;
	struct fs_entry_ref *ref;

	if (task == current) {
		if (is_probe_name(comm)) {
			fs_probe.frame_offset =
			    bpf_get_current_task() + frame_minus(current) - (__u64)current->stack;
			fs_probe.key = key;
			fs_probe.seen = 1;
		}
		/* exec renames the thread that called it, which may just have taken its
		 * leader's pid (de_thread()) on the same stack: record it afresh. */
		if (cpu && cpu->self)
			record_running(cpu, &cpu->running, current);
	}
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
