/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The resident scan's opener (see opener.h): the child that opens, for foliostat once it has
 * dropped its privileges, a process's /proc/PID/maps, pagemap and smaps_rollup, and the host's
 * /proc/kpageflags, and nothing else. It keeps CAP_SYS_ADMIN (pagemap shows page frame
 * numbers only to a reader that had it when opening), CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH
 * (another user's process's maps and pagemap), of those foliostat has.
 */
#ifndef FS_RESIDENT_OPENER_H
#define FS_RESIDENT_OPENER_H

#include <sys/types.h>

#include "resident.h"

/* Before privileges are dropped: its socket, or a negative errno. */
int resident_opener_start(void);
/* /proc/kpageflags, opened by it: a descriptor, or a negative errno. */
int resident_open_kpageflags(int opener);
/* Process pid's three files, opened by it: 0, or a negative errno (-ENOENT: no such process
 * now), and then none is open. */
int resident_open(int opener, pid_t pid, struct resident_files *files);
void resident_close(struct resident_files *files);

#endif
