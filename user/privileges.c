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

/* Keep nothing, or only CAP_BPF and/or CAP_PERFMON. */
static int keep_only(bool cap_bpf, bool cap_perfmon)
{
	capng_clear(CAPNG_SELECT_BOTH);
	if (cap_bpf && capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_BPF))
		return -1;
	if (cap_perfmon &&
	    capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_PERFMON))
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

		_exit(keep_only(false, false) == 0 &&
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
	/* Perf events are per CPU: one brought online later needs its own, and opening one on a
	 * whole CPU needs CAP_PERFMON (which reads counts, and changes nothing). */
	bool need_cap_perfmon = loader_has_perf_events(loader);

	if (keep_only(need_cap_bpf, need_cap_perfmon)) {
		snprintf(err, err_len, "failed to drop capabilities: %s", strerror(errno));
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		snprintf(err, err_len, "failed to set no_new_privs: %s", strerror(errno));
		return -1;
	}
	return 0;
}
