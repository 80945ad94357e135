/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Free memory by block size, per NUMA node and zone: why a large allocation found no free
 * block. The buddy allocator's free blocks of each order (/proc/buddyinfo: cheap, read at every
 * read of the maps, so a record can say the fewest there were during its span), and by
 * migrate type (/proc/pagetypeinfo: root's only, opened before privileges are dropped; the
 * kernel walks every free list to count them, milliseconds on a host with much free memory, so
 * it is read when a record or scrape is made, at most once per FREE_BY_TYPE_PERIOD_S).
 */
#ifndef FS_FREE_BLOCKS_H
#define FS_FREE_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "foliostat.h"
#include "proc_text.h"

/* Zones (nodes times zones) at most: a kernel has at most 1024 nodes (NODES_SHIFT is 10 at
 * most on x86-64 and arm64) of at most 6 zones (DMA, DMA32, Normal, HighMem, Movable, Device).
 * The array grows with the zones the host has; a file that lists more is refused. */
#define FS_MAX_ZONES (1024 * 6)
/* The text of buddyinfo and pagetypeinfo at most: pagetypeinfo takes about 750 bytes per zone
 * (a line per migrate type, and one in its table of blocks), 8 MiB room for FS_MAX_ZONES. */
#define FS_FREE_TEXT_MAX (8 << 20)
#define FS_MAX_MIGRATE_TYPES 8 /* Unmovable, Movable, Reclaimable, HighAtomic, CMA, Isolate */
#define FS_ZONE_NAME_LEN 16
#define FS_MIGRATE_TYPE_LEN 20
#define FREE_BY_TYPE_PERIOD_S 10.0

struct free_zone {
	int node;
	char name[FS_ZONE_NAME_LEN];	    /* DMA, DMA32, Normal, Movable, ... */
	__u64 blocks[FS_NR_ORDERS];	    /* free blocks of each order, at the last sample */
	__u64 fewest[FS_NR_ORDERS];	    /* the fewest of each order since the window began */
	double most_unusable[FS_NR_ORDERS]; /* free_zone_unusable()'s highest since then */
	__u64 by_type[FS_MAX_MIGRATE_TYPES][FS_NR_ORDERS]; /* at the last read of them */
};

struct free_blocks {
	int buddyinfo_fd;    /* -1: none */
	int pagetypeinfo_fd; /* -1: not readable (not root, or no such file) */
	int nr_orders;	     /* orders the kernel lists: 0 .. nr_orders - 1 */
	size_t nr_zones;
	size_t zones_cap;
	struct free_zone *zones; /* in the order the kernel lists them */
	size_t nr_types;	 /* 0: by migrate type not read */
	char types[FS_MAX_MIGRATE_TYPES][FS_MIGRATE_TYPE_LEN];
	double read_at;	       /* monotonic s of the last sample */
	double types_read_at;  /* monotonic s of the last read of them (0: never) */
	unsigned long samples; /* of buddyinfo since the window began */
	struct proc_text text; /* what the files' text is read into, kept for the run */
};

/* Open the files (before privileges are dropped) and take a first sample. 0, or a negative
 * errno when /proc/buddyinfo cannot be read (pagetypeinfo is optional): -E2BIG when it lists
 * more than FS_MAX_ZONES zones, -EFBIG when it is longer than FS_FREE_TEXT_MAX. */
int free_blocks_open(struct free_blocks *f);
void free_blocks_close(struct free_blocks *f);
/* Sample buddyinfo now (the fewest of each order kept), and with `by_type`, pagetypeinfo too
 * unless it was read less than FREE_BY_TYPE_PERIOD_S ago (`now`: monotonic s). 0 or a negative
 * errno. */
int free_blocks_sample(struct free_blocks *f, bool by_type, double now);
/* A new window: the fewest and most unusable are the last sample's. */
void free_blocks_window_begin(struct free_blocks *f);

/* Parse buddyinfo's or pagetypeinfo's text into f's zones (kept: fewest, and the zones' order
 * when unchanged). 0, -EINVAL for text that is not theirs, -E2BIG for more than FS_MAX_ZONES
 * zones, -ENOMEM. (Exposed for unit tests.) */
int free_blocks_parse_buddyinfo(struct free_blocks *f, const char *text);
int free_blocks_parse_pagetypeinfo(struct free_blocks *f, const char *text);

/* A zone's free pages. */
__u64 free_zone_pages(const struct free_zone *z, int nr_orders);
/* The share of a zone's free memory in blocks smaller than `order` (the kernel's unusable free
 * space index, debugfs's extfrag/unusable_index): what an allocation of that order cannot use
 * without compaction (1 where nothing is free, as the kernel has it). */
double free_zone_unusable(const struct free_zone *z, int nr_orders, int order);

#endif
