// SPDX-License-Identifier: GPL-2.0
/* The loader's side of an indexed table (see table.h). */
#include "table.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "array.h"
#include "counters.h"

static int kernel_unlink_key(const struct table *t, __u64 key)
{
	return bpf_map_delete_elem(t->index_fd, &key) && errno != ENOENT ? -errno : 0;
}

static int kernel_give_back(const struct table *t, __u32 index)
{
	return bpf_map_update_elem(t->free_fd, NULL, &index, BPF_ANY) ? -errno : 0;
}

/*
 * BPF programs on tracepoints and perf events run inside RCU read-side sections (or with
 * preemption off, which RCU waits for too), so an RCU grace period is the wait. Two system
 * calls give one:
 * - membarrier(MEMBARRIER_CMD_GLOBAL), which is documented as one, but is refused where a CPU
 *   is nohz_full (its QUERY leaves the command out then) and where a seccomp filter refuses it;
 * - an update of a map-in-map from user space: the kernel waits for a grace period after it
 *   (maybe_wait_bpf_programs(), since Linux 4.19) so that user space knows no program still
 *   uses the inner map it replaced. That map is made at start-up, while privileges allow it;
 *   no program uses it, its update is only for the wait.
 * membarrier first, where the host allows it; the update where it does not. Never no wait:
 * --files drains a side right after the wait, and a program still adding to an entry of that
 * side would lose its count (or write into an entry freed meanwhile).
 */
static struct {
	bool membarrier;      /* MEMBARRIER_CMD_GLOBAL is allowed here */
	int map_fd, inner_fd; /* the map-in-map and the map its slot holds (-1: none) */
	char why[96];	      /* why membarrier is not used, for --check */
} grace = {.map_fd = -1, .inner_fd = -1};

int bpf_programs_wait_prepare(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, outer);
	int cmds = (int)syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	if (cmds < 0)
		snprintf(grace.why, sizeof(grace.why), "membarrier refused: %s", strerror(errno));
	else if (!(cmds & MEMBARRIER_CMD_GLOBAL))
		snprintf(grace.why, sizeof(grace.why),
			 "membarrier's global command refused (nohz_full CPUs)");
	grace.membarrier = cmds > 0 && (cmds & MEMBARRIER_CMD_GLOBAL);
#ifdef FS_TEST_WITHOUT_MEMBARRIER
	/* Test builds (make TEST_WITHOUT_MEMBARRIER=1): the fallback, on any host. */
	grace.membarrier = false;
	snprintf(grace.why, sizeof(grace.why), "membarrier left out of this test build");
#endif
	if (grace.map_fd >= 0)
		return 0;
	/* Made even where membarrier works: it may still be refused later (a seccomp filter). */
	grace.inner_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "fs_grace_inner", 4, 4, 1, NULL);
	if (grace.inner_fd < 0)
		return -errno;
	outer.inner_map_fd = grace.inner_fd;
	grace.map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "fs_grace", 4, 4, 1, &outer);
	if (grace.map_fd < 0) {
		int err = -errno;

		close(grace.inner_fd);
		grace.inner_fd = -1;
		return err;
	}
	return 0;
}

const char *bpf_programs_wait_method(const char **why)
{
	*why = grace.membarrier ? NULL : grace.why;
	return grace.membarrier ? "membarrier" : "map-in-map update";
}

void wait_for_bpf_programs(void)
{
	__u32 slot = 0;

	if (grace.membarrier && !syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		return;
	if (grace.map_fd >= 0)
		bpf_map_update_elem(grace.map_fd, &slot, &grace.inner_fd, BPF_ANY);
}

static const struct table_ops kernel_ops = {
    .unlink_key = kernel_unlink_key,
    .give_back = kernel_give_back,
    .wait_for_programs = wait_for_bpf_programs,
};

void table_number_entries(void *values, size_t value_size, __u32 capacity)
{
	for (__u32 i = 0; i < capacity; i++)
		((struct fs_entry_head *)((unsigned char *)values + (size_t)i * value_size))->index = i;
}

void table_init(struct table *t, void *values, __u64 *taken, size_t value_size, __u32 capacity,
		const struct table_ops *ops)
{
	memset(t, 0, sizeof(*t));
	t->values = values;
	t->taken = taken;
	t->value_size = t->copy_size = value_size;
	t->capacity = capacity;
	t->ops = ops;
	t->index_fd = t->free_fd = -1;
}

static size_t page_rounded(size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (len + page - 1) / page * page;
}

int table_open(struct table *t, int values_fd, int index_fd, int free_fd, int taken_fd,
	       size_t value_size, __u32 capacity)
{
	size_t values_len = page_rounded((size_t)capacity * value_size);
	size_t taken_len = page_rounded((capacity + 63) / 64 * sizeof(__u64));
	void *values, *taken;

	values = mmap(NULL, values_len, PROT_READ | PROT_WRITE, MAP_SHARED, values_fd, 0);
	if (values == MAP_FAILED)
		return -errno;
	taken = mmap(NULL, taken_len, PROT_READ | PROT_WRITE, MAP_SHARED, taken_fd, 0);
	if (taken == MAP_FAILED) {
		int err = -errno;

		munmap(values, values_len);
		return err;
	}
	table_init(t, values, taken, value_size, capacity, &kernel_ops);
	t->index_fd = index_fd;
	t->free_fd = free_fd;
	t->values_len = values_len;
	t->taken_len = taken_len;
	t->mapped = true;
	return 0;
}

int table_fill_free(int values_fd, int free_fd, size_t value_size, __u32 capacity)
{
	size_t len = page_rounded((size_t)capacity * value_size);
	unsigned char *values;

	values = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, values_fd, 0);
	if (values == MAP_FAILED)
		return -errno;
	table_number_entries(values, value_size, capacity);
	munmap(values, len);
	for (__u32 i = 0; i < capacity; i++)
		if (bpf_map_update_elem(free_fd, NULL, &i, BPF_ANY))
			return -errno;
	return 0;
}

void table_init_side(struct table *t, void *side, size_t side_size)
{
	t->side = side;
	t->side_size = side_size;
	t->copy_size = t->value_size + side_size;
}

int table_open_side(struct table *t, int side_fd, size_t side_size)
{
	size_t len = page_rounded((size_t)t->capacity * side_size);
	void *side = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, side_fd, 0);

	if (side == MAP_FAILED)
		return -errno;
	table_init_side(t, side, side_size);
	t->side_len = len;
	return 0;
}

void table_close(struct table *t)
{
	if (t->mapped) {
		munmap(t->values, t->values_len);
		munmap(t->taken, t->taken_len);
	}
	if (t->side_len)
		munmap(t->side, t->side_len);
	free(t->live);
	free(t->last);
	free(t->unlinked);
	free(t->unlinked_last);
	free(t->unlink);
	memset(t, 0, sizeof(*t));
}

void table_copy(const struct table *t, __u32 index, void *dst)
{
	words_load(dst, (const __u64 *)table_head(t, index), t->value_size / sizeof(__u64));
	if (t->side_size)
		words_load((__u64 *)((unsigned char *)dst + t->value_size),
			   (const __u64 *)table_side(t, index), t->side_size / sizeof(__u64));
}

_Static_assert(sizeof(struct fs_entry_head) % sizeof(__u64) == 0,
	       "an entry's header is made of whole 64-bit words");

void table_copy_head(const struct table *t, __u32 index, struct fs_entry_head *dst)
{
	words_load((__u64 *)dst, (const __u64 *)table_head(t, index), FS_WORDS(*dst));
}

/* Clear an entry and its side for its next thread, keeping its gen (references to the old one
 * stay stale) and its index. */
static void clear_entry(const struct table *t, __u32 index)
{
	struct fs_entry_head *head = table_head(t, index);
	__u32 gen = __atomic_load_n(&head->gen, __ATOMIC_RELAXED);

	memset(head, 0, t->value_size);
	head->index = index;
	if (t->side_size)
		memset(table_side(t, index), 0, t->side_size);
	__atomic_store_n(&head->gen, gen, __ATOMIC_RELEASE);
}

int table_read_unlinked(struct table *t, table_late_fn late, void *ctx)
{
	unsigned char *now;
	int err = 0;

	if (!t->nr_unlinked)
		return 0;
	now = malloc(t->copy_size);
	if (!now)
		return -ENOMEM;
	t->ops->wait_for_programs();
	for (size_t i = 0; i < t->nr_unlinked; i++) {
		__u32 index = t->unlinked[i];

		table_copy(t, index, now);
		if (!err)
			err = late(ctx, index, now, t->unlinked_last + i * t->copy_size);
		clear_entry(t, index);
		/* Given back even after an error: a lost index would shrink the table. */
		if (t->ops->give_back(t, index) && !err)
			err = -EIO;
	}
	t->nr_unlinked = 0;
	free(now);
	return err;
}

/* Make room for `more` live entries. */
static int reserve_live(struct table *t, size_t more)
{
	if (array_reserve(&t->live, &t->cap_live, t->nr_live, more, sizeof(*t->live)) ||
	    array_reserve(&t->last, &t->cap_last, t->nr_live, more, t->copy_size) ||
	    array_reserve(&t->unlink, &t->cap_unlink, t->nr_live, more, sizeof(*t->unlink)))
		return -ENOMEM;
	return 0;
}

int table_add_taken(struct table *t)
{
	size_t words = (t->capacity + 63) / 64, nr_fresh = 0, cap_fresh = 0, old, at, f, l;
	__u32 *fresh = NULL;
	int err = 0;

	/* Each word is taken whole: a bit BPF sets after the exchange waits for the next read. */
	for (size_t w = 0; w < words; w++) {
		__u64 bits = __atomic_exchange_n(&t->taken[w], 0, __ATOMIC_ACQ_REL);

		for (; bits; bits &= bits - 1) {
			if (!err && array_reserve_one(&fresh, &cap_fresh, nr_fresh, sizeof(*fresh)))
				err = -ENOMEM;
			if (err) /* put it back for the next read */
				__atomic_fetch_or(&t->taken[w], bits & -bits, __ATOMIC_RELEASE);
			else
				fresh[nr_fresh++] = (__u32)(w * 64 + __builtin_ctzll(bits));
		}
	}
	if (!err && nr_fresh && reserve_live(t, nr_fresh))
		err = -ENOMEM;
	if (err) {
		for (size_t i = 0; i < nr_fresh; i++)
			__atomic_fetch_or(&t->taken[fresh[i] / 64], 1ULL << (fresh[i] % 64),
					  __ATOMIC_RELEASE);
		free(fresh);
		return err;
	}
	/* Merge from the back: the new indexes (ascending) and the live ones (ordered). */
	old = t->nr_live;
	at = old + nr_fresh;
	f = nr_fresh;
	l = old;
	while (f > 0) {
		at--;
		if (l > 0 && t->live[l - 1] > fresh[f - 1]) {
			l--;
			t->live[at] = t->live[l];
			memcpy(table_last(t, at), table_last(t, l), t->copy_size);
		} else {
			f--;
			t->live[at] = fresh[f];
			/* A new entry counts from zero: it was cleared before it was given back,
			 * or never used. */
			memset(table_last(t, at), 0, t->copy_size);
		}
	}
	t->nr_live = old + nr_fresh;
	memset(t->unlink, 0, t->nr_live * sizeof(*t->unlink));
	free(fresh);
	return 0;
}

_Static_assert(offsetof(struct fs_entry_head, exited) == offsetof(struct fs_entry_head, gen) + 4 &&
		   offsetof(struct fs_entry_head, gen) % 8 == 0 &&
		   __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "gen and exited make one 64-bit word, gen its low half (entries.bpf.h)");

/*
 * Make every reference to an entry stale (bump its gen) and unlink its key, unless BPF retired
 * it (its thread moved to another cgroup, or a new process took its pid): BPF unlinked it then,
 * and the key may name the new entry by now, which stays linked. BPF retires an entry in one
 * compare-and-swap of gen and `exited` (entry_retire(), entries.bpf.h), so the gen is bumped
 * here in one too: of the two, exactly one wins on the gen the key's link names, and only the
 * winner deletes the key, while it still names this entry. Reading `exited` and then deleting,
 * as two steps, could delete the link of an entry BPF made in between for the same key (a
 * thread that moved and ran again, a pid reused): an entry then linked nowhere, which its
 * thread's exit would never mark. The cost of this order: an event of the thread between the
 * swap and the delete finds a stale link and is counted as untracked; the thread is exited, or
 * had no event for a whole read.
 */
static int unlink_entry(struct table *t, struct fs_entry_head *head)
{
	__u64 *word = (__u64 *)&head->gen; /* gen, then exited (entries.bpf.h) */
	__u64 seen = __atomic_load_n(word, __ATOMIC_ACQUIRE), bumped;
	__u32 exited;

	do {
		exited = (__u32)(seen >> 32);
		if (exited == FS_ENTRY_MOVED || exited == FS_ENTRY_REUSED) {
			/* Stale already; bumped again as every unlinked entry is. */
			__atomic_fetch_add(&head->gen, 1, __ATOMIC_ACQ_REL);
			return 0;
		}
		bumped = (seen & ~0xffffffffULL) | (__u32)((__u32)seen + 1);
	} while (!__atomic_compare_exchange_n(word, &seen, bumped, false, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	return t->ops->unlink_key(t, __atomic_load_n(&head->key, __ATOMIC_RELAXED));
}

void table_mark_unlink(struct table *t, size_t live_at)
{
	t->unlink[live_at] = true;
}

int table_unlink_marked(struct table *t)
{
	size_t kept = 0;
	int err = 0;

	for (size_t i = 0; i < t->nr_live; i++) {
		__u32 index = t->live[i];
		struct fs_entry_head *head = table_head(t, index);

		if (!t->unlink[i]) {
			if (kept != i) {
				t->live[kept] = index;
				memcpy(table_last(t, kept), table_last(t, i), t->copy_size);
			}
			kept++;
			continue;
		}
		if (array_reserve_one(&t->unlinked, &t->cap_unlinked, t->nr_unlinked,
				      sizeof(*t->unlinked)) ||
		    array_reserve_one(&t->unlinked_last, &t->cap_unlinked_last, t->nr_unlinked,
				      t->copy_size)) {
			/* No room to remember it: keep it live, try again next read. */
			err = -ENOMEM;
			if (kept != i) {
				t->live[kept] = index;
				memcpy(table_last(t, kept), table_last(t, i), t->copy_size);
			}
			kept++;
			continue;
		}
		if (!err)
			err = unlink_entry(t, head);
		else
			__atomic_fetch_add(&head->gen, 1, __ATOMIC_ACQ_REL);
		t->unlinked[t->nr_unlinked] = index;
		memcpy(t->unlinked_last + t->nr_unlinked * t->copy_size, table_last(t, i),
		       t->copy_size);
		t->nr_unlinked++;
	}
	t->nr_live = kept;
	memset(t->unlink, 0, t->nr_live * sizeof(*t->unlink));
	return err;
}

bool table_shrink(struct table *t)
{
	size_t cap_live = t->cap_live, cap_unlink = t->cap_unlink;
	bool shrank;

	shrank = array_shrink(&t->live, &cap_live, t->nr_live, sizeof(*t->live));
	shrank |= array_shrink(&t->last, &t->cap_last, t->nr_live, t->copy_size);
	shrank |= array_shrink(&t->unlink, &cap_unlink, t->nr_live, sizeof(*t->unlink));
	t->cap_live = cap_live;
	t->cap_unlink = cap_unlink;
	shrank |= array_shrink(&t->unlinked, &t->cap_unlinked, t->nr_unlinked,
			       sizeof(*t->unlinked));
	shrank |= array_shrink(&t->unlinked_last, &t->cap_unlinked_last, t->nr_unlinked,
			       t->copy_size);
	return shrank;
}
