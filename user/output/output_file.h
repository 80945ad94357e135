/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --output FILE: each record replaces FILE whole. It is written to a new file beside FILE, then
 * renamed over it, so a reader sees the previous record or the new one, never part of one; the
 * new file is created exclusively and a symlink at FILE is replaced, never followed.
 */
#ifndef FS_OUTPUT_FILE_H
#define FS_OUTPUT_FILE_H

#include <stdio.h>

struct output_file {
	int dir_fd;	    /* FILE's directory, opened once at start-up */
	char base[256];	    /* FILE's last component */
	char tmp[256 + 32]; /* the file being written, beside it */
	const char *path;   /* FILE as the user gave it, for messages */
	FILE *stream;	    /* open between output_file_begin() and _commit() */
};

/* Open FILE's directory. Returns 0, or -1 with a "failed to ...: reason" message in err. */
int output_file_open(struct output_file *out, const char *path, char *err, size_t err_len);
/* Create and remove a file beside FILE, as every record will: call it once privileges are
 * dropped, so that a directory foliostat may not write to fails at start-up, not at the first
 * record. Returns 0, or -1 with a "failed to ...: reason" message in err. */
int output_file_try(struct output_file *out, char *err, size_t err_len);
/* A stream to write the next record to, or NULL (errno set). */
FILE *output_file_begin(struct output_file *out);
/* Put the record written since output_file_begin() in FILE's place. Returns 0 or -1 (errno
 * set; the partial file is removed and FILE keeps the previous record). */
int output_file_commit(struct output_file *out);
/* Drop the record begun with output_file_begin(): FILE keeps the previous one. */
void output_file_discard(struct output_file *out);
void output_file_close(struct output_file *out);

#endif
