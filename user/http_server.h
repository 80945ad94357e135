/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --listen: the HTTP endpoint, on libmicrohttpd. It runs in foliostat's own loop (no thread of
 * its own): a scrape is answered between two reads of the maps, never during one, and an
 * answer is made from the maps at that moment. Slow and broken clients cost a connection each,
 * up to a limit, and are dropped after a timeout; they never hold up the loop.
 */
#ifndef FS_HTTP_SERVER_H
#define FS_HTTP_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* Make the exposition for a scrape: text and its length, valid until the next call; or -1 to
 * answer 500. */
typedef int (*http_metrics_fn)(void *ctx, bool openmetrics, const char **text, size_t *len);

struct MHD_Daemon;

struct http_server {
	int listen_fd;
	struct MHD_Daemon *daemon;
	http_metrics_fn metrics;
	void *ctx;
};

/*
 * Bind and listen on addr (before privileges are dropped: a port below 1024 needs them).
 * Returns 0, or -1 with "failed to listen on ADDR:PORT: reason" in err.
 */
int http_server_listen(struct http_server *srv, const struct sockaddr *addr, socklen_t addr_len,
		       char *err, size_t err_len);
/* Start answering requests with `metrics`. Returns 0, or -1 with a message in err. */
int http_server_start(struct http_server *srv, http_metrics_fn metrics, void *ctx, char *err,
		      size_t err_len);
/* The descriptor that becomes readable when the server has work (for poll()). */
int http_server_fd(const struct http_server *srv);
/* Milliseconds until the server has timeouts to handle, or -1 when none. */
int http_server_timeout_ms(const struct http_server *srv);
/* Do the work that is ready, without blocking. */
void http_server_run(struct http_server *srv);
void http_server_stop(struct http_server *srv);

#endif /* FS_HTTP_SERVER_H */
