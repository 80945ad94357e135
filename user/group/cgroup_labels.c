// SPDX-License-Identifier: GPL-2.0
/*
 * Labels from cgroup paths (see cgroup_labels.h).
 *
 * A path is read from the hierarchy's root, one directory at a time, for as long as it follows
 * a layout that systemd, the kubelet or a container runtime makes; the first directory that
 * does not, and all below it, add nothing. Only root can make a directory where these layouts
 * live (the root's children, a slice's children). Below a service, a scope or a container, whoever
 * the unit or the container delegates to names directories as it likes: nothing there is read,
 * so `.../user@1000.service/kubepods/burstable/pod<uid>/<id>` borrows no pod's labels and
 * `/x/sshd.service` is no unit of systemd's.
 */
#include "cgroup_labels.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* A directory's name within a path (not terminated). */
struct name {
	const char *at;
	size_t len;
};

/* The next directory name of `*rest`, moving past it; false at the end of the path. */
static bool next_name(const char **rest, struct name *n)
{
	while (**rest == '/')
		(*rest)++;
	if (!**rest)
		return false;
	n->at = *rest;
	n->len = strcspn(*rest, "/");
	*rest += n->len;
	return true;
}

static bool is(struct name n, const char *s)
{
	return n.len == strlen(s) && strncmp(n.at, s, n.len) == 0;
}

static bool has_prefix(struct name n, const char *prefix)
{
	return n.len >= strlen(prefix) && strncmp(n.at, prefix, strlen(prefix)) == 0;
}

/* `suffix` ends `n`, after something: ".service" alone names no unit. */
static bool has_suffix(struct name n, const char *suffix)
{
	size_t len = strlen(suffix);

	return n.len > len && strncmp(n.at + n.len - len, suffix, len) == 0;
}

static void set(char *field, size_t size, struct name n)
{
	snprintf(field, size, "%.*s", (int)n.len, n.at);
}

/* A container id as Docker, containerd, CRI-O and podman make them: 64 hex digits. */
static bool is_container_id(const char *s, size_t len)
{
	if (len != 64)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* `<prefix><id><suffix>`: a runtime's container cgroup, its id and runtime into l. */
static bool container(struct name n, const char *prefix, const char *suffix, const char *runtime,
		      struct cgroup_labels *l)
{
	size_t p = strlen(prefix), s = strlen(suffix);

	if (n.len < p + s || !has_prefix(n, prefix) || strncmp(n.at + n.len - s, suffix, s) != 0 ||
	    !is_container_id(n.at + p, n.len - p - s))
		return false;
	set(l->container_id, sizeof(l->container_id), (struct name){n.at + p, n.len - p - s});
	snprintf(l->runtime, sizeof(l->runtime), "%s", runtime);
	return true;
}

/* The scopes the runtimes' systemd drivers make for a container, in a slice of the system's. */
static void container_scope(struct name n, struct cgroup_labels *l)
{
	static const struct {
		const char *prefix, *runtime;
	} scopes[] = {
	    {"docker-", "docker"},
	    {"cri-containerd-", "containerd"},
	    {"crio-", "cri-o"},
	    {"libpod-", "podman"},
	};

	for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++)
		if (container(n, scopes[i].prefix, ".scope", scopes[i].runtime, l))
			return;
}

/* How far into the kubelet's layout a path has come. */
enum kube_level { NOT_KUBE, KUBEPODS, KUBE_QOS, KUBE_POD, KUBE_OTHER };

/* "pod<uid>", a pod's UID as the kubelet writes it: with `dash` for '-' (systemd keeps '-' for
 * slices' nesting, so its driver writes '_'). */
static bool pod(struct name w, char dash, struct cgroup_labels *l)
{
	size_t n;

	if (!has_prefix(w, "pod") || (n = w.len - 3) == 0 || n >= sizeof(l->pod_uid))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)w.at[3 + i]) && w.at[3 + i] != dash)
			return false;
	for (size_t i = 0; i < n; i++)
		l->pod_uid[i] = w.at[3 + i] == dash ? '-' : w.at[3 + i];
	l->pod_uid[n] = '\0';
	/* A pod directly under kubepods, in no QoS level's, is a guaranteed one. */
	if (!l->qos_class[0])
		snprintf(l->qos_class, sizeof(l->qos_class), "guaranteed");
	return true;
}

/*
 * One step down the kubelet's layout: kubepods, then a QoS level (burstable, besteffort; none
 * for guaranteed), then pod<uid>. `w` is a cgroupfs directory's name, or what a slice adds to
 * its parent's name (kubepods-burstable.slice: "burstable").
 */
static enum kube_level kube_step(enum kube_level at, struct name w, char dash,
				 struct cgroup_labels *l)
{
	switch (at) {
	case NOT_KUBE:
		return is(w, "kubepods") ? KUBEPODS : NOT_KUBE;
	case KUBEPODS:
		if (is(w, "burstable") || is(w, "besteffort")) {
			set(l->qos_class, sizeof(l->qos_class), w);
			return KUBE_QOS;
		}
		return pod(w, dash, l) ? KUBE_POD : KUBE_OTHER; /* a guaranteed pod */
	case KUBE_QOS:
		return pod(w, dash, l) ? KUBE_POD : KUBE_OTHER;
	default:
		return KUBE_OTHER;
	}
}

/*
 * What a slice's name adds to its parent's: systemd puts a.slice at the root and a-b.slice in
 * a.slice (a '-' in a name of the user's is escaped, \x2d). `parent` is the parent slice's name
 * without ".slice", empty at the root. A slice laid out otherwise is none of systemd's: len 0.
 */
static struct name slice_word(struct name slice, struct name parent)
{
	struct name w = {slice.at, slice.len - strlen(".slice")}, none = {NULL, 0};

	if (parent.len) {
		if (w.len <= parent.len + 1 || strncmp(w.at, parent.at, parent.len) != 0 ||
		    w.at[parent.len] != '-')
			return none;
		w.at += parent.len + 1;
		w.len -= parent.len + 1;
	}
	return w.len && !memchr(w.at, '-', w.len) ? w : none;
}

/*
 * systemd's layout: slices nested as their names say, then a service or a scope, which owns
 * all below it and is the unit. In user.slice, slices and units are users' sessions and managers
 * (user@UID.service, whose subtree is the user's own): they give the unit, never a container or
 * a pod.
 */
static void systemd_layout(const char *path, struct cgroup_labels *l)
{
	struct name n, word, parent = {NULL, 0};
	enum kube_level kube = NOT_KUBE;
	bool users = false;

	while (next_name(&path, &n)) {
		if (has_suffix(n, ".slice")) {
			word = slice_word(n, parent);
			if (!word.len)
				return;
			/* (a slice is no unit label: its services and scopes are, as ever) */
			if (!parent.len && is(word, "user"))
				users = true;
			else if (!users)
				kube = kube_step(kube, word, '_', l);
			parent = (struct name){n.at, n.len - strlen(".slice")};
			continue;
		}
		if (has_suffix(n, ".service") || has_suffix(n, ".scope")) {
			set(l->unit, sizeof(l->unit), n);
			if (!users)
				container_scope(n, l);
		}
		return;
	}
}

/*
 * The cgroupfs drivers' layouts, from the root: the kubelet's /kubepods[/QOS]/pod<uid>/<id>
 * (crio-<id> for CRI-O), Docker's /docker/<id>, podman's /libpod_parent/libpod-<id> and
 * containerd's own /default/<id> (its default namespace, as ctr and nerdctl use it).
 */
static void cgroupfs_layout(const char *path, struct cgroup_labels *l)
{
	enum kube_level kube = KUBEPODS;
	struct name top, n;

	if (!next_name(&path, &top) || !next_name(&path, &n))
		return;
	if (is(top, "docker"))
		container(n, "", "", "docker", l);
	else if (is(top, "libpod_parent"))
		container(n, "libpod-", "", "podman", l);
	else if (is(top, "default"))
		container(n, "", "", "containerd", l);
	if (!is(top, "kubepods"))
		return;
	while ((kube = kube_step(kube, n, '-', l)) == KUBE_QOS)
		if (!next_name(&path, &n))
			return;
	if (kube == KUBE_POD && next_name(&path, &n) && !container(n, "crio-", "", "cri-o", l))
		container(n, "", "", "", l); /* containerd's or cri-dockerd's: not told apart */
}

void cgroup_labels_parse(const char *path, struct cgroup_labels *l)
{
	const char *rest = path;
	struct name top;

	memset(l, 0, sizeof(*l));
	if (!next_name(&rest, &top))
		return;
	if (has_suffix(top, ".slice") || has_suffix(top, ".service") || has_suffix(top, ".scope"))
		systemd_layout(path, l);
	else
		cgroupfs_layout(path, l);
}
