/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a process's memory holds now (--resident): the pages it maps, by the order of the folio
 * each belongs to, anonymous, file or shmem, and how its large folios are mapped. Read from
 * its page tables through /proc/PID/pagemap (a PFN per virtual page) and the kernel's flags of
 * each page frame (/proc/kpageflags: compound head and tail, anonymous, swap-backed), with the
 * PMD mappings /proc/PID/smaps_rollup counts. The mappings come from /proc/PID/smaps: their
 * Rss says where there is nothing to read (Rss 0) and where the rest of a mapping is holes.
 */
#ifndef FS_RESIDENT_H
#define FS_RESIDENT_H

#include <stdbool.h>
#include <linux/types.h>

#include "foliostat.h"

enum resident_type {
	RESIDENT_ANON,	/* anonymous memory (KPF_ANON), KSM's and COW copies of files' included */
	RESIDENT_FILE,	/* the page cache of files */
	RESIDENT_SHMEM, /* tmpfs, shared anonymous memory, memfd: swap-backed, not anonymous */
	NR_RESIDENT_TYPES,
};

/* How a large folio is mapped in the process. */
enum resident_mapping {
	MAPPED_PMD,	      /* by one PMD entry: a PMD-size folio, e.g. a THP */
	MAPPED_PTE,	      /* whole, by page-table entries, at an address of its own alignment */
	MAPPED_PTE_UNALIGNED, /* whole, by page-table entries, at another address */
	MAPPED_PARTIAL,	      /* only part of it: the rest unmapped here (or mapped elsewhere) */
	NR_RESIDENT_MAPPINGS,
};

struct resident_counts {
	/* Pages mapped, by the order of the folio each belongs to. */
	__u64 pages[NR_RESIDENT_TYPES][FS_NR_ORDERS];
	/* Folios mapped, by order: a folio mapped in two places (or in two pieces) counts twice. */
	__u64 folios[NR_RESIDENT_TYPES][FS_NR_ORDERS];
	/* Large folios (order 1 and up), by how they are mapped. */
	__u64 large[NR_RESIDENT_TYPES][NR_RESIDENT_MAPPINGS];
};

/* A process's files the scan reads: its mappings, /proc/PID/smaps (where PAGEMAP_SCAN cannot
 * skip holes: its Rss lines say what is not to be read) or maps (with PAGEMAP_SCAN: a mapping
 * without an Rss line is read whole), pagemap and smaps_rollup, opened by a process allowed
 * to (see resident_opener.h); and the host's /proc/kpageflags. */
struct resident_files {
	int mappings, pagemap, smaps_rollup;
};

struct resident_host {
	int kpageflags;
	long page_size;
	int pmd_order; /* log2(PMD size / page size): 9 with 4 KiB pages */
	/* pagemap has the PAGEMAP_SCAN ioctl (Linux 6.7 and later): the scan reads the frames of
	 * present pages only, and knows the PMD mappings from it; else pagemap is read whole, and
	 * smaps_rollup says how much is mapped by PMDs. */
	bool pagemap_scan;
	/* The most pagemap entries read of one process in one scan (0: no limit), that a
	 * reservation of terabytes (MAP_NORESERVE) with pages here and there cannot make a pass
	 * endless where PAGEMAP_SCAN cannot skip its holes: the scan stops there, cut short. */
	__u64 max_entries;
};

/* What a scan read. */
struct resident_reading {
	__u64 entries;	/* pagemap entries read */
	bool cut_short; /* stopped at max_entries: the counts are what was read before it */
};

/* Whether this kernel's pagemap has PAGEMAP_SCAN (tried on foliostat's own). */
bool resident_pagemap_scan_works(void);

/* A scan that shares the CPU: fn(ctx) is called before each batch of pages is read (a page
 * of pagemap entries, at most a few hundred microseconds of work), may sleep, and ends the
 * scan by returning nonzero (a negative errno, which the scan returns). */
struct resident_pace {
	int (*fn)(void *ctx);
	void *ctx;
};

/* Add what the process maps now to `counts`, paced by `pace` (NULL: at once), and say in
 * *reading (may be NULL) how much was read. 0, or a negative errno: -EPERM where pagemap shows
 * no page frame numbers (opened without CAP_SYS_ADMIN); -ESRCH where the process ended before
 * its maps were read. A scan cut short at max_entries returns 0. */
int resident_scan(const struct resident_host *host, const struct resident_files *files,
		  const struct resident_pace *pace, struct resident_counts *counts,
		  struct resident_reading *reading);

#endif
