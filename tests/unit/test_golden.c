// SPDX-License-Identifier: GPL-2.0
/*
 * The outputs, byte for byte: rich reports whose every counter word is set (from a fixed seed,
 * so each run makes the same reports) rendered as the table (plain and coloured), the streaming
 * line, JSON and the exposition, and compared with the files in tests/unit/golden/. It is what
 * proves a refactoring of a renderer or of the figure registry changed no output. A change that
 * is meant (a new figure, a new column) regenerates the files with FOLIOSTAT_GOLDEN_WRITE=1 and
 * shows in the diff of the commit that makes it.
 */
#include <errno.h>
#include <stdlib.h>

#include "exposition.h"
#include "file_table.h"
#include "nodes.h"
#include "report.h"
#include "resident_report.h"
#include "series.h"
#include "unit.h"

/* The directory of the golden files, beside this source file (the suite runs from the top). */
#define GOLDEN_DIR "tests/unit/golden/"

#define NR_ROWS 4

static __u64 seed;

/* xorshift64: the same sequence on every host. */
static __u64 next_random(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* Every 64-bit word of [p, p + bytes) set to a count below `below`, a third of them 0, so that
 * the renderers' "left out when zero" paths run as well as their figures. */
static void fill_words(void *p, size_t bytes, __u64 below)
{
	__u64 *w = p;

	for (size_t i = 0; i < bytes / sizeof(*w); i++)
		w[i] = next_random() % 3 == 0 ? 0 : next_random() % below;
}

static char scan_names[FS_NR_SCAN_RESULTS][FS_ENUM_NAME_LEN];
static char tlb_names[FS_NR_TLB_REASONS][FS_ENUM_NAME_LEN];
static char lru_names[FS_NR_LRU_LISTS][FS_ENUM_NAME_LEN];
static bool tlb_known[FS_NR_TLB_REASONS], lru_known[FS_NR_LRU_LISTS];

/* The kernel's names for its enums, as BTF gives them on 6.18, some values unnamed. */
static void name_enums(void)
{
	static const char *const scans[] = {"failed", "succeed", "pmd_null", "exceed_none_pte",
					    "exceed_swap_pte", "page_ro", "lack_referenced_page"};
	static const char *const tlbs[] = {"flush_on_task_switch", "remote_shootdown",
					   "local_shootdown", "local_mm_shootdown",
					   "remote_send_ipi"};
	static const char *const lrus[] = {"inactive_anon", "active_anon", "inactive_file",
					   "active_file", "unevictable"};

	for (size_t i = 0; i < sizeof(scans) / sizeof(scans[0]) && i < FS_NR_SCAN_RESULTS; i++)
		snprintf(scan_names[i], FS_ENUM_NAME_LEN, "%s", scans[i]);
	for (size_t i = 0; i < sizeof(tlbs) / sizeof(tlbs[0]) && i < FS_NR_TLB_REASONS; i++) {
		snprintf(tlb_names[i], FS_ENUM_NAME_LEN, "%s", tlbs[i]);
		tlb_known[i] = true;
	}
	for (size_t i = 0; i < sizeof(lrus) / sizeof(lrus[0]) && i < FS_NR_LRU_LISTS; i++) {
		snprintf(lru_names[i], FS_ENUM_NAME_LEN, "%s", lrus[i]);
		lru_known[i] = true;
	}
}

static struct probe_status probes[] = {
    {"kmem:mm_page_alloc", true, false, ""},
    {"kmem:mm_page_free", false, false, "disabled by FOLIOSTAT_DISABLE_PROBES"},
    {"software:page-faults", false, true, "not needed: the exceptions tracepoints count faults"},
    {"memcg:count_memcg_events", true, false, ""},
};

/* What one report is made of, kept together so its pointers stay valid while it renders. */
static struct golden {
	struct memory_nodes nodes;
	struct host_info host;
	struct row rows[NR_ROWS];
	struct row_proc_totals procs[NR_ROWS];
	struct row_table table;
	struct kernel_counter kernel_items[3];
	struct kernel_counters kernel;
	struct self_cost self;
	struct free_blocks free;
	struct file_row files[2], *ranked[2];
	struct file_mount mount;
	struct file_system systems[1];
	struct file_summary file_summary;
	struct resident_row resident_rows[NR_ROWS - 1];
	struct resident_report resident;
	struct fs_report r;
} g;

static const char buddyinfo[] =
    "Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1"
    "      2\n"
    "Node 0, zone    DMA32   1190    868    636    449    311    201    117     59     22      4"
    "    148\n"
    "Node 0, zone   Normal   8143   6011   3122   1477    600    170     33      6      1      0"
    "      0\n"
    "Node 1, zone   Normal    412    300    211     96     40     12      4      1      0      0"
    "      0\n";

static const char pagetypeinfo[] =
    "Page block order: 9\n"
    "Pages per block:  512\n"
    "\n"
    "Free pages count per migrate type at order       0      1      2      3      4      5      6"
    "      7      8      9     10 \n"
    "Node    0, zone   Normal, type    Unmovable    143     60     12      2      0      0      0"
    "      0      0      0      0 \n"
    "Node    0, zone   Normal, type      Movable   8000   5951   3110   1475    600    170     33"
    "      6      1      0      0 \n"
    "Node    1, zone   Normal, type    Unmovable     12      0      1      0      0      0      0"
    "      0      0      0      0 \n"
    "Node    1, zone   Normal, type      Movable    400    300    210     96     40     12      4"
    "      1      0      0      0 \n";

/*
 * A report of NR_ROWS rows (`by`), every counter set, on a host of `nr_nodes` nodes, with
 * `all_measured` every figure measured or only some (the others are "not measured": null, n/a,
 * a family left out).
 */
static bool make_report(enum fs_row_kind by, int nr_nodes, bool all_measured)
{
	static const char *const comms[NR_ROWS] = {"postgres", "java", "a\"b\\c\tq", "kworker/0:1"};

	memset(&g, 0, sizeof(g));
	seed = 0x9e3779b97f4a7c15ULL ^ ((__u64)by << 8 | (__u64)nr_nodes << 4 | all_measured);
	name_enums();
	g.nodes.nr = nr_nodes;
	for (int n = 0; n < nr_nodes; n++)
		g.nodes.ids[n] = n;
	g.nodes.known = true;
	g.nodes.counted = nr_nodes > 1;
	g.host = (struct host_info){"goldenhost", "6.18.0-golden", 2, 4096, &g.nodes};

	for (int i = 0; i < NR_ROWS; i++) {
		struct row *row = &g.rows[i];

		row->key.hi = by == FS_BY_CGROUP ? 1000 + i : 4000 + 17 * i;
		row->key.lo = by == FS_BY_PROCESS ? 123456789ULL * (i + 1) : 0;
		snprintf(row->comm, sizeof(row->comm), "%s", comms[i]);
		row->cgroup = 1000 + i;
		fill_words(&row->totals, sizeof(row->totals), 5000);
		row->events = 100000 - 1000 * i;
		g.procs[i].key = row->key;
		fill_words(&g.procs[i].totals, sizeof(g.procs[i].totals), 3000);
		if (nr_nodes == 1)
			memset(g.procs[i].totals.alloc_by_node_order[1], 0,
			       sizeof(g.procs[i].totals.alloc_by_node_order) -
				   sizeof(g.procs[i].totals.alloc_by_node_order[0]));
		words_add((__u64 *)&g.r.system.total, (const __u64 *)&row->totals,
			  FS_WORDS(row->totals));
	}
	/* procs are sorted by key, as row_table.c makes them */
	g.table = (struct row_table){.rows = g.rows,
				     .nr = NR_ROWS,
				     .cap = NR_ROWS,
				     .nr_active = NR_ROWS + 3,
				     .nr_dropped = 2,
				     .procs = g.procs,
				     .nr_procs = NR_ROWS};
	fill_words(&g.r.system.interrupt, sizeof(g.r.system.interrupt), 700);
	fill_words(&g.r.system.untracked, sizeof(g.r.system.untracked), 700);
	fill_words(&g.r.system.unselected, sizeof(g.r.system.unselected), 700);
	fill_words(g.r.system.freed, sizeof(struct system_totals) -
				       offsetof(struct system_totals, freed), 90000);
	if (nr_nodes == 1)
		memset(g.r.system.alloc_by_node_order[1], 0,
		       sizeof(g.r.system.alloc_by_node_order) -
			   sizeof(g.r.system.alloc_by_node_order[0]));

	g.kernel_items[0] = (struct kernel_counter){"mthp/hugepages-64kB/anon_fault_alloc", 12};
	g.kernel_items[1] = (struct kernel_counter){"thp_fault_alloc", 31};
	g.kernel_items[2] = (struct kernel_counter){"thp_fault_fallback", 4};
	g.kernel = (struct kernel_counters){g.kernel_items, 3, 3};

	fill_words(g.self.events, sizeof(g.self.events) * 3, 1000000);
	g.self.loader_cpu_s = 0.125;
	g.self.loader_rss_kib = 20480;
	for (int b = 0; b < FS_NR_BOUNDS; b++)
		g.self.bounds[b] = (struct bound_count){.limit = b == BOUND_SERIES ? 0 : 4096 >> b,
							.entries = 7 * b, .evictions = b % 2};

	g.free = (struct free_blocks){.buddyinfo_fd = -1, .pagetypeinfo_fd = -1};
	if (!ASSERT_EQ(free_blocks_parse_buddyinfo(&g.free, buddyinfo), 0) ||
	    !ASSERT_EQ(free_blocks_parse_pagetypeinfo(&g.free, pagetypeinfo), 0))
		return false;

	g.mount = (struct file_mount){1u << 20 | 3, "/", "/srv", "xfs"};
	for (int i = 0; i < 2; i++) {
		g.files[i].dev = 1u << 20 | 3;
		g.files[i].ino = 77 + i;
		fill_words(g.files[i].folios, sizeof(g.files[i].folios), 400);
		g.files[i].pages = hist_pages(g.files[i].folios);
		g.files[i].depth = 2;
		snprintf(g.files[i].name[0], FS_FILE_NAME_LEN, "data%d.db", i);
		snprintf(g.files[i].name[1], FS_FILE_NAME_LEN, "pg");
		g.files[i].orders = i;
		g.files[i].readahead_order = 3 * i;
		g.ranked[i] = &g.files[i];
	}
	g.systems[0] = (struct file_system){.dev = 1u << 20 | 3, .mount = &g.mount, .files = 2,
					    .files_known = 2, .files_large = 1, .max_allowed = 5};
	fill_words(g.systems[0].folios, sizeof(g.systems[0].folios), 800);
	fill_words(g.systems[0].untracked, sizeof(g.systems[0].untracked), 30);
	g.file_summary = (struct file_summary){.ranked = g.ranked, .nr_ranked = 2, .nr_shown = 2,
					       .systems = g.systems, .nr_systems = 1,
					       .mounts = &g.mount, .nr_mounts = 1};

	/* --resident: rows but the last process's, one cut short, one cgroup unknown */
	for (int i = 0; i < NR_ROWS - 1; i++) {
		struct resident_row *row = &g.resident_rows[i];

		row->pid = (__u32)g.rows[i].key.hi;
		row->start_ns = g.rows[i].key.lo;
		snprintf(row->comm, sizeof(row->comm), "%s", g.rows[i].comm);
		row->cgroup = i == 1 ? NULL : (char *)"/system.slice/db.service";
		row->processes = by == FS_BY_PROCESS ? 1 : 2 + i;
		row->scanned_at = 100.0 - i;
		row->cut_short = i == 2;
		fill_words(&row->counts, sizeof(row->counts), 20000);
		words_add((__u64 *)&g.resident.total, (const __u64 *)&row->counts,
			  sizeof(row->counts) / sizeof(__u64));
	}
	g.resident.rows = g.resident_rows;
	g.resident.nr = g.resident.cap = NR_ROWS - 1;
	g.resident.scanned = 9;
	g.resident.gone = 1;
	g.resident.failed = 1;
	g.resident.cut_short = 1;
	g.resident.first_error = -EACCES;
	g.resident.seconds = 0.25;
	g.resident.cpu_seconds = 0.125;
	g.resident.passes = 3;
	g.resident.swept = true;
	g.resident.pagemap_scan = true;
	g.resident.taken_at = 101.5;

	g.r.end = (struct timespec){1796285363, 5000000};
	g.r.by = by;
	g.r.interval_s = 2.0004;
	g.r.host = &g.host;
	g.r.probes = probes;
	g.r.nr_probes = sizeof(probes) / sizeof(probes[0]);
	for (int m = 0; m < NR_MEASURES; m++)
		g.r.measured[m] = all_measured || m % 3 != 1;
	g.r.scan_names = scan_names;
	g.r.tlb_names = tlb_names;
	g.r.tlb_known = tlb_known;
	g.r.lru_names = lru_names;
	g.r.lru_known = lru_known;
	g.r.kernel = &g.kernel;
	g.r.self = &g.self;
	g.r.attribution = "records";
	g.r.rows = &g.table;
	g.r.files = &g.file_summary;
	g.r.free = &g.free;
	g.r.resident = &g.resident;
	g.r.resident_shown = NR_ROWS - 1;
	g.r.nr_shown = NR_ROWS;
	return true;
}

static void free_report(void)
{
	free_blocks_close(&g.free);
}

/* The text as a renderer writes it into a stream. */
typedef int (*render_fn)(FILE *out);

static char *rendered(render_fn render, size_t *len)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, len);

	if (!out)
		return NULL;
	if (render(out)) {
		fclose(out);
		free(text);
		return NULL;
	}
	fclose(out);
	return text;
}

/* Compare `text` with the golden file `name`, or write it there (FOLIOSTAT_GOLDEN_WRITE=1). */
static bool matches_golden(const char *name, const char *text, size_t len)
{
	char path[256], *golden = NULL;
	size_t golden_len = 0;
	bool ok;
	FILE *f;

	snprintf(path, sizeof(path), GOLDEN_DIR "%s", name);
	if (getenv("FOLIOSTAT_GOLDEN_WRITE")) {
		f = fopen(path, "w");
		ok = f && fwrite(text, 1, len, f) == len;
		if (f && fclose(f))
			ok = false;
		return ASSERT_TRUE(ok);
	}
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "    %s: %s\n", path, strerror(errno));
		return false;
	}
	golden = malloc(len + 2);
	if (golden)
		golden_len = fread(golden, 1, len + 1, f);
	fclose(f);
	ok = golden && golden_len == len && !memcmp(golden, text, len);
	if (!ok) {
		size_t at = 0;

		while (golden && at < len && at < golden_len && golden[at] == text[at])
			at++;
		fprintf(stderr,
			"    %s differs from the output at byte %zu (%zu bytes, golden %zu); if "
			"the change is meant, regenerate with FOLIOSTAT_GOLDEN_WRITE=1\n",
			path, at, len, golden_len);
	}
	free(golden);
	return ok;
}

static int table_plain(FILE *out)
{
	g.r.colour = false;
	return render_table(out, &g.r);
}

static int table_coloured(FILE *out)
{
	g.r.colour = true;
	return render_table(out, &g.r);
}

static int json(FILE *out)
{
	g.r.colour = false;
	return render_json(out, &g.r);
}

static int line(FILE *out)
{
	g.r.colour = false;
	render_line_header(out, &g.r);
	return render_line(out, &g.r);
}

static bool renders_as_golden(const char *stem, render_fn render)
{
	char name[128];
	size_t len = 0;
	char *text = rendered(render, &len);
	bool ok;

	snprintf(name, sizeof(name), "%s.txt", stem);
	ok = ASSERT_TRUE(text) && matches_golden(name, text, len);
	free(text);
	return ok;
}

static const char *no_cgroup_path(__u64 cgroup, void *ctx)
{
	(void)ctx;
	return cgroup == 1001 ? "/system.slice/db.service" : NULL;
}

/* The exposition of the report's rows and system, read once into a series store. */
static bool exposes_as_golden(const char *stem, bool openmetrics)
{
	struct series_settings settings = {.by = g.r.by, .max_series = 3};
	static struct self_cost self;
	struct exposition_health health = {.start_time = 1796285000.5,
					   .loader_cpu_s = 1.25,
					   .loader_rss_bytes = 21 << 20,
					   .bpf = &self,
					   .bpf_run_time = true,
					   .scrapes = 5,
					   .last_duration_s = 0.003};
	struct exposition e = {0};
	struct series_store s;
	char name[128];
	bool ok;

	/* the health's self figures as a scrape reads them: the report's, and the series' bound
	 * as this store leaves it (3 of the 4 rows, or by cgroup the one named; one folded into
	 * other) */
	self = g.self;
	self.bounds[BOUND_SERIES] = (struct bound_count){
	    .limit = 3, .entries = g.r.by == FS_BY_CGROUP ? 1 : 3, .evictions = 1};
	series_init(&s, &settings, no_cgroup_path, NULL, NULL, 0.0);
	snprintf(name, sizeof(name), "%s.%s", stem, openmetrics ? "om.txt" : "prom.txt");
	ok = ASSERT_EQ(series_add_read(&s, &g.table, &g.r.system, &g.kernel, 1.0), 0) &&
	     ASSERT_EQ(render_exposition(&e, &g.r, &s, &health, openmetrics), 0) &&
	     matches_golden(name, e.text, e.len);
	exposition_free(&e);
	series_free(&s);
	return ok;
}

/* Every output of one report (OpenMetrics' exposition only where `openmetrics`: it differs from
 * the text format only in its framing). */
static bool report_renders_as_golden(enum fs_row_kind by, int nr_nodes, bool all_measured,
				     bool openmetrics)
{
	char stem[96];
	bool ok;

	snprintf(stem, sizeof(stem), "%s-%dnode%s", fs_row_kind_names[by], nr_nodes,
		 all_measured ? "" : "-partly-measured");
	ok = make_report(by, nr_nodes, all_measured);
	if (ok) {
		char sub[128];

		snprintf(sub, sizeof(sub), "%s.table", stem);
		ok = renders_as_golden(sub, table_plain);
		snprintf(sub, sizeof(sub), "%s.table-colour", stem);
		ok = renders_as_golden(sub, table_coloured) && ok;
		snprintf(sub, sizeof(sub), "%s.line", stem);
		ok = renders_as_golden(sub, line) && ok;
		snprintf(sub, sizeof(sub), "%s.json", stem);
		ok = renders_as_golden(sub, json) && ok;
		ok = exposes_as_golden(stem, false) && ok;
		if (openmetrics)
			ok = exposes_as_golden(stem, true) && ok;
	}
	free_report();
	return ok;
}

static bool outputs_match_the_golden_files(void)
{
	bool ok = report_renders_as_golden(FS_BY_PROCESS, 1, true, true);

	ok = report_renders_as_golden(FS_BY_PROCESS, 2, true, false) && ok;
	ok = report_renders_as_golden(FS_BY_PROCESS, 1, false, false) && ok;
	ok = report_renders_as_golden(FS_BY_CGROUP, 2, true, false) && ok;
	ok = report_renders_as_golden(FS_BY_COMM, 1, true, false) && ok;
	return ok;
}

const struct unit_test golden_tests[] = {
    UNIT_TEST(outputs_match_the_golden_files),
    {0},
};
