/* SPDX-License-Identifier: GPL-2.0 */
/* Arithmetic over the counter structs shared with BPF: every field is a __u64 count, so they are
 * handled as flat arrays and a new counter group needs no new code here. */
#ifndef FS_COUNTERS_H
#define FS_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "foliostat.h"

#define FS_WORDS(type) (sizeof(type) / sizeof(__u64))

/* dst += src, over n words. */
void words_add(__u64 *dst, const __u64 *src, size_t n);
/* dst = now - before; false (and dst untouched) if any word went backwards. */
bool words_delta(__u64 *dst, const __u64 *now, const __u64 *before, size_t n);
__u64 words_sum(const __u64 *words, size_t n);
/* dst = now - before word by word, 0 where a word went backwards, and now raised to before
 * there: what was once observed is never taken back (see snapshot_add_slots()). */
void words_delta_monotonic(__u64 *dst, __u64 *now, const __u64 *before, size_t n);

static inline void counters_add(struct fs_counters *dst, const struct fs_counters *src)
{
	words_add((__u64 *)dst, (const __u64 *)src, FS_WORDS(*dst));
}

static inline __u64 counters_events(const struct fs_counters *c)
{
	return words_sum((const __u64 *)c, FS_WORDS(*c));
}

static inline void words_add_system(struct fs_system *dst, const struct fs_system *src)
{
	words_add((__u64 *)dst, (const __u64 *)src, FS_WORDS(*dst));
}

/*
 * How busy a thread or process was, for ranking: folios allocated and added to the page cache,
 * page faults (user + kernel), pages migrated and TLB flushes. Counters that restate others
 * (the fault breakdowns, LRU insertions of new folios) are left out. (Process-level figures add
 * their own: see window.c.)
 */
__u64 counters_activity(const struct fs_counters *c);

/* Events in a process's rare figures: collapse outcomes and stalls. */
__u64 proc_activity(const struct fs_proc_counters *c);

/* Pages in a folio histogram: folios of order o hold 2^o pages. */
__u64 hist_pages(const __u64 *hist);
__u64 hist_folios(const __u64 *hist);

#endif
