/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hooks for the test suite, compiled only into the test build (`make TEST_HOOKS=1`, into
 * build/test-hooks/): the release binary has neither the option nor the code (the test suite
 * checks). --test-escape FILE makes foliostat, once start-up is done, try what a compromised
 * foliostat would: read and write FILE, create a file beside it, run a program and open a
 * socket, and say on standard error how each went.
 */
#ifndef FS_TEST_HOOKS_H
#define FS_TEST_HOOKS_H

#ifdef FOLIOSTAT_TEST_HOOKS
void test_escape(const char *path);
#endif

#endif
