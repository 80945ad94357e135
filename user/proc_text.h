/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc files read whole. Their size is not known before they are read (stat says 0) and
 * grows with the host (zones in /proc/pagetypeinfo) or with what other users name (cgroup
 * paths in /proc/PID/cgroup), so a fixed buffer either cuts a file short or is far too large.
 * Here a buffer grows as the file is read, up to a bound the caller gives; a file longer than
 * the bound is an error, never its first part: a line cut at the end of a buffer would parse as
 * a whole one with a smaller number or a shorter path, another cgroup's.
 */
#ifndef FS_PROC_TEXT_H
#define FS_PROC_TEXT_H

#include <stddef.h>

struct proc_text {
	char *text; /* the file's text, NUL-terminated ("" after a failure); NULL before a read */
	size_t len; /* its bytes, the NUL not counted */
	size_t cap; /* bytes allocated, kept from one read to the next */
};

/*
 * Read the file open at fd whole, from its start (pread: a file kept open reads anew each
 * time), into t, grown as needed to at most `max` bytes of text. Returns 0, -EFBIG when the
 * file holds more than `max` bytes, or another negative errno; after a failure t->text is "".
 */
int proc_text_read(struct proc_text *t, int fd, size_t max);
/* The same, for the file at `path`, opened and closed here. */
int proc_text_read_path(struct proc_text *t, const char *path, size_t max);
void proc_text_free(struct proc_text *t);

#endif
