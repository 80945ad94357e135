/* SPDX-License-Identifier: GPL-2.0 */
/* Loading: probe what the kernel offers, configure, load and attach the BPF programs, each
 * probe independently so one missing tracepoint costs only what depends on it. */
#ifndef FS_LOADER_H
#define FS_LOADER_H

#include <stddef.h>

#include "options.h"
#include "report.h"

struct foliostat_bpf;
struct bpf_program;
struct bpf_link;

enum fs_probe {
	PROBE_PAGE_ALLOC,
	PROBE_PAGECACHE_ADD,
	PROBE_PAGE_FREE,
	PROBE_FAULT_USER,
	PROBE_FAULT_KERNEL,
	PROBE_FAULT_FILE,
	PROBE_THP_COLLAPSE,
	PROBE_THP_COLLAPSE_FILE,
	PROBE_THP_SCAN,
	PROBE_THP_SCAN_FILE,
	PROBE_MIGRATE,
	PROBE_COMPACTION_END,
	PROBE_COMPACTION_BEGIN,
	PROBE_TLB_FLUSH,
	PROBE_LRU_INSERT,
	PROBE_LRU_ACTIVATE,
	PROBE_DIRECT_RECLAIM_END,
	PROBE_DIRECT_RECLAIM_BEGIN,
	PROBE_MEMCG_RECLAIM_END,
	PROBE_MEMCG_RECLAIM_BEGIN,
	PROBE_LRU_ISOLATE,
	PROBE_SHRINK_INACTIVE,
	PROBE_SHRINK_ACTIVE,
	PROBE_KSWAPD_WAKE,
	PROBE_RECLAIM_WRITE,
	PROBE_TASK_EXIT,
	PROBE_TASK_RENAME,
	/* Each exit before its entry: an entry is attached only once its exit is. */
	PROBE_IRQ_EXIT,
	PROBE_IRQ_ENTRY,
	PROBE_SOFTIRQ_EXIT,
	PROBE_SOFTIRQ_ENTRY,
	PROBE_HRTIMER_EXIT,
	PROBE_HRTIMER_ENTRY,
	PROBE_SWITCH,
	NR_PROBES,
};

struct loader {
	struct foliostat_bpf *skel;
	struct probe_status probes[NR_PROBES];
	struct bpf_link *links[NR_PROBES];
	struct bpf_program *programs[NR_PROBES];
	int stats_fd; /* BPF run-time statistics, held on for --self (0: off) */
	int tasks_fd;
	int procs_fd;
	int cpus_fd;
	int nr_cpus; /* possible CPUs: the per-CPU map's value count */
	char scan_names[FS_NR_SCAN_RESULTS][FS_ENUM_NAME_LEN];
	char tlb_names[FS_NR_TLB_REASONS][FS_ENUM_NAME_LEN];
	bool tlb_known[FS_NR_TLB_REASONS];
	char lru_names[FS_NR_LRU_LISTS][FS_ENUM_NAME_LEN];
	bool lru_known[FS_NR_LRU_LISTS];
};

/* Returns 0, or -1 with a "failed to ...: reason" message in err. */
int loader_start(struct loader *loader, const struct fs_options *opts, char *err, size_t err_len);
void loader_stop(struct loader *loader);

#endif
