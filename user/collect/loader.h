/* SPDX-License-Identifier: GPL-2.0 */
/* Loading: probe what the kernel offers, configure, load and attach the BPF programs, each
 * probe independently so one missing tracepoint costs only what depends on it. */
#ifndef FS_LOADER_H
#define FS_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "foliostat.h"
#include "host.h"
#include "nodes.h"
#include "perf_events.h"

struct foliostat_bpf;
struct bpf_program;
struct bpf_link;

enum fs_probe {
	PROBE_PAGE_ALLOC,
	PROBE_PAGECACHE_ADD,
	PROBE_FILES,	       /* --files: page-cache additions per file */
	PROBE_FILES_READAHEAD, /* --files: the order readahead chose per file */
	PROBE_PAGE_FREE,
	PROBE_FAULT_USER,
	PROBE_FAULT_KERNEL,
	PROBE_FAULT_EVENT, /* where neither of the two above loads */
	PROBE_FAULT_FILE,
	PROBE_FAULT_MAJOR,
	PROBE_FAULT_MINOR,
	PROBE_MEMCG_EVENTS,
	PROBE_THP_COLLAPSE,
	PROBE_THP_COLLAPSE_FILE,
	PROBE_THP_SCAN,
	PROBE_THP_SCAN_FILE,
	PROBE_MIGRATE,
	PROBE_COMPACTION_END,
	PROBE_COMPACTION_BEGIN,
	PROBE_COMPACTION_REQUEST,
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
	PROBE_TASK_FORK,	/* only when following a command */
	PROBE_CGROUP_ATTACH,
	PROBE_TASK_RENAME,
	PROBE_SWITCH,
	/* Each exit before its entry: an entry is attached only once its exit is. */
	PROBE_IRQ_EXIT,
	PROBE_IRQ_ENTRY,
	PROBE_SOFTIRQ_EXIT,
	PROBE_SOFTIRQ_ENTRY,
	PROBE_HRTIMER_EXIT,
	PROBE_HRTIMER_ENTRY,
	NR_PROBES,
};

/* How events find the thread they are charged to (see attribution.bpf.h). */
enum fs_attribution {
	ATTRIBUTION_RECORDS, /* each CPU's record of the running thread, kept by sched_switch */
	ATTRIBUTION_LOOKUPS, /* every event asks the kernel who is running */
};

/* What the loader learnt of the host, for --check and --self. */
struct host_facts {
	enum fs_attribution attribution;
	char attribution_why[160]; /* why lookups, when they are used */
	bool preemptible;	   /* tracepoint programs may be preempted (PREEMPT_RT) */
	__u64 stack_size;	   /* THREAD_SIZE */
	bool stack_size_measured;  /* false: assumed (no task_rename to measure it with) */
	__u64 own_key;		   /* the loader's thread key as the kernel's tracepoints see it */
	bool pid_namespaced;	   /* the loader's pids are not the kernel's (a PID namespace) */
	__u32 task_capacity, proc_capacity;
};

struct loader {
	struct foliostat_bpf *skel;
	struct probe_status probes[NR_PROBES];
	struct bpf_link *links[NR_PROBES];
	struct perf_event_links perf_links[NR_PROBES]; /* perf events' probes: one per CPU */
	struct bpf_program *programs[NR_PROBES]; /* the flavour loaded for each probe */
	int stats_fd; /* BPF run-time statistics, held on for --self (0: off) */
	int cpus_fd;
	struct host_facts facts;
	bool following; /* -- COMMAND: only the followed processes get entries */
	bool files;	/* --files: count page-cache additions per file */
	int nr_cgroups; /* --cgroup: only their tasks get entries */
	bool migrate_large_split; /* the kernel's mm_migrate_pages reports large_folio_split */
	struct memory_nodes nodes; /* and whether allocations are counted per node */
	bool by_node; /* the allocation probe counts them (fs_page_alloc_by_node) */
	int nr_cpus;		  /* possible CPUs: the per-CPU map's value count */
	int online_fd;		  /* /sys/devices/system/cpu/online, for the perf events (-1) */
	int opener_fd;		  /* the perf events' opener (see perf_opener_start()), or -1 */
	char scan_names[FS_NR_SCAN_RESULTS][FS_ENUM_NAME_LEN];
	char tlb_names[FS_NR_TLB_REASONS][FS_ENUM_NAME_LEN];
	bool tlb_known[FS_NR_TLB_REASONS];
	char lru_names[FS_NR_LRU_LISTS][FS_ENUM_NAME_LEN];
	bool lru_known[FS_NR_LRU_LISTS];
};

/* What the loader is told of the options (cli/settings.c fills it). */
struct loader_settings {
	long max_tasks; /* the thread table's capacity (--max-tasks) */
	bool following; /* -- COMMAND: only its processes get entries */
	bool files;	/* --files */
	long max_files; /* --max-files */
	bool verbose;	/* libbpf's own messages too (-v) */
	/* --cgroup: only the tasks of these cgroups (and below) get entries */
	const struct fs_cgroup_ref *cgroup_refs;
	int nr_cgroups;
};

/* Returns 0, or -1 with a "failed to ...: reason" message in err. */
int loader_start(struct loader *loader, const struct loader_settings *settings, char *err,
		 size_t err_len);

/* Follow process `pid` (-- COMMAND), and so every process it forks. Returns 0 or -errno. */
int loader_follow(struct loader *loader, pid_t pid);
void loader_stop(struct loader *loader);
/* Whether any probe is on perf events (they are opened per CPU, also after start-up). */
bool loader_has_perf_events(const struct loader *loader);
/* Before privileges are dropped: fork the opener of the perf events of CPUs brought online
 * later (see perf_opener_start()), if any probe is on perf events. Returns 0 or a negative
 * errno (those CPUs are then not followed). */
int loader_start_opener(struct loader *loader);
/* Give CPUs brought online since start-up their perf events (see perf_events.h): at each read.
 * Returns 0 or a negative errno. */
int loader_follow_cpus(struct loader *loader);

/* A probe as users know it: "group:event" (a tracepoint), "software:page-faults" (perf's). */
const char *probe_name(enum fs_probe probe);

static inline const char *attribution_name(enum fs_attribution a)
{
	return a == ATTRIBUTION_RECORDS ? "records" : "lookups";
}

struct reader;
/* Map the loader's tables and per-CPU map for reading (see snapshot.h). Returns 0 or a negative
 * errno. */
int loader_open_reader(const struct loader *loader, struct reader *reader);

/* The process table's capacity for a thread table of `max_tasks`: processes with collapse
 * outcomes or stalls within a read are far fewer than threads with events. */
static inline __u32 proc_capacity_for(long max_tasks)
{
	return max_tasks / 32 > 64 ? (__u32)(max_tasks / 32) : 64;
}

#endif
