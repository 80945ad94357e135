/* SPDX-License-Identifier: GPL-2.0 */
/* Giving up privileges once the probes are attached. */
#ifndef FS_PRIVILEGES_H
#define FS_PRIVILEGES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct loader;
struct fs_options;

/* The unprivileged user foliostat runs as after start-up, where the options allow it: "nobody"
 * (and group "nogroup", else "nobody") as the user database names them, else 65534. */
#define FS_UNPRIVILEGED_NAME "nobody"
#define FS_UNPRIVILEGED_ID 65534

/* What a run keeps after start-up (as it was, or as --check predicts it). */
struct privileges_after {
	uid_t uid;
	gid_t gid;
	/* Why the uid stays 0 (the option that needs it), or NULL. */
	const char *uid_kept_for;
	bool cap_bpf;	   /* CAP_BPF kept: map reads need it on this kernel */
	int landlock_abi;  /* applied (or available, for --check); 0: none */
	bool seccomp;	   /* the filter installed (or installable) */
};

/*
 * The last step of start-up: run as FS_UNPRIVILEGED_NAME unless -o or -- COMMAND need uid 0
 * (see privileges.c), drop every capability and set no_new_privs, then confine the process
 * with Landlock (reads beneath /proc, /sys and the cgroup2 mount; writes only beneath -o's
 * directory, output_dir_fd, -1 without -o) and the seccomp filter, where the kernel has them.
 * Kernels before 6.5 refuse BPF map reads without CAP_BPF when unprivileged BPF is disabled:
 * there CAP_BPF alone is kept (it is tried in a child first). Returns 0 with what was kept in
 * `after`, or -1 with a message in err.
 */
int drop_privileges(const struct loader *loader, const struct fs_options *opts, int output_dir_fd,
		    struct privileges_after *after, char *err, size_t err_len);

/* What drop_privileges() would keep on this host with these options (for --check; the loader
 * must be started). */
void privileges_predict(const struct loader *loader, const struct fs_options *opts,
			struct privileges_after *after);

/*
 * Which runs keep uid 0 on a kernel without Landlock, where a uid 0 with no capability may
 * still read and write every file root owns and only the seccomp filter stands in the way of
 * a flaw: NULL when none (the kernel has Landlock, or foliostat does not run as root). For a
 * run (`after` as drop_privileges() left it), why it keeps uid 0 ("--replace", ...); for
 * --check (`predicted`: `after` is a plain run's, as privileges_predict() made it, for a
 * foliostat started as `euid`), "every run" and why, or the options that keep uid 0. The text
 * is written into buf.
 */
const char *privileges_root_without_landlock(const struct privileges_after *after, bool predicted,
					     uid_t euid, char *buf, size_t len);

#endif
