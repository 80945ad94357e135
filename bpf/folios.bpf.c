// SPDX-License-Identifier: GPL-2.0
/*
 * Folio allocation: page-allocator allocations (and movable ones that failed) and page-cache
 * additions by order, charged to the thread that caused them; frees by order, system-wide; and
 * large folios discarded by the thread that allocated them.
 */
#include "attribution.bpf.h"
#include "start_up.bpf.h"

#include <bpf/bpf_tracing.h>

/*
 * The node of an allocated folio, on hosts with more than one node (nodes.c): the kernel keeps
 * each page's node in the top bits of its flags (every 64-bit kernel with a virtual memory map,
 * as Debian's x86-64 and arm64 ones), NODES_SHIFT of them; the loader reads that width from BTF
 * and checks it at start-up against a page it places on each node (fs_node_calibrate). Only
 * fs_page_alloc_by_node counts it, and the loader loads it in fs_page_alloc's place only there:
 * a one-node host runs not one instruction more.
 */
const volatile __u32 fs_node_shift = 0; /* 64 - NODES_SHIFT */

/* The flags of the last order-0 folio allocated to the loader's thread while it calibrates. */
__u64 fs_calibration_flags = 0;
__u64 fs_calibration_seen = 0;

static __always_inline void count_node(struct fs_counters *target, struct page *page,
				       unsigned int order)
{
	unsigned long node = folio_head_flags((struct folio *)page) >> fs_node_shift;
	unsigned int bucket = order_bucket(order);
	struct fs_cpu *cpu = this_cpu();
	struct fs_node_orders *orders;
	__u32 index;

	if (node >= FS_MAX_NODES)
		return;
	fs_count(target->alloc_by_node[node][FS_FOLIOS], 1);
	fs_count(target->alloc_by_node[node][FS_PAGES], 1U << bucket);
	/* By order too: a thread's in the side table at its entry's index, the groups that are
	 * no entry's in the CPU's own figures. */
	if (is_cpu_group(cpu, target)) {
		if (cpu)
			fs_count(cpu->alloc_by_node_order[node][bucket], 1);
		return;
	}
	index = container_of(target, struct fs_task, counters)->head.index;
	orders = bpf_map_lookup_elem(&fs_task_nodes, &index);
	if (orders)
		fs_count(orders->folios[node][bucket], 1);
}

/*
 * A thread's large allocations, in its own storage (maps.bpf.h): one ends its request for
 * direct compaction, if it made one for that order (compaction.bpf.c), and a movable one is
 * remembered until it reaches an LRU list (lru.bpf.c) or is freed. A movable large folio that
 * its own thread frees first never served anyone: the fault path frees one when the memory
 * cgroup refuses to take its charge (THP_FAULT_FALLBACK_CHARGE, which the memory cgroup does
 * not count per cgroup) or when another thread mapped the range meanwhile, the page cache when
 * another thread added the same index first. Only these allocations look at the storage, so
 * order-0 ones, nearly all, cost nothing more.
 */
static __always_inline void note_large_allocation(struct page *page, unsigned int order,
						  bool discardable)
{
	bool remember = page && discardable;
	struct fs_task_state *state;

	state = bpf_task_storage_get(&fs_task_state, bpf_get_current_task_btf(), 0,
				     remember ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	if (!state)
		return;
	if (state->compaction_order == order_bucket(order))
		state->compaction_order = 0;
	/* A later request, granted or not, ends the wait for the earlier folio: only the folio a
	 * thread asked for last can be discarded. */
	if (discardable)
		state->pending_folio = (__u64)page;
}

static __always_inline int page_alloc(struct page *page, unsigned int order, gfp_t gfp,
				      int migratetype, bool by_node)
{
	bool movable = migratetype == bpf_core_enum_value(enum migratetype, MIGRATE_MOVABLE);
	struct fs_counters *target;
	struct fs_cpu_state *st;

	st = this_cpu_state();
	if (!st)
		return 0;
	target = charge_target(st);
	if (page) {
		fs_count(target->folios[movable ? FS_FOLIO_ALLOC_MOVABLE : FS_FOLIO_ALLOC_KERNEL]
				       [order_bucket(order)],
			 1);
		if (by_node)
			count_node(target, page, order);
	} else if (movable) /* no folio: the caller falls back to a smaller order, or fails */
		fs_count(target->folios[FS_FOLIO_ALLOC_FAILED][order_bucket(order)], 1);
	/* Hugetlb's pool pages and migration targets, asked for with __GFP_RETRY_MAYFAIL, are not
	 * discardable: a pool page never goes on an LRU list, and the thread that fills the pool
	 * may be the one that empties it. */
	if (order && target != cpu_group(FS_GROUP_INTERRUPT))
		note_large_allocation(page, order, movable && !(gfp & FS_GFP_RETRY_MAYFAIL));
	return 0;
}

SEC("tp_btf/mm_page_alloc")
int BPF_PROG(fs_page_alloc, struct page *page, unsigned int order, gfp_t gfp, int migratetype)
{
	return page_alloc(page, order, gfp, migratetype, false);
}

/* The same, counting each allocation by node too: loaded instead on hosts of several nodes. */
SEC("tp_btf/mm_page_alloc")
int BPF_PROG(fs_page_alloc_by_node, struct page *page, unsigned int order, gfp_t gfp,
	     int migratetype)
{
	return page_alloc(page, order, gfp, migratetype, true);
}

/* Attached only while the loader calibrates (nodes.c): the flags of its own thread's order-0
 * folios, each on a node it chose. Another task's allocations meanwhile would tell nodes of
 * pages the loader did not place: only the loader's thread is heard (start_up.bpf.h). */
SEC("tp_btf/mm_page_alloc")
int BPF_PROG(fs_node_calibrate, struct page *page, unsigned int order)
{
	if (page && !order && is_loader_thread()) {
		fs_calibration_flags = folio_head_flags((struct folio *)page);
		fs_calibration_seen++;
	}
	return 0;
}

SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(fs_pagecache_add, struct folio *folio)
{
	unsigned int order = order_bucket(folio_order_of(folio));
	struct fs_counters *target;
	struct fs_cpu_state *st;

	st = this_cpu_state();
	if (!st)
		return 0;
	target = charge_target(st);
	fs_count(target->folios[FS_FOLIO_PAGECACHE][order], 1);
	return 0;
}

/* A large folio freed in task context: discarded if it is the one its thread allocated last
 * and has not yet put on an LRU list (see note_large_allocation()). */
static __always_inline void note_large_free(struct fs_cpu_state *st, struct page *page,
					    unsigned int order)
{
	struct fs_task_state *state;
	struct fs_counters *target;

	state = bpf_task_storage_get(&fs_task_state, bpf_get_current_task_btf(), 0, 0);
	if (!state || state->pending_folio != (__u64)page)
		return;
	state->pending_folio = 0;
	target = task_context_counters(st);
	if (target)
		fs_count(target->folios[FS_FOLIO_DISCARDED][order_bucket(order)], 1);
}

SEC("tp_btf/mm_page_free")
int BPF_PROG(fs_page_free, struct page *page, unsigned int order)
{
	struct fs_cpu *cpu = this_cpu();
	struct fs_cpu_state *st;

	if (!cpu)
		return 0;
	fs_count(cpu->freed[order_bucket(order)], 1);
	if (!order)
		return 0;
	st = this_cpu_state();
	if (st && !st->irq_depth)
		note_large_free(st, page, order);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
