// SPDX-License-Identifier: GPL-2.0
/* --files: the loader's table of files, and the record's view of it (see file_table.h). */
#include "file_table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "array.h"
#include "counters.h"
#include "mountinfo.h"
#include "host.h"
#include "table.h"
#include "foliostat.skel.h"

void files_size_maps(struct foliostat_bpf *skel, bool on, long max_files)
{
	__u32 files = on ? (__u32)max_files : 1;
	__u32 devs = on ? FS_MAX_FILE_DEVS : 1;

	bpf_map__set_max_entries(skel->maps.fs_files_0, files);
	bpf_map__set_max_entries(skel->maps.fs_files_1, files);
	bpf_map__set_max_entries(skel->maps.fs_file_devs_0, devs);
	bpf_map__set_max_entries(skel->maps.fs_file_devs_1, devs);
}

int file_table_open(struct file_table *t, size_t capacity, struct foliostat_bpf *skel)
{
	memset(t, 0, sizeof(*t));
	t->capacity = capacity;
	if (!skel)
		return 0;
	/* A read holds at most a side's capacity, files and devices. */
	t->cap_read = capacity > FS_MAX_FILE_DEVS ? capacity : FS_MAX_FILE_DEVS;
	t->keys = calloc(t->cap_read, sizeof(*t->keys));
	t->values = calloc(t->cap_read, sizeof(*t->values));
	t->dev_keys = calloc(t->cap_read, sizeof(*t->dev_keys));
	t->dev_values = calloc(t->cap_read, sizeof(*t->dev_values));
	if (!t->keys || !t->values || !t->dev_keys || !t->dev_values) {
		file_table_close(t);
		return -ENOMEM;
	}
	t->source = (struct file_source){
	    .files_fd = {bpf_map__fd(skel->maps.fs_files_0), bpf_map__fd(skel->maps.fs_files_1)},
	    .devs_fd = {bpf_map__fd(skel->maps.fs_file_devs_0),
			bpf_map__fd(skel->maps.fs_file_devs_1)},
	    .side = &skel->bss->fs_files_side,
	    .lost = skel->bss->fs_files_lost,
	};
	t->with_source = true;
	return 0;
}

void file_table_close(struct file_table *t)
{
	free(t->rows);
	free(t->untracked);
	free(t->keys);
	free(t->values);
	free(t->dev_keys);
	free(t->dev_values);
	memset(t, 0, sizeof(*t));
}

/* Every entry of a side's map, emptied: it holds at most `cap` (its max_entries). Returns the
 * count, or a negative errno. */
static long drain_map(int fd, void *keys, void *values, size_t cap)
{
	__u32 count = (__u32)cap, token;
	int err;

	/* One batch: the map holds no more than cap entries, and nothing adds to it now. */
	err = bpf_map_lookup_and_delete_batch(fd, NULL, &token, keys, values, &count, NULL);
	if (err && errno != ENOENT)
		return -errno;
	return count;
}

static void add_hist(__u64 *to, const __u64 *from)
{
	for (int o = 0; o < FS_NR_ORDERS; o++)
		to[o] += from[o];
}

int file_table_read(struct file_table *t)
{
	struct file_source *src = &t->source;
	__u32 old = *src->side & 1;
	struct fs_file_dev *lost = &src->lost[old];
	__u64 zero[FS_NR_ORDERS] = {0};
	long n, nr_devs;
	__u32 lost_dev = 0;
	int ret;

	if (!t->with_source)
		return 0;
	*src->side = !old;
	/* No program still writes the old side after this. */
	wait_for_bpf_programs();
	n = drain_map(src->files_fd[old], t->keys, t->values, t->cap_read);
	if (n < 0)
		return (int)n;
	nr_devs = drain_map(src->devs_fd[old], t->dev_keys, t->dev_values, t->cap_read);
	if (nr_devs < 0)
		return (int)nr_devs;
	ret = file_table_add_read(t, t->keys, t->values, (size_t)n, t->dev_keys, t->dev_values,
				  (size_t)nr_devs);
	/* Additions on devices beyond the devices map: device 0 (no file system has it). */
	if (!ret && memcmp(lost->folios, zero, sizeof(zero)))
		ret = file_table_add_read(t, NULL, NULL, 0, &lost_dev, lost, 1);
	memset(lost, 0, sizeof(*lost));
	return ret;
}

static int compare_key(__u32 dev_a, __u64 ino_a, __u32 dev_b, __u64 ino_b)
{
	if (dev_a != dev_b)
		return dev_a < dev_b ? -1 : 1;
	return ino_a < ino_b ? -1 : ino_a > ino_b;
}

static int compare_rows(const void *a, const void *b)
{
	const struct file_row *x = a, *y = b;

	return compare_key(x->dev, x->ino, y->dev, y->ino);
}

static struct file_row *find_row(struct file_table *t, __u32 dev, __u64 ino, size_t nr_sorted)
{
	size_t lo = 0, hi = nr_sorted;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = compare_key(t->rows[mid].dev, t->rows[mid].ino, dev, ino);

		if (!c)
			return &t->rows[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int add_untracked(struct file_table *t, __u32 dev, const __u64 *folios)
{
	size_t i;

	for (i = 0; i < t->nr_untracked && t->untracked[i].dev != dev; i++)
		;
	if (i == t->nr_untracked) {
		if (array_reserve_one(&t->untracked, &t->cap_untracked, t->nr_untracked,
				      sizeof(*t->untracked)))
			return -ENOMEM;
		memset(&t->untracked[i], 0, sizeof(t->untracked[i]));
		t->untracked[i].dev = dev;
		t->nr_untracked++;
	}
	add_hist(t->untracked[i].folios, folios);
	return 0;
}

int file_table_add_read(struct file_table *t, const struct fs_file_key *keys,
			const struct fs_file *values, size_t n, const __u32 *devs,
			const struct fs_file_dev *dev_values, size_t nr_devs)
{
	size_t nr_sorted = t->nr;

	for (size_t i = 0; i < n; i++) {
		struct file_row *row = find_row(t, keys[i].dev, keys[i].ino, nr_sorted);

		if (!row && t->nr >= t->capacity) {
			if (add_untracked(t, keys[i].dev, values[i].folios))
				return -ENOMEM;
			continue;
		}
		if (!row) {
			if (array_reserve_one(&t->rows, &t->cap, t->nr, sizeof(*t->rows)))
				return -ENOMEM;
			row = &t->rows[t->nr++];
			memset(row, 0, sizeof(*row));
			row->dev = keys[i].dev;
			row->ino = keys[i].ino;
		}
		add_hist(row->folios, values[i].folios);
		if (!(row->orders & FS_FILE_ORDERS_KNOWN))
			row->orders = values[i].orders;
		if (values[i].readahead_order > row->readahead_order)
			row->readahead_order = values[i].readahead_order;
		/* The first name a read gave: a file keeps its name for the record. */
		if (!(row->flags & FS_FILE_NAMED) && (values[i].flags & FS_FILE_NAMED)) {
			row->flags = values[i].flags;
			row->depth = values[i].depth < FS_FILE_NAME_DEPTH ? values[i].depth
									  : FS_FILE_NAME_DEPTH;
			memcpy(row->name, values[i].name, sizeof(row->name));
			for (int c = 0; c < FS_FILE_NAME_DEPTH; c++)
				row->name[c][FS_FILE_NAME_LEN - 1] = '\0';
		}
	}
	if (t->nr != nr_sorted)
		qsort(t->rows, t->nr, sizeof(*t->rows), compare_rows);
	for (size_t i = 0; i < nr_devs; i++)
		if (add_untracked(t, devs[i], dev_values[i].folios))
			return -ENOMEM;
	return 0;
}

void file_table_clear(struct file_table *t)
{
	t->nr = 0;
	t->nr_untracked = 0;
}

static void free_mounts(struct file_summary *s)
{
	for (size_t i = 0; i < s->nr_mounts; i++) {
		free(s->mounts[i].root);
		free(s->mounts[i].point);
		free(s->mounts[i].fstype);
	}
	s->nr_mounts = 0;
}

/* mountinfo: ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER-OPTIONS */
static int read_mounts(struct file_summary *s, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *fields[8], *save, *word;
	size_t len = 0;
	int ret = 0;

	free_mounts(s);
	if (!f)
		return -errno;
	while (!ret && getline(&line, &len, f) > 0) {
		unsigned int major, minor;
		int nr = 0;
		bool dash = false;
		struct file_mount *m;

		for (word = strtok_r(line, " \n", &save); word;
		     word = strtok_r(NULL, " \n", &save)) {
			if (nr < 5)
				fields[nr++] = word;
			else if (dash && nr == 5)
				fields[nr++] = word;
			else if (strcmp(word, "-") == 0)
				dash = true;
		}
		if (nr < 6 || sscanf(fields[2], "%u:%u", &major, &minor) != 2)
			continue;
		if (array_reserve_one(&s->mounts, &s->cap_mounts, s->nr_mounts,
				      sizeof(*s->mounts))) {
			ret = -ENOMEM;
			break;
		}
		m = &s->mounts[s->nr_mounts];
		mountinfo_unescape(fields[3]);
		mountinfo_unescape(fields[4]);
		m->dev = major << 20 | minor;
		m->root = strdup(fields[3]);
		m->point = strdup(fields[4]);
		m->fstype = strdup(fields[5]);
		s->nr_mounts++;
		if (!m->root || !m->point || !m->fstype)
			ret = -ENOMEM;
	}
	free(line);
	fclose(f);
	return ret;
}

/* The mount that shows a device's whole file system (its root mounted), else its first. */
static const struct file_mount *mount_of(const struct file_summary *s, __u32 dev)
{
	const struct file_mount *first = NULL;

	for (size_t i = 0; i < s->nr_mounts; i++) {
		if (s->mounts[i].dev != dev)
			continue;
		if (strcmp(s->mounts[i].root, "/") == 0)
			return &s->mounts[i];
		if (!first)
			first = &s->mounts[i];
	}
	return first;
}

static int compare_ranked(const void *a, const void *b)
{
	const struct file_row *x = *(struct file_row *const *)a, *y = *(struct file_row *const *)b;

	if (x->pages != y->pages)
		return x->pages > y->pages ? -1 : 1;
	return compare_key(x->dev, x->ino, y->dev, y->ino);
}

static int compare_systems(const void *a, const void *b)
{
	const struct file_system *x = a, *y = b;
	__u64 px = hist_pages(x->folios), py = hist_pages(y->folios);

	if (px != py)
		return px > py ? -1 : 1;
	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

static struct file_system *system_of(struct file_summary *s, __u32 dev)
{
	struct file_system *fs;

	for (size_t i = 0; i < s->nr_systems; i++)
		if (s->systems[i].dev == dev)
			return &s->systems[i];
	if (array_reserve_one(&s->systems, &s->cap_systems, s->nr_systems, sizeof(*s->systems)))
		return NULL;
	fs = &s->systems[s->nr_systems++];
	memset(fs, 0, sizeof(*fs));
	fs->dev = dev;
	fs->max_allowed = -1;
	return fs;
}

bool file_row_orders(const struct file_row *row, int *min, int *max)
{
	if (!(row->orders & FS_FILE_ORDERS_KNOWN))
		return false;
	*min = (int)FS_FILE_ORDER_MIN(row->orders);
	/* Kernels before 6.11 say only that a mapping takes large folios, up to the page cache's
	 * largest order: the PMD order there (MAX_PAGECACHE_ORDER with THP, which every kernel
	 * foliostat supports has). */
	*max = row->orders & FS_FILE_ORDERS_UP_TO_MAX ? pmd_order_of(sysconf(_SC_PAGESIZE))
						      : (int)FS_FILE_ORDER_MAX(row->orders);
	return true;
}

int file_table_summarize(struct file_table *t, size_t top, const char *mountinfo,
			 struct file_summary *s)
{
	struct file_system *fs;
	int ret, min, max;

	s->nr_ranked = 0;
	s->nr_systems = 0;
	/* A host without a mount table to read still gets its counts, unnamed. */
	ret = read_mounts(s, mountinfo);
	if (ret == -ENOMEM)
		return ret;
	if (array_reserve(&s->ranked, &s->cap_ranked, 0, t->nr, sizeof(*s->ranked)))
		return -ENOMEM;
	for (size_t i = 0; i < t->nr; i++) {
		struct file_row *row = &t->rows[i];

		row->pages = hist_pages(row->folios);
		/* (an entry made by readahead alone, whose folios were added after the read:
		 * nothing added in this record) */
		if (!row->pages)
			continue;
		s->ranked[s->nr_ranked++] = row;
		if (!(fs = system_of(s, row->dev)))
			return -ENOMEM;
		add_hist(fs->folios, row->folios);
		fs->files++;
		if (file_row_orders(row, &min, &max)) {
			fs->files_known++;
			fs->files_large += max > 0;
			if (max > fs->max_allowed)
				fs->max_allowed = max;
		}
	}
	for (size_t i = 0; i < t->nr_untracked; i++) {
		if (!(fs = system_of(s, t->untracked[i].dev)))
			return -ENOMEM;
		add_hist(fs->folios, t->untracked[i].folios);
		add_hist(fs->untracked, t->untracked[i].folios);
	}
	if (s->nr_ranked)
		qsort(s->ranked, s->nr_ranked, sizeof(*s->ranked), compare_ranked);
	s->nr_shown = top && top < s->nr_ranked ? top : s->nr_ranked;
	if (s->nr_systems)
		qsort(s->systems, s->nr_systems, sizeof(*s->systems), compare_systems);
	for (size_t i = 0; i < s->nr_systems; i++)
		s->systems[i].mount = mount_of(s, s->systems[i].dev);
	return 0;
}

void file_summary_free(struct file_summary *s)
{
	free_mounts(s);
	free(s->mounts);
	free(s->ranked);
	free(s->systems);
	memset(s, 0, sizeof(*s));
}

/* Append text to buf (of len bytes, at *at); false once it does not fit. */
static bool append(char *buf, size_t len, size_t *at, const char *text)
{
	size_t n = strlen(text);

	if (*at + n >= len)
		return false;
	memcpy(buf + *at, text, n + 1);
	*at += n;
	return true;
}

/* The path in the file system ("/a/b/file"), as the mount at `m` shows it: its point joined with
 * what lies below its root. False if the mount does not show it. */
static bool join_mount(const struct file_mount *m, const char *in_fs, char *buf, size_t len,
		       size_t *at)
{
	size_t root_len = strlen(m->root);
	const char *below = in_fs;

	if (strcmp(m->root, "/") != 0) {
		if (strncmp(in_fs, m->root, root_len) != 0 ||
		    (in_fs[root_len] != '/' && in_fs[root_len] != '\0'))
			return false;
		below = in_fs + root_len;
	}
	if (strcmp(m->point, "/") != 0 && !append(buf, len, at, m->point))
		return false;
	return append(buf, len, at, *below ? below : "/");
}

const char *file_path(const struct file_summary *s, const struct file_row *row, char *buf,
		      size_t len, bool *complete)
{
	char in_fs[FS_FILE_NAME_DEPTH * FS_FILE_NAME_LEN + 1];
	size_t at = 0, in_len = 0;
	bool at_root = row->flags & FS_FILE_AT_ROOT;

	*complete = false;
	if (!(row->flags & FS_FILE_NAMED) || !row->depth || len < 8)
		return NULL;
	in_fs[0] = '\0';
	for (int c = (int)row->depth - 1; c >= 0; c--) {
		append(in_fs, sizeof(in_fs), &in_len, "/");
		append(in_fs, sizeof(in_fs), &in_len, row->name[c]);
	}
	buf[0] = '\0';
	for (size_t i = 0; at_root && i < s->nr_mounts; i++) {
		if (s->mounts[i].dev != row->dev)
			continue;
		at = 0;
		buf[0] = '\0';
		if (join_mount(&s->mounts[i], in_fs, buf, len, &at)) {
			*complete = !(row->flags & FS_FILE_TRUNCATED);
			return buf;
		}
	}
	/* The first components, or the file system's place, are not known. */
	at = 0;
	append(buf, len, &at, "...");
	if (!append(buf, len, &at, in_fs))
		snprintf(buf, len, ".../%s", row->name[0]);
	return buf;
}
