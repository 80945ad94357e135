// SPDX-License-Identifier: GPL-2.0
/* A JSON writer appending to a buffer (see json_writer.h). */
#include "json_writer.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "sanitize.h"

void jw_reset(struct json_writer *w)
{
	char *text = w->text;
	size_t cap = w->cap;

	memset(w, 0, sizeof(*w));
	w->text = text;
	w->cap = cap;
	w->first[0] = true;
}

void jw_shrink(struct json_writer *w)
{
	array_shrink(&w->text, &w->cap, w->len, 1);
}

void jw_free(struct json_writer *w)
{
	free(w->text);
	memset(w, 0, sizeof(*w));
}

/* Room for `more` bytes, else the writer is marked failed and NULL returned. */
static char *room(struct json_writer *w, size_t more)
{
	if (w->failed)
		return NULL;
	if (array_reserve(&w->text, &w->cap, w->len, more, 1)) {
		w->failed = true;
		return NULL;
	}
	return w->text + w->len;
}

void jw_raw(struct json_writer *w, const char *text, size_t len)
{
	char *at = room(w, len);

	if (!at)
		return;
	memcpy(at, text, len);
	w->len += len;
}

/* Before any value: the comma that separates it from the one before, unless it follows its key. */
static void separate(struct json_writer *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (!w->first[w->depth])
		jw_raw(w, ",", 1);
	w->first[w->depth] = false;
}

static void open_nested(struct json_writer *w, char bracket)
{
	separate(w);
	jw_raw(w, &bracket, 1);
	if (w->depth + 1 >= JSON_WRITER_MAX_DEPTH) {
		w->failed = true;
		return;
	}
	w->first[++w->depth] = true;
}

static void close_nested(struct json_writer *w, char bracket)
{
	jw_raw(w, &bracket, 1);
	if (w->depth > 0)
		w->depth--;
}

void jw_object_begin(struct json_writer *w)
{
	open_nested(w, '{');
}

void jw_object_end(struct json_writer *w)
{
	close_nested(w, '}');
}

void jw_array_begin(struct json_writer *w)
{
	open_nested(w, '[');
}

void jw_array_end(struct json_writer *w)
{
	close_nested(w, ']');
}

/* A string's text, as json_quoted() makes every string (sanitize.h). */
static void quoted(struct json_writer *w, const char *s, size_t max)
{
	size_t len = strnlen(s, max);
	char *out = room(w, JSON_QUOTED_SIZE(len));

	if (out)
		w->len += json_quoted(s, len, out);
}

void jw_key(struct json_writer *w, const char *name)
{
	separate(w);
	quoted(w, name, SIZE_MAX);
	jw_raw(w, ":", 1);
	w->after_key = true;
}

void jw_string(struct json_writer *w, const char *s)
{
	jw_string_n(w, s, SIZE_MAX);
}

void jw_string_n(struct json_writer *w, const char *s, size_t max)
{
	separate(w);
	quoted(w, s, max);
}

/* An integer's digits, with its sign when negative. */
static void integer(struct json_writer *w, unsigned long long magnitude, bool negative)
{
	char digits[24], *end = digits + sizeof(digits), *at = end;

	separate(w);
	do {
		*--at = (char)('0' + magnitude % 10);
		magnitude /= 10;
	} while (magnitude);
	if (negative)
		*--at = '-';
	jw_raw(w, at, (size_t)(end - at));
}

void jw_int(struct json_writer *w, long long value)
{
	/* Through unsigned arithmetic, so the most negative value has its digits too. */
	integer(w, value < 0 ? 0ULL - (unsigned long long)value : (unsigned long long)value,
		value < 0);
}

void jw_uint(struct json_writer *w, unsigned long long value)
{
	integer(w, value, false);
}

void jw_real(struct json_writer *w, double value, int precision)
{
	char text[64], *e;
	int len;

	if (!isfinite(value)) {
		jw_null(w);
		return;
	}
	separate(w);
	len = snprintf(text, sizeof(text) - 2, "%.*g", precision, value);
	/* Read back as a real, not an integer. */
	if (strspn(text, "0123456789-") == (size_t)len) {
		memcpy(text + len, ".0", 3);
		len += 2;
	}
	/* The exponent without '+' or leading zeros: 1e+05 is 1e5, 1e-05 is 1e-5. */
	e = strchr(text, 'e');
	if (e) {
		char *digits = e + 1, *from;

		if (*digits == '+')
			memmove(digits, digits + 1, strlen(digits));
		if (*digits == '-')
			digits++;
		for (from = digits; *from == '0' && from[1]; from++)
			;
		memmove(digits, from, strlen(from) + 1);
		len = (int)strlen(text);
	}
	jw_raw(w, text, (size_t)len);
}

void jw_bool(struct json_writer *w, bool value)
{
	separate(w);
	jw_raw(w, value ? "true" : "false", value ? 4 : 5);
}

void jw_null(struct json_writer *w)
{
	separate(w);
	jw_raw(w, "null", 4);
}

void jw_counts_by_index(struct json_writer *w, const __u64 *counts, int n)
{
	char key[16];

	jw_object_begin(w);
	for (int i = 0; i < n; i++) {
		if (!counts[i])
			continue;
		snprintf(key, sizeof(key), "%d", i);
		jw_member_int(w, key, (long long)counts[i]);
	}
	jw_object_end(w);
}
