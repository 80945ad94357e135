// SPDX-License-Identifier: GPL-2.0
/* Arithmetic over arrays of 64-bit words (see words.h); built with -O3, so that its loops are
 * vectorized: every thread's counts pass through them once per read. */
#include "words.h"

void words_add(__u64 *dst, const __u64 *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] += src[i];
}

void words_delta(__u64 *dst, const __u64 *now, const __u64 *before, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = now[i] - before[i];
}

__u64 words_sum(const __u64 *words, size_t n)
{
	__u64 sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += words[i];
	return sum;
}
