/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hooks for the test suite, compiled only into the test build (`make TEST_HOOKS=1`, into
 * build/test-hooks/): the release binary has neither the option, the environment variables nor
 * the code (the test suite checks); there the loader's hook points are empty inlines.
 * --test-escape FILE makes foliostat, once start-up is done, try what a compromised foliostat
 * would: read and write FILE, create a file beside it, run a program, open a socket and type
 * into the terminal on standard input (TIOCSTI, TIOCLINUX), and say on standard error how each
 * went.
 * FOLIOSTAT_TEST_PREEMPTIBLE=1 treats the kernel as one that may preempt tracepoint programs,
 * so that the attribution by lookups is tested on any kernel.
 * FOLIOSTAT_TEST_REFUSE_PROBE=group:event makes that probe's program one the kernel's verifier
 * refuses, as another kernel's verifier might, so that the load without it is tested.
 * FOLIOSTAT_TEST_NO_PAGEMAP_SCAN=1 makes --resident read pagemap whole, as on kernels without
 * its PAGEMAP_SCAN ioctl (before 6.7), so that both ways are tested on one kernel.
 * FOLIOSTAT_TEST_RESIDENT_OPEN_DELAY=SECONDS makes --resident wait that long between selecting
 * a process and opening its files, after saying "foliostat test: selected PID" on standard
 * error, so that a test can end the process and give its pid to another meanwhile.
 * FOLIOSTAT_TEST_COUNT_NODES=1 counts allocations per node on a one-node host too (BPF's count
 * against the allocations', and the cost in the bench), as on a host of several nodes.
 * FOLIOSTAT_TEST_NO_LANDLOCK=1 takes the kernel as one without Landlock (none is applied, and
 * --check and the start-up say so), as a kernel built or booted without it would be.
 */
#ifndef FS_TEST_HOOKS_H
#define FS_TEST_HOOKS_H

#include <stdbool.h>

struct bpf_program;

#ifdef FOLIOSTAT_TEST_HOOKS
void test_escape(const char *path);
/* Whether the kernel is to be taken as preemptible; if so, *why says why. */
bool test_preemptible(const char **why);
/* Before the load: break `program` if `probe` is the one to be refused. */
void test_refuse_program(struct bpf_program *program, const char *probe);
/* Whether --resident is to do without PAGEMAP_SCAN. */
bool test_no_pagemap_scan(void);
/* Whether allocations are to be counted per node on a one-node host too. */
bool test_count_nodes(void);
/* Whether the kernel is to be taken as one without Landlock. */
bool test_no_landlock(void);
/* --resident has selected process pid and is about to open its files. */
void test_resident_before_open(int pid);
#else
static inline bool test_no_landlock(void)
{
	return false;
}

static inline void test_resident_before_open(int pid)
{
	(void)pid;
}

static inline bool test_count_nodes(void)
{
	return false;
}

static inline bool test_no_pagemap_scan(void)
{
	return false;
}

static inline bool test_preemptible(const char **why)
{
	(void)why;
	return false;
}

static inline void test_refuse_program(struct bpf_program *program, const char *probe)
{
	(void)program;
	(void)probe;
}
#endif

#endif
