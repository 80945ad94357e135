// SPDX-License-Identifier: GPL-2.0
/* Memory nodes and the node of each allocation (see nodes.h). */
#include "nodes.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <bpf/btf.h>

#include "files.h"
#include "foliostat.skel.h"
#include "perf_events.h"

/* The kernel's largest MAX_NUMNODES (NODES_SHIFT of 10). */
#define MAX_NODE_NUMBERS 1024
/* <linux/mempolicy.h>'s, not in every libc's headers */
#define MPOL_PREFERRED_MODE 1
#define MPOL_F_NODE_FLAG 1
#define MPOL_F_ADDR_FLAG 2

int memory_nodes_parse(struct memory_nodes *n, const char *text)
{
	static bool listed[MAX_NODE_NUMBERS];

	n->nr = 0;
	if (parse_cpu_list(text, listed, MAX_NODE_NUMBERS)) {
		snprintf(n->why, sizeof(n->why), "the kernel's list of nodes with memory is not a "
						 "list foliostat reads");
		return -EINVAL;
	}
	for (int id = 0; id < MAX_NODE_NUMBERS; id++) {
		if (!listed[id])
			continue;
		if (id >= FS_MAX_NODES) {
			snprintf(n->why, sizeof(n->why),
				 "node %d has memory: foliostat counts per node up to node %d", id,
				 FS_MAX_NODES - 1);
			return -E2BIG;
		}
		n->ids[n->nr++] = id;
	}
	if (!n->nr) {
		snprintf(n->why, sizeof(n->why), "the kernel lists no node with memory");
		return -EINVAL;
	}
	return 0;
}

/* The number of elements of array member `member` of struct `name`, or -1. */
static long member_elements(const struct btf *btf, const char *name, const char *member)
{
	__s32 id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(btf, id);
	const struct btf_member *m = t ? btf_members(t) : NULL;

	for (int i = 0; m && i < btf_vlen(t); i++, m++) {
		const struct btf_type *mt = btf__type_by_id(btf, m->type);

		if (strcmp(btf__name_by_offset(btf, m->name_off), member) == 0)
			return mt && btf_is_array(mt) ? (long)btf_array(mt)->nelems : -1;
	}
	return -1;
}

static long enum_value(const struct btf *btf, const char *type, const char *name)
{
	__s32 id = btf__find_by_name_kind(btf, type, BTF_KIND_ENUM);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(btf, id);
	const struct btf_enum *e = t ? btf_enum(t) : NULL;

	for (int i = 0; e && i < btf_vlen(t); i++, e++)
		if (strcmp(btf__name_by_offset(btf, e->name_off), name) == 0)
			return e->val;
	return -1;
}

int node_shift_from_btf(const struct btf *vmlinux)
{
	long refs = member_elements(vmlinux, "zonelist", "_zonerefs");
	long zones = enum_value(vmlinux, "zone_type", "__MAX_NR_ZONES");
	long numnodes, shift = 0;

	if (refs < 2 || zones < 1 || (refs - 1) % zones)
		return -ENOENT;
	numnodes = (refs - 1) / zones;
	while ((1L << shift) < numnodes)
		shift++;
	if ((1L << shift) != numnodes || shift > 16)
		return -EINVAL;
	return (int)(64 - shift);
}

void memory_nodes_learn(struct memory_nodes *n, const struct btf *vmlinux, bool force)
{
	char text[4096] = "0"; /* no such file: a kernel without NUMA, all memory on node 0 */
	FILE *f = fopen("/sys/devices/system/node/has_memory", "re");
	int shift;

	memset(n, 0, sizeof(*n));
	if (f) {
		text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
		fclose(f);
	}
	if (memory_nodes_parse(n, text))
		return;
	if (n->nr == 1 && !force) {
		n->known = true;
		return;
	}
	shift = node_shift_from_btf(vmlinux);
	if (shift < 0 || sizeof(long) != 8) {
		snprintf(n->why, sizeof(n->why),
			 "kernel BTF does not say how many bits of page flags hold the node");
		return;
	}
	n->shift = shift;
}

bool memory_nodes_to_count(const struct memory_nodes *n)
{
	return n->shift > 0;
}

/*
 * A page of ours, preferring `node` (a preference, never a binding: a node without free memory
 * must not wake the OOM killer for foliostat's start-up), written; the node the kernel says it
 * is on (get_mempolicy) in *placed, the node its flags give in *seen (-1: no allocation seen).
 * Returns 0 or a negative errno.
 */
static int place_own_page(struct foliostat_bpf *skel, int node, int shift, int *placed,
			  long *seen)
{
	long page_size = sysconf(_SC_PAGESIZE);
	unsigned long mask = 1UL << node;
	__u64 before = skel->bss->fs_calibration_seen;
	char *page;
	int ret = 0;

	page = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return -errno;
	if (syscall(SYS_mbind, page, page_size, MPOL_PREFERRED_MODE, &mask, sizeof(mask) * 8 + 1,
		    0)) {
		ret = -errno;
		goto out;
	}
	/* A write: a read would map the shared zero page, allocating nothing. The folio is the
	 * thread's last order-0 allocation (its page table comes first). */
	*(volatile char *)page = 1;
	*seen = skel->bss->fs_calibration_seen != before
		    ? (long)(skel->bss->fs_calibration_flags >> shift)
		    : -1;
	if (syscall(SYS_get_mempolicy, placed, NULL, 0, page, MPOL_F_NODE_FLAG | MPOL_F_ADDR_FLAG))
		ret = -errno;
out:
	munmap(page, page_size);
	return ret;
}

void memory_nodes_check(struct memory_nodes *n, struct foliostat_bpf *skel)
{
	n->checked = 0;
	for (int i = 0; i < n->nr; i++) {
		int placed = -1;
		long seen = -1;

		if (place_own_page(skel, n->ids[i], n->shift, &placed, &seen))
			continue;
		if (seen != placed) {
			snprintf(n->why, sizeof(n->why),
				 seen < 0 ? "no allocation was seen for a page on node %d"
					  : "a page on node %d had another node in its flags",
				 placed);
			n->checked = 0;
			break;
		}
		n->checked++;
	}
	if (n->checked) {
		n->counted = n->known = true;
		n->why[0] = '\0';
	} else if (!n->why[0]) {
		snprintf(n->why, sizeof(n->why), "no page of foliostat's could be placed for the check");
	}
}
