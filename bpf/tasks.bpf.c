// SPDX-License-Identifier: GPL-2.0
/*
 * Task lifecycle: the maps are defined here, and thread exit and renames keep the task table's
 * entries honest (names follow exec and renames; exited threads are marked for eviction).
 */
#define FS_DEFINE_MAPS
#include "maps.bpf.h"

#include <bpf/bpf_tracing.h>

/* THREAD_SIZE of the running kernel (x86-64: 16 KiB, 32 KiB with KASAN); see compat.bpf.h. */
const volatile __u64 fs_task_stack_size = 16384;

SEC("tp_btf/sched_process_exit")
int BPF_PROG(fs_task_exit)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct fs_cpu *cpu = this_cpu();
	struct fs_task *entry;

	/* The thread's last counts may still be in this CPU's slot: into its entry with them. */
	if (cpu && cpu->slot_owner == FS_OWNER(pid_tgid))
		slot_flush(cpu);
	entry = bpf_map_lookup_elem(&fs_tasks, &pid_tgid);
	if (entry)
		entry->exited = 1;
	return 0;
}

/*
 * The process's name is its leader's: follow renames of the leader (exec, prctl(PR_SET_NAME),
 * writes to /proc/PID/comm, not necessarily by the task itself). A thread naming itself does not
 * rename its process, and the loader takes a process's name from its leader's entry.
 */
SEC("tp_btf/task_rename")
int BPF_PROG(fs_task_rename, struct task_struct *task, const char *comm)
{
	__u64 key = (__u64)task->tgid << 32 | (__u32)task->pid;
	struct fs_cpu *cpu = this_cpu();
	struct fs_task *entry;

	/* exec renames the thread that called it, which may have just taken its leader's pid
	 * (de_thread()) on the same stack, where the stack test cannot see the change: drop this
	 * CPU's record of the running thread, as a context switch does. */
	if (cpu)
		cpu->self = 0;
	if (task->pid != task->tgid)
		return 0;
	entry = bpf_map_lookup_elem(&fs_tasks, &key);
	/* Its counts may all be in a CPU's slot still, under the old name: an entry now, so that
	 * they are moved (and read) under the new one. */
	if (!entry)
		entry = task_entry_new(key);
	if (entry)
		bpf_probe_read_kernel_str(entry->comm, sizeof(entry->comm), comm);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
