// SPDX-License-Identifier: GPL-2.0
/* Free memory by block size: buddyinfo's and pagetypeinfo's text as kernels write it, the
 * fewest blocks and the highest unusable share of a window, and the unusable share as the
 * kernel's extfrag/unusable_index computes it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "free_blocks.h"
#include "unit.h"

static const char buddyinfo[] =
    "Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3 \n"
    "Node 0, zone    DMA32      0      4      2      2      1      2      0      3      3      2    752 \n"
    "Node 1, zone   Normal     10      4      0      0      0      0      0      0      0      0      0 \n";

static const char pagetypeinfo[] =
    "Page block order: 9\n"
    "Pages per block:  512\n"
    "\n"
    "Free pages count per migrate type at order       0      1      2      3      4      5      6      7      8      9     10 \n"
    "Node    1, zone   Normal, type    Unmovable      4      1      0      0      0      0      0      0      0      0      0 \n"
    "Node    1, zone   Normal, type      Movable      6      3      0      0      0      0      0      0      0      0      0 \n"
    "\n"
    "Number of blocks type     Unmovable      Movable  Reclaimable   HighAtomic      Isolate \n"
    "Node 1, zone   Normal          562        10041          149            0            0 \n";

static bool buddyinfo_gives_zones_by_node_and_order(void)
{
	struct free_blocks f = {.buddyinfo_fd = -1, .pagetypeinfo_fd = -1};
	const struct free_zone *normal = &f.zones[2];

	return ASSERT_EQ(free_blocks_parse_buddyinfo(&f, buddyinfo), 0) &&
	       ASSERT_EQ(f.nr_zones, 3) && ASSERT_EQ(f.nr_orders, 11) &&
	       ASSERT_STREQ(f.zones[1].name, "DMA32") && ASSERT_EQ(f.zones[1].blocks[10], 752) &&
	       ASSERT_EQ(normal->node, 1) && ASSERT_EQ(normal->blocks[0], 10) &&
	       ASSERT_EQ(free_zone_pages(normal, f.nr_orders), 18) &&
	       /* order 1 can use the 4 blocks of 2 pages, not the 10 single pages: 10 of 18 */
	       ASSERT_TRUE(free_zone_unusable(normal, f.nr_orders, 1) * 18 > 9.999 &&
			   free_zone_unusable(normal, f.nr_orders, 1) * 18 < 10.001) &&
	       ASSERT_TRUE(free_zone_unusable(normal, f.nr_orders, 0) == 0) &&
	       ASSERT_TRUE(free_zone_unusable(normal, f.nr_orders, 9) == 1) &&
	       ASSERT_EQ(free_blocks_parse_pagetypeinfo(&f, pagetypeinfo), 0) &&
	       ASSERT_EQ(f.nr_types, 2) && ASSERT_STREQ(f.types[1], "Movable") &&
	       ASSERT_EQ(normal->by_type[1][1], 3) && ASSERT_EQ(f.nr_zones, 3);
}

/* A window keeps each order's fewest blocks and highest unusable share, each at its own
 * sample; a new window starts from the last sample. */
static bool a_window_keeps_the_worst_of_each_order(void)
{
	struct free_blocks f = {.buddyinfo_fd = -1, .pagetypeinfo_fd = -1};
	static const char first[] = "Node 0, zone   Normal      2      0      5 \n";
	static const char second[] = "Node 0, zone   Normal      8      1      1 \n";
	const struct free_zone *z = &f.zones[0];
	bool ok = ASSERT_EQ(free_blocks_parse_buddyinfo(&f, first), 0) &&
		  ASSERT_EQ(free_blocks_parse_buddyinfo(&f, second), 0) &&
		  ASSERT_EQ(z->blocks[0], 8) && ASSERT_EQ(z->fewest[0], 2) &&
		  ASSERT_EQ(z->fewest[1], 0) && ASSERT_EQ(z->fewest[2], 1) &&
		  /* order 2: 2 of 22 unusable first, 10 of 14 then */
		  ASSERT_TRUE(z->most_unusable[2] > 0.714 && z->most_unusable[2] < 0.715);

	free_blocks_window_begin(&f);
	return ok && ASSERT_EQ(z->fewest[0], 8) && ASSERT_EQ(z->fewest[2], 1) &&
	       ASSERT_TRUE(z->most_unusable[2] > 0.714 && z->most_unusable[2] < 0.715);
}

static bool text_that_is_not_theirs_is_refused(void)
{
	struct free_blocks f = {.buddyinfo_fd = -1, .pagetypeinfo_fd = -1};

	return ASSERT_EQ(free_blocks_parse_buddyinfo(&f, ""), -EINVAL) &&
	       ASSERT_EQ(free_blocks_parse_buddyinfo(&f, "Node 0, zone Normal x\n"), -EINVAL) &&
	       ASSERT_EQ(free_blocks_parse_buddyinfo(&f, "Node 0, zone A 1 2\nNode 0, zone B 1\n"),
			 -EINVAL) &&
	       ASSERT_EQ(free_blocks_parse_pagetypeinfo(&f, buddyinfo), -EINVAL);
}

/* On this machine: buddyinfo reads and parses (pagetypeinfo too, as root). */
static bool live_free_blocks_are_read(void)
{
	struct free_blocks f;
	bool ok = ASSERT_EQ(free_blocks_open(&f), 0) && ASSERT_TRUE(f.nr_zones > 0) &&
		  ASSERT_TRUE(f.nr_orders > 9) && ASSERT_EQ(free_blocks_sample(&f, true, 1), 0) &&
		  ASSERT_EQ(f.samples, 2);

	if (ok && f.pagetypeinfo_fd >= 0)
		ok = ASSERT_TRUE(f.nr_types >= 3) && ASSERT_TRUE(f.types_read_at == 1);
	free_blocks_close(&f);
	return ok;
}

const struct unit_test free_blocks_tests[] = {
    UNIT_TEST(buddyinfo_gives_zones_by_node_and_order),
    UNIT_TEST(a_window_keeps_the_worst_of_each_order),
    UNIT_TEST(text_that_is_not_theirs_is_refused),
    UNIT_TEST(live_free_blocks_are_read),
    {},
};
