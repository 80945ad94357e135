// SPDX-License-Identifier: GPL-2.0
/* UTF-8 sanitizing: valid text passes unchanged, each ill-formed subpart becomes one U+FFFD. */
#include "unit.h"
#include "utf8.h"

#define FFFD "\xef\xbf\xbd"

static bool check(const char *in, size_t len, const char *expected)
{
	char out[UTF8_SANITIZED_SIZE(64)];

	utf8_sanitize(in, len, out);
	return ASSERT_STREQ(out, expected);
}

static bool valid_text_is_unchanged(void)
{
	return check("plain", 16, "plain") &&
	       check("\xe2\x82\xac 4\xf0\x9f\x98\x80", 16, "\xe2\x82\xac 4\xf0\x9f\x98\x80") &&
	       check("", 16, "");
}

static bool ill_formed_subparts_become_one_replacement_each(void)
{
	return check("\x80", 16, FFFD) && check("\xc1\xbf", 16, FFFD FFFD) &&
	       check("\xe0\x80\x80", 16, FFFD FFFD FFFD) &&
	       check("\xf4\x90\x80\x80", 16, FFFD FFFD FFFD FFFD) &&
	       check("\xf0\x9f\x98", 16, FFFD) && check("\xe2\x82x", 16, FFFD "x") &&
	       check("\xf8\x88\x80\x80\x80", 16, FFFD FFFD FFFD FFFD FFFD);
}

static bool input_ends_at_its_length_or_a_nul(void)
{
	return check("abcdef", 3, "abc") && check("ab\0cd", 5, "ab") &&
	       /* a sequence cut by the length is truncated, not read past */
	       check("a\xe2\x82\xac", 3, "a" FFFD);
}

const struct unit_test utf8_tests[] = {
    UNIT_TEST(valid_text_is_unchanged),
    UNIT_TEST(ill_formed_subparts_become_one_replacement_each),
    UNIT_TEST(input_ends_at_its_length_or_a_nul),
    {},
};
