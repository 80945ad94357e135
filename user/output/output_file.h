/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records written to a file, in one of two ways:
 * - --output FILE appends each record to FILE (a log, as perf and strace write theirs), in one
 *   write; a record that cannot be written whole is cut off again, so FILE holds whole records
 *   only. FILE is opened at start-up, before privileges are dropped, as a shell's >> would.
 * - --replace FILE: each record replaces FILE whole (node_exporter's textfile collector reads
 *   such files). It is written to a new file beside FILE, then renamed over it, so a reader sees
 *   the previous record or the new one, never part of one; the new file is created exclusively.
 * Neither follows a symlink at FILE: --replace replaces it, --output refuses it.
 * A file -o creates is mode 0600 (records name other users' processes, cgroups and files), one
 * --replace writes 0644 (node_exporter reads it as another user), both less the umask's bits;
 * or exactly the mode --output-mode gives.
 */
#ifndef FS_OUTPUT_FILE_H
#define FS_OUTPUT_FILE_H

#include <stdbool.h>
#include <stdio.h>

struct output_file {
	bool append;	    /* --output: records appended to fd */
	int mode;	    /* the new file's exact mode (--output-mode); -1: the default */
	int fd;		    /* --output: FILE, opened at start-up */
	char *record;	    /* --output: the record being written, in memory */
	size_t record_len;
	int dir_fd;	    /* --replace: FILE's directory, opened once at start-up */
	char base[256];	    /* FILE's last component */
	char tmp[256 + 32]; /* the file being written, beside it */
	const char *path;   /* FILE as the user gave it, for messages */
	FILE *stream;	    /* open between output_file_begin() and _commit() */
};

/* Open FILE to append to, or (to replace it) its directory; files made get `mode` exactly, or
 * the default (-1: see above). Returns 0, or -1 with a "failed to ...: reason" message in err. */
int output_file_open(struct output_file *out, const char *path, bool append, int mode, char *err,
		     size_t err_len);
/* --replace: create and remove a file beside FILE, as every record will: call it once
 * privileges are dropped, so that a directory foliostat may not write to fails at start-up, not
 * at the first record. Returns 0, or -1 with a "failed to ...: reason" message in err. */
int output_file_try(struct output_file *out, char *err, size_t err_len);
/* A stream to write the next record to, or NULL (errno set). */
FILE *output_file_begin(struct output_file *out);
/* Put the record written since output_file_begin() at the end of FILE, or in its place.
 * Returns 0 or -1 (errno set; FILE is as it was before the record). */
int output_file_commit(struct output_file *out);
/* Drop the record begun with output_file_begin(): FILE keeps the previous one. */
void output_file_discard(struct output_file *out);
void output_file_close(struct output_file *out);

#endif
