// SPDX-License-Identifier: GPL-2.0
/* The kernel's THP counters: differences and sums by name, whatever set of names each read
 * has (mTHP sizes come and go with the kernel's configuration). */
#include <stdlib.h>

#include "kernel_counters.h"
#include "unit.h"

static void set(struct kernel_counters *kc, const char *const *names, const __u64 *values, int n)
{
	kc->items = calloc(n, sizeof(*kc->items));
	kc->nr = kc->cap = n;
	for (int i = 0; i < n; i++) {
		snprintf(kc->items[i].name, sizeof(kc->items[i].name), "%s", names[i]);
		kc->items[i].value = values[i];
	}
}

static bool deltas_pair_counters_by_name(void)
{
	static const char *const before_names[] = {"mthp/64kB/split", "vmstat/thp_fault_alloc"};
	static const char *const now_names[] = {"mthp/2048kB/anon_fault_alloc", "mthp/64kB/split",
						"vmstat/thp_fault_alloc"};
	struct kernel_counters before = {0}, now = {0}, out = {0};
	bool ok;

	set(&before, before_names, (const __u64[]){5, 100}, 2);
	set(&now, now_names, (const __u64[]){7, 5, 132}, 3);
	ok = ASSERT_EQ(kernel_counters_delta(&before, &now, &out), 0) && ASSERT_EQ(out.nr, 3) &&
	     ASSERT_STREQ(out.items[0].name, "mthp/2048kB/anon_fault_alloc") &&
	     ASSERT_EQ(out.items[0].value, 7) && /* new: counts from zero */
	     ASSERT_EQ(out.items[1].value, 0) && ASSERT_EQ(out.items[2].value, 32);
	kernel_counters_free(&before);
	kernel_counters_free(&now);
	kernel_counters_free(&out);
	return ok;
}

static bool gauges_that_fall_give_negative_changes(void)
{
	static const char *const names[] = {"mthp/64kB/nr_anon"};
	struct kernel_counters before = {0}, now = {0}, out = {0};
	bool ok;

	set(&before, names, (const __u64[]){10}, 1);
	set(&now, names, (const __u64[]){4}, 1);
	ok = ASSERT_EQ(kernel_counters_delta(&before, &now, &out), 0) &&
	     ASSERT_EQ((long long)out.items[0].value, -6);
	kernel_counters_free(&before);
	kernel_counters_free(&now);
	kernel_counters_free(&out);
	return ok;
}

static bool windows_accumulate_by_name(void)
{
	static const char *const a_names[] = {"vmstat/thp_split_page"};
	static const char *const b_names[] = {"vmstat/thp_collapse_alloc", "vmstat/thp_split_page"};
	struct kernel_counters acc = {0}, b = {0};
	bool ok;

	set(&acc, a_names, (const __u64[]){2}, 1);
	set(&b, b_names, (const __u64[]){4, 3}, 2);
	ok = ASSERT_EQ(kernel_counters_accumulate(&acc, &b), 0) && ASSERT_EQ(acc.nr, 2) &&
	     ASSERT_STREQ(acc.items[0].name, "vmstat/thp_collapse_alloc") &&
	     ASSERT_EQ(acc.items[0].value, 4) && ASSERT_EQ(acc.items[1].value, 5);
	kernel_counters_free(&acc);
	kernel_counters_free(&b);
	return ok;
}

/* On this machine: the live files parse, and every name has one of the two prefixes. */
static bool live_counters_are_read(void)
{
	struct kernel_counters kc = {0};
	struct kernel_counter_files files;
	bool ok = ASSERT_EQ(kernel_counter_files_open(&files), 0) &&
		  ASSERT_EQ(kernel_counters_read(&files, &kc), 0) && ASSERT_TRUE(kc.nr > 0);

	for (size_t i = 0; ok && i < kc.nr; i++)
		ok = ASSERT_TRUE(strncmp(kc.items[i].name, "vmstat/thp_", 11) == 0 ||
				 strncmp(kc.items[i].name, "mthp/", 5) == 0);
	for (size_t i = 1; ok && i < kc.nr; i++)
		ok = ASSERT_TRUE(strcmp(kc.items[i - 1].name, kc.items[i].name) < 0);
	kernel_counters_free(&kc);
	kernel_counter_files_close(&files);
	return ok;
}

const struct unit_test kernel_counters_tests[] = {
    UNIT_TEST(deltas_pair_counters_by_name),
    UNIT_TEST(gauges_that_fall_give_negative_changes),
    UNIT_TEST(windows_accumulate_by_name),
    UNIT_TEST(live_counters_are_read),
    {},
};
