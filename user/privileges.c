// SPDX-License-Identifier: GPL-2.0
/* Dropping privileges after attach (see privileges.h). */
#include "privileges.h"

#include <cap-ng.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/capability.h>

#include "foliostat.h"
#include "loader.h"

/* Keep nothing, or only CAP_BPF. */
static int keep_only(bool cap_bpf)
{
	capng_clear(CAPNG_SELECT_BOTH);
	if (cap_bpf && capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_BPF))
		return -1;
	return capng_apply(CAPNG_SELECT_BOTH);
}

/* Can this kernel still read our maps with no capability at all? Ask a child, which can. */
static bool maps_readable_without_capabilities(const struct loader *loader)
{
	pid_t child = fork();
	int status;

	if (child == 0) {
		static struct fs_cpu per_cpu[4096];
		__u32 zero = 0;

		_exit(keep_only(false) == 0 &&
			      (loader->nr_cpus > 4096 ||
			       bpf_map_lookup_elem(loader->cpus_fd, &zero, per_cpu) == 0)
			  ? 0
			  : 1);
	}
	if (child < 0 || waitpid(child, &status, 0) < 0)
		return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int drop_privileges(const struct loader *loader, char *err, size_t err_len)
{
	bool need_cap_bpf = !maps_readable_without_capabilities(loader);

	if (keep_only(need_cap_bpf)) {
		snprintf(err, err_len, "failed to drop capabilities: %s", strerror(errno));
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		snprintf(err, err_len, "failed to set no_new_privs: %s", strerror(errno));
		return -1;
	}
	return 0;
}
