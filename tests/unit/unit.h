/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small test harness in the manner of the kernel's BPF selftests: a test is a function that
 * returns bool, assertions return bool so a test reads `if (!ASSERT_EQ(a, b)) return false;`,
 * and each failed assertion says where and what.
 */
#ifndef FS_UNIT_H
#define FS_UNIT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct unit_test {
	const char *name;
	bool (*run)(void);
};

#define UNIT_TEST(fn)   \
	{               \
#fn, fn \
	}

static inline bool unit_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "    %s:%d: %s\n", file, line, what);
	return false;
}

#define ASSERT_TRUE(cond) ((cond) ? true : unit_fail(__FILE__, __LINE__, "expected true: " #cond))

#define ASSERT_EQ(actual, expected)                                                             \
	({                                                                                      \
		long long _a = (long long)(actual), _e = (long long)(expected);                 \
		_a == _e ? true                                                                 \
			 : (fprintf(stderr, "    %s:%d: %s == %lld, expected %lld\n", __FILE__, \
				    __LINE__, #actual, _a, _e),                                 \
			    false);                                                             \
	})

#define ASSERT_STREQ(actual, expected)                                                         \
	({                                                                                     \
		const char *_a = (actual), *_e = (expected);                                   \
		(_a && strcmp(_a, _e) == 0)                                                    \
		    ? true                                                                     \
		    : (fprintf(stderr, "    %s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, \
			       __LINE__, #actual, _a ? _a : "(null)", _e),                     \
		       false);                                                                 \
	})

#define ASSERT_CONTAINS(haystack, needle)                                                          \
	({                                                                                         \
		const char *_h = (haystack);                                                       \
		(_h && strstr(_h, (needle)))                                                       \
		    ? true                                                                         \
		    : unit_fail(__FILE__, __LINE__, "expected " #haystack " to contain " #needle); \
	})

/* Each test file's table, ended by an empty entry. */
extern const struct unit_test options_tests[];
extern const struct unit_test opener_tests[];
extern const struct unit_test golden_tests[];
extern const struct unit_test web_config_tests[];
extern const struct unit_test password_budget_tests[];
extern const struct unit_test row_table_tests[];
extern const struct unit_test regroup_tests[];
extern const struct unit_test render_tests[];
extern const struct unit_test sanitize_tests[];
extern const struct unit_test json_writer_tests[];
extern const struct unit_test kernel_counters_tests[];
extern const struct unit_test table_tests[];
extern const struct unit_test cgroup_names_tests[];
extern const struct unit_test cgroup_labels_tests[];
extern const struct unit_test series_tests[];
extern const struct unit_test exposition_tests[];
extern const struct unit_test file_table_tests[];
extern const struct unit_test sandbox_tests[];
extern const struct unit_test perf_events_tests[];
extern const struct unit_test figures_tests[];
extern const struct unit_test resident_tests[];
extern const struct unit_test free_blocks_tests[];
extern const struct unit_test nodes_tests[];
extern const struct unit_test fuzz_findings_tests[];
extern const struct unit_test output_file_tests[];
extern const struct unit_test proc_text_tests[];
extern const struct unit_test privileges_tests[];

#endif
