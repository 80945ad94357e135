// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/pagetypeinfo (free_blocks_parse_pagetypeinfo, user/collect/free_blocks.c), after a
 * buddyinfo that names its zones: the input's text before its first NUL is the buddyinfo, the
 * rest the pagetypeinfo. Any text is refused or read within free_blocks.h's bounds.
 */
#include "free_blocks.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct free_blocks f; /* (large: not on the stack) */
	char *buddyinfo = fuzz_split(&data, &size), *pagetypeinfo = fuzz_string(data, size);

	memset(&f, 0, sizeof(f));
	f.buddyinfo_fd = f.pagetypeinfo_fd = -1;
	free_blocks_parse_buddyinfo(&f, buddyinfo);
	if (!free_blocks_parse_pagetypeinfo(&f, pagetypeinfo))
		FUZZ_CHECK(f.nr_types >= 1 && f.nr_types <= FS_MAX_MIGRATE_TYPES);
	for (size_t t = 0; t < f.nr_types; t++)
		FUZZ_CHECK(memchr(f.types[t], '\0', sizeof(f.types[t])));
	free_blocks_close(&f); /* (the zones grow with the text: freed each run) */
	free(buddyinfo);
	free(pagetypeinfo);
	return 0;
}
