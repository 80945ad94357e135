// SPDX-License-Identifier: GPL-2.0
/*
 * Runs every unit test, one result line each ("PASS name" / "FAIL name"), then a summary.
 * `unit-tests --list [FILTER]` prints the name of each test it would run instead: the runner
 * expects one result line per name, so a test that crashes cannot drop itself and the rest.
 * `unit-tests --parse ARG...` parses foliostat's command line ARG... as foliostat would and
 * exits 0 if it would run (or print help), 2 with its message if it is a usage error: the docs
 * test checks every example of the README, the man page and the guide so.
 */
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "unit.h"

/* Parse argv[2..] as foliostat's arguments. */
static int parse_only(int argc, char **argv)
{
	struct fs_options opts;
	char err[512];
	FILE *null = fopen("/dev/null", "w");
	enum fs_parse_result r;

	argv[1] = "foliostat";
	r = parse_options(argc - 1, argv + 1, &opts, err, sizeof(err), null ? null : stdout);
	if (null)
		fclose(null);
	if (r == FS_PARSE_USAGE) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	return 0;
}

static const struct unit_test *const groups[] = {
    options_tests,	row_table_tests,	     regroup_tests,  table_tests,
    render_tests,	json_writer_tests,   sanitize_tests, kernel_counters_tests,
    cgroup_names_tests, cgroup_labels_tests, series_tests,   exposition_tests,
    file_table_tests,	web_config_tests,    sandbox_tests,  perf_events_tests,
    figures_tests,      resident_tests,      free_blocks_tests, nodes_tests,
    fuzz_findings_tests, output_file_tests,  proc_text_tests,     privileges_tests,
    password_budget_tests,
    opener_tests,
    golden_tests,
};

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;
	bool list = argc > 1 && !strcmp(argv[1], "--list");
	const char *filter = argc > 1 + list ? argv[1 + list] : NULL;

	if (argc > 1 && !strcmp(argv[1], "--parse"))
		return parse_only(argc, argv);

	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		for (const struct unit_test *t = groups[g]; t->name; t++) {
			bool ok;

			if (filter && !strstr(t->name, filter))
				continue;
			if (list) {
				printf("unit:%s\n", t->name);
				continue;
			}
			fflush(stdout);
			ok = t->run();
			printf("%s unit:%s\n", ok ? "PASS" : "FAIL", t->name);
			ok ? passed++ : failed++;
		}
	}
	if (list)
		return fflush(stdout) ? 1 : 0;
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
