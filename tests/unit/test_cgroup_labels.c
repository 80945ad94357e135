// SPDX-License-Identifier: GPL-2.0
/*
 * Units, containers and pods read off cgroup paths, as systemd, the kubelet and each runtime's
 * drivers lay them out from the root; and look-alikes made where a user or a container names
 * cgroups, which read as their owner's, never as a pod's or a container's.
 */
#include <stdio.h>
#include <string.h>

#include "cgroup_labels.h"
#include "unit.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID2 "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
#define UID "1b2c3d4e-0000-4a5b-8c9d-0123456789ab"
#define UID_ "1b2c3d4e_0000_4a5b_8c9d_0123456789ab" /* as the systemd driver writes it */
#define USER_SERVICE "/user.slice/user-1000.slice/user@1000.service"

static bool labels_are(const char *path, const char *unit, const char *runtime, const char *id,
		       const char *pod, const char *qos)
{
	struct cgroup_labels l;
	bool ok;

	cgroup_labels_parse(path, &l);
	ok = ASSERT_STREQ(l.unit, unit) && ASSERT_STREQ(l.runtime, runtime) &&
	     ASSERT_STREQ(l.container_id, id) && ASSERT_STREQ(l.pod_uid, pod) &&
	     ASSERT_STREQ(l.qos_class, qos);
	if (!ok)
		fprintf(stderr, "    (path %s)\n", path);
	return ok;
}

static bool systemd_units(void)
{
	return labels_are("/", "", "", "", "", "") && labels_are("", "", "", "", "", "") &&
	       labels_are("/system.slice", "", "", "", "", "") &&
	       labels_are("/system.slice/nginx.service", "nginx.service", "", "", "", "") &&
	       labels_are("/init.scope", "init.scope", "", "", "", "") &&
	       /* Slices nest as their names do: a-b.slice in a.slice. */
	       labels_are("/system.slice/system-getty.slice/getty@tty1.service",
			  "getty@tty1.service", "", "", "", "") &&
	       labels_are("/user.slice/user-1000.slice/session-3.scope", "session-3.scope", "", "",
			  "", "") &&
	       labels_are("/machine.slice/machine-qemu\\x2d1\\x2dvm.scope",
			  "machine-qemu\\x2d1\\x2dvm.scope", "", "", "", "") &&
	       /* Below a service or a scope, its own cgroups (a delegated subtree): still it. */
	       labels_are("/system.slice/foo.service/worker", "foo.service", "", "", "", "") &&
	       labels_are("/system.slice/foo.service/bar.slice/baz.service", "foo.service", "", "",
			  "", "");
}

/* A user's manager and all its user's units are user@UID.service, for the system. */
static bool a_users_subtree_is_its_manager(void)
{
	return labels_are(USER_SERVICE, "user@1000.service", "", "", "", "") &&
	       labels_are(USER_SERVICE "/app.slice/foo.service", "user@1000.service", "", "", "",
			  "") &&
	       labels_are(USER_SERVICE "/init.scope", "user@1000.service", "", "", "", "") &&
	       /* rootless podman: the user names the scope, so no container of podman's */
	       labels_are(USER_SERVICE "/user.slice/libpod-" ID ".scope", "user@1000.service", "",
			  "", "", "") &&
	       labels_are(USER_SERVICE "/app.slice/libpod-" ID ".scope/container",
			  "user@1000.service", "", "", "", "");
}

static bool runtimes_systemd_drivers(void)
{
	return labels_are("/system.slice/docker-" ID ".scope", "docker-" ID ".scope", "docker", ID,
			  "", "") &&
	       /* a container's own cgroups (systemd in a container): still that container */
	       labels_are("/system.slice/docker-" ID ".scope/init.scope", "docker-" ID ".scope",
			  "docker", ID, "", "") &&
	       labels_are("/machine.slice/libpod-" ID ".scope", "libpod-" ID ".scope", "podman", ID,
			  "", "") &&
	       labels_are("/machine.slice/libpod-" ID ".scope/container", "libpod-" ID ".scope",
			  "podman", ID, "", "") &&
	       labels_are("/machine.slice/machine-libpod_pod_" ID2 ".slice/libpod-" ID ".scope",
			  "libpod-" ID ".scope", "podman", ID, "", "") &&
	       /* conmon's scope names a container but is not it */
	       labels_are("/machine.slice/libpod-conmon-" ID ".scope", "libpod-conmon-" ID ".scope",
			  "", "", "", "");
}

static bool runtimes_cgroupfs_drivers(void)
{
	return labels_are("/docker/" ID, "", "docker", ID, "", "") &&
	       labels_are("/docker/" ID "/nested/" ID2, "", "docker", ID, "", "") &&
	       labels_are("/libpod_parent/libpod-" ID, "", "podman", ID, "", "") &&
	       labels_are("/default/" ID, "", "containerd", ID, "", "") &&
	       labels_are("/docker", "", "", "", "", "") &&
	       labels_are("/docker/not-an-id", "", "", "", "", "");
}

static bool kubelet_systemd_driver(void)
{
	return labels_are("/kubepods.slice", "", "", "", "", "") &&
	       labels_are("/kubepods.slice/kubepods-burstable.slice", "",
			  "", "", "", "burstable") &&
	       labels_are("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
			  ".slice",
			  "", "", "", UID, "burstable") &&
	       labels_are("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
			  ".slice/cri-containerd-" ID ".scope",
			  "cri-containerd-" ID ".scope", "containerd", ID, UID, "burstable") &&
	       labels_are("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
			  ".slice/crio-" ID ".scope",
			  "crio-" ID ".scope", "cri-o", ID, UID, "besteffort") &&
	       labels_are("/kubepods.slice/kubepods-pod" UID_ ".slice/docker-" ID ".scope",
			  "docker-" ID ".scope", "docker", ID, UID, "guaranteed") &&
	       /* CRI-O's conmon: in the pod, no container */
	       labels_are("/kubepods.slice/kubepods-pod" UID_ ".slice/crio-conmon-" ID ".scope",
			  "crio-conmon-" ID ".scope", "", "", UID, "guaranteed") &&
	       /* kubelet --cgroup-root=/kubelet.slice (kind) */
	       labels_are("/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
			  "kubelet-kubepods-besteffort-pod" UID_ ".slice/cri-containerd-" ID
			  ".scope",
			  "cri-containerd-" ID ".scope", "containerd", ID, UID, "besteffort") &&
	       /* a container's own cgroups below its scope: still that container */
	       labels_are("/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" ID
			  ".scope/kubepods/burstable/pod0000/" ID2,
			  "cri-containerd-" ID ".scope", "containerd", ID, UID, "guaranteed");
}

static bool kubelet_cgroupfs_driver(void)
{
	return labels_are("/kubepods/burstable/pod" UID "/" ID, "", "", ID, UID, "burstable") &&
	       labels_are("/kubepods/besteffort/pod" UID "/" ID, "", "", ID, UID, "besteffort") &&
	       labels_are("/kubepods/pod" UID "/" ID, "", "", ID, UID, "guaranteed") &&
	       labels_are("/kubepods/pod" UID "/crio-" ID, "", "cri-o", ID, UID, "guaranteed") &&
	       labels_are("/kubepods/pod" UID, "", "", "", UID, "guaranteed") &&
	       labels_are("/kubepods/burstable", "", "", "", "", "burstable") &&
	       labels_are("/kubepods/pod" UID "/" ID "/kubepods/burstable/pod0000/" ID2, "", "", ID,
			  UID, "guaranteed");
}

/* Look-alikes where a user (or a container) names cgroups: their owner's, never a pod's. */
static bool look_alikes_borrow_no_labels(void)
{
	return labels_are(USER_SERVICE "/kubepods/burstable/pod" UID "/" ID, "user@1000.service",
			  "", "", "", "") &&
	       labels_are(USER_SERVICE "/kubepods.slice/kubepods-burstable.slice/"
				       "kubepods-burstable-pod" UID_ ".slice/cri-containerd-" ID
				       ".scope",
			  "user@1000.service", "", "", "", "") &&
	       labels_are(USER_SERVICE "/docker/" ID, "user@1000.service", "", "", "", "") &&
	       labels_are(USER_SERVICE "/system.slice/sshd.service", "user@1000.service", "", "",
			  "", "") &&
	       /* user.slice is users': no runtime's scope there, even one systemd made */
	       labels_are("/user.slice/user-1000.slice/docker-" ID ".scope", "docker-" ID ".scope",
			  "", "", "", "") &&
	       labels_are("/user.slice/kubepods-pod" UID_ ".slice", "", "", "", "", "") &&
	       /* a delegated service of the system's */
	       labels_are("/system.slice/build.service/kubepods/pod" UID "/" ID, "build.service",
			  "", "", "", "") &&
	       /* x is no slice of systemd's: its sshd.service is no unit */
	       labels_are("/x/sshd.service", "", "", "", "", "") &&
	       labels_are("/system.slice/x/sshd.service", "", "", "", "", "") &&
	       /* slices laid out otherwise than systemd nests them */
	       labels_are("/kubepods.slice/kubepods-burstable-pod" UID_ ".slice/crio-" ID ".scope",
			  "", "", "", "", "") &&
	       labels_are("/system.slice/kubepods.slice/kubepods-pod" UID_ ".slice", "",
			  "", "", "", "") &&
	       labels_are("/a-b.slice/x.service", "", "", "", "", "") &&
	       labels_are("/-.slice/x.service", "", "", "", "", "") &&
	       /* kubepods below anything but the root (cgroupfs) */
	       labels_are("/foo/kubepods/pod" UID "/" ID, "", "", "", "", "") &&
	       labels_are("/podcasts", "", "", "", "", "") &&
	       labels_are("/kubepods/podcasts/" ID, "", "", "", "", "") &&
	       labels_are("/kubepods/burstable/besteffort/pod" UID, "", "", "", "", "burstable") &&
	       /* a path from a cgroup namespace's root to outside it */
	       labels_are("/../../system.slice/docker-" ID ".scope", "", "", "", "", "");
}

const struct unit_test cgroup_labels_tests[] = {
    UNIT_TEST(systemd_units),
    UNIT_TEST(a_users_subtree_is_its_manager),
    UNIT_TEST(runtimes_systemd_drivers),
    UNIT_TEST(runtimes_cgroupfs_drivers),
    UNIT_TEST(kubelet_systemd_driver),
    UNIT_TEST(kubelet_cgroupfs_driver),
    UNIT_TEST(look_alikes_borrow_no_labels),
    {},
};
