// SPDX-License-Identifier: GPL-2.0
/* --files' table: reads add up per file, files beyond its capacity are counted per file system
 * as untracked (never lost), and paths are named from the mount table. */
#include <stdlib.h>
#include <unistd.h>

#include "counters.h"
#include "file_table.h"
#include "unit.h"

#define DEV(major, minor) ((__u32)(major) << 20 | (minor))

/* A file entry as files.bpf.c makes it: `pages` order-0 folios and one order-2 folio, named by
 * its components from the file up. */
static void make_file(struct fs_file_key *key, struct fs_file *value, __u32 dev, __u64 ino,
		      __u64 pages, __u32 flags, int depth, const char *const *names)
{
	memset(key, 0, sizeof(*key));
	memset(value, 0, sizeof(*value));
	key->dev = dev;
	key->ino = ino;
	value->folios[0] = pages;
	value->folios[2] = 1;
	value->flags = flags;
	value->depth = depth;
	for (int i = 0; i < depth; i++)
		snprintf(value->name[i], FS_FILE_NAME_LEN, "%s", names[i]);
}

static const struct file_system *system_for(const struct file_summary *s, __u32 dev)
{
	for (size_t i = 0; i < s->nr_systems; i++)
		if (s->systems[i].dev == dev)
			return &s->systems[i];
	return NULL;
}

static const char *const a_name[] = {"a"};

/* Two reads of one file add up; the table of two files takes a third's additions as its
 * device's untracked ones, as it does BPF's own untracked ones; each file system's total is
 * its files' and its untracked additions. */
static bool reads_add_up_and_overflow_is_untracked(void)
{
	struct fs_file_key keys[3];
	struct fs_file values[3];
	struct fs_file_dev overflow = {.folios = {[0] = 7}};
	__u32 overflow_dev = DEV(8, 1);
	struct file_table t;
	struct file_summary s = {0};
	const struct file_system *fs;
	bool ok;

	file_table_open(&t, 2, NULL);
	make_file(&keys[0], &values[0], DEV(8, 1), 10, 100, FS_FILE_NAMED, 1, a_name);
	make_file(&keys[1], &values[1], DEV(8, 2), 11, 5, 0, 0, NULL);
	ok = ASSERT_EQ(file_table_add_read(&t, keys, values, 2, NULL, NULL, 0), 0);
	make_file(&keys[0], &values[0], DEV(8, 1), 10, 20, FS_FILE_NAMED, 1, a_name);
	make_file(&keys[2], &values[2], DEV(8, 1), 12, 30, FS_FILE_NAMED, 1, a_name);
	ok = ok &&
	     ASSERT_EQ(file_table_add_read(&t, keys, values, 1, &overflow_dev, &overflow, 1), 0) &&
	     ASSERT_EQ(file_table_add_read(&t, &keys[2], &values[2], 1, NULL, NULL, 0), 0) &&
	     ASSERT_EQ(t.nr, 2) &&
	     ASSERT_EQ(file_table_summarize(&t, 1, "/nonexistent/mountinfo", &s), 0) &&
	     ASSERT_EQ(s.nr_ranked, 2) && ASSERT_EQ(s.nr_shown, 1) &&
	     ASSERT_EQ(s.ranked[0]->ino, 10) && ASSERT_EQ(s.ranked[0]->pages, 120 + 2 * 4) &&
	     ASSERT_EQ(s.ranked[1]->pages, 5 + 4) && ASSERT_EQ(s.nr_systems, 2);
	fs = system_for(&s, DEV(8, 1));
	ok = ok && ASSERT_TRUE(fs) && ASSERT_EQ(fs->files, 1) &&
	     ASSERT_EQ(hist_pages(fs->untracked), 7 + 30 + 4) &&
	     ASSERT_EQ(hist_pages(fs->folios), 128 + 7 + 34) && ASSERT_TRUE(!fs->mount) &&
	     ASSERT_TRUE(s.systems[0].dev == DEV(8, 1));
	/* A record starts from nothing. */
	file_table_clear(&t);
	ok = ok && ASSERT_EQ(file_table_summarize(&t, 0, "/nonexistent/mountinfo", &s), 0) &&
	     ASSERT_EQ(s.nr_ranked, 0) && ASSERT_EQ(s.nr_systems, 0);
	file_summary_free(&s);
	file_table_close(&t);
	return ok;
}

/* A mount table with an escaped mount point, a bind mount of a subdirectory, and a device
 * mounted twice. */
static const char mountinfo[] = "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
				"23 22 8:2 / /mnt/data\\040dir rw - xfs /dev/sda2 rw\n"
				"24 22 8:3 /sub /b rw - btrfs /dev/sda3 rw\n"
				"25 22 8:1 / /again rw - ext4 /dev/sda1 rw\n";

static bool path_is(const struct file_summary *s, const struct fs_file_key *key,
		    const struct fs_file *value, const char *expected, bool expect_complete)
{
	struct file_row row = {
	    .dev = key->dev, .ino = key->ino, .flags = value->flags, .depth = value->depth};
	char buf[1024];
	bool complete = true;
	const char *path;

	memcpy(row.name, value->name, sizeof(row.name));
	path = file_path(s, &row, buf, sizeof(buf), &complete);
	if (!expected)
		return ASSERT_TRUE(!path) && ASSERT_TRUE(!complete);
	return ASSERT_STREQ(path, expected) && ASSERT_EQ(complete, expect_complete);
}

/* Paths: the mount point joined with the path in the file system when the walk reached its
 * root; otherwise the known components after ".../"; none without a dentry. */
static bool paths_are_named_from_the_mount_table(void)
{
	static const char *const deep[] = {"file", "dir"};
	static const char *const in_sub[] = {"f", "sub"};
	static const char *const elsewhere[] = {"f", "other"};
	char path[] = "/tmp/foliostat-unit-mountinfo.XXXXXX";
	struct file_table t;
	struct file_summary s = {0};
	struct fs_file_key k;
	struct fs_file v;
	const struct file_system *fs;
	int fd = mkstemp(path);
	bool ok;

	if (!ASSERT_TRUE(fd >= 0) ||
	    !ASSERT_EQ(write(fd, mountinfo, sizeof(mountinfo) - 1), sizeof(mountinfo) - 1))
		return false;
	close(fd);
	file_table_open(&t, 8, NULL);
	make_file(&k, &v, DEV(8, 2), 1, 1, FS_FILE_NAMED, 0, NULL);
	ok = ASSERT_EQ(file_table_add_read(&t, &k, &v, 1, NULL, NULL, 0), 0) &&
	     ASSERT_EQ(file_table_summarize(&t, 0, path, &s), 0) && ASSERT_EQ(s.nr_mounts, 4);
	fs = system_for(&s, DEV(8, 2));
	ok = ok && ASSERT_TRUE(fs && fs->mount) &&
	     ASSERT_STREQ(fs->mount->point, "/mnt/data dir") &&
	     ASSERT_STREQ(fs->mount->fstype, "xfs");
	make_file(&k, &v, DEV(8, 2), 1, 1, FS_FILE_NAMED | FS_FILE_AT_ROOT, 2, deep);
	ok = ok && path_is(&s, &k, &v, "/mnt/data dir/dir/file", true);
	make_file(&k, &v, DEV(8, 1), 1, 1, FS_FILE_NAMED | FS_FILE_AT_ROOT, 2, deep);
	ok = ok && path_is(&s, &k, &v, "/dir/file", true);
	make_file(&k, &v, DEV(8, 3), 1, 1, FS_FILE_NAMED | FS_FILE_AT_ROOT, 2, in_sub);
	ok = ok && path_is(&s, &k, &v, "/b/f", true);
	/* Outside the bind mount's directory: no mount shows it. */
	make_file(&k, &v, DEV(8, 3), 1, 1, FS_FILE_NAMED | FS_FILE_AT_ROOT, 2, elsewhere);
	ok = ok && path_is(&s, &k, &v, ".../other/f", false);
	make_file(&k, &v, DEV(8, 1), 1, 1, FS_FILE_NAMED, 2, deep);
	ok = ok && path_is(&s, &k, &v, ".../dir/file", false);
	make_file(&k, &v, DEV(8, 1), 1, 1, FS_FILE_NAMED | FS_FILE_AT_ROOT | FS_FILE_TRUNCATED, 2,
		  deep);
	ok = ok && path_is(&s, &k, &v, "/dir/file", false);
	make_file(&k, &v, DEV(8, 9), 1, 1, FS_FILE_NAMED | FS_FILE_AT_ROOT, 2, deep);
	ok = ok && path_is(&s, &k, &v, ".../dir/file", false);
	make_file(&k, &v, DEV(8, 1), 1, 1, 0, 0, NULL);
	ok = ok && path_is(&s, &k, &v, NULL, false);
	unlink(path);
	file_summary_free(&s);
	file_table_close(&t);
	return ok;
}

const struct unit_test file_table_tests[] = {
    UNIT_TEST(reads_add_up_and_overflow_is_untracked),
    UNIT_TEST(paths_are_named_from_the_mount_table),
    {},
};
