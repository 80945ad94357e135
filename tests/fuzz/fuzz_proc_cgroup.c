// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/cgroup (cgroup_v2_line, user/cgroups.c): a line per hierarchy,
 * "ID:CONTROLLERS:PATH", the cgroup v2 one "0::PATH". Its paths are named by whoever may make
 * cgroups (a delegated subtree, of v1 hierarchies too): the v2 path found is the whole rest of
 * a line that begins "0::/", never a part of another line's path, whatever blocks the text
 * comes in (the input's first byte sets their size, as reads of any length give them) and
 * never longer than its room (the second byte sets it).
 */
#include <stdbool.h>

#include "cgroups.h"
#include "fuzz.h"

/* Whether `path` is the rest of a line of `text` that begins "0::" (the line ends there). */
static bool is_v2_line(const char *text, size_t len, const char *path)
{
	size_t n = strlen(path);

	for (size_t at = 0; at + 3 + n <= len; at++) {
		if ((at && text[at - 1] != '\n') || memcmp(text + at, "0::", 3) ||
		    memcmp(text + at + 3, path, n))
			continue;
		if (at + 3 + n == len || text[at + 3 + n] == '\n')
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgroup_v2_line line;
	size_t block, room, at = 0;
	char path[256];

	if (size < 2)
		return 0;
	block = data[0] % 64 + 1;
	room = data[1] % sizeof(path) + 1;
	data += 2, size -= 2;
	cgroup_v2_line_init(&line, path, room);
	while (at < size &&
	       !cgroup_v2_line_feed(&line, (const char *)data + at,
				    size - at < block ? size - at : block))
		at += block;
	if (!cgroup_v2_line_end(&line)) {
		FUZZ_CHECK(strlen(path) < room && path[0] == '/');
		FUZZ_CHECK(is_v2_line((const char *)data, size, path));
	}
	return 0;
}
