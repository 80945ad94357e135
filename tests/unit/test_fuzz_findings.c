// SPDX-License-Identifier: GPL-2.0
/*
 * What the fuzz targets (tests/fuzz/) found, each with the input that found it, so that it
 * stays fixed without a fuzzer: the parsers' promises that input broke.
 */
#include <stdio.h>
#include <string.h>

#include "cgroups.h"
#include "free_blocks.h"
#include "options.h"
#include "unit.h"

/*
 * fuzz_options: a second parse_options() in one process went on with the short options left
 * in the first one's cluster ("-hv": -h returns at once, "v" was still to come), read from the
 * first call's argv, which the fuzzer had freed: the second command line got a -v it never had.
 * getopt_long starts afresh only when optind is 0.
 */
static bool a_parse_starts_afresh(void)
{
	char *first[] = {"foliostat", "-hv", NULL}, *second[] = {"foliostat", NULL};
	struct fs_options opts;
	char err[256];
	FILE *null = fopen("/dev/null", "w");
	enum fs_parse_result r1, r2;

	if (!ASSERT_TRUE(null))
		return false;
	r1 = parse_options(2, first, &opts, err, sizeof(err), null);
	r2 = parse_options(1, second, &opts, err, sizeof(err), null);
	fclose(null);
	return ASSERT_EQ(r1, FS_PARSE_EXIT) && ASSERT_EQ(r2, FS_PARSE_RUN) &&
	       ASSERT_TRUE(!opts.verbose);
}

/*
 * fuzz_proc_cgroup: the cgroup v2 path was found as "0::/" anywhere in /proc/PID/cgroup, so a
 * v1 hierarchy's path holding it (a delegated v1 cgroup named "x0::") gave a process the v2
 * path of someone else's choosing; and a line "0::/..." had to begin the line. The fuzzer's
 * input, then the v1 case as a host would show it.
 */
static bool the_v2_path_is_the_line_that_begins_with_0(void)
{
	static const char found[] = "0/:sy:lic0::/sylice/nginx.e/nginx.serserv\0\0ice\0\031\n\n";
	static const char hybrid[] = "4:memory:/user.slice/x0::/system.slice/sshd.service\n"
				     "0::/user.slice/user-1000.slice/session-3.scope\n";
	static const char v1_only[] = "4:memory:/user.slice/x0::/system.slice/sshd.service\n";
	char path[256];

	return ASSERT_EQ(proc_cgroup_v2_path(found, sizeof(found) - 1, path, sizeof(path)), -1) &&
	       ASSERT_EQ(proc_cgroup_v2_path(hybrid, strlen(hybrid), path, sizeof(path)), 0) &&
	       ASSERT_STREQ(path, "/user.slice/user-1000.slice/session-3.scope") &&
	       ASSERT_EQ(proc_cgroup_v2_path(v1_only, strlen(v1_only), path, sizeof(path)), -1) &&
	       /* a bare "0::" is no path; a path too long for its room is none, not a cut one */
	       ASSERT_EQ(proc_cgroup_v2_path("0::\n", 4, path, sizeof(path)), -1) &&
	       ASSERT_EQ(proc_cgroup_v2_path("0::/abc\n", 8, path, 4), -1) &&
	       ASSERT_EQ(proc_cgroup_v2_path("0::/abc", 7, path, 5), 0) && ASSERT_STREQ(path, "/abc") &&
	       ASSERT_EQ(proc_cgroup_v2_path("0::/\n", 5, path, sizeof(path)), 0) &&
	       ASSERT_STREQ(path, "/");
}

/*
 * fuzz_buddyinfo: a count whose pages do not fit 64 bits (31 digits: strtoull gives
 * ULLONG_MAX, shifted left by its order) wrapped the zone's free pages, and the unusable share
 * came out below 0 or above 1. No kernel writes such a count; the share stays a share.
 */
static bool the_unusable_share_is_a_share(void)
{
	static struct free_blocks f = {.buddyinfo_fd = -1, .pagetypeinfo_fd = -1};
	static const char found[] =
	    "Node 0, zone      DMA      0      0      0      0      88888888888888888888888888888880"
	    "      0      0      0     1       0      1      1      3,MA32      1      3      2   ";
	bool ok = ASSERT_EQ(free_blocks_parse_buddyinfo(&f, found), 0);

	for (int o = 0; ok && o < f.nr_orders; o++) {
		double unusable = free_zone_unusable(&f.zones[0], f.nr_orders, o);

		ok = ASSERT_TRUE(unusable >= 0 && unusable <= 1);
	}
	return ok;
}

const struct unit_test fuzz_findings_tests[] = {
    UNIT_TEST(a_parse_starts_afresh),
    UNIT_TEST(the_v2_path_is_the_line_that_begins_with_0),
    UNIT_TEST(the_unusable_share_is_a_share),
    {},
};
