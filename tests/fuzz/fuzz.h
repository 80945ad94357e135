/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fuzz targets share (tests/fuzz/fuzz_*.c): each is a libFuzzer target, built by
 * `make fuzz` with the address and undefined-behaviour sanitizers (see the Makefile), for one
 * parser of text foliostat does not write itself. A target states the parser's promises as
 * checks: a broken one aborts (FUZZ_CHECK), which libFuzzer reports as a crash with its input.
 */
#ifndef FS_FUZZ_H
#define FS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                       \
	do {                                                                                   \
		if (!(cond)) {                                                                 \
			fprintf(stderr, "%s:%d: broken promise: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                               \
		}                                                                              \
	} while (0)

/* The input as a C string (a copy, ended by a NUL; text after a NUL in it is unseen). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* The input cut at its first NUL: the part before it (a copy), and the rest after it. */
static inline char *fuzz_split(const uint8_t **data, size_t *size)
{
	const uint8_t *nul = memchr(*data, '\0', *size);
	size_t len = nul ? (size_t)(nul - *data) : *size;
	char *s = fuzz_string(*data, len);

	*data += nul ? len + 1 : len;
	*size -= nul ? len + 1 : len;
	return s;
}

#endif /* FS_FUZZ_H */
