// SPDX-License-Identifier: GPL-2.0
/*
 * Folio allocation: page-allocator allocations and page-cache additions by order, charged to
 * the thread that caused them; frees by order, system-wide.
 */
#include "attribution.bpf.h"

#include <bpf/bpf_tracing.h>

SEC("tp_btf/mm_page_alloc")
int BPF_PROG(fs_page_alloc, struct page *page, unsigned int order, gfp_t gfp, int migratetype)
{
	enum fs_folio_hist hist = FS_FOLIO_ALLOC_KERNEL;
	struct fs_counters *target;
	struct fs_cpu *cpu;

	if (!page) /* the allocation failed: no folio to count */
		return 0;
	cpu = this_cpu();
	if (!cpu)
		return 0;
	if (migratetype == bpf_core_enum_value(enum migratetype, MIGRATE_MOVABLE))
		hist = FS_FOLIO_ALLOC_MOVABLE;
	target = charge_target(cpu);
	fs_count(cpu, target->folios[hist][order_bucket(order)], 1);
	return 0;
}

SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(fs_pagecache_add, struct folio *folio)
{
	unsigned int order = order_bucket(folio_order_of(folio));
	struct fs_counters *target;
	struct fs_cpu *cpu;

	cpu = this_cpu();
	if (!cpu)
		return 0;
	target = charge_target(cpu);
	fs_count(cpu, target->folios[FS_FOLIO_PAGECACHE][order], 1);
	return 0;
}

SEC("tp_btf/mm_page_free")
int BPF_PROG(fs_page_free, struct page *page, unsigned int order)
{
	struct fs_cpu *cpu = this_cpu();

	if (cpu)
		fs_count(cpu, cpu->freed[order_bucket(order)], 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
