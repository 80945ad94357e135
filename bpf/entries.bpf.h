/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Entries of the indexed tables (see struct fs_entry_head in foliostat.h): finding the entry of
 * a key, and making one. Every reference to an entry (from the index, or remembered by a CPU)
 * is checked against the entry's key and gen before it is written, so an entry the loader has
 * unlinked is never written through a stale reference.
 */
#ifndef FS_ENTRIES_BPF_H
#define FS_ENTRIES_BPF_H

#include "maps.bpf.h"

/* The entry `ref` names, if it is still key's. */
static __always_inline struct fs_entry_head *entry_checked(void *values, __u64 key,
							   struct fs_entry_ref ref)
{
	struct fs_entry_head *head = bpf_map_lookup_elem(values, &ref.index);

	return head && head->key == key && head->gen == ref.gen ? head : NULL;
}

/*
 * Make key's entry: take a free index, name the entry, link it in the index and mark it taken,
 * in that order (the loader reads an entry's header once it sees it taken). NULL when the table
 * is full. If another program made key's entry meanwhile, the index is given back and that
 * entry is the one returned.
 */
static __always_inline struct fs_entry_head *entry_make(void *index_map, void *values, void *free,
							void *taken, __u64 key, const char *comm,
							__u64 cgroup, __u64 start,
							struct fs_entry_ref *ref)
{
	struct fs_entry_head *head;
	struct fs_entry_ref *linked;
	__u64 *word;
	__u32 at;

	if (bpf_map_pop_elem(free, &ref->index))
		return NULL;
	head = bpf_map_lookup_elem(values, &ref->index);
	if (!head)
		return NULL;
	head->key = key;
	head->exited = 0;
	head->cgroup = cgroup;
	head->start = start;
	bpf_probe_read_kernel_str(head->comm, sizeof(head->comm), comm);
	ref->gen = head->gen;
	if (bpf_map_update_elem(index_map, &key, ref, BPF_NOEXIST)) {
		head->key = 0;
		bpf_map_push_elem(free, &ref->index, 0);
		linked = bpf_map_lookup_elem(index_map, &key);
		if (!linked)
			return NULL;
		*ref = *linked;
		return entry_checked(values, key, *ref);
	}
	at = ref->index / 64;
	word = bpf_map_lookup_elem(taken, &at);
	if (word)
		__sync_fetch_and_or(word, 1ULL << (ref->index % 64));
	return head;
}

_Static_assert(__builtin_offsetof(struct fs_entry_head, exited) ==
		   __builtin_offsetof(struct fs_entry_head, gen) + 4 &&
	       __builtin_offsetof(struct fs_entry_head, gen) % 8 == 0,
	       "gen and exited make one 64-bit word (little-endian: gen is its low half)");

/*
 * Retire the entry `ref` names under `key` (BPF's own unlink): its gen is bumped (every reference
 * to it goes stale) and it is marked `why`, in one compare-and-swap of the two (`exited` is what
 * the caller saw), then its key is unlinked; the loader reports it and frees it without
 * unlinking the key (which may name a new entry by then). Whoever unlinks an entry, the loader
 * too (table.c), first wins that swap on the gen the link names: of two programs retiring it at
 * once, or a program and the loader unlinking it, one does, and the key it deletes still names
 * this entry, never one made for the key since.
 */
static __always_inline void entry_retire(void *index_map, struct fs_entry_head *head, __u64 key,
					 struct fs_entry_ref ref, __u32 exited, __u32 why)
{
	__u64 seen = (__u64)exited << 32 | ref.gen;
	__u64 retired = (__u64)why << 32 | (__u32)(ref.gen + 1);

	if (__sync_val_compare_and_swap((__u64 *)&head->gen, seen, retired) == seen)
		bpf_map_delete_elem(index_map, &key);
}

/* The entry `ref` names under `key` is another process's (that process ended and a new one got
 * its pid while the entry was still linked): retire it, so that the caller makes the new
 * process an entry of its own (an interrupt in the middle of the thread's own event, or two
 * threads of the new process, may try at once). */
static __always_inline void entry_retire_reused(void *index_map, struct fs_entry_head *head,
						__u64 key, struct fs_entry_ref ref, __u32 exited)
{
	entry_retire(index_map, head, key, ref, exited, FS_ENTRY_REUSED);
}

/* Key's entry through the index, made if it has none (`comm` names it then), or if the one it
 * has is another process's (not started at `start`: its pid was reused). */
static __always_inline struct fs_entry_head *entry_find(void *index_map, void *values, void *free,
							void *taken, __u64 key, const char *comm,
							__u64 cgroup, __u64 start,
							struct fs_entry_ref *ref)
{
	struct fs_entry_ref *linked = bpf_map_lookup_elem(index_map, &key);
	struct fs_entry_head *head;

	if (linked) {
		*ref = *linked;
		head = entry_checked(values, key, *ref);
		if (!head || head->start == start)
			return head;
		entry_retire_reused(index_map, head, key, *ref, head->exited);
	}
	return entry_make(index_map, values, free, taken, key, comm, cgroup, start, ref);
}

/*
 * Is the task at `task` (an address: a global function takes numbers) in the selection? Every
 * task is, unless a command is followed (its processes are) or cgroups are given (their tasks
 * are), or both. A global function (threads.bpf.c): the verifier checks it once per program, not
 * at every call in every state, which keeps the load quick. Asked only when an entry would be
 * made, never on the path of an event of a known thread.
 */
int fs_task_selected(__u64 task);

static __always_inline bool selected(__u64 task)
{
	return !(fs_select_followed | fs_nr_select_cgroups) || fs_task_selected(task);
}

/*
 * The entry of process `tgid` started at `start`, made if it has none, named from `leader_comm`
 * (a kernel address), in cgroup `cgroup` (its leader's: see fs_cgroup_attach, threads.bpf.c);
 * NULL when the table is full. Its events are rare (collapses, stalls), and threads of the
 * process on several CPUs share it: its counters take atomic adds.
 */
static __always_inline struct fs_proc *proc_entry(__u32 tgid, const char *leader_comm,
						  __u64 cgroup, __u64 start)
{
	struct fs_entry_ref ref;

	return (struct fs_proc *)entry_find(&fs_procs_index, &fs_procs, &fs_procs_free,
					    &fs_procs_taken, tgid, leader_comm, cgroup, start,
					    &ref);
}

#endif /* FS_ENTRIES_BPF_H */
