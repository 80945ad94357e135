// SPDX-License-Identifier: GPL-2.0
/* The BPF lifecycle: open, probe and configure, load, attach (see loader.h). */
#include "loader.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <linux/perf_event.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "file_table.h" /* (before the skeleton: files.h's types) */
#include "foliostat.skel.h"
#include "snapshot.h"
#include "table.h"
#include "test_hooks.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

/* The architecture of the kernel is the binary's: a foliostat built for arm64 runs on arm64. */
#if defined(__x86_64__)
#define BUILT_FOR_X86 true
#else
#define BUILT_FOR_X86 false
#endif

/* A program for a probe, for the kernels whose tracepoint passes `nr_args` arguments (0: any). */
struct probe_flavour {
	const char *program;
	int nr_args;
};

#define NR_FLAVOURS 2

struct probe_def {
	const char *name;	/* as users know it: group:event */
	const char *tracepoint; /* the event name, btf_trace_<tracepoint> in kernel BTF */
	/* The BPF programs in the skeleton: one, or one per layout of the tracepoint's
	 * arguments, picked by the count in the kernel's prototype. */
	struct probe_flavour flavours[NR_FLAVOURS];
	bool core; /* foliostat cannot run meaningfully without it */
	int needs; /* a probe that must be attached first (0: none) */
	/* Emitted by x86 code only: on other architectures the tracepoint does not exist, or
	 * (tlb:tlb_flush) exists but nothing calls it, and its figures would be a silent 0. */
	bool x86_only;
	/* Not a tracepoint (tracepoint is NULL) but perf's software event perf_config
	 * (PERF_COUNT_SW_*): opened on every CPU, each occurrence running the program. */
	bool perf_event;
	unsigned long long perf_config;
	/* Needed only to follow a command's forks (-- COMMAND). */
	bool following_only;
	/* Loaded only with --files (file_table.c reads its maps). */
	bool files_only;
};

#define ONE(program)               \
	{                          \
		{                  \
			program, 0 \
		}                  \
	}

static const struct probe_def probe_defs[NR_PROBES] = {
    [PROBE_PAGE_ALLOC] = {"kmem:mm_page_alloc", "mm_page_alloc", ONE("fs_page_alloc"), true},
    [PROBE_PAGECACHE_ADD] = {"filemap:mm_filemap_add_to_page_cache", "mm_filemap_add_to_page_cache",
			     ONE("fs_pagecache_add"), false},
    /* --files: the same tracepoint, a program of its own (files.bpf.c), so that without the
     * option nothing per file is loaded. */
    [PROBE_FILES] = {"filemap:mm_filemap_add_to_page_cache/files", "mm_filemap_add_to_page_cache",
		     ONE("fs_file_add"), .files_only = true},
    /* --files too: the folio order readahead chose, per file (Linux 6.16 and later). */
    [PROBE_FILES_READAHEAD] = {"readahead:page_cache_ra_order", "page_cache_ra_order",
			       ONE("fs_file_ra_order"), .files_only = true},
    [PROBE_PAGE_FREE] = {"kmem:mm_page_free", "mm_page_free", ONE("fs_page_free"), false},
    /* x86 only: other architectures have no such tracepoints. */
    [PROBE_FAULT_USER] = {"exceptions:page_fault_user", "page_fault_user", ONE("fs_fault_user"),
			  .x86_only = true},
    [PROBE_FAULT_KERNEL] = {"exceptions:page_fault_kernel", "page_fault_kernel",
			    ONE("fs_fault_kernel"), .x86_only = true},
    /* Elsewhere, or where the two above are refused: faults by mode only (faults.bpf.c). */
    [PROBE_FAULT_EVENT] = {"software:page-faults", NULL, ONE("fs_fault_event"),
			   .perf_event = true, .perf_config = PERF_COUNT_SW_PAGE_FAULTS},
    [PROBE_FAULT_FILE] = {"filemap:mm_filemap_fault", "mm_filemap_fault", ONE("fs_fault_file")},
    [PROBE_FAULT_MAJOR] = {"software:major-faults", NULL, ONE("fs_fault_major"),
			   .perf_event = true, .perf_config = PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    [PROBE_FAULT_MINOR] = {"software:minor-faults", NULL, ONE("fs_fault_minor"),
			   .perf_event = true, .perf_config = PERF_COUNT_SW_PAGE_FAULTS_MIN},
    [PROBE_MEMCG_EVENTS] = {"memcg:count_memcg_events", "count_memcg_events",
			    ONE("fs_memcg_event")},
    [PROBE_THP_COLLAPSE] = {"huge_memory:mm_collapse_huge_page", "mm_collapse_huge_page",
			    ONE("fs_thp_collapse")},
    [PROBE_THP_COLLAPSE_FILE] = {"huge_memory:mm_khugepaged_collapse_file",
				 "mm_khugepaged_collapse_file", ONE("fs_thp_collapse_file")},
    /* Arguments that moved between kernels: one program per layout. */
    [PROBE_THP_SCAN] = {"huge_memory:mm_khugepaged_scan_pmd",
			"mm_khugepaged_scan_pmd",
			{{"fs_thp_scan", 6}, {"fs_thp_scan_with_writable", 7}}},
    [PROBE_THP_SCAN_FILE] = {"huge_memory:mm_khugepaged_scan_file", "mm_khugepaged_scan_file",
			     ONE("fs_thp_scan_file")},
    [PROBE_MIGRATE] = {"migrate:mm_migrate_pages",
		       "mm_migrate_pages",
		       {{"fs_migrate_pages", 8}, {"fs_migrate_pages_without_large_split", 7}}},
    /* A begin without its end would time nothing: end first, begin only with it. */
    [PROBE_COMPACTION_END] = {"compaction:mm_compaction_end", "mm_compaction_end",
			      ONE("fs_compaction_end")},
    [PROBE_COMPACTION_BEGIN] = {"compaction:mm_compaction_begin", "mm_compaction_begin",
				ONE("fs_compaction_begin"), .needs = PROBE_COMPACTION_END},
    /* The order a direct compaction was asked for: by-order figures of timed stalls. */
    [PROBE_COMPACTION_REQUEST] = {"compaction:mm_compaction_try_to_compact_pages",
				  "mm_compaction_try_to_compact_pages",
				  ONE("fs_compaction_request"), .needs = PROBE_COMPACTION_BEGIN},
    /* x86 only, like the fault tracepoints: arm64 declares it but flushes by broadcast
     * instructions, with no tracepoint on the way. */
    [PROBE_TLB_FLUSH] = {"tlb:tlb_flush", "tlb_flush", ONE("fs_tlb_flush"), .x86_only = true},
    [PROBE_LRU_INSERT] = {"pagemap:mm_lru_insertion", "mm_lru_insertion", ONE("fs_lru_insert")},
    [PROBE_LRU_ACTIVATE] = {"pagemap:mm_lru_activate", "mm_lru_activate", ONE("fs_lru_activate")},
    [PROBE_DIRECT_RECLAIM_END] = {"vmscan:mm_vmscan_direct_reclaim_end",
				  "mm_vmscan_direct_reclaim_end", ONE("fs_direct_reclaim_end")},
    [PROBE_DIRECT_RECLAIM_BEGIN] = {"vmscan:mm_vmscan_direct_reclaim_begin",
				    "mm_vmscan_direct_reclaim_begin",
				    ONE("fs_direct_reclaim_begin"),
				    .needs = PROBE_DIRECT_RECLAIM_END},
    [PROBE_MEMCG_RECLAIM_END] = {"vmscan:mm_vmscan_memcg_reclaim_end",
				 "mm_vmscan_memcg_reclaim_end", ONE("fs_memcg_reclaim_end")},
    [PROBE_MEMCG_RECLAIM_BEGIN] = {"vmscan:mm_vmscan_memcg_reclaim_begin",
				   "mm_vmscan_memcg_reclaim_begin", ONE("fs_memcg_reclaim_begin"),
				   .needs = PROBE_MEMCG_RECLAIM_END},
    [PROBE_LRU_ISOLATE] = {"vmscan:mm_vmscan_lru_isolate",
			   "mm_vmscan_lru_isolate",
			   {{"fs_lru_isolate", 7}, {"fs_lru_isolate_with_mode", 8}}},
    [PROBE_SHRINK_INACTIVE] = {"vmscan:mm_vmscan_lru_shrink_inactive",
			       "mm_vmscan_lru_shrink_inactive", ONE("fs_shrink_inactive")},
    [PROBE_SHRINK_ACTIVE] = {"vmscan:mm_vmscan_lru_shrink_active", "mm_vmscan_lru_shrink_active",
			     ONE("fs_shrink_active")},
    [PROBE_KSWAPD_WAKE] = {"vmscan:mm_vmscan_kswapd_wake", "mm_vmscan_kswapd_wake",
			   ONE("fs_kswapd_wake")},
    [PROBE_RECLAIM_WRITE] = {"vmscan:mm_vmscan_write_folio", "mm_vmscan_write_folio",
			     ONE("fs_reclaim_write")},
    /* Without exit events, exited threads would never leave the table. */
    [PROBE_TASK_EXIT] = {"sched:sched_process_exit", "sched_process_exit", ONE("fs_task_exit"),
			 true},
    /* Followed processes' children join them (threads.bpf.c). */
    [PROBE_TASK_FORK] = {"sched:sched_process_fork", "sched_process_fork", ONE("fs_task_fork"),
			 .following_only = true},
    /* A thread that moves to another cgroup gets a new entry there (threads.bpf.c). */
    [PROBE_CGROUP_ATTACH] = {"cgroup:cgroup_attach_task", "cgroup_attach_task",
			     ONE("fs_cgroup_attach")},
    [PROBE_TASK_RENAME] = {"task:task_rename", "task_rename", ONE("fs_task_rename")},
    /* Records the running thread for the hot programs (attribution.bpf.h), and heals an
     * interrupt depth left behind by an exit BPF had to skip (interrupts.bpf.c). */
    [PROBE_SWITCH] = {"sched:sched_switch", "sched_switch", ONE("fs_switch")},
    /* Interrupt depth (interrupts.bpf.c): an entry without its exit would leave the CPU
     * "in an interrupt" for good, so each entry needs its exit, and each exit the context
     * switches that heal a lost one. */
    [PROBE_IRQ_EXIT] = {"irq:irq_handler_exit", "irq_handler_exit", ONE("fs_irq_exit"),
			.needs = PROBE_SWITCH},
    [PROBE_IRQ_ENTRY] = {"irq:irq_handler_entry", "irq_handler_entry", ONE("fs_irq_entry"),
			 .needs = PROBE_IRQ_EXIT},
    [PROBE_SOFTIRQ_EXIT] = {"irq:softirq_exit", "softirq_exit", ONE("fs_softirq_exit"),
			    .needs = PROBE_SWITCH},
    [PROBE_SOFTIRQ_ENTRY] = {"irq:softirq_entry", "softirq_entry", ONE("fs_softirq_entry"),
			     .needs = PROBE_SOFTIRQ_EXIT},
    [PROBE_HRTIMER_EXIT] = {"timer:hrtimer_expire_exit", "hrtimer_expire_exit",
			    ONE("fs_hrtimer_exit"), .needs = PROBE_SWITCH},
    [PROBE_HRTIMER_ENTRY] = {"timer:hrtimer_expire_entry", "hrtimer_expire_entry",
			     ONE("fs_hrtimer_entry"), .needs = PROBE_HRTIMER_EXIT},
};

static bool verbose;
/* The program the kernel last refused to load, from libbpf's own report of it. */
static char refused_program[64];

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list args)
{
	const char *prog;
	char line[1024];
	va_list whole;
	int ret = 0;

	/* The first line names a refused program; -v prints the message whole (a verifier log
	 * runs to many kilobytes, and its last line says why). */
	va_copy(whole, args);
	vsnprintf(line, sizeof(line), fmt, args);
	prog = strstr(line, "prog '");
	if (prog && strstr(line, "load failed"))
		sscanf(prog, "prog '%63[^']'", refused_program);
	if (level != LIBBPF_DEBUG && verbose)
		ret = vfprintf(stderr, fmt, whole);
	va_end(whole);
	return ret;
}

static void set_error(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* Probes listed in FOLIOSTAT_DISABLE_PROBES (comma-separated group:event names) are treated as
 * missing, so the degraded path can be exercised on any kernel. */
static bool disabled_by_env(const char *name)
{
	const char *list = getenv("FOLIOSTAT_DISABLE_PROBES");
	size_t len = strlen(name);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\0'))
			return true;
	return false;
}

/* Is the memory cgroup controller enabled? Without it (cgroup_disable=memory) the kernel counts
 * no memory cgroup events, and memcg:count_memcg_events never fires. /proc/cgroups: name,
 * hierarchy, cgroups, enabled. */
static bool memcg_enabled(void)
{
	char line[256], name[64];
	int hierarchy, nr, enabled;
	bool memcg = true; /* where it cannot tell (no file, no line): trust the tracepoint */
	FILE *f = fopen("/proc/cgroups", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %d %d %d", name, &hierarchy, &nr, &enabled) == 4 &&
		    strcmp(name, "memory") == 0)
			memcg = enabled != 0;
	if (f)
		fclose(f);
	return memcg;
}

/* What the error most likely means, for the person reading it: EPERM comes from the bpf()
 * call itself, EACCES and EINVAL from the verifier refusing a program. */
static const char *privilege_hint(int err)
{
	if (err == -EPERM)
		return " (run as root, or with CAP_BPF and CAP_PERFMON)";
	return " (run with -v for the verifier's log)";
}

/*
 * What the loader needs to know from kernel BTF, learnt before loading: the BTF is freed
 * first, since libbpf parses its own copy to load, and holding both would double foliostat's
 * peak memory (the parsed BTF is several MiB).
 */
struct kernel_facts {
	bool has_tracepoint[NR_PROBES];
	int nr_args[NR_PROBES]; /* of each tracepoint, from its BTF prototype (-1: unknown) */
	__u64 assumed_stack_size;
	bool preemptible;
	const char *preemptible_why;
};

/* The flavour of a probe's program that matches this kernel's tracepoint, or NULL. */
static const struct probe_flavour *flavour_for(const struct probe_def *def, int nr_args)
{
	for (int f = 0; f < NR_FLAVOURS && def->flavours[f].program; f++)
		if (!def->flavours[f].nr_args || def->flavours[f].nr_args == nr_args)
			return &def->flavours[f];
	return NULL;
}

/* Decide per probe which program loads, if any: present in kernel BTF, with arguments laid out
 * as one of its flavours expects, and not disabled. Every other program stays unloaded. */
static void probe_kernel(struct loader *loader, const struct kernel_facts *facts)
{
	for (int i = 0; i < NR_PROBES; i++) {
		const struct probe_def *def = &probe_defs[i];
		const struct probe_flavour *chosen = flavour_for(def, facts->nr_args[i]);
		struct probe_status *st = &loader->probes[i];

		for (int f = 0; f < NR_FLAVOURS && def->flavours[f].program; f++)
			bpf_program__set_autoload(bpf_object__find_program_by_name(
						      loader->skel->obj, def->flavours[f].program),
						  false);
		st->name = def->name;
		st->not_needed = false;
		loader->programs[i] = bpf_object__find_program_by_name(
		    loader->skel->obj, (chosen ? chosen : &def->flavours[0])->program);
		if (disabled_by_env(def->name))
			snprintf(st->reason, sizeof(st->reason),
				 "disabled by FOLIOSTAT_DISABLE_PROBES");
		else if (def->x86_only && !BUILT_FOR_X86)
			snprintf(st->reason, sizeof(st->reason),
				 "unavailable: not emitted on this architecture (x86 only)");
		else if (!facts->has_tracepoint[i])
			snprintf(st->reason, sizeof(st->reason),
				 "unavailable: this kernel has no such tracepoint%s",
				 i == PROBE_MEMCG_EVENTS ? " (later kernels have it)" : "");
		else if (i == PROBE_MEMCG_EVENTS && !memcg_enabled())
			snprintf(st->reason, sizeof(st->reason),
				 "unavailable: the memory cgroup controller is disabled, so the "
				 "kernel counts no memory cgroup events");
		else if (!chosen)
			snprintf(st->reason, sizeof(st->reason),
				 "unavailable: this kernel's tracepoint has %d arguments, a layout "
				 "foliostat does not know",
				 facts->nr_args[i]);
		else if (def->following_only && !loader->following) {
			st->not_needed = true;
			snprintf(st->reason, sizeof(st->reason),
				 "not needed: it follows the processes of -- COMMAND");
		} else if (def->files_only && !loader->files) {
			st->not_needed = true;
			snprintf(st->reason, sizeof(st->reason), "not needed: --files is off");
		} else
			bpf_program__set_autoload(loader->programs[i], true);
	}
}

/* THREAD_SIZE when it cannot be measured (threads.bpf.c): 16 KiB on x86-64 and arm64, doubled by
 * KASAN, whose presence shows in BTF. */
static __u64 assumed_stack_size(const struct btf *vmlinux)
{
	if (btf__find_by_name_kind(vmlinux, "kasan_report", BTF_KIND_FUNC) >= 0)
		return 32768;
	return 16384;
}

/*
 * Can the kernel preempt a tracepoint program? PREEMPT_RT kernels run tracepoint probes with
 * only migration disabled (or will: the change is recent). Its locks show in BTF: an RT
 * spinlock_t is built on struct rt_mutex_base. /sys/kernel/realtime says the same on newer
 * kernels. The test build can force the answer (test_hooks.h), to test that path anywhere.
 */
static bool kernel_preemptible(const struct btf *vmlinux, const char **why)
{
	__s32 id = btf__find_by_name_kind(vmlinux, "spinlock", BTF_KIND_STRUCT);
	const struct btf_type *t = id >= 0 ? btf__type_by_id(vmlinux, id) : NULL;
	char realtime = '0';
	FILE *f;

	if (test_preemptible(why))
		return true;
	for (int i = 0; t && i < btf_vlen(t); i++) {
		const struct btf_member *m = &btf_members(t)[i];
		const struct btf_type *mt = btf__type_by_id(vmlinux, m->type);
		const char *type_name = mt ? btf__name_by_offset(vmlinux, mt->name_off) : NULL;

		if (type_name && strcmp(type_name, "rt_mutex_base") == 0) {
			*why = "a PREEMPT_RT kernel";
			return true;
		}
	}
	f = fopen("/sys/kernel/realtime", "r");
	if (f) {
		if (fread(&realtime, 1, 1, f) != 1)
			realtime = '0';
		fclose(f);
	}
	*why = realtime == '1' ? "a PREEMPT_RT kernel (/sys/kernel/realtime)" : NULL;
	return realtime == '1';
}

/*
 * Names for the values of a kernel enum, from its BTF: lowercased, `prefix` removed
 * (SCAN_SUCCEED -> "succeed"), NR_* counts skipped, so values a newer kernel adds need no change
 * here. A value with no name is "<fallback>_N"; `known` (may be NULL) says which values have a
 * name.
 */
static void read_enum_names(const struct btf *vmlinux, const char *enum_name, const char *prefix,
			    const char *fallback, char (*names)[FS_ENUM_NAME_LEN], bool *known,
			    int nr)
{
	__s32 id = btf__find_by_name_kind(vmlinux, enum_name, BTF_KIND_ENUM);
	const struct btf_type *t = id >= 0 ? btf__type_by_id(vmlinux, id) : NULL;

	for (int v = 0; v < nr; v++) {
		snprintf(names[v], FS_ENUM_NAME_LEN, "%s_%d", fallback, v);
		if (known)
			known[v] = false;
	}
	for (int i = 0; t && i < btf_vlen(t); i++) {
		const struct btf_enum *e = &btf_enum(t)[i];
		const char *name = btf__name_by_offset(vmlinux, e->name_off);
		char *out;

		if (e->val < 0 || e->val >= nr || !name || strncmp(name, "NR_", 3) == 0)
			continue;
		if (strncmp(name, prefix, strlen(prefix)) == 0)
			name += strlen(prefix);
		out = names[e->val];
		snprintf(out, FS_ENUM_NAME_LEN, "%s", name);
		for (; *out; out++)
			*out = tolower((unsigned char)*out);
		if (known)
			known[e->val] = true;
	}
}

/* How many arguments a tracepoint passes, from the prototype of its btf_trace_<name> typedef
 * (whose first parameter is the tracepoint's private data, not an argument); -1 if unknown. */
static int tracepoint_nr_args(const struct btf *vmlinux, const char *tracepoint)
{
	char type_name[128];
	const struct btf_type *t;
	__s32 id;

	snprintf(type_name, sizeof(type_name), "btf_trace_%s", tracepoint);
	id = btf__find_by_name_kind(vmlinux, type_name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -1;
	t = btf__type_by_id(vmlinux, id);
	while (t && (btf_is_typedef(t) || btf_is_ptr(t)))
		t = btf__type_by_id(vmlinux, t->type);
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) < 1)
		return -1;
	return btf_vlen(t) - 1;
}

/* Attach probe i, or say why not. Returns -1 when it was required. */
static int attach_probe(struct loader *loader, int i, char *err, size_t err_len)
{
	const struct probe_def *def = &probe_defs[i];
	struct probe_status *st = &loader->probes[i];
	struct bpf_program *prog = loader->programs[i];
	struct bpf_link *link;

	if (!bpf_program__autoload(prog))
		goto missing;
	if (def->needs && !loader->probes[def->needs].attached) {
		snprintf(st->reason, sizeof(st->reason), "not attached: needs %s",
			 probe_defs[def->needs].name);
		goto missing;
	}
	if (def->perf_event) {
		int ret = perf_events_attach(&loader->perf_links[i], prog, def->perf_config);

		if (ret) {
			snprintf(st->reason, sizeof(st->reason), "failed to open perf's %s event: %s",
				 strchr(def->name, ':') + 1, strerror(-ret));
			goto missing;
		}
		st->attached = true;
		return 0;
	}
	link = bpf_program__attach(prog);
	if (!link) {
		snprintf(st->reason, sizeof(st->reason), "failed to attach: %s", strerror(errno));
		goto missing;
	}
	loader->links[i] = link;
	st->attached = true;
	return 0;
missing:
	if (def->core) {
		set_error(err, err_len, "failed to attach %s: %s", def->name, st->reason);
		return -1;
	}
	return 0;
}

/*
 * THREAD_SIZE, which the stack test needs (compat.bpf.h), measured: the loader renames itself
 * to FS_PROBE_COMM while fs_start_up_rename is attached, and that program notes how far its
 * frame is from the base of the loader's stack. A shallow system call runs near the top of the
 * stack, so the size is the power of two just above that offset, with the depth below half of
 * it. The same event shows the loader's pid as the kernel's tracepoints see it: another than
 * getpid()'s means a PID namespace. The program heeds the loader's thread alone, known by its
 * tid in its PID namespace (start_up.bpf.h), so no other task's rename, whatever its name, can
 * change either conclusion.
 */
static void measure_stack(struct loader *loader, const struct kernel_facts *facts)
{
	struct bpf_program *prog = loader->skel->progs.fs_start_up_rename;
	struct host_facts *hf = &loader->facts;
	char name[FS_COMM_LEN + 1] = "";
	__u64 offset, size = 4096;
	struct bpf_link *link;

	hf->stack_size = facts->assumed_stack_size;
	if (!bpf_program__autoload(prog) || prctl(PR_GET_NAME, name))
		return;
	link = bpf_program__attach(prog);
	if (!link)
		return;
	if (prctl(PR_SET_NAME, FS_PROBE_COMM) == 0)
		prctl(PR_SET_NAME, name);
	bpf_link__destroy(link);
	offset = loader->skel->bss->fs_probe.frame_offset;
	while (size <= offset && size < (1 << 24))
		size <<= 1;
	if (loader->skel->bss->fs_probe.seen && size >= 8192 && offset < size &&
	    size - offset < size / 2) {
		hf->stack_size = size;
		hf->stack_size_measured = true;
	}
	hf->own_key = loader->skel->bss->fs_probe.key;
	hf->pid_namespaced = loader->skel->bss->fs_probe.seen &&
			     (__u32)(hf->own_key >> 32) != (__u32)getpid();
}

/* Give every CPU's state the stacks' size (struct fs_cpu_state), measured once programs run: before
 * any program that reads it is attached, and before any writes to it, since the whole value is
 * replaced. */
static int configure_cpus(struct loader *loader)
{
	int nr_cpus = libbpf_num_possible_cpus();
	struct fs_cpu_state *values;
	__u32 zero = 0;
	int err;

	if (nr_cpus < 0)
		return nr_cpus;
	values = calloc(nr_cpus, sizeof(*values));
	if (!values)
		return -ENOMEM;
	for (int i = 0; i < nr_cpus; i++)
		values[i].stack_size = loader->facts.stack_size;
	err = bpf_map__update_elem(loader->skel->maps.fs_cpu_states, &zero, sizeof(zero), values,
				   nr_cpus * sizeof(*values), 0);
	free(values);
	return err;
}

/* Where allocations are counted per node, check first that page flags give the node where BPF
 * reads it (nodes.h): before the allocation probe is attached, so that every allocation it
 * counts is counted by node, or the figures per node are not shown at all. */
static void check_nodes(struct loader *loader)
{
	struct memory_nodes *n = &loader->nodes;
	struct bpf_link *link;

	if (!memory_nodes_to_count(n))
		return;
	link = bpf_program__attach(loader->skel->progs.fs_node_calibrate);
	if (!link) {
		snprintf(n->why, sizeof(n->why), "failed to attach the node check: %s",
			 strerror(errno));
		return;
	}
	memory_nodes_check(n, loader->skel);
	bpf_link__destroy(link);
}

/* Measure the stacks the probes test, then attach every probe in order. */
static int attach_probes(struct loader *loader, const struct kernel_facts *facts, char *err,
			 size_t err_len)
{
	int ret;

	measure_stack(loader, facts);
	ret = configure_cpus(loader);
	if (ret) {
		set_error(err, err_len, "failed to configure the per-CPU state: %s",
			  strerror(-ret));
		return -1;
	}
	check_nodes(loader);
	for (int i = 0; i < NR_PROBES; i++)
		if (attach_probe(loader, i, err, err_len))
			return -1;
	return 0;
}

/* The probe a program belongs to, as far as loading goes: start-up's rename goes with the
 * rename probe (same tracepoint, loaded with it, refused with it). */
static int probe_of_program(const char *program)
{
	if (strcmp(program, "fs_start_up_rename") == 0)
		return PROBE_TASK_RENAME;
	for (int i = 0; i < NR_PROBES; i++)
		for (int f = 0; f < NR_FLAVOURS && probe_defs[i].flavours[f].program; f++)
			if (strcmp(probe_defs[i].flavours[f].program, program) == 0)
				return i;
	return -1;
}

/* A table's four maps sized for `capacity` entries (see FS_INDEXED_TABLE in maps.bpf.h). */
static void size_table(struct bpf_map *values, struct bpf_map *index, struct bpf_map *free,
		       struct bpf_map *taken, __u32 capacity)
{
	bpf_map__set_max_entries(values, capacity);
	bpf_map__set_max_entries(index, capacity);
	bpf_map__set_max_entries(free, capacity);
	bpf_map__set_max_entries(taken, (capacity + 63) / 64);
}

/* How events are attributed (see attribution.bpf.h): records where sched_switch keeps them and
 * no program can be preempted, lookups otherwise. */
static void choose_attribution(struct loader *loader, const struct kernel_facts *facts,
			       bool switch_refused)
{
	struct host_facts *hf = &loader->facts;
	const struct probe_status *sw = &loader->probes[PROBE_SWITCH];

	hf->preemptible = facts->preemptible;
	hf->attribution = ATTRIBUTION_RECORDS;
	hf->attribution_why[0] = '\0';
	if (facts->preemptible)
		snprintf(hf->attribution_why, sizeof(hf->attribution_why),
			 "tracepoint programs may be preempted: %s", facts->preemptible_why);
	else if (switch_refused || !bpf_program__autoload(loader->programs[PROBE_SWITCH]))
		snprintf(hf->attribution_why, sizeof(hf->attribution_why),
			 "sched:sched_switch %.100s", sw->reason);
	else
		return;
	hf->attribution = ATTRIBUTION_LOOKUPS;
}

/* Faults come from the x86 tracepoints where either loads (they tell access and cause), else
 * from perf's page-fault event (mode only); never both, which would count each fault twice. */
static void choose_fault_source(struct loader *loader)
{
	struct bpf_program *event = loader->programs[PROBE_FAULT_EVENT];

	if (!bpf_program__autoload(event) ||
	    (!bpf_program__autoload(loader->programs[PROBE_FAULT_USER]) &&
	     !bpf_program__autoload(loader->programs[PROBE_FAULT_KERNEL])))
		return;
	bpf_program__set_autoload(event, false);
	loader->probes[PROBE_FAULT_EVENT].not_needed = true;
	snprintf(loader->probes[PROBE_FAULT_EVENT].reason,
		 sizeof(loader->probes[PROBE_FAULT_EVENT].reason),
		 "not needed: the exceptions tracepoints count faults here");
}

/* Where allocations are counted per node (nodes.h), the allocation probe's program is the one
 * that counts them, and the node check's loads with it; elsewhere neither loads. */
static void choose_node_counting(struct loader *loader)
{
	struct foliostat_bpf *skel = loader->skel;
	struct bpf_program *alloc = loader->programs[PROBE_PAGE_ALLOC];
	bool by_node = memory_nodes_to_count(&loader->nodes) && bpf_program__autoload(alloc);

	skel->rodata->fs_node_shift = (__u32)loader->nodes.shift;
	bpf_program__set_autoload(skel->progs.fs_node_calibrate, by_node);
	bpf_program__set_autoload(skel->progs.fs_page_alloc_by_node, by_node);
	loader->by_node = by_node;
	if (!by_node)
		return;
	bpf_program__set_autoload(alloc, false);
	loader->programs[PROBE_PAGE_ALLOC] = skel->progs.fs_page_alloc_by_node;
}

/*
 * Who start-up's programs heed (start_up.bpf.h): this thread, the one that loads and attaches,
 * by its tid in its PID namespace and that namespace. nsfs gives the namespace's inode and the
 * device in user space's encoding; BPF compares the kernel's (MKDEV: 20 bits of minor). Where
 * /proc cannot tell, no thread matches: stacks keep their assumed size, the PID namespace goes
 * unseen (as without the rename probe) and the node check sees no allocation (no per-node
 * figures, with the reason).
 */
static void identify_loader_thread(struct foliostat_bpf *skel)
{
	struct stat ns;

	if (stat("/proc/thread-self/ns/pid", &ns) && stat("/proc/self/ns/pid", &ns))
		return;
	skel->rodata->fs_loader_pidns_dev = (__u64)major(ns.st_dev) << 20 | minor(ns.st_dev);
	skel->rodata->fs_loader_pidns_ino = ns.st_ino;
	skel->rodata->fs_loader_tid = (__u32)syscall(SYS_gettid);
}

/* Open the skeleton and configure it for this kernel; probes in `refused` stay unloaded. */
static int open_configured(struct loader *loader, const struct loader_settings *settings,
			   const struct kernel_facts *facts, char (*refused)[160], char *err,
			   size_t err_len)
{
	struct foliostat_bpf *skel;

	loader->skel = foliostat_bpf__open();
	if (!loader->skel) {
		set_error(err, err_len, "failed to open BPF object: %s", strerror(errno));
		return -1;
	}
	probe_kernel(loader, facts);
	for (int i = 0; i < NR_PROBES; i++) {
		test_refuse_program(loader->programs[i], probe_defs[i].name);
		if (!refused[i][0])
			continue;
		snprintf(loader->probes[i].reason, sizeof(loader->probes[i].reason), "%.150s",
			 refused[i]);
		bpf_program__set_autoload(loader->programs[i], false);
	}
	choose_fault_source(loader);
	choose_attribution(loader, facts, refused[PROBE_SWITCH][0] != '\0');
	skel = loader->skel;
	/* The settings the verifier prunes by (maps.bpf.h), read-only once loaded; each load
	 * attempt opens anew, so a refused sched_switch turns records off in the next. */
	skel->rodata->fs_use_records = loader->facts.attribution == ATTRIBUTION_RECORDS;
	skel->rodata->fs_preemptible = facts->preemptible;
	skel->rodata->fs_select_followed = loader->following;
	skel->rodata->fs_nr_select_cgroups = loader->nr_cgroups;
	choose_node_counting(loader);
	bpf_program__set_autoload(skel->progs.fs_start_up_rename,
				  bpf_program__autoload(loader->programs[PROBE_TASK_RENAME]));
	identify_loader_thread(skel);
	memcpy(skel->rodata->fs_select_cgroups, settings->cgroup_refs,
	       sizeof(settings->cgroup_refs[0]) * settings->nr_cgroups);
	loader->facts.task_capacity = (__u32)settings->max_tasks;
	loader->facts.proc_capacity = proc_capacity_for(settings->max_tasks);
	size_table(skel->maps.fs_tasks, skel->maps.fs_tasks_index, skel->maps.fs_tasks_free,
		   skel->maps.fs_tasks_taken, loader->facts.task_capacity);
	size_table(skel->maps.fs_procs, skel->maps.fs_procs_index, skel->maps.fs_procs_free,
		   skel->maps.fs_procs_taken, loader->facts.proc_capacity);
	/* Threads' allocations by node and order: one entry nothing writes where not counted. */
	bpf_map__set_max_entries(skel->maps.fs_task_nodes,
				 loader->by_node ? loader->facts.task_capacity : 1);
	/* A command's live processes at once; one entry where nothing is followed. */
	bpf_map__set_max_entries(skel->maps.fs_followed,
				 loader->following ? settings->max_tasks : 1);
	files_size_maps(skel, settings->files, settings->max_files);
	return 0;
}

/*
 * Load, and where the kernel refuses the program of a probe that is not required (a verifier
 * that differs from the ones we know), load again without it: it is reported with the reason
 * and everything else runs.
 */
static int load_what_loads(struct loader *loader, const struct loader_settings *settings,
			   const struct kernel_facts *facts, char *err, size_t err_len)
{
	static char refused[NR_PROBES][160];

	memset(refused, 0, sizeof(refused));
	for (int attempt = 0; attempt <= NR_PROBES; attempt++) {
		int ret, probe;

		if (open_configured(loader, settings, facts, refused, err, err_len))
			return -1;
		refused_program[0] = '\0';
		ret = foliostat_bpf__load(loader->skel);
		if (!ret)
			return 0;
		probe = probe_of_program(refused_program);
		if (probe < 0 || probe_defs[probe].core || ret == -EPERM) {
			if (probe >= 0 && ret != -EPERM)
				set_error(err, err_len, "failed to load the program for %s: %s%s",
					  probe_defs[probe].name, strerror(-ret),
					  privilege_hint(ret));
			else
				set_error(err, err_len, "failed to load BPF programs: %s%s",
					  strerror(-ret), privilege_hint(ret));
			return -1;
		}
		snprintf(refused[probe], sizeof(refused[probe]),
			 "failed to load: the kernel refused the program (%s)", strerror(-ret));
		foliostat_bpf__destroy(loader->skel);
		loader->skel = NULL;
	}
	set_error(err, err_len, "failed to load BPF programs: too many refused");
	return -1;
}

static void learn_kernel(const struct btf *vmlinux, struct kernel_facts *facts)
{
	char type_name[128];

	for (int i = 0; i < NR_PROBES; i++) {
		/* Not a tracepoint (perf's events): present on every kernel foliostat runs on. */
		facts->has_tracepoint[i] = true;
		facts->nr_args[i] = -1;
		if (!probe_defs[i].tracepoint)
			continue;
		snprintf(type_name, sizeof(type_name), "btf_trace_%s", probe_defs[i].tracepoint);
		facts->has_tracepoint[i] =
		    btf__find_by_name_kind(vmlinux, type_name, BTF_KIND_TYPEDEF) >= 0;
		facts->nr_args[i] = tracepoint_nr_args(vmlinux, probe_defs[i].tracepoint);
	}
	facts->assumed_stack_size = assumed_stack_size(vmlinux);
	facts->preemptible = kernel_preemptible(vmlinux, &facts->preemptible_why);
}

int loader_start(struct loader *loader, const struct loader_settings *settings, char *err,
		 size_t err_len)
{
	struct kernel_facts facts = {0};
	struct btf *vmlinux = NULL;
	int ret;

	memset(loader, 0, sizeof(*loader));
	loader->online_fd = loader->opener_fd = -1;
	loader->following = settings->following;
	loader->files = settings->files;
	loader->nr_cgroups = settings->nr_cgroups;
	verbose = settings->verbose;
	libbpf_set_print(print_libbpf);

	if (access(VMLINUX_BTF, R_OK)) {
		set_error(err, err_len,
			  "failed to find kernel BTF: %s: %s (foliostat needs a kernel built "
			  "with CONFIG_DEBUG_INFO_BTF=y)",
			  VMLINUX_BTF, strerror(errno));
		return -1;
	}
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		set_error(err, err_len, "failed to read kernel BTF: %s", strerror(errno));
		return -1;
	}
	learn_kernel(vmlinux, &facts);
	memory_nodes_learn(&loader->nodes, vmlinux, test_count_nodes());
	read_enum_names(vmlinux, "scan_result", "SCAN_", "result", loader->scan_names, NULL,
			FS_NR_SCAN_RESULTS);
	read_enum_names(vmlinux, "tlb_flush_reason", "TLB_", "reason", loader->tlb_names,
			loader->tlb_known, FS_NR_TLB_REASONS);
	read_enum_names(vmlinux, "lru_list", "LRU_", "lru", loader->lru_names, loader->lru_known,
			FS_NR_LRU_LISTS);
	btf__free(vmlinux);
	if (load_what_loads(loader, settings, &facts, err, err_len))
		goto fail;
	loader->migrate_large_split =
	    strcmp(bpf_program__name(loader->programs[PROBE_MIGRATE]), "fs_migrate_pages") == 0;
	/* Every index free before any program can want one. */
	ret = table_fill_free(bpf_map__fd(loader->skel->maps.fs_tasks),
			      bpf_map__fd(loader->skel->maps.fs_tasks_free), sizeof(struct fs_task),
			      loader->facts.task_capacity);
	if (!ret)
		ret = table_fill_free(bpf_map__fd(loader->skel->maps.fs_procs),
				      bpf_map__fd(loader->skel->maps.fs_procs_free),
				      sizeof(struct fs_proc), loader->facts.proc_capacity);
	if (ret) {
		set_error(err, err_len, "failed to fill the tables' free lists: %s",
			  strerror(-ret));
		goto fail;
	}
	/* Before any program runs: the tables' reads wait for running programs. */
	ret = bpf_programs_wait_prepare();
	if (ret) {
		set_error(err, err_len,
			  "failed to create the map to wait for BPF programs with: %s",
			  strerror(-ret));
		goto fail;
	}
	if (attach_probes(loader, &facts, err, err_len))
		goto fail;
	loader->cpus_fd = bpf_map__fd(loader->skel->maps.fs_cpus);
	loader->nr_cpus = libbpf_num_possible_cpus();
	/* Opened now: reads of it go on once privileges are dropped. */
	if (loader_has_perf_events(loader))
		loader->online_fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
	return 0;
fail:
	loader_stop(loader);
	return -1;
}

const char *probe_name(enum fs_probe probe)
{
	return probe_defs[probe].name;
}

bool loader_has_perf_events(const struct loader *loader)
{
	for (int i = 0; i < NR_PROBES; i++)
		if (loader->perf_links[i].links)
			return true;
	return false;
}

int loader_start_opener(struct loader *loader)
{
	if (!loader_has_perf_events(loader))
		return 0;
	loader->opener_fd = perf_opener_start();
	if (loader->opener_fd < 0)
		return loader->opener_fd;
	for (int i = 0; i < NR_PROBES; i++)
		loader->perf_links[i].opener = loader->opener_fd;
	return 0;
}

int loader_follow_cpus(struct loader *loader)
{
	char text[4096];
	ssize_t n;
	bool *online;
	int ret = 0;

	if (loader->online_fd < 0)
		return 0;
	/* sysfs makes the text anew at each read from offset 0. */
	n = pread(loader->online_fd, text, sizeof(text) - 1, 0);
	if (n < 0)
		return -errno;
	text[n] = '\0';
	online = calloc(loader->nr_cpus, sizeof(*online));
	if (!online)
		return -ENOMEM;
	ret = parse_cpu_list(text, online, loader->nr_cpus);
	for (int i = 0; !ret && i < NR_PROBES; i++)
		if (loader->perf_links[i].links) {
			int opened =
			    perf_events_refresh(&loader->perf_links[i], online, loader->nr_cpus);

			ret = opened < 0 ? opened : 0;
		}
	free(online);
	return ret;
}

int loader_open_reader(const struct loader *loader, struct reader *reader)
{
	const __typeof__(loader->skel->maps) *m = &loader->skel->maps;
	int err;

	memset(reader, 0, sizeof(*reader));
	err = table_open(&reader->tasks, bpf_map__fd(m->fs_tasks), bpf_map__fd(m->fs_tasks_index),
			 bpf_map__fd(m->fs_tasks_free), bpf_map__fd(m->fs_tasks_taken),
			 sizeof(struct fs_task), loader->facts.task_capacity);
	if (!err && loader->by_node)
		err = table_open_side(&reader->tasks, bpf_map__fd(m->fs_task_nodes),
				      sizeof(struct fs_node_orders));
	if (!err)
		err = table_open(&reader->procs, bpf_map__fd(m->fs_procs),
				 bpf_map__fd(m->fs_procs_index), bpf_map__fd(m->fs_procs_free),
				 bpf_map__fd(m->fs_procs_taken), sizeof(struct fs_proc),
				 loader->facts.proc_capacity);
	if (!err)
		err = reader_init_cpus(reader, loader->cpus_fd, loader->nr_cpus);
	if (err)
		reader_close(reader);
	return err;
}

int loader_follow(struct loader *loader, pid_t pid)
{
	__u32 tgid = (__u32)pid;
	__u8 yes = 1;

	return bpf_map__update_elem(loader->skel->maps.fs_followed, &tgid, sizeof(tgid), &yes,
				    sizeof(yes), BPF_ANY);
}

void loader_stop(struct loader *loader)
{
	for (int i = 0; i < NR_PROBES; i++)
		bpf_link__destroy(loader->links[i]);
	for (int i = 0; i < NR_PROBES; i++)
		perf_events_detach(&loader->perf_links[i]);
	foliostat_bpf__destroy(loader->skel);
	memset(loader->links, 0, sizeof(loader->links));
	loader->skel = NULL;
	if (loader->online_fd >= 0)
		close(loader->online_fd);
	if (loader->opener_fd >= 0)
		close(loader->opener_fd); /* the opener exits */
	loader->online_fd = loader->opener_fd = -1;
}
