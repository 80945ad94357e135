/* SPDX-License-Identifier: GPL-2.0 */
/* The two kinds of run, each until a stop request, --duration, COUNT or the command's end. */
#ifndef FS_RUNS_H
#define FS_RUNS_H

#include <stdbool.h>
#include <stddef.h>

#include "collector.h"
#include "http_server.h"
#include "output_file.h"

/* Records: to standard output, or to `file` (--output) where given. Returns 0, or -1 with a
 * message in err. */
int run_records(struct collector *c, struct output_file *file, char *err, size_t err_len);

/* --listen: serve scrapes (their handlers are scrape_read and scrape_render, with the collector
 * as their context). Returns 0, or -1 with a message in err. */
int run_endpoint(struct collector *c, struct http_server *server, char *err, size_t err_len);
int scrape_read(void *collector);
int scrape_render(void *collector, bool openmetrics, const char **text, size_t *len);

#endif
