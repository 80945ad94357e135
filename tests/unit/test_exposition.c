// SPDX-License-Identifier: GPL-2.0
/* The exposition's form: families, labels as the formats want them, OpenMetrics when asked. */
#include <stdarg.h>

#include "cgroup_names.h"
#include "exposition.h"
#include "figures.h"
#include "loader.h"
#include "sanitize.h"
#include "unit.h"

static bool openmetrics_is_chosen_from_accept(void)
{
	return ASSERT_TRUE(accepts_openmetrics(
		   "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
		   "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")) &&
	       ASSERT_TRUE(accepts_openmetrics("text/plain, Application/OpenMetrics-Text")) &&
	       ASSERT_TRUE(!accepts_openmetrics("text/plain;version=0.0.4")) &&
	       ASSERT_TRUE(!accepts_openmetrics("application/openmetrics-text;q=0")) &&
	       ASSERT_TRUE(!accepts_openmetrics("*/*")) && ASSERT_TRUE(!accepts_openmetrics(""));
}

static char tlb_names[FS_NR_TLB_REASONS][FS_ENUM_NAME_LEN] = {"flush_on_task_switch"};
static char lru_names[FS_NR_LRU_LISTS][FS_ENUM_NAME_LEN] = {"inactive_anon"};
static char scan_names[FS_NR_SCAN_RESULTS][FS_ENUM_NAME_LEN] = {"failed", "succeed"};
static bool known[FS_NR_LRU_LISTS > FS_NR_TLB_REASONS ? FS_NR_LRU_LISTS : FS_NR_TLB_REASONS] = {
    true};

static const char *comm_path(__u64 cgroup, void *ctx)
{
	(void)cgroup, (void)ctx;
	return NULL;
}

/* What each test renders: a report of a host with 4 KiB pages, the store of its groups' series,
 * their one read, the health figures, and the text. One at a time: tests run in turn. */
static struct expo_test {
	struct host_info host;
	struct probe_status probes[NR_PROBES];
	struct fs_report r;
	struct series_settings settings;
	struct system_totals system;
	struct kernel_counters kernel;
	struct exposition_health health;
	struct exposition e;
	struct series_store s;
} t;

/* A host of one node, as most are. */
static const struct memory_nodes one_node = {.nr = 1, .known = true};

/* Rows by `by`, the cgroups named by `path` (NULL: none is). */
static void expo_test_begin(enum fs_row_kind by, series_name_fn path)
{
	memset(&t, 0, sizeof(t));
	t.host.page_size = 4096;
	t.host.nodes = &one_node;
	t.r.host = &t.host;
	t.r.probes = t.probes;
	t.settings = (struct series_settings){.by = by, .max_series = 10};
	t.health.start_time = 1e9;
	series_init(&t.s, &t.settings, path ? path : comm_path, NULL, NULL, 0.0);
}

/* The probes listed (up to NR_PROBES, which ends the list) attached, the others not, and what
 * they measure derived from them as a run derives it (figures.h; not under the
 * multi-generational LRU). Only the first is named, for the tests that give nr_probes 1. */
static void attach(int probe, ...)
{
	static const struct measure_facts facts = {.migrate_large_split = true};
	va_list ap;

	memset(t.probes, 0, sizeof(t.probes));
	t.probes[0].name = "kmem:mm_page_alloc";
	va_start(ap, probe);
	for (; probe != NR_PROBES; probe = va_arg(ap, int))
		t.probes[probe].attached = true;
	va_end(ap);
	measures_derive(t.probes, &facts, t.r.measured);
}

/* The store's read of these rows and the test's system totals, and the text (OpenMetrics or
 * not); expo_render alone renders the same read again. */
static bool expo_render(bool openmetrics)
{
	return ASSERT_EQ(render_exposition(&t.e, &t.r, &t.s, &t.health, openmetrics), 0);
}

static bool expo_read_and_render(const struct row_table *rows)
{
	return ASSERT_EQ(series_add_read(&t.s, rows, &t.system, &t.kernel, 1.0), 0) &&
	       expo_render(false);
}

static void expo_test_end(void)
{
	exposition_free(&t.e);
	series_free(&t.s);
}

/* A store of one process named with a quote and a backslash, rendered both ways. */
static bool labels_are_escaped_and_families_named(void)
{
	struct row row = {.key = {1}, .comm = "a\"b\\c", .events = 3};
	struct row_table rows = {.rows = &row, .nr = 1};
	bool ok;

	expo_test_begin(FS_BY_COMM, NULL);
	t.r.nr_probes = 1;
	t.r.scan_names = (const char(*)[FS_ENUM_NAME_LEN])scan_names;
	t.r.tlb_names = (const char(*)[FS_ENUM_NAME_LEN])tlb_names;
	t.r.tlb_known = known;
	t.r.lru_names = (const char(*)[FS_ENUM_NAME_LEN])lru_names;
	t.r.lru_known = known;
	attach(PROBE_PAGE_ALLOC, NR_PROBES);
	row.totals.folios[FS_FOLIO_ALLOC_MOVABLE][9] = 3;
	t.system.total = row.totals;
	ok = expo_read_and_render(&rows) &&
	     ASSERT_CONTAINS(t.e.text, "# TYPE foliostat_folios_allocated_total counter\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_folios_allocated_total{comm=\"a\\\"b\\\\c\","
				       "order=\"9\",kind=\"movable\"} 3\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_allocated_bytes_total{comm=\"a\\\"b\\\\c\","
				       "kind=\"movable\"} 6291456\n") &&
	     ASSERT_CONTAINS(t.e.text,
			     "foliostat_build_info{version=\"" FOLIOSTAT_VERSION "\"} 1\n") &&
	     ASSERT_TRUE(!strstr(t.e.text, "# EOF")) && expo_render(true) &&
	     ASSERT_CONTAINS(t.e.text, "# TYPE foliostat_folios_allocated counter\n") &&
	     ASSERT_CONTAINS(t.e.text, "# TYPE foliostat_build info\n") &&
	     ASSERT_TRUE(t.e.len > 6 && !strcmp(t.e.text + t.e.len - 6, "# EOF\n"));
	expo_test_end();
	return ok;
}

/*
 * Why a group got no large folios: completed faults, THP faults that got a huge page, folios
 * that got none or were discarded, compaction by order. A process's compaction the group does not
 * hold is other's, so the groups add up to the system; a figure not measured has no family.
 */
static bool fault_outcomes_and_compaction_by_order(void)
{
	struct row row = {.key = {7}, .comm = "app", .events = 9};
	struct row_proc_totals proc = {.key = {7}};
	struct row_table rows = {.rows = &row, .nr = 1, .procs = &proc, .nr_procs = 1};
	bool ok;

	/* (a discard is a free before an LRU insertion: both probes are needed) */
	expo_test_begin(FS_BY_COMM, NULL);
	attach(PROBE_PAGE_ALLOC, PROBE_PAGE_FREE, PROBE_LRU_INSERT, PROBE_FAULT_MAJOR,
	       PROBE_FAULT_MINOR, NR_PROBES);
	t.r.lru_names = (const char(*)[FS_ENUM_NAME_LEN])lru_names;
	t.r.lru_known = known;
	t.r.measured[MEASURE_COMPACTION_BY_ORDER] = true;
	row.totals.major_faults = 2;
	row.totals.minor_faults = 40;
	row.totals.thp_fault_alloc = 3;
	row.totals.folios[FS_FOLIO_ALLOC_FAILED][9] = 4;
	row.totals.folios[FS_FOLIO_DISCARDED][9] = 1;
	t.system.total = row.totals;
	proc.totals.compaction_by_order.count[9] = 2;
	proc.totals.compaction_by_order.total_ns[9] = 1500000000;
	t.system.compaction_by_order = proc.totals.compaction_by_order;
	/* A stall of a process the table had no room for: the system's only. */
	t.system.compaction_by_order.count[4] = 1;
	t.system.compaction_by_order.total_ns[4] = 250000;
	ok = expo_read_and_render(&rows) &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_major_faults_total{comm=\"app\"} 2\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_minor_faults_total{comm=\"app\"} 40\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_system_major_faults_total 2\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_folio_allocations_failed_total{comm=\"app\","
				       "order=\"9\"} 4\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_system_folio_allocations_failed_total"
				       "{order=\"0\"} 0\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_folios_discarded_total{comm=\"app\","
				       "order=\"9\"} 1\n") &&
	     /* order 0 is never discarded: no series */
	     ASSERT_TRUE(
		 !strstr(t.e.text, "foliostat_system_folios_discarded_total{order=\"0\"}")) &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_compaction_stalls_by_order_total{comm=\"app\","
				       "order=\"9\"} 2\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_compaction_stall_by_order_seconds_total"
				       "{comm=\"app\",order=\"9\"} 1.5\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_compaction_stalls_by_order_total{group=\"other\","
				       "order=\"4\"} 1\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_system_compaction_stalls_by_order_total"
				       "{order=\"4\"} 1\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_system_compaction_stall_by_order_seconds_total"
				       "{order=\"9\"} 1.5\n") &&
	     /* a kernel without memcg:count_memcg_events (6.1): not measured, not zero */
	     ASSERT_TRUE(!strstr(t.e.text, "thp_fault_alloc_total"));
	attach(PROBE_PAGE_ALLOC, PROBE_PAGE_FREE, PROBE_LRU_INSERT, PROBE_FAULT_MAJOR,
	       PROBE_FAULT_MINOR, PROBE_MEMCG_EVENTS, NR_PROBES);
	t.r.measured[MEASURE_COMPACTION_BY_ORDER] = false;
	ok = ok && expo_render(false) &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_thp_fault_alloc_total{comm=\"app\"} 3\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_system_thp_fault_alloc_total 3\n") &&
	     ASSERT_TRUE(!strstr(t.e.text, "by_order"));
	expo_test_end();
	return ok;
}

/*
 * Faults by mode alone: each mode is measured by its own exceptions tracepoint or by perf's
 * event. With one tracepoint refused, the other mode's samples are written and the refused
 * mode's left out, not written as 0; with both, the family by access and cause instead.
 */
static bool a_fault_mode_not_measured_has_no_sample(void)
{
	struct row row = {.key = {7}, .comm = "app", .events = 9};
	struct row_table rows = {.rows = &row, .nr = 1};
	bool ok;

	expo_test_begin(FS_BY_COMM, NULL);
	attach(PROBE_PAGE_ALLOC, PROBE_FAULT_KERNEL, NR_PROBES);
	row.totals
	    .fault_kinds[FS_FAULT_KIND(FS_MODE_KERNEL, FS_ACCESS_READ, FS_CAUSE_NOT_PRESENT)] = 6;
	t.system.total = row.totals;
	ok = expo_read_and_render(&rows) &&
	     ASSERT_CONTAINS(t.e.text,
			     "foliostat_page_faults_total{comm=\"app\",mode=\"kernel\"} 6\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_system_page_faults_total{mode=\"kernel\"} 6\n") &&
	     ASSERT_TRUE(!strstr(t.e.text, "mode=\"user\"")) &&
	     ASSERT_TRUE(t.r.measured[MEASURE_FAULT_KERNEL] && !t.r.measured[MEASURE_FAULT_USER]);
	attach(PROBE_PAGE_ALLOC, PROBE_FAULT_EVENT, NR_PROBES);
	ok = ok && expo_render(false) &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_system_page_faults_total{mode=\"user\"} 0\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_system_page_faults_total{mode=\"kernel\"} 6\n");
	attach(PROBE_PAGE_ALLOC, PROBE_FAULT_USER, PROBE_FAULT_KERNEL, NR_PROBES);
	ok = ok && expo_render(false) &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_system_page_faults_total{mode=\"kernel\","
				       "access=\"read\",cause=\"not_present\"} 6\n") &&
	     ASSERT_TRUE(!strstr(t.e.text, "foliostat_system_page_faults_total{mode=\"kernel\"} "));
	expo_test_end();
	return ok;
}

/* Cgroup paths for the next test: two of 4,095 bytes alike but for their last byte (255-byte
 * directories), and one with a terminal escape and ill-formed UTF-8 in its unit's name. */
static char long_paths[2][4096];

static const struct cgroup_names names_from_root = {.from_root = true};

static const char *hostile_path(__u64 cgroup, void *ctx)
{
	(void)ctx;
	return cgroup < 2 ? long_paths[cgroup] : "/evil\x1b]0;pwned\x07\xff.service";
}

/* Every sample line is name{name="value",...} value, each value well quoted. */
static bool samples_well_formed(const char *text)
{
	for (const char *line = text; *line; line = strchr(line, '\n') + 1) {
		const char *c = line;

		if (!strchr(line, '\n'))
			return unit_fail(__FILE__, __LINE__, "the text ends inside a line");
		if (*c == '#')
			continue;
		while (*c && *c != '{' && *c != ' ')
			c++;
		if (*c == '{') {
			while (*++c != '}') {
				while (*c != '=' && *c != '\n')
					c++;
				if (*c != '=' || *++c != '"')
					return unit_fail(__FILE__, __LINE__, line);
				while (*++c != '"')
					if (*c == '\n' || (*c == '\\' && !strchr("\\\"n", *++c)))
						return unit_fail(__FILE__, __LINE__, line);
				if (*++c != ',' && *c != '}')
					return unit_fail(__FILE__, __LINE__, line);
				if (*c == '}')
					break;
			}
			c++;
		}
		if (*c != ' ' || c[1] == '\n')
			return unit_fail(__FILE__, __LINE__, line);
	}
	return true;
}

/* Long and hostile cgroup paths, with histograms (their labels are long too): every line stays
 * whole, and the two long paths two series. */
static bool long_and_hostile_cgroup_labels_stay_whole(void)
{
	struct row rows_[3] = {{.key = {1}, .cgroup = 0, .events = 3},
			       {.key = {2}, .cgroup = 1, .events = 3},
			       {.key = {3}, .cgroup = 2, .events = 3}};
	struct row_proc_totals procs[3] = {{.key = {1}}, {.key = {2}}, {.key = {3}}};
	struct row_table rows = {.rows = rows_, .nr = 3, .procs = procs, .nr_procs = 3};
	char *first, *second;
	bool ok;

	expo_test_begin(FS_BY_CGROUP, hostile_path);
	t.r.cgroup_names = &names_from_root; /* (paths from the root: labels read off them) */
	for (int p = 0; p < 2; p++) {
		memset(long_paths[p], 'd', 4095);
		for (int slash = 0; slash < 4095; slash += 256)
			long_paths[p][slash] = '/';
		long_paths[p][4094] = (char)('0' + p);
	}
	attach(PROBE_PAGE_ALLOC, PROBE_FAULT_MINOR, PROBE_FAULT_USER, PROBE_FAULT_KERNEL,
	       NR_PROBES);
	t.r.measured[MEASURE_STALLS + FS_STALL_COMPACTION] = true;
	t.system.total.fault_kinds[(1 * FS_NR_FAULT_ACCESSES + 2) * FS_NR_FAULT_CAUSES + 1] = 5;
	for (int i = 0; i < 3; i++) {
		rows_[i].totals.minor_faults = 10 + i;
		t.system.total.minor_faults += 10 + i;
		procs[i].totals.stalls[FS_STALL_COMPACTION].count = 1;
		procs[i].totals.stalls[FS_STALL_COMPACTION].hist[3] = 1;
		t.system.stalls[FS_STALL_COMPACTION].count++;
		t.system.stalls[FS_STALL_COMPACTION].hist[3]++;
	}
	ok = expo_read_and_render(&rows) && samples_well_formed(t.e.text) &&
	     /* a fault kind's first index: two labels */
	     ASSERT_CONTAINS(t.e.text, "foliostat_system_page_faults_total{mode=\"kernel\","
				       "access=\"exec\",cause=\"protection\"} 5\n") &&
	     ASSERT_CONTAINS(t.e.text, "unit=\"evil\xef\xbf\xbd]0;pwned\xef\xbf\xbd\xef\xbf\xbd"
				       ".service~") &&
	     ASSERT_TRUE(!strchr(t.e.text, '\x1b'));
	first = strstr(t.e.text, "foliostat_minor_faults_total{cgroup=\"/ddd");
	second = first ? strstr(first + 1, "foliostat_minor_faults_total{cgroup=\"/ddd") : NULL;
	ok = ok && ASSERT_TRUE(first && second) &&
	     ASSERT_TRUE(strchr(first, '}') - first == (long)strlen("foliostat_minor_faults_total{"
								    "cgroup=\"") +
							   LABEL_VALUE_MAX + 1) &&
	     ASSERT_TRUE(memcmp(first, second, strchr(first, '~') - first) == 0) &&
	     ASSERT_TRUE(memcmp(first, second, strchr(first, '}') - first) != 0);
	expo_test_end();
	return ok;
}

/* --by process: two processes that had one pid (the first exited, the second took its pid) are
 * two series, told apart by their start time (seconds since boot, to the microsecond), with
 * their own counts; no label set appears twice. */
static bool a_reused_pid_has_a_series_of_its_own(void)
{
	struct row rows_a[2] = {
	    {.key = {42, 1500000000}, .comm = "w", .events = 5},
	    {.key = {42, 2000001999}, .comm = "w", .events = 7},
	};
	struct row_table rows = {.rows = rows_a, .nr = 2};
	bool ok;

	expo_test_begin(FS_BY_PROCESS, NULL);
	attach(PROBE_PAGE_ALLOC, PROBE_FAULT_MINOR, NR_PROBES);
	rows_a[0].totals.minor_faults = 5;
	rows_a[1].totals.minor_faults = 7;
	t.system.total.minor_faults = 12;
	ok = expo_read_and_render(&rows) &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_minor_faults_total{pid=\"42\","
				       "start_time_s=\"1.500000\",comm=\"w\"} 5\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_minor_faults_total{pid=\"42\","
				       "start_time_s=\"2.000001\",comm=\"w\"} 7\n");
	expo_test_end();
	return ok;
}

/* Cgroups 5 and 6, as the next test's reads name them. */
static const char *two_cgroups(__u64 cgroup, void *ctx)
{
	(void)ctx;
	return cgroup == 5 ? "/app.slice/a.service" : cgroup == 6 ? "/b.slice" : NULL;
}

/* --by process: a process's series is labelled with its cgroup's path as the read named it (the
 * exposition only prints), and one that moved, with its new cgroup's from the read that saw it
 * there. */
static bool a_process_series_has_the_cgroup_its_read_named(void)
{
	struct row row = {.key = {9, 1000}, .comm = "m", .cgroup = 5, .events = 1};
	struct row_table rows = {.rows = &row, .nr = 1};
	bool ok;

	expo_test_begin(FS_BY_PROCESS, two_cgroups);
	attach(PROBE_PAGE_ALLOC, PROBE_FAULT_MINOR, NR_PROBES);
	row.totals.minor_faults = 1;
	t.system.total.minor_faults = 1;
	ok = expo_read_and_render(&rows) &&
	     ASSERT_CONTAINS(t.e.text,
			     "foliostat_minor_faults_total{pid=\"9\",start_time_s=\"0.000001\","
			     "comm=\"m\",cgroup=\"/app.slice/a.service\"} 1\n");
	row.cgroup = 6;
	ok = ok && expo_read_and_render(&rows) &&
	     ASSERT_CONTAINS(t.e.text,
			     "foliostat_minor_faults_total{pid=\"9\",start_time_s=\"0.000001\","
			     "comm=\"m\",cgroup=\"/b.slice\"} 2\n") &&
	     ASSERT_TRUE(!strstr(t.e.text, "a.service"));
	expo_test_end();
	return ok;
}

/*
 * --resident's gauges: a row of a cgroup with a hostile path keeps it whole in its labels; the
 * rows beyond --max-series and one whose cgroup is not known are added up in group="other";
 * bytes are pages times the page size; zeroes have no sample.
 */
static bool resident_rows_are_labelled_and_the_rest_is_other(void)
{
	struct resident_row rows[4] = {
	    {.cgroup = "/db\"x\n.slice", .processes = 1, .scanned_at = 9},
	    {.cgroup = "/b", .processes = 2, .scanned_at = 8},
	    {.cgroup = "/c", .processes = 1, .scanned_at = 9},
	    {.cgroup = NULL, .processes = 1, .scanned_at = 9},
	};
	struct resident_report res = {
	    .rows = rows, .nr = 4, .scanned = 5, .passes = 3, .taken_at = 10, .seconds = 2};
	bool ok;

	rows[0].counts.pages[RESIDENT_ANON][9] = 1024;
	rows[0].counts.large[RESIDENT_ANON][MAPPED_PMD] = 2;
	rows[1].counts.pages[RESIDENT_FILE][2] = 8;
	rows[2].counts.pages[RESIDENT_FILE][2] = 4;
	rows[3].counts.pages[RESIDENT_FILE][2] = 1;
	rows[3].counts.large[RESIDENT_SHMEM][MAPPED_PARTIAL] = 1;
	expo_test_begin(FS_BY_CGROUP, NULL);
	t.s.max_series = 2;
	t.r.resident = &res;
	ok = expo_render(false) && samples_well_formed(t.e.text) &&
	     ASSERT_CONTAINS(t.e.text, "# TYPE foliostat_resident_bytes gauge\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_resident_bytes{cgroup=\"/db\\\"x\\n.slice\","
				       "type=\"anon\",order=\"9\"} 4194304\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_resident_large_folios{cgroup=\"/db\\\"x\\n"
				       ".slice\",type=\"anon\",mapping=\"pmd\"} 2\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_resident_bytes{cgroup=\"/b\",type=\"file\","
				       "order=\"2\"} 32768\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_resident_bytes{group=\"other\",type=\"file\","
				       "order=\"2\"} 20480\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_resident_large_folios{group=\"other\","
				       "type=\"shmem\",mapping=\"partial\"} 1\n") &&
	     ASSERT_TRUE(!strstr(t.e.text, "cgroup=\"/c\"")) &&
	     ASSERT_TRUE(!strstr(t.e.text, "order=\"0\"")) &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_resident_oldest_seconds 2\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_resident_processes 5\n") &&
	     ASSERT_CONTAINS(t.e.text, "foliostat_resident_passes_total 3\n") &&
	     expo_render(true) &&
	     ASSERT_CONTAINS(t.e.text, "# TYPE foliostat_resident_passes counter\n");
	expo_test_end();
	return ok;
}

const struct unit_test exposition_tests[] = {
    UNIT_TEST(long_and_hostile_cgroup_labels_stay_whole),
    UNIT_TEST(openmetrics_is_chosen_from_accept),
    UNIT_TEST(labels_are_escaped_and_families_named),
    UNIT_TEST(fault_outcomes_and_compaction_by_order),
    UNIT_TEST(a_fault_mode_not_measured_has_no_sample),
    UNIT_TEST(a_reused_pid_has_a_series_of_its_own),
    UNIT_TEST(a_process_series_has_the_cgroup_its_read_named),
    UNIT_TEST(resident_rows_are_labelled_and_the_rest_is_other),
    {},
};
