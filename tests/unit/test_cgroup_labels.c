// SPDX-License-Identifier: GPL-2.0
/* Units, containers and pods read off cgroup paths, as each runtime's drivers lay them out. */
#include <stdio.h>
#include <string.h>

#include "cgroup_labels.h"
#include "unit.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static bool labels_are(const char *path, const char *unit, const char *runtime, const char *id,
		       const char *pod, const char *qos)
{
	struct cgroup_labels l;

	cgroup_labels_parse(path, &l);
	return ASSERT_STREQ(l.unit, unit) && ASSERT_STREQ(l.runtime, runtime) &&
	       ASSERT_STREQ(l.container_id, id) && ASSERT_STREQ(l.pod_uid, pod) &&
	       ASSERT_STREQ(l.qos_class, qos);
}

static bool systemd_units_and_containers(void)
{
	return labels_are("/", "", "", "", "", "") &&
	       labels_are("/system.slice/nginx.service", "nginx.service", "", "", "", "") &&
	       labels_are("/system.slice/docker-" ID ".scope", "docker-" ID ".scope", "docker", ID,
			  "", "") &&
	       labels_are("/docker/" ID, "", "docker", ID, "", "") &&
	       labels_are("/user.slice/user-1000.slice/user@1000.service/app.slice/libpod-" ID
			  ".scope",
			  "libpod-" ID ".scope", "podman", ID, "", "");
}

static bool kubernetes_pods_under_both_drivers(void)
{
	return labels_are("/kubepods.slice/kubepods-burstable.slice/"
			  "kubepods-burstable-pod1b2c_3d4e.slice/cri-containerd-" ID ".scope",
			  "cri-containerd-" ID ".scope", "containerd", ID, "1b2c-3d4e", "burstable") &&
	       labels_are("/kubepods.slice/kubepods-pod1b2c_3d4e.slice/crio-" ID ".scope",
			  "crio-" ID ".scope", "cri-o", ID, "1b2c-3d4e", "guaranteed") &&
	       labels_are("/kubepods/besteffort/pod1b2c-3d4e/" ID, "", "", ID, "1b2c-3d4e",
			  "besteffort") &&
	       labels_are("/kubepods/pod1b2c-3d4e/" ID, "", "", ID, "1b2c-3d4e", "guaranteed") &&
	       /* A pod-like name outside kubepods is not a pod. */
	       labels_are("/podcasts", "", "", "", "", "");
}

const struct unit_test cgroup_labels_tests[] = {
    UNIT_TEST(systemd_units_and_containers),
    UNIT_TEST(kubernetes_pods_under_both_drivers),
    {},
};
