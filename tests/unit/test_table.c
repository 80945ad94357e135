// SPDX-License-Identifier: GPL-2.0
/* The thread table as the loader follows it: entries found through their taken bits, each count
 * read once, and an entry freed only after a last read of what reached it late. The table lies
 * in memory here, and the test plays BPF's part by writing entries as it would. */
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"
#include "table.h"
#include "unit.h"

#define CAPACITY 128
#define KEY(tgid, tid) (((__u64)(tgid) << 32) | (tid))

/* What the table asked of the kernel. */
static struct {
	__u64 unlinked_keys[16];
	int nr_unlinked;
	__u32 given_back[16];
	int nr_given_back;
	int waits;
	/* One key's link in the index, for the tests that follow it (linked: it has one). */
	struct {
		bool linked;
		__u64 key;
		struct fs_entry_ref ref;
	} link;
	/* What BPF does on another CPU just before the next unlink reaches the kernel. */
	void (*before_unlink)(void);
} kernel;

static int fake_unlink_key(const struct table *t, __u64 key)
{
	void (*race)(void) = kernel.before_unlink;

	(void)t;
	kernel.before_unlink = NULL;
	if (race)
		race();
	kernel.unlinked_keys[kernel.nr_unlinked++] = key;
	if (kernel.link.linked && kernel.link.key == key)
		kernel.link.linked = false; /* whatever entry the link names by now */
	return 0;
}

static int fake_give_back(const struct table *t, __u32 index)
{
	(void)t;
	kernel.given_back[kernel.nr_given_back++] = index;
	return 0;
}

static void fake_wait(void)
{
	kernel.waits++;
}

static const struct table_ops fake_ops = {fake_unlink_key, fake_give_back, fake_wait};

static struct fs_task entries[CAPACITY];
static __u64 taken[CAPACITY / 64];

static void fresh_table(struct table *t)
{
	memset(entries, 0, sizeof(entries));
	memset(taken, 0, sizeof(taken));
	memset(&kernel, 0, sizeof(kernel));
	table_init(t, entries, taken, sizeof(struct fs_task), CAPACITY, &fake_ops);
	table_number_entries(entries, sizeof(struct fs_task), CAPACITY);
}

/* BPF's part: take entry `index` for thread `key`. */
static void take(__u32 index, __u64 key, const char *comm)
{
	entries[index].head.key = key;
	snprintf(entries[index].head.comm, FS_COMM_LEN, "%s", comm);
	taken[index / 64] |= 1ULL << (index % 64);
}

static void fault(__u32 index, __u32 n)
{
	entries[index].counters.fault_kinds[0] += n;
}

static __u64 faults_of(const struct snapshot *s, __u64 key, bool late)
{
	__u64 sum = 0;

	for (size_t i = 0; i < s->nr_threads; i++)
		if (s->threads[i].key == key && s->threads[i].late == late)
			sum += s->threads[i].counts.fault_kinds[0];
	return sum;
}

/* Entries are found from their taken bits, counted from zero, and read in index order. */
static bool taken_entries_become_live(void)
{
	struct snapshot snap = {0};
	struct table t;
	bool ok;

	fresh_table(&t);
	take(70, KEY(7, 7), "seven");
	fault(70, 4);
	take(5, KEY(5, 6), "five");
	fault(5, 3);
	ok = ASSERT_EQ(snapshot_add_threads(&snap, &t), 0) && ASSERT_EQ(t.nr_live, 2) &&
	     ASSERT_EQ(t.live[0], 5) && ASSERT_EQ(t.live[1], 70) && ASSERT_EQ(taken[0], 0) &&
	     ASSERT_EQ(taken[1], 0) && ASSERT_EQ(faults_of(&snap, KEY(5, 6), false), 3) &&
	     ASSERT_EQ(faults_of(&snap, KEY(7, 7), false), 4) &&
	     ASSERT_STREQ(snap.threads[0].comm, "five");
	snapshot_free(&snap);
	table_close(&t);
	return ok;
}

/* Each read gives what an entry grew by since the last; an entry that did not grow is unlinked:
 * its key leaves the index, its gen moves on, and its index is not yet given back. */
static bool idle_entries_are_unlinked_not_freed(void)
{
	struct snapshot snap = {0};
	struct table t;
	bool ok;

	fresh_table(&t);
	take(9, KEY(9, 9), "busy");
	take(10, KEY(10, 10), "idle");
	fault(9, 1);
	fault(10, 1);
	ok = ASSERT_EQ(snapshot_add_threads(&snap, &t), 0);
	snapshot_free(&snap);
	fault(9, 2);
	ok = ok && ASSERT_EQ(snapshot_add_threads(&snap, &t), 0) &&
	     ASSERT_EQ(faults_of(&snap, KEY(9, 9), false), 2) && ASSERT_EQ(snap.nr_threads, 1) &&
	     ASSERT_EQ(t.nr_live, 1) && ASSERT_EQ(t.live[0], 9) &&
	     ASSERT_EQ(kernel.nr_unlinked, 1) && ASSERT_EQ(kernel.unlinked_keys[0], KEY(10, 10)) &&
	     ASSERT_EQ(entries[10].head.gen, 1) && ASSERT_EQ(kernel.nr_given_back, 0);
	snapshot_free(&snap);
	table_close(&t);
	return ok;
}

/* Counts that reach an entry after the read that unlinked it (an event that found it just
 * before) are read once more at the next read, after the wait for running programs, then the
 * entry is cleared and given back; never before, never twice. */
static bool late_counts_are_read_once_then_the_entry_is_freed(void)
{
	struct snapshot snap = {0};
	struct table t;
	bool ok;

	fresh_table(&t);
	take(3, KEY(3, 3), "short");
	fault(3, 5);
	entries[3].head.exited = 1;
	ok = ASSERT_EQ(snapshot_add_threads(&snap, &t), 0) &&
	     ASSERT_EQ(faults_of(&snap, KEY(3, 3), false), 5) &&
	     ASSERT_TRUE(snap.threads[0].exited) && ASSERT_EQ(t.nr_live, 0) &&
	     ASSERT_EQ(t.nr_unlinked, 1) && ASSERT_EQ(kernel.nr_given_back, 0);
	snapshot_free(&snap);
	fault(3, 2); /* its exit's last events */
	ok = ok && ASSERT_EQ(snapshot_add_threads(&snap, &t), 0) && ASSERT_EQ(kernel.waits, 1) &&
	     ASSERT_EQ(faults_of(&snap, KEY(3, 3), true), 2) && ASSERT_EQ(snap.nr_threads, 1) &&
	     ASSERT_EQ(kernel.nr_given_back, 1) && ASSERT_EQ(kernel.given_back[0], 3) &&
	     ASSERT_EQ(entries[3].head.key, 0) &&
	     ASSERT_EQ(entries[3].counters.fault_kinds[0], 0) &&
	     ASSERT_EQ(entries[3].head.gen, 1) && ASSERT_EQ(t.nr_unlinked, 0);
	snapshot_free(&snap);
	/* Reused by another thread: it counts from zero. */
	take(3, KEY(4, 4), "next");
	fault(3, 1);
	ok = ok && ASSERT_EQ(snapshot_add_threads(&snap, &t), 0) && ASSERT_EQ(snap.nr_threads, 1) &&
	     ASSERT_EQ(faults_of(&snap, KEY(4, 4), false), 1) && ASSERT_EQ(kernel.waits, 1);
	snapshot_free(&snap);
	table_close(&t);
	return ok;
}

/* Whatever happens between reads, the sum over reads is what was counted: no count is lost when
 * entries come and go, none is read twice. */
static bool every_count_is_read_exactly_once(void)
{
	struct snapshot snap = {0};
	unsigned int seed = 7;
	__u64 counted = 0, read = 0;
	struct table t;
	bool ok = true;

	fresh_table(&t);
	for (int round = 0; ok && round < 200; round++) {
		/* BPF: new threads take free entries; live ones (and just unlinked ones, late)
		 * count. Entries given back are free again. */
		for (__u32 i = 0; i < CAPACITY; i++) {
			bool live = false, unlinked = false;

			for (size_t l = 0; l < t.nr_live; l++)
				live |= t.live[l] == i;
			for (size_t u = 0; u < t.nr_unlinked; u++)
				unlinked |= t.unlinked[u] == i;
			if (!live && !unlinked && !entries[i].head.key && rand_r(&seed) % 8 == 0 &&
			    !(taken[i / 64] & (1ULL << (i % 64))))
				take(i, KEY(1000 + i, round + 1), "t");
			if ((live || unlinked || entries[i].head.key) && rand_r(&seed) % 3) {
				__u32 n = rand_r(&seed) % 5;

				fault(i, n);
				counted += n;
			}
		}
		ok = ASSERT_EQ(snapshot_add_threads(&snap, &t), 0);
		for (size_t i = 0; i < snap.nr_threads; i++)
			read += snap.threads[i].counts.fault_kinds[0];
		snapshot_free(&snap);
		/* A given-back entry is free for BPF again only once cleared. */
		kernel.nr_given_back = 0;
		kernel.nr_unlinked = 0;
	}
	/* Two more reads with no events: the last unlinked entries' counts come in. */
	for (int i = 0; ok && i < 3; i++) {
		ok = ASSERT_EQ(snapshot_add_threads(&snap, &t), 0);
		for (size_t j = 0; j < snap.nr_threads; j++)
			read += snap.threads[j].counts.fault_kinds[0];
		snapshot_free(&snap);
		kernel.nr_given_back = 0;
		kernel.nr_unlinked = 0;
	}
	ok = ok && ASSERT_TRUE(counted > 1000) && ASSERT_EQ(read, counted);
	table_close(&t);
	return ok;
}

/* An exited thread's entry that BPF retired for a new process that took its pid (its key is
 * the new process's thread's now): reported with what it counted, and freed without deleting
 * the key, which names the new entry. Each entry keeps its process's start. */
static bool an_entry_retired_for_a_reused_pid_keeps_the_new_one_linked(void)
{
	struct snapshot snap = {0};
	struct table t;
	bool ok;

	fresh_table(&t);
	take(5, KEY(50, 50), "old");
	entries[5].head.start = 1000;
	fault(5, 4);
	ok = ASSERT_EQ(snapshot_add_threads(&snap, &t), 0);
	snapshot_free(&snap);
	/* It exits, faults once more in its exit, and a new process takes the pid. */
	entries[5].head.exited = FS_ENTRY_EXITED;
	fault(5, 1);
	entries[5].head.exited = FS_ENTRY_REUSED;
	entries[5].head.gen++;
	take(6, KEY(50, 50), "new");
	entries[6].head.start = 2000;
	fault(6, 9);
	ok = ok && ASSERT_EQ(snapshot_add_threads(&snap, &t), 0) && ASSERT_EQ(snap.nr_threads, 2) &&
	     ASSERT_EQ(snap.threads[0].start, 1000) &&
	     ASSERT_EQ(snap.threads[0].counts.fault_kinds[0], 1) &&
	     ASSERT_EQ(snap.threads[1].start, 2000) &&
	     ASSERT_EQ(snap.threads[1].counts.fault_kinds[0], 9) &&
	     ASSERT_EQ(kernel.nr_unlinked, 0) && ASSERT_EQ(t.nr_live, 1) &&
	     ASSERT_EQ(t.live[0], 6) && ASSERT_EQ(t.nr_unlinked, 1);
	snapshot_free(&snap);
	table_close(&t);
	return ok;
}

static struct fs_node_orders sides[CAPACITY];

/* A process's folios of `order` on `node` from the node deltas of a read (late or not). */
static __u64 node_folios_of(const struct snapshot *s, __u32 tgid, int node, int order, bool late)
{
	__u64 sum = 0;

	for (size_t i = 0; i < s->nr_nodes; i++)
		if (s->nodes[i].tgid == tgid && s->nodes[i].late == late &&
		    s->nodes[i].node == node && s->nodes[i].order == order)
			sum += s->nodes[i].folios;
	return sum;
}

/*
 * Allocations by node and order, in a side table at the entries' indexes: each entry knows its
 * index (BPF finds its side by it), each read gives a side's growth as its process's (the tgid,
 * not the thread's id), late counts too, and clearing an entry clears its side and keeps its
 * index. BPF's 32-bit words wrap; the growth across the wrap is still right.
 */
static bool a_side_table_is_read_and_cleared_with_its_entries(void)
{
	struct snapshot snap = {0};
	struct table t;
	bool ok;

	fresh_table(&t);
	memset(sides, 0, sizeof(sides));
	table_init_side(&t, sides, sizeof(sides[0]));
	ok = ASSERT_EQ(entries[77].head.index, 77) && ASSERT_EQ(t.copy_size,
								 sizeof(struct fs_task) +
								     sizeof(struct fs_node_orders));
	take(77, KEY(40, 41), "bound");
	fault(77, 1);
	sides[77].folios[1][9] = 0xfffffffe; /* about to wrap */
	ok = ok && ASSERT_EQ(snapshot_add_threads(&snap, &t), 0) &&
	     ASSERT_EQ(node_folios_of(&snap, 40, 1, 9, false), 0xfffffffe);
	snapshot_free(&snap);
	fault(77, 1);
	sides[77].folios[1][9] += 3; /* wraps to 1 */
	sides[77].folios[0][0] += 5;
	ok = ok && ASSERT_EQ(snapshot_add_threads(&snap, &t), 0) &&
	     ASSERT_EQ(node_folios_of(&snap, 40, 1, 9, false), 3) &&
	     ASSERT_EQ(node_folios_of(&snap, 40, 0, 0, false), 5) &&
	     ASSERT_EQ(snap.system.alloc_by_node_order[1][9], 3);
	snapshot_free(&snap);
	/* It exits: reported, unlinked; an allocation of its exit reaches the side late. */
	entries[77].head.exited = FS_ENTRY_EXITED;
	fault(77, 1);
	ok = ok && ASSERT_EQ(snapshot_add_threads(&snap, &t), 0) && ASSERT_EQ(t.nr_unlinked, 1);
	snapshot_free(&snap);
	sides[77].folios[0][0] += 2;
	ok = ok && ASSERT_EQ(snapshot_add_threads(&snap, &t), 0) &&
	     ASSERT_EQ(node_folios_of(&snap, 40, 0, 0, true), 2) &&
	     ASSERT_EQ(sides[77].folios[0][0], 0) && ASSERT_EQ(sides[77].folios[1][9], 0) &&
	     ASSERT_EQ(entries[77].head.index, 77) && ASSERT_EQ(entries[77].head.key, 0);
	snapshot_free(&snap);
	table_close(&t);
	return ok;
}

static struct fs_proc proc_entries[64];
static __u64 proc_taken[1];

/* BPF's part for the process table: take entry `index` for process `tgid`, and count stalls. */
static void take_proc(__u32 index, __u32 tgid, __u64 stalls)
{
	proc_entries[index].head.key = tgid;
	proc_entries[index].counters.stalls[0].count += stalls;
	proc_taken[0] |= 1ULL << index;
}

static __u64 stalls_of(const struct snapshot *s, __u32 tgid, bool late)
{
	__u64 sum = 0;

	for (size_t i = 0; i < s->nr_procs; i++)
		if (s->procs[i].tgid == tgid && s->procs[i].late == late)
			sum += s->procs[i].counts.stalls[0].count;
	return sum;
}

/* A process entry BPF retired when its leader moved to another cgroup (it unlinked the key
 * itself, and the process's next stall made a new entry under the same key) is reported, then
 * freed as an exited thread's: its late counts read once, its key left to the new entry, which
 * stays live. */
static bool a_moved_process_entry_is_freed_once_reported(void)
{
	struct snapshot snap = {0};
	struct table t;
	bool ok;

	memset(proc_entries, 0, sizeof(proc_entries));
	memset(proc_taken, 0, sizeof(proc_taken));
	memset(&kernel, 0, sizeof(kernel));
	table_init(&t, proc_entries, proc_taken, sizeof(struct fs_proc), 64, &fake_ops);
	take_proc(2, 42, 3);
	ok = ASSERT_EQ(snapshot_add_procs(&snap, &t), 0) && ASSERT_EQ(stalls_of(&snap, 42, false), 3);
	snapshot_free(&snap);
	/* The move: a stall just before it, the retirement, a stall in the new cgroup. */
	proc_entries[2].counters.stalls[0].count += 1;
	proc_entries[2].head.exited = FS_ENTRY_MOVED;
	proc_entries[2].head.gen++;
	take_proc(5, 42, 2);
	ok = ok && ASSERT_EQ(snapshot_add_procs(&snap, &t), 0) &&
	     ASSERT_EQ(stalls_of(&snap, 42, false), 3) && ASSERT_EQ(t.nr_live, 1) &&
	     ASSERT_EQ(t.live[0], 5) && ASSERT_EQ(t.nr_unlinked, 1) &&
	     ASSERT_EQ(kernel.nr_unlinked, 0) && ASSERT_EQ(proc_entries[2].head.gen, 2);
	snapshot_free(&snap);
	/* A late stall of the retired entry, then its last read: read once, then given back. */
	proc_entries[2].counters.stalls[0].count += 1;
	proc_entries[5].counters.stalls[0].count += 1;
	ok = ok && ASSERT_EQ(snapshot_add_procs(&snap, &t), 0) &&
	     ASSERT_EQ(stalls_of(&snap, 42, true), 1) && ASSERT_EQ(stalls_of(&snap, 42, false), 1) &&
	     ASSERT_EQ(kernel.nr_given_back, 1) && ASSERT_EQ(kernel.given_back[0], 2) &&
	     ASSERT_EQ(kernel.nr_unlinked, 0) && ASSERT_EQ(t.nr_live, 1);
	snapshot_free(&snap);
	table_close(&t);
	return ok;
}

/* BPF's part: link `key` to entry `index` (at its gen), as entry_make() does. */
static void link_key(__u64 key, __u32 index)
{
	kernel.link.linked = true;
	kernel.link.key = key;
	kernel.link.ref.index = index;
	kernel.link.ref.gen = entries[index].head.gen;
}

#define MOVER KEY(20, 20)

/* BPF's part in a move of thread MOVER to another cgroup (fs_cgroup_attach): the entry its
 * link names, if still its (entry_checked()), retired as entry_retire() does, in one swap of gen
 * and exited; then the thread's next event makes it entry 21 in its new cgroup. */
static void bpf_moves_the_thread(void)
{
	struct fs_entry_ref ref = kernel.link.ref;
	struct fs_entry_head *head = &entries[ref.index].head;
	__u64 seen = (__u64)head->exited << 32 | ref.gen;
	__u64 retired = (__u64)FS_ENTRY_MOVED << 32 | (__u32)(ref.gen + 1);

	if (!kernel.link.linked || head->key != MOVER || head->gen != ref.gen ||
	    !__atomic_compare_exchange_n((__u64 *)&head->gen, &seen, retired, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	kernel.link.linked = false;
	take(21, MOVER, "mover");
	link_key(MOVER, 21);
}

/*
 * The loader unlinks an idle thread's entry just as the thread moves to another cgroup, BPF
 * retiring the entry and the thread's next event making it a new one under the same key, in
 * between the loader's look at the entry and its delete of the key. The new entry stays linked:
 * of the loader and BPF, only the one that wins the swap of the old entry's gen deletes the
 * key, while the link still names that entry. (Had BPF won here, the key's link would name
 * entry 21 and the loader would have deleted it: an entry linked nowhere, whose thread's exit
 * would never mark it.)
 */
static bool a_move_racing_the_unlink_keeps_the_new_entry_linked(void)
{
	struct snapshot snap = {0};
	struct table t;
	bool ok;

	fresh_table(&t);
	take(20, MOVER, "mover");
	link_key(MOVER, 20);
	fault(20, 1);
	ok = ASSERT_EQ(snapshot_add_threads(&snap, &t), 0);
	snapshot_free(&snap);
	kernel.before_unlink = bpf_moves_the_thread;
	ok = ok && ASSERT_EQ(snapshot_add_threads(&snap, &t), 0) &&
	     ASSERT_EQ(kernel.nr_unlinked, 1) && ASSERT_EQ(t.nr_unlinked, 1) &&
	     ASSERT_EQ(t.unlinked[0], 20);
	/* Entry 21, if BPF made it, is the one the key names; entry 20 is named no more. */
	if (taken[0] & (1ULL << 21))
		ok = ok && ASSERT_TRUE(kernel.link.linked) && ASSERT_EQ(kernel.link.ref.index, 21);
	else
		ok = ok && ASSERT_TRUE(!kernel.link.linked);
	snapshot_free(&snap);
	table_close(&t);
	return ok;
}

const struct unit_test table_tests[] = {
    UNIT_TEST(a_side_table_is_read_and_cleared_with_its_entries),
    UNIT_TEST(taken_entries_become_live),
    UNIT_TEST(idle_entries_are_unlinked_not_freed),
    UNIT_TEST(late_counts_are_read_once_then_the_entry_is_freed),
    UNIT_TEST(every_count_is_read_exactly_once),
    UNIT_TEST(an_entry_retired_for_a_reused_pid_keeps_the_new_one_linked),
    UNIT_TEST(a_moved_process_entry_is_freed_once_reported),
    UNIT_TEST(a_move_racing_the_unlink_keeps_the_new_entry_linked),
    {},
};
