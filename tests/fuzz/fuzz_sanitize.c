// SPDX-License-Identifier: GPL-2.0
/*
 * The sanitizers of untrusted names (user/output/sanitize.c), one per output kind, given any
 * bytes: each writes within the size sanitize.h gives, and its promises hold, checked here by a
 * UTF-8 decoder of the fuzz target's own. The first input byte picks the terminal width.
 */
#include <stdbool.h>

#include "fuzz.h"
#include "sanitize.h"

/* The code point at s (well-formed UTF-8, as RFC 3629 has it), its length in *len; -1 if the
 * bytes there are not one. */
static long decode(const unsigned char *s, size_t n, size_t *len)
{
	static const long least[] = {0, 0, 0x80, 0x800, 0x10000};
	size_t need = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
					: (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	long cp;

	if (!need || need > n)
		return -1;
	cp = need == 1 ? s[0] : s[0] & (0xff >> (need + 1));
	for (size_t i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((need > 1 && cp < least[need]) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*len = need;
	return cp;
}

static bool shown_raw_is_safe(long cp)
{
	return cp >= 0x20 && !(cp >= 0x7f && cp <= 0x9f) && cp != 0x2028 && cp != 0x2029;
}

/* A quoted string, with escapes of the kinds `escapes` lists after a backslash. */
static void check_quoted(const char *out, size_t len, const char *escapes, bool json)
{
	const unsigned char *s = (const unsigned char *)out;

	FUZZ_CHECK(strlen(out) == len && len >= 2 && out[0] == '"' && out[len - 1] == '"');
	for (size_t i = 1, n; i < len - 1; i += n) {
		long cp = decode(s + i, len - 1 - i, &n);

		FUZZ_CHECK(cp >= 0);
		FUZZ_CHECK(cp != '"');
		if (cp == '\\') {
			FUZZ_CHECK(i + 1 < len - 1 && strchr(escapes, out[i + 1]));
			if (out[i + 1] == 'u') {
				for (int d = 2; d < 6; d++)
					FUZZ_CHECK(i + d < len - 1 && strchr("0123456789abcdefABCDEF",
									     out[i + d]));
				n = 6;
			} else {
				n = 2;
			}
			continue;
		}
		FUZZ_CHECK(!json || shown_raw_is_safe(cp));
		FUZZ_CHECK(json || cp >= 0x20 || cp == '\t');
	}
}

static void check_terminal(const char *out, size_t columns, size_t width)
{
	const unsigned char *s = (const unsigned char *)out;
	size_t len = strlen(out), seen = 0;

	FUZZ_CHECK(len < TERMINAL_TEXT_SIZE(width) && columns <= width);
	for (size_t i = 0, n; i < len; i += n, seen++) {
		long cp = decode(s + i, len - i, &n);

		FUZZ_CHECK(cp >= 0 && shown_raw_is_safe(cp));
		FUZZ_CHECK(cp != 0x061c && cp != 0x200e && cp != 0x200f &&
			   !(cp >= 0x202a && cp <= 0x202e) && !(cp >= 0x2066 && cp <= 0x2069));
	}
	FUZZ_CHECK(seen == columns);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t width = size ? 4 + data[0] : 4, len;
	char *in = fuzz_string(size ? data + 1 : data, size ? size - 1 : 0);
	size_t in_len = size ? size - 1 : 0;
	char *label = malloc(LABEL_VALUE_QUOTED_SIZE), *json = malloc(JSON_QUOTED_SIZE(in_len));
	char *text = malloc(TERMINAL_TEXT_SIZE(width));

	FUZZ_CHECK(label && json && text);
	len = label_value_quoted(in, label);
	check_quoted(label, len, "\\\"n", false);
	len = json_quoted(in, in_len, json);
	check_quoted(json, len, "\\\"/bfnrtu", true);
	check_terminal(text, terminal_text(in, in_len, width, text), width);
	free(in);
	free(label);
	free(json);
	free(text);
	return 0;
}
