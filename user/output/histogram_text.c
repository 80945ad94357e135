// SPDX-License-Identifier: GPL-2.0
/* Text histograms (see histogram_text.h). */
#include "histogram_text.h"

#include <string.h>

#include "foliostat.h"

void format_bar(char *buf, int width, __u64 value, __u64 max)
{
	int stars = 0;

	if (max && value) {
		stars = (int)((double)value * width / max);
		if (stars < 1)
			stars = 1;
		if (stars > width)
			stars = width;
	}
	memset(buf, '*', stars);
	memset(buf + stars, ' ', width - stars);
	buf[width] = '\0';
}

int print_stall_hist(FILE *out, const char *title, const __u64 *hist, int nr_buckets)
{
	char bar[HIST_BAR_WIDTH + 1];
	int low = -1, high = -1;
	__u64 max = 0;

	for (int b = 0; b < nr_buckets; b++) {
		if (!hist[b])
			continue;
		if (low < 0)
			low = b;
		high = b;
		if (hist[b] > max)
			max = hist[b];
	}
	if (low < 0)
		return 0;
	fprintf(out, "%s\n", title);
	fprintf(out, "%24s : %-10s %s\n", "usecs", "count", "distribution");
	for (int b = low; b <= high; b++) {
		unsigned long long from = b ? 1ULL << (b - 1) : 0, to = b ? (1ULL << b) - 1 : 0;

		format_bar(bar, HIST_BAR_WIDTH, hist[b], max);
		if (b == nr_buckets - 1)
			fprintf(out, "%13llu -> %-7s : %-10llu |%s|\n", from, "...",
				(unsigned long long)hist[b], bar);
		else
			fprintf(out, "%13llu -> %-7llu : %-10llu |%s|\n", from, to,
				(unsigned long long)hist[b], bar);
	}
	return fprintf(out, "\n") < 0 ? -1 : 0;
}

int print_order_hist(FILE *out, const char *title, const __u64 *hist)
{
	char bar[HIST_BAR_WIDTH + 1];
	int low = -1, high = -1;
	__u64 max_pages = 0;

	for (int order = 0; order < FS_NR_ORDERS; order++) {
		if (!hist[order])
			continue;
		if (low < 0)
			low = order;
		high = order;
		if ((hist[order] << order) > max_pages)
			max_pages = hist[order] << order;
	}
	if (low < 0)
		return 0;
	fprintf(out, "%s\n", title);
	fprintf(out, "     order : %12s %12s   %s\n", "folios", "pages", "distribution of pages");
	for (int order = low; order <= high; order++) {
		format_bar(bar, HIST_BAR_WIDTH, hist[order] << order, max_pages);
		fprintf(out, "%10d : %12llu %12llu   |%s|\n", order,
			(unsigned long long)hist[order], (unsigned long long)(hist[order] << order),
			bar);
	}
	return fprintf(out, "\n") < 0 ? -1 : 0;
}
