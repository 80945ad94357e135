// SPDX-License-Identifier: GPL-2.0
/* UTF-8 validation by the table of well-formed byte sequences (Unicode 15, table 3-7), with
 * one U+FFFD per maximal ill-formed subpart, as Unicode recommends (and Python, browsers and
 * most JSON tools do), so a name reads the same here as in the tools that consume it. */
#include "utf8.h"

#include <string.h>

/*
 * Length of the well-formed sequence at s (at most n bytes). If there is none, 0, and *skip is
 * the length of the maximal subpart: the longest prefix that could start a well-formed
 * sequence, at least one byte.
 */
static size_t well_formed_length(const unsigned char *s, size_t n, size_t *skip)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need;

	*skip = 1;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 4;
	else
		return 0;
	/* The second byte's range excludes overlong forms, surrogates and > U+10FFFF. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n < 2 || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < need; i++) {
		if (i >= n || s[i] < 0x80 || s[i] > 0xbf) {
			*skip = i;
			return 0;
		}
	}
	return need;
}

size_t utf8_sanitize(const char *in, size_t len, char *out)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t n = strnlen(in, len), i = 0, o = 0;

	while (i < n) {
		size_t skip, seq = well_formed_length(s + i, n - i, &skip);

		if (seq) {
			memcpy(out + o, s + i, seq);
			o += seq;
			i += seq;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i += skip;
		}
	}
	out[o] = '\0';
	return o;
}
