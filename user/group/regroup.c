// SPDX-License-Identifier: GPL-2.0
/* Rows by cgroup or by name (see regroup.h). */
#include "regroup.h"

#include <string.h>

#include "row_table.h"

/* The row of counts made in cgroup `cgroup` by a process named `comm`, under --by. A name is
 * its bytes up to its end, the rest zero (an entry's name may keep an older one's tail). */
static struct row_key group_row(enum fs_row_kind by, __u64 cgroup, const char *comm)
{
	char name[FS_COMM_LEN] = {0};
	struct row_key row = {.hi = cgroup};

	_Static_assert(FS_COMM_LEN == 2 * sizeof(__u64), "a name fills a row key");
	if (by == FS_BY_CGROUP)
		return row;
	memcpy(name, comm, strnlen(comm, FS_COMM_LEN - 1));
	memcpy(&row.hi, name, sizeof(row.hi));
	memcpy(&row.lo, name + sizeof(row.hi), sizeof(row.lo));
	return row;
}

void snapshot_regroup(struct snapshot *snap, enum fs_row_kind by,
		      const struct process_filter *filter)
{
	size_t kept = 0;

	if (by == FS_BY_PROCESS)
		return;
	for (size_t i = 0; i < snap->nr_order; i++) {
		struct thread_ref ref = snap->order[i];
		struct thread_delta *d = &snap->threads[ref.at];

		if (!process_selected(filter, d->key >> 32, d->start, d->comm))
			continue;
		d->row = group_row(by, d->cgroup, d->comm);
		ref.key = d->row.hi; /* snapshot_sort() brings rows that share it apart */
		snap->order[kept++] = ref;
	}
	snap->nr_order = kept;
	kept = 0;
	for (size_t i = 0; i < snap->nr_procs; i++) {
		struct proc_delta *p = &snap->procs[i];

		if (!process_selected(filter, p->tgid, p->start, p->comm))
			continue;
		p->row = group_row(by, p->cgroup, p->comm);
		snap->procs[kept++] = *p;
	}
	snap->nr_procs = kept;
	kept = 0;
	for (size_t i = 0; i < snap->nr_nodes; i++) {
		struct node_delta *n = &snap->nodes[i];

		if (!process_selected(filter, n->tgid, n->start, n->comm))
			continue;
		n->row = group_row(by, n->cgroup, n->comm);
		snap->nodes[kept++] = *n;
	}
	snap->nr_nodes = kept;
	snapshot_sort(snap);
}
