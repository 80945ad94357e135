// SPDX-License-Identifier: GPL-2.0
/*
 * Naming cgroups by id, and the cache of names: over a directory tree standing in for the
 * cgroup2 mount (no foliostat-cgrp here: names come from walks, at most once a second). Reads
 * are given their times, so that every rule is tested without waiting.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bounds.h"
#include "cgroup_names.h"
#include "unit.h"

/* A tree of directories, its root standing in for the mount. */
struct tree {
	char root[64];
};

static __u64 inode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_ino;
}

/* Make directory `rel` below the tree's root; its id (inode), 0 on failure. */
static __u64 tree_add(const struct tree *t, const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s%s", t->root, rel);
	return mkdir(path, 0755) ? 0 : inode_of(path);
}

static void tree_remove(const struct tree *t, const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s%s", t->root, rel);
	rmdir(path);
}

static bool tree_open(struct tree *t, struct cgroup_names *n)
{
	snprintf(t->root, sizeof(t->root), "/tmp/fs-cgroup-names-XXXXXX");
	if (!mkdtemp(t->root))
		return false;
	cgroup_names_open(n);
	snprintf(n->mount, sizeof(n->mount), "%s", t->root);
	return true;
}

/* A read at `now` that has rows of these cgroups (0 ends the list). */
static void read_rows(struct cgroup_names *n, double now, const __u64 *ids)
{
	cgroup_names_read_begins(n, now);
	for (; *ids; ids++)
		cgroup_names_want(n, *ids);
	cgroup_names_resolve(n);
}

static struct bound_count names_bound(void)
{
	struct bound_count counts[FS_NR_BOUNDS];

	bounds_read(counts);
	return counts[BOUND_CGROUP_NAMES];
}

/* Ids name their directory's path below the mount, the root "/", found by one walk for the
 * whole read; an id wanted within the second of the last walk waits for a later read, whatever
 * the id (the kernel's ids grow: the old rule walked again at once for one above the others). */
static bool ids_name_paths_below_the_mount(void)
{
	struct cgroup_names n;
	struct tree t;
	__u64 slice, svc, late;
	bool ok;

	if (!tree_open(&t, &n))
		return ASSERT_TRUE(false);
	slice = tree_add(&t, "/system.slice");
	svc = tree_add(&t, "/system.slice/a b.service");
	read_rows(&n, 100.0, (const __u64[]){svc, inode_of(t.root), 0});
	ok = ASSERT_STREQ(cgroup_name_known(&n, svc), "/system.slice/a b.service") &&
	     ASSERT_STREQ(cgroup_name_known(&n, inode_of(t.root)), "/") &&
	     ASSERT_TRUE(n.walked_at == 100.0);
	late = tree_add(&t, "/later");
	read_rows(&n, 100.5, (const __u64[]){svc, late > svc ? late : svc + 1000000, 0});
	ok = ok && ASSERT_TRUE(cgroup_name_known(&n, late) == NULL) &&
	     ASSERT_TRUE(n.walked_at == 100.0);
	read_rows(&n, 101.0, (const __u64[]){late, 0});
	ok = ok && ASSERT_STREQ(cgroup_name_known(&n, late), "/later") &&
	     ASSERT_TRUE(n.walked_at == 101.0);
	cgroup_names_close(&n);
	tree_remove(&t, "/later");
	tree_remove(&t, "/system.slice/a b.service");
	tree_remove(&t, "/system.slice");
	tree_remove(&t, "");
	(void)slice;
	return ok;
}

/* A walk finds every directory, but keeps the names asked for only; an id it does not find (a
 * cgroup removed before it was named) is kept as "no name", and not walked for again. */
static bool only_names_asked_for_are_kept(void)
{
	struct cgroup_names n;
	struct tree t;
	__u64 a, removed = 1;
	bool ok;

	if (!tree_open(&t, &n))
		return ASSERT_TRUE(false);
	a = tree_add(&t, "/a");
	tree_add(&t, "/b");
	tree_add(&t, "/c");
	while (removed == a || removed == inode_of(t.root))
		removed++;
	read_rows(&n, 10.0, (const __u64[]){a, removed, 0});
	ok = ASSERT_EQ(n.nr, 2) && ASSERT_STREQ(cgroup_name_known(&n, a), "/a") &&
	     ASSERT_TRUE(cgroup_name_known(&n, removed) == NULL) &&
	     ASSERT_EQ(names_bound().entries, 2) &&
	     ASSERT_EQ(names_bound().limit, FS_CGROUP_NAMES_MAX);
	read_rows(&n, 20.0, (const __u64[]){a, removed, 0});
	ok = ok && ASSERT_TRUE(n.walked_at == 10.0) && ASSERT_EQ(n.nr, 2);
	cgroup_names_close(&n);
	tree_remove(&t, "/a");
	tree_remove(&t, "/b");
	tree_remove(&t, "/c");
	tree_remove(&t, "");
	return ok;
}

/* A removed cgroup's name stays while reads ask for it (its rows are reported), and goes at the
 * first read that does not, a second after the last look; a live one not asked for stays. A
 * renamed one goes too, and is named by its new path when next asked for. */
static bool names_of_gone_cgroups_go_once_not_asked_for(void)
{
	char from[256], to[256];
	struct cgroup_names n;
	struct tree t;
	__u64 live, removed, renamed;
	bool ok;

	if (!tree_open(&t, &n))
		return ASSERT_TRUE(false);
	live = tree_add(&t, "/live");
	removed = tree_add(&t, "/removed");
	renamed = tree_add(&t, "/old");
	read_rows(&n, 50.0, (const __u64[]){live, removed, renamed, 0});
	ok = ASSERT_EQ(n.nr, 3);
	tree_remove(&t, "/removed");
	snprintf(from, sizeof(from), "%s/old", t.root);
	snprintf(to, sizeof(to), "%s/new", t.root);
	ok = ok && ASSERT_EQ(rename(from, to), 0);
	read_rows(&n, 52.0, (const __u64[]){removed, 0});
	ok = ok && ASSERT_EQ(n.nr, 2) && ASSERT_STREQ(cgroup_name_known(&n, removed), "/removed") &&
	     ASSERT_TRUE(cgroup_name_known(&n, renamed) == NULL);
	read_rows(&n, 52.5, (const __u64[]){0});
	ok = ok && ASSERT_EQ(n.nr, 2); /* (within the second of the last look) */
	read_rows(&n, 53.0, (const __u64[]){0});
	ok = ok && ASSERT_EQ(n.nr, 1) && ASSERT_STREQ(cgroup_name_known(&n, live), "/live") &&
	     ASSERT_TRUE(cgroup_name_known(&n, removed) == NULL) &&
	     ASSERT_EQ(names_bound().entries, 1);
	read_rows(&n, 54.0, (const __u64[]){renamed, 0});
	ok = ok && ASSERT_STREQ(cgroup_name_known(&n, renamed), "/new");
	cgroup_names_close(&n);
	tree_remove(&t, "/live");
	tree_remove(&t, "/new");
	tree_remove(&t, "");
	return ok;
}

/* Full, the cache forgets the names the current read did not ask for, and counts them; a read
 * that asks for more than the limit has the rest unnamed, counted too. */
static bool full_cache_evicts_names_the_read_did_not_ask_for(void)
{
	struct cgroup_names n;
	struct tree t;
	__u64 a, b, c, evictions;
	bool ok;

	if (!tree_open(&t, &n))
		return ASSERT_TRUE(false);
	n.limit = 2;
	a = tree_add(&t, "/a");
	b = tree_add(&t, "/b");
	c = tree_add(&t, "/c");
	evictions = names_bound().evictions;
	read_rows(&n, 1.0, (const __u64[]){a, b, 0});
	read_rows(&n, 2.0, (const __u64[]){c, 0});
	ok = ASSERT_EQ(n.nr, 1) && ASSERT_STREQ(cgroup_name_known(&n, c), "/c") &&
	     ASSERT_EQ(names_bound().evictions - evictions, 2);
	read_rows(&n, 3.0, (const __u64[]){a, b, c, 0});
	ok = ok && ASSERT_EQ(n.nr, 2) && ASSERT_STREQ(cgroup_name_known(&n, c), "/c") &&
	     ASSERT_EQ(names_bound().evictions - evictions, 3) &&
	     ASSERT_TRUE((cgroup_name_known(&n, a) == NULL) != (cgroup_name_known(&n, b) == NULL));
	cgroup_names_close(&n);
	tree_remove(&t, "/a");
	tree_remove(&t, "/b");
	tree_remove(&t, "/c");
	tree_remove(&t, "");
	return ok;
}

const struct unit_test cgroup_names_tests[] = {
    UNIT_TEST(ids_name_paths_below_the_mount),
    UNIT_TEST(only_names_asked_for_are_kept),
    UNIT_TEST(names_of_gone_cgroups_go_once_not_asked_for),
    UNIT_TEST(full_cache_evicts_names_the_read_did_not_ask_for),
    {},
};
