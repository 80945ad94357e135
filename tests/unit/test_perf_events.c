// SPDX-License-Identifier: GPL-2.0
/* The list of online CPUs the perf events follow (perf_events.c). */
#include "unit.h"

#include "perf_events.h"

static bool online_cpus_are_read_from_ranges_and_singles(void)
{
	bool online[8];

	if (!ASSERT_EQ(parse_cpu_list("0-2,5,7\n", online, 8), 0))
		return false;
	return ASSERT_TRUE(online[0] && online[1] && online[2] && !online[3] && !online[4] &&
			   online[5] && !online[6] && online[7]);
}

static bool a_cpu_taken_offline_leaves_a_gap(void)
{
	bool online[4];

	/* cpu1 offline on a 4-CPU host */
	return ASSERT_EQ(parse_cpu_list("0,2-3\n", online, 4), 0) &&
	       ASSERT_TRUE(online[0] && !online[1] && online[2] && online[3]);
}

static bool cpus_beyond_the_possible_ones_are_ignored_and_garbage_refused(void)
{
	bool online[2];

	return ASSERT_EQ(parse_cpu_list("0-5\n", online, 2), 0) &&
	       ASSERT_TRUE(online[0] && online[1]) &&
	       ASSERT_EQ(parse_cpu_list("0-x\n", online, 2), -22) &&
	       ASSERT_EQ(parse_cpu_list("3-1\n", online, 2), -22) &&
	       ASSERT_EQ(parse_cpu_list("0;1\n", online, 2), -22);
}

const struct unit_test perf_events_tests[] = {
    UNIT_TEST(online_cpus_are_read_from_ranges_and_singles),
    UNIT_TEST(a_cpu_taken_offline_leaves_a_gap),
    UNIT_TEST(cpus_beyond_the_possible_ones_are_ignored_and_garbage_refused),
    {},
};
