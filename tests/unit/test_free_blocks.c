// SPDX-License-Identifier: GPL-2.0
/* Free memory by block size: buddyinfo's and pagetypeinfo's text as kernels write it, the
 * fewest blocks and the highest unusable share of a window, and the unusable share as the
 * kernel's extfrag/unusable_index computes it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

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
	const struct free_zone *normal;
	bool ok;

	if (!ASSERT_EQ(free_blocks_parse_buddyinfo(&f, buddyinfo), 0))
		return false;
	normal = &f.zones[2];
	ok = ASSERT_EQ(f.nr_zones, 3) && ASSERT_EQ(f.nr_orders, 11) &&
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
	free_blocks_close(&f);
	return ok;
}

/* A window keeps each order's fewest blocks and highest unusable share, each at its own
 * sample; a new window starts from the last sample. */
static bool a_window_keeps_the_worst_of_each_order(void)
{
	struct free_blocks f = {.buddyinfo_fd = -1, .pagetypeinfo_fd = -1};
	static const char first[] = "Node 0, zone   Normal      2      0      5 \n";
	static const char second[] = "Node 0, zone   Normal      8      1      1 \n";
	const struct free_zone *z;
	bool ok;

	if (!ASSERT_EQ(free_blocks_parse_buddyinfo(&f, first), 0))
		return false;
	z = &f.zones[0];
	ok = ASSERT_EQ(free_blocks_parse_buddyinfo(&f, second), 0) &&
		  ASSERT_EQ(z->blocks[0], 8) && ASSERT_EQ(z->fewest[0], 2) &&
		  ASSERT_EQ(z->fewest[1], 0) && ASSERT_EQ(z->fewest[2], 1) &&
		  /* order 2: 2 of 22 unusable first, 10 of 14 then */
		  ASSERT_TRUE(z->most_unusable[2] > 0.714 && z->most_unusable[2] < 0.715);

	free_blocks_window_begin(&f);
	ok = ok && ASSERT_EQ(z->fewest[0], 8) && ASSERT_EQ(z->fewest[2], 1) &&
	     ASSERT_TRUE(z->most_unusable[2] > 0.714 && z->most_unusable[2] < 0.715);
	free_blocks_close(&f);
	return ok;
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

/* A large host's files, as the kernel writes them: `nodes` nodes of three zones each, every
 * count of order 10 in pagetypeinfo's lines base + 10 * zone + type, so that a line cut short
 * anywhere in its last count gives another number. Into files under dir, opened. */
static bool write_large_host(struct free_blocks *f, const char *dir, int nodes,
			     unsigned long long base)
{
	static const char *const zones[] = {"DMA32", "Normal", "Movable"};
	static const char *const types[] = {"Unmovable", "Movable", "Reclaimable", "HighAtomic",
					    "Isolate"};
	char path[256];
	FILE *buddy, *pagetype;

	*f = (struct free_blocks){.buddyinfo_fd = -1, .pagetypeinfo_fd = -1};
	snprintf(path, sizeof(path), "%s/buddyinfo", dir);
	buddy = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/pagetypeinfo", dir);
	pagetype = fopen(path, "w");
	if (!ASSERT_TRUE(buddy && pagetype))
		return false;
	fprintf(pagetype, "Page block order: 9\nPages per block:  512\n\nFree pages count per "
			  "migrate type at order       0      1      2      3      4      5      6 "
			  "     7      8      9     10 \n");
	for (int n = 0; n < nodes; n++)
		for (int z = 0; z < 3; z++) {
			int zone = n * 3 + z;

			fprintf(buddy, "Node %d, zone %8s", n, zones[z]);
			for (int o = 0; o < 11; o++)
				fprintf(buddy, " %6d", zone * 11 + o);
			fprintf(buddy, " \n");
			for (int t = 0; t < 5; t++) {
				fprintf(pagetype, "Node %4d, zone %8s, type %12s", n, zones[z],
					types[t]);
				for (int o = 0; o < 10; o++)
					fprintf(pagetype, " %6llu", base / 10 * o);
				fprintf(pagetype, " %6llu \n", base + 10 * zone + t);
			}
		}
	fprintf(pagetype, "\nNumber of blocks type     Unmovable      Movable  Reclaimable   "
			  "HighAtomic      Isolate \n");
	for (int n = 0; n < nodes; n++)
		for (int z = 0; z < 3; z++)
			fprintf(pagetype, "Node %d, zone %8s %12d %12d %12d %12d %12d \n", n,
				zones[z], 1, 2, 3, 4, 5);
	fclose(buddy);
	fclose(pagetype);
	snprintf(path, sizeof(path), "%s/buddyinfo", dir);
	f->buddyinfo_fd = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "%s/pagetypeinfo", dir);
	f->pagetypeinfo_fd = open(path, O_RDONLY);
	return ASSERT_TRUE(f->buddyinfo_fd >= 0 && f->pagetypeinfo_fd >= 0);
}

static void remove_large_host(const char *dir)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/buddyinfo", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/pagetypeinfo", dir);
	unlink(path);
	rmdir(dir);
}

/* 64 nodes of three zones (192 zones, a pagetypeinfo of about 130 KiB): every zone is kept, and
 * every count of every line, the last one's too, is the whole number the file holds. */
static bool a_large_host_is_read_whole(void)
{
	char dir[] = "/tmp/foliostat-unit-zones.XXXXXX";
	struct free_blocks f;
	struct stat st;
	bool ok;

	if (!ASSERT_TRUE(mkdtemp(dir)))
		return false;
	ok = write_large_host(&f, dir, 64, 1000000) &&
	     ASSERT_EQ(fstat(f.pagetypeinfo_fd, &st), 0) && ASSERT_TRUE(st.st_size > 128 * 1024) &&
	     ASSERT_EQ(free_blocks_sample(&f, true, 1), 0) && ASSERT_EQ(f.nr_zones, 192) &&
	     ASSERT_EQ(f.nr_orders, 11) && ASSERT_EQ(f.nr_types, 5);
	for (size_t z = 0; ok && z < f.nr_zones; z++) {
		ok = ASSERT_EQ(f.zones[z].node, z / 3) &&
		     ASSERT_EQ(f.zones[z].blocks[10], z * 11 + 10);
		for (int t = 0; ok && t < 5; t++)
			ok = ASSERT_EQ(f.zones[z].by_type[t][10], 1000000 + 10 * z + t);
	}
	free_blocks_close(&f);
	remove_large_host(dir);
	return ok;
}

/* Few zones (60), but counts of 19 digits (a host with more free pages than any has today):
 * a pagetypeinfo over 64 KiB, whose every line's last count is whole, none cut short. */
static bool a_long_pagetypeinfo_is_read_whole(void)
{
	const unsigned long long base = 1000000000000000000ULL;
	char dir[] = "/tmp/foliostat-unit-zones.XXXXXX";
	struct free_blocks f;
	struct stat st;
	bool ok;

	if (!ASSERT_TRUE(mkdtemp(dir)))
		return false;
	ok = write_large_host(&f, dir, 20, base) && ASSERT_EQ(fstat(f.pagetypeinfo_fd, &st), 0) &&
	     ASSERT_TRUE(st.st_size > 64 * 1024) && ASSERT_EQ(free_blocks_sample(&f, true, 1), 0) &&
	     ASSERT_EQ(f.nr_zones, 60) && ASSERT_EQ(f.nr_types, 5);
	for (size_t z = 0; ok && z < f.nr_zones; z++)
		for (int t = 0; ok && t < 5; t++)
			ok = ASSERT_TRUE(f.zones[z].by_type[t][10] == base + 10 * z + t);
	free_blocks_close(&f);
	remove_large_host(dir);
	return ok;
}

/* More zones than any kernel can have: refused whole (-E2BIG), never the first FS_MAX_ZONES
 * of them taken for all. */
static bool more_zones_than_a_kernel_has_are_refused(void)
{
	size_t size = (FS_MAX_ZONES + 1) * 64, used = 0;
	char *text = malloc(size);
	struct free_blocks f = {.buddyinfo_fd = -1, .pagetypeinfo_fd = -1};
	bool ok;

	if (!ASSERT_TRUE(text))
		return false;
	for (int z = 0; z <= FS_MAX_ZONES; z++)
		used +=
		    (size_t)snprintf(text + used, size - used, "Node %d, zone Normal 1 2 3\n", z);
	ok = ASSERT_EQ(free_blocks_parse_buddyinfo(&f, text), -E2BIG);
	free(text);
	free_blocks_close(&f);
	return ok;
}

const struct unit_test free_blocks_tests[] = {
    UNIT_TEST(a_large_host_is_read_whole),
    UNIT_TEST(a_long_pagetypeinfo_is_read_whole),
    UNIT_TEST(more_zones_than_a_kernel_has_are_refused),
    UNIT_TEST(buddyinfo_gives_zones_by_node_and_order),
    UNIT_TEST(a_window_keeps_the_worst_of_each_order),
    UNIT_TEST(text_that_is_not_theirs_is_refused),
    UNIT_TEST(live_free_blocks_are_read),
    {},
};
