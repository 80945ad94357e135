/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A JSON writer that appends a document to a buffer as it goes: the streaming record is written
 * every second, and building it as a tree of allocated values (one per number) and dumping the
 * tree cost more than reading every live entry of the tables. Commas are placed by the writer;
 * every string, keys too, goes through json_quoted() (sanitize.h): whatever its bytes, the
 * document is valid UTF-8 JSON; numbers are written as
 * jansson writes them, so the output is what the tree gave, byte for byte.
 */
#ifndef FS_JSON_WRITER_H
#define FS_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define JSON_WRITER_MAX_DEPTH 16

struct json_writer {
	char *text;
	size_t len, cap;
	int depth;
	bool first[JSON_WRITER_MAX_DEPTH]; /* nothing written yet in the open object or array */
	bool after_key;			   /* a key was written, its value comes next */
	bool failed;			   /* out of memory, or nested too deep */
};

/* Start a new document in the writer, keeping its buffer. */
void jw_reset(struct json_writer *w);
/* After a document has gone out: give back a buffer far larger than it (one burst's record of
 * 20000 processes took 16 MiB, kept for good by records of three). */
void jw_shrink(struct json_writer *w);
void jw_free(struct json_writer *w);

void jw_object_begin(struct json_writer *w);
void jw_object_end(struct json_writer *w);
void jw_array_begin(struct json_writer *w);
void jw_array_end(struct json_writer *w);
/* A member's name; its value is the next thing written. */
void jw_key(struct json_writer *w, const char *name);

void jw_int(struct json_writer *w, long long value);
/* For what may not fit in a long long: inode numbers. */
void jw_uint(struct json_writer *w, unsigned long long value);
/* As jansson with JSON_REAL_PRECISION(precision): %.Ng, with ".0" if it reads as an integer;
 * null if not finite (JSON has no such number). */
void jw_real(struct json_writer *w, double value, int precision);
void jw_string(struct json_writer *w, const char *s);
/* A string of at most `max` bytes (a fixed array that need not end in a NUL: comm). */
void jw_string_n(struct json_writer *w, const char *s, size_t max);
void jw_bool(struct json_writer *w, bool value);
void jw_null(struct json_writer *w);
/* Raw text, for the line's end. */
void jw_raw(struct json_writer *w, const char *text, size_t len);
/* counts[0..n) as an object of the nonzero ones, keyed by their index ("9": 32): a histogram
 * by order. */
void jw_counts_by_index(struct json_writer *w, const __u64 *counts, int n);

/* Shorthands for a member: key, then value. */
static inline void jw_member_int(struct json_writer *w, const char *name, long long value)
{
	jw_key(w, name);
	jw_int(w, value);
}

static inline void jw_member_null(struct json_writer *w, const char *name)
{
	jw_key(w, name);
	jw_null(w);
}

/* A string member, null where there is none (text NULL or empty). */
static inline void jw_member_string_or_null(struct json_writer *w, const char *name,
					    const char *text)
{
	jw_key(w, name);
	if (text && text[0])
		jw_string(w, text);
	else
		jw_null(w);
}

#endif
