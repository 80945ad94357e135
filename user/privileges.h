/* SPDX-License-Identifier: GPL-2.0 */
/* Giving up privileges once the probes are attached. */
#ifndef FS_PRIVILEGES_H
#define FS_PRIVILEGES_H

#include <stddef.h>

struct loader;

/*
 * Drop every capability and set no_new_privs, so that a bug in the output path cannot be turned
 * into anything root could do. Kernels before 6.5 refuse BPF map reads without CAP_BPF when
 * unprivileged BPF is disabled: there CAP_BPF alone is kept (it is tried in a child first).
 * Returns 0, or -1 with a message in err.
 */
int drop_privileges(const struct loader *loader, char *err, size_t err_len);

#endif
