/* SPDX-License-Identifier: GPL-2.0 */
/* What a cgroup's path says of who runs in it: a systemd unit, a container, a Kubernetes pod. */
#ifndef FS_CGROUP_LABELS_H
#define FS_CGROUP_LABELS_H

struct cgroup_labels {
	char unit[256];		/* the deepest systemd unit: "nginx.service", "docker-<id>.scope" */
	char runtime[16];	/* "docker", "containerd", "cri-o", "podman"; "" if not known */
	char container_id[80];	/* the container's id, as its runtime spells it */
	char pod_uid[40];	/* a Kubernetes pod's UID (dashes, as the API has it) */
	char qos_class[16];	/* "guaranteed", "burstable" or "besteffort" (Kubernetes) */
};

/*
 * Read the labels off a cgroup path, as the systemd and cgroupfs drivers of Docker, containerd,
 * CRI-O, podman and the kubelet lay them out (see foliostat(8), "Cgroups"). Fields not found
 * are "".
 */
void cgroup_labels_parse(const char *path, struct cgroup_labels *labels);

#endif /* FS_CGROUP_LABELS_H */
