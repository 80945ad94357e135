// SPDX-License-Identifier: GPL-2.0
/*
 * Labels read off a cgroup's path (cgroup_labels_parse, user/group/cgroup_labels.c): the path
 * is anyone's with a delegated subtree. Each label is a string within its field, and what it
 * holds is of the form cgroup_labels.h says.
 */
#include <ctype.h>

#include "cgroup_labels.h"
#include "fuzz.h"

static void check_ended(const char *field, size_t size)
{
	FUZZ_CHECK(memchr(field, '\0', size));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *path = fuzz_string(data, size);
	struct cgroup_labels l;

	cgroup_labels_parse(path, &l);
	check_ended(l.unit, sizeof(l.unit));
	check_ended(l.runtime, sizeof(l.runtime));
	check_ended(l.container_id, sizeof(l.container_id));
	check_ended(l.pod_uid, sizeof(l.pod_uid));
	check_ended(l.qos_class, sizeof(l.qos_class));
	/* Labels are parts of the path: never a '/' of it. */
	FUZZ_CHECK(!strchr(l.unit, '/') && !strchr(l.container_id, '/') && !strchr(l.pod_uid, '/'));
	if (l.container_id[0]) {
		FUZZ_CHECK(strlen(l.container_id) == 64);
		for (int i = 0; i < 64; i++)
			FUZZ_CHECK(isxdigit((unsigned char)l.container_id[i]));
	}
	FUZZ_CHECK(!l.qos_class[0] || !strcmp(l.qos_class, "guaranteed") ||
		   !strcmp(l.qos_class, "burstable") || !strcmp(l.qos_class, "besteffort"));
	FUZZ_CHECK(!l.runtime[0] || !strcmp(l.runtime, "docker") ||
		   !strcmp(l.runtime, "containerd") || !strcmp(l.runtime, "cri-o") ||
		   !strcmp(l.runtime, "podman"));
	FUZZ_CHECK(!l.runtime[0] || l.container_id[0]);
	free(path);
	return 0;
}
