/* SPDX-License-Identifier: GPL-2.0 */
/* Cgroup ids (what BPF records) to paths (what people read), as /proc/PID/cgroup writes them. */
#ifndef FS_CGROUP_NAMES_H
#define FS_CGROUP_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct cgroup_name;

struct cgroup_names {
	char mount[4096]; /* the cgroup2 mount; "" when the host has none */
	bool from_root; /* the mount is the hierarchy's root (cgroup2_is_root) */
	struct cgroup_name *names; /* sorted by id */
	size_t nr, cap;
	double scanned_at; /* monotonic seconds of the last walk of the hierarchy */
	__u64 newest; /* the highest id a walk found or was made for: ids only grow */
};

/* Find the hierarchy (nothing is read until a name is asked for). */
void cgroup_names_open(struct cgroup_names *n);

/*
 * The path of cgroup `id` below the mount ("/" for the root), or NULL when it is not known: a
 * cgroup removed before it was ever seen, or no cgroup2 here. An unknown id makes the hierarchy
 * be walked again: at once if it is above every id walked for so far (the kernel gives cgroups
 * ever larger ids, so it is a cgroup made since, which the walk names: each new cgroup costs one
 * walk at most), else at most once a second (an id below them is a cgroup removed before a walk
 * could see it, which no walk will find). So a new cgroup is named at once and removed ones cost
 * little. A removed cgroup keeps its name while it is asked for, and is forgotten at a walk an
 * hour after it was last asked for (memory stays bounded by the live and recent cgroups).
 */
const char *cgroup_name(struct cgroup_names *n, __u64 id);

/* The path cgroup_name() has found for `id`, or NULL, without looking further: what renderers
 * print. Names are resolved when a record is made (the collector asks for every row's), never
 * while it is printed. */
const char *cgroup_name_known(const struct cgroup_names *n, __u64 id);

void cgroup_names_close(struct cgroup_names *n);

#endif /* FS_CGROUP_NAMES_H */
