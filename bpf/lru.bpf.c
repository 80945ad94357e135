// SPDX-License-Identifier: GPL-2.0
/*
 * LRU activity: folios added to each LRU list and folios activated, charged to the thread that
 * caused them (the one that drained the per-CPU batch the folio waited in, almost always the
 * one that added it).
 */
#include "attribution.bpf.h"

#include <bpf/bpf_tracing.h>

/* folio_lru_list() for any kernel, from the folio's flags and the kernel's own enum values. */
static __always_inline unsigned int folio_lru(struct folio *folio)
{
	unsigned long flags = folio_head_flags(folio);
	unsigned int lru;

	if (flags & (1UL << bpf_core_enum_value(enum pageflags, PG_unevictable)))
		return bpf_core_enum_value(enum lru_list, LRU_UNEVICTABLE);
	/* Not swap-backed: a file folio. */
	if (flags & (1UL << bpf_core_enum_value(enum pageflags, PG_swapbacked)))
		lru = bpf_core_enum_value(enum lru_list, LRU_INACTIVE_ANON);
	else
		lru = bpf_core_enum_value(enum lru_list, LRU_INACTIVE_FILE);
	if (flags & (1UL << bpf_core_enum_value(enum pageflags, PG_active)))
		lru += bpf_core_enum_value(enum lru_list, LRU_ACTIVE_ANON) -
		       bpf_core_enum_value(enum lru_list, LRU_INACTIVE_ANON);
	return lru;
}

/* One more folio of `pages` pages in the charged group's counts. */
static __always_inline void count_folio(__u32 *counts, __u32 pages)
{
	fs_count(counts[FS_FOLIOS], 1);
	fs_count(counts[FS_PAGES], pages);
}

/* A large folio on an LRU list is in use: its thread's freeing it later is no discard
 * (folios.bpf.c). A large folio goes onto its list at once, in the thread that added it. */
static __always_inline void forget_pending_folio(struct folio *folio)
{
	struct fs_task_state *state;

	state = bpf_task_storage_get(&fs_task_state, bpf_get_current_task_btf(), 0, 0);
	if (state && state->pending_folio == (__u64)folio)
		state->pending_folio = 0;
}

SEC("tp_btf/mm_lru_insertion")
int BPF_PROG(fs_lru_insert, struct folio *folio)
{
	unsigned int lru = verifier_bounded(folio_lru(folio), FS_NR_LRU_LISTS);
	unsigned int order = folio_order_of(folio);
	struct fs_cpu_state *st = this_cpu_state();
	struct fs_counters *target;

	if (!st)
		return 0;
	target = charge_target(st);
	count_folio(target->lru_insert[lru], 1UL << order);
	if (order)
		forget_pending_folio(folio);
	return 0;
}

SEC("tp_btf/mm_lru_activate")
int BPF_PROG(fs_lru_activate, struct folio *folio)
{
	__u64 pages = 1UL << folio_order_of(folio);
	struct fs_cpu_state *st = this_cpu_state();
	struct fs_counters *target;

	if (!st)
		return 0;
	target = charge_target(st);
	count_folio(target->lru_activate, pages);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
