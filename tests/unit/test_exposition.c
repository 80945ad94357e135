// SPDX-License-Identifier: GPL-2.0
/* The exposition's form: families, labels as the formats want them, OpenMetrics when asked. */
#include <stdarg.h>

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

/* A report's probe states: the probes listed (up to NR_PROBES, which ends the list) attached,
 * the others not, and what they measure derived from them as a run derives it (figures.h; not
 * under the multi-generational LRU). Only the first is named, for the tests that give
 * nr_probes 1. */
static void attach(struct fs_report *r, struct probe_status probes[NR_PROBES], ...)
{
	static const struct measure_facts facts = {.migrate_large_split = true};
	va_list ap;
	int p;

	memset(probes, 0, NR_PROBES * sizeof(*probes));
	probes[0].name = "kmem:mm_page_alloc";
	va_start(ap, probes);
	while ((p = va_arg(ap, int)) != NR_PROBES)
		probes[p].attached = true;
	va_end(ap);
	r->probes = probes;
	measures_derive(probes, &facts, r->measured);
}

static const char *comm_path(__u64 cgroup, void *ctx)
{
	(void)cgroup, (void)ctx;
	return NULL;
}

/* A store of one process named with a quote and a backslash, rendered both ways. */
static bool labels_are_escaped_and_families_named(void)
{
	struct host_info host = {.page_size = 4096};
	struct probe_status probes[NR_PROBES];
	struct fs_report r = {.host = &host,
			      .nr_probes = 1,
			      .scan_names = (const char(*)[FS_ENUM_NAME_LEN])scan_names,
			      .tlb_names = (const char(*)[FS_ENUM_NAME_LEN])tlb_names,
			      .tlb_known = known,
			      .lru_names = (const char(*)[FS_ENUM_NAME_LEN])lru_names,
			      .lru_known = known};
	struct fs_options opts = {.by = FS_BY_COMM, .max_series = 10};
	struct process_row row = {.tgid = 1, .comm = "a\"b\\c", .events = 3};
	struct process_table rows = {.rows = &row, .nr = 1};
	struct system_totals system = {0};
	struct kernel_counters kernel = {0};
	struct exposition_health health = {.start_time = 1e9};
	struct exposition e = {0};
	struct series_store s;
	bool ok;

	attach(&r, probes, PROBE_PAGE_ALLOC, NR_PROBES);
	row.counters.folios[FS_FOLIO_ALLOC_MOVABLE][9] = 3;
	system.total = row.counters;
	series_init(&s, &opts, comm_path, NULL, NULL, 0.0);
	ok = ASSERT_EQ(series_add_read(&s, &rows, &system, &kernel, 1.0), 0) &&
	     ASSERT_EQ(render_exposition(&e, &r, &s, &health, false), 0) &&
	     ASSERT_CONTAINS(e.text, "# TYPE foliostat_folios_allocated_total counter\n") &&
	     ASSERT_CONTAINS(e.text, "foliostat_folios_allocated_total{comm=\"a\\\"b\\\\c\","
				     "order=\"9\",kind=\"movable\"} 3\n") &&
	     ASSERT_CONTAINS(e.text, "foliostat_allocated_bytes_total{comm=\"a\\\"b\\\\c\","
				     "kind=\"movable\"} 6291456\n") &&
	     ASSERT_CONTAINS(e.text,
			     "foliostat_build_info{version=\"" FOLIOSTAT_VERSION "\"} 1\n") &&
	     ASSERT_TRUE(!strstr(e.text, "# EOF")) &&
	     ASSERT_EQ(render_exposition(&e, &r, &s, &health, true), 0) &&
	     ASSERT_CONTAINS(e.text, "# TYPE foliostat_folios_allocated counter\n") &&
	     ASSERT_CONTAINS(e.text, "# TYPE foliostat_build info\n") &&
	     ASSERT_TRUE(e.len > 6 && !strcmp(e.text + e.len - 6, "# EOF\n"));
	exposition_free(&e);
	series_free(&s);
	return ok;
}

/*
 * Why a group got no large folios: completed faults, THP faults that got a huge page, folios
 * that got none or were discarded, compaction by order. A process's compaction the group does not
 * hold is other's, so the groups add up to the system; a figure not measured has no family.
 */
static bool fault_outcomes_and_compaction_by_order(void)
{
	struct host_info host = {.page_size = 4096};
	struct probe_status probes[NR_PROBES];
	struct fs_report r = {.host = &host};
	struct fs_options opts = {.by = FS_BY_COMM, .max_series = 10};
	struct process_row row = {.tgid = 7, .comm = "app", .events = 9};
	struct proc_row proc = {.tgid = 7};
	struct process_table rows = {.rows = &row, .nr = 1, .procs = &proc, .nr_procs = 1};
	struct system_totals system = {0};
	struct kernel_counters kernel = {0};
	struct exposition_health health = {.start_time = 1e9};
	struct exposition e = {0};
	struct series_store s;
	bool ok;

	/* (a discard is a free before an LRU insertion: both probes are needed) */
	attach(&r, probes, PROBE_PAGE_ALLOC, PROBE_PAGE_FREE, PROBE_LRU_INSERT,
			  PROBE_FAULT_MAJOR, PROBE_FAULT_MINOR, NR_PROBES);
	r.lru_names = (const char(*)[FS_ENUM_NAME_LEN])lru_names;
	r.lru_known = known;
	r.measured[MEASURE_COMPACTION_BY_ORDER] = true;
	row.counters.major_faults = 2;
	row.counters.minor_faults = 40;
	row.counters.thp_fault_alloc = 3;
	row.counters.folios[FS_FOLIO_ALLOC_FAILED][9] = 4;
	row.counters.folios[FS_FOLIO_DISCARDED][9] = 1;
	system.total = row.counters;
	proc.counters.compaction_by_order.count[9] = 2;
	proc.counters.compaction_by_order.total_ns[9] = 1500000000;
	system.compaction_by_order = proc.counters.compaction_by_order;
	/* A stall of a process the table had no room for: the system's only. */
	system.compaction_by_order.count[4] = 1;
	system.compaction_by_order.total_ns[4] = 250000;
	series_init(&s, &opts, comm_path, NULL, NULL, 0.0);
	ok = ASSERT_EQ(series_add_read(&s, &rows, &system, &kernel, 1.0), 0) &&
	     ASSERT_EQ(render_exposition(&e, &r, &s, &health, false), 0) &&
	     ASSERT_CONTAINS(e.text, "foliostat_major_faults_total{comm=\"app\"} 2\n") &&
	     ASSERT_CONTAINS(e.text, "foliostat_minor_faults_total{comm=\"app\"} 40\n") &&
	     ASSERT_CONTAINS(e.text, "foliostat_system_major_faults_total 2\n") &&
	     ASSERT_CONTAINS(e.text, "foliostat_folio_allocations_failed_total{comm=\"app\","
				     "order=\"9\"} 4\n") &&
	     ASSERT_CONTAINS(e.text, "foliostat_system_folio_allocations_failed_total"
				     "{order=\"0\"} 0\n") &&
	     ASSERT_CONTAINS(e.text, "foliostat_folios_discarded_total{comm=\"app\","
				     "order=\"9\"} 1\n") &&
	     /* order 0 is never discarded: no series */
	     ASSERT_TRUE(!strstr(e.text, "foliostat_system_folios_discarded_total{order=\"0\"}")) &&
	     ASSERT_CONTAINS(e.text, "foliostat_compaction_stalls_by_order_total{comm=\"app\","
				     "order=\"9\"} 2\n") &&
	     ASSERT_CONTAINS(e.text, "foliostat_compaction_stall_by_order_seconds_total"
				     "{comm=\"app\",order=\"9\"} 1.5\n") &&
	     ASSERT_CONTAINS(e.text, "foliostat_compaction_stalls_by_order_total{group=\"other\","
				     "order=\"4\"} 1\n") &&
	     ASSERT_CONTAINS(e.text, "foliostat_system_compaction_stalls_by_order_total"
				     "{order=\"4\"} 1\n") &&
	     ASSERT_CONTAINS(e.text, "foliostat_system_compaction_stall_by_order_seconds_total"
				     "{order=\"9\"} 1.5\n") &&
	     /* a kernel without memcg:count_memcg_events (6.1): not measured, not zero */
	     ASSERT_TRUE(!strstr(e.text, "thp_fault_alloc_total"));
	attach(&r, probes, PROBE_PAGE_ALLOC, PROBE_PAGE_FREE, PROBE_LRU_INSERT, PROBE_FAULT_MAJOR,
	       PROBE_FAULT_MINOR, PROBE_MEMCG_EVENTS, NR_PROBES);
	r.measured[MEASURE_COMPACTION_BY_ORDER] = false;
	ok = ok && ASSERT_EQ(render_exposition(&e, &r, &s, &health, false), 0) &&
	     ASSERT_CONTAINS(e.text, "foliostat_thp_fault_alloc_total{comm=\"app\"} 3\n") &&
	     ASSERT_CONTAINS(e.text, "foliostat_system_thp_fault_alloc_total 3\n") &&
	     ASSERT_TRUE(!strstr(e.text, "by_order"));
	exposition_free(&e);
	series_free(&s);
	return ok;
}

/*
 * Faults by mode alone: each mode is measured by its own exceptions tracepoint or by perf's
 * event. With one tracepoint refused, the other mode's samples are written and the refused
 * mode's left out, not written as 0; with both, the family by access and cause instead.
 */
static bool a_fault_mode_not_measured_has_no_sample(void)
{
	struct host_info host = {.page_size = 4096};
	struct probe_status probes[NR_PROBES];
	struct fs_report r = {.host = &host};
	struct fs_options opts = {.by = FS_BY_COMM, .max_series = 10};
	struct process_row row = {.tgid = 7, .comm = "app", .events = 9};
	struct process_table rows = {.rows = &row, .nr = 1};
	struct system_totals system = {0};
	struct kernel_counters kernel = {0};
	struct exposition_health health = {.start_time = 1e9};
	struct exposition e = {0};
	struct series_store s;
	bool ok;

	attach(&r, probes, PROBE_PAGE_ALLOC, PROBE_FAULT_KERNEL, NR_PROBES);
	row.counters
	    .fault_kinds[FS_FAULT_KIND(FS_MODE_KERNEL, FS_ACCESS_READ, FS_CAUSE_NOT_PRESENT)] = 6;
	system.total = row.counters;
	series_init(&s, &opts, comm_path, NULL, NULL, 0.0);
	ok = ASSERT_EQ(series_add_read(&s, &rows, &system, &kernel, 1.0), 0) &&
	     ASSERT_EQ(render_exposition(&e, &r, &s, &health, false), 0) &&
	     ASSERT_CONTAINS(e.text,
			     "foliostat_page_faults_total{comm=\"app\",mode=\"kernel\"} 6\n") &&
	     ASSERT_CONTAINS(e.text, "foliostat_system_page_faults_total{mode=\"kernel\"} 6\n") &&
	     ASSERT_TRUE(!strstr(e.text, "mode=\"user\"")) &&
	     ASSERT_TRUE(r.measured[MEASURE_FAULT_KERNEL] && !r.measured[MEASURE_FAULT_USER]);
	attach(&r, probes, PROBE_PAGE_ALLOC, PROBE_FAULT_EVENT, NR_PROBES);
	ok = ok && ASSERT_EQ(render_exposition(&e, &r, &s, &health, false), 0) &&
	     ASSERT_CONTAINS(e.text, "foliostat_system_page_faults_total{mode=\"user\"} 0\n") &&
	     ASSERT_CONTAINS(e.text, "foliostat_system_page_faults_total{mode=\"kernel\"} 6\n");
	attach(&r, probes, PROBE_PAGE_ALLOC, PROBE_FAULT_USER, PROBE_FAULT_KERNEL, NR_PROBES);
	ok = ok && ASSERT_EQ(render_exposition(&e, &r, &s, &health, false), 0) &&
	     ASSERT_CONTAINS(e.text, "foliostat_system_page_faults_total{mode=\"kernel\","
				     "access=\"read\",cause=\"not_present\"} 6\n") &&
	     ASSERT_TRUE(!strstr(e.text, "foliostat_system_page_faults_total{mode=\"kernel\"} "));
	exposition_free(&e);
	series_free(&s);
	return ok;
}

/* Cgroup paths for the next test: two of 4,095 bytes alike but for their last byte (255-byte
 * directories), and one with a terminal escape and ill-formed UTF-8 in its unit's name. */
static char long_paths[2][4096];

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
	struct host_info host = {.page_size = 4096};
	struct probe_status probes[NR_PROBES];
	struct fs_report r = {.host = &host};
	struct fs_options opts = {.by = FS_BY_CGROUP, .max_series = 10};
	struct process_row rows_[3] = {{.tgid = 1, .cgroup = 0, .events = 3},
				       {.tgid = 2, .cgroup = 1, .events = 3},
				       {.tgid = 3, .cgroup = 2, .events = 3}};
	struct proc_row procs[3] = {{.tgid = 1}, {.tgid = 2}, {.tgid = 3}};
	struct process_table rows = {.rows = rows_, .nr = 3, .procs = procs, .nr_procs = 3};
	struct system_totals system = {0};
	struct kernel_counters kernel = {0};
	struct exposition_health health = {.start_time = 1e9};
	struct exposition e = {0};
	struct series_store s;
	char *first, *second;
	bool ok;

	for (int p = 0; p < 2; p++) {
		memset(long_paths[p], 'd', 4095);
		for (int slash = 0; slash < 4095; slash += 256)
			long_paths[p][slash] = '/';
		long_paths[p][4094] = (char)('0' + p);
	}
	attach(&r, probes, PROBE_PAGE_ALLOC, PROBE_FAULT_MINOR, PROBE_FAULT_USER,
			  PROBE_FAULT_KERNEL, NR_PROBES);
	r.measured[MEASURE_STALLS + FS_STALL_COMPACTION] = true;
	system.total.fault_kinds[(1 * FS_NR_FAULT_ACCESSES + 2) * FS_NR_FAULT_CAUSES + 1] = 5;
	for (int i = 0; i < 3; i++) {
		rows_[i].counters.minor_faults = 10 + i;
		system.total.minor_faults += 10 + i;
		procs[i].counters.stalls[FS_STALL_COMPACTION].count = 1;
		procs[i].counters.stalls[FS_STALL_COMPACTION].hist[3] = 1;
		system.stalls[FS_STALL_COMPACTION].count++;
		system.stalls[FS_STALL_COMPACTION].hist[3]++;
	}
	series_init(&s, &opts, hostile_path, NULL, NULL, 0.0);
	ok = ASSERT_EQ(series_add_read(&s, &rows, &system, &kernel, 1.0), 0) &&
	     ASSERT_EQ(render_exposition(&e, &r, &s, &health, false), 0) &&
	     samples_well_formed(e.text) &&
	     /* a fault kind's first index: two labels */
	     ASSERT_CONTAINS(e.text, "foliostat_system_page_faults_total{mode=\"kernel\","
				     "access=\"exec\",cause=\"protection\"} 5\n") &&
	     ASSERT_CONTAINS(e.text, "unit=\"evil\xef\xbf\xbd]0;pwned\xef\xbf\xbd\xef\xbf\xbd"
				     ".service~") &&
	     ASSERT_TRUE(!strchr(e.text, '\x1b'));
	first = strstr(e.text, "foliostat_minor_faults_total{cgroup=\"/ddd");
	second = first ? strstr(first + 1, "foliostat_minor_faults_total{cgroup=\"/ddd") : NULL;
	ok = ok && ASSERT_TRUE(first && second) &&
	     ASSERT_TRUE(strchr(first, '}') - first == (long)strlen("foliostat_minor_faults_total{"
								    "cgroup=\"") +
							   LABEL_VALUE_MAX + 1) &&
	     ASSERT_TRUE(memcmp(first, second, strchr(first, '~') - first) == 0) &&
	     ASSERT_TRUE(memcmp(first, second, strchr(first, '}') - first) != 0);
	exposition_free(&e);
	series_free(&s);
	return ok;
}

/* --by process: two processes that had one pid (the first exited, the second took its pid) are
 * two series, told apart by their start time (seconds since boot, to the microsecond), with
 * their own counts; no label set appears twice. */
static bool a_reused_pid_has_a_series_of_its_own(void)
{
	struct host_info host = {.page_size = 4096};
	struct probe_status probes[NR_PROBES];
	struct fs_report r = {.host = &host};
	struct fs_options opts = {.by = FS_BY_PROCESS, .max_series = 10};
	struct process_row rows_a[2] = {
	    {.tgid = 42, .start = 1500000000, .comm = "w", .events = 5},
	    {.tgid = 42, .start = 2000001999, .comm = "w", .events = 7},
	};
	struct process_table rows = {.rows = rows_a, .nr = 2};
	struct system_totals system = {0};
	struct kernel_counters kernel = {0};
	struct exposition_health health = {.start_time = 1e9};
	struct exposition e = {0};
	struct series_store s;
	bool ok;

	attach(&r, probes, PROBE_PAGE_ALLOC, PROBE_FAULT_MINOR, NR_PROBES);
	rows_a[0].counters.minor_faults = 5;
	rows_a[1].counters.minor_faults = 7;
	system.total.minor_faults = 12;
	series_init(&s, &opts, comm_path, NULL, NULL, 0.0);
	ok = ASSERT_EQ(series_add_read(&s, &rows, &system, &kernel, 1.0), 0) &&
	     ASSERT_EQ(render_exposition(&e, &r, &s, &health, false), 0) &&
	     ASSERT_CONTAINS(e.text, "foliostat_minor_faults_total{pid=\"42\","
				     "start_time_s=\"1.500000\",comm=\"w\"} 5\n") &&
	     ASSERT_CONTAINS(e.text, "foliostat_minor_faults_total{pid=\"42\","
				     "start_time_s=\"2.000001\",comm=\"w\"} 7\n");
	exposition_free(&e);
	series_free(&s);
	return ok;
}

const struct unit_test exposition_tests[] = {
    UNIT_TEST(long_and_hostile_cgroup_labels_stay_whole),
    UNIT_TEST(openmetrics_is_chosen_from_accept),
    UNIT_TEST(labels_are_escaped_and_families_named),
    UNIT_TEST(fault_outcomes_and_compaction_by_order),
    UNIT_TEST(a_fault_mode_not_measured_has_no_sample),
    UNIT_TEST(a_reused_pid_has_a_series_of_its_own),
    {},
};
