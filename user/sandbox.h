/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's confinement of a process that is already running without privileges: Landlock
 * (which files it may read and write) and a seccomp filter (which system calls it may make).
 * Both are applied last in start-up (cli/privileges.c) and cannot be undone; the privileged
 * openers' children (opener.c) take a seccomp filter of their own from here too, which is why
 * this is a helper every layer may use rather than cli/'s.
 */
#ifndef FS_SANDBOX_H
#define FS_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

/* The Landlock ABI version this kernel offers: 1 and up, or 0 when it has none (not built,
 * not enabled at boot, or disabled). */
int landlock_abi(void);

/* Whether a seccomp filter can be installed here: a kernel with CONFIG_SECCOMP_FILTER and an
 * architecture the filter knows (x86-64, arm64). */
bool seccomp_available(void);

/*
 * Landlock: read-only access beneath the directories read_paths names (a NULL-ended list: what
 * is read after start-up), write access beneath the directory open at write_dir_fd only (-o's;
 * -1: no writes at all),
 * no executing anything, no TCP bind or connect (ABI 4), and with `scope_signals` no signal to
 * a process outside foliostat (ABI 6: only without -- COMMAND, which foliostat signals).
 * Returns the ABI applied, 0 if the kernel has none (nothing done), or -errno.
 */
int landlock_apply(const char *const *read_paths, int write_dir_fd, bool scope_signals);

/*
 * The seccomp filter, a deny-list (the list and why in sandbox.c): 0, or -errno. Needs
 * no_new_privs set.
 */
int seccomp_apply(void);

/*
 * A seccomp filter that lets through only `calls` (system call numbers, FS_MAX_ALLOWED_CALLS at
 * most) and refuses every other with EPERM: for a process whose every call is known (the perf
 * opener, perf_events.c), where a deny-list would leave more than it needs. 0, or -errno.
 * Needs no_new_privs set.
 */
#define FS_MAX_ALLOWED_CALLS 16
int seccomp_allow_only(const int *calls, size_t nr);

#endif
