// SPDX-License-Identifier: GPL-2.0
/*
 * One rule per output kind for untrusted text (see sanitize.h). Each walks its input as UTF-8 by
 * the table of well-formed byte sequences (Unicode 15, table 3-7): a "unit" is a well-formed
 * character, or a maximal ill-formed subpart (the longest prefix that could start a well-formed
 * sequence, at least one byte), which is what one U+FFFD stands for.
 */
#include "sanitize.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

struct unit {
	size_t len; /* bytes of the input it spans */
	bool valid; /* a well-formed character, whose code point is cp */
	uint32_t cp;
};

static struct unit next_unit(const unsigned char *s, size_t n)
{
	struct unit u = {.len = 1};
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need;

	if (s[0] < 0x80)
		return (struct unit){.len = 1, .valid = true, .cp = s[0]};
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 4;
	else
		return u;
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
		return u;
	u.cp = s[0] & (0x7f >> need);
	for (size_t i = 1; i < need; i++) {
		if (i >= n || s[i] < 0x80 || s[i] > 0xbf) {
			u.len = i;
			return u;
		}
		u.cp = u.cp << 6 | (s[i] & 0x3f);
	}
	u.len = need;
	u.valid = true;
	return u;
}

/* C0, DEL and C1: what terminals act on rather than show. */
static bool is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

/* Characters that reorder the text around them (bidirectional marks, embeddings, overrides and
 * isolates) or break its line when displayed: a name could make a row read as another. */
static bool moves_text(uint32_t cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

static const char hex_digits[] = "0123456789abcdef";

/* ---- Prometheus label values ---- */

/* Replaced in a label value: what is not UTF-8, and controls but newline (which the formats
 * escape). Grafana and `curl /metrics` in a terminal show a value as it is. */
static bool label_replaces(const struct unit *u)
{
	return !u->valid || (is_control(u->cp) && u->cp != '\n');
}

size_t label_value_quoted(const char *value, char *out)
{
	const unsigned char *s = (const unsigned char *)value;
	size_t n = strlen(value), clean = 0, limit, kept = 0, o = 0, i;
	bool changed = false;

	/* The value's length once made valid, and whether that changed it. */
	for (i = 0; i < n;) {
		struct unit u;

		/* Most bytes are printable ASCII, which stays as it is. */
		if (s[i] >= 0x20 && s[i] < 0x7f) {
			clean++;
			i++;
			continue;
		}
		u = next_unit(s + i, n - i);

		changed |= label_replaces(&u);
		clean += label_replaces(&u) ? 3 : u.len;
		i += u.len;
	}
	changed |= clean > LABEL_VALUE_MAX;
	limit = changed ? LABEL_VALUE_MAX - 1 - LABEL_HASH_DIGITS : clean;
	out[o++] = '"';
	for (i = 0; i < n;) {
		struct unit u;
		bool replace;

		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\' && s[i] != '"') {
			if (kept + 1 > limit)
				break;
			kept++;
			out[o++] = (char)s[i++];
			continue;
		}
		u = next_unit(s + i, n - i);
		replace = label_replaces(&u);
		if (kept + (replace ? 3 : u.len) > limit)
			break; /* cut before the character that does not fit whole */
		kept += replace ? 3 : u.len;
		if (replace) {
			memcpy(out + o, REPLACEMENT, 3);
			o += 3;
		} else if (u.cp == '\\' || u.cp == '"') {
			out[o++] = '\\';
			out[o++] = (char)u.cp;
		} else if (u.cp == '\n') {
			out[o++] = '\\';
			out[o++] = 'n';
		} else {
			memcpy(out + o, s + i, u.len);
			o += u.len;
		}
		i += u.len;
	}
	if (changed) {
		unsigned char digest[32];

		sha256(value, n, digest);
		out[o++] = '~';
		for (int d = 0; d < LABEL_HASH_DIGITS; d++)
			out[o++] = hex_digits[d % 2 ? digest[d / 2] & 0xf : digest[d / 2] >> 4];
	}
	out[o++] = '"';
	out[o] = '\0';
	return o;
}

/* ---- JSON strings ---- */

static char *json_escape(char *out, uint32_t cp)
{
	*out++ = '\\';
	*out++ = 'u';
	for (int shift = 12; shift >= 0; shift -= 4)
		*out++ = "0123456789ABCDEF"[(cp >> shift) & 0xf];
	return out;
}

size_t json_quoted(const char *in, size_t len, char *out)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t n = strnlen(in, len);
	char *o = out;

	*o++ = '"';
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		struct unit u;

		/* Most bytes are printable ASCII. */
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			*o++ = (char)c;
			i++;
			continue;
		}
		u = next_unit(s + i, n - i);
		i += u.len;
		if (!u.valid) {
			memcpy(o, REPLACEMENT, 3);
			o += 3;
			continue;
		}
		switch (u.cp) {
		case '"': *o++ = '\\'; *o++ = '"'; break;
		case '\\': *o++ = '\\'; *o++ = '\\'; break;
		case '\b': *o++ = '\\'; *o++ = 'b'; break;
		case '\f': *o++ = '\\'; *o++ = 'f'; break;
		case '\n': *o++ = '\\'; *o++ = 'n'; break;
		case '\r': *o++ = '\\'; *o++ = 'r'; break;
		case '\t': *o++ = '\\'; *o++ = 't'; break;
		default:
			/* U+2028 and U+2029 end a line in JavaScript. */
			if (is_control(u.cp) || u.cp == 0x2028 || u.cp == 0x2029) {
				o = json_escape(o, u.cp);
			} else {
				memcpy(o, s + i - u.len, u.len);
				o += u.len;
			}
		}
	}
	*o++ = '"';
	*o = '\0';
	return (size_t)(o - out);
}

/* ---- Terminal text ---- */

/* The columns a unit takes: \xNN per byte, \\, or the character itself. */
static size_t terminal_columns(const struct unit *u)
{
	if (!u->valid || is_control(u->cp) || moves_text(u->cp))
		return 4 * u->len;
	return u->cp == '\\' ? 2 : 1;
}

static char *terminal_unit(char *o, const unsigned char *s, const struct unit *u)
{
	if (!u->valid || is_control(u->cp) || moves_text(u->cp)) {
		for (size_t b = 0; b < u->len; b++) {
			*o++ = '\\';
			*o++ = 'x';
			*o++ = hex_digits[s[b] >> 4];
			*o++ = hex_digits[s[b] & 0xf];
		}
	} else if (u->cp == '\\') {
		*o++ = '\\';
		*o++ = '\\';
	} else {
		memcpy(o, s, u->len);
		o += u->len;
	}
	return o;
}

size_t terminal_text(const char *in, size_t len, size_t width, char *out)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t n = strnlen(in, len), total = 0, used = 0, i = 0;
	char *o = out;

	if (width < 4)
		width = 4;
	for (size_t at = 0; at < n;) {
		struct unit u = next_unit(s + at, n - at);

		total += terminal_columns(&u);
		at += u.len;
	}
	if (total > width) {
		/* Its end, after "...": drop whole units until the rest fits. */
		memcpy(o, "...", 3);
		o += 3;
		used = 3;
		while (i < n && total > width - 3) {
			struct unit u = next_unit(s + i, n - i);

			total -= terminal_columns(&u);
			i += u.len;
		}
	}
	while (i < n) {
		struct unit u = next_unit(s + i, n - i);

		o = terminal_unit(o, s + i, &u);
		used += terminal_columns(&u);
		i += u.len;
	}
	*o = '\0';
	return used;
}

/* ---- SHA-256 (FIPS 180-4) ---- */

static const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
};

static uint32_t rotr(uint32_t x, int n)
{
	return x >> n | x << (32 - n);
}

static void sha256_block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], a[8];

	for (int t = 0; t < 16; t++)
		w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
		       (uint32_t)p[4 * t + 2] << 8 | p[4 * t + 3];
	for (int t = 16; t < 64; t++) {
		uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ w[t - 15] >> 3;
		uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ w[t - 2] >> 10;

		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	memcpy(a, h, sizeof(a));
	for (int t = 0; t < 64; t++) {
		uint32_t s1 = rotr(a[4], 6) ^ rotr(a[4], 11) ^ rotr(a[4], 25);
		uint32_t ch = (a[4] & a[5]) ^ (~a[4] & a[6]);
		uint32_t t1 = a[7] + s1 + ch + sha256_k[t] + w[t];
		uint32_t s0 = rotr(a[0], 2) ^ rotr(a[0], 13) ^ rotr(a[0], 22);
		uint32_t maj = (a[0] & a[1]) ^ (a[0] & a[2]) ^ (a[1] & a[2]);

		memmove(a + 1, a, 7 * sizeof(a[0]));
		a[4] += t1;
		a[0] = t1 + s0 + maj;
	}
	for (int i = 0; i < 8; i++)
		h[i] += a[i];
}

void sha256(const void *data, size_t len, unsigned char digest[32])
{
	uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	const unsigned char *p = data;
	unsigned char last[128] = {0};
	size_t rest = len % 64, tail;
	uint64_t bits = (uint64_t)len * 8;

	for (size_t done = 0; done + 64 <= len; done += 64)
		sha256_block(h, p + done);
	/* The rest, a 1 bit, zeros, and the length in bits: one block or two. */
	memcpy(last, p + len - rest, rest);
	last[rest] = 0x80;
	tail = rest < 56 ? 64 : 128;
	for (int b = 0; b < 8; b++)
		last[tail - 1 - b] = (unsigned char)(bits >> (8 * b));
	sha256_block(h, last);
	if (tail == 128)
		sha256_block(h, last + 64);
	for (int i = 0; i < 8; i++) {
		digest[4 * i] = (unsigned char)(h[i] >> 24);
		digest[4 * i + 1] = (unsigned char)(h[i] >> 16);
		digest[4 * i + 2] = (unsigned char)(h[i] >> 8);
		digest[4 * i + 3] = (unsigned char)h[i];
	}
}
