/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --listen: the HTTP endpoint, on libmicrohttpd. It runs in foliostat's own loop (no thread of
 * its own): a scrape is answered between two reads of the maps, never during one.
 *
 * What local users cannot do to it:
 * - Make it read the maps more often than every HTTP_SHARE_MS: a scrape that arrives within
 *   that time of the last read waits for the next one (at most HTTP_SHARE_MS) and shares it,
 *   and one rendering per format serves every scrape of a read. An answer holds every event
 *   up to the moment its request arrived.
 * - Lock the scraper out with idle connections or slow readers: beyond a limit per client
 *   address (per uid on a Unix socket) and a total limit, a new connection takes the place of
 *   the one idle longest, or of the answer that made the least progress, never its own; and
 *   answers being sent (each holding its text) are limited in all and per client, the slowest
 *   closed for a new one.
 * - Spend its CPU on bcrypt, or keep a scraper's first check out: a password once verified is
 *   remembered, and checking others gets a bounded share of a CPU, and each client a share of
 *   that (password_budget.h; 429 with Retry-After beyond it).
 */
#ifndef FS_HTTP_SERVER_H
#define FS_HTTP_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* Scrapes within this time of a read share the next one. */
#define HTTP_SHARE_MS 250

/* Read the maps for the scrapes waiting (0, or -1 to answer them 500). */
typedef int (*http_read_fn)(void *ctx);
/* The exposition of the counts of the last read, in a format: text and length, valid until
 * the next call; or -1 to answer 500. */
typedef int (*http_render_fn)(void *ctx, bool openmetrics, const char **text, size_t *len);

struct http_state;

struct http_server {
	int listen_fd;
	struct http_state *state;
};

/*
 * Everything the endpoint needs, before privileges are dropped (a port below 1024, a key
 * file only root reads) and before any filter of system calls: the web config, the socket, the
 * server with its descriptors. Nothing is served until http_server_run(). Returns 0, or an
 * exit code with the message in err: 2 for an invalid --web.config.file, 1 for any failure
 * ("failed to listen on ADDR:PORT: reason").
 */
/* What the endpoint is told of the options (main.c fills it). */
struct http_settings {
	const struct sockaddr *addr; /* --listen's address */
	socklen_t addr_len;
	const char *web_config; /* --web.config.file: TLS and basic auth; NULL: none */
};

int http_server_open(struct http_server *srv, const struct http_settings *settings,
		     http_read_fn read, http_render_fn render, void *ctx, char *err,
		     size_t err_len);
/* The descriptor that becomes readable when the server has work (for poll()). */
int http_server_fd(const struct http_server *srv);
/* Milliseconds until the server has timeouts or waiting scrapes to handle, or -1 when none. */
int http_server_timeout_ms(const struct http_server *srv);
/* Do the work that is ready, without blocking. */
void http_server_run(struct http_server *srv);
/* Close everything, and remove the Unix socket foliostat made. */
void http_server_stop(struct http_server *srv);

#endif /* FS_HTTP_SERVER_H */
