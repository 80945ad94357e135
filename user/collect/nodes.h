/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory nodes: which the host has, and how BPF tells the node of each folio it sees
 * allocated. The kernel keeps a page's node in the top NODES_SHIFT bits of its flags (on every
 * 64-bit kernel with a virtual memory map); the loader reads NODES_SHIFT from BTF and, before
 * any allocation is counted, checks it against a page it places on each node (mbind(2)). A
 * one-node host counts nothing per node: every allocation is on its node, so its figures are
 * the allocations' own.
 */
#ifndef FS_NODES_H
#define FS_NODES_H

#include <stdbool.h>
#include <linux/types.h>

#include "foliostat.h"

struct btf;
struct foliostat_bpf;

struct memory_nodes {
	int nr;		       /* nodes with memory */
	int ids[FS_MAX_NODES]; /* their numbers, ascending (the first nr) */
	int shift;	       /* where page flags keep the node: 64 - NODES_SHIFT; 0: unknown */
	bool counted;	       /* BPF counts allocations per node (checked at start-up) */
	bool known;	       /* the figures per node are known: one node, or counted */
	int checked;	       /* nodes whose page the check saw (counted) */
	char why[160];	       /* why they are not known */
};

/* The nodes listed in `text` (a node list as /sys/devices/system/node/has_memory writes it,
 * "0-1,3\n"). Returns 0, or -EINVAL (not a list), -E2BIG (a node numbered FS_MAX_NODES or
 * more), with why set. */
int memory_nodes_parse(struct memory_nodes *n, const char *text);

/* 64 - NODES_SHIFT from kernel BTF (struct zonelist has MAX_NUMNODES x MAX_NR_ZONES + 1
 * references), or a negative errno. */
int node_shift_from_btf(const struct btf *vmlinux);

/* The host's nodes with memory, and where page flags keep the node where there are more than
 * one (or `force`, the test build's FOLIOSTAT_TEST_COUNT_NODES). Sets known for one node. */
void memory_nodes_learn(struct memory_nodes *n, const struct btf *vmlinux, bool force);

/* Whether BPF is to count per node: more than one node, or forced, and the shift known. */
bool memory_nodes_to_count(const struct memory_nodes *n);

/*
 * The check, with skel's fs_node_calibrate attached by the caller: for each node, a page of the
 * loader's own that prefers it (mbind MPOL_PREFERRED: a node without free memory gives another,
 * never an OOM kill), written, and the node its flags give compared with the node the kernel
 * says the page is on (get_mempolicy). Sets counted and known, or why. Called on the thread that
 * loaded skel: fs_node_calibrate heeds that thread's allocations alone (start_up.bpf.h).
 */
void memory_nodes_check(struct memory_nodes *n, struct foliostat_bpf *skel);

#endif /* FS_NODES_H */
