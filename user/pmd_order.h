/* SPDX-License-Identifier: GPL-2.0 */
/* The order of a PMD-sized folio on this host, from its page size: resident/ reads huge pages
 * by it, collect/ and the table name them by it. */
#ifndef FS_PMD_ORDER_H
#define FS_PMD_ORDER_H

/* A PMD maps a page of page-table entries of 8 bytes each (512 pages with 4 KiB pages: order
 * 9). */
static inline int pmd_order_of(long page_size)
{
	int order = 0;

	for (long entries = page_size / 8; entries > 1; entries >>= 1)
		order++;
	return order;
}

#endif
