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

/* --output: FILE opened to append to, never through a symlink, a new one readable by all as a
 * log usually is. */
static int open_to_append(struct output_file *out, char *err, size_t err_len)
{
	out->fd = open(out->path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
		       0644);
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

int output_file_open(struct output_file *out, const char *path, bool append, char *err,
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
	 * a symlink someone planted under that name. */
	snprintf(out->tmp, sizeof(out->tmp), ".%s.%d.%lu", out->base, (int)getpid(), serial++);
	fd = openat(out->dir_fd, out->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0644);
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
