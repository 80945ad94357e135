/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The resident scan's opener (see opener.h): the child that opens, for foliostat once it has
 * dropped its privileges, a process's /proc/PID/smaps (or maps), pagemap and smaps_rollup, and
 * the host's /proc/kpageflags, and nothing else: only of processes the options select (it is
 * given the selection when it is forked and checks each pid against it), and only of the
 * process foliostat selected (its start time checked before the open and after: a reused
 * pid's files are refused). It keeps CAP_SYS_ADMIN (pagemap shows page frame numbers only to a
 * reader that had it when opening), CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH (another user's
 * process's maps and pagemap), of those foliostat has.
 */
#ifndef FS_RESIDENT_OPENER_H
#define FS_RESIDENT_OPENER_H

#include <sys/types.h>

#include "resident.h"
#include "resident_report.h"

/* Before privileges are dropped, with the selection it is to serve (copied): its socket, or a
 * negative errno. */
int resident_opener_start(const struct resident_selector *sel);
/* /proc/kpageflags, opened by it: a descriptor, or a negative errno. */
int resident_open_kpageflags(int opener);
/* The three files of process pid, the one started at start_ticks, opened by it (its smaps
 * with_rss, else its maps): 0, or a negative errno (-ENOENT: no such process now; -ESRCH: the
 * pid is another process's now; -EACCES: not one the selection has), and then none is open. */
int resident_open(int opener, pid_t pid, unsigned long long start_ticks, bool with_rss,
		  struct resident_files *files);
void resident_close(struct resident_files *files);

#endif
