// SPDX-License-Identifier: GPL-2.0
/* Labels from cgroup paths (see cgroup_labels.h). */
#include "cgroup_labels.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && strncmp(s + len - n, suffix, n) == 0;
}

static bool starts_with(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && strncmp(s, prefix, n) == 0;
}

/* A container id: 64 hex digits (Docker, containerd, CRI-O, podman all use them). */
static bool is_container_id(const char *s, size_t len)
{
	if (len != 64)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* `<prefix><id>.scope`: the systemd driver's container scopes. */
static bool scoped_container(const char *c, size_t len, const char *prefix, const char *runtime,
			     struct cgroup_labels *l)
{
	size_t p = strlen(prefix), s = strlen(".scope");

	if (!starts_with(c, len, prefix) || !ends_with(c, len, ".scope") ||
	    !is_container_id(c + p, len - p - s))
		return false;
	snprintf(l->runtime, sizeof(l->runtime), "%s", runtime);
	snprintf(l->container_id, sizeof(l->container_id), "%.*s", (int)(len - p - s), c + p);
	return true;
}

/* "pod<uid>" (cgroupfs) or "...-pod<uid>.slice" (systemd, with '_' for '-'). */
static bool pod(const char *c, size_t len, struct cgroup_labels *l)
{
	const char *at = NULL;
	size_t n;

	if (starts_with(c, len, "pod"))
		at = c + 3;
	else if (starts_with(c, len, "kubepods") && ends_with(c, len, ".slice"))
		for (const char *p = c; p + 4 <= c + len; p++)
			if (strncmp(p, "-pod", 4) == 0)
				at = p + 4;
	if (!at)
		return false;
	n = (size_t)(c + len - at) - (ends_with(c, len, ".slice") ? strlen(".slice") : 0);
	if (n == 0 || n >= sizeof(l->pod_uid))
		return false;
	for (size_t i = 0; i < n; i++)
		l->pod_uid[i] = at[i] == '_' ? '-' : at[i];
	l->pod_uid[n] = '\0';
	return true;
}

static void qos(const char *c, size_t len, struct cgroup_labels *l)
{
	if (starts_with(c, len, "kubepods-burstable") || (len == 9 && !strncmp(c, "burstable", 9)))
		snprintf(l->qos_class, sizeof(l->qos_class), "burstable");
	else if (starts_with(c, len, "kubepods-besteffort") ||
		 (len == 10 && !strncmp(c, "besteffort", 10)))
		snprintf(l->qos_class, sizeof(l->qos_class), "besteffort");
}

void cgroup_labels_parse(const char *path, struct cgroup_labels *l)
{
	bool kube = false, docker_dir = false;

	memset(l, 0, sizeof(*l));
	for (const char *c = path; *c;) {
		size_t len = strcspn(c, "/");

		if (len) {
			if (ends_with(c, len, ".service") || ends_with(c, len, ".scope"))
				snprintf(l->unit, sizeof(l->unit), "%.*s", (int)len, c);
			if (starts_with(c, len, "kubepods"))
				kube = true;
			if (kube) {
				qos(c, len, l);
				pod(c, len, l);
			}
			if (!scoped_container(c, len, "docker-", "docker", l) &&
			    !scoped_container(c, len, "cri-containerd-", "containerd", l) &&
			    !scoped_container(c, len, "crio-", "cri-o", l) &&
			    !scoped_container(c, len, "libpod-", "podman", l) &&
			    is_container_id(c, len)) {
				/* cgroupfs drivers: the bare id, below /docker or a pod. */
				snprintf(l->container_id, sizeof(l->container_id), "%.*s", (int)len,
					 c);
				if (docker_dir)
					snprintf(l->runtime, sizeof(l->runtime), "docker");
			}
			docker_dir = len == 6 && strncmp(c, "docker", 6) == 0;
		}
		c += len;
		if (*c == '/')
			c++;
	}
	/* A pod directly under kubepods, in no QoS slice, is a guaranteed one. */
	if (l->pod_uid[0] && !l->qos_class[0])
		snprintf(l->qos_class, sizeof(l->qos_class), "guaranteed");
}
