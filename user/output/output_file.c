// SPDX-License-Identifier: GPL-2.0
/* Records written to a file: appended, or each replacing the last atomically (output_file.h). */
#include "output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

static void set_error(char *err, size_t err_len, const char *what, const char *path)
{
	snprintf(err, err_len, "failed to %s '%s': %s", what, path, strerror(errno));
}

/*
 * Create (or open) `name` in `dir_fd` with the file's mode: the default less the umask's bits,
 * as open(2) makes it, or exactly the mode --output-mode asked for. That one is made with the
 * umask cleared for the call alone, since fchmod() is refused once the seccomp filter is on;
 * no other thread of foliostat creates files.
 */
static int open_with_mode(const struct output_file *out, int dir_fd, const char *name, int flags)
{
	mode_t old_umask;
	int fd, saved;

	if (out->mode < 0)
		return openat(dir_fd, name, flags, out->append ? 0600 : 0644);
	old_umask = umask(0);
	fd = openat(dir_fd, name, flags, (mode_t)out->mode);
	saved = errno;
	umask(old_umask);
	errno = saved;
	return fd;
}

/* --output: FILE opened to append to, never through a symlink. A new one is the owner's alone
 * unless --output-mode says otherwise: records name other users' processes, cgroups and (with
 * --files) files in directories they may keep to themselves. An existing FILE keeps its mode. */
static int open_to_append(struct output_file *out, char *err, size_t err_len)
{
	out->fd = open_with_mode(out, AT_FDCWD, out->path,
				 O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (out->fd >= 0)
		return 0;
	if (errno == ELOOP)
		snprintf(err, err_len,
			 "failed to open '%s': a symbolic link (--output does not follow one)",
			 out->path);
	else
		set_error(err, err_len, "open", out->path);
	return -1;
}

int output_file_open(struct output_file *out, const char *path, bool append, int mode, char *err,
		     size_t err_len)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	struct stat st;

	memset(out, 0, sizeof(*out));
	out->dir_fd = -1;
	out->fd = -1;
	out->path = path;
	out->append = append;
	out->mode = mode;
	if (append)
		return open_to_append(out, err, err_len);
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	else
		snprintf(dir, sizeof(dir), ".");
	if (snprintf(out->base, sizeof(out->base), "%s", slash ? slash + 1 : path) >=
		(int)sizeof(out->base) ||
	    !out->base[0] || strcmp(out->base, ".") == 0 || strcmp(out->base, "..") == 0) {
		errno = EINVAL;
		set_error(err, err_len, "use output file", path);
		return -1;
	}
	out->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (out->dir_fd < 0) {
		set_error(err, err_len, "open the directory of", path);
		return -1;
	}
	/* A directory in FILE's place would only fail at the first record: say so now. */
	if (fstatat(out->dir_fd, out->base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		set_error(err, err_len, "use output file", path);
		output_file_close(out);
		return -1;
	}
	return 0;
}

FILE *output_file_begin(struct output_file *out)
{
	static unsigned long serial;
	int fd;

	/* Appended in one write, once whole: built in memory first. */
	if (out->append) {
		out->stream = open_memstream(&out->record, &out->record_len);
		return out->stream;
	}

	/* Hidden, unique to this run and record; O_EXCL and O_NOFOLLOW: never an existing file or
	 * a symlink someone planted under that name. Readable by all unless --output-mode says
	 * otherwise: node_exporter's textfile collector reads it as a user of its own. */
	snprintf(out->tmp, sizeof(out->tmp), ".%s.%d.%lu", out->base, (int)getpid(), serial++);
	fd = open_with_mode(out, out->dir_fd, out->tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	out->stream = fdopen(fd, "w");
	if (!out->stream) {
		int saved = errno;

		close(fd);
		unlinkat(out->dir_fd, out->tmp, 0);
		errno = saved;
	}
	return out->stream;
}

/*
 * The record, at the end of FILE. A write can stop part-way (a full disk, a quota): what it
 * wrote is cut off again, so that FILE ends with a whole record. (Not possible on a pipe or a
 * device: nothing can be taken back there.)
 */
static int append_record(struct output_file *out)
{
	off_t end = lseek(out->fd, 0, SEEK_END);
	size_t done = 0;

	while (done < out->record_len) {
		ssize_t n = write(out->fd, out->record + done, out->record_len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int saved = n < 0 ? errno : EIO;

			/* (Should the cut fail too, the write's error is still the one told.) */
			if (done && end >= 0) {
				int cut = ftruncate(out->fd, end);

				(void)cut;
			}
			errno = saved;
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

int output_file_commit(struct output_file *out)
{
	bool failed = ferror(out->stream) != 0;
	int saved = errno;

	if (fclose(out->stream) != 0 && !failed) {
		failed = true;
		saved = errno;
	}
	out->stream = NULL;
	if (out->append) {
		int ret = failed ? -1 : append_record(out);

		if (!failed && ret)
			saved = errno;
		free(out->record);
		out->record = NULL;
		errno = saved;
		return ret;
	}
	/* rename() replaces whatever is at FILE, a symlink included, without following it. */
	if (!failed && renameat(out->dir_fd, out->tmp, out->dir_fd, out->base) != 0) {
		failed = true;
		saved = errno;
	}
	if (failed) {
		unlinkat(out->dir_fd, out->tmp, 0);
		errno = saved;
		return -1;
	}
	return 0;
}

int output_file_try(struct output_file *out, char *err, size_t err_len)
{
	if (out->append)
		return 0; /* opened already */
	if (!output_file_begin(out)) {
		set_error(err, err_len, "write a file beside", out->path);
		return -1;
	}
	output_file_discard(out);
	return 0;
}

void output_file_discard(struct output_file *out)
{
	if (!out->stream)
		return;
	fclose(out->stream);
	out->stream = NULL;
	if (out->append) {
		free(out->record);
		out->record = NULL;
		return;
	}
	unlinkat(out->dir_fd, out->tmp, 0);
}

void output_file_close(struct output_file *out)
{
	output_file_discard(out);
	if (out->dir_fd >= 0)
		close(out->dir_fd);
	if (out->fd >= 0)
		close(out->fd);
	out->dir_fd = -1;
	out->fd = -1;
}
