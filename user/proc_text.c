// SPDX-License-Identifier: GPL-2.0
/* /proc files read whole (see proc_text.h). */
#include "proc_text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first buffer: a page, which most /proc files fit in. */
#define PROC_TEXT_FIRST 4096

/* Room for at least one more byte and the NUL, doubling, but to max + 2 at most: enough to
 * read one byte past the bound and so know the file is longer. */
static int grow(struct proc_text *t, size_t max)
{
	size_t cap = t->cap ? t->cap * 2 : PROC_TEXT_FIRST;
	char *text;

	if (cap > max + 2)
		cap = max + 2;
	text = realloc(t->text, cap);
	if (!text)
		return -ENOMEM;
	t->text = text;
	t->cap = cap;
	return 0;
}

int proc_text_read(struct proc_text *t, int fd, size_t max)
{
	size_t len = 0;
	int err = 0;

	for (;;) {
		ssize_t n;

		if (len + 1 >= t->cap && (err = grow(t, max)))
			break;
		n = pread(fd, t->text + len, t->cap - 1 - len, (off_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			err = -EFBIG;
			break;
		}
	}
	if (t->text)
		t->text[err ? 0 : len] = '\0';
	t->len = err ? 0 : len;
	return err;
}

int proc_text_read_path(struct proc_text *t, const char *path, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = proc_text_read(t, fd, max);
	close(fd);
	return err;
}

void proc_text_free(struct proc_text *t)
{
	free(t->text);
	*t = (struct proc_text){0};
}
