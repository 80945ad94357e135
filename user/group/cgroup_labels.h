/* SPDX-License-Identifier: GPL-2.0 */
/* What a cgroup's path says of who runs in it: a systemd unit, a container, a Kubernetes pod. */
#ifndef FS_CGROUP_LABELS_H
#define FS_CGROUP_LABELS_H

struct cgroup_labels {
	char unit[256];		/* the systemd unit that owns it: "nginx.service", "user@1000.service" */
	char runtime[16];	/* "docker", "containerd", "cri-o", "podman"; "" if not known */
	char container_id[80];	/* the container's id, as its runtime spells it */
	char pod_uid[40];	/* a Kubernetes pod's UID (dashes, as the API has it) */
	char qos_class[16];	/* "guaranteed", "burstable" or "besteffort" (Kubernetes) */
};

/*
 * Read the labels off a cgroup's path from the hierarchy's root, only as far as it follows the
 * layouts systemd, the kubelet (systemd and cgroupfs drivers) and Docker, containerd, CRI-O and
 * podman make from the root (see foliostat(8), "Cgroups"): nothing below a unit's or a
 * container's own cgroup, nor in user.slice, is read, for its owner names it. Fields not found
 * are "". A path from below the root (a cgroup namespace's, a mount of a subtree) is not one:
 * see cgroup2_is_root().
 */
void cgroup_labels_parse(const char *path, struct cgroup_labels *labels);

#endif /* FS_CGROUP_LABELS_H */
