// SPDX-License-Identifier: GPL-2.0
/* The exposition's form: families, labels as the formats want them, OpenMetrics when asked. */
#include "exposition.h"
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

/* A store of one process named with a quote and a backslash, rendered both ways. */
static bool labels_are_escaped_and_families_named(void)
{
	struct host_info host = {.page_size = 4096};
	struct probe_status probes[1] = {{.name = "kmem:mm_page_alloc", .attached = true}};
	struct fs_report r = {.host = &host,
			      .probes = probes,
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

	r.measured[HIST_ALLOC] = true;
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

const struct unit_test exposition_tests[] = {
    UNIT_TEST(openmetrics_is_chosen_from_accept),
    UNIT_TEST(labels_are_escaped_and_families_named),
    {},
};
