/* SPDX-License-Identifier: GPL-2.0 */
/* Start-up: everything before the first count (see start_up.c). */
#ifndef FS_START_UP_H
#define FS_START_UP_H

#include <stdbool.h>
#include <sys/types.h>

#include "collector.h"
#include "command.h"
#include "event_loop.h"
#include "loader.h"
#include "options.h"
#include "output_file.h"
#include "privileges.h"

/* Start-up, the part of it that blocks for seconds: see start_up(). */
struct start_up {
	struct loader *loader;
	const struct fs_options *opts;
	struct collector *collector;
	struct output_file *file;
	struct event_loop *loop;
	pid_t command;
	int stats_fd;			    /* --self's (0: off) */
	struct privileges_after privileges; /* what the run kept after start-up */
	int ret;
	char err[512];
	bool loaded, collecting; /* what there is to undo */
};

/*
 * Load, attach and open everything, then drop privileges and let the command run (see
 * start_up.c). Returns 0, -1 with a message in err, or the exit status of a command that never
 * ran.
 */
int start_up(struct event_loop *loop, struct start_up *s, struct command *command, char *err,
	     size_t err_len);

#endif
