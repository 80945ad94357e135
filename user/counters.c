// SPDX-License-Identifier: GPL-2.0
/* Counter arithmetic for deltas and sums (see counters.h). */
#include "counters.h"

void words_add(__u64 *dst, const __u64 *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] += src[i];
}

bool words_delta(__u64 *dst, const __u64 *now, const __u64 *before, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (now[i] < before[i])
			return false;
	for (size_t i = 0; i < n; i++)
		dst[i] = now[i] - before[i];
	return true;
}

void words_delta_monotonic(__u64 *dst, __u64 *now, const __u64 *before, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (now[i] < before[i])
			now[i] = before[i];
		dst[i] = now[i] - before[i];
	}
}

__u64 words_sum(const __u64 *words, size_t n)
{
	__u64 sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += words[i];
	return sum;
}

__u64 counters_activity(const struct fs_counters *c)
{
	return words_sum(&c->folios[0][0], FS_NR_FOLIO_HISTS * FS_NR_ORDERS) +
	       c->faults[FS_FAULT_USER] + c->faults[FS_FAULT_KERNEL] +
	       c->migrate[FS_MIGRATE_SUCCEEDED] + c->migrate[FS_MIGRATE_FAILED] +
	       words_sum(c->tlb_flushes, FS_NR_TLB_REASONS);
}

__u64 proc_activity(const struct fs_proc_counters *c)
{
	__u64 stalls = 0;

	for (int k = 0; k < FS_NR_STALLS; k++)
		stalls += c->stalls[k].count;
	return words_sum((const __u64 *)&c->thp, FS_WORDS(c->thp)) + stalls;
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
