// SPDX-License-Identifier: GPL-2.0
/* The cells of a line of text output (see table_cells.h). */
#include "table_cells.h"

double pages_to_mib(__u64 pages, long page_size)
{
	return (double)pages * page_size / (1024.0 * 1024.0);
}

void print_count(FILE *out, int width, __u64 value, bool measured)
{
	if (measured)
		fprintf(out, " %*llu", width, (unsigned long long)value);
	else
		fprintf(out, " %*s", width, "n/a");
}

void print_mib(FILE *out, int width, __u64 pages, long page_size, bool measured)
{
	if (measured)
		fprintf(out, " %*.1f", width, pages_to_mib(pages, page_size));
	else
		fprintf(out, " %*s", width, "n/a");
}
