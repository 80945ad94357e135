// SPDX-License-Identifier: GPL-2.0
/* The exporter's store: counts since the start per group, bounded, and always adding up. */
#include <stdlib.h>

#include "series.h"
#include "unit.h"
#include "row_table.h"

/* A read's rows: one per group, with `faults` user write faults each. */
struct read {
	struct row rows[8];
	struct row_table table;
	struct system_totals system;
	struct kernel_counters kernel;
};

#define WRITE_FAULT FS_FAULT_KIND(FS_MODE_USER, FS_ACCESS_WRITE, FS_CAUSE_NOT_PRESENT)

/* A row of the process `tgid` started at `start` (--by process; else start is 0). */
static void read_add_started(struct read *r, __u32 tgid, __u64 start, const char *comm,
			     __u64 cgroup, __u64 faults)
{
	struct row *row = &r->rows[r->table.nr++];

	*row = (struct row){
	    .key = {tgid, start}, .cgroup = cgroup, .events = faults};
	strncpy(row->comm, comm, sizeof(row->comm) - 1);
	row->totals.fault_kinds[WRITE_FAULT] = faults;
	r->system.total.fault_kinds[WRITE_FAULT] += faults;
	r->table.rows = r->rows;
}

static void read_add(struct read *r, __u32 tgid, const char *comm, __u64 cgroup, __u64 faults)
{
	read_add_started(r, tgid, 0, comm, cgroup, faults);
}

/* Events of no row: in interrupt context, and of threads the table had no room for. */
static void read_add_unattributed(struct read *r, __u64 interrupt, __u64 untracked)
{
	r->system.interrupt.fault_kinds[WRITE_FAULT] = interrupt;
	r->system.untracked.fault_kinds[WRITE_FAULT] = untracked;
	r->system.total.fault_kinds[WRITE_FAULT] += interrupt + untracked;
}

static const char *path_of(__u64 cgroup, void *ctx)
{
	static char paths[4][16];

	(void)ctx;
	if (cgroup >= 4)
		return NULL; /* a cgroup removed before it could be named */
	snprintf(paths[cgroup], sizeof(paths[cgroup]), "/cg%llu", (unsigned long long)cgroup);
	return paths[cgroup];
}

static bool gone_always(const struct series_row *g, void *ctx)
{
	(void)g, (void)ctx;
	return true;
}

static const struct series_row *find(const struct series_store *s, const char *name)
{
	for (size_t i = 0; i < s->nr; i++)
		if (!strcmp(s->rows[i]->name, name))
			return s->rows[i];
	return NULL;
}

static __u64 faults_of(const struct series_row *g)
{
	return g ? g->totals.fault_kinds[WRITE_FAULT] : 0;
}

/* The groups and other take exactly the threads' share of the system's counts. */
static bool adds_up(const struct series_store *s)
{
	__u64 sum = s->other.fault_kinds[WRITE_FAULT] +
		    s->system.interrupt.fault_kinds[WRITE_FAULT] +
		    s->system.untracked.fault_kinds[WRITE_FAULT];

	for (size_t i = 0; i < s->nr; i++)
		sum += faults_of(s->rows[i]);
	return ASSERT_EQ(sum, s->system.total.fault_kinds[WRITE_FAULT]);
}

static struct series_store store_by(enum fs_row_kind by, long max_series, long top)
{
	struct series_settings settings = {.by = by, .max_series = max_series, .top = top};
	struct series_store s;

	series_init(&s, &settings, path_of, gone_always, NULL, 0.0);
	return s;
}

static bool reads_accumulate_per_cgroup(void)
{
	struct series_store s = store_by(FS_BY_CGROUP, 10, 0);
	struct read a = {0}, b = {0};
	bool ok;

	read_add(&a, 1, "x", 1, 10);
	read_add(&a, 2, "y", 2, 5);
	read_add(&a, 3, "z", 9, 7); /* no name: other's */
	read_add_unattributed(&a, 3, 4);
	read_add(&b, 1, "x", 1, 1);
	ok = ASSERT_EQ(series_add_read(&s, &a.table, &a.system, &a.kernel, 1.0), 0) &&
	     ASSERT_EQ(series_add_read(&s, &b.table, &b.system, &b.kernel, 2.0), 0) &&
	     ASSERT_EQ(s.nr_live, 2) && ASSERT_EQ(faults_of(find(&s, "/cg1")), 11) &&
	     ASSERT_EQ(faults_of(find(&s, "/cg2")), 5) &&
	     ASSERT_EQ(s.other.fault_kinds[WRITE_FAULT], 7) && adds_up(&s);
	series_free(&s);
	return ok;
}

static bool a_full_store_gives_the_idle_place_or_counts_in_other(void)
{
	struct series_store s = store_by(FS_BY_CGROUP, 1, 0);
	struct read a = {0}, b = {0}, c = {0};
	bool ok;

	read_add(&a, 1, "x", 1, 10);
	read_add(&b, 2, "y", 2, 5);
	read_add(&c, 3, "z", 3, 2);
	/* /cg1 has counts nobody has seen yet: /cg2 goes to other. */
	ok = ASSERT_EQ(series_add_read(&s, &a.table, &a.system, &a.kernel, 1.0), 0) &&
	     ASSERT_EQ(series_add_read(&s, &b.table, &b.system, &b.kernel, 2.0), 0) &&
	     ASSERT_TRUE(find(&s, "/cg1") && !find(&s, "/cg2")) &&
	     ASSERT_EQ(s.other.fault_kinds[WRITE_FAULT], 5) && ASSERT_EQ(s.folded, 0) &&
	     adds_up(&s);
	/* Exposed since: /cg3 takes its place, /cg1's series ends. */
	series_exposed(&s, 2.5);
	ok = ok && ASSERT_EQ(series_add_read(&s, &c.table, &c.system, &c.kernel, 3.0), 0) &&
	     ASSERT_TRUE(!find(&s, "/cg1")) && ASSERT_EQ(faults_of(find(&s, "/cg3")), 2) &&
	     ASSERT_EQ(s.folded, 1) && ASSERT_EQ(s.nr_live, 1) && ASSERT_EQ(s.nr, 1);
	series_free(&s);
	return ok;
}

static bool by_process_only_the_top_get_series(void)
{
	struct series_store s = store_by(FS_BY_PROCESS, 100, 2);
	struct read a = {0}, b = {0};
	bool ok;

	read_add(&a, 10, "small", 1, 1);
	read_add(&a, 11, "big", 1, 50);
	read_add(&a, 12, "mid", 1, 20);
	read_add(&b, 10, "small", 1, 100); /* the busiest now: in the top 2 */
	read_add(&b, 11, "big", 1, 1);
	read_add(&b, 12, "mid", 1, 1);
	ok = ASSERT_EQ(series_add_read(&s, &a.table, &a.system, &a.kernel, 1.0), 0) &&
	     ASSERT_EQ(s.nr_live, 2) && ASSERT_TRUE(!find(&s, "small")) &&
	     ASSERT_EQ(s.other.fault_kinds[WRITE_FAULT], 1) &&
	     ASSERT_EQ(series_add_read(&s, &b.table, &b.system, &b.kernel, 2.0), 0) &&
	     ASSERT_EQ(s.nr_live, 3) && ASSERT_EQ(faults_of(find(&s, "small")), 100) &&
	     /* the series that exist keep counting, top or not */
	     ASSERT_EQ(faults_of(find(&s, "big")), 51) && adds_up(&s);
	series_free(&s);
	return ok;
}

static bool a_renamed_process_goes_on_under_its_new_name(void)
{
	struct series_store s = store_by(FS_BY_PROCESS, 100, 0);
	struct read a = {0}, b = {0};
	bool ok;

	read_add(&a, 10, "sh", 1, 5);
	read_add(&b, 10, "workload", 1, 7); /* exec'd */
	ok = ASSERT_EQ(series_add_read(&s, &a.table, &a.system, &a.kernel, 1.0), 0) &&
	     ASSERT_EQ(series_add_read(&s, &b.table, &b.system, &b.kernel, 2.0), 0) &&
	     ASSERT_EQ(s.nr, 1) && ASSERT_TRUE(!find(&s, "sh")) &&
	     ASSERT_EQ(faults_of(find(&s, "workload")), 12) && adds_up(&s);
	series_free(&s);
	return ok;
}

static const struct series_row *find_process(const struct series_store *s, __u32 pid,
					       __u64 start)
{
	for (size_t i = 0; i < s->nr; i++)
		if (s->rows[i]->pid == pid && s->rows[i]->start == start)
			return s->rows[i];
	return NULL;
}

/* A process that took an exited one's pid (while the exited one's series stays, for the grace
 * period) gets a series of its own: the exited one's count never goes on with the new one's,
 * in the same read or a later one. */
static bool a_reused_pid_gets_a_series_of_its_own(void)
{
	struct series_store s = store_by(FS_BY_PROCESS, 100, 0);
	struct read a = {0}, b = {0};
	bool ok;

	read_add_started(&a, 10, 1000, "w", 1, 5);
	read_add_started(&b, 10, 1000, "w", 1, 1); /* its last counts */
	read_add_started(&b, 10, 2000, "w", 1, 7);
	ok = ASSERT_EQ(series_add_read(&s, &a.table, &a.system, &a.kernel, 1.0), 0) &&
	     ASSERT_EQ(series_add_read(&s, &b.table, &b.system, &b.kernel, 2.0), 0) &&
	     ASSERT_EQ(s.nr, 2) && ASSERT_EQ(faults_of(find_process(&s, 10, 1000)), 6) &&
	     ASSERT_EQ(faults_of(find_process(&s, 10, 2000)), 7) && adds_up(&s);
	series_free(&s);
	return ok;
}

static bool gone_groups_leave_after_the_grace_period(void)
{
	struct series_store s = store_by(FS_BY_CGROUP, 10, 0);
	struct read a = {0};
	bool ok;

	s.grace_s = 5;
	read_add(&a, 1, "x", 1, 10);
	ok = ASSERT_EQ(series_add_read(&s, &a.table, &a.system, &a.kernel, 1.0), 0);
	series_expire(&s, 7.0); /* idle long enough, but never exposed: kept */
	ok = ok && ASSERT_EQ(s.nr, 1);
	series_exposed(&s, 2.0);
	series_expire(&s, 5.0); /* exposed, idle 4 s: kept */
	ok = ok && ASSERT_EQ(s.nr, 1);
	series_expire(&s, 6.5);
	ok = ok && ASSERT_EQ(s.nr, 0) && ASSERT_EQ(s.nr_live, 0);
	series_free(&s);
	return ok;
}

const struct unit_test series_tests[] = {
    UNIT_TEST(reads_accumulate_per_cgroup),
    UNIT_TEST(a_full_store_gives_the_idle_place_or_counts_in_other),
    UNIT_TEST(by_process_only_the_top_get_series),
    UNIT_TEST(a_renamed_process_goes_on_under_its_new_name),
    UNIT_TEST(a_reused_pid_gets_a_series_of_its_own),
    UNIT_TEST(gone_groups_leave_after_the_grace_period),
    {},
};
