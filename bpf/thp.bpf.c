// SPDX-License-Identifier: GPL-2.0
/*
 * Transparent huge pages: khugepaged and MADV_COLLAPSE outcomes, charged to the process whose
 * memory is being collapsed (the event's mm), by the kernel's own result codes.
 */
#include "maps.bpf.h"

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

static __always_inline void count_result(struct mm_struct *mm, int event, int result)
{
	unsigned int bucket =
	    result < 0 || result >= FS_NR_SCAN_RESULTS ? FS_NR_SCAN_RESULTS - 1 : result;
	bucket = verifier_bounded(bucket, FS_NR_SCAN_RESULTS);
	struct task_struct *owner = mm_owner(mm);
	struct fs_cpu *cpu = this_cpu();
	struct fs_proc *entry;

	if (!cpu)
		return;
	cpu->system.thp.results[event][bucket]++;
	if (!owner) {
		cpu->system.thp_unattributed.results[event][bucket]++;
		return;
	}
	entry = proc_entry(owner);
	if (entry) /* khugepaged and a process's own MADV_COLLAPSE can race on one entry */
		__sync_fetch_and_add(&entry->counters.thp.results[event][bucket], 1);
	else
		cpu->system.thp_untracked.results[event][bucket]++;
}

/*
 * Where the result is among the event's arguments. It is the last argument of
 * mm_collapse_huge_page, mm_khugepaged_scan_file and mm_khugepaged_collapse_file in every
 * kernel that has them. mm_khugepaged_scan_pmd ends with `unmapped`, after the status, and
 * lost its `writable` argument in 6.x: its status is the second-to-last argument, whose index
 * the loader sets from the tracepoint's BTF prototype.
 */
const volatile __u32 fs_scan_pmd_status_arg = 5;

SEC("tp_btf/mm_collapse_huge_page")
int BPF_PROG(fs_thp_collapse, struct mm_struct *mm, int isolated, int status)
{
	count_result(mm, FS_THP_COLLAPSE, status);
	return 0;
}

SEC("tp_btf/mm_khugepaged_scan_pmd")
int fs_thp_scan(__u64 *ctx)
{
	/* ctx may only be read at fixed offsets, so read both candidates (every layout has at
	 * least six arguments) and pick by the index:
	 *   6.x:     mm, folio, referenced, none_or_zero, status, unmapped       -> 4
	 *   5.x-6.1: mm, page, writable, referenced, none_or_zero, status, ...  -> 5 */
	__u64 arg4 = ctx[4], arg5 = ctx[5];

	if (fs_scan_pmd_status_arg != 4 && fs_scan_pmd_status_arg != 5)
		return 0;
	count_result((struct mm_struct *)ctx[0], FS_THP_SCAN,
		     (int)(fs_scan_pmd_status_arg == 4 ? arg4 : arg5));
	return 0;
}

SEC("tp_btf/mm_khugepaged_scan_file")
int BPF_PROG(fs_thp_scan_file, struct mm_struct *mm, void *folio, void *file, int present, int swap,
	     int result)
{
	count_result(mm, FS_THP_SCAN_FILE, result);
	return 0;
}

SEC("tp_btf/mm_khugepaged_collapse_file")
int BPF_PROG(fs_thp_collapse_file, struct mm_struct *mm, void *folio, unsigned long index,
	     unsigned long addr, bool is_shmem, void *file, int nr, int result)
{
	count_result(mm, FS_THP_COLLAPSE_FILE, result);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
