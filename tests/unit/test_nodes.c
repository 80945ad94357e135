// SPDX-License-Identifier: GPL-2.0
/* Memory nodes: the kernel's list of nodes with memory, where page flags keep the node, and the
 * figures by node a report gives (one node: every allocation; more: BPF's counts). */
#include <errno.h>
#include <bpf/btf.h>

#include "counters.h"
#include "nodes.h"
#include "report.h"
#include "unit.h"

static bool node_lists_are_read(void)
{
	struct memory_nodes n;

	return ASSERT_EQ(memory_nodes_parse(&n, "0-1,3\n"), 0) && ASSERT_EQ(n.nr, 3) &&
	       ASSERT_EQ(n.ids[0], 0) && ASSERT_EQ(n.ids[1], 1) && ASSERT_EQ(n.ids[2], 3) &&
	       ASSERT_EQ(memory_nodes_parse(&n, "7\n"), 0) && ASSERT_EQ(n.nr, 1) &&
	       ASSERT_EQ(n.ids[0], 7);
}

/* Node 8 and up, an empty list and what is not a list: refused, with why. */
static bool node_lists_foliostat_cannot_count_are_refused(void)
{
	struct memory_nodes n;

	return ASSERT_EQ(memory_nodes_parse(&n, "0,8\n"), -E2BIG) &&
	       ASSERT_TRUE(strstr(n.why, "node 8") != NULL) &&
	       ASSERT_EQ(memory_nodes_parse(&n, "\n"), -EINVAL) &&
	       ASSERT_EQ(memory_nodes_parse(&n, "zero"), -EINVAL) &&
	       ASSERT_EQ(memory_nodes_parse(&n, "3-1"), -EINVAL);
}

/* This kernel's BTF says where page flags keep the node: NODES_SHIFT bits at the top, at most
 * the kernel's largest (10). */
static bool live_btf_gives_the_node_bits(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int shift = btf ? node_shift_from_btf(btf) : -1;

	btf__free(btf);
	return ASSERT_TRUE(shift >= 54 && shift <= 64);
}

/* One node, not counted: every allocation is on it, none on another; counted: BPF's words. */
static bool figures_by_node_come_from_the_counts_or_the_allocations(void)
{
	struct memory_nodes one = {.nr = 1, .ids = {2}, .known = true};
	struct memory_nodes two = {.nr = 2, .ids = {0, 1}, .known = true, .counted = true};
	struct fs_totals c = {0};

	c.folios[FS_FOLIO_ALLOC_MOVABLE][0] = 5;
	c.folios[FS_FOLIO_ALLOC_KERNEL][9] = 2;
	c.alloc_by_node[1][FS_FOLIOS] = 3;
	c.alloc_by_node[1][FS_PAGES] = 1027;
	return ASSERT_EQ(node_allocated(&c, &one, 2, FS_FOLIOS), 7) &&
	       ASSERT_EQ(node_allocated(&c, &one, 2, FS_PAGES), 5 + 2 * 512) &&
	       ASSERT_EQ(node_allocated(&c, &one, 0, FS_FOLIOS), 0) &&
	       ASSERT_EQ(node_allocated(&c, &two, 1, FS_FOLIOS), 3) &&
	       ASSERT_EQ(node_allocated(&c, &two, 1, FS_PAGES), 1027) &&
	       ASSERT_EQ(node_allocated(&c, &two, 0, FS_PAGES), 0);
}

const struct unit_test nodes_tests[] = {
    UNIT_TEST(node_lists_are_read),
    UNIT_TEST(node_lists_foliostat_cannot_count_are_refused),
    UNIT_TEST(live_btf_gives_the_node_bits),
    UNIT_TEST(figures_by_node_come_from_the_counts_or_the_allocations),
    {},
};
