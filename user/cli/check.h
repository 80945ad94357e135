/* SPDX-License-Identifier: GPL-2.0 */
/* foliostat --check: what this kernel and host offer foliostat, probe by probe. */
#ifndef FS_CHECK_H
#define FS_CHECK_H

#include "options.h"

/* Print the check (table or JSON) on stdout. Returns the exit status: 0 when the required
 * probes can attach, 1 otherwise. */
int run_check(const struct fs_options *opts);

#endif
