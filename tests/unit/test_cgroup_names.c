// SPDX-License-Identifier: GPL-2.0
/* Naming cgroups by id: over a directory tree standing in for the cgroup2 mount. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup_names.h"
#include "unit.h"

static __u64 inode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_ino;
}

/* Ids name their directory's path below the mount, the root "/"; a directory made after the
 * first walk is named by the next, at once (an unknown id below every known one waits a second);
 * one removed keeps its name. */
static bool ids_name_paths_below_the_mount(void)
{
	char root[] = "/tmp/fs-cgroup-names-XXXXXX", path[256];
	struct cgroup_names n;
	__u64 svc, late;
	double walked;
	bool ok;

	if (!mkdtemp(root))
		return ASSERT_TRUE(false);
	snprintf(path, sizeof(path), "%s/system.slice", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/system.slice/a b.service", root);
	mkdir(path, 0755);
	svc = inode_of(path);
	cgroup_names_open(&n);
	snprintf(n.mount, sizeof(n.mount), "%s", root);
	ok = ASSERT_STREQ(cgroup_name(&n, svc), "/system.slice/a b.service") &&
	     ASSERT_STREQ(cgroup_name(&n, inode_of(root)), "/");
	snprintf(path, sizeof(path), "%s/later", root);
	mkdir(path, 0755);
	late = inode_of(path);
	/* Within the second of the last walk, an unknown id below every id walked for (a cgroup
	 * removed before a walk saw it) is not looked for again... */
	walked = n.scanned_at;
	ok = ok && ASSERT_TRUE(cgroup_name(&n, 2) == NULL) && ASSERT_TRUE(n.scanned_at == walked);
	/* ...but one above them, a cgroup made since (the kernel's ids only grow; a test
	 * directory's inode need not, so the newest id is set below it), is named at once. */
	n.newest = late - 1;
	ok = ok && ASSERT_STREQ(cgroup_name(&n, late), "/later") && ASSERT_TRUE(n.scanned_at > walked);
	/* One above them that the walk does not find (made and removed since) costs one walk. */
	walked = n.scanned_at;
	ok = ok && ASSERT_TRUE(cgroup_name(&n, n.newest + 1000) == NULL) &&
	     ASSERT_TRUE(n.scanned_at > walked);
	walked = n.scanned_at;
	ok = ok && ASSERT_TRUE(cgroup_name(&n, n.newest) == NULL) &&
	     ASSERT_TRUE(n.scanned_at == walked);
	n.scanned_at -= 2;
	ok = ok && ASSERT_STREQ(cgroup_name(&n, late), "/later");
	rmdir(path);
	snprintf(path, sizeof(path), "%s/system.slice/a b.service", root);
	rmdir(path);
	n.scanned_at -= 2;
	ok = ok && ASSERT_TRUE(cgroup_name(&n, 1) == NULL) &&
	     ASSERT_STREQ(cgroup_name(&n, svc), "/system.slice/a b.service") &&
	     ASSERT_STREQ(cgroup_name(&n, late), "/later");
	/* Recently asked for, removed ones outlive further walks. */
	n.scanned_at -= 2;
	ok = ok && ASSERT_TRUE(cgroup_name(&n, 2) == NULL) &&
	     ASSERT_STREQ(cgroup_name(&n, late), "/later");
	cgroup_names_close(&n);
	snprintf(path, sizeof(path), "%s/system.slice", root);
	rmdir(path);
	rmdir(root);
	return ok;
}

const struct unit_test cgroup_names_tests[] = {
    UNIT_TEST(ids_name_paths_below_the_mount),
    {},
};
