/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --files: the page-cache additions of each file over a record, read from files.bpf.c's maps
 * at every read, and what a record says of them: the top files with their paths, and every
 * file system's totals (those include the files the table had no room for, so they are exact).
 */
#ifndef FS_FILE_TABLE_H
#define FS_FILE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "files.h"

struct foliostat_bpf;

/* One file's additions over the record, and its name from the first read that saw it. */
struct file_row {
	__u32 dev; /* the kernel's encoding: major << 20 | minor */
	__u64 ino;
	__u64 folios[FS_NR_ORDERS];
	__u64 pages; /* of folios[], set by file_table_summarize() */
	__u32 flags; /* FS_FILE_* */
	__u32 depth;
	__u32 orders; /* what its mapping allows: FS_FILE_ORDERS_* (files.h), the first known */
	__u32 readahead_order; /* the largest readahead chose, plus 1 (0: none seen) */
	char name[FS_FILE_NAME_DEPTH][FS_FILE_NAME_LEN];
};

/* Additions of files the table had no room for, on one device. */
struct file_dev_count {
	__u32 dev;
	__u64 folios[FS_NR_ORDERS];
};

/* Where files.bpf.c counts (two sides, see there). */
struct file_source {
	int files_fd[2], devs_fd[2];
	volatile __u32 *side;
	struct fs_file_dev *lost; /* [2] */
};

struct file_table {
	size_t capacity;       /* --max-files */
	struct file_row *rows; /* by (dev, ino) */
	size_t nr, cap;
	struct file_dev_count *untracked; /* by dev */
	size_t nr_untracked, cap_untracked;
	/* One read's entries, and the new files among them. */
	struct fs_file_key *keys;
	struct fs_file *values;
	__u32 *dev_keys;
	struct fs_file_dev *dev_values;
	size_t cap_read;
	struct file_source source;
	bool with_source;
};

/* A mount from /proc/self/mountinfo. */
struct file_mount {
	__u32 dev;
	char *root;  /* the directory of the file system mounted there */
	char *point; /* where */
	char *fstype;
};

/* A file system's additions over the record. */
struct file_system {
	__u32 dev;
	const struct file_mount *mount; /* NULL: not mounted where foliostat runs */
	__u64 folios[FS_NR_ORDERS];	/* every addition, tracked or not */
	__u64 untracked[FS_NR_ORDERS];	/* of files the table had no room for */
	size_t files;			/* files in the table */
	size_t files_known;		/* of them, those whose allowed orders are known */
	size_t files_large;		/* of those, the ones that allow large folios */
	int max_allowed;		/* the largest order any of them allows (-1: none known) */
};

/* What a record shows: the files by pages added, and the file systems. */
struct file_summary {
	struct file_row **ranked; /* most pages first */
	size_t nr_ranked, cap_ranked;
	size_t nr_shown;	     /* --top */
	struct file_system *systems; /* most pages first */
	size_t nr_systems, cap_systems;
	struct file_mount *mounts;
	size_t nr_mounts, cap_mounts;
};

/* The kernel's device encoding, and user space's major:minor of it. */
#define FILE_DEV_MAJOR(dev) ((dev) >> 20)
#define FILE_DEV_MINOR(dev) ((dev) & ((1U << 20) - 1))

/* Size files.bpf.c's maps (between open and load): --max-files when --files is on, one entry
 * each when it is off. */
void files_size_maps(struct foliostat_bpf *skel, bool on, long max_files);

/* A table of `capacity` files; with a skeleton, reading its maps (file_table_read). Returns 0
 * or a negative errno. */
int file_table_open(struct file_table *t, size_t capacity, struct foliostat_bpf *skel);
void file_table_close(struct file_table *t);
/* Flip the side BPF writes, wait until nothing writes the other, read it and empty it into the
 * table. Returns 0 or a negative errno. */
int file_table_read(struct file_table *t);
/*
 * Add one read: `n` files (keys and values), and `nr_devs` devices' additions of files BPF had
 * no room for. A new file the table has no room for is counted as its device's untracked
 * additions. Returns 0 or -ENOMEM.
 */
int file_table_add_read(struct file_table *t, const struct fs_file_key *keys,
			const struct fs_file *values, size_t n, const __u32 *devs,
			const struct fs_file_dev *dev_values, size_t nr_devs);
/* Empty the table: the next record starts from nothing. */
void file_table_clear(struct file_table *t);

/* Rank the table's files, show the first `top` (0: all), and sum the file systems, named from
 * the mount table at `mountinfo`. Returns 0 or a negative errno. */
int file_table_summarize(struct file_table *t, size_t top, const char *mountinfo,
			 struct file_summary *s);
void file_summary_free(struct file_summary *s);
/* The smallest and largest folio order a file's mapping allows (what its file system set when
 * the file was opened, and the kernel's page cache at most): false where the kernel does not
 * say (a kernel without the flags, or a file added before foliostat saw its mapping). */
bool file_row_orders(const struct file_row *row, int *min, int *max);

/*
 * A file's path into buf: the mount point joined with its path in the file system when both are
 * known (*complete), else what is known (".../" and the last components when the first are not,
 * a component cut to FS_FILE_NAME_LEN - 1 bytes). NULL when the file has no name (no dentry).
 */
const char *file_path(const struct file_summary *s, const struct file_row *row, char *buf,
		      size_t len, bool *complete);

#endif
