// SPDX-License-Identifier: GPL-2.0
/* The files records go to (output_file.c): the mode each is created with, as stat(2) tells it
 * afterwards, whatever umask the run was started with. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output_file.h"
#include "unit.h"

/* Write one record to `name` in `dir` (appended, or replacing it) with `mode` (-1: the
 * default) under `umask_bits`: the file's permission bits after it, or -1. */
static int mode_written(const char *dir, const char *name, bool append, int mode, mode_t umask_bits)
{
	struct output_file out;
	char path[256], err[256];
	mode_t old = umask(umask_bits);
	struct stat st;
	FILE *f;
	int ret = -1;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!ASSERT_EQ(output_file_open(&out, path, append, mode, err, sizeof(err)), 0))
		goto out;
	if (!ASSERT_TRUE((f = output_file_begin(&out)) != NULL))
		goto close;
	fputs("{}\n", f);
	if (ASSERT_EQ(output_file_commit(&out), 0) && ASSERT_EQ(stat(path, &st), 0))
		ret = (int)(st.st_mode & 07777);
close:
	output_file_close(&out);
out:
	umask(old);
	return ret;
}

/* Remove `dir` and the files named in it. */
static void remove_dir(const char *dir, const char *const *names)
{
	char path[256];

	for (; *names; names++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *names);
		unlink(path);
	}
	rmdir(dir);
}

/* -o's records name other users' processes, cgroups and files: its new file is the owner's
 * alone. --replace's stays readable by node_exporter's textfile collector, another user. */
static bool output_files_are_private_unless_replaced(void)
{
	char dir[] = "/tmp/foliostat-unit-output.XXXXXX";
	bool ok;

	if (!ASSERT_TRUE(mkdtemp(dir)))
		return false;
	ok = ASSERT_EQ(mode_written(dir, "log", true, -1, 022), 0600) &&
	     ASSERT_EQ(mode_written(dir, "last", false, -1, 022), 0644) &&
	     /* the umask still takes bits away from the defaults */
	     ASSERT_EQ(mode_written(dir, "log-077", true, -1, 077), 0600) &&
	     ASSERT_EQ(mode_written(dir, "last-077", false, -1, 077), 0600);
	remove_dir(dir, (const char *const[]){"log", "last", "log-077", "last-077", NULL});
	return ok;
}

/* --output-mode: exactly the mode asked for, which no umask narrows; an existing log keeps the
 * mode it has. */
static bool output_mode_is_exact(void)
{
	char dir[] = "/tmp/foliostat-unit-output.XXXXXX", path[256];
	bool ok;

	if (!ASSERT_TRUE(mkdtemp(dir)))
		return false;
	ok = ASSERT_EQ(mode_written(dir, "log", true, 0640, 077), 0640) &&
	     ASSERT_EQ(mode_written(dir, "last", false, 0604, 077), 0604) &&
	     ASSERT_EQ(mode_written(dir, "private", false, 0600, 0), 0600) &&
	     /* a second record replaces the first with the same mode */
	     ASSERT_EQ(mode_written(dir, "last", false, 0640, 022), 0640);
	snprintf(path, sizeof(path), "%s/log", dir);
	ok = ok && ASSERT_EQ(chmod(path, 0604), 0) &&
	     ASSERT_EQ(mode_written(dir, "log", true, 0600, 022), 0604);
	remove_dir(dir, (const char *const[]){"log", "last", "private", NULL});
	return ok;
}

const struct unit_test output_file_tests[] = {
    UNIT_TEST(output_files_are_private_unless_replaced),
    UNIT_TEST(output_mode_is_exact),
    {},
};
