// SPDX-License-Identifier: GPL-2.0
/*
 * foliostat --check: loads and attaches every probe the way a run would, reports each with its
 * state, and the facts that decide what foliostat can do here (BTF, privileges, THP and MGLRU
 * modes), then detaches.
 */
#include "check.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cap-ng.h>
#include <linux/capability.h>
#include <sys/utsname.h>

#include "loader.h"
#include "privileges.h"
#include "report.h"
#include "table.h"

#define THP_SYSFS "/sys/kernel/mm/transparent_hugepage"

/* The bracketed choice of a sysfs mode file ("always [madvise] never" -> "madvise"). */
static void read_mode(const char *path, char *out, size_t len)
{
	char line[256] = "", *open_b, *close_b;
	FILE *f = fopen(path, "r");

	snprintf(out, len, "unavailable");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f) && (open_b = strchr(line, '[')) &&
	    (close_b = strchr(open_b, ']'))) {
		*close_b = '\0';
		snprintf(out, len, "%s", open_b + 1);
	}
	fclose(f);
}

/* What a run keeps once its probes are attached (privileges.h); --check takes neither -o nor
 * a command, so the uid is a plain run's. */
static void print_after_start(const struct privileges_after *after)
{
	printf("  %-46s uid %u (%s), capabilities %s, no_new_privs\n", "privileges after start-up",
	       (unsigned)after->uid,
	       after->uid_kept_for ? after->uid_kept_for
	       : geteuid() == 0	   ? "0 with -o or -- COMMAND"
				   : "unchanged: not root",
	       after->cap_bpf ? "CAP_BPF only" : "none");
	if (after->landlock_abi)
		printf("  %-46s ABI %d: reads /proc, /sys, cgroup2; writes only beneath -o's "
		       "directory\n",
		       "Landlock", after->landlock_abi);
	else
		printf("  %-46s absent (kernel without it, or not enabled at boot)\n", "Landlock");
	printf("  %-46s %s\n", "seccomp filter",
	       after->seccomp ? "on: no exec, ptrace, new sockets, uid changes, mounts, BPF loads"
			      : "off (kernel or architecture without seccomp filters)");
}

int run_check(const struct fs_options *opts)
{
	char err[512] = "", thp[32], defrag[32];
	struct loader loader;
	struct utsname uts;
	bool btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	bool cap_bpf, cap_perfmon, loaded, core_ok = true;
	json_t *probes = json_object(), *record, *attribution = json_null(), *stack = json_null();
	json_t *after_start = json_null();
	struct privileges_after after;
	json_t *program_wait = json_null();

	uname(&uts);
	capng_get_caps_process();
	cap_bpf = capng_have_capability(CAPNG_EFFECTIVE, CAP_BPF) ||
		  capng_have_capability(CAPNG_EFFECTIVE, CAP_SYS_ADMIN);
	cap_perfmon = capng_have_capability(CAPNG_EFFECTIVE, CAP_PERFMON) ||
		      capng_have_capability(CAPNG_EFFECTIVE, CAP_SYS_ADMIN);
	read_mode(THP_SYSFS "/enabled", thp, sizeof(thp));
	read_mode(THP_SYSFS "/defrag", defrag, sizeof(defrag));

	loaded = loader_start(&loader, opts, err, sizeof(err)) == 0;
	if (loaded) {
		const struct host_facts *hf = &loader.facts;

		for (int i = 0; i < NR_PROBES; i++)
			json_object_set_new(probes, loader.probes[i].name,
					    json_string(loader.probes[i].attached
							    ? "attached"
							    : loader.probes[i].reason));
		attribution =
		    json_pack("{s:s, s:s?, s:b}", "method", attribution_name(hf->attribution),
			      "why", hf->attribution_why[0] ? hf->attribution_why : NULL,
			      "preemptible", hf->preemptible);
		stack = json_pack("{s:I, s:b}", "bytes", (json_int_t)hf->stack_size, "measured",
				  hf->stack_size_measured);
		/* What a run with these options keeps (a child tries the map read). */
		privileges_predict(&loader, opts, &after);
		after_start =
		    json_pack("{s:i, s:b, s:b, s:o, s:b}", "uid", (int)after.uid, "cap_bpf",
			      after.cap_bpf, "no_new_privs", 1, "landlock_abi",
			      after.landlock_abi ? json_integer(after.landlock_abi) : json_null(),
			      "seccomp", after.seccomp);
		{
			const char *why, *method = bpf_programs_wait_method(&why);

			program_wait = json_pack("{s:s, s:s?}", "method", method, "why", why);
		}
		loader_stop(&loader);
	} else {
		core_ok = false;
	}

	if (opts->json) {
		record = json_pack("{s:i, s:{s:s, s:b, s:{s:i, s:b, s:b, s:o}, s:{s:s, s:s}, s:b, s:o, "
				   "s:o, s:o, s:o, s:s?, s:b}}",
				   "schema", 1, "check", "kernel", uts.release, "btf", btf,
				   "privileges", "euid", (int)geteuid(), "cap_bpf", cap_bpf,
				   "cap_perfmon", cap_perfmon, "after_start", after_start, "thp",
				   "enabled", thp, "defrag",
				   defrag, "mglru", host_mglru_enabled(), "attribution",
				   attribution, "kernel_stack", stack, "program_wait", program_wait,
				   "probes", probes, "error",
				   loaded ? NULL : err, "usable", core_ok);
		json_dumpf(record, stdout, JSON_COMPACT);
		fputc('\n', stdout);
		json_decref(record);
	} else {
		const char *name;
		json_t *state;

		printf("foliostat check: Linux %s\n", uts.release);
		printf("  %-46s %s\n", "kernel BTF (/sys/kernel/btf/vmlinux)",
		       btf ? "present" : "missing (needs CONFIG_DEBUG_INFO_BTF=y)");
		printf("  %-46s euid %d, CAP_BPF %s, CAP_PERFMON %s\n", "privileges",
		       (int)geteuid(), cap_bpf ? "yes" : "no", cap_perfmon ? "yes" : "no");
		if (json_is_object(after_start))
			print_after_start(&after);
		json_decref(after_start);
		printf("  %-46s enabled %s, defrag %s\n", "transparent huge pages", thp, defrag);
		printf("  %-46s %s\n", "multi-generational LRU",
		       host_mglru_enabled() ? "on" : "off");
		if (json_is_object(attribution)) {
			const char *why = json_string_value(json_object_get(attribution, "why"));

			printf("  %-46s %s%s%s\n", "attribution",
			       strcmp(json_string_value(json_object_get(attribution, "method")),
				      "records") == 0
				   ? "per-CPU records of the running thread (sched_switch)"
				   : "a lookup per event",
			       why ? ": " : "", why ? why : "");
			printf("  %-46s %lld KiB (%s)\n", "kernel stacks",
			       json_integer_value(json_object_get(stack, "bytes")) / 1024,
			       json_is_true(json_object_get(stack, "measured")) ? "measured"
										: "assumed");
		}
		if (json_is_object(program_wait)) {
			const char *why = json_string_value(json_object_get(program_wait, "why"));

			/* Before --files drains a side, and before a table's entry is reused. */
			printf("  %-46s %s%s%s\n", "wait for running BPF programs",
			       json_string_value(json_object_get(program_wait, "method")),
			       why ? ": " : "", why ? why : "");
		}
		json_decref(attribution);
		json_decref(stack);
		json_decref(program_wait);
		if (!loaded)
			printf("  %-46s %s\n", "probes", err);
		json_object_foreach(probes, name, state)
		    printf("  %-46s %s\n", name, json_string_value(state));
		printf("%s\n",
		       core_ok ? "usable: the required probes attach" : "not usable: see above");
		json_decref(probes);
	}
	return core_ok ? 0 : 1;
}
