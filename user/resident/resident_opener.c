// SPDX-License-Identifier: GPL-2.0
/* The resident scan's opener (see resident_opener.h). */
#include "resident_opener.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "opener.h"

/* What it may open: these files of a process given by pid, or kpageflags. */
enum proc_file { PROC_MAPS, PROC_PAGEMAP, PROC_SMAPS_ROLLUP, PROC_KPAGEFLAGS, NR_PROC_FILES };

static const char *const proc_file_names[NR_PROC_FILES] = {
    [PROC_MAPS] = "maps",
    [PROC_PAGEMAP] = "pagemap",
    [PROC_SMAPS_ROLLUP] = "smaps_rollup",
};

struct proc_request {
	__s32 pid;
	__u32 file; /* enum proc_file */
};

/* In the opener: the path is its own, from the pid and the file's name alone. */
static int open_proc_file(const void *request)
{
	const struct proc_request *req = request;
	char path[64];
	int fd;

	if (req->file >= NR_PROC_FILES || (req->file != PROC_KPAGEFLAGS && req->pid <= 0))
		return -EINVAL;
	if (req->file == PROC_KPAGEFLAGS)
		snprintf(path, sizeof(path), "/proc/kpageflags");
	else
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)req->pid,
			 proc_file_names[req->file]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int resident_opener_start(void)
{
	static const int caps[] = {CAP_SYS_ADMIN, CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH};
	static const int calls[] = {__NR_openat};
	static const struct opener_kind kind = {
	    .name = "foliostat-proc",
	    .caps = caps,
	    .nr_caps = sizeof(caps) / sizeof(caps[0]),
	    .calls = calls,
	    .nr_calls = sizeof(calls) / sizeof(calls[0]),
	    .request_size = sizeof(struct proc_request),
	    .open = open_proc_file,
	};

	return opener_start(&kind);
}

static int ask(int opener, pid_t pid, enum proc_file file)
{
	struct proc_request req = {.pid = (__s32)pid, .file = file};

	return opener_ask(opener, &req, sizeof(req));
}

int resident_open_kpageflags(int opener)
{
	return ask(opener, 0, PROC_KPAGEFLAGS);
}

int resident_open(int opener, pid_t pid, struct resident_files *files)
{
	int fds[3], err = 0, n;

	for (n = 0; n < 3 && !err; n++)
		if ((fds[n] = ask(opener, pid, (enum proc_file)n)) < 0)
			err = fds[n];
	if (err) {
		for (int i = 0; i < n - 1; i++)
			close(fds[i]);
		return err;
	}
	files->maps = fds[PROC_MAPS];
	files->pagemap = fds[PROC_PAGEMAP];
	files->smaps_rollup = fds[PROC_SMAPS_ROLLUP];
	return 0;
}

void resident_close(struct resident_files *files)
{
	close(files->maps);
	close(files->pagemap);
	close(files->smaps_rollup);
	files->maps = files->pagemap = files->smaps_rollup = -1;
}
