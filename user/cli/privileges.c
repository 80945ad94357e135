// SPDX-License-Identifier: GPL-2.0
/*
 * Dropping privileges after attach (see privileges.h).
 *
 * Which runs keep uid 0, and why: with -- COMMAND, foliostat passes stop signals on to the
 * command, which runs as root (or as the user sudo was run by), and a signal to another user's
 * process needs the same uid (or CAP_KILL, which would reach every process). With -o, records
 * are written as root, as before: a directory only root may write to stays usable, and the
 * record files stay root's (written as nobody, any other daemon running as nobody could
 * rewrite them). There, Landlock confines writes to the -o directory. Every other run (the
 * table, -j to standard output, --listen, --files, --self, --by, --cgroup, -p) reads only what
 * any user may: /proc/vmstat, its own /proc/self files, the cgroup2 hierarchy (directories
 * 0755), sysfs mode files, and the maps and perf events through descriptors opened as root.
 */
#include "privileges.h"

#include <cap-ng.h>
#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/capability.h>

#include "cgroups.h"
#include "foliostat.h"
#include "loader.h"
#include "options.h"
#include "sandbox.h"

/* Keep nothing, or only CAP_BPF, as `uid` (the current one: no change). 0, or -1 with errno
 * set. */
static int keep_only(bool cap_bpf, uid_t uid, gid_t gid)
{
	int ret;

	capng_clear(CAPNG_SELECT_BOTH);
	if (cap_bpf && capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_BPF))
		return -1;
	if (uid == geteuid())
		return capng_apply(CAPNG_SELECT_BOTH);
	/* Keeps the capabilities chosen above across the change (PR_SET_KEEPCAPS), with no
	 * supplementary groups and an empty bounding set. */
	ret = capng_change_id((int)uid, (int)gid, CAPNG_DROP_SUPP_GRP | CAPNG_CLEAR_BOUNDING);
	if (ret && !errno)
		errno = EPERM;
	return ret ? -1 : 0;
}

/* Can this kernel still read our maps with no capability at all, as `uid`? Ask a child, which
 * can. */
static bool maps_readable_without_capabilities(const struct loader *loader, uid_t uid, gid_t gid)
{
	pid_t child = fork();
	int status;

	if (child == 0) {
		static struct fs_cpu per_cpu[4096];
		__u32 zero = 0;

		_exit(keep_only(false, uid, gid) == 0 &&
			      (loader->nr_cpus > 4096 ||
			       bpf_map_lookup_elem(loader->cpus_fd, &zero, per_cpu) == 0)
			  ? 0
			  : 1);
	}
	if (child < 0 || waitpid(child, &status, 0) < 0)
		return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * The uid a run with these options keeps (see the top of this file), and its group. A run that
 * is not root (a service's user of its own, with CAP_BPF and CAP_PERFMON) stays that user, and
 * root without CAP_SETUID, CAP_SETGID and CAP_SETPCAP (a container's) cannot change: it stays
 * root, with no capability.
 */
static void choose_user(const struct fs_options *opts, struct privileges_after *after)
{
	struct passwd *pw;

	*after = (struct privileges_after){.uid = geteuid(), .gid = getegid()};
	if (after->uid != 0)
		return;
	if (opts->command) {
		after->uid_kept_for = "-- COMMAND";
		return;
	}
	/* (-o's file is open already: appending to it needs no identity.) */
	if (opts->output && opts->replace) {
		after->uid_kept_for = "--replace";
		return;
	}
	/* The change clears the bounding set too (keep_only()), which takes CAP_SETPCAP: a
	 * container that grants CAP_SETUID and CAP_SETGID without it would fail there. */
	capng_get_caps_process();
	if (!capng_have_capability(CAPNG_EFFECTIVE, CAP_SETUID) ||
	    !capng_have_capability(CAPNG_EFFECTIVE, CAP_SETGID) ||
	    !capng_have_capability(CAPNG_EFFECTIVE, CAP_SETPCAP)) {
		after->uid_kept_for = "not all of CAP_SETUID, CAP_SETGID and CAP_SETPCAP";
		return;
	}
	pw = getpwnam(FS_UNPRIVILEGED_NAME);
	after->uid = pw && pw->pw_uid ? pw->pw_uid : FS_UNPRIVILEGED_ID;
	after->gid = pw && pw->pw_uid ? pw->pw_gid : FS_UNPRIVILEGED_ID;
}

const char *privileges_root_without_landlock(const struct privileges_after *after, bool predicted,
					     uid_t euid, char *buf, size_t len)
{
	if (after->landlock_abi)
		return NULL;
	if (!predicted) {
		if (after->uid != 0)
			return NULL;
		snprintf(buf, len, "%s", after->uid_kept_for ? after->uid_kept_for : "root");
		return buf;
	}
	/* A plain run that keeps uid 0 (root without CAP_SETUID, ...): so does every other. */
	if (after->uid == 0 && after->uid_kept_for)
		snprintf(buf, len, "every run (%s)", after->uid_kept_for);
	else if (euid == 0)
		snprintf(buf, len, "runs with --replace or -- COMMAND");
	else
		return NULL;
	return buf;
}

void privileges_predict(const struct loader *loader, const struct fs_options *opts,
			struct privileges_after *after)
{
	choose_user(opts, after);
	after->cap_bpf = !maps_readable_without_capabilities(loader, after->uid, after->gid);
	after->landlock_abi = landlock_abi();
	after->seccomp = seccomp_available();
}

int drop_privileges(const struct loader *loader, const struct fs_options *opts, int output_dir_fd,
		    struct privileges_after *after, char *err, size_t err_len)
{
	char cgroup_mount[4096] = "";
	const char *read_paths[] = {"/proc", "/sys", cgroup_mount, NULL};
	int ret;

	choose_user(opts, after);
	after->cap_bpf = !maps_readable_without_capabilities(loader, after->uid, after->gid);
	/* Found now: after the change the user database may be out of reach. */
	if (cgroup2_mount(cgroup_mount, sizeof(cgroup_mount)))
		read_paths[2] = NULL;
	errno = 0;
	if (keep_only(after->cap_bpf, after->uid, after->gid)) {
		snprintf(err, err_len, "failed to drop capabilities and become uid %u: %s",
			 (unsigned)after->uid, strerror(errno));
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		snprintf(err, err_len, "failed to set no_new_privs: %s", strerror(errno));
		return -1;
	}
	/* Signals stay within foliostat unless it must pass them on to the command. */
	ret = landlock_apply(read_paths, opts->output && opts->replace ? output_dir_fd : -1,
			     !opts->command);
	if (ret < 0) {
		snprintf(err, err_len, "failed to apply the Landlock ruleset: %s", strerror(-ret));
		return -1;
	}
	after->landlock_abi = ret;
	if (seccomp_available()) {
		ret = seccomp_apply();
		if (ret) {
			snprintf(err, err_len, "failed to install the seccomp filter: %s",
				 strerror(-ret));
			return -1;
		}
		after->seccomp = true;
	}
	return 0;
}
