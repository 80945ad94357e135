// SPDX-License-Identifier: GPL-2.0
/* Aggregation: deltas between reads of the thread table, per-process sums, filters, the
 * one-shot accumulation and ranking. */
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "unit.h"
#include "window.h"

static struct fs_options all; /* no filters */

#define KEY(tgid, tid) (((__u64)(tgid) << 32) | (tid))

/* A thread with `movable` order-0 and `huge` order-9 movable allocations so far. */
static void add_thread(struct snapshot *s, __u32 tgid, __u32 tid, const char *comm, __u32 movable,
		       __u32 huge, bool exited)
{
	struct fs_task t = {.exited = exited};

	snprintf(t.comm, sizeof(t.comm), "%s", comm);
	t.counters.folios[FS_FOLIO_ALLOC_MOVABLE][0] = movable;
	t.counters.folios[FS_FOLIO_ALLOC_MOVABLE][9] = huge;
	snapshot_append(s, KEY(tgid, tid), &t);
}

static const struct process_row *find(const struct process_table *t, __u32 tgid)
{
	for (size_t i = 0; i < t->nr; i++)
		if (t->rows[i].tgid == tgid)
			return &t->rows[i];
	return NULL;
}

static bool threads_sum_into_their_process(void)
{
	struct snapshot before = {0}, now = {0};
	struct process_table out = {0};
	const struct process_row *row;
	bool ok;

	add_thread(&before, 100, 100, "app", 10, 0, false);
	add_thread(&before, 100, 101, "app", 5, 1, false);
	add_thread(&now, 100, 101, "app-worker", 7, 3, false);
	add_thread(&now, 100, 100, "app", 15, 0, false);
	add_thread(&now, 100, 102, "app-new", 4, 0, false); /* new thread: counts from zero */
	snapshot_sort(&now);
	snapshot_sort(&before);
	ok = ASSERT_EQ(window_processes(&before, &now, &all, 0, &out), 0) && ASSERT_EQ(out.nr, 1);
	row = find(&out, 100);
	ok = ok && ASSERT_TRUE(row) &&
	     ASSERT_EQ(row->counters.folios[FS_FOLIO_ALLOC_MOVABLE][0], 5 + 2 + 4) &&
	     ASSERT_EQ(row->counters.folios[FS_FOLIO_ALLOC_MOVABLE][9], 2) &&
	     ASSERT_EQ(row->events, 13) && ASSERT_STREQ(row->comm, "app");
	snapshot_free(&before);
	snapshot_free(&now);
	process_table_free(&out);
	return ok;
}

static bool idle_processes_are_left_out(void)
{
	struct snapshot before = {0}, now = {0};
	struct process_table out = {0};
	bool ok;

	add_thread(&before, 7, 7, "idle", 3, 0, false);
	add_thread(&now, 7, 7, "idle", 3, 0, false);
	add_thread(&now, 8, 8, "busy", 1, 0, false);
	ok = ASSERT_EQ(window_processes(&before, &now, &all, 0, &out), 0) && ASSERT_EQ(out.nr, 1) &&
	     ASSERT_EQ(out.rows[0].tgid, 8);
	snapshot_free(&before);
	snapshot_free(&now);
	process_table_free(&out);
	return ok;
}

/* A thread read lower than last time (a CPU's slot was moved into its entry during the read and
 * left out) is late, not new: nothing is counted twice, nothing wraps, and what was seen
 * stays seen for the next window. */
static bool counts_never_go_backwards(void)
{
	struct snapshot before = {0}, now = {0};
	struct process_table out = {0};
	bool ok;

	add_thread(&before, 9, 9, "app", 1000, 0, false);
	add_thread(&now, 9, 9, "app", 997, 1, false);
	ok = ASSERT_EQ(window_processes(&before, &now, &all, 0, &out), 0) && ASSERT_EQ(out.nr, 1) &&
	     ASSERT_EQ(out.rows[0].events, 1) &&
	     ASSERT_EQ(now.tasks[0].counters.folios[FS_FOLIO_ALLOC_MOVABLE][0], 1000);
	snapshot_free(&before);
	snapshot_free(&now);
	process_table_free(&out);
	return ok;
}

static bool filters_select_by_pid_and_name(void)
{
	struct snapshot before = {0}, now = {0};
	struct process_table out = {0};
	struct fs_options opts = {.nr_pids = 1, .pids = {20}};
	bool ok;

	add_thread(&now, 10, 10, "bash", 1, 0, false);
	add_thread(&now, 20, 20, "bash", 1, 0, false);
	add_thread(&now, 30, 30, "python3", 1, 0, false);
	ok = ASSERT_EQ(window_processes(&before, &now, &opts, 0, &out), 0) &&
	     ASSERT_EQ(out.nr, 1) && ASSERT_EQ(out.rows[0].tgid, 20);
	opts.nr_pids = 0;
	opts.comm = "bash";
	ok = ok && ASSERT_EQ(window_processes(&before, &now, &opts, 0, &out), 0) &&
	     ASSERT_EQ(out.nr, 2) && ASSERT_TRUE(find(&out, 10) && find(&out, 20));
	snapshot_free(&now);
	process_table_free(&out);
	return ok;
}

static bool exited_threads_are_reported_then_dropped(void)
{
	struct snapshot before = {0}, now = {0};
	struct process_table out = {0};
	bool ok;

	add_thread(&now, 40, 40, "short", 6, 0, true);
	add_thread(&now, 41, 41, "long", 2, 0, false);
	ok = ASSERT_EQ(window_processes(&before, &now, &all, 0, &out), 0) && ASSERT_EQ(out.nr, 2) &&
	     ASSERT_EQ(find(&out, 40)->events, 6);
	snapshot_drop_evicted(&now);
	ok = ok && ASSERT_EQ(now.nr_order, 1) && ASSERT_EQ(ref_tgid(&now.order[0]), 41);
	snapshot_free(&now);
	process_table_free(&out);
	return ok;
}

/* Slots are held only by threads with activity: an idle thread's slot is freed, and one that
 * was just created (absent before) is active by definition. */
static bool idle_threads_are_marked_for_eviction(void)
{
	struct snapshot before = {0}, now = {0};
	struct process_table out = {0};
	bool ok;

	add_thread(&before, 50, 50, "idle", 4, 0, false);
	add_thread(&before, 51, 51, "busy", 4, 0, false);
	add_thread(&now, 50, 50, "idle", 4, 0, false);
	add_thread(&now, 51, 51, "busy", 5, 0, false);
	add_thread(&now, 52, 52, "new", 1, 0, false);
	ok = ASSERT_EQ(window_processes(&before, &now, &all, 0, &out), 0) && ASSERT_EQ(out.nr, 2) &&
	     ASSERT_TRUE(now.order[0].evict) && ASSERT_TRUE(!now.order[1].evict) &&
	     ASSERT_TRUE(!now.order[2].evict);
	snapshot_drop_evicted(&now);
	ok = ok && ASSERT_EQ(now.nr_order, 2);
	snapshot_free(&before);
	snapshot_free(&now);
	process_table_free(&out);
	return ok;
}

/* Counts that reached a slot between its last read and its eviction are carried into the next
 * window: counted once, beside a fresh slot for the same thread, and never kept. */
static bool late_counts_are_carried_into_the_next_window(void)
{
	struct snapshot before = {0}, now = {0}, carry = {0};
	struct process_table out = {0};
	bool ok;

	add_thread(&before, 60, 60, "app", 100, 0, false); /* not evicted: has a before */
	add_thread(&carry, 60, 60, "app", 2, 0, false);	   /* late counts of an older slot */
	add_thread(&now, 60, 60, "app", 103, 0, false);
	ok = ASSERT_EQ(snapshot_absorb(&now, &carry), 0) && ASSERT_EQ(carry.nr_tasks, 0) &&
	     ASSERT_EQ(now.nr_tasks, 2) &&
	     ASSERT_EQ(window_processes(&before, &now, &all, 0, &out), 0) && ASSERT_EQ(out.nr, 1) &&
	     ASSERT_EQ(out.rows[0].counters.folios[FS_FOLIO_ALLOC_MOVABLE][0], 3 + 2);
	snapshot_drop_evicted(&now);
	ok = ok && ASSERT_EQ(now.nr_order, 1) && ASSERT_TRUE(!now.order[0].carried);
	snapshot_free(&before);
	snapshot_free(&now);
	snapshot_free(&carry);
	process_table_free(&out);
	return ok;
}

/* A CPU's slot that stayed the same across the read adds to its thread; one that moved is left
 * out (its counts are in the entry, or will be); a slotted thread keeps its entry. The idle
 * task's slot (key 0) counts as its own; a slot nobody owns adds nothing. */
static bool stable_slots_add_to_their_threads(void)
{
	struct snapshot now = {0}, before = {0};
	struct process_table out = {0};
	struct slot_sample first[5] = {0}, second[5] = {0};
	bool ok;

	add_thread(&now, 70, 70, "app", 10, 0, false);
	first[0] = (struct slot_sample){.seq = 4, .owned = true, .key = KEY(70, 70)};
	first[0].counters.folios[FS_FOLIO_ALLOC_MOVABLE][0] = 5;
	first[1] =
	    (struct slot_sample){.seq = 6, .owned = true, .key = KEY(80, 81), .comm = "newcomer"};
	first[1].counters.folios[FS_FOLIO_ALLOC_MOVABLE][0] = 2;
	first[2] = (struct slot_sample){.seq = 8, .owned = true, .key = KEY(90, 90)};
	first[2].counters.folios[FS_FOLIO_ALLOC_MOVABLE][0] = 7;
	first[3] = (struct slot_sample){.seq = 2, .owned = true, .key = 0, .comm = "swapper/3"};
	first[3].counters.folios[FS_FOLIO_ALLOC_KERNEL][0] = 3;
	first[4] = (struct slot_sample){.seq = 12, .key = 0};
	first[4].counters.folios[FS_FOLIO_ALLOC_KERNEL][0] = 99; /* never so in BPF: not read */
	second[0] = first[0];
	second[1] = first[1];
	second[2] = (struct slot_sample){.seq = 10}; /* moved during the read */
	second[3] = first[3];
	second[4] = first[4];
	ok = ASSERT_EQ(snapshot_add_slots(&now, first, second, 5), 0) &&
	     ASSERT_EQ(now.nr_tasks, 3) && ASSERT_EQ(now.nr_slotted, 3) &&
	     ASSERT_EQ(now.tasks[0].counters.folios[FS_FOLIO_ALLOC_MOVABLE][0], 15) &&
	     ASSERT_STREQ(now.tasks[1].comm, "newcomer") &&
	     ASSERT_STREQ(now.tasks[2].comm, "swapper/3") &&
	     ASSERT_EQ(now.tasks[2].counters.folios[FS_FOLIO_ALLOC_KERNEL][0], 3) &&
	     ASSERT_TRUE(snapshot_slotted(&now, KEY(70, 70))) &&
	     ASSERT_TRUE(snapshot_slotted(&now, 0)) &&
	     ASSERT_TRUE(!snapshot_slotted(&now, KEY(90, 90))) &&
	     ASSERT_EQ(window_processes(&before, &now, &all, 0, &out), 0) && ASSERT_EQ(out.nr, 3);
	snapshot_free(&now);
	process_table_free(&out);
	return ok;
}

/* Ordering keeps each key with its own sample, whatever the order the table gave them in. */
static bool samples_sort_by_key_with_their_counts(void)
{
	struct snapshot snap = {0};
	unsigned int seed = 12345;
	bool ok = true;

	for (int i = 0; i < 5000; i++) {
		__u64 tgid = rand_r(&seed) % 100000 + 1, tid = rand_r(&seed) % 100000 + 1;

		add_thread(&snap, tgid, tid, "x", tgid * 7 + tid, 0, false);
	}
	snapshot_sort(&snap);
	ok = ASSERT_EQ(snap.nr_order, snap.nr_tasks);
	for (size_t i = 0; ok && i < snap.nr_order; i++) {
		const struct task_ref *r = &snap.order[i];

		ok = ASSERT_EQ(ref_task(&snap, r)->counters.folios[FS_FOLIO_ALLOC_MOVABLE][0],
			       ref_tgid(r) * 7 + ref_tid(r)) &&
		     (i == 0 || ASSERT_TRUE(snap.order[i - 1].key <= r->key));
	}
	snapshot_free(&snap);
	return ok;
}

/* BPF counts in 32-bit words: a thread's word that wrapped between two reads still gives what
 * it grew by. */
static bool thread_counts_that_wrap_give_their_growth(void)
{
	struct snapshot before = {0}, now = {0};
	struct process_table out = {0};
	bool ok;

	add_thread(&before, 11, 11, "app", 0xfffffff0u, 0, false);
	add_thread(&now, 11, 11, "app", 0x10, 0, false);
	ok = ASSERT_EQ(window_processes(&before, &now, &all, 0, &out), 0) && ASSERT_EQ(out.nr, 1) &&
	     ASSERT_EQ(out.rows[0].counters.folios[FS_FOLIO_ALLOC_MOVABLE][0], 0x20);
	snapshot_free(&before);
	snapshot_free(&now);
	process_table_free(&out);
	return ok;
}

/* A CPU's system words only grow: one that wrapped adds what it grew by to the 64-bit sum. */
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

/* Asked for the top few, the window sums only their threads, yet counts every active process,
 * and the sums equal those of a full window. */
static bool top_rows_equal_full_rows(void)
{
	struct snapshot before = {0}, now = {0};
	struct process_table top = {0}, full = {0};
	bool ok;

	for (__u32 p = 1; p <= 6; p++) {
		add_thread(&before, p * 10, p * 10, "app", 100, 1, false);
		add_thread(&before, p * 10, p * 10 + 1, "app", 50, 0, false);
		add_thread(&now, p * 10, p * 10, "app", 100 + p, 1 + p, false);
		add_thread(&now, p * 10, p * 10 + 1, "app", 50 + 2 * p, 0, false);
	}
	add_thread(&now, 5, 5, "idle", 0, 0, false);
	snapshot_sort(&before);
	snapshot_sort(&now);
	ok = ASSERT_EQ(window_processes(&before, &now, &all, 2, &top), 0) && ASSERT_EQ(top.nr, 2) &&
	     ASSERT_EQ(top.nr_active, 6) && ASSERT_TRUE(find(&top, 60) && find(&top, 50)) &&
	     ASSERT_EQ(find(&top, 60)->events, 6 + 6 + 12) &&
	     ASSERT_EQ(find(&top, 60)->counters.folios[FS_FOLIO_ALLOC_MOVABLE][0], 6 + 12) &&
	     ASSERT_EQ(find(&top, 50)->counters.folios[FS_FOLIO_ALLOC_MOVABLE][9], 5) &&
	     ASSERT_EQ(window_processes(&before, &now, &all, 0, &full), 0) &&
	     ASSERT_EQ(full.nr, 6) && ASSERT_EQ(full.nr_active, 6);
	for (__u32 p = 50; ok && p <= 60; p += 10)
		ok = ASSERT_TRUE(memcmp(&find(&top, p)->counters, &find(&full, p)->counters,
					sizeof(struct fs_totals)) == 0);
	snapshot_free(&before);
	snapshot_free(&now);
	process_table_free(&top);
	process_table_free(&full);
	return ok;
}

static bool system_deltas_subtract_the_previous_read(void)
{
	struct snapshot before = {0}, now = {0};
	struct system_totals out;

	before.system.total.folios[FS_FOLIO_PAGECACHE][2] = 10;
	now.system.total.folios[FS_FOLIO_PAGECACHE][2] = 25;
	now.system.freed[0] = 4;
	window_system(&before, &now, &out);
	return ASSERT_EQ(out.total.folios[FS_FOLIO_PAGECACHE][2], 15) &&
	       ASSERT_EQ(out.freed[0], 4) && ASSERT_EQ(out.untracked.folios[0][0], 0);
}

static struct process_row row_of(__u32 tgid, const char *comm, __u64 folios)
{
	struct process_row r = {.tgid = tgid, .events = folios};

	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	r.counters.folios[FS_FOLIO_ALLOC_KERNEL][0] = folios;
	return r;
}

static bool one_shot_windows_accumulate_per_process(void)
{
	struct process_row a_rows[] = {row_of(1, "a", 5), row_of(3, "c", 1)};
	struct process_row b_rows[] = {row_of(2, "b", 7), row_of(3, "c-renamed", 2)};
	struct process_table acc = {0};
	struct process_table a = {.rows = a_rows, .nr = 2, .cap = 2};
	struct process_table b = {.rows = b_rows, .nr = 2, .cap = 2};
	bool ok;

	ok = ASSERT_EQ(process_table_accumulate(&acc, &a, 0), 0) &&
	     ASSERT_EQ(process_table_accumulate(&acc, &b, 0), 0) && ASSERT_EQ(acc.nr, 3) &&
	     ASSERT_EQ(acc.nr_active, 3) && ASSERT_EQ(find(&acc, 3)->events, 3) &&
	     ASSERT_EQ(find(&acc, 3)->counters.folios[FS_FOLIO_ALLOC_KERNEL][0], 3) &&
	     ASSERT_STREQ(find(&acc, 3)->comm, "c-renamed");
	process_table_rank(&acc);
	ok = ok && ASSERT_EQ(acc.rows[0].tgid, 2) && ASSERT_EQ(acc.rows[1].tgid, 1) &&
	     ASSERT_EQ(acc.rows[2].tgid, 3);
	process_table_free(&acc);
	return ok;
}

/* Over its limit, the accumulated table drops its least active rows (down to three quarters of
 * the limit) and their process-level figures, and still counts them as processes seen. */
static bool accumulated_rows_stay_within_the_limit(void)
{
	struct process_table acc = {0};
	bool ok = true;

	for (__u32 w = 0; ok && w < 10; w++) {
		struct process_row rows[10];
		struct proc_row procs[1] = {{.tgid = w * 10 + 1}};
		struct process_table add = {.rows = rows,
					    .nr = 10,
					    .cap = 10,
					    .procs = procs,
					    .nr_procs = 1,
					    .cap_procs = 1};

		/* Ten new processes a window; process 1000 is busy in every one. */
		for (__u32 i = 0; i < 9; i++)
			rows[i] = row_of(w * 10 + i + 1, "short", i + 1);
		rows[9] = row_of(1000, "busy", 100);
		ok = ASSERT_EQ(process_table_accumulate(&acc, &add, 16), 0) &&
		     ASSERT_TRUE(acc.nr <= 16) && ASSERT_EQ(acc.nr_active, acc.nr + acc.nr_dropped);
	}
	ok = ok && ASSERT_EQ(acc.nr_dropped + acc.nr, 9 * 10 + 1) &&
	     ASSERT_TRUE(find(&acc, 1000)) && ASSERT_EQ(find(&acc, 1000)->events, 1000) &&
	     ASSERT_TRUE(acc.nr_procs <= acc.nr);
	for (size_t i = 1; ok && i < acc.nr; i++)
		ok = ASSERT_TRUE(acc.rows[i - 1].tgid < acc.rows[i].tgid);
	for (size_t i = 0; ok && i < acc.nr_procs; i++)
		ok = ASSERT_TRUE(find(&acc, acc.procs[i].tgid));
	process_table_free(&acc);
	return ok;
}

static bool histogram_pages_weigh_orders(void)
{
	__u64 hist[FS_NR_ORDERS] = {[0] = 3, [9] = 2};

	return ASSERT_EQ(hist_pages(hist), 3 + 2 * 512) && ASSERT_EQ(hist_folios(hist), 5);
}

const struct unit_test window_tests[] = {
    UNIT_TEST(threads_sum_into_their_process),
    UNIT_TEST(idle_processes_are_left_out),
    UNIT_TEST(counts_never_go_backwards),
    UNIT_TEST(filters_select_by_pid_and_name),
    UNIT_TEST(exited_threads_are_reported_then_dropped),
    UNIT_TEST(idle_threads_are_marked_for_eviction),
    UNIT_TEST(late_counts_are_carried_into_the_next_window),
    UNIT_TEST(stable_slots_add_to_their_threads),
    UNIT_TEST(samples_sort_by_key_with_their_counts),
    UNIT_TEST(thread_counts_that_wrap_give_their_growth),
    UNIT_TEST(system_counts_that_wrap_are_widened),
    UNIT_TEST(top_rows_equal_full_rows),
    UNIT_TEST(system_deltas_subtract_the_previous_read),
    UNIT_TEST(one_shot_windows_accumulate_per_process),
    UNIT_TEST(accumulated_rows_stay_within_the_limit),
    UNIT_TEST(histogram_pages_weigh_orders),
    {},
};
