// SPDX-License-Identifier: GPL-2.0
/* Rows by cgroup and by name: each group is one row, told apart from every other by its whole
 * identity (regroup.h, struct row_key). */
#include <string.h>

#include "regroup.h"
#include "unit.h"
#include "row_table.h"

#define KEY(tgid, tid) (((__u64)(tgid) << 32) | (tid))

/* A thread of process `tgid` in cgroup `cgroup`, its entry's name the 16 bytes of `comm`, that
 * allocated `folios` order-0 movable folios in the read; and its process's one collapse. */
static void add_raw(struct snapshot *s, __u32 tgid, __u32 tid, __u64 cgroup,
		    const char comm[FS_COMM_LEN], __u32 folios)
{
	struct fs_entry_head head = {.key = KEY(tgid, tid), .cgroup = cgroup, .start = tgid * 10};
	struct fs_counters c = {0};
	struct fs_proc_counters p = {0};

	memcpy(head.comm, comm, FS_COMM_LEN);
	c.folios[FS_FOLIO_ALLOC_MOVABLE][0] = folios;
	snapshot_append(s, &head, false, &c);
	if (tid == tgid) {
		head.key = tgid;
		p.thp.results[FS_THP_COLLAPSE][0] = 1;
		snapshot_append_proc(s, &head, false, &p);
	}
}

/* The same with a name that ends where it ends, the rest zero. */
static void add(struct snapshot *s, __u32 tgid, __u32 tid, __u64 cgroup, const char *comm,
		__u32 folios)
{
	char name[FS_COMM_LEN] = {0};

	memcpy(name, comm, strnlen(comm, FS_COMM_LEN - 1));
	add_raw(s, tgid, tid, cgroup, name, folios);
}

static const struct row *row_with(const struct row_table *t, __u64 folios)
{
	for (size_t i = 0; i < t->nr; i++)
		if (t->rows[i].totals.folios[FS_FOLIO_ALLOC_MOVABLE][0] == folios)
			return &t->rows[i];
	return NULL;
}

/* Two cgroups whose ids differ only above their low 32 bits (kernfs gives ids a generation
 * there) are two rows, each with its own processes' counts and process-level figures. */
static bool cgroups_alike_in_their_low_bits_are_two_rows(void)
{
	struct process_filter all = {0};
	struct snapshot now = {0};
	struct row_table out = {0};
	const __u64 a = 5, b = (1ULL << 32) | 5;
	const struct row *ra, *rb;
	bool ok;

	add(&now, 10, 10, a, "one", 1);
	add(&now, 11, 11, b, "two", 20);
	add(&now, 12, 12, a, "three", 100); /* cgroup a again: rows a = 101, b = 20 */
	add(&now, 12, 13, a, "three", 1000);
	snapshot_sort(&now);
	snapshot_regroup(&now, FS_BY_CGROUP, &all);
	ok = ASSERT_EQ(row_table_of_read(&now, &all, 0, &out), 0) && ASSERT_EQ(out.nr, 2);
	ra = row_with(&out, 1101);
	rb = row_with(&out, 20);
	ok = ok && ASSERT_TRUE(ra && rb) && ASSERT_EQ(ra->cgroup, a) && ASSERT_EQ(rb->cgroup, b) &&
	     ASSERT_EQ(out.nr_procs, 2) &&
	     ASSERT_EQ(process_proc(&out, ra)->totals.thp.results[FS_THP_COLLAPSE][0], 2) &&
	     ASSERT_EQ(process_proc(&out, rb)->totals.thp.results[FS_THP_COLLAPSE][0], 1);
	snapshot_free(&now);
	row_table_free(&out);
	return ok;
}

/* By name: names alike in their first 8 bytes are two rows, even with their threads' pids
 * interleaved; what an entry's name holds past its end (an older name's tail) is no part of it. */
static bool names_are_rows_by_their_whole_name(void)
{
	struct process_filter all = {0};
	struct snapshot now = {0};
	struct row_table out = {0};
	const char stale[FS_COMM_LEN] = "worker-a\0old-ta";
	const struct row *ra, *rb;
	bool ok;

	add(&now, 20, 20, 1, "worker-thread-a", 1);
	add(&now, 21, 21, 1, "worker-thread-b", 10);
	add(&now, 22, 22, 1, "worker-thread-a", 100);
	add(&now, 23, 23, 1, "worker-a", 1000);
	add_raw(&now, 24, 24, 1, stale, 10000); /* rows: 101, 10, 11000 */
	snapshot_sort(&now);
	snapshot_regroup(&now, FS_BY_COMM, &all);
	ok = ASSERT_EQ(row_table_of_read(&now, &all, 0, &out), 0) && ASSERT_EQ(out.nr, 3);
	ra = row_with(&out, 101);
	rb = row_with(&out, 10);
	ok = ok && ASSERT_TRUE(ra && rb && row_with(&out, 11000)) &&
	     ASSERT_STREQ(ra->comm, "worker-thread-a") &&
	     ASSERT_STREQ(rb->comm, "worker-thread-b") &&
	     ASSERT_STREQ(row_with(&out, 11000)->comm, "worker-a") &&
	     ASSERT_EQ(process_proc(&out, ra)->totals.thp.results[FS_THP_COLLAPSE][0], 2);
	snapshot_free(&now);
	row_table_free(&out);
	return ok;
}

const struct unit_test regroup_tests[] = {
    UNIT_TEST(cgroups_alike_in_their_low_bits_are_two_rows),
    UNIT_TEST(names_are_rows_by_their_whole_name),
    {},
};
