// SPDX-License-Identifier: GPL-2.0
/* Rows by cgroup or by name (see regroup.h). */
#include "regroup.h"

#include "window.h"

/* FNV-1a over the name: names are short and few; a collision (1 in 2^32 per pair) would merge
 * two names' rows under the first's name. */
static __u32 name_key(const char *comm)
{
	__u32 h = 2166136261u;

	for (int i = 0; i < FS_COMM_LEN && comm[i]; i++)
		h = (h ^ (unsigned char)comm[i]) * 16777619u;
	return h;
}

static __u32 group_key(const struct fs_options *opts, __u64 cgroup, const char *comm)
{
	return opts->by == FS_BY_CGROUP ? (__u32)cgroup : name_key(comm);
}

void snapshot_regroup(struct snapshot *snap, const struct fs_options *opts)
{
	size_t kept = 0;

	if (opts->by == FS_BY_PROCESS)
		return;
	for (size_t i = 0; i < snap->nr_order; i++) {
		struct thread_ref ref = snap->order[i];
		struct thread_delta *d = &snap->threads[ref.at];

		if (!process_selected(opts, ref.key >> 32, d->start, d->comm))
			continue;
		ref.key = (__u64)group_key(opts, d->cgroup, d->comm) << 32 | (__u32)ref.key;
		d->key = ref.key;
		d->start = 0; /* a group's rows are not told apart by their processes' starts */
		snap->order[kept++] = ref;
	}
	snap->nr_order = kept;
	kept = 0;
	for (size_t i = 0; i < snap->nr_procs; i++) {
		struct proc_delta *p = &snap->procs[i];

		if (!process_selected(opts, p->tgid, p->start, p->comm))
			continue;
		p->tgid = group_key(opts, p->cgroup, p->comm);
		p->start = 0;
		snap->procs[kept++] = *p;
	}
	snap->nr_procs = kept;
	snapshot_sort(snap);
}
