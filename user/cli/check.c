// SPDX-License-Identifier: GPL-2.0
/*
 * foliostat --check: loads and attaches every probe the way a run would, reports each with its
 * state, and the facts that decide what foliostat can do here (BTF, privileges, THP and MGLRU
 * modes), then detaches.
 */
#include "check.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cap-ng.h>
#include <linux/capability.h>
#include <sys/utsname.h>

#include "json_writer.h"
#include "figures.h"
#include "loader.h"
#include "privileges.h"
#include "record_layout.h"
#include "report.h"
#include "settings.h"
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

/* What a run keeps once its probes are attached (privileges.h); --check takes neither
 * --replace nor a command, so the uid is a plain run's. */
static void print_after_start(const struct privileges_after *after)
{
	printf("  %-46s uid %u (%s), capabilities %s, no_new_privs\n", "privileges after start-up",
	       (unsigned)after->uid,
	       after->uid_kept_for ? after->uid_kept_for
	       : geteuid() == 0	   ? "0 with --replace or -- COMMAND"
				   : "unchanged: not root",
	       after->cap_bpf ? "CAP_BPF only" : "none");
	char runs[128];

	if (after->landlock_abi)
		printf("  %-46s ABI %d: reads /proc, /sys, cgroup2; writes only beneath "
		       "--replace's directory\n",
		       "Landlock", after->landlock_abi);
	else
		printf("  %-46s absent (kernel without it, or not enabled at boot)\n", "Landlock");
	if (privileges_root_without_landlock(after, true, geteuid(), runs, sizeof(runs)))
		printf("  %-46s %s: after start-up %s keeps a flaw from root's files\n",
		       "warning: uid 0 without Landlock", runs,
		       after->seccomp ? "only the seccomp filter" : "nothing");
	printf("  %-46s %s\n", "seccomp filter",
	       after->seccomp
		   ? "on: no exec, ptrace, new sockets, uid changes, mounts, BPF loads, TIOCSTI"
		   : "off (kernel or architecture without seccomp filters)");
}

/* What the check found; the probes' states and the host's facts are the loader's, kept after
 * it has stopped. */
struct check {
	struct utsname uts;
	bool btf, cap_bpf, cap_perfmon;
	char thp[32], defrag[32];
	bool loaded; /* everything required loaded and attached: usable */
	char err[512];
	struct loader loader;
	struct privileges_after after;
	const char *wait_method, *wait_why;
	bool measured[NR_MEASURES]; /* what the probes measure (figures.h) */
};

/* Each record figure that is null here, the topmost only (an object's members are null with
 * it): its path and what it needs, for each in the registry's order. */
static void null_figures(const struct check *c,
			 void (*each)(void *arg, const char *path, const char *needs), void *arg)
{
	for (int i = 0; i < nr_record_figures;) {
		const struct record_figure *f = &record_figures[i];
		char path[256], needs[400];

		if (f->measure == MEASURE_NONE || c->measured[f->measure]) {
			i++;
			continue;
		}
		record_figure_path(i, path, sizeof(path));
		measure_needs(f->measure, needs, sizeof(needs));
		each(arg, path, needs);
		i = record_figure_skip(i);
	}
}

static void null_figure_json(void *arg, const char *path, const char *needs)
{
	struct json_writer *w = arg;

	jw_key(w, path);
	jw_string(w, needs);
}

static void null_figure_text(void *arg, const char *path, const char *needs)
{
	(*(int *)arg)++;
	printf("  %-46s null: needs %s\n", path, needs);
}

/* How allocations find their node (nodes.h), in words. */
static const char *nodes_method(const struct memory_nodes *n)
{
	if (n->counted)
		return "page flags";
	return n->known ? "one node" : NULL;
}

static void nodes_text(const struct memory_nodes *n)
{
	char ids[64] = "";
	size_t used = 0;

	for (int i = 0; i < n->nr && used < sizeof(ids); i++)
		used += snprintf(ids + used, sizeof(ids) - used, "%s%d", i ? ", " : "", n->ids[i]);
	if (n->counted)
		printf("  %-46s %s: allocations counted per node from page flags, checked on %d\n",
		       "memory nodes", ids, n->checked);
	else if (n->known)
		printf("  %-46s %s: every allocation is on it\n", "memory nodes", ids);
	else
		printf("  %-46s %s%snot counted per node: %s\n", "memory nodes", ids,
		       ids[0] ? ": " : "", n->why);
}

/* The check as one JSON document, written by json_writer. */
static int check_json(const struct check *c)
{
	const struct host_facts *hf = &c->loader.facts;
	struct json_writer w = {0};
	const char *why_root;
	char runs[128];
	int ret = 0;

	jw_reset(&w);
	jw_object_begin(&w);
	jw_member_int(&w, "schema", 1);
	jw_key(&w, "check");
	jw_object_begin(&w);
	jw_key(&w, "kernel");
	jw_string(&w, c->uts.release);
	jw_key(&w, "btf");
	jw_bool(&w, c->btf);
	jw_key(&w, "privileges");
	jw_object_begin(&w);
	jw_member_int(&w, "euid", (int)geteuid());
	jw_key(&w, "cap_bpf");
	jw_bool(&w, c->cap_bpf);
	jw_key(&w, "cap_perfmon");
	jw_bool(&w, c->cap_perfmon);
	jw_key(&w, "after_start");
	if (c->loaded) {
		jw_object_begin(&w);
		jw_member_int(&w, "uid", (int)c->after.uid);
		jw_key(&w, "cap_bpf");
		jw_bool(&w, c->after.cap_bpf);
		jw_key(&w, "no_new_privs");
		jw_bool(&w, true);
		jw_key(&w, "landlock_abi");
		if (c->after.landlock_abi)
			jw_int(&w, c->after.landlock_abi);
		else
			jw_null(&w);
		jw_key(&w, "seccomp");
		jw_bool(&w, c->after.seccomp);
		why_root = privileges_root_without_landlock(&c->after, true, geteuid(), runs,
							    sizeof(runs));
		jw_member_string_or_null(&w, "uid_0_without_landlock", why_root);
		jw_object_end(&w);
	} else {
		jw_null(&w);
	}
	jw_object_end(&w);
	jw_key(&w, "thp");
	jw_object_begin(&w);
	jw_key(&w, "enabled");
	jw_string(&w, c->thp);
	jw_key(&w, "defrag");
	jw_string(&w, c->defrag);
	jw_object_end(&w);
	jw_key(&w, "mglru");
	jw_bool(&w, host_mglru_enabled());
	if (c->loaded) {
		jw_key(&w, "attribution");
		jw_object_begin(&w);
		jw_key(&w, "method");
		jw_string(&w, attribution_name(hf->attribution));
		jw_member_string_or_null(&w, "why", hf->attribution_why);
		jw_key(&w, "preemptible");
		jw_bool(&w, hf->preemptible);
		jw_object_end(&w);
		jw_key(&w, "kernel_stack");
		jw_object_begin(&w);
		jw_member_int(&w, "bytes", (long long)hf->stack_size);
		jw_key(&w, "measured");
		jw_bool(&w, hf->stack_size_measured);
		jw_object_end(&w);
		jw_key(&w, "program_wait");
		jw_object_begin(&w);
		jw_key(&w, "method");
		jw_string(&w, c->wait_method);
		jw_member_string_or_null(&w, "why", c->wait_why);
		jw_object_end(&w);
		jw_key(&w, "memory_nodes");
		jw_object_begin(&w);
		jw_key(&w, "nodes");
		jw_array_begin(&w);
		for (int i = 0; i < c->loader.nodes.nr; i++)
			jw_int(&w, c->loader.nodes.ids[i]);
		jw_array_end(&w);
		jw_key(&w, "method");
		if (nodes_method(&c->loader.nodes))
			jw_string(&w, nodes_method(&c->loader.nodes));
		else
			jw_null(&w);
		jw_member_string_or_null(&w, "why", c->loader.nodes.why);
		jw_object_end(&w);
	} else {
		jw_member_null(&w, "attribution");
		jw_member_null(&w, "kernel_stack");
		jw_member_null(&w, "program_wait");
		jw_member_null(&w, "memory_nodes");
	}
	jw_key(&w, "probes");
	jw_object_begin(&w);
	for (int i = 0; c->loaded && i < NR_PROBES; i++) {
		const struct probe_status *st = &c->loader.probes[i];

		jw_key(&w, st->name);
		jw_string(&w, st->attached ? "attached" : st->reason);
	}
	jw_object_end(&w);
	jw_key(&w, "null_figures");
	if (c->loaded) {
		jw_object_begin(&w);
		null_figures(c, null_figure_json, &w);
		jw_object_end(&w);
	} else {
		jw_null(&w);
	}
	jw_key(&w, "error");
	if (c->loaded)
		jw_null(&w);
	else
		jw_string(&w, c->err);
	jw_key(&w, "usable");
	jw_bool(&w, c->loaded);
	jw_object_end(&w);
	jw_object_end(&w);
	jw_raw(&w, "\n", 1);
	if (w.failed) {
		fprintf(stderr, "foliostat: failed to write the check: %s\n", strerror(ENOMEM));
		ret = -1;
	} else {
		fwrite(w.text, 1, w.len, stdout);
	}
	jw_free(&w);
	return ret;
}

static void check_text(const struct check *c)
{
	const struct host_facts *hf = &c->loader.facts;

	printf("foliostat check: Linux %s\n", c->uts.release);
	printf("  %-46s %s\n", "kernel BTF (/sys/kernel/btf/vmlinux)",
	       c->btf ? "present" : "missing (needs CONFIG_DEBUG_INFO_BTF=y)");
	printf("  %-46s euid %d, CAP_BPF %s, CAP_PERFMON %s\n", "privileges", (int)geteuid(),
	       c->cap_bpf ? "yes" : "no", c->cap_perfmon ? "yes" : "no");
	if (c->loaded)
		print_after_start(&c->after);
	printf("  %-46s enabled %s, defrag %s\n", "transparent huge pages", c->thp, c->defrag);
	printf("  %-46s %s\n", "multi-generational LRU", host_mglru_enabled() ? "on" : "off");
	if (c->loaded) {
		const char *why = hf->attribution_why[0] ? hf->attribution_why : NULL;

		printf("  %-46s %s%s%s\n", "attribution",
		       hf->attribution == ATTRIBUTION_RECORDS
			   ? "per-CPU records of the running thread (sched_switch)"
			   : "a lookup per event",
		       why ? ": " : "", why ? why : "");
		printf("  %-46s %lld KiB (%s)\n", "kernel stacks", (long long)hf->stack_size / 1024,
		       hf->stack_size_measured ? "measured" : "assumed");
		/* Before --files drains a side, and before a table's entry is reused. */
		printf("  %-46s %s%s%s\n", "wait for running BPF programs", c->wait_method,
		       c->wait_why ? ": " : "", c->wait_why ? c->wait_why : "");
		nodes_text(&c->loader.nodes);
	} else {
		printf("  %-46s %s\n", "probes", c->err);
	}
	for (int i = 0; c->loaded && i < NR_PROBES; i++)
		printf("  %-46s %s\n", c->loader.probes[i].name,
		       c->loader.probes[i].attached ? "attached" : c->loader.probes[i].reason);
	if (c->loaded) {
		int nulls = 0;

		null_figures(c, null_figure_text, &nulls);
		if (!nulls)
			printf("  %-46s %s\n", "record figures", "every one measured here");
	}
	printf("%s\n", c->loaded ? "usable: the required probes attach" : "not usable: see above");
}

int run_check(const struct fs_options *opts)
{
	static struct check c;
	struct loader_settings settings = loader_settings_of(opts);

	uname(&c.uts);
	c.btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	capng_get_caps_process();
	c.cap_bpf = capng_have_capability(CAPNG_EFFECTIVE, CAP_BPF) ||
		    capng_have_capability(CAPNG_EFFECTIVE, CAP_SYS_ADMIN);
	c.cap_perfmon = capng_have_capability(CAPNG_EFFECTIVE, CAP_PERFMON) ||
			capng_have_capability(CAPNG_EFFECTIVE, CAP_SYS_ADMIN);
	read_mode(THP_SYSFS "/enabled", c.thp, sizeof(c.thp));
	read_mode(THP_SYSFS "/defrag", c.defrag, sizeof(c.defrag));

	c.loaded = loader_start(&c.loader, &settings, c.err, sizeof(c.err)) == 0;
	if (c.loaded) {
		/* What a run with these options keeps (a child tries the map read). */
		privileges_predict(&c.loader, opts, &c.after);
		measures_of(&c.loader, host_mglru_enabled(), c.measured);
		c.wait_method = bpf_programs_wait_method(&c.wait_why);
		loader_stop(&c.loader);
	}
	if (opts->json) {
		if (check_json(&c))
			return 1;
	} else {
		check_text(&c);
	}
	return c.loaded ? 0 : 1;
}
