/* SPDX-License-Identifier: GPL-2.0 */
/* Making untrusted bytes (process names) into valid UTF-8 for JSON and terminals. */
#ifndef FS_UTF8_H
#define FS_UTF8_H

#include <stddef.h>

/* Worst case: every input byte becomes U+FFFD (3 bytes). */
#define UTF8_SANITIZED_SIZE(n) ((n)*3 + 1)

/*
 * Copy `in` (up to `len` bytes or a NUL) to `out` as valid UTF-8: each maximal ill-formed
 * subpart (overlong forms, surrogates, values past U+10FFFF, truncated sequences) becomes one
 * U+FFFD. `out` must hold UTF8_SANITIZED_SIZE(len) bytes. Returns the
 * length written, without the terminating NUL.
 */
size_t utf8_sanitize(const char *in, size_t len, char *out);

#endif
