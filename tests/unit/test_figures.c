// SPDX-License-Identifier: GPL-2.0
/* The figure registry's two views of the same counters agree: each record figure names the
 * exposition's families that expose it (record_layout.c, metric_families.c), a family is shown
 * exactly where one of its figures is measured, and every measured figure of a record is exposed
 * by a family that is shown, but the two the exposition leaves to JSON. And no HELP line of an
 * exposition is written but a registry row's. */
#include <glob.h>
#include <stdlib.h>

#include "bounds.h"
#include "exposition.h"
#include "figures.h"
#include "record_layout.h"
#include "unit.h"

/* Figures only records have: whether the multi-generational LRU is on (a fact, not a count),
 * and the folios of reclaim's writes (the exposition has their pages). */
static const char *const json_only[] = {"lru.mglru", "reclaim.vmscan.written.folios"};

/* Whether record figure i is exposed by family m (or by a row of its name). */
static bool exposes(int i, enum metric_id m)
{
	const unsigned char *by = record_figures[i].exposed_by;

	for (int k = 0; k < 3 && by[k] != MF_NONE; k++)
		if (!strcmp(metric_families[by[k]].name, metric_families[m].name))
			return true;
	return false;
}

/* Families of the system's counters and of foliostat itself say what they expose only in their
 * words (the sections without record figures: --resident's report is not a figure row, and
 * foliostat's health is no record figure). */
static bool exposes_a_record_figure(enum metric_id m)
{
	return metric_families[m].section == SECTION_GROUPS ||
	       metric_families[m].section == SECTION_SYSTEM ||
	       metric_families[m].section == SECTION_FREE_MEMORY;
}

/* Every family of the groups, the system and free memory exposes a record figure, and every
 * family is a row with a name, a unit (the one its name says, where it says one) and a HELP. */
static bool families_are_linked_to_record_figures(void)
{
	for (int m = MF_NONE + 1; m < NR_METRIC_FAMILIES; m++) {
		const struct metric_family *f = &metric_families[m];
		bool found = false;

		if (!ASSERT_TRUE(f->name && f->help && f->help[0] && f->unit && f->unit[0]))
			return false;
		/* the unit a name says is the row's: bytes and seconds, as Prometheus has them */
		if (!ASSERT_EQ(!!strstr(f->name, "_bytes"), !strcmp(f->unit, "bytes")) ||
		    !ASSERT_EQ(!!strstr(f->name, "_seconds"), !strcmp(f->unit, "seconds")))
			return false;
		for (int i = 0; i < nr_record_figures && !found; i++)
			found = exposes(i, m);
		if (found != exposes_a_record_figure(m)) {
			fprintf(stderr, "    foliostat_%s: %s\n", f->name,
				found ? "exposes a record figure, in a section without"
				      : "exposes no record figure");
			return false;
		}
	}
	for (size_t j = 0; j < sizeof(json_only) / sizeof(json_only[0]); j++)
		if (!ASSERT_TRUE(record_figure_find(json_only[j]) >= 0))
			return false;
	return true;
}

/* Over random probe states and host facts, and what they measure: a family is shown only where a
 * figure it exposes is measured, and every measured figure of a record (but json_only's) is
 * exposed by a family that is shown. */
static bool families_are_shown_where_their_figures_are_measured(void)
{
	struct probe_status probes[NR_PROBES];
	bool measured[NR_MEASURES];

	srand(26);
	for (int round = 0; round < 2000; round++) {
		struct measure_facts facts = {rand() % 2, rand() % 2, rand() % 2};

		for (int p = 0; p < NR_PROBES; p++)
			probes[p] = (struct probe_status){.attached = rand() % 3 != 0};
		measures_derive(probes, &facts, measured);
		for (int m = MF_NONE + 1; m < NR_METRIC_FAMILIES; m++) {
			bool found = false;

			if (!exposes_a_record_figure(m) || !metric_shown(m, measured))
				continue;
			for (int i = 0; i < nr_record_figures && !found; i++)
				found = exposes(i, m) && record_figure_measured(i, measured);
			if (!found) {
				fprintf(stderr,
					"    foliostat_%s shown, none of its figures measured\n",
					metric_families[m].name);
				return false;
			}
		}
		for (int i = 0; i < nr_record_figures; i++) {
			bool exposed = false;
			char path[256];

			record_figure_path(i, path, sizeof(path));
			if (record_figures[i].kind == RK_OBJECT ||
			    record_figures[i].kind == RK_GROUP ||
			    !record_figure_measured(i, measured))
				continue;
			for (size_t j = 0; j < sizeof(json_only) / sizeof(json_only[0]); j++)
				exposed |= !strcmp(path, json_only[j]);
			for (int m = MF_NONE + 1; m < NR_METRIC_FAMILIES && !exposed; m++)
				exposed = exposes(i, m) && metric_shown(m, measured);
			if (!exposed) {
				fprintf(stderr, "    %s measured, exposed by no family shown\n",
					path);
				return false;
			}
		}
	}
	return true;
}

/* The row of the family a HELP line names (foliostat_X, foliostat_system_X, or OpenMetrics's
 * name without _total or _info), and whether it is the system's family of a group's. */
static const struct metric_family *family_named(const char *name, size_t len, bool *system)
{
	for (int m = MF_NONE + 1; m < NR_METRIC_FAMILIES; m++) {
		const struct metric_family *f = &metric_families[m];

		for (int sys = 0; sys < 2; sys++) {
			char full[160];
			size_t n;

			if (sys && f->section != SECTION_GROUPS)
				continue;
			n = (size_t)snprintf(full, sizeof(full), "foliostat_%s%s",
					     sys ? "system_" : "", f->name);
			if ((n == len || (n == len + 6 && !strcmp(full + len, "_total")) ||
			     (n == len + 5 && !strcmp(full + len, "_info"))) &&
			    !strncmp(full, name, len)) {
				*system = sys;
				return f;
			}
		}
	}
	return NULL;
}

static struct host_info host = {.page_size = 4096};
static const struct memory_nodes two_nodes = {
    .nr = 2, .known = true, .counted = true, .ids = {0, 1}};
static char names[FS_NR_LRU_LISTS > FS_NR_SCAN_RESULTS ? FS_NR_LRU_LISTS : FS_NR_SCAN_RESULTS]
		 [FS_ENUM_NAME_LEN] = {"a", "b"};
static const bool known[FS_NR_LRU_LISTS > FS_NR_TLB_REASONS ? FS_NR_LRU_LISTS : FS_NR_TLB_REASONS] =
    {true, true};

/* An exposition of everything: every probe attached, a count in every word of the system's
 * figures, the kernel's THP counters, --resident (a row), free memory (by migrate type too),
 * --self and a bound in use; in OpenMetrics or not. */
static struct everything {
	struct probe_status probes[NR_PROBES];
	struct fs_report r;
	struct self_cost self;
	struct exposition_health health;
	struct free_zone zone;
	struct free_blocks free;
	struct resident_row row;
	struct resident_report res;
	struct system_totals system;
	struct kernel_counter items[2];
	struct kernel_counters kernel;
	struct series_store s;
	struct exposition e;
} ev;

static bool render_everything(bool openmetrics)
{
	static const struct measure_facts facts = {.migrate_large_split = true,
						   .nodes_known = true};
	struct series_settings opts = {.by = FS_BY_CGROUP, .max_series = 2};
	struct row_table none = {0};

	memset(&ev, 0, sizeof(ev));
	host.nodes = &two_nodes;
	for (int p = 0; p < NR_PROBES; p++)
		ev.probes[p] = (struct probe_status){.name = "g:e", .attached = true};
	ev.r = (struct fs_report){.host = &host, .probes = ev.probes, .nr_probes = NR_PROBES};
	measures_derive(ev.probes, &facts, ev.r.measured);
	ev.r.scan_names = ev.r.tlb_names = ev.r.lru_names = (const char(*)[FS_ENUM_NAME_LEN])names;
	ev.r.tlb_known = ev.r.lru_known = known;
	ev.zone = (struct free_zone){.name = "Normal"};
	ev.free = (struct free_blocks){.nr_orders = 11, .nr_zones = 1, .zones = &ev.zone,
				       .nr_types = 1, .types = {"Movable"}};
	ev.r.free = &ev.free;
	ev.row = (struct resident_row){.cgroup = "/a", .processes = 1};
	ev.row.counts.pages[RESIDENT_ANON][9] = 512;
	ev.row.counts.large[RESIDENT_ANON][MAPPED_PMD] = 1;
	ev.res = (struct resident_report){.rows = &ev.row, .nr = 1, .scanned = 1};
	ev.r.resident = &ev.res;
	/* a bound in use, as the run's self figures read it */
	ev.self.bounds[BOUND_SERIES] = (struct bound_count){.limit = 10, .entries = 1};
	ev.health = (struct exposition_health){.bpf = &ev.self, .bpf_run_time = true};
	for (size_t w = 0; w < sizeof(ev.system) / sizeof(__u64); w++)
		((__u64 *)&ev.system)[w] = 1;
	snprintf(ev.items[0].name, sizeof(ev.items[0].name), "%s",
		 "mthp/hugepages-64kB/anon_fault_alloc");
	snprintf(ev.items[1].name, sizeof(ev.items[1].name), "vmstat/thp_fault_alloc");
	ev.kernel = (struct kernel_counters){.items = ev.items, .nr = 2, .cap = 2};
	series_init(&ev.s, &opts, NULL, NULL, NULL, 0.0);
	return ASSERT_EQ(series_add_read(&ev.s, &none, &ev.system, &ev.kernel, 1.0), 0) &&
	       ASSERT_EQ(render_exposition(&ev.e, &ev.r, &ev.s, &ev.health, openmetrics), 0);
}

static void render_everything_end(void)
{
	exposition_free(&ev.e);
	series_free(&ev.s);
}

/* Whether the first len bytes of a name are a family's (the row's in *f). */
static bool line_family(const char *name, size_t len, const struct metric_family **f, bool *system)
{
	static const char *const parts[] = {"_bucket", "_sum", "_count"};

	*f = family_named(name, len, system);
	for (size_t i = 0; !*f && i < sizeof(parts) / sizeof(parts[0]); i++) {
		size_t n = strlen(parts[i]);

		if (len > n && !strncmp(name + len - n, parts[i], n))
			*f = family_named(name, len - n, system);
	}
	return *f != NULL;
}

static bool fail_line(const char *line)
{
	char text[256];

	snprintf(text, sizeof(text), "%.*s", (int)strcspn(line, "\n"), line);
	return unit_fail(__FILE__, __LINE__, text);
}

/* Every family an exposition of everything writes has a row, and its HELP line is the row's
 * HELP, in both formats; every row but the second of a name is written. */
static bool every_help_line_is_its_registry_row_s(void)
{
	bool ok = true, written[NR_METRIC_FAMILIES] = {0};

	for (int om = 0; om < 2 && ok; om++) {
		ok = render_everything(om);
		for (char *line = ev.e.text; ok && *line; line = strchr(line, '\n') + 1) {
			const char *name = line + 7, *help, *want;
			const struct metric_family *f;
			size_t len;
			bool system;

			if (strncmp(line, "# HELP ", 7))
				continue;
			len = strcspn(name, " ");
			help = name + len + 1;
			if (!line_family(name, len, &f, &system)) {
				ok = fail_line(line);
				break;
			}
			written[f - metric_families] = true;
			want = system && f->system_help ? f->system_help : f->help;
			ok = ASSERT_TRUE(!strncmp(help, want, strlen(want)) &&
					 help[strlen(want)] == '\n');
		}
		render_everything_end();
	}
	for (int m = MF_NONE + 1; ok && m < NR_METRIC_FAMILIES; m++) {
		bool first = true;

		for (int k = MF_NONE + 1; k < m; k++)
			first &= !!strcmp(metric_families[k].name, metric_families[m].name);
		if (first && !written[m])
			ok = unit_fail(__FILE__, __LINE__, metric_families[m].name);
	}
	return ok;
}

/* A row's label names, in order, comma-separated: its dimensions', or its own (their values, in
 * parentheses, left out). */
static void row_labels(const struct metric_family *f, char *out, size_t size)
{
	size_t used = 0;

	out[0] = '\0';
	if (f->kind == MK_BY_DIMS) {
		const struct figure_dim_info *d[] = {&figure_dims[f->dim_a],
						     &figure_dims[f->dim_b]};

		for (int i = 0; i < 2; i++) {
			if (d[i]->label)
				used += snprintf(out + used, size - used, "%s%s", used ? "," : "",
						 d[i]->label);
			if (d[i]->label2)
				used += snprintf(out + used, size - used, ",%s", d[i]->label2);
		}
		return;
	}
	for (const char *c = f->labels; c && *c && used + 1 < size; c++) {
		if (*c == '(') {
			c = strchr(c, ')');
			continue;
		}
		if (*c == ' ' || *c == '\n')
			continue;
		out[used++] = *c;
		out[used] = '\0';
	}
}

/* The labels of a sample, but those of the group it is of and a histogram's le. */
static void sample_labels(const char *line, char *out, size_t size)
{
	static const char *const group_labels[] = {
	    "cgroup", "unit", "container_runtime", "container_id", "pod_uid", "qos_class",
	    "pid",    "start_time_s", "comm", "group", "le"};
	const char *c = strchr(line, '{'), *end = strchr(line, '\n');
	size_t used = 0;

	out[0] = '\0';
	while (c && c < end && *c != '}') {
		size_t n = strcspn(++c, "=");
		bool skip = false;

		for (size_t i = 0; i < sizeof(group_labels) / sizeof(group_labels[0]); i++)
			skip |= n == strlen(group_labels[i]) && !strncmp(c, group_labels[i], n);
		if (!skip)
			used += snprintf(out + used, size - used, "%s%.*s", used ? "," : "", (int)n,
					 c);
		c += n + 2; /* the value, quoted (no quote inside the values here) */
		c = strchr(c, '"') + 1;
	}
}

/* Every sample of an exposition of everything has the labels its row says, in its order: the
 * writers' label names and the registry's (which the docs are made of) agree. */
static bool every_sample_has_its_row_s_labels(void)
{
	bool ok = render_everything(false);

	for (char *line = ev.e.text; ok && *line; line = strchr(line, '\n') + 1) {
		const struct metric_family *f;
		char want[128], got[128];
		bool system;

		if (*line == '#')
			continue;
		if (!line_family(line, strcspn(line, "{ "), &f, &system)) {
			ok = fail_line(line);
			break;
		}
		row_labels(f, want, sizeof(want));
		sample_labels(line, got, sizeof(got));
		if (strcmp(want, got)) {
			fprintf(stderr, "    labels %s, its row says %s\n", got, want);
			ok = fail_line(line);
		}
	}
	render_everything_end();
	return ok;
}


/* The figures no test checks against an independent count yet (their value is only summed by
 * the suite's invariants, or the hosts the suite runs on give it no event): a figure leaves
 * this list when its test is named in its row, and a new figure never joins it. */
static const char *const untested_figures[] = {
    "folios.alloc_kernel",	     "lru.mglru",
    "thp.unattributed.zero_filled", "thp.untracked.collapse",
    "thp.untracked.collapse_file",  "thp.untracked.scan",
    "thp.untracked.scan_file",	     "thp.untracked.zero_filled",
    "thp.mthp",		     "thp.compaction.untracked",
    "reclaim.direct.untracked",	     "reclaim.memcg.untracked",
};

/* How many of the integration test files define the shell function `name`. */
static int test_definitions(const char *name)
{
	size_t len = strlen(name);
	glob_t files;
	int found = 0;

	if (glob("tests/integration*.sh", 0, NULL, &files))
		return -1;
	for (size_t f = 0; f < files.gl_pathc; f++) {
		FILE *in = fopen(files.gl_pathv[f], "r");
		char line[512];

		while (in && fgets(line, sizeof(line), in))
			if (!strncmp(line, name, len) && !strncmp(line + len, "() {", 4))
				found++;
		if (in)
			fclose(in);
	}
	globfree(&files);
	return found;
}

static bool listed_untested(const char *path)
{
	for (size_t u = 0; u < sizeof(untested_figures) / sizeof(untested_figures[0]); u++)
		if (!strcmp(untested_figures[u], path))
			return true;
	return false;
}

/* Every figure names the test that checks it, a test the suite has (defined once), or is one of
 * the few listed as untested; an untested one that has a test now leaves the list. */
static bool figures_name_their_tests(void)
{
	bool ok = true;

	for (int i = 0; i < nr_record_figures; i++) {
		const struct record_figure *f = &record_figures[i];
		char path[128];

		if (f->kind == RK_OBJECT)
			continue;
		record_figure_path(i, path, sizeof(path));
		if (!f->test && !listed_untested(path)) {
			fprintf(stderr, "    %s names no test (a new figure needs one)\n", path);
			ok = false;
		} else if (f->test && listed_untested(path)) {
			fprintf(stderr, "    %s has a test now: leave untested_figures\n", path);
			ok = false;
		} else if (f->test && test_definitions(f->test) != 1) {
			fprintf(stderr, "    %s: %s is defined %d times in tests/integration*.sh\n",
				path, f->test, test_definitions(f->test));
			ok = false;
		}
	}
	return ok;
}

const struct unit_test figures_tests[] = {
    UNIT_TEST(figures_name_their_tests),
    UNIT_TEST(families_are_linked_to_record_figures),
    UNIT_TEST(families_are_shown_where_their_figures_are_measured),
    UNIT_TEST(every_help_line_is_its_registry_row_s),
    UNIT_TEST(every_sample_has_its_row_s_labels),
    {},
};
