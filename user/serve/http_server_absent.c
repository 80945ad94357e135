// SPDX-License-Identifier: GPL-2.0
/*
 * The --listen endpoint of a static build (make STATIC=1, and every cross build): Debian ships no
 * static libraries for what libmicrohttpd links with (GnuTLS's p11-kit), so such a foliostat has
 * no HTTP server. It says so when asked; --format prometheus -o FILE still works.
 */
#include "http_server.h"

#include <stdio.h>

int http_server_open(struct http_server *srv, const struct http_settings *settings,
		     http_read_fn read, http_render_fn render, void *ctx, char *err, size_t err_len)
{
	(void)settings, (void)read, (void)render, (void)ctx;
	*srv = (struct http_server){.listen_fd = -1};
	snprintf(err, err_len,
		 "failed to listen: this foliostat is a static build, without libmicrohttpd; build "
		 "it with `make` (dynamic), or write the exposition for node_exporter's textfile "
		 "collector with --format prometheus -o FILE INTERVAL");
	return 1;
}

int http_server_fd(const struct http_server *srv)
{
	(void)srv;
	return -1;
}

int http_server_timeout_ms(const struct http_server *srv)
{
	(void)srv;
	return -1;
}

void http_server_run(struct http_server *srv)
{
	(void)srv;
}

void http_server_stop(struct http_server *srv)
{
	*srv = (struct http_server){.listen_fd = -1};
}
