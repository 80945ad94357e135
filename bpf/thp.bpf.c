// SPDX-License-Identifier: GPL-2.0
/*
 * Transparent huge pages: khugepaged and MADV_COLLAPSE outcomes, charged to the process whose
 * memory is being collapsed (the event's mm), by the kernel's own result codes.
 */
#include "entries.bpf.h"

#include <bpf/bpf_tracing.h>

/* mm->owner (the task that owns the mm) exists only with CONFIG_MEMCG. */
struct mm_struct___owner {
	struct task_struct *owner;
} __attribute__((preserve_access_index));

static __always_inline struct task_struct *mm_owner(struct mm_struct *mm)
{
	if (bpf_core_field_exists(struct mm_struct___owner, owner))
		return BPF_CORE_READ((struct mm_struct___owner *)mm, owner);
	return NULL;
}

/* One outcome of `event`, and for a collapse that succeeded the pages it filled with zeroes. */
static __always_inline void count_result(struct mm_struct *mm, int event, int result,
					 __u64 zero_filled)
{
	unsigned int bucket =
	    result < 0 || result >= FS_NR_SCAN_RESULTS ? FS_NR_SCAN_RESULTS - 1 : result;
	struct task_struct *owner = mm_owner(mm);
	struct fs_cpu *cpu = this_cpu();
	struct fs_proc *entry = NULL;
	bool chosen;

	if (!cpu)
		return;
	bucket = verifier_bounded(bucket, FS_NR_SCAN_RESULTS);
	/* A process outside the selection gets no entry; an mm without an owner has no process. */
	chosen = owner && selected((__u64)owner);
	if (chosen)
		entry =
		    proc_entry(BPF_CORE_READ(owner, tgid), BPF_CORE_READ(owner, group_leader, comm),
			       BPF_CORE_READ(owner, group_leader, cgroups, dfl_cgrp, kn, id),
			       BPF_CORE_READ(owner, group_leader, start_boottime));
	if (entry) { /* khugepaged and a process's own MADV_COLLAPSE can race on one entry */
		__sync_fetch_and_add(&entry->counters.thp.results[event][bucket], 1);
		if (zero_filled)
			__sync_fetch_and_add(&entry->counters.thp.zero_filled, zero_filled);
		return;
	}
	/* No process entry holds it: the CPU's part of the system figure (cpu->thp holds what no
	 * process entry does; the loader adds the processes' to it, from the same read, so that
	 * the two always add up), and why: no owner, or the table full. */
	fs_count(cpu->thp.results[event][bucket], 1);
	fs_count(cpu->thp.zero_filled, zero_filled);
	if (!owner) {
		fs_count(cpu->thp_unattributed.results[event][bucket], 1);
		fs_count(cpu->thp_unattributed.zero_filled, zero_filled);
	} else if (chosen) {
		fs_count(cpu->thp_untracked.results[event][bucket], 1);
		fs_count(cpu->thp_untracked.zero_filled, zero_filled);
	}
}

/*
 * The scan of an anonymous range is traced once its collapse, if any, is done, with the
 * collapse's result: a success filled the range's none_or_zero pages (no page, or the shared
 * zero page, when scanned) with zeroes. (The isolation step counts them again, under the
 * lock; what faults in between does not change a scan that already passed.)
 */
static __always_inline __u64 zero_filled(int none_or_zero, int status)
{
	return status == bpf_core_enum_value(enum scan_result, SCAN_SUCCEED) && none_or_zero > 0
		   ? (__u64)none_or_zero
		   : 0;
}

SEC("tp_btf/mm_collapse_huge_page")
int BPF_PROG(fs_thp_collapse, struct mm_struct *mm, int isolated, int status)
{
	count_result(mm, FS_THP_COLLAPSE, status, 0);
	return 0;
}

/*
 * mm_khugepaged_scan_pmd in two layouts, one program each; the loader loads the one whose
 * arguments match the kernel's prototype: 6.x (a folio, no `writable`), and before (6.1: a
 * page and `writable`).
 */
SEC("tp_btf/mm_khugepaged_scan_pmd")
int BPF_PROG(fs_thp_scan, struct mm_struct *mm, void *folio, int referenced, int none_or_zero,
	     int status, int unmapped)
{
	count_result(mm, FS_THP_SCAN, status, zero_filled(none_or_zero, status));
	return 0;
}

SEC("tp_btf/mm_khugepaged_scan_pmd")
int BPF_PROG(fs_thp_scan_with_writable, struct mm_struct *mm, void *page, bool writable,
	     int referenced, int none_or_zero, int status, int unmapped)
{
	count_result(mm, FS_THP_SCAN, status, zero_filled(none_or_zero, status));
	return 0;
}

SEC("tp_btf/mm_khugepaged_scan_file")
int BPF_PROG(fs_thp_scan_file, struct mm_struct *mm, void *folio, void *file, int present, int swap,
	     int result)
{
	count_result(mm, FS_THP_SCAN_FILE, result, 0);
	return 0;
}

SEC("tp_btf/mm_khugepaged_collapse_file")
int BPF_PROG(fs_thp_collapse_file, struct mm_struct *mm, void *folio, unsigned long index,
	     unsigned long addr, bool is_shmem, void *file, int nr, int result)
{
	count_result(mm, FS_THP_COLLAPSE_FILE, result, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
