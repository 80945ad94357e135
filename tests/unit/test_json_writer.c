// SPDX-License-Identifier: GPL-2.0
/* The JSON writer: commas, escapes, and numbers written as jansson writes them (the record's
 * bytes did not change when the writer replaced jansson's tree). */
#include <limits.h>
#include <math.h>

#include "json_writer.h"
#include "unit.h"

/* The writer's text as a string. */
static const char *text_of(struct json_writer *w)
{
	jw_raw(w, "", 1);
	return w->failed ? "(failed)" : w->text;
}

static bool members_and_elements_are_separated(void)
{
	struct json_writer w = {0};
	bool ok;

	jw_reset(&w);
	jw_object_begin(&w);
	jw_member_int(&w, "a", 1);
	jw_key(&w, "b");
	jw_array_begin(&w);
	jw_int(&w, 2);
	jw_object_begin(&w);
	jw_object_end(&w);
	jw_null(&w);
	jw_array_end(&w);
	jw_key(&w, "c");
	jw_bool(&w, false);
	jw_object_end(&w);
	ok = ASSERT_STREQ(text_of(&w), "{\"a\":1,\"b\":[2,{},null],\"c\":false}");
	/* A reset starts a new document in the same buffer. */
	jw_reset(&w);
	jw_array_begin(&w);
	jw_array_end(&w);
	ok = ok && ASSERT_STREQ(text_of(&w), "[]");
	jw_free(&w);
	return ok;
}

static bool strings_are_escaped(void)
{
	struct json_writer w = {0};
	bool ok;

	jw_reset(&w);
	jw_string(&w, "q\"b\\s/ \b\f\n\r\t\x01\x1f\x7f \xe2\x82\xac");
	ok = ASSERT_STREQ(text_of(&w),
			  "\"q\\\"b\\\\s/ \\b\\f\\n\\r\\t\\u0001\\u001F\\u007F \xe2\x82\xac\"");
	jw_free(&w);
	return ok;
}

static bool check_number(long long i, double real, const char *expected)
{
	struct json_writer w = {0};
	bool ok;

	jw_reset(&w);
	if (isnan(real))
		jw_int(&w, i);
	else
		jw_real(&w, real, 12);
	ok = ASSERT_STREQ(text_of(&w), expected);
	jw_free(&w);
	return ok;
}

static bool numbers_read_as_jansson_wrote_them(void)
{
	return check_number(0, NAN, "0") && check_number(-42, NAN, "-42") &&
	       check_number(LLONG_MIN, NAN, "-9223372036854775808") &&
	       check_number(LLONG_MAX, NAN, "9223372036854775807") &&
	       check_number(0, 2.0, "2.0") && check_number(0, 0.0, "0.0") &&
	       check_number(0, 1.25, "1.25") && check_number(0, -3.0, "-3.0") &&
	       check_number(0, 0.001, "0.001") && check_number(0, 1e-5, "1e-5") &&
	       check_number(0, 1.5e-7, "1.5e-7") && check_number(0, 1e15, "1e15") &&
	       check_number(0, 123456.789, "123456.789") && check_number(0, INFINITY, "null");
}

/* Inode numbers use all 64 bits on some file systems. */
static bool unsigned_numbers_use_all_64_bits(void)
{
	struct json_writer w = {0};
	bool ok;

	jw_reset(&w);
	jw_array_begin(&w);
	jw_uint(&w, 0);
	jw_uint(&w, ULLONG_MAX);
	jw_array_end(&w);
	ok = ASSERT_STREQ(text_of(&w), "[0,18446744073709551615]");
	jw_free(&w);
	return ok;
}

static bool too_deep_fails(void)
{
	struct json_writer w = {0};
	bool ok;

	jw_reset(&w);
	for (int i = 0; i < JSON_WRITER_MAX_DEPTH + 1; i++)
		jw_array_begin(&w);
	ok = ASSERT_TRUE(w.failed);
	jw_free(&w);
	return ok;
}

/* A burst's large record does not leave its buffer behind once records are small again. */
static bool shrink_gives_back_a_large_buffer(void)
{
	struct json_writer w = {0};
	bool ok;

	jw_reset(&w);
	jw_array_begin(&w);
	for (int i = 0; i < 100000; i++)
		jw_int(&w, i);
	jw_array_end(&w);
	jw_shrink(&w);
	ok = ASSERT_TRUE(w.cap >= w.len);
	jw_reset(&w);
	jw_array_begin(&w);
	jw_array_end(&w);
	jw_shrink(&w);
	ok = ok && ASSERT_TRUE(w.cap <= 64) && ASSERT_STREQ(text_of(&w), "[]");
	jw_free(&w);
	return ok;
}

const struct unit_test json_writer_tests[] = {
    UNIT_TEST(members_and_elements_are_separated),
    UNIT_TEST(strings_are_escaped),
    UNIT_TEST(unsigned_numbers_use_all_64_bits),
    UNIT_TEST(numbers_read_as_jansson_wrote_them),
    UNIT_TEST(too_deep_fails),
    UNIT_TEST(shrink_gives_back_a_large_buffer),
    {},
};
