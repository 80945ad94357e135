// SPDX-License-Identifier: GPL-2.0
/* The names of --by's and --sort's values (rows.h), as options, records and tables write them. */
#include "rows.h"

#include <stddef.h>

/* In the enums' order; NULL-terminated where the options parse them. */
const char *const fs_sort_names[] = {
    [FS_SORT_PAGES] = "pages",	     [FS_SORT_LARGE] = "large",	  [FS_SORT_THP] = "thp",
    [FS_SORT_FALLBACK] = "fallback", [FS_SORT_FAULTS] = "faults", [FS_SORT_TLB] = "tlb",
    [FS_SORT_LRU] = "lru",	     [FS_SORT_EVENTS] = "events", NULL};
const char *const fs_row_kind_names[] = {
    [FS_BY_PROCESS] = "process", [FS_BY_CGROUP] = "cgroup", [FS_BY_COMM] = "comm", NULL};
const char *const fs_row_array_names[] = {
    [FS_BY_PROCESS] = "processes", [FS_BY_CGROUP] = "cgroups", [FS_BY_COMM] = "comms"};
