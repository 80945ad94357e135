// SPDX-License-Identifier: GPL-2.0
/* Reading and differencing the kernel's THP counters (see kernel_counters.h). */
#include "kernel_counters.h"

#include "array.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdbool.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THP_SYSFS "/sys/kernel/mm/transparent_hugepage"

static int push(struct kernel_counters *kc, const char *name, __u64 value)
{
	if (array_reserve_one(&kc->items, &kc->cap, kc->nr, sizeof(*kc->items)))
		return -ENOMEM;
	snprintf(kc->items[kc->nr].name, sizeof(kc->items[0].name), "%s", name);
	kc->items[kc->nr].value = value;
	kc->nr++;
	return 0;
}

/* The whole of a small file, from its start, NUL-terminated. Returns its length or -1. */
static ssize_t read_whole(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t got;

	while (len < size - 1 && (got = pread(fd, buf + len, size - 1 - len, len)) > 0)
		len += got;
	buf[len] = '\0';
	return got < 0 ? -1 : (ssize_t)len;
}

static int read_vmstat(int fd, struct kernel_counters *kc)
{
	static char text[64 * 1024]; /* /proc/vmstat is under 8 KiB today */
	char name[64], full[80];
	unsigned long long value;
	int used, err = 0;

	if (fd < 0 || read_whole(fd, text, sizeof(text)) < 0)
		return 0;
	for (const char *at = text; !err && sscanf(at, "%63s %llu%n", name, &value, &used) == 2;
	     at += used) {
		if (strncmp(name, "thp_", 4) != 0)
			continue;
		snprintf(full, sizeof(full), "vmstat/%s", name);
		err = push(kc, full, value);
	}
	return err;
}

/* hugepages-64kB/stats/anon_fault_alloc -> mthp/64kB/anon_fault_alloc */
static int open_mthp_size(struct kernel_counter_files *files, const char *dir_name)
{
	char path[512];
	const char *size = dir_name + strlen("hugepages-");
	struct dirent *stat;
	DIR *stats;
	int err = 0;

	snprintf(path, sizeof(path), THP_SYSFS "/%s/stats", dir_name);
	stats = opendir(path);
	if (!stats)
		return 0;
	while (!err && (stat = readdir(stats))) {
		struct kernel_counter_file *file;
		int fd;

		if (stat->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), THP_SYSFS "/%s/stats/%s", dir_name, stat->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (array_reserve_one(&files->mthp, &files->cap_mthp, files->nr_mthp,
				      sizeof(*files->mthp))) {
			close(fd);
			err = -ENOMEM;
			break;
		}
		file = &files->mthp[files->nr_mthp];
		/* Names longer than the slot are not real counters of today's kernels. */
		if (snprintf(file->name, sizeof(file->name), "mthp/%.16s/%.56s", size,
			     stat->d_name) >= (int)sizeof(file->name)) {
			close(fd);
			continue;
		}
		file->fd = fd;
		files->nr_mthp++;
	}
	closedir(stats);
	return err;
}

int kernel_counter_files_open(struct kernel_counter_files *files)
{
	struct dirent *entry;
	DIR *thp;
	int err = 0;

	memset(files, 0, sizeof(*files));
	files->vmstat_fd = open("/proc/vmstat", O_RDONLY | O_CLOEXEC);
	thp = opendir(THP_SYSFS);
	while (!err && thp && (entry = readdir(thp)))
		if (strncmp(entry->d_name, "hugepages-", 10) == 0)
			err = open_mthp_size(files, entry->d_name);
	if (thp)
		closedir(thp);
	if (err)
		kernel_counter_files_close(files);
	return err;
}

void kernel_counter_files_close(struct kernel_counter_files *files)
{
	if (files->vmstat_fd >= 0)
		close(files->vmstat_fd);
	for (size_t i = 0; i < files->nr_mthp; i++)
		close(files->mthp[i].fd);
	free(files->mthp);
	memset(files, 0, sizeof(*files));
	files->vmstat_fd = -1;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(((const struct kernel_counter *)a)->name,
		      ((const struct kernel_counter *)b)->name);
}

int kernel_counters_read(const struct kernel_counter_files *files, struct kernel_counters *kc)
{
	int err;

	kc->nr = 0;
	err = read_vmstat(files->vmstat_fd, kc);
	for (size_t i = 0; !err && i < files->nr_mthp; i++) {
		char text[32];
		char *end;
		unsigned long long value;

		if (read_whole(files->mthp[i].fd, text, sizeof(text)) <= 0)
			continue;
		value = strtoull(text, &end, 10);
		if (end != text)
			err = push(kc, files->mthp[i].name, value);
	}
	qsort(kc->items, kc->nr, sizeof(*kc->items), compare_names);
	return err;
}

int kernel_counters_delta(const struct kernel_counters *before, const struct kernel_counters *now,
			  struct kernel_counters *out)
{
	int err = 0;

	out->nr = 0;
	for (size_t i = 0; !err && i < now->nr; i++) {
		const struct kernel_counter *then =
		    bsearch(&now->items[i], before->items, before->nr, sizeof(now->items[0]),
			    compare_names);

		err = push(out, now->items[i].name, now->items[i].value - (then ? then->value : 0));
	}
	return err;
}

int kernel_counters_accumulate(struct kernel_counters *acc, const struct kernel_counters *add)
{
	size_t sorted = acc->nr; /* names pushed below go after these, unsorted until the end */
	int err = 0;
	bool added = false;

	for (size_t i = 0; !err && i < add->nr; i++) {
		struct kernel_counter *mine = bsearch(&add->items[i], acc->items, sorted,
						      sizeof(acc->items[0]), compare_names);

		if (mine) {
			mine->value += add->items[i].value;
		} else {
			err = push(acc, add->items[i].name, add->items[i].value);
			added = true;
		}
	}
	if (added)
		qsort(acc->items, acc->nr, sizeof(*acc->items), compare_names);
	return err;
}

void kernel_counters_free(struct kernel_counters *kc)
{
	free(kc->items);
	memset(kc, 0, sizeof(*kc));
}
