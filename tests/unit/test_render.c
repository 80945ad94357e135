// SPDX-License-Identifier: GPL-2.0
/* The renderers: JSON that any parser reads back whatever the process names hold, and tables
 * that fit a 100-column terminal. */
#include <jansson.h>
#include <stdlib.h>

#include "histogram_text.h"
#include "nodes.h"
#include "report.h"
#include "table_layout.h"
#include "unit.h"

static char scan_names[FS_NR_SCAN_RESULTS][FS_ENUM_NAME_LEN] = {"fail", "succeed"};
static bool known[FS_NR_SCAN_RESULTS] = {true, true};
/* One node, as most hosts: its figures are the allocations' own. */
static struct memory_nodes nodes = {.nr = 1, .known = true};
static struct host_info host = {"testhost", "6.18.0-test", 2, 4096, &nodes};
static struct probe_status probes[] = {
    {"kmem:mm_page_alloc", true, false, ""},
    {"kmem:mm_page_free", false, false, "disabled by FOLIOSTAT_DISABLE_PROBES"},
    /* A stand-in not needed here: neither attached nor missing in the table's header. */
    {"software:page-faults", false, true, "not needed: the exceptions tracepoints count faults here"},
};

/* A report with one process named `comm` (raw bytes), 3 order-0 and 2 order-9 movable folios. */
static void make_report(struct fs_report *r, struct row_table *t, struct row *row, const char *comm)
{
	memset(row, 0, sizeof(*row));
	row->key.hi = 4242;
	memcpy(row->comm, comm, strnlen(comm, FS_COMM_LEN - 1));
	row->totals.folios[FS_FOLIO_ALLOC_MOVABLE][0] = 3;
	row->totals.folios[FS_FOLIO_ALLOC_MOVABLE][9] = 2;
	row->totals.folios[FS_FOLIO_PAGECACHE][4] = 1;
	row->events = 6;
	*t = (struct row_table){.rows = row, .nr = 1, .cap = 1, .nr_active = 1};
	memset(r, 0, sizeof(*r));
	r->end.tv_sec = 1796285363; /* 2026-12-03T08:09:23Z */
	r->end.tv_nsec = 5000000;
	r->interval_s = 1.0004;
	r->host = &host;
	r->probes = probes;
	r->nr_probes = sizeof(probes) / sizeof(probes[0]);
	r->scan_names = scan_names;
	r->tlb_names = scan_names;
	r->lru_names = scan_names;
	r->tlb_known = known;
	r->lru_known = known;
	/* The histograms, and the faults but those through the page cache; nothing freed, as
	 * the probes above say (not measured, which is not zero). */
	r->measured[MEASURE_ALLOCATED] = r->measured[MEASURE_PAGECACHE] = true;
	r->measured[MEASURE_DISCARDED] = true;
	for (int f = 0; f < FS_NR_FAULT_COUNTERS; f++)
		r->measured[fault_measures[f]] = f != FS_FAULT_FILE;
	row->totals
	    .fault_kinds[FS_FAULT_KIND(FS_MODE_USER, FS_ACCESS_WRITE, FS_CAUSE_NOT_PRESENT)] = 7;
	r->system.total = row->totals;
	r->system.freed[0] = 11;
	r->rows = t;
	r->nr_shown = 1;
}

/* Render to a string and parse it back with jansson's parser. */
static json_t *render_and_parse(const struct fs_report *r, char **text)
{
	size_t len = 0;
	FILE *out = open_memstream(text, &len);
	json_error_t error;
	json_t *parsed;

	if (render_json(out, r)) {
		fclose(out);
		return NULL;
	}
	fclose(out);
	parsed = json_loads(*text, 0, &error);
	if (!parsed)
		fprintf(stderr, "    JSON did not parse: %s: %s\n", error.text, *text);
	return parsed;
}

static bool json_record_has_the_documented_shape(void)
{
	struct fs_report r;
	struct row_table t;
	struct row row;
	char *text = NULL;
	json_t *rec, *proc, *alloc;
	bool ok;

	make_report(&r, &t, &row, "worker");
	rec = render_and_parse(&r, &text);
	ok = ASSERT_TRUE(rec) && ASSERT_EQ(strchr(text, '\n') - text, strlen(text) - 1);
	if (!ok)
		goto out;
	proc = json_array_get(json_object_get(rec, "processes"), 0);
	alloc = json_object_get(json_object_get(proc, "folios"), "alloc");
	ok = ASSERT_EQ(json_integer_value(json_object_get(rec, "schema")), 1) &&
	     ASSERT_STREQ(json_string_value(json_object_get(rec, "version")), FOLIOSTAT_VERSION) &&
	     ASSERT_STREQ(json_string_value(json_object_get(rec, "time")),
			  "2026-12-03T08:09:23.005Z") &&
	     ASSERT_TRUE(json_real_value(json_object_get(rec, "interval_s")) == 1.0) &&
	     ASSERT_STREQ(
		 json_string_value(json_object_get(json_object_get(rec, "host"), "hostname")),
		 "testhost") &&
	     ASSERT_STREQ(json_string_value(
			      json_object_get(json_object_get(rec, "probes"), "kmem:mm_page_free")),
			  "disabled by FOLIOSTAT_DISABLE_PROBES") &&
	     ASSERT_EQ(json_integer_value(json_object_get(proc, "pid")), 4242) &&
	     ASSERT_EQ(json_integer_value(json_object_get(json_object_get(proc, "faults"), "user")),
		       7) &&
	     ASSERT_EQ(json_integer_value(json_object_get(json_object_get(proc, "faults"), "read")),
		       0) &&
	     ASSERT_TRUE(json_is_null(json_object_get(json_object_get(proc, "faults"), "file"))) &&
	     ASSERT_EQ(json_integer_value(json_object_get(alloc, "0")), 3) &&
	     ASSERT_EQ(json_integer_value(json_object_get(alloc, "9")), 2) &&
	     /* zero buckets are omitted */
	     ASSERT_EQ(json_object_size(alloc), 2) &&
	     ASSERT_EQ(
		 json_object_size(json_object_get(json_object_get(proc, "folios"), "alloc_kernel")),
		 0) &&
	     /* kmem:mm_page_free is not attached: not measured, which is not zero */
	     ASSERT_TRUE(json_is_null(json_object_get(
		 json_object_get(json_object_get(rec, "system"), "folios"), "free"))) &&
	     ASSERT_EQ(
		 json_integer_value(json_object_get(json_object_get(rec, "system"), "processes")),
		 1);
out:
	json_decref(rec);
	free(text);
	return ok;
}

/* The interrupt and untracked groups have a process row's groups, in its places; --self says
 * how events were attributed. */
static bool groups_have_a_rows_shape(void)
{
	static struct self_cost self;
	struct fs_report r;
	struct row_table t;
	struct row row;
	char *text = NULL;
	json_t *rec, *proc, *sys;
	bool ok = true;

	make_report(&r, &t, &row, "worker");
	r.self = &self;
	r.attribution = "records";
	rec = render_and_parse(&r, &text);
	proc = json_array_get(json_object_get(rec, "processes"), 0);
	sys = json_object_get(rec, "system");
	for (int g = 0; ok && g < 2; g++) {
		json_t *group = json_object_get(sys, g ? "untracked" : "interrupt");
		const char *key;
		json_t *value;

		json_object_foreach(group, key, value)
		    ok = ok && ASSERT_TRUE(json_object_get(proc, key));
		ok = ok && ASSERT_TRUE(json_object_get(group, "folios")) &&
		     ASSERT_TRUE(json_object_get(group, "faults")) &&
		     ASSERT_TRUE(json_object_get(group, "tlb")) &&
		     ASSERT_TRUE(json_object_get(group, "lru")) &&
		     ASSERT_TRUE(json_object_get(json_object_get(group, "thp"), "migrate"));
	}
	ok = ok && ASSERT_STREQ(json_string_value(json_object_get(json_object_get(rec, "self"),
								  "attribution")),
				"records");
	json_decref(rec);
	free(text);
	return ok;
}

/* Process names are whatever bytes a process chose: each must come out as valid JSON holding
 * the same text, with ill-formed UTF-8 replaced. */
static bool hostile_names_stay_valid_json(void)
{
	static const struct {
		const char *raw, *expected;
	} names[] = {
	    {"say \"hi\"", "say \"hi\""},
	    {"back\\slash", "back\\slash"},
	    {"tab\there\nnl", "tab\there\nnl"},
	    {"\x01\x1f\x7f", "\x01\x1f\x7f"},
	    {"caf\xc3\xa9", "caf\xc3\xa9"},
	    {"bad\xff", "bad\xef\xbf\xbd"},
	    {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},		      /* overlong '/' */
	    {"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"}, /* surrogate */
	    {"cut\xe2\x82", "cut\xef\xbf\xbd"},			      /* truncated */
	    {"</script>{}", "</script>{}"},
	};
	bool ok = true;

	for (size_t i = 0; ok && i < sizeof(names) / sizeof(names[0]); i++) {
		struct fs_report r;
		struct row_table t;
		struct row row;
		char *text = NULL;
		json_t *rec;

		make_report(&r, &t, &row, names[i].raw);
		rec = render_and_parse(&r, &text);
		ok =
		    ASSERT_TRUE(rec) &&
		    ASSERT_STREQ(json_string_value(json_object_get(
				     json_array_get(json_object_get(rec, "processes"), 0), "comm")),
				 names[i].expected);
		json_decref(rec);
		free(text);
	}
	return ok;
}

static bool table_fits_100_columns(void)
{
	struct fs_report r;
	struct row_table t;
	struct row row;
	char *text = NULL, *line, *save;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	bool ok;

	make_report(&r, &t, &row, "a\x01long-name-15c");
	ok = ASSERT_EQ(render_table(out, &r), 0);
	fclose(out);
	ok = ok && ASSERT_CONTAINS(text, "probes: 1 of 2 attached") &&
	     ASSERT_TRUE(strstr(text, "software:page-faults") == NULL) &&
	     ASSERT_CONTAINS(text, "  freed                                     n/a") &&
	     ASSERT_CONTAINS(text, "kmem:mm_page_free: disabled by FOLIOSTAT_DISABLE_PROBES") &&
	     /* a control byte as an escape: too wide for its column, whose end is kept */
	     ASSERT_CONTAINS(text, "   4242 ...ong-name-15c       4.0   100%      9") &&
	     ASSERT_CONTAINS(text, "pid 4242 (a\\x01long-name-15c): folios allocated, by order");
	for (line = strtok_r(text, "\n", &save); ok && line; line = strtok_r(NULL, "\n", &save))
		ok = ASSERT_TRUE(strlen(line) <= 100);
	free(text);
	return ok;
}

static bool bars_scale_to_the_largest_bucket(void)
{
	char bar[HIST_BAR_WIDTH + 1];
	bool ok;

	format_bar(bar, HIST_BAR_WIDTH, 0, 100);
	ok = ASSERT_EQ(strspn(bar, "*"), 0) && ASSERT_EQ(strlen(bar), HIST_BAR_WIDTH);
	format_bar(bar, HIST_BAR_WIDTH, 100, 100);
	ok = ok && ASSERT_EQ(strspn(bar, "*"), HIST_BAR_WIDTH);
	format_bar(bar, HIST_BAR_WIDTH, 50, 100);
	ok = ok && ASSERT_EQ(strspn(bar, "*"), HIST_BAR_WIDTH / 2);
	/* Anything at all gets one star, so a rare order stays visible. */
	format_bar(bar, HIST_BAR_WIDTH, 1, 1000000);
	return ok && ASSERT_EQ(strspn(bar, "*"), 1);
}

static bool histogram_rows_span_lowest_to_highest_order(void)
{
	__u64 hist[FS_NR_ORDERS] = {[2] = 4, [9] = 1};
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int rows = 0;
	bool ok;

	print_order_hist(out, "title", hist);
	fclose(out);
	for (char *p = text; (p = strstr(p, " : ")); p++)
		rows++;
	/* header + orders 2..9 */
	ok = ASSERT_EQ(rows, 1 + 8) && ASSERT_TRUE(!strstr(text, "\n         1 :")) &&
	     ASSERT_CONTAINS(text, "         9 :            1          512   |****");
	free(text);
	return ok;
}

/* Collapse results come out under the kernel's names; events whose probe is missing are null. */
static bool thp_results_use_kernel_names(void)
{
	struct fs_report r;
	struct row_table t;
	struct row row;
	struct row_proc_totals proc = {.key = {4242}};
	char *text = NULL;
	json_t *rec, *thp;
	bool ok;

	make_report(&r, &t, &row, "collapser");
	proc.totals.thp.results[FS_THP_COLLAPSE][1] = 4;
	proc.totals.thp.results[FS_THP_COLLAPSE][0] = 1;
	t.procs = &proc;
	t.nr_procs = 1;
	r.measured[MEASURE_THP_RESULTS + FS_THP_COLLAPSE] = true;
	r.measured[MEASURE_STALLS + FS_STALL_COMPACTION] = true;
	proc.totals.stalls[FS_STALL_COMPACTION].count = 2;
	proc.totals.stalls[FS_STALL_COMPACTION].total_ns = 5000;
	proc.totals.stalls[FS_STALL_COMPACTION].hist[0] = 1; /* under 1 us */
	proc.totals.stalls[FS_STALL_COMPACTION].hist[3] = 1; /* 4 to 7 us */
	rec = render_and_parse(&r, &text);
	thp = json_object_get(json_array_get(json_object_get(rec, "processes"), 0), "thp");
	ok =
	    ASSERT_TRUE(rec) &&
	    ASSERT_EQ(
		json_integer_value(json_object_get(json_object_get(thp, "collapse"), "succeed")),
		4) &&
	    ASSERT_EQ(json_integer_value(json_object_get(json_object_get(thp, "collapse"), "fail")),
		      1) &&
	    ASSERT_TRUE(json_is_null(json_object_get(thp, "scan"))) &&
	    ASSERT_EQ(json_integer_value(json_object_get(
			  json_object_get(json_object_get(thp, "compaction"), "hist_us"), "4")),
		      1) &&
	    ASSERT_EQ(
		json_integer_value(json_object_get(json_object_get(thp, "compaction"), "total_us")),
		5);
	json_decref(rec);
	free(text);
	return ok;
}

/* Each fault kind counts once in its mode, once in its access type and once in its cause. */
static bool fault_kinds_sum_into_the_figures(void)
{
	struct fs_totals c = {0};

	c.fault_kinds[FS_FAULT_KIND(FS_MODE_USER, FS_ACCESS_WRITE, FS_CAUSE_NOT_PRESENT)] = 100;
	c.fault_kinds[FS_FAULT_KIND(FS_MODE_USER, FS_ACCESS_EXEC, FS_CAUSE_PROTECTION)] = 20;
	c.fault_kinds[FS_FAULT_KIND(FS_MODE_KERNEL, FS_ACCESS_READ, FS_CAUSE_NOT_PRESENT)] = 3;
	c.fault_kinds[FS_FAULT_KIND(FS_MODE_KERNEL, FS_ACCESS_WRITE, FS_CAUSE_PROTECTION)] = 4000;
	c.file_faults = 5;
	return ASSERT_EQ(fault_count(&c, FS_FAULT_USER), 120) &&
	       ASSERT_EQ(fault_count(&c, FS_FAULT_KERNEL), 4003) &&
	       ASSERT_EQ(fault_count(&c, FS_FAULT_READ), 3) &&
	       ASSERT_EQ(fault_count(&c, FS_FAULT_WRITE), 4100) &&
	       ASSERT_EQ(fault_count(&c, FS_FAULT_EXEC), 20) &&
	       ASSERT_EQ(fault_count(&c, FS_FAULT_NOT_PRESENT), 103) &&
	       ASSERT_EQ(fault_count(&c, FS_FAULT_PROTECTION), 4020) &&
	       ASSERT_EQ(fault_count(&c, FS_FAULT_FILE), 5);
}

/* Every figure the table's layout names is a registry row of a kind its line can show: a path
 * the registry lacks, or a figure of the wrong kind, is found and named. */
static bool table_layout_names_registry_figures(void)
{
	static const struct table_line unknown[] = {
	    {.kind = LINE_COLUMNS, .label = "x", .cells = {{.figure = "folios.nonesuch"}}}};
	static const struct table_line wrong_kind[] = {
	    {.kind = LINE_LIST, .cells = {{.figure = "faults.user"}}}};
	static const struct table_line too_few[] = {
	    {.kind = LINE_SENTENCE, .format = "%llu of %llu\n", .cells = {{.figure = "tlb.full"}}}};
	static const struct table_line too_many[] = {
	    {.kind = LINE_SENTENCE,
	     .format = "%llu%% of them\n",
	     .cells = {{.figure = "tlb.full"}, {.figure = "tlb.pages"}}}};
	static const struct table_line vmstat_sum[] = {
	    {.kind = LINE_SENTENCE, .format = "%llu\n", .cells = {{.figure = "thp.vmstat"}}}};
	static const struct table_line not_a_group[] = {
	    {.kind = LINE_COLUMNS, .in = "folios.alloc", .cells = {{.figure = "folios.alloc"}}}};
	char why[256] = "";
	bool ok = ASSERT_TRUE(table_layout_check(table_lines, nr_table_lines, why, sizeof(why)));

	if (!ok)
		fprintf(stderr, "    %s\n", why);
	ok = ok && ASSERT_TRUE(!table_layout_check(unknown, 1, why, sizeof(why))) &&
	     ASSERT_CONTAINS(why, "folios.nonesuch") &&
	     ASSERT_TRUE(!table_layout_check(wrong_kind, 1, why, sizeof(why))) &&
	     ASSERT_CONTAINS(why, "faults.user") &&
	     ASSERT_TRUE(!table_layout_check(not_a_group, 1, why, sizeof(why))) &&
	     ASSERT_TRUE(!table_layout_check(too_few, 1, why, sizeof(why))) &&
	     ASSERT_CONTAINS(why, "shows 2 figures, names 1") &&
	     /* a figure named and never shown would vanish: %% is no figure */
	     ASSERT_TRUE(!table_layout_check(too_many, 1, why, sizeof(why))) &&
	     ASSERT_CONTAINS(why, "shows 1 figures, names 2") &&
	     /* the kernel's counters are unlike: a line each, never one sum */
	     ASSERT_TRUE(!table_layout_check(vmstat_sum, 1, why, sizeof(why))) &&
	     ASSERT_CONTAINS(why, "thp.vmstat");
	for (size_t at = 0; ok && at < nr_table_lines; at++)
		for (int k = 0; ok && k < TABLE_MAX_CELLS; k++)
			if (table_lines[at].cells[k].figure)
				ok = ASSERT_TRUE(table_line_figure(at, k) >= 0);
	return ok;
}

/* The table says n/a, or leaves a line out, where the registry says a figure is not measured:
 * the same measures as JSON's null. */
static bool table_shows_what_the_registry_measures(void)
{
	struct fs_report r;
	struct row_table t;
	struct row row;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	bool ok;

	make_report(&r, &t, &row, "worker");
	r.measured[MEASURE_LRU_INSERT] = true;
	r.mglru = true;
	r.system.total.lru_insert[1][FS_FOLIOS] = 2;
	r.system.total.lru_insert[1][FS_PAGES] = 1024;
	r.system.total.folios[FS_FOLIO_ALLOC_FAILED][9] = 1;
	ok = ASSERT_EQ(render_table(out, &r), 0);
	fclose(out);
	ok = ok &&
	     /* faults through the page cache are not measured here: n/a in their column */
	     ASSERT_CONTAINS(text, "  system        7        0        0        7        0        7"
				   "        0      n/a        0        0") &&
	     ASSERT_CONTAINS(text, "  added to succeed                            2           1024"
				   "          4.0") &&
	     ASSERT_CONTAINS(text, "  activations: not reported under the multi-generational LRU") &&
	     ASSERT_CONTAINS(text, "    thp faults    n/a got 2 MiB, 0 fell back (memcg limit, race)"
				   ", 1 fell back (none free)") &&
	     ASSERT_TRUE(!strstr(text, "TLB FLUSHES"));
	free(text);
	return ok;
}

const struct unit_test render_tests[] = {
    UNIT_TEST(fault_kinds_sum_into_the_figures),
    UNIT_TEST(thp_results_use_kernel_names),
    UNIT_TEST(json_record_has_the_documented_shape),
    UNIT_TEST(groups_have_a_rows_shape),
    UNIT_TEST(hostile_names_stay_valid_json),
    UNIT_TEST(table_fits_100_columns),
    UNIT_TEST(bars_scale_to_the_largest_bucket),
    UNIT_TEST(histogram_rows_span_lowest_to_highest_order),
    UNIT_TEST(table_layout_names_registry_figures),
    UNIT_TEST(table_shows_what_the_registry_measures),
    {},
};
