// SPDX-License-Identifier: GPL-2.0
/*
 * The three rules for untrusted text (sanitize.h): label values, JSON strings, terminal text.
 * Known cases, then every output of many random byte strings checked against what its format
 * allows, and SHA-256 against the FIPS 180-4 examples.
 */
#include <stdint.h>
#include <stdlib.h>

#include "sanitize.h"
#include "unit.h"

#define FFFD "\xef\xbf\xbd"

/* ---- SHA-256 ---- */

static bool digest_is(const void *data, size_t len, const char *hex)
{
	unsigned char digest[32];
	char text[65];

	sha256(data, len, digest);
	for (int i = 0; i < 32; i++)
		snprintf(text + 2 * i, 3, "%02x", digest[i]);
	return ASSERT_STREQ(text, hex);
}

static bool sha256_matches_the_standard_examples(void)
{
	static const char *const abc56 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char *million = malloc(1000000);
	bool ok;

	if (!ASSERT_TRUE(million))
		return false;
	memset(million, 'a', 1000000);
	ok = digest_is("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") &&
	     digest_is("abc", 3,
		       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") &&
	     digest_is(abc56, 56,
		       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") &&
	     /* the padding in one block, then in two */
	     digest_is(million, 55,
		       "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318") &&
	     digest_is(million, 64,
		       "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb") &&
	     digest_is(million, 1000000,
		       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(million);
	return ok;
}

/* ---- Prometheus label values ---- */

static bool label_is(const char *value, const char *expected)
{
	char out[LABEL_VALUE_QUOTED_SIZE];
	size_t len = label_value_quoted(value, out);

	return ASSERT_STREQ(out, expected) && ASSERT_EQ(len, strlen(expected));
}

static bool label_values_are_escaped_as_the_format_says(void)
{
	return label_is("", "\"\"") &&
	       label_is("/system.slice/nginx.service", "\"/system.slice/nginx.service\"") &&
	       label_is("a\"b\\c\nd", "\"a\\\"b\\\\c\\nd\"") &&
	       label_is("caf\xc3\xa9 \xe2\x82\xac", "\"caf\xc3\xa9 \xe2\x82\xac\"");
}

/* Ill-formed UTF-8 and control characters are replaced, and the value marked with its hash:
 * two values that differ only there stay two series. */
static bool changed_label_values_carry_their_hash(void)
{
	return label_is("bad\xff", "\"bad" FFFD "~69f5f0e0fa0fda78\"") &&
	       label_is("evil\x1b]0;pwned\x07x",
			"\"evil" FFFD "]0;pwned" FFFD "x~5bbe06bb6b90dcbd\"");
}

/* The hex of the first LABEL_HASH_DIGITS / 2 bytes of value's SHA-256. */
static void hash_suffix(const char *value, char *out)
{
	unsigned char digest[32];

	sha256(value, strlen(value), digest);
	out[0] = '~';
	for (int i = 0; i < LABEL_HASH_DIGITS / 2; i++)
		snprintf(out + 1 + 2 * i, 3, "%02x", digest[i]);
}

/* A value over the maximum is cut at a character boundary before it is escaped, to fit with its
 * hash; one at the maximum is whole. */
static bool long_label_values_are_cut_before_quoting(void)
{
	char value[4097], other[4097], out[LABEL_VALUE_QUOTED_SIZE], out2[LABEL_VALUE_QUOTED_SIZE];
	char expected[LABEL_VALUE_QUOTED_SIZE], suffix[LABEL_HASH_DIGITS + 2];
	size_t keep = LABEL_VALUE_MAX - 1 - LABEL_HASH_DIGITS;
	bool ok;

	/* "/" then euro signs (3 bytes): the cut cannot fall on a multiple of 3 + 1 bytes. */
	value[0] = '/';
	for (size_t i = 1; i + 3 <= 4096; i += 3)
		memcpy(value + i, "\xe2\x82\xac", 3);
	value[4096 - (4095 % 3)] = '\0';
	strcpy(other, value);
	other[strlen(other) - 3] = 'x';
	other[strlen(other) - 2] = '\0';
	label_value_quoted(value, out);
	label_value_quoted(other, out2);
	hash_suffix(value, suffix);
	expected[0] = '"';
	keep = 1 + (keep - 1) / 3 * 3; /* whole euro signs only */
	memcpy(expected + 1, value, keep);
	sprintf(expected + 1 + keep, "%s\"", suffix);
	ok = ASSERT_STREQ(out, expected) && ASSERT_TRUE(strlen(out) - 2 <= LABEL_VALUE_MAX) &&
	     ASSERT_TRUE(strcmp(out, out2) != 0) &&
	     ASSERT_EQ(memcmp(out, out2, strlen(out) - LABEL_HASH_DIGITS - 2), 0);
	/* Exactly the maximum: whole. One byte more: cut, and hashed. */
	memset(value, 'a', LABEL_VALUE_MAX);
	value[LABEL_VALUE_MAX] = '\0';
	label_value_quoted(value, out);
	ok = ok && ASSERT_EQ(strlen(out), LABEL_VALUE_MAX + 2);
	value[LABEL_VALUE_MAX] = 'a';
	value[LABEL_VALUE_MAX + 1] = '\0';
	label_value_quoted(value, out);
	hash_suffix(value, suffix);
	ok = ok && ASSERT_EQ(strlen(out), LABEL_VALUE_MAX + 2) &&
	     ASSERT_STREQ(out + strlen(out) - LABEL_HASH_DIGITS - 2, strcat(suffix, "\""));
	/* The worst case for the buffer: every byte escaped. */
	memset(value, '"', 4096);
	value[4096] = '\0';
	ok = ok && ASSERT_EQ(label_value_quoted(value, out),
			     2 * (LABEL_VALUE_MAX - 1 - LABEL_HASH_DIGITS) + 1 + LABEL_HASH_DIGITS + 2);
	return ok;
}

/* ---- JSON strings ---- */

static bool json_is(const char *in, size_t len, const char *expected)
{
	char out[JSON_QUOTED_SIZE(64)];

	json_quoted(in, len, out);
	return ASSERT_STREQ(out, expected);
}

static bool json_strings_escape_controls(void)
{
	return json_is("q\"b\\s/ \b\f\n\r\t\x01\x1f", 64,
		       "\"q\\\"b\\\\s/ \\b\\f\\n\\r\\t\\u0001\\u001F\"") &&
	       /* DEL, C1 (CSI, NEL) and the line separators JavaScript ends lines at */
	       json_is("\x7f\xc2\x9b\xc2\x85\xe2\x80\xa8\xe2\x80\xa9", 64,
		       "\"\\u007F\\u009B\\u0085\\u2028\\u2029\"") &&
	       json_is("\xe2\x82\xac 4\xf0\x9f\x98\x80 \xe2\x80\xae", 64,
		       "\"\xe2\x82\xac 4\xf0\x9f\x98\x80 \xe2\x80\xae\"");
}

/* Each maximal ill-formed subpart becomes one U+FFFD, as Python decodes with "replace". */
static bool json_strings_replace_ill_formed_utf8(void)
{
	return json_is("\x80", 16, "\"" FFFD "\"") &&
	       json_is("\xc1\xbf", 16, "\"" FFFD FFFD "\"") &&
	       json_is("\xe0\x80\x80", 16, "\"" FFFD FFFD FFFD "\"") &&
	       json_is("\xf4\x90\x80\x80", 16, "\"" FFFD FFFD FFFD FFFD "\"") &&
	       json_is("\xed\xa0\x80", 16, "\"" FFFD FFFD FFFD "\"") &&
	       json_is("\xf0\x9f\x98", 16, "\"" FFFD "\"") &&
	       json_is("\xe2\x82x", 16, "\"" FFFD "x\"") &&
	       json_is("\xf8\x88\x80\x80\x80", 16, "\"" FFFD FFFD FFFD FFFD FFFD "\"");
}

static bool json_strings_end_at_their_length_or_a_nul(void)
{
	return json_is("abcdef", 3, "\"abc\"") && json_is("ab\0cd", 5, "\"ab\"") &&
	       /* a sequence cut by the length is ill-formed, not read past */
	       json_is("a\xe2\x82\xac", 3, "\"a" FFFD "\"");
}

/* ---- Terminal text ---- */

static bool terminal_is(const char *in, size_t width, const char *expected, size_t columns)
{
	char out[TERMINAL_TEXT_SIZE(64)];
	size_t used = terminal_text(in, SIZE_MAX, width, out);

	return ASSERT_STREQ(out, expected) && ASSERT_EQ(used, columns);
}

static bool terminal_text_shows_controls_as_escapes(void)
{
	return terminal_is("plain caf\xc3\xa9", 64, "plain caf\xc3\xa9", 10) &&
	       terminal_is("evil\x1b]0;pwned\x07x", 64, "evil\\x1b]0;pwned\\x07x", 21) &&
	       terminal_is("a\\b\nc\td\x7f", 64, "a\\\\b\\x0ac\\x09d\\x7f", 18) &&
	       /* C1's CSI, a right-to-left override, ill-formed bytes */
	       terminal_is("\xc2\x9b" "2J", 64, "\\xc2\\x9b2J", 10) &&
	       terminal_is("gnp\xe2\x80\xae" "exe", 64, "gnp\\xe2\\x80\\xaeexe", 18) &&
	       terminal_is("bad\xff\xc0\xaf", 64, "bad\\xff\\xc0\\xaf", 15);
}

/* What does not fit is "..." and its end, cut between characters and escapes, never inside. */
static bool terminal_text_keeps_the_end_of_what_is_too_wide(void)
{
	return terminal_is("/system.slice/nginx.service", 12, "...x.service", 12) &&
	       terminal_is("/a/\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac", 6,
			   "...\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac", 6) &&
	       terminal_is("abcdef\x1bgh", 8, "...gh", 5) &&
	       terminal_is("abcdef\x1bgh", 9, "...\\x1bgh", 9) &&
	       terminal_is("0123456789", 10, "0123456789", 10);
}

/* ---- Every output of random bytes is what its format allows ---- */

/* Is s valid UTF-8 (as RFC 3629 and the table of well-formed sequences have it)? */
static bool valid_utf8(const unsigned char *s)
{
	while (*s) {
		size_t need;
		uint32_t cp;

		if (*s < 0x80)
			need = 1;
		else if (*s >= 0xc2 && *s <= 0xdf)
			need = 2;
		else if (*s >= 0xe0 && *s <= 0xef)
			need = 3;
		else if (*s >= 0xf0 && *s <= 0xf4)
			need = 4;
		else
			return false;
		cp = need == 1 ? *s : *s & (0x7f >> need);
		for (size_t i = 1; i < need; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i] & 0x3f);
		}
		if ((need == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (need == 4 && (cp < 0x10000 || cp > 0x10ffff)))
			return false;
		s += need;
	}
	return true;
}

/* A control character (C0 but newline when allowed, DEL, C1) in valid UTF-8 text. */
static bool has_control(const unsigned char *s, bool newline_allowed)
{
	for (; *s; s++)
		if ((*s < 0x20 && !(newline_allowed && *s == '\n')) || *s == 0x7f ||
		    (*s == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f))
			return true;
	return false;
}

/* Between quotes, only \\, \" and \n escapes, and no raw quote or newline. */
static bool well_quoted_label(const char *s, size_t len)
{
	if (len < 2 || s[0] != '"' || s[len - 1] != '"')
		return false;
	for (size_t i = 1; i < len - 1; i++) {
		if (s[i] == '"' || s[i] == '\n')
			return false;
		if (s[i] == '\\') {
			if (i + 1 >= len - 1 || !strchr("\\\"n", s[i + 1]))
				return false;
			i++;
		}
	}
	return true;
}

static bool random_bytes_give_well_formed_outputs(void)
{
	static const unsigned char pieces[] = {0x00, 0x07, 0x0a, 0x1b, 0x22, 0x5c, 0x7f, 0x80,
					       0x9b, 0xc2, 0xc3, 0xe2, 0x82, 0xac, 0xed, 0xa0,
					       0xf0, 0x9f, 0xf4, 0x90, 0xff, 0x41, 0x2f, 0x7e};
	unsigned int seed = 24;

	for (int round = 0; round < 20000; round++) {
		char in[1200], label[LABEL_VALUE_QUOTED_SIZE], json[JSON_QUOTED_SIZE(sizeof(in))];
		char shown[TERMINAL_TEXT_SIZE(40)];
		size_t len = (size_t)rand_r(&seed) % (round % 10 ? 40 : sizeof(in) - 1), n;

		for (size_t i = 0; i < len; i++)
			in[i] = (char)(rand_r(&seed) % 3 ? pieces[rand_r(&seed) % sizeof(pieces)]
							 : rand_r(&seed) % 256);
		in[len] = '\0';
		n = label_value_quoted(in, label);
		if (!ASSERT_TRUE(valid_utf8((unsigned char *)label)) ||
		    !ASSERT_TRUE(!has_control((unsigned char *)label, false)) ||
		    !ASSERT_TRUE(well_quoted_label(label, n)) ||
		    !ASSERT_TRUE(n <= 2 * LABEL_VALUE_MAX + 2))
			return false;
		n = json_quoted(in, len, json);
		if (!ASSERT_TRUE(valid_utf8((unsigned char *)json)) ||
		    !ASSERT_TRUE(!has_control((unsigned char *)json, false)) ||
		    !ASSERT_TRUE(n <= JSON_QUOTED_SIZE(len) - 1))
			return false;
		n = terminal_text(in, len, 40, shown);
		if (!ASSERT_TRUE(valid_utf8((unsigned char *)shown)) ||
		    !ASSERT_TRUE(!has_control((unsigned char *)shown, false)) ||
		    !ASSERT_TRUE(n <= 40) || !ASSERT_TRUE(strlen(shown) < sizeof(shown)))
			return false;
	}
	return true;
}

const struct unit_test sanitize_tests[] = {
    UNIT_TEST(sha256_matches_the_standard_examples),
    UNIT_TEST(label_values_are_escaped_as_the_format_says),
    UNIT_TEST(changed_label_values_carry_their_hash),
    UNIT_TEST(long_label_values_are_cut_before_quoting),
    UNIT_TEST(json_strings_escape_controls),
    UNIT_TEST(json_strings_replace_ill_formed_utf8),
    UNIT_TEST(json_strings_end_at_their_length_or_a_nul),
    UNIT_TEST(terminal_text_shows_controls_as_escapes),
    UNIT_TEST(terminal_text_keeps_the_end_of_what_is_too_wide),
    UNIT_TEST(random_bytes_give_well_formed_outputs),
    {},
};
