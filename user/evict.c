// SPDX-License-Identifier: GPL-2.0
/* Slot eviction (see evict.h). One syscall per freed slot: lookup-and-delete is atomic per key,
 * and the batched form deletes whatever it reads, not chosen keys. */
#include "evict.h"

#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>

#include "counters.h"

/* Read and delete one slot; false if the kernel cannot do both at once (before 5.14), in which
 * case the slot is only deleted and a late count may be lost. */
static bool take_slot(int fd, const void *key, void *value, bool *taken)
{
	*taken = bpf_map_lookup_and_delete_elem(fd, key, value) == 0;
	if (*taken || (errno != EINVAL && errno != ENOTSUP && errno != EOPNOTSUPP))
		return true;
	bpf_map_delete_elem(fd, key);
	return false;
}

static int evict_tasks(int fd, const struct snapshot *now, struct snapshot *carry)
{
	for (size_t i = 0; i < now->nr_order; i++) {
		const struct task_ref *r = &now->order[i];
		struct fs_task last, late;
		bool taken;

		if (!r->evict || r->carried || !take_slot(fd, &r->key, &last, &taken) || !taken)
			continue;
		late = last;
		if (counters_delta_monotonic(&late.counters, &last.counters,
					     &ref_task(now, r)->counters)
			.events &&
		    snapshot_append(carry, r->key, &late))
			return -ENOMEM;
	}
	return 0;
}

static int evict_procs(int fd, const struct snapshot *now, struct snapshot *carry)
{
	for (size_t i = 0; i < now->nr_procs; i++) {
		const struct proc_sample *s = &now->procs[i];
		struct fs_proc last, late;
		bool taken;

		if (!s->evict || s->carried || !take_slot(fd, &s->tgid, &last, &taken) || !taken)
			continue;
		late = last;
		words_delta((__u64 *)&late.counters, (const __u64 *)&last.counters,
			    (const __u64 *)&s->proc.counters, FS_WORDS(late.counters));
		if (words_sum((const __u64 *)&late.counters, FS_WORDS(late.counters)) &&
		    snapshot_append_proc(carry, s->tgid, &late))
			return -ENOMEM;
	}
	return 0;
}

int evict_slots(const struct loader *loader, const struct snapshot *now, struct snapshot *carry)
{
	int err = evict_tasks(loader->tasks_fd, now, carry);

	return err ? err : evict_procs(loader->procs_fd, now, carry);
}
