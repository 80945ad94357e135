// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/self/mountinfo, as its two readers parse it: where the cgroup2 hierarchy is mounted
 * (cgroup2_mount_in, user/cgroups.c) and the mounts that name --files' file systems
 * (file_table_summarize, user/collect/file_table.c, which reads a path: the input is given it
 * as a memfd's). Mount points are anyone's who may mount (user namespaces).
 */
#define _GNU_SOURCE /* memfd_create */
#include <limits.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cgroups.h"
#include "file_table.h"
#include "fuzz.h"
#include "mountinfo.h"

static void cgroup2_mount_of(const uint8_t *data, size_t size)
{
	char mount[PATH_MAX];
	FILE *f;

	if (!size)
		return;
	f = fmemopen((void *)data, size, "r");
	FUZZ_CHECK(f);
	if (!cgroup2_mount_in(f, mount, sizeof(mount)))
		FUZZ_CHECK(memchr(mount, '\0', sizeof(mount)));
	fclose(f);
}

static void file_systems_of(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64];
	struct file_table table = {0};
	struct file_summary summary = {0};

	if (fd < 0)
		fd = memfd_create("mountinfo", MFD_CLOEXEC);
	FUZZ_CHECK(fd >= 0 && !ftruncate(fd, 0) && pwrite(fd, data, size, 0) == (ssize_t)size);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	FUZZ_CHECK(!file_table_summarize(&table, 0, path, &summary));
	file_summary_free(&summary);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *field = fuzz_string(data, size);
	size_t len = strlen(field);

	/* An escape makes four bytes one: never longer. */
	mountinfo_unescape(field);
	FUZZ_CHECK(strlen(field) <= len);
	free(field);
	cgroup2_mount_of(data, size);
	file_systems_of(data, size);
	return 0;
}
