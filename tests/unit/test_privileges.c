// SPDX-License-Identifier: GPL-2.0
/* When a run keeps uid 0 with no Landlock to confine it (privileges.c): the run's own words
 * at start-up, and --check's prediction for the runs it does not make. */
#include "privileges.h"
#include "unit.h"

static bool root_without_landlock_is_named(void)
{
	struct privileges_after nobody = {.uid = 65534, .gid = 65534};
	struct privileges_after replace = {.uid = 0, .uid_kept_for = "--replace"};
	struct privileges_after container = {
	    .uid = 0, .uid_kept_for = "not all of CAP_SETUID, CAP_SETGID and CAP_SETPCAP"};
	struct privileges_after service = {.uid = 998, .gid = 998};
	struct privileges_after confined = {
	    .uid = 0, .uid_kept_for = "--replace", .landlock_abi = 1};
	char buf[128];

	/* A run: only one that keeps uid 0, and only without Landlock. */
	return ASSERT_STREQ(privileges_root_without_landlock(&replace, false, 0, buf, sizeof(buf)),
			    "--replace") &&
	       ASSERT_TRUE(
		   !privileges_root_without_landlock(&nobody, false, 0, buf, sizeof(buf))) &&
	       ASSERT_TRUE(
		   !privileges_root_without_landlock(&confined, false, 0, buf, sizeof(buf))) &&
	       /* --check as root: a plain run that becomes nobody leaves --replace and COMMAND */
	       ASSERT_STREQ(privileges_root_without_landlock(&nobody, true, 0, buf, sizeof(buf)),
			    "runs with --replace or -- COMMAND") &&
	       /* ... one that cannot change its uid leaves every run at 0 */
	       ASSERT_STREQ(privileges_root_without_landlock(&container, true, 0, buf, sizeof(buf)),
			    "every run (not all of CAP_SETUID, CAP_SETGID and CAP_SETPCAP)") &&
	       /* a service's own user, with capabilities, is never root */
	       ASSERT_TRUE(
		   !privileges_root_without_landlock(&service, true, 998, buf, sizeof(buf))) &&
	       ASSERT_TRUE(!privileges_root_without_landlock(&confined, true, 0, buf, sizeof(buf)));
}

const struct unit_test privileges_tests[] = {
    UNIT_TEST(root_without_landlock_is_named),
    {},
};
