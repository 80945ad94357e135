/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An indexed table as the loader follows it (see struct fs_entry_head in foliostat.h): the
 * entries, mapped and read in place; which of them are live, with what each held at the last
 * read; and the two steps of freeing one (unlink, then a read later free), so that every count
 * is read exactly once and none lands in another's entry.
 */
#ifndef FS_TABLE_H
#define FS_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "foliostat.h"

struct table;

/* What a table asks of the kernel; tests replace them. */
struct table_ops {
	/* Delete the key from the table's index, so that no new reference to its entry is made. */
	int (*unlink_key)(const struct table *t, __u64 key);
	/* Give a free index back to the queue BPF takes entries from. */
	int (*give_back)(const struct table *t, __u32 index);
	/* Return once no BPF program that ran before the call is still running (an RCU grace
	 * period): none can still hold an index unlinked before it. */
	void (*wait_for_programs)(void);
};

/* Return once no BPF program that ran before the call is still running (see table.c). */
void wait_for_bpf_programs(void);
/* Choose how wait_for_bpf_programs() waits, and make what it needs: at start-up, with the
 * privileges to create a map. Returns 0 or a negative errno. */
int bpf_programs_wait_prepare(void);
/* How it waits ("membarrier" or "map-in-map update"), and why not with membarrier (NULL when
 * it does), for --check. */
const char *bpf_programs_wait_method(const char **why);

struct table {
	size_t value_size;     /* bytes per entry, a multiple of 8 */
	__u32 capacity;	       /* entries */
	unsigned char *values; /* the entries, in place */
	/* A side table's entries, in place, side_size bytes each at the same indexes (none: 0):
	 * read, remembered and cleared with the entries, each copy an entry's then its side's. */
	unsigned char *side;
	size_t side_size;
	size_t copy_size; /* value_size + side_size: what table_copy() and table_last() hold */
	__u64 *taken;	       /* a bit per entry taken since the last read */
	/* Live entries (taken, not unlinked), ordered by index, and what each held at the last
	 * read (value_size bytes each, in the same order). */
	__u32 *live;
	unsigned char *last;
	size_t nr_live, cap_live, cap_last;
	/* Entries unlinked at the last read, with what each held then: read once more, then
	 * freed. */
	__u32 *unlinked;
	unsigned char *unlinked_last;
	size_t nr_unlinked, cap_unlinked, cap_unlinked_last;
	/* Marks of entries to unlink after the current read (see table_mark_unlink()). */
	bool *unlink;
	size_t cap_unlink;
	const struct table_ops *ops;
	int index_fd, free_fd; /* for the default ops */
	size_t values_len, taken_len, side_len;
	bool mapped;
};

/* Write each entry's own index in its header (struct fs_entry_head's index): table_fill_free()
 * does, over the map; tests, over their memory. */
void table_number_entries(void *values, size_t value_size, __u32 capacity);
/* Number a table's entries and fill its free queue with every index, before any program can
 * take one. Returns 0 or a negative errno. */
int table_fill_free(int values_fd, int free_fd, size_t value_size, __u32 capacity);
/* Map a table's entries and bitmap. Returns 0 or a negative errno. */
int table_open(struct table *t, int values_fd, int index_fd, int free_fd, int taken_fd,
	       size_t value_size, __u32 capacity);
/* A table over memory the caller owns (values: capacity * value_size bytes, taken: a bit per
 * entry), with the given ops: for tests. */
void table_init(struct table *t, void *values, __u64 *taken, size_t value_size, __u32 capacity,
		const struct table_ops *ops);
/* Map a side table (see struct table) of `side_size` bytes per entry, before the first read.
 * Returns 0 or a negative errno. */
int table_open_side(struct table *t, int side_fd, size_t side_size);
/* The same over memory the caller owns: for tests. */
void table_init_side(struct table *t, void *side, size_t side_size);
void table_close(struct table *t);

static inline struct fs_entry_head *table_head(const struct table *t, __u32 index)
{
	return (struct fs_entry_head *)(t->values + (size_t)index * t->value_size);
}

static inline void *table_side(const struct table *t, __u32 index)
{
	return t->side + (size_t)index * t->side_size;
}

static inline void *table_last(const struct table *t, size_t live_at)
{
	return t->last + live_at * t->copy_size;
}

/* Copy an entry as it is now into dst, then its side's after it (copy_size bytes in all), a
 * word at a time (BPF may be writing it). */
void table_copy(const struct table *t, __u32 index, void *dst);
/* The same for the entry's header only. */
void table_copy_head(const struct table *t, __u32 index, struct fs_entry_head *dst);

/*
 * One read, in three steps:
 * 1. table_read_unlinked(): every entry unlinked at the last read, once no program can still
 *    write it, is copied and handed to `late` with what it held when unlinked, then cleared and
 *    given back;
 * 2. table_add_taken(): entries taken since the last read become live, from zero;
 * 3. the caller reads the live ones (into table_last(), each word once), marking with
 *    table_mark_unlink() those it is done with, and table_unlink_marked() unlinks them.
 */
typedef int (*table_late_fn)(void *ctx, __u32 index, const void *now, const void *then);
int table_read_unlinked(struct table *t, table_late_fn late, void *ctx);
int table_add_taken(struct table *t);
void table_mark_unlink(struct table *t, size_t live_at);
int table_unlink_marked(struct table *t);

/* Give back memory a burst of entries left. Returns whether any was given back. */
bool table_shrink(struct table *t);

#endif
