// SPDX-License-Identifier: GPL-2.0
/* Finding cgroups by path (see cgroups.h). */
#include "cgroups.h"
#include "mountinfo.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

int cgroup2_mount(char *mount, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	int ret;

	if (!f)
		return -errno;
	ret = cgroup2_mount_in(f, mount, len);
	fclose(f);
	return ret;
}

int cgroup2_mount_in(FILE *f, char *mount, size_t len)
{
	char *line = NULL;
	size_t cap = 0;
	int ret = -ENOENT;

	while (ret && getline(&line, &cap, f) > 0) {
		/* id parent dev root MOUNTPOINT options [optional...] - FSTYPE source ... */
		char *save, *field = strtok_r(line, " ", &save), *point = NULL;
		bool after_dash = false;

		for (int i = 0; field; i++, field = strtok_r(NULL, " ", &save)) {
			if (i == 4)
				point = field;
			else if (after_dash) {
				if (strcmp(field, "cgroup2") == 0 && point) {
					mountinfo_unescape(point);
					snprintf(mount, len, "%s", point);
					ret = 0;
				}
				break;
			} else if (i > 5 && strcmp(field, "-") == 0)
				after_dash = true;
		}
	}
	free(line);
	return ret;
}

bool cgroup2_is_root(const char *mount)
{
	char type[PATH_MAX];
	struct statfs fs;

	if (!mount[0] || statfs(mount, &fs) || fs.f_type != CGROUP2_SUPER_MAGIC)
		return false;
	/* Every cgroup has a cgroup.type but the root, a namespace's root too. */
	snprintf(type, sizeof(type), "%s/cgroup.type", mount);
	return access(type, F_OK) && errno == ENOENT;
}

void cgroup_v2_line_init(struct cgroup_v2_line *l, char *path, size_t size)
{
	*l = (struct cgroup_v2_line){.path = path, .size = size};
}

bool cgroup_v2_line_feed(struct cgroup_v2_line *l, const char *block, size_t n)
{
	static const char v2[] = "0::/";

	for (size_t i = 0; i < n && !l->found; i++) {
		char c = block[i];

		if (c == '\n') {
			l->found = l->in_v2 && l->at_line >= sizeof(v2) - 1;
			l->at_line = 0;
			l->in_v2 = false;
			continue;
		}
		if (l->at_line < sizeof(v2) - 1) {
			l->in_v2 = c == v2[l->at_line] && (l->at_line == 0 || l->in_v2);
			if (l->in_v2 && l->at_line == sizeof(v2) - 2)
				l->copied = 0; /* (the '/' that begins the path is copied below) */
		}
		if (l->at_line >= sizeof(v2) - 2 && l->in_v2) {
			if (c && l->copied + 1 < l->size) {
				l->path[l->copied++] = c;
			} else {
				/* too long (or a NUL, which no name holds): no name rather than
				 * a cut one */
				l->in_v2 = false;
			}
		}
		l->at_line++;
	}
	return l->found;
}

int cgroup_v2_line_end(struct cgroup_v2_line *l)
{
	/* (a last line without its newline is whole too) */
	if (!l->found && !(l->in_v2 && l->at_line >= 4))
		return -1;
	if (!l->size)
		return -1;
	l->path[l->copied] = '\0';
	return 0;
}

int proc_cgroup_v2_path(const char *text, size_t len, char *path, size_t size)
{
	struct cgroup_v2_line l;

	cgroup_v2_line_init(&l, path, size);
	cgroup_v2_line_feed(&l, text, len);
	return cgroup_v2_line_end(&l);
}

/* `path` resolved, if it is `mount` or below it: the part below (maybe ""), else NULL. */
static const char *below(const char *path, const char *mount)
{
	size_t n = strlen(mount);

	if (strcmp(mount, "/") == 0)
		return path + 1;
	if (strncmp(path, mount, n) == 0 && (path[n] == '/' || path[n] == '\0'))
		return path[n] ? path + n + 1 : path + n;
	return NULL;
}

int cgroup_resolve(const char *mount, const char *path, struct fs_cgroup_ref *ref, char *err,
		   size_t err_len)
{
	char real_mount[PATH_MAX], as_given[PATH_MAX], joined[PATH_MAX], inside[2 * PATH_MAX + 2];
	const char *rel = NULL, *dir = NULL;
	bool exists_elsewhere = false;
	struct statfs fs;
	struct stat st;

	if (!realpath(mount, real_mount))
		snprintf(real_mount, sizeof(real_mount), "%s", mount);
	/* A directory of the hierarchy, as given; else a path below the mount. */
	if (realpath(path, as_given)) {
		rel = below(as_given, real_mount);
		dir = rel ? as_given : NULL;
		exists_elsewhere = !rel;
	}
	if (!dir) {
		snprintf(inside, sizeof(inside), "%s/%s", real_mount, path);
		if (realpath(inside, joined) && (rel = below(joined, real_mount)))
			dir = joined;
	}
	if (!dir) {
		snprintf(err, err_len,
			 exists_elsewhere ? "invalid --cgroup '%s': not a cgroup2 directory (the "
					    "cgroup v2 hierarchy is mounted at %s)"
					  : "invalid --cgroup '%s': no such cgroup (the cgroup v2 "
					    "hierarchy is mounted at %s)",
			 path, real_mount);
		return -1;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode) || statfs(dir, &fs) ||
	    fs.f_type != CGROUP2_SUPER_MAGIC) {
		snprintf(err, err_len, "invalid --cgroup '%s': not a cgroup2 directory", path);
		return -1;
	}
	/* A cgroup's id is its directory's inode number; its level, its depth below the root. */
	ref->id = st.st_ino;
	ref->level = 0;
	for (const char *p = rel; *p; p++)
		ref->level += (p == rel || p[-1] == '/') && *p != '/';
	return 0;
}
