// SPDX-License-Identifier: GPL-2.0
/* Reading and differencing the kernel's THP counters (see kernel_counters.h). */
#include "kernel_counters.h"

#include "array.h"

#include <dirent.h>
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

static int read_vmstat(struct kernel_counters *kc)
{
	FILE *f = fopen("/proc/vmstat", "r");
	char name[64], full[80];
	unsigned long long value;
	int err = 0;

	if (!f)
		return 0;
	while (!err && fscanf(f, "%63s %llu", name, &value) == 2) {
		if (strncmp(name, "thp_", 4) != 0)
			continue;
		snprintf(full, sizeof(full), "vmstat/%s", name);
		err = push(kc, full, value);
	}
	fclose(f);
	return err;
}

/* hugepages-64kB/stats/anon_fault_alloc -> mthp/64kB/anon_fault_alloc */
static int read_mthp_size(struct kernel_counters *kc, const char *dir_name)
{
	char path[512], full[80];
	const char *size = dir_name + strlen("hugepages-");
	struct dirent *stat;
	DIR *stats;
	int err = 0;

	snprintf(path, sizeof(path), THP_SYSFS "/%s/stats", dir_name);
	stats = opendir(path);
	if (!stats)
		return 0;
	while (!err && (stat = readdir(stats))) {
		unsigned long long value;
		FILE *f;

		if (stat->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), THP_SYSFS "/%s/stats/%s", dir_name, stat->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		/* Names longer than the slot are not real counters of today's kernels. */
		if (fscanf(f, "%llu", &value) == 1 &&
		    snprintf(full, sizeof(full), "mthp/%.16s/%.56s", size, stat->d_name) <
			(int)sizeof(full))
			err = push(kc, full, value);
		fclose(f);
	}
	closedir(stats);
	return err;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(((const struct kernel_counter *)a)->name,
		      ((const struct kernel_counter *)b)->name);
}

int kernel_counters_read(struct kernel_counters *kc)
{
	struct dirent *entry;
	DIR *thp;
	int err;

	kc->nr = 0;
	err = read_vmstat(kc);
	thp = opendir(THP_SYSFS);
	while (!err && thp && (entry = readdir(thp)))
		if (strncmp(entry->d_name, "hugepages-", 10) == 0)
			err = read_mthp_size(kc, entry->d_name);
	if (thp)
		closedir(thp);
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
