// SPDX-License-Identifier: GPL-2.0
/* Records written to a file, each replacing the last atomically (see output_file.h). */
#include "output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

static void set_error(char *err, size_t err_len, const char *what, const char *path)
{
	snprintf(err, err_len, "failed to %s '%s': %s", what, path, strerror(errno));
}

int output_file_open(struct output_file *out, const char *path, char *err, size_t err_len)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	struct stat st;

	memset(out, 0, sizeof(*out));
	out->dir_fd = -1;
	out->path = path;
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

int output_file_commit(struct output_file *out)
{
	bool failed = ferror(out->stream) != 0;
	int saved = errno;

	if (fclose(out->stream) != 0 && !failed) {
		failed = true;
		saved = errno;
	}
	out->stream = NULL;
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
	unlinkat(out->dir_fd, out->tmp, 0);
	out->stream = NULL;
}

void output_file_close(struct output_file *out)
{
	output_file_discard(out);
	if (out->dir_fd >= 0)
		close(out->dir_fd);
	out->dir_fd = -1;
}
