// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/cgroup (proc_cgroup_v2_path, user/group/cgroups.c): a line per hierarchy,
 * "ID:CONTROLLERS:PATH", the cgroup v2 one "0::PATH". Its paths are named by whoever may make
 * cgroups (a delegated subtree, of v1 hierarchies too): the v2 path found is the whole rest of
 * a line that begins "0::", never a part of another line's path.
 */
#include <stdbool.h>

#include "cgroups.h"
#include "fuzz.h"

/* Whether `path` (a pointer into `text`) is the rest of a line that begins "0::". */
static bool is_v2_line(const char *text, const char *path)
{
	const char *line = path - 3;

	return path - text >= 3 && (line == text || line[-1] == '\n') && !strncmp(line, "0::", 3) &&
	       !strchr(path, '\n');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);
	const char *path = proc_cgroup_v2_path(text);

	if (path)
		FUZZ_CHECK(is_v2_line(text, path));
	free(text);
	return 0;
}
