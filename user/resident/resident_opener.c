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
#include "process_start.h"

/* What it may open: these files of a process given by pid, or kpageflags. */
enum proc_file {
	PROC_SMAPS,
	PROC_PAGEMAP,
	PROC_SMAPS_ROLLUP,
	PROC_KPAGEFLAGS,
	PROC_MAPS,
	NR_PROC_FILES
};

static const char *const proc_file_names[NR_PROC_FILES] = {
    [PROC_SMAPS] = "smaps",
    [PROC_MAPS] = "maps",
    [PROC_PAGEMAP] = "pagemap",
    [PROC_SMAPS_ROLLUP] = "smaps_rollup",
};

struct proc_request {
	__s32 pid;
	__u32 file;	   /* enum proc_file */
	__u64 start_ticks; /* the process's start time, as foliostat selected it */
};

/* The child's copy of foliostat's selection (made before the fork; the child reads it only):
 * it opens the files of no process the options do not select. */
static struct resident_selector selection;

/* In the opener: the path is its own, from the pid and the file's name alone; and the process
 * must be one the selection has, the one started when foliostat selected it, before the open
 * and after (a pid reused in between is another process's: its files are not passed on). */
static int open_proc_file(const void *request)
{
	const struct proc_request *req = request;
	struct resident_identity id;
	unsigned long long now;
	char path[64];
	int fd, err;

	if (req->file == PROC_KPAGEFLAGS) {
		fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	if (req->file >= NR_PROC_FILES || req->pid <= 0)
		return -EINVAL;
	/* (another process's now: the one foliostat selected ended, as if it had not been read) */
	if ((err = process_start_ticks(req->pid, &now)))
		return err == -ENOENT ? -ENOENT : -ESRCH;
	if (now != req->start_ticks)
		return -ESRCH;
	if ((err = resident_selected(&selection, req->pid, &id)))
		return err;
	if (id.start_ticks != req->start_ticks)
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)req->pid, proc_file_names[req->file]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if ((err = process_start_ticks(req->pid, &now)) || now != req->start_ticks) {
		close(fd);
		return -ESRCH;
	}
	return fd;
}

int resident_opener_start(const struct resident_selector *sel)
{
	static const int caps[] = {CAP_SYS_ADMIN, CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH};
	/* open; and to check the selection: read, and stat (-c's cgroups) */
	static const int calls[] = {
	    __NR_openat,
	    __NR_read,
	    __NR_newfstatat,
#ifdef __NR_statx
	    __NR_statx,
#endif
	};
	static const struct opener_kind kind = {
	    .name = "foliostat-proc",
	    .caps = caps,
	    .nr_caps = sizeof(caps) / sizeof(caps[0]),
	    .calls = calls,
	    .nr_calls = sizeof(calls) / sizeof(calls[0]),
	    .request_size = sizeof(struct proc_request),
	    .open = open_proc_file,
	};

	selection = *sel;
	return opener_start(&kind);
}

static int ask(int opener, pid_t pid, unsigned long long start_ticks, enum proc_file file)
{
	struct proc_request req = {.pid = (__s32)pid, .file = file, .start_ticks = start_ticks};

	return opener_ask(opener, &req, sizeof(req));
}

int resident_open_kpageflags(int opener)
{
	return ask(opener, 0, 0, PROC_KPAGEFLAGS);
}

int resident_open(int opener, pid_t pid, unsigned long long start_ticks, bool with_rss,
		  struct resident_files *files)
{
	const enum proc_file wanted[3] = {with_rss ? PROC_SMAPS : PROC_MAPS, PROC_PAGEMAP,
					  PROC_SMAPS_ROLLUP};
	int fds[3], err = 0, n;

	for (n = 0; n < 3 && !err; n++)
		if ((fds[n] = ask(opener, pid, start_ticks, wanted[n])) < 0)
			err = fds[n];
	if (err) {
		for (int i = 0; i < n - 1; i++)
			close(fds[i]);
		return err;
	}
	files->mappings = fds[0];
	files->pagemap = fds[1];
	files->smaps_rollup = fds[2];
	return 0;
}

void resident_close(struct resident_files *files)
{
	close(files->mappings);
	close(files->pagemap);
	close(files->smaps_rollup);
	files->mappings = files->pagemap = files->smaps_rollup = -1;
}
