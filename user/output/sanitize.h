/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text foliostat did not write itself (process names, cgroup paths and the labels read off them,
 * file paths, mount points, host names, the kernel's enum and counter names) is untrusted bytes:
 * anyone may name a process or, with a delegated subtree, a cgroup. Each output kind has one
 * rule, here, and every such string goes through it (see foliostat(8), "Untrusted names").
 */
#ifndef FS_SANITIZE_H
#define FS_SANITIZE_H

#include <stddef.h>

/*
 * Prometheus label values. A value is at most LABEL_VALUE_MAX bytes before escaping. One that is
 * longer, is not valid UTF-8, or holds a control character other than newline is cut (at a
 * character boundary, so that it fits with its suffix), its ill-formed bytes and control
 * characters replaced by U+FFFD, and "~" and the first LABEL_HASH_DIGITS hex digits of the
 * SHA-256 of the whole original value appended: two values stay two series however alike their
 * starts, and a changed value says so.
 */
#define LABEL_VALUE_MAX 1024
#define LABEL_HASH_DIGITS 16
/* Escaping at most doubles a byte; the quotes and the NUL. */
#define LABEL_VALUE_QUOTED_SIZE (2 * LABEL_VALUE_MAX + 3)

/* `value` (up to its NUL) as the exposition formats quote it, with \\, \" and \n escaped, into
 * `out` (LABEL_VALUE_QUOTED_SIZE bytes). Returns the length written, quotes included. */
size_t label_value_quoted(const char *value, char *out);

/* JSON strings: at worst six bytes (\u00XX) per input byte, the quotes and the NUL. */
#define JSON_QUOTED_SIZE(len) ((len) * 6 + 3)

/*
 * `in` (up to `len` bytes or a NUL) as a quoted JSON string into `out`
 * (JSON_QUOTED_SIZE(len) bytes): always valid UTF-8, each maximal ill-formed subpart replaced by
 * one U+FFFD (as Python, browsers and most JSON tools do), quotes and backslashes escaped, and
 * control characters (C0, DEL, C1) and U+2028/U+2029 written as escapes, so the string is the
 * same text to every reader and prints nothing raw that a terminal would act on. Returns the
 * length written.
 */
size_t json_quoted(const char *in, size_t len, char *out);

/* Terminal text in at most `width` columns: at worst four bytes per column, and the NUL. */
#define TERMINAL_TEXT_SIZE(width) ((width) * 4 + 1)

/*
 * `in` (up to `len` bytes or a NUL) for a terminal, into `out` (TERMINAL_TEXT_SIZE(width)
 * bytes): printable UTF-8 as it is; each byte of a control character (C0, DEL, C1), of a
 * character that reorders or breaks lines on display (bidirectional controls, U+2028/U+2029)
 * and of ill-formed UTF-8 as \xNN; a backslash as \\. What needs more than `width` columns
 * (at least 4) is shown as "..." and its end. A character counts as one column. Returns the
 * columns used.
 */
size_t terminal_text(const char *in, size_t len, size_t width, char *out);

/* The SHA-256 digest of `len` bytes (FIPS 180-4). */
void sha256(const void *data, size_t len, unsigned char digest[32]);

#endif /* FS_SANITIZE_H */
