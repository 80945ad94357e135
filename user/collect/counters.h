/* SPDX-License-Identifier: GPL-2.0 */
/* Arithmetic over the counter structs shared with BPF. Every field of a group is a count of one
 * word type, so groups are handled as flat arrays and a new counter needs no new code here:
 * BPF's struct fs_counters in 32-bit words, the loader's sums in 64-bit ones. */
#ifndef FS_COUNTERS_H
#define FS_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "foliostat.h"
#include "words.h"

#define FS_COUNTER_WORDS (sizeof(struct fs_counters) / sizeof(__u32))

/* The loader's sums of struct fs_counters: the same fields, word for word, in 64 bits. */
struct fs_totals {
	FS_COUNTER_FIELDS(__u64)
};

/* The system figures over a read or a record: every event of the counter groups (the threads',
 * and the interrupt and untracked groups', which are also given apart), and the system-only
 * figures summed over CPUs (see struct fs_cpu). */
struct system_totals {
	struct fs_totals total;
	struct fs_totals interrupt;
	struct fs_totals untracked;
	struct fs_totals unselected; /* threads outside the selection (-c, -- COMMAND) */
	FS_SYSTEM_TAIL_FIELDS
};

/*
 * A process's own figures as the loader keeps them: its process entry's (struct
 * fs_proc_counters, the same fields first) and its threads' allocations by node and order
 * (struct fs_node_orders, from the thread table's side, in 64 bits), which is where a record's
 * process-level figures are shown from.
 */
struct proc_totals {
	FS_PROC_FIELDS
	__u64 alloc_by_node_order[FS_MAX_NODES][FS_NR_ORDERS];
};

_Static_assert(offsetof(struct proc_totals, alloc_by_node_order) == sizeof(struct fs_proc_counters),
	       "struct proc_totals begins with struct fs_proc_counters' fields");
_Static_assert(sizeof(struct fs_proc_counters) % sizeof(__u64) == 0,
	       "struct fs_proc_counters is made of 64-bit words only");

_Static_assert(sizeof(struct fs_totals) == 2 * sizeof(struct fs_counters),
	       "struct fs_counters is made of 32-bit words only");

/* What a thread's counts grew by (see counters_delta()). */
struct counters_growth {
	__u64 events; /* all words */
	/* How busy the thread was, for ranking: folios allocated and added to the page cache,
	 * page faults (user + kernel), pages migrated and TLB flushes. Counters that restate
	 * others (LRU insertions of new folios) are left out; process-level figures add their
	 * own (see row_table.c). */
	__u64 activity;
};

/* A thread's counts since `then`: dst = now - then word by word, modulo 2^32 (BPF's words wrap;
 * a read comes far more often than 2^31 events of one thread). Returns the sums of dst. */
struct counters_growth counters_delta(struct fs_counters *dst, const struct fs_counters *now,
				      const struct fs_counters *then);
/*
 * One read of a thread's entry, whose counters BPF may be adding to: delta = entry - last,
 * last = entry, total += delta (widened). Each word of the entry is read once, with atomic loads
 * (two words at a time). This is the loader's work for every live thread each second, so it is
 * one pass over the entry and one over what is then in the cache: a copy of the entry, a delta,
 * a sum and a copy back were four passes over memory.
 */
struct counters_growth counters_read_delta(struct fs_counters *restrict delta,
					   struct fs_counters *restrict last,
					   const struct fs_task *restrict entry,
					   struct fs_totals *restrict total);
/* The sums of counts that are already a delta. */
struct counters_growth counters_growth_of(const struct fs_counters *counts);

/* dst += src, widened. */
void totals_add(struct fs_totals *dst, const struct fs_counters *src);
/* dst += now - before modulo 2^32, widened: for words that only ever grow (a CPU's interrupt and
 * untracked groups), read at least once per 2^32 events. */
void totals_add_growth(struct fs_totals *dst, const struct fs_counters *now,
		       const struct fs_counters *before);

static inline void totals_add_totals(struct fs_totals *dst, const struct fs_totals *src)
{
	words_add((__u64 *)dst, (const __u64 *)src, FS_WORDS(*dst));
}

static inline __u64 totals_events(const struct fs_totals *c)
{
	return words_sum((const __u64 *)c, FS_WORDS(*c));
}

static inline void words_add_system(struct system_totals *dst, const struct system_totals *src)
{
	words_add((__u64 *)dst, (const __u64 *)src, FS_WORDS(*dst));
}

/* A thread's allocations by node and order since the last read, from its side entry as it is
 * now (BPF may be writing it, modulo 2^32 as struct fs_counters): delta = now - last, last =
 * now. Returns whether it allocated any. */
bool node_orders_read_delta(__u64 delta[FS_MAX_NODES][FS_NR_ORDERS],
			    struct fs_node_orders *restrict last,
			    const struct fs_node_orders *restrict now);
/* Events in a process's rare figures: collapse outcomes and stalls. */
__u64 proc_activity(const struct proc_totals *c);

/* Pages in a folio histogram: folios of order o hold 2^o pages. */
__u64 hist_pages(const __u64 *hist);
__u64 hist_folios(const __u64 *hist);
/* Large folios are those of order 1 and up: their folios, their pages, and the share of the
 * histogram's pages in them, a percentage (0 without pages). */
__u64 hist_large_folios(const __u64 *hist);
__u64 hist_large_pages(const __u64 *hist);
double hist_large_share(const __u64 *hist);

#endif
