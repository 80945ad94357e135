/* SPDX-License-Identifier: GPL-2.0 */
/* Arithmetic over arrays of 64-bit words: the loader's counts (counters.h) and --resident's
 * (resident.h) are structs of such words only, handled as flat arrays so that a new count needs
 * no new code. */
#ifndef FS_WORDS_H
#define FS_WORDS_H

#include <stddef.h>
#include <linux/types.h>

/* The words of a struct (or array) made of 64-bit words only. */
#define FS_WORDS(type) (sizeof(type) / sizeof(__u64))

/* dst += src, over n words. */
void words_add(__u64 *dst, const __u64 *src, size_t n);
/* dst = now - before, word by word. */
void words_delta(__u64 *dst, const __u64 *now, const __u64 *before, size_t n);
__u64 words_sum(const __u64 *words, size_t n);

/* dst = src from memory BPF may be adding to: each word read once, with an atomic load, so none
 * is ever read half before and half after an add. */
static inline void words_load(__u64 *dst, const __u64 *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

#endif
