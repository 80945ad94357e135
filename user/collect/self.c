// SPDX-License-Identifier: GPL-2.0
/* foliostat's own cost (see self.h). */
#include "self.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "files.h"  /* (before the skeleton: files.h's types, */
#include "loader.h" /* and foliostat.h's) */
#include "foliostat.skel.h"

int self_start(void)
{
	/* The kernel counts run time only while some process holds this file open. */
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	return fd < 0 ? -errno : fd;
}

/*
 * Resident memory now, less the BPF maps mapped into the loader (the tables it reads in place):
 * those are kernel memory, counted once in the maps' own memlock, and resident in full from the
 * moment they are mapped. (The peak, ru_maxrss, is set by the one-time parsing of kernel BTF at
 * start-up and says nothing about steady operation.)
 */
static long resident_kib(void)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	long total = 0, mapped_maps = 0, kib;
	unsigned long start, end;
	bool in_map = false;
	char line[512];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2) {
			in_map = strstr(line, " anon_inode:bpf-map") != NULL;
		} else if (sscanf(line, "Rss: %ld kB", &kib) == 1) {
			total += kib;
			if (in_map)
				mapped_maps += kib;
		}
	}
	fclose(f);
	return total - mapped_maps;
}

/* The loader's user + system time so far. */
static double cpu_seconds(void)
{
	struct rusage usage;

	if (getrusage(RUSAGE_SELF, &usage))
		return 0;
	return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec +
	       usage.ru_stime.tv_usec / 1e6;
}

void self_read(const struct loader *loader, struct self_cost *now)
{
	memset(now, 0, sizeof(*now));
	for (int i = 0; i < NR_PROBES && i < FS_MAX_PROBES; i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd;

		if (!loader->probes[i].attached)
			continue;
		fd = bpf_program__fd(loader->programs[i]);
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		now->events[i] = info.run_cnt;
		now->run_ns[i] = info.run_time_ns;
		now->misses[i] = info.recursion_misses;
	}
	now->loader_cpu_s = cpu_seconds();
	now->loader_rss_kib = resident_kib();
	bounds_read(now->bounds);
}

void self_baseline(struct self_cost *before)
{
	memset(before, 0, sizeof(*before));
	before->loader_cpu_s = cpu_seconds();
	/* (evictions before the first window, at start-up, are the first window's) */
}

void self_delta(const struct self_cost *before, const struct self_cost *now, struct self_cost *out)
{
	for (int i = 0; i < FS_MAX_PROBES; i++) {
		out->events[i] = now->events[i] - before->events[i];
		out->run_ns[i] = now->run_ns[i] - before->run_ns[i];
		out->misses[i] = now->misses[i] - before->misses[i];
	}
	out->loader_cpu_s = now->loader_cpu_s - before->loader_cpu_s;
	out->loader_rss_kib = now->loader_rss_kib;
	for (int b = 0; b < FS_NR_BOUNDS; b++) {
		out->bounds[b] = now->bounds[b];
		out->bounds[b].evictions = now->bounds[b].evictions - before->bounds[b].evictions;
	}
}

void self_accumulate(struct self_cost *acc, const struct self_cost *add)
{
	for (int i = 0; i < FS_MAX_PROBES; i++) {
		acc->events[i] += add->events[i];
		acc->run_ns[i] += add->run_ns[i];
		acc->misses[i] += add->misses[i];
	}
	acc->loader_cpu_s += add->loader_cpu_s;
	acc->loader_rss_kib = add->loader_rss_kib;
	for (int b = 0; b < FS_NR_BOUNDS; b++) {
		acc->bounds[b].limit = add->bounds[b].limit;
		acc->bounds[b].entries = add->bounds[b].entries;
		acc->bounds[b].evictions += add->bounds[b].evictions;
	}
}

void self_stop(struct loader *loader)
{
	if (loader->stats_fd > 0)
		close(loader->stats_fd);
	loader->stats_fd = 0;
}
