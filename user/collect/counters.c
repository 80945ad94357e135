// SPDX-License-Identifier: GPL-2.0
/* Counter arithmetic for deltas and sums (see counters.h). */
#include "counters.h"

/*
 * Which words of the counters count as activity (see struct counters_growth), as all-ones masks
 * so that the loops below stay free of branches.
 */
static __u32 activity_mask[FS_COUNTER_WORDS];

#define WORD_OF(field) (offsetof(struct fs_counters, field) / sizeof(__u32))
#define WORDS_IN(field) (sizeof(((struct fs_counters *)0)->field) / sizeof(__u32))

static void mark_activity(size_t first, size_t n)
{
	for (size_t i = first; i < first + n; i++)
		activity_mask[i] = ~0U;
}

__attribute__((constructor)) static void activity_mask_init(void)
{
	mark_activity(WORD_OF(folios), WORDS_IN(folios));
	mark_activity(WORD_OF(fault_kinds), WORDS_IN(fault_kinds)); /* user + kernel */
	mark_activity(WORD_OF(migrate[FS_MIGRATE_SUCCEEDED]), 1);
	mark_activity(WORD_OF(migrate[FS_MIGRATE_FAILED]), 1);
	mark_activity(WORD_OF(tlb_flushes), WORDS_IN(tlb_flushes));
}

/* Every thread's counts go through here once per read: written so the compiler vectorizes it. */
struct counters_growth counters_delta(struct fs_counters *restrict dst,
				      const struct fs_counters *restrict now,
				      const struct fs_counters *restrict then)
{
	__u32 *restrict d = (__u32 *)dst;
	const __u32 *restrict n = (const __u32 *)now, *restrict t = (const __u32 *)then;
	__u64 events = 0, activity = 0;

	for (size_t i = 0; i < FS_COUNTER_WORDS; i++) {
		d[i] = n[i] - t[i];
		events += d[i];
		activity += d[i] & activity_mask[i];
	}
	return (struct counters_growth){.events = events, .activity = activity};
}

/* The counters are read 64 bits at a time: an odd last word is read with the padding after it,
 * which the entry has (it ends 8-byte aligned). */
#define COUNTER_PAIRS ((sizeof(struct fs_counters) + sizeof(__u64) - 1) / sizeof(__u64))
_Static_assert(offsetof(struct fs_task, counters) % sizeof(__u64) == 0 &&
		   offsetof(struct fs_task, counters) + COUNTER_PAIRS * sizeof(__u64) <=
		       sizeof(struct fs_task),
	       "a thread entry's counters can be read 64 bits at a time");

struct counters_growth counters_read_delta(struct fs_counters *restrict delta,
					   struct fs_counters *restrict last,
					   const struct fs_task *restrict entry,
					   struct fs_totals *restrict total)
{
	union {
		__u64 pairs[COUNTER_PAIRS];
		__u32 words[COUNTER_PAIRS * 2];
	} now;
	const __u64 *e = (const __u64 *)&entry->counters;
	__u32 *restrict d = (__u32 *)delta, *restrict l = (__u32 *)last;
	const __u32 *restrict n = now.words;
	__u64 *restrict t = (__u64 *)total;
	__u64 events = 0, activity = 0;

	/* The entry's words two at a time (as words_load(), written out: GCC then sees the union
	 * filled), then one pass the compiler vectorizes, over memory already in the cache. */
	for (size_t i = 0; i < COUNTER_PAIRS; i++)
		now.pairs[i] = __atomic_load_n(&e[i], __ATOMIC_RELAXED);
	for (size_t i = 0; i < FS_COUNTER_WORDS; i++) {
		d[i] = n[i] - l[i];
		l[i] = n[i];
		t[i] += d[i];
		events += d[i];
		activity += d[i] & activity_mask[i];
	}
	return (struct counters_growth){.events = events, .activity = activity};
}

struct counters_growth counters_growth_of(const struct fs_counters *counts)
{
	const __u32 *c = (const __u32 *)counts;
	__u64 events = 0, activity = 0;

	for (size_t i = 0; i < FS_COUNTER_WORDS; i++) {
		events += c[i];
		activity += c[i] & activity_mask[i];
	}
	return (struct counters_growth){.events = events, .activity = activity};
}

void totals_add(struct fs_totals *dst, const struct fs_counters *src)
{
	__u64 *d = (__u64 *)dst;
	const __u32 *s = (const __u32 *)src;

	for (size_t i = 0; i < FS_COUNTER_WORDS; i++)
		d[i] += s[i];
}

void totals_add_growth(struct fs_totals *dst, const struct fs_counters *now,
		       const struct fs_counters *before)
{
	__u64 *d = (__u64 *)dst;
	const __u32 *n = (const __u32 *)now, *b = (const __u32 *)before;

	for (size_t i = 0; i < FS_COUNTER_WORDS; i++)
		d[i] += (__u32)(n[i] - b[i]);
}

bool node_orders_read_delta(__u64 delta[FS_MAX_NODES][FS_NR_ORDERS],
			    struct fs_node_orders *restrict last,
			    const struct fs_node_orders *restrict now)
{
	__u64 any = 0;

	for (int node = 0; node < FS_MAX_NODES; node++)
		for (int order = 0; order < FS_NR_ORDERS; order++) {
			__u32 n = __atomic_load_n(&now->folios[node][order], __ATOMIC_RELAXED);

			delta[node][order] = (__u32)(n - last->folios[node][order]);
			last->folios[node][order] = n;
			any |= delta[node][order];
		}
	return any != 0;
}

__u64 proc_activity(const struct proc_totals *c)
{
	__u64 stalls = 0;

	for (int k = 0; k < FS_NR_STALLS; k++)
		stalls += c->stalls[k].count;
	/* (outcomes are events; the pages collapses filled with zeroes are not) */
	return words_sum((const __u64 *)c->thp.results, FS_WORDS(c->thp.results)) + stalls;
}

__u64 hist_pages(const __u64 *hist)
{
	__u64 pages = 0;

	for (int order = 0; order < FS_NR_ORDERS; order++)
		pages += hist[order] << order;
	return pages;
}

__u64 hist_folios(const __u64 *hist)
{
	return words_sum(hist, FS_NR_ORDERS);
}

__u64 hist_large_folios(const __u64 *hist)
{
	return hist_folios(hist) - hist[0];
}

__u64 hist_large_pages(const __u64 *hist)
{
	return hist_pages(hist) - hist[0];
}

double hist_large_share(const __u64 *hist)
{
	__u64 pages = hist_pages(hist);

	return pages ? 100.0 * (double)hist_large_pages(hist) / (double)pages : 0.0;
}
