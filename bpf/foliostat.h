/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF programs and the loader agree on: map keys, value layouts, counter indices and
 * limits. Plain fixed-width types and fixed arrays only, so both compilers lay it out alike.
 */
#ifndef FOLIOSTAT_H
#define FOLIOSTAT_H

/* Orders 0..14 have their own bucket; anything larger (no page allocator does that today) is
 * folded into the last one so an unexpected order is counted rather than dropped. */
#define FS_NR_ORDERS 16
#define FS_COMM_LEN 16
/* Default capacity of the thread table: threads with activity within one read (the loader frees
 * the entries of threads that exited or were idle for a whole read). */
#define FS_DEFAULT_MAX_TASKS 32768
/* Allocations are counted per memory node on hosts whose nodes with memory are all numbered
 * below this (see nodes.h); a one-node host counts none per node (the loader knows them all). */
#define FS_MAX_NODES 8

/* Folio histograms kept per task and system-wide, one per kind of event. */
enum fs_folio_hist {
	FS_FOLIO_ALLOC_MOVABLE, /* mm_page_alloc with migratetype MIGRATE_MOVABLE */
	FS_FOLIO_ALLOC_KERNEL,	/* mm_page_alloc with any other migratetype */
	FS_FOLIO_PAGECACHE,	/* mm_filemap_add_to_page_cache */
	/* mm_page_alloc that returned no page, movable (user memory) only: a THP or mTHP fault,
	 * or a large page-cache folio, that had to fall back to a smaller order */
	FS_FOLIO_ALLOC_FAILED,
	/* movable folios of order >= 1 freed by the thread that allocated them before they reached
	 * an LRU list: the memory cgroup refused the charge, or another thread mapped the range
	 * first (see folios.bpf.c) */
	FS_FOLIO_DISCARDED,
	FS_NR_FOLIO_HISTS,
};

/* Page faults as reported (the loader's figures). On x86, mode comes from the tracepoint and
 * access and cause from the hardware error code; elsewhere only the mode is known (see
 * FS_FAULT_KIND_MODE_ONLY). */
enum fs_fault_counter {
	FS_FAULT_USER,	      /* exceptions:page_fault_user: taken in user mode */
	FS_FAULT_KERNEL,      /* exceptions:page_fault_kernel: taken in kernel mode */
	FS_FAULT_READ,	      /* either mode: a data read */
	FS_FAULT_WRITE,	      /* either mode: a write */
	FS_FAULT_EXEC,	      /* either mode: an instruction fetch */
	FS_FAULT_NOT_PRESENT, /* either mode: no page was mapped */
	FS_FAULT_PROTECTION,  /* either mode: a mapped page refused the access */
	FS_FAULT_FILE,	      /* filemap:mm_filemap_fault: served through the page cache */
	/* Completed faults as the kernel accounts them to the task (getrusage's majflt, minflt),
	 * from perf's software events page-faults-maj and -min, which mm_account_fault() raises
	 * beside those counts. */
	FS_FAULT_MAJOR,
	FS_FAULT_MINOR,
	FS_NR_FAULT_COUNTERS,
};

/*
 * Hardware faults are counted by kind, mode x access x cause, one word each: a fault then costs
 * BPF one add per counter group rather than three, and the loader sums the kinds into the
 * figures above (fault_count()).
 */
enum fs_fault_mode { FS_MODE_USER, FS_MODE_KERNEL, FS_NR_FAULT_MODES };
enum fs_fault_access { FS_ACCESS_READ, FS_ACCESS_WRITE, FS_ACCESS_EXEC, FS_NR_FAULT_ACCESSES };
enum fs_fault_cause { FS_CAUSE_NOT_PRESENT, FS_CAUSE_PROTECTION, FS_NR_FAULT_CAUSES };
#define FS_NR_FAULT_KINDS (FS_NR_FAULT_MODES * FS_NR_FAULT_ACCESSES * FS_NR_FAULT_CAUSES)
#define FS_FAULT_KIND(mode, access, cause) \
	(((mode)*FS_NR_FAULT_ACCESSES + (access)) * FS_NR_FAULT_CAUSES + (cause))
/* Where faults come from the perf software event (no fault tracepoints: every architecture but
 * x86), the access and cause are not known: each fault is counted in its mode's first kind, and
 * the loader reports only the mode figures (access and cause are null), since the two sources
 * never run together. */
#define FS_FAULT_KIND_MODE_ONLY(mode) FS_FAULT_KIND(mode, FS_ACCESS_READ, FS_CAUSE_NOT_PRESENT)

/* migrate:mm_migrate_pages, as the kernel reports each migration batch (base pages, except
 * the thp_ and large_folio_ counts, which are folios). */
enum fs_migrate_counter {
	FS_MIGRATE_SUCCEEDED,
	FS_MIGRATE_FAILED,
	FS_MIGRATE_THP_SUCCEEDED,
	FS_MIGRATE_THP_FAILED,
	FS_MIGRATE_THP_SPLIT,
	FS_MIGRATE_LARGE_FOLIO_SPLIT, /* kernels that report it (6.x) */
	FS_NR_MIGRATE_COUNTERS,
};

/* What a thread can stall in, timed from a begin to an end tracepoint. */
enum fs_stall {
	FS_STALL_COMPACTION,	 /* compaction:mm_compaction_begin .. _end */
	FS_STALL_DIRECT_RECLAIM, /* vmscan:mm_vmscan_direct_reclaim_begin .. _end */
	FS_STALL_MEMCG_RECLAIM,	 /* vmscan:mm_vmscan_memcg_reclaim_begin .. _end */
	FS_NR_STALLS,
};

/* Stalls: how many, how long in all, and a log2 histogram of their length in microseconds:
 * bucket 0 is under 1 us, bucket k covers [2^(k-1), 2^k) us, the last also everything longer. */
#define FS_NR_STALL_BUCKETS 32 /* a power of two: the BPF side masks its index */

struct fs_stalls {
	__u64 count;
	__u64 total_ns;
	__u64 hist[FS_NR_STALL_BUCKETS];
};

/* TLB flushes by the kernel's enum tlb_flush_reason value (names read from BTF by the loader);
 * larger values are folded into the last bucket. */
#define FS_NR_TLB_REASONS 8

/* LRU lists by the kernel's enum lru_list value (names read from BTF by the loader). */
#define FS_NR_LRU_LISTS 8

enum fs_amount { FS_FOLIOS, FS_PAGES, FS_NR_AMOUNTS };

/*
 * Every counter a task can be charged with, as a list of fields over a word type, so that BPF's
 * 32-bit struct fs_counters and the loader's 64-bit sums (struct fs_totals) share one layout,
 * word for word. Later concerns add their groups here.
 *
 * BPF counts in 32-bit words: they halve what every table read copies, and the loader reads
 * each word far more often than it could wrap (2^31 events of one thread between two reads),
 * taking differences modulo 2^32.
 *
 * The order puts what every anonymous fault counts (its fault words, an LRU insertion, an
 * order-0 movable folio) in the first lines of a thread's entry: every line a fault touches is
 * one the faulting code may lose.
 */
#define FS_COUNTER_FIELDS(word)                                                         \
	word fault_kinds[FS_NR_FAULT_KINDS];		 /* FS_FAULT_KIND() */          \
	word file_faults;				 /* filemap:mm_filemap_fault */ \
	word major_faults;				 /* perf page-faults-maj */     \
	word minor_faults;				 /* perf page-faults-min */     \
	word lru_insert[FS_NR_LRU_LISTS][FS_NR_AMOUNTS]; /* pagemap:mm_lru_insertion */ \
	word folios[FS_NR_FOLIO_HISTS][FS_NR_ORDERS];                                   \
	word migrate[FS_NR_MIGRATE_COUNTERS];                                           \
	word tlb_flushes[FS_NR_TLB_REASONS]; /* tlb:tlb_flush, by reason */             \
	word tlb_pages;			     /* pages of ranged flushes */              \
	word tlb_full;			     /* whole-TLB flushes (TLB_FLUSH_ALL) */    \
	word lru_activate[FS_NR_AMOUNTS];    /* pagemap:mm_lru_activate */              \
	word thp_fault_alloc; /* memcg:count_memcg_events THP_FAULT_ALLOC: a THP fault got one */ \
	/* folios allocated (mm_page_alloc), by the node of their memory, hosts of more than one \
	 * node only; last, since an allocation on a one-node host never touches it */           \
	word alloc_by_node[FS_MAX_NODES][FS_NR_AMOUNTS];

struct fs_counters {
	FS_COUNTER_FIELDS(__u32)
};

/*
 * The tables (threads, processes) are arrays of entries that the loader maps and reads in place.
 * A hash map gives each key (a thread's tgid << 32 | tid, a process's tgid) the index of its
 * entry; BPF takes a free index from a queue the loader fills, and marks it in a bitmap of
 * entries taken, which is how the loader learns of new ones. Every entry starts with this
 * header.
 *
 * An entry is freed in two steps, so that no count is lost or lands in another's entry: the
 * loader unlinks it (bumps `gen`, which every cached reference to the entry is checked against,
 * in a compare-and-swap that BPF's own retiring of an entry also needs to win, then deletes its
 * key from the index) after reporting it; a read later, and after an RCU
 * grace period (no BPF program still holds the index), it reads the entry once more for any
 * late counts, clears it and gives its index back.
 */
struct fs_entry_head {
	__u64 key;    /* whose entry it is; valid once the entry is marked taken */
	__u32 gen;    /* bumped by the loader when it unlinks the entry (and by BPF, see exited) */
	__u32 exited; /* thread table: the thread has exited (set at sched_process_exit); either
		       * table: it moved to another cgroup (its process's leader, for a process
		       * entry): BPF then unlinked the entry itself (FS_ENTRY_MOVED), or BPF
		       * unlinked it for a new process that took its pid (FS_ENTRY_REUSED,
		       * entries.bpf.h) */
	char comm[FS_COMM_LEN]; /* the thread group leader's name, following its renames */
	__u64 cgroup; /* the id of its cgroup (v2) when the entry was made: a thread that moves
		       * gets a new entry (threads.bpf.c), so its events stay where they happened */
	/* When its process started: the leader's start_boottime, in ns since boot (what
	 * /proc/PID/stat's starttime shows in clock ticks). With the tgid, the process's identity:
	 * a pid is reused, a start time with it is not. */
	__u64 start;
	/* The entry's own index, written by the loader when it maps the table and kept through
	 * every clearing: what BPF holding only an entry's counters finds its place in a side
	 * table by (fs_task_nodes). */
	__u32 index;
	__u32 unused;
};

#define FS_ENTRY_EXITED 1
#define FS_ENTRY_MOVED 2
#define FS_ENTRY_REUSED 3

/* What the index maps a key to. */
struct fs_entry_ref {
	__u32 index;
	__u32 gen;
};

/*
 * A thread's entry. Its counters are written by the thread's own events only, on the CPU it
 * runs on, so with plain adds; the exceptions (a TLB shootdown received in interrupt context
 * while the thread was in the middle of an event of its own) use atomic adds.
 */
struct fs_task {
	struct fs_entry_head head;
	struct fs_counters counters;
};

/* Thread keys: tgid << 32 | tid. Every CPU's idle task has pid 0; each is given the CPU's number
 * as its tid, so that no two CPUs ever write one entry with plain adds. */
#define FS_THREAD_KEY(tgid, pid) ((__u64)(tgid) << 32 | (__u32)(pid))

/* khugepaged and MADV_COLLAPSE outcomes, by the kernel's enum scan_result value (names are read
 * from kernel BTF by the loader). Values past the last bucket are folded into it. */
#define FS_NR_SCAN_RESULTS 64 /* a power of two: the BPF side masks its index */

enum fs_thp_event {
	FS_THP_COLLAPSE,      /* huge_memory:mm_collapse_huge_page (anonymous memory) */
	FS_THP_COLLAPSE_FILE, /* huge_memory:mm_khugepaged_collapse_file (file and shmem) */
	FS_THP_SCAN,	      /* huge_memory:mm_khugepaged_scan_pmd */
	FS_THP_SCAN_FILE,     /* huge_memory:mm_khugepaged_scan_file */
	FS_NR_THP_EVENTS,
};

struct fs_thp_results {
	__u64 results[FS_NR_THP_EVENTS][FS_NR_SCAN_RESULTS];
	/* Pages of the huge pages anonymous collapses made that were none or the zero page before:
	 * filled with zeroes, memory the process never touched (max_ptes_none's cost). */
	__u64 zero_filled;
};

/*
 * Collapse work is charged to the process whose memory it is (the event's mm), not to the
 * thread doing it (khugepaged), so it has a table of its own keyed by that process's tgid, as
 * have stalls (by all the process's threads). Only processes with such activity take an entry.
 */
/* Direct compaction by the order of the allocation that asked for it
 * (compaction:mm_compaction_try_to_compact_pages): what large folios cost in stall time. */
struct fs_order_stalls {
	__u64 count[FS_NR_ORDERS];
	__u64 total_ns[FS_NR_ORDERS];
};

/* A process entry's counters, as a list of fields so that the loader's own process figures
 * (struct proc_totals, snapshot.h) can begin with the same layout and add to it. */
#define FS_PROC_FIELDS                                                            \
	struct fs_thp_results thp;                                                \
	struct fs_stalls stalls[FS_NR_STALLS]; /* by all the process's threads */ \
	__u64 reclaimed[FS_NR_STALLS];	       /* pages reclaimed in those stalls */ \
	struct fs_order_stalls compaction_by_order;

struct fs_proc_counters {
	FS_PROC_FIELDS
};

/*
 * A thread's allocations by node and order (mm_page_alloc), on hosts of more than one node
 * only: in a side table of the thread table's size, at its entry's index (fs_task_nodes), so
 * that the thread entry every event touches stays as small on every host (512 bytes more per
 * entry would be copied at every read of every thread table). Words as in struct fs_counters.
 */
struct fs_node_orders {
	__u32 folios[FS_MAX_NODES][FS_NR_ORDERS];
};

struct fs_proc {
	struct fs_entry_head head;
	struct fs_proc_counters counters;
};

/* Page reclaim over the system (vmscan tracepoints), by kswapd ([FS_BY_KSWAPD]) or by
 * anything else, reclaiming directly ([FS_BY_DIRECT]); lists by enum lru_list value. */
enum fs_reclaimer { FS_BY_KSWAPD, FS_BY_DIRECT, FS_NR_RECLAIMERS };

struct fs_vmscan {
	__u64 scanned[FS_NR_RECLAIMERS][FS_NR_LRU_LISTS];     /* mm_vmscan_lru_isolate */
	__u64 reclaimed[FS_NR_RECLAIMERS][FS_NR_LRU_LISTS];   /* mm_vmscan_lru_shrink_inactive */
	__u64 deactivated[FS_NR_RECLAIMERS][FS_NR_LRU_LISTS]; /* mm_vmscan_lru_shrink_active */
	__u64 kswapd_wakes;				      /* mm_vmscan_kswapd_wake */
	__u64 written[FS_NR_AMOUNTS];			      /* mm_vmscan_write_folio */
};

/*
 * What is only counted system-wide, per CPU (the loader sums the CPUs). The thread and process
 * figures' system totals are not counted here but summed by the loader from the groups an event
 * lands in (a thread, interrupt context, or untracked), so they add up exactly. Likewise the
 * process-level ones (thp, stalls, reclaimed, compaction_by_order): per CPU they hold what no
 * process entry does (outside the selection, no owner, the table full), and the loader's
 * system totals add the processes' of the same read to them.
 */
#define FS_SYSTEM_TAIL_FIELDS                                                                      \
	__u64 freed[FS_NR_ORDERS]; /* mm_page_free: frees happen in unrelated contexts */          \
	struct fs_thp_results thp; /* collapse outcomes, whoever's memory */                       \
	struct fs_thp_results thp_unattributed; /* ... of an mm whose owner is not known */        \
	struct fs_thp_results thp_untracked; /* ... of a process the full table had no room for */ \
	struct fs_stalls stalls[FS_NR_STALLS]; /* every stall, whoever stalled */                  \
	__u64 reclaimed[FS_NR_STALLS];	       /* pages reclaimed in them */                       \
	__u64 stalls_untracked[FS_NR_STALLS];  /* stalls the full table had no room for */         \
	struct fs_order_stalls compaction_by_order; /* direct compaction, whoever stalled */      \
	struct fs_vmscan vmscan;                                                                   \
	/* allocations by node and order in the groups that are no thread entry (interrupt,  \
	 * untracked, unselected): the threads' are in fs_task_nodes */                     \
	__u64 alloc_by_node_order[FS_MAX_NODES][FS_NR_ORDERS];

/* The record of a thread running on a CPU (see attribution.bpf.h). */
struct fs_running {
	__u64 key;   /* FS_THREAD_KEY() */
	__u64 stack; /* its stack's base, as an offset from the struct fs_cpu_state's own address */
	__u32 index; /* of its entry, FS_NO_ENTRY until an event finds it, FS_UNTRACKED if the
		      * table had no room */
	__u32 gen;   /* the entry's gen when it was found; with FS_UNSELECTED, the cgroup moves
		      * counted when the thread was judged (fs_moves, maps.bpf.h) */
};

#define FS_NO_ENTRY 0xffffffffU
#define FS_UNTRACKED 0xfffffffeU
/* A thread outside the selection (-- COMMAND): its events go to the unselected group. The
 * lowest of the three marks, so that one compare tells an index from all of them. */
#define FS_UNSELECTED 0xfffffffdU

/* --cgroup: the cgroups (v2) whose tasks are selected, by id (the directory's inode number)
 * and level (its depth below the root). */
#define FS_MAX_CGROUPS 8

struct fs_cgroup_ref {
	__u64 id;
	__u32 level;
	__u32 unused;
};

/* Recently found entries, per CPU, by the low bits of the thread's tid: a thread's first event
 * after a switch finds its entry here rather than through the hash map. */
#define FS_NR_CACHED_REFS 64 /* a power of two */

struct fs_cached_ref {
	__u64 key;
	struct fs_entry_ref ref;
};

/*
 * What every event reads first, in a per-CPU map of its own (fs_cpu_states): the interrupt
 * depth, the stacks' size and the running thread, 72 bytes, then the cache of entries the first
 * event of a turn looks in (1 KiB). Kept apart from the CPU's groups and figures (struct
 * fs_cpu, some 10 KiB a CPU, pages of the per-CPU area of their own): this value shares its
 * page with other per-CPU data, and an event touches one page fewer that only foliostat uses.
 * Where the kernel's work between two events pushes out what they touched (mm_page_alloc's
 * program runs right after the kernel zeroed the new page), that was about 20 ns per
 * allocation on the benchmark's host (docs/benchmarks-method.md). The
 * settings known before load are not here but in read-only data (maps.bpf.h), which the
 * verifier prunes by.
 */
struct fs_cpu_state {
	__u64 irq_depth; /* interrupt handlers and softirqs this CPU is inside of (see
			  * compat.bpf.h); state, not a counter */
	__u64 self;	 /* this structure's address as a number; 0: the records are not valid */
	/* THREAD_SIZE, measured at start-up by a program (see compat.bpf.h), so known only
	 * after load: written by the loader before the programs that read it are attached. */
	__u64 stack_size;
	struct fs_running running;  /* the thread running here, set at each context switch */
	struct fs_running previous; /* the one it switched from, for events of the switch itself */
	/* Where the first event of a thread's turn finds its entry before asking the index: at
	 * every switch between address spaces, so here rather than in struct fs_cpu's pages. */
	struct fs_cached_ref cached[FS_NR_CACHED_REFS];
};

/* The CPU's share of the interrupt, untracked and unselected groups and of the system-only
 * figures (fs_cpus), per CPU so that no two CPUs ever write the same line: read by an event
 * only when it is charged to a group or counted CPU-wide. */
struct fs_cpu {
	/* Room for an entry's header before the groups, never written: the verifier follows
	 * count_node() (folios.bpf.c) into the header of whatever counters it has, a group's
	 * too, which must then still be inside the value. */
	struct fs_entry_head no_header;
	struct fs_counters interrupt; /* events in hard/soft interrupt or NMI context */
	struct fs_counters untracked; /* events of threads the full table had no room for */
	struct fs_counters unselected; /* events of threads outside the selection */
	FS_SYSTEM_TAIL_FIELDS
};

_Static_assert(__builtin_offsetof(struct fs_cpu_state, cached) == 72,
	       "what every event reads first is 72 bytes, two cache lines at most");

/* The name the loader takes for a moment at start-up, to measure the kernel through its own
 * rename (threads.bpf.c). Only a name others may see meanwhile: BPF knows the loader by its
 * thread, never by a name (start_up.bpf.h). */
#define FS_PROBE_COMM "foliostat-probe"

#endif /* FOLIOSTAT_H */
