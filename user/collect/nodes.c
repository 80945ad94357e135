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
#define MPOL_BIND_MODE 2 /* <linux/mempolicy.h>'s MPOL_BIND, not in every libc's headers */

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
	char text[4096];
	FILE *f = fopen("/sys/devices/system/node/has_memory", "re");
	size_t len = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	int shift;

	memset(n, 0, sizeof(*n));
	if (f)
		fclose(f);
	text[len] = '\0';
	/* No such file: a kernel without NUMA, all memory on node 0. */
	if (memory_nodes_parse(n, f ? text : "0"))
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

/* Bind a page of ours to `node`, write it, and read the node its flags give: 0 with *seen, a
 * negative errno where the node refuses the binding. */
static int node_of_own_page(struct foliostat_bpf *skel, int node, int shift, long *seen)
{
	long page_size = sysconf(_SC_PAGESIZE);
	unsigned long mask = 1UL << node;
	__u64 before = skel->bss->fs_calibration_seen;
	char *page;
	int ret = 0;

	page = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return -errno;
	if (syscall(SYS_mbind, page, page_size, MPOL_BIND_MODE, &mask, sizeof(mask) * 8 + 1, 0)) {
		ret = -errno;
	} else {
		/* A write: a read would map the shared zero page, allocating nothing. The folio
		 * is the thread's last order-0 movable allocation (its page table comes first). */
		*(volatile char *)page = 1;
		*seen = skel->bss->fs_calibration_seen != before
			    ? (long)(skel->bss->fs_calibration_flags >> shift)
			    : -1;
	}
	munmap(page, page_size);
	return ret;
}

void memory_nodes_check(struct memory_nodes *n, struct foliostat_bpf *skel, __u32 own_tid)
{
	skel->bss->fs_calibration_tid = own_tid;
	n->checked = 0;
	for (int i = 0; i < n->nr; i++) {
		long seen = -1;

		if (node_of_own_page(skel, n->ids[i], n->shift, &seen))
			continue;
		if (seen != n->ids[i]) {
			snprintf(n->why, sizeof(n->why),
				 seen < 0 ? "no allocation was seen for a page bound to node %d"
					  : "a page bound to node %d had another node in its flags",
				 n->ids[i]);
			n->checked = 0;
			break;
		}
		n->checked++;
	}
	skel->bss->fs_calibration_tid = 0;
	if (n->checked) {
		n->counted = n->known = true;
		n->why[0] = '\0';
	} else if (!n->why[0]) {
		snprintf(n->why, sizeof(n->why), "no node took a page bound to it for the check");
	}
}
