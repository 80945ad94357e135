// SPDX-License-Identifier: GPL-2.0
/* Runs every unit test, one result line each ("PASS name" / "FAIL name"), then a summary. */
#include "unit.h"

static const struct unit_test *const groups[] = {
    options_tests, window_tests,         table_tests,
    render_tests,  json_writer_tests,    sanitize_tests,
    kernel_counters_tests, cgroup_names_tests, cgroup_labels_tests,
    series_tests, exposition_tests, file_table_tests,
    web_config_tests,
    sandbox_tests,
    perf_events_tests,
};

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;

	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		for (const struct unit_test *t = groups[g]; t->name; t++) {
			bool ok;

			if (argc > 1 && !strstr(t->name, argv[1]))
				continue;
			fflush(stdout);
			ok = t->run();
			printf("%s unit:%s\n", ok ? "PASS" : "FAIL", t->name);
			ok ? passed++ : failed++;
		}
	}
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
