/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --files: what files.bpf.c and the loader (user/collect/file_table.c) agree on. Page-cache
 * additions are counted per file, keyed by the file's device and inode, each file named once
 * when its entry is made; additions of files the table has no room for are counted per device
 * instead.
 */
#ifndef FS_FILES_H
#define FS_FILES_H

#include "foliostat.h"

#define FS_DEFAULT_MAX_FILES 4096
#define FS_MAX_MAX_FILES (1 << 20)
/* Devices with additions of files the full table had no room for, within one read; beyond
 * them, such additions go to the side's `lost` figures (a device the loader reports as 0:0). */
#define FS_MAX_FILE_DEVS 1024

/* A file's name: its last FS_FILE_NAME_DEPTH path components, each cut to FS_FILE_NAME_LEN - 1
 * bytes, as its dentry and the dentry's parents give them. */
#define FS_FILE_NAME_DEPTH 8
#define FS_FILE_NAME_LEN 64

/* The folio orders a file's mapping allows (struct fs_file's orders), as the kernel keeps them
 * in its address_space's flags when the file's entry is made: the smallest in bits 0-7, the
 * largest in bits 8-15. */
#define FS_FILE_ORDERS_KNOWN (1U << 16) /* the kernel says (else: nothing known) */
#define FS_FILE_ORDERS_UP_TO_MAX                                   \
	(1U << 17) /* large folios, up to the page cache's largest \
		    * order (kernels before 6.11 say no more) */
#define FS_FILE_ORDER_MIN(orders) ((orders)&0xff)
#define FS_FILE_ORDER_MAX(orders) (((orders) >> 8) & 0xff)

/* What the name walk found (struct fs_file's flags). */
#define FS_FILE_NAMED 1	    /* the inode had a dentry: name[] holds `depth` components */
#define FS_FILE_AT_ROOT 2   /* ... and they reach the file system's root: the whole path */
#define FS_FILE_TRUNCATED 4 /* a component was longer than a slot */

struct fs_file_key {
	__u32 dev; /* the super block's s_dev, the kernel's encoding (major << 20 | minor) */
	__u32 unused;
	__u64 ino;
};

struct fs_file {
	__u64 folios[FS_NR_ORDERS]; /* folios added, by order */
	__u32 flags;		    /* FS_FILE_* */
	__u32 depth;		    /* components in name[], the file's own first */
	__u32 orders;		    /* FS_FILE_ORDERS_*, FS_FILE_ORDER_MIN/MAX */
	/* The largest order readahead:page_cache_ra_order chose for it, plus 1 (0: none) */
	__u32 readahead_order;
	char name[FS_FILE_NAME_DEPTH][FS_FILE_NAME_LEN];
};

/* Additions of files the table had no room for, per device. */
struct fs_file_dev {
	__u64 folios[FS_NR_ORDERS];
};

#endif /* FS_FILES_H */
