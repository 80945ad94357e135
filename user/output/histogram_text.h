/* SPDX-License-Identifier: GPL-2.0 */
/* Folio-order histograms drawn as text bars, in the manner of biolatency's log2 histograms. */
#ifndef FS_HISTOGRAM_TEXT_H
#define FS_HISTOGRAM_TEXT_H

#include <stdio.h>
#include <linux/types.h>

#define HIST_BAR_WIDTH 40

/* `width` cells of '*' in proportion to value/max (at least one for any value > 0). */
void format_bar(char *buf, int width, __u64 value, __u64 max);
/* Rows from the lowest to the highest non-empty order: order, folios, pages, and a bar
 * scaled by pages, since that is the memory each order accounts for. Nothing if empty. */
int print_order_hist(FILE *out, const char *title, const __u64 *hist);

/* A log2 histogram of stall lengths (struct fs_stalls' buckets), biolatency style:
 * "   1024 -> 2047     : 3 |****|". Nothing if empty. */
int print_stall_hist(FILE *out, const char *title, const __u64 *hist, int nr_buckets);

#endif
