// SPDX-License-Identifier: GPL-2.0
/* Aggregation: per-process sums of a read's thread deltas, filters, the one-shot accumulation
 * and ranking. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "process_start.h"
#include "row_columns.h"
#include "unit.h"
#include "row_table.h"

static struct process_filter all; /* no filters */

#define KEY(tgid, tid) (((__u64)(tgid) << 32) | (tid))

/* A thread of the process started at `start` (ns since boot) that allocated `movable` order-0
 * and `huge` order-9 movable folios in the read. */
static void add_thread_started(struct snapshot *s, __u32 tgid, __u32 tid, __u64 start,
			       const char *comm, __u32 movable, __u32 huge, bool late)
{
	struct fs_counters c = {0};
	char name[FS_COMM_LEN] = "";

	snprintf(name, sizeof(name), "%s", comm);
	c.folios[FS_FOLIO_ALLOC_MOVABLE][0] = movable;
	c.folios[FS_FOLIO_ALLOC_MOVABLE][9] = huge;
	struct fs_entry_head head = {.key = KEY(tgid, tid), .start = start};

	memcpy(head.comm, name, FS_COMM_LEN);
	snapshot_append(s, &head, late, &c);
}

static void add_thread(struct snapshot *s, __u32 tgid, __u32 tid, const char *comm, __u32 movable,
		       __u32 huge, bool late)
{
	add_thread_started(s, tgid, tid, 0, comm, movable, huge, late);
}

/* A shell moves itself into a cgroup, then execs a program: its entry from before the move
 * keeps the shell's name, the entry that replaced it is renamed; the process is the program. */
static bool a_moved_entry_does_not_name_its_process(void)
{
	struct snapshot now = {0};
	struct row_table out = {0};
	struct fs_counters c = {0};
	bool ok;

	c.folios[FS_FOLIO_ALLOC_MOVABLE][0] = 3;
	snapshot_append(
	    &now,
	    &(struct fs_entry_head){.key = KEY(70, 70), .comm = "sh", .exited = FS_ENTRY_MOVED},
	    false, &c);
	snapshot_append(&now, &(struct fs_entry_head){.key = KEY(70, 70), .comm = "workload"},
			false, &c);
	snapshot_sort(&now);
	ok = ASSERT_EQ(row_table_of_read(&now, &all, 0, &out), 0) && ASSERT_EQ(out.nr, 1) &&
	     ASSERT_STREQ(out.rows[0].comm, "workload") &&
	     ASSERT_EQ(out.rows[0].totals.folios[FS_FOLIO_ALLOC_MOVABLE][0], 6);
	snapshot_free(&now);
	row_table_free(&out);
	return ok;
}

static const struct row *find(const struct row_table *t, __u32 tgid)
{
	for (size_t i = 0; i < t->nr; i++)
		if (t->rows[i].key.hi == tgid)
			return &t->rows[i];
	return NULL;
}

static bool threads_sum_into_their_process(void)
{
	struct snapshot now = {0};
	struct row_table out = {0};
	const struct row *row;
	bool ok;

	add_thread(&now, 100, 101, "app-worker", 2, 2, false);
	add_thread(&now, 100, 100, "app", 5, 0, false);
	add_thread(&now, 100, 102, "app-new", 4, 0, false);
	snapshot_sort(&now);
	ok = ASSERT_EQ(row_table_of_read(&now, &all, 0, &out), 0) && ASSERT_EQ(out.nr, 1);
	row = find(&out, 100);
	ok = ok && ASSERT_TRUE(row) &&
	     ASSERT_EQ(row->totals.folios[FS_FOLIO_ALLOC_MOVABLE][0], 5 + 2 + 4) &&
	     ASSERT_EQ(row->totals.folios[FS_FOLIO_ALLOC_MOVABLE][9], 2) &&
	     ASSERT_EQ(row->events, 13) && ASSERT_STREQ(row->comm, "app");
	snapshot_free(&now);
	row_table_free(&out);
	return ok;
}

static bool idle_processes_are_left_out(void)
{
	struct snapshot now = {0};
	struct row_table out = {0};
	bool ok;

	add_thread(&now, 7, 7, "idle", 0, 0, false);
	add_thread(&now, 8, 8, "busy", 1, 0, false);
	snapshot_sort(&now);
	ok = ASSERT_EQ(row_table_of_read(&now, &all, 0, &out), 0) && ASSERT_EQ(out.nr, 1) &&
	     ASSERT_EQ(out.rows[0].key.hi, 8) && ASSERT_EQ(out.nr_active, 1);
	snapshot_free(&now);
	row_table_free(&out);
	return ok;
}

static bool filters_select_by_pid_and_name(void)
{
	struct snapshot now = {0};
	struct row_table out = {0};
	static const pid_t pids[] = {20};
	static const __u64 any_start[] = {0};
	struct process_filter opts = {.nr_pids = 1, .pids = pids, .pid_started_before = any_start};
	bool ok;

	add_thread(&now, 10, 10, "bash", 1, 0, false);
	add_thread(&now, 20, 20, "bash", 1, 0, false);
	add_thread(&now, 30, 30, "python3", 1, 0, false);
	snapshot_sort(&now);
	ok = ASSERT_EQ(row_table_of_read(&now, &opts, 0, &out), 0) && ASSERT_EQ(out.nr, 1) &&
	     ASSERT_EQ(out.rows[0].key.hi, 20);
	opts.nr_pids = 0;
	opts.comm = "bash";
	ok = ok && ASSERT_EQ(row_table_of_read(&now, &opts, 0, &out), 0) && ASSERT_EQ(out.nr, 2) &&
	     ASSERT_TRUE(find(&out, 10) && find(&out, 20));
	snapshot_free(&now);
	row_table_free(&out);
	return ok;
}

/* Late counts of a thread's old entry and its new entry's in the same read (the loader freed
 * the old one while the thread was idle) are one row, once, named as the live entry is. */
static bool late_and_new_counts_of_a_process_are_one_row(void)
{
	struct snapshot now = {0};
	struct row_table out = {0};
	struct fs_proc_counters late = {0}, fresh = {0};
	bool ok;

	add_thread_started(&now, 60, 60, 5000, "sh", 2, 0, true);
	add_thread_started(&now, 60, 60, 5000, "app", 3, 0, false);
	late.stalls[FS_STALL_COMPACTION].count = 1;
	fresh.stalls[FS_STALL_COMPACTION].count = 2;
	snapshot_append_proc(&now, &(struct fs_entry_head){.key = 60, .comm = "sh", .start = 5000},
			     true, &late);
	snapshot_append_proc(&now, &(struct fs_entry_head){.key = 60, .comm = "app", .start = 5000},
			     false, &fresh);
	snapshot_sort(&now);
	ok = ASSERT_EQ(row_table_of_read(&now, &all, 0, &out), 0) && ASSERT_EQ(out.nr, 1) &&
	     ASSERT_EQ(out.rows[0].totals.folios[FS_FOLIO_ALLOC_MOVABLE][0], 2 + 3) &&
	     ASSERT_STREQ(out.rows[0].comm, "app") && ASSERT_EQ(out.nr_procs, 1) &&
	     ASSERT_EQ(out.procs[0].totals.stalls[FS_STALL_COMPACTION].count, 3);
	snapshot_free(&now);
	row_table_free(&out);
	return ok;
}

/* Allocations by node and order, from several threads' node deltas, and a process entry's
 * figures of the same process are one process row; a process with node deltas and no row of its
 * own yet gets one. */
static bool node_deltas_join_their_process_figures(void)
{
	struct snapshot now = {0};
	struct row_table out = {0};
	struct fs_proc_counters stalls = {0};
	bool ok;

	add_thread_started(&now, 60, 60, 5000, "app", 3, 0, false);
	add_thread_started(&now, 60, 61, 5000, "app", 1, 0, false);
	stalls.stalls[FS_STALL_COMPACTION].count = 2;
	snapshot_append_proc(&now, &(struct fs_entry_head){.key = 60, .comm = "app", .start = 5000},
			     false, &stalls);
	snapshot_append_node(
	    &now, &(struct fs_entry_head){.key = KEY(60, 61), .comm = "app", .start = 5000}, false,
	    1, 9, 4);
	snapshot_append_node(
	    &now, &(struct fs_entry_head){.key = KEY(70, 70), .comm = "late", .start = 7000}, true,
	    0, 0, 5);
	snapshot_append_node(
	    &now, &(struct fs_entry_head){.key = KEY(60, 60), .comm = "app", .start = 5000}, false,
	    1, 9, 1);
	snapshot_sort(&now);
	ok = ASSERT_EQ(row_table_of_read(&now, &all, 0, &out), 0) && ASSERT_EQ(out.nr, 2) &&
	     ASSERT_EQ(out.nr_procs, 2) && ASSERT_EQ(row_pid(&out.rows[0]), 60) &&
	     ASSERT_EQ(out.procs[0].totals.stalls[FS_STALL_COMPACTION].count, 2) &&
	     ASSERT_EQ(out.procs[0].totals.alloc_by_node_order[1][9], 5) &&
	     ASSERT_EQ(row_pid(&out.rows[1]), 70) && ASSERT_STREQ(out.rows[1].comm, "late") &&
	     ASSERT_EQ(out.procs[1].totals.alloc_by_node_order[0][0], 5);
	snapshot_free(&now);
	row_table_free(&out);
	return ok;
}

/*
 * A pid reused within a read: the exited process's last counts (late, and those of a thread
 * whose key the new process's threads share, in the table's order between them) and the new
 * process's are two rows, each with its own counts, name and process-level figures, in every
 * way a window is made (all rows, the top ones) and accumulated.
 */
static bool a_reused_pid_is_another_row(void)
{
	struct snapshot now = {0};
	struct row_table out = {0}, acc = {0};
	struct fs_proc_counters late = {0}, fresh = {0};
	bool ok = true;

	add_thread_started(&now, 60, 61, 9000, "new", 100, 0, false);
	add_thread_started(&now, 60, 60, 5000, "old", 2, 0, true);
	add_thread_started(&now, 60, 60, 9000, "new", 3, 0, false);
	add_thread_started(&now, 60, 62, 5000, "old", 40, 0, false);
	add_thread_started(&now, 59, 59, 7000, "other", 1, 0, false);
	late.stalls[FS_STALL_COMPACTION].count = 1;
	fresh.stalls[FS_STALL_COMPACTION].count = 2;
	snapshot_append_proc(&now, &(struct fs_entry_head){.key = 60, .comm = "new", .start = 9000},
			     false, &fresh);
	snapshot_append_proc(&now, &(struct fs_entry_head){.key = 60, .comm = "old", .start = 5000},
			     true, &late);
	snapshot_sort(&now);
	for (size_t keep = 0; keep <= 3 && ok; keep += 3) {
		ok = ASSERT_EQ(row_table_of_read(&now, &all, keep, &out), 0) &&
		     ASSERT_EQ(out.nr, 3) && ASSERT_EQ(out.nr_active, 3) &&
		     ASSERT_EQ(out.rows[1].key.hi, 60) && ASSERT_EQ(out.rows[1].key.lo, 5000) &&
		     ASSERT_STREQ(out.rows[1].comm, "old") &&
		     ASSERT_EQ(out.rows[1].totals.folios[FS_FOLIO_ALLOC_MOVABLE][0], 2 + 40) &&
		     ASSERT_EQ(out.rows[2].key.hi, 60) && ASSERT_EQ(out.rows[2].key.lo, 9000) &&
		     ASSERT_STREQ(out.rows[2].comm, "new") &&
		     ASSERT_EQ(out.rows[2].totals.folios[FS_FOLIO_ALLOC_MOVABLE][0], 100 + 3) &&
		     ASSERT_EQ(out.nr_procs, 2) &&
		     ASSERT_EQ(
			 process_proc(&out, &out.rows[1])->totals.stalls[FS_STALL_COMPACTION].count,
			 1) &&
		     ASSERT_EQ(
			 process_proc(&out, &out.rows[2])->totals.stalls[FS_STALL_COMPACTION].count,
			 2);
	}
	/* One-shot mode: the next read's counts of each go to its own row. */
	ok = ok && ASSERT_EQ(row_table_accumulate(&acc, &out, 0), 0) &&
	     ASSERT_EQ(row_table_accumulate(&acc, &out, 0), 0) && ASSERT_EQ(acc.nr, 3) &&
	     ASSERT_EQ(acc.rows[1].totals.folios[FS_FOLIO_ALLOC_MOVABLE][0], 2 * 42) &&
	     ASSERT_EQ(acc.rows[2].totals.folios[FS_FOLIO_ALLOC_MOVABLE][0], 2 * 103) &&
	     ASSERT_EQ(acc.nr_procs, 2) &&
	     ASSERT_EQ(process_proc(&acc, &acc.rows[2])->totals.stalls[FS_STALL_COMPACTION].count,
		       4);
	snapshot_free(&now);
	row_table_free(&out);
	row_table_free(&acc);
	return ok;
}

/* -p PID is the process that had PID at start-up: one that takes the pid after it is not. */
static bool a_pid_selects_the_process_that_had_it_at_start(void)
{
	struct snapshot now = {0};
	struct row_table out = {0};
	static const pid_t pids[] = {60};
	static const __u64 started_before[] = {6000};
	struct process_filter opts = {
	    .nr_pids = 1, .pids = pids, .pid_started_before = started_before};
	bool ok;

	add_thread_started(&now, 60, 60, 5000, "old", 2, 0, true);
	add_thread_started(&now, 60, 60, 9000, "new", 3, 0, false);
	snapshot_sort(&now);
	ok = ASSERT_EQ(row_table_of_read(&now, &opts, 0, &out), 0) && ASSERT_EQ(out.nr, 1) &&
	     ASSERT_EQ(out.rows[0].key.lo, 5000) &&
	     ASSERT_EQ(out.rows[0].totals.folios[FS_FOLIO_ALLOC_MOVABLE][0], 2);
	snapshot_free(&now);
	row_table_free(&out);
	return ok;
}

/* Ordering keeps each key with its own counts, whatever the order the tables gave them in. */
static bool threads_sort_by_key_with_their_counts(void)
{
	struct snapshot snap = {0};
	unsigned int seed = 12345;
	bool ok = true;

	for (int i = 0; i < 5000; i++) {
		__u64 tgid = rand_r(&seed) % 100000 + 1, tid = rand_r(&seed) % 100000 + 1;

		add_thread(&snap, tgid, tid, "x", tgid * 7 + tid, 0, false);
	}
	snapshot_sort(&snap);
	ok = ASSERT_EQ(snap.nr_order, snap.nr_threads);
	for (size_t i = 0; ok && i < snap.nr_order; i++) {
		const struct thread_ref *r = &snap.order[i];

		ok = ASSERT_EQ(snap.threads[r->at].counts.folios[FS_FOLIO_ALLOC_MOVABLE][0],
			       (r->key >> 32) * 7 + (__u32)r->key) &&
		     (i == 0 || ASSERT_TRUE(snap.order[i - 1].key <= r->key));
	}
	snapshot_free(&snap);
	return ok;
}

/* BPF counts in 32-bit words: a word that wrapped between two reads still gives what it grew
 * by, both where a late entry is compared with its last copy and where a live one is read in
 * place (which also moves its last copy on and widens the growth into the system total). */
static bool thread_counts_that_wrap_give_their_growth(void)
{
	struct fs_counters then = {0}, now = {0}, delta, in_place;
	struct fs_task entry = {0};
	struct fs_totals total = {0};
	struct counters_growth grew;
	bool ok;

	then.folios[FS_FOLIO_ALLOC_MOVABLE][0] = 0xfffffff0u;
	now.folios[FS_FOLIO_ALLOC_MOVABLE][0] = 0x10;
	now.lru_insert[0][FS_PAGES] = 3;
	grew = counters_delta(&delta, &now, &then);
	ok = ASSERT_EQ(delta.folios[FS_FOLIO_ALLOC_MOVABLE][0], 0x20) &&
	     ASSERT_EQ(grew.events, 0x23) && ASSERT_EQ(grew.activity, 0x20);
	total.folios[FS_FOLIO_ALLOC_MOVABLE][0] = 0xffffffffull;
	entry.counters = now;
	grew = counters_read_delta(&in_place, &then, &entry, &total);
	return ok && ASSERT_EQ(in_place.folios[FS_FOLIO_ALLOC_MOVABLE][0], 0x20) &&
	       ASSERT_EQ(in_place.lru_insert[0][FS_PAGES], 3) && ASSERT_EQ(grew.events, 0x23) &&
	       ASSERT_EQ(grew.activity, 0x20) && ASSERT_TRUE(!memcmp(&then, &now, sizeof(now))) &&
	       ASSERT_EQ(total.folios[FS_FOLIO_ALLOC_MOVABLE][0], 0x10000001full) &&
	       ASSERT_EQ(total.lru_insert[0][FS_PAGES], 3);
}

/* A CPU's group words only grow: one that wrapped adds what it grew by to the 64-bit sum. */
static bool system_counts_that_wrap_are_widened(void)
{
	struct fs_counters last = {0}, now = {0};
	struct fs_totals sum = {0};

	last.fault_kinds[0] = 0xffffffffu;
	now.fault_kinds[0] = 1;
	sum.fault_kinds[0] = 0xffffffffu;
	totals_add_growth(&sum, &now, &last);
	return ASSERT_EQ(sum.fault_kinds[0], 0x100000001ull);
}

/* A CPU's interrupt, untracked and unselected groups are in the system total too, and the
 * system-only figures add what they grew by. */
static bool cpu_groups_add_to_the_system_total(void)
{
	static struct fs_cpu last, now;
	static struct system_totals system;

	now.interrupt.folios[FS_FOLIO_ALLOC_KERNEL][1] = 3;
	now.untracked.fault_kinds[2] = 4;
	now.unselected.fault_kinds[2] = 5;
	last.unselected.fault_kinds[2] = 1;
	last.freed[0] = 10;
	now.freed[0] = 16;
	system.total.fault_kinds[2] = 100; /* the threads' */
	system_add_cpu_growth(&system, &now, &last);
	return ASSERT_EQ(system.interrupt.folios[FS_FOLIO_ALLOC_KERNEL][1], 3) &&
	       ASSERT_EQ(system.total.folios[FS_FOLIO_ALLOC_KERNEL][1], 3) &&
	       ASSERT_EQ(system.untracked.fault_kinds[2], 4) &&
	       ASSERT_EQ(system.unselected.fault_kinds[2], 4) &&
	       ASSERT_EQ(system.total.fault_kinds[2], 108) && ASSERT_EQ(system.freed[0], 6);
}

/* Asked for the top few, the window sums only their threads, yet counts every active process,
 * and the sums equal those of a full window. */
static bool top_rows_equal_full_rows(void)
{
	struct snapshot now = {0};
	struct row_table top = {0}, full = {0};
	bool ok;

	for (__u32 p = 1; p <= 6; p++) {
		add_thread(&now, p * 10, p * 10, "app", p, p, false);
		add_thread(&now, p * 10, p * 10 + 1, "app", 2 * p, 0, false);
	}
	add_thread(&now, 5, 5, "idle", 0, 0, false);
	snapshot_sort(&now);
	ok = ASSERT_EQ(row_table_of_read(&now, &all, 2, &top), 0) && ASSERT_EQ(top.nr, 2) &&
	     ASSERT_EQ(top.nr_active, 6) && ASSERT_TRUE(find(&top, 60) && find(&top, 50)) &&
	     ASSERT_EQ(find(&top, 60)->events, 6 + 6 + 12) &&
	     ASSERT_EQ(find(&top, 60)->totals.folios[FS_FOLIO_ALLOC_MOVABLE][0], 6 + 12) &&
	     ASSERT_EQ(find(&top, 50)->totals.folios[FS_FOLIO_ALLOC_MOVABLE][9], 5) &&
	     ASSERT_EQ(row_table_of_read(&now, &all, 0, &full), 0) && ASSERT_EQ(full.nr, 6) &&
	     ASSERT_EQ(full.nr_active, 6);
	for (__u32 p = 50; ok && p <= 60; p += 10)
		ok = ASSERT_TRUE(memcmp(&find(&top, p)->totals, &find(&full, p)->totals,
					sizeof(struct fs_totals)) == 0);
	snapshot_free(&now);
	row_table_free(&top);
	row_table_free(&full);
	return ok;
}

static struct row row_of(__u32 tgid, const char *comm, __u64 folios)
{
	struct row r = {.key = {tgid}, .events = folios};

	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	r.totals.folios[FS_FOLIO_ALLOC_KERNEL][0] = folios;
	return r;
}

static bool one_shot_windows_accumulate_per_process(void)
{
	struct row a_rows[] = {row_of(1, "a", 5), row_of(3, "c", 1)};
	struct row b_rows[] = {row_of(2, "b", 7), row_of(3, "c-renamed", 2)};
	struct row_table acc = {0};
	struct row_table a = {.rows = a_rows, .nr = 2, .cap = 2};
	struct row_table b = {.rows = b_rows, .nr = 2, .cap = 2};
	bool ok;

	ok = ASSERT_EQ(row_table_accumulate(&acc, &a, 0), 0) &&
	     ASSERT_EQ(row_table_accumulate(&acc, &b, 0), 0) && ASSERT_EQ(acc.nr, 3) &&
	     ASSERT_EQ(acc.nr_active, 3) && ASSERT_EQ(find(&acc, 3)->events, 3) &&
	     ASSERT_EQ(find(&acc, 3)->totals.folios[FS_FOLIO_ALLOC_KERNEL][0], 3) &&
	     ASSERT_STREQ(find(&acc, 3)->comm, "c-renamed");
	rank_rows(&acc, FS_SORT_EVENTS, 0);
	ok = ok && ASSERT_EQ(acc.rows[0].key.hi, 2) && ASSERT_EQ(acc.rows[1].key.hi, 1) &&
	     ASSERT_EQ(acc.rows[2].key.hi, 3);
	row_table_free(&acc);
	return ok;
}

/* --sort: each key ranks by its own figure (ties by activity, then pid): three rows, each
 * first by one key and last by another. */
static bool rows_rank_by_the_sort_key(void)
{
	struct row rows[3] = {row_of(1, "pages", 9000), row_of(2, "large", 10),
			      row_of(3, "busy", 20)};
	struct row_table t = {.rows = rows, .nr = 3, .cap = 3};
	static const struct {
		enum fs_sort sort;
		__u32 first, last;
	} expect[] = {
	    /* (a tie, at 0, goes to the more active: pages, 9,000 events, before busy, 20) */
	    {FS_SORT_PAGES, 1, 3},    {FS_SORT_LARGE, 2, 3},  {FS_SORT_THP, 2, 3},
	    {FS_SORT_FALLBACK, 3, 2}, {FS_SORT_FAULTS, 3, 2}, {FS_SORT_TLB, 3, 2},
	    {FS_SORT_LRU, 2, 3},      {FS_SORT_EVENTS, 1, 2},
	};
	bool ok = true;

	rows[1].totals.folios[FS_FOLIO_ALLOC_MOVABLE][9] = 2; /* 1,024 pages, all large */
	rows[1].totals.thp_fault_alloc = 2;
	rows[1].totals.lru_insert[0][FS_PAGES] = 1024;
	rows[2].totals.folios[FS_FOLIO_ALLOC_FAILED][9] = 5;  /* fell back */
	rows[2].totals.folios[FS_FOLIO_ALLOC_FAILED][0] = 50; /* order 0 is no fallback */
	rows[2].totals.fault_kinds[0] = 300;
	rows[2].totals.fault_kinds[FS_NR_FAULT_KINDS - 1] = 1; /* every kind counts */
	rows[2].totals.tlb_flushes[0] = 7;
	for (size_t i = 0; ok && i < sizeof(expect) / sizeof(expect[0]); i++) {
		rank_rows(&t, expect[i].sort, 0);
		ok = ASSERT_EQ(t.rows[0].key.hi, expect[i].first) &&
		     ASSERT_EQ(t.rows[2].key.hi, expect[i].last);
		if (!ok)
			fprintf(stderr, "    by %s\n", fs_sort_names[expect[i].sort]);
	}
	return ok;
}

/* 500 rows in a scrambled order (7919 is prime: i * 7919 % 500 visits every row), each with
 * a figure that names it. */
static void scrambled_rows(struct row *rows, __u32 nr)
{
	for (__u32 i = 0; i < nr; i++) {
		__u32 pid = (i * 7919) % nr + 1;

		rows[i] = row_of(pid, "p", pid % 37);
		rows[i].totals.lru_insert[0][FS_PAGES] = pid;
	}
}

/* Ranking moves whole rows: scrambled rows come out greatest first by pages, ties by activity,
 * each row with its own figures, none lost or doubled; with only the first 20 wanted in order,
 * those are the same 20 and the rest are the other rows. */
static bool ranking_moves_whole_rows(void)
{
	enum { N = 500, SHOWN = 20 };
	struct row *rows = calloc(N, sizeof(*rows));
	struct row_table t = {.rows = rows, .nr = N, .cap = N};
	bool seen[N] = {false}, ok = rows != NULL;
	__u32 first[SHOWN];

	if (ok)
		scrambled_rows(rows, N);
	ok = ok && ASSERT_EQ(rank_rows(&t, FS_SORT_PAGES, 0), 0);
	for (size_t i = 0; ok && i < N; i++) {
		__u32 pid = (__u32)rows[i].key.hi;

		ok = ASSERT_EQ(rows[i].totals.lru_insert[0][FS_PAGES], pid) &&
		     ASSERT_TRUE(!seen[pid - 1]) &&
		     ASSERT_TRUE(i == 0 || rows[i - 1].totals.folios[FS_FOLIO_ALLOC_KERNEL][0] >=
					       rows[i].totals.folios[FS_FOLIO_ALLOC_KERNEL][0]);
		seen[pid - 1] = true;
		if (i < SHOWN)
			first[i] = pid;
	}
	if (ok)
		scrambled_rows(rows, N);
	memset(seen, 0, sizeof(seen));
	ok = ok && ASSERT_EQ(rank_rows(&t, FS_SORT_PAGES, SHOWN), 0);
	for (size_t i = 0; ok && i < N; i++) {
		__u32 pid = (__u32)rows[i].key.hi;

		ok = ASSERT_EQ(rows[i].totals.lru_insert[0][FS_PAGES], pid) &&
		     ASSERT_TRUE(!seen[pid - 1]) && (i >= SHOWN || ASSERT_EQ(pid, first[i]));
		seen[pid - 1] = true;
	}
	free(rows);
	return ok;
}

/* Over its limit, the accumulated table drops its least active rows (down to three quarters of
 * the limit) and their process-level figures, and still counts them as processes seen. */
static bool accumulated_rows_stay_within_the_limit(void)
{
	struct row_table acc = {0};
	bool ok = true;

	for (__u32 w = 0; ok && w < 10; w++) {
		struct row rows[10];
		struct row_proc_totals procs[1] = {{.key = {w * 10 + 1}}};
		struct row_table add = {.rows = rows,
					.nr = 10,
					.cap = 10,
					.procs = procs,
					.nr_procs = 1,
					.cap_procs = 1};

		/* Ten new processes a window; process 1000 is busy in every one. */
		for (__u32 i = 0; i < 9; i++)
			rows[i] = row_of(w * 10 + i + 1, "short", i + 1);
		rows[9] = row_of(1000, "busy", 100);
		ok = ASSERT_EQ(row_table_accumulate(&acc, &add, 16), 0) &&
		     ASSERT_TRUE(acc.nr <= 16) && ASSERT_EQ(acc.nr_active, acc.nr + acc.nr_dropped);
	}
	ok = ok && ASSERT_EQ(acc.nr_dropped + acc.nr, 9 * 10 + 1) &&
	     ASSERT_TRUE(find(&acc, 1000)) && ASSERT_EQ(find(&acc, 1000)->events, 1000) &&
	     ASSERT_TRUE(acc.nr_procs <= acc.nr);
	for (size_t i = 1; ok && i < acc.nr; i++)
		ok = ASSERT_TRUE(acc.rows[i - 1].key.hi < acc.rows[i].key.hi);
	for (size_t i = 0; ok && i < acc.nr_procs; i++)
		ok = ASSERT_TRUE(find(&acc, acc.procs[i].key.hi));
	row_table_free(&acc);
	return ok;
}

static bool histogram_pages_weigh_orders(void)
{
	__u64 hist[FS_NR_ORDERS] = {[0] = 3, [9] = 2};

	return ASSERT_EQ(hist_pages(hist), 3 + 2 * 512) && ASSERT_EQ(hist_folios(hist), 5);
}

/* -p's and the exporter's check of a pid's process: /proc/PID/stat's starttime (field 22), past
 * a name that holds spaces and parentheses; the outputs' form of a start. */
static bool a_process_start_is_read_from_its_stat_line(void)
{
	unsigned long long ticks = 0;
	char text[FS_START_TIME_LEN];

	format_start_time(12345678901234ULL, text);
	return ASSERT_EQ(stat_start_ticks("4242 (a) b (c) S 1 4242 4242 0 -1 4194560 98 0 0 0 0 0 "
					  "0 0 20 0 1 0 1234567 4812800 236\n",
					  &ticks),
			 0) &&
	       ASSERT_EQ(ticks, 1234567) &&
	       ASSERT_EQ(stat_start_ticks("1 (init) S 0 1 1 0 -1 4194560 98 0 0 0 0 0 0 0 20 0 1 0 "
					  "0",
					  &ticks),
			 0) &&
	       ASSERT_EQ(ticks, 0) &&
	       ASSERT_EQ(stat_start_ticks("7 (short) S 0 1 1 0", &ticks), -EINVAL) &&
	       ASSERT_EQ(stat_start_ticks("garbage", &ticks), -EINVAL) &&
	       ASSERT_EQ(start_tick(1234567 * 10000000ULL + 9999999, 10000000), 1234567) &&
	       ASSERT_STREQ(text, "12345.678901");
}

const struct unit_test row_table_tests[] = {
    UNIT_TEST(rows_rank_by_the_sort_key),
    UNIT_TEST(ranking_moves_whole_rows),
    UNIT_TEST(threads_sum_into_their_process),
    UNIT_TEST(idle_processes_are_left_out),
    UNIT_TEST(filters_select_by_pid_and_name),
    UNIT_TEST(late_and_new_counts_of_a_process_are_one_row),
    UNIT_TEST(node_deltas_join_their_process_figures),
    UNIT_TEST(a_reused_pid_is_another_row),
    UNIT_TEST(a_pid_selects_the_process_that_had_it_at_start),
    UNIT_TEST(a_process_start_is_read_from_its_stat_line),
    UNIT_TEST(a_moved_entry_does_not_name_its_process),
    UNIT_TEST(threads_sort_by_key_with_their_counts),
    UNIT_TEST(thread_counts_that_wrap_give_their_growth),
    UNIT_TEST(system_counts_that_wrap_are_widened),
    UNIT_TEST(cpu_groups_add_to_the_system_total),
    UNIT_TEST(top_rows_equal_full_rows),
    UNIT_TEST(one_shot_windows_accumulate_per_process),
    UNIT_TEST(accumulated_rows_stay_within_the_limit),
    UNIT_TEST(histogram_pages_weigh_orders),
    {},
};
