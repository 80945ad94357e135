// SPDX-License-Identifier: GPL-2.0
/* Free memory by block size, per node and zone (see free_blocks.h). */
#include "free_blocks.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"

/* Both files are read whole (proc_text.h) into one buffer, kept for the run: a buffer
 * allocated at each sample would be mapped and faulted in anew. */

static struct free_zone *find_zone(struct free_blocks *f, int node, const char *name)
{
	for (size_t i = 0; i < f->nr_zones; i++)
		if (f->zones[i].node == node && !strcmp(f->zones[i].name, name))
			return &f->zones[i];
	return NULL;
}

/* The zone named so, kept in the order the kernel lists zones; added if new. NULL with *err
 * set: more than FS_MAX_ZONES (-E2BIG), or no memory. */
static struct free_zone *zone_of(struct free_blocks *f, int node, const char *name, int *err)
{
	struct free_zone *z = find_zone(f, node, name);

	if (z)
		return z;
	if (f->nr_zones == FS_MAX_ZONES) {
		*err = -E2BIG;
		return NULL;
	}
	if ((*err = array_reserve_one(&f->zones, &f->zones_cap, f->nr_zones, sizeof(*z))))
		return NULL;
	z = &f->zones[f->nr_zones++];
	memset(z, 0, sizeof(*z));
	z->node = node;
	snprintf(z->name, sizeof(z->name), "%s", name);
	for (int o = 0; o < FS_NR_ORDERS; o++)
		z->fewest[o] = ~0ULL; /* (none seen yet) */
	return z;
}

/* Counts after `p`, one per order, into counts: how many (at most FS_NR_ORDERS). */
static int parse_counts(const char *p, __u64 counts[FS_NR_ORDERS])
{
	int n = 0;

	while (n < FS_NR_ORDERS) {
		char *end;
		unsigned long long v;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			break;
		v = strtoull(p, &end, 10);
		counts[n++] = v;
		p = end;
	}
	return n;
}

int free_blocks_parse_buddyinfo(struct free_blocks *f, const char *text)
{
	const char *line = text;
	int orders = 0;

	/* "Node 0, zone   Normal  12313   7561 ...": counts of order 0, 1, ... */
	for (; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		char name[FS_ZONE_NAME_LEN];
		__u64 counts[FS_NR_ORDERS] = {0};
		struct free_zone *z;
		int node, used, n, err;

		if (sscanf(line, "Node %d, zone %15s%n", &node, name, &used) != 2)
			continue;
		n = parse_counts(line + used, counts);
		if (!n || (orders && n != orders))
			return -EINVAL;
		orders = n;
		if (!(z = zone_of(f, node, name, &err)))
			return err;
		memcpy(z->blocks, counts, sizeof(counts));
		for (int o = 0; o < n; o++)
			if (counts[o] < z->fewest[o])
				z->fewest[o] = counts[o];
	}
	if (!orders)
		return -EINVAL;
	f->nr_orders = orders;
	for (size_t i = 0; i < f->nr_zones; i++)
		for (int o = 0; o < orders; o++) {
			double unusable = free_zone_unusable(&f->zones[i], orders, o);

			if (unusable > f->zones[i].most_unusable[o])
				f->zones[i].most_unusable[o] = unusable;
		}
	return 0;
}

int free_blocks_parse_pagetypeinfo(struct free_blocks *f, const char *text)
{
	const char *line = text;
	size_t nr_types = 0;

	/* "Node    0, zone   Normal, type    Movable   6981   2915 ...": the free blocks' counts
	 * by migrate type (the "Number of blocks type" table after them has no "type" field). */
	for (; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		char name[FS_ZONE_NAME_LEN], type[FS_MIGRATE_TYPE_LEN];
		__u64 counts[FS_NR_ORDERS] = {0};
		struct free_zone *z;
		size_t t;
		int node, used;

		if (sscanf(line, "Node %d, zone %15[^, ], type %19s%n", &node, name, type, &used) !=
		    3)
			continue;
		for (t = 0; t < nr_types && strcmp(f->types[t], type); t++)
			;
		if (t == nr_types) {
			if (nr_types == FS_MAX_MIGRATE_TYPES)
				return -E2BIG;
			snprintf(f->types[nr_types++], sizeof(f->types[0]), "%s", type);
		}
		if (!parse_counts(line + used, counts))
			return -EINVAL;
		/* (a zone buddyinfo does not list has no counts to go beside) */
		if ((z = find_zone(f, node, name)))
			memcpy(z->by_type[t], counts, sizeof(counts));
	}
	if (!nr_types)
		return -EINVAL;
	f->nr_types = nr_types;
	return 0;
}

int free_blocks_sample(struct free_blocks *f, bool by_type, double now)
{
	int err;

	err = proc_text_read(&f->text, f->buddyinfo_fd, FS_FREE_TEXT_MAX);
	if (!err)
		err = free_blocks_parse_buddyinfo(f, f->text.text);
	if (!err) {
		f->samples++;
		f->read_at = now;
	}
	if (!err && by_type && f->pagetypeinfo_fd >= 0 &&
	    (!f->types_read_at || now - f->types_read_at >= FREE_BY_TYPE_PERIOD_S)) {
		/* (a failure here leaves the last reading: the counts by zone do not need it) */
		if (!proc_text_read(&f->text, f->pagetypeinfo_fd, FS_FREE_TEXT_MAX) &&
		    !free_blocks_parse_pagetypeinfo(f, f->text.text))
			f->types_read_at = now;
	}
	return err;
}

void free_blocks_window_begin(struct free_blocks *f)
{
	for (size_t i = 0; i < f->nr_zones; i++) {
		memcpy(f->zones[i].fewest, f->zones[i].blocks, sizeof(f->zones[i].fewest));
		for (int o = 0; o < f->nr_orders; o++)
			f->zones[i].most_unusable[o] =
			    free_zone_unusable(&f->zones[i], f->nr_orders, o);
	}
	f->samples = 0;
}

int free_blocks_open(struct free_blocks *f)
{
	int err;

	memset(f, 0, sizeof(*f));
	f->pagetypeinfo_fd = open("/proc/pagetypeinfo", O_RDONLY | O_CLOEXEC);
	f->buddyinfo_fd = open("/proc/buddyinfo", O_RDONLY | O_CLOEXEC);
	err = f->buddyinfo_fd < 0 ? -errno : 0;
	if (!err)
		err = free_blocks_sample(f, false, 0);
	if (err)
		free_blocks_close(f);
	return err;
}

void free_blocks_close(struct free_blocks *f)
{
	if (f->buddyinfo_fd >= 0)
		close(f->buddyinfo_fd);
	if (f->pagetypeinfo_fd >= 0)
		close(f->pagetypeinfo_fd);
	f->buddyinfo_fd = f->pagetypeinfo_fd = -1;
	proc_text_free(&f->text);
	free(f->zones);
	f->zones = NULL;
	f->nr_zones = f->zones_cap = 0;
}

__u64 free_zone_pages(const struct free_zone *z, int nr_orders)
{
	__u64 pages = 0;

	for (int o = 0; o < nr_orders; o++)
		pages += z->blocks[o] << o;
	return pages;
}

double free_zone_unusable(const struct free_zone *z, int nr_orders, int order)
{
	/* In doubles: pages beyond 64 bits (counts no kernel writes) must not wrap the share
	 * outside 0..1. Sums of the same terms, the smaller a part of the larger. */
	double unusable = 0, free = 0;

	for (int o = 0; o < nr_orders; o++) {
		double pages = (double)z->blocks[o] * (double)(1ULL << o);

		free += pages;
		if (o < order)
			unusable += pages;
	}
	return free ? unusable / free : 1;
}
