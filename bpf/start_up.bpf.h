/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The loader's own thread, as start-up's checks recognise it: they measure the kernel with the
 * loader's own events (threads.bpf.c's rename, folios.bpf.c's node check), and any other task's
 * event taken for one of those would skew what they conclude. A name is no identity (any task
 * may take any name), and a pid alone is not either where the loader runs in a PID namespace
 * (its pids are not the kernel's). The identity is the loader thread's tid in the loader's own
 * PID namespace and that namespace, given by the loader before load (the device and inode of
 * /proc/self/ns/pid): pids are unique within a namespace, and the kernel itself says which
 * namespace the running task is in, so no other task, of any user, can match both. Programs
 * that use it are attached only while start-up runs them.
 */
#ifndef FS_START_UP_BPF_H
#define FS_START_UP_BPF_H

#include "maps.bpf.h"

FS_SETTING(__u64, fs_loader_pidns_dev); /* the kernel's dev_t: MKDEV(major, minor) */
FS_SETTING(__u64, fs_loader_pidns_ino);
FS_SETTING(__u32, fs_loader_tid); /* 0: unknown, nothing matches */

/* Is the running task the loader's thread? */
static __always_inline bool is_loader_thread(void)
{
	struct bpf_pidns_info ns = {};

	return fs_loader_tid &&
	       !bpf_get_ns_current_pid_tgid(fs_loader_pidns_dev, fs_loader_pidns_ino, &ns,
					    sizeof(ns)) &&
	       ns.pid == fs_loader_tid;
}

#endif /* FS_START_UP_BPF_H */
