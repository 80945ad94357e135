// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/buddyinfo (free_blocks_parse_buddyinfo, user/collect/free_blocks.c): two samples, the
 * input's text before and after its first NUL, parsed into one set of zones as successive
 * reads are. Any text is refused or read within free_blocks.h's bounds.
 */
#include "free_blocks.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct free_blocks f; /* (large: not on the stack) */
	char *first = fuzz_split(&data, &size), *second = fuzz_string(data, size);

	memset(&f, 0, sizeof(f));
	f.buddyinfo_fd = f.pagetypeinfo_fd = -1;
	if (!free_blocks_parse_buddyinfo(&f, first)) {
		free_blocks_window_begin(&f);
		free_blocks_parse_buddyinfo(&f, second);
	}
	FUZZ_CHECK(f.nr_zones <= FS_MAX_ZONES);
	FUZZ_CHECK(f.nr_orders >= 0 && f.nr_orders <= FS_NR_ORDERS);
	for (size_t z = 0; z < f.nr_zones; z++) {
		FUZZ_CHECK(memchr(f.zones[z].name, '\0', sizeof(f.zones[z].name)));
		free_zone_pages(&f.zones[z], f.nr_orders);
		for (int o = 0; o < f.nr_orders; o++) {
			double unusable = free_zone_unusable(&f.zones[z], f.nr_orders, o);

			FUZZ_CHECK(unusable >= 0 && unusable <= 1);
		}
	}
	free_blocks_close(&f); /* (the zones grow with the text: freed each run) */
	free(first);
	free(second);
	return 0;
}
