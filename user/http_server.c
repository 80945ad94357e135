// SPDX-License-Identifier: GPL-2.0
/* The --listen endpoint (see http_server.h). */
#include "http_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <microhttpd.h>

#include "exposition.h"

/* Scrapers are few (a Prometheus or two, a person with curl): these bound what clients that
 * misbehave can hold, whatever their number. (No limit per address: scrapers often share the
 * host's, and a limit below this one would refuse them first.) */
#define MAX_CONNECTIONS 32
#define CONNECTION_TIMEOUT_S 10 /* idle, or not reading what it asked for */

static const char index_page[] =
    "<!DOCTYPE html>\n<html><head><title>foliostat</title></head><body>\n"
    "<h1>foliostat</h1>\n"
    "<p>Per-process and per-cgroup folio activity of the memory-management subsystem, "
    "counted by BPF programs on the kernel's tracepoints.</p>\n"
    "<p><a href=\"/metrics\">Metrics</a></p>\n"
    "</body></html>\n";

/* 127.0.0.1:10140, [::1]:10140: an address as --listen takes it. */
static void format_address(const struct sockaddr *addr, char *out, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (addr->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		snprintf(out, len, "[%s]:%u", host, ntohs(in6->sin6_port));
	} else {
		const struct sockaddr_in *in = (const struct sockaddr_in *)addr;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		snprintf(out, len, "%s:%u", host, ntohs(in->sin_port));
	}
}

int http_server_listen(struct http_server *srv, const struct sockaddr *addr, socklen_t addr_len,
		       char *err, size_t err_len)
{
	char shown_as[INET6_ADDRSTRLEN + 16];
	int one = 1, fd;

	*srv = (struct http_server){.listen_fd = -1};
	fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	/* A restarted foliostat must not wait for the last one's connections to time out. */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* [::] means IPv6 and IPv4 alike, whatever the host's bindv6only says. */
	if (addr->sa_family == AF_INET6) {
		int zero = 0;

		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	}
	if (bind(fd, addr, addr_len) || listen(fd, 64))
		goto fail;
	srv->listen_fd = fd;
	return 0;
fail:
	format_address(addr, shown_as, sizeof(shown_as));
	snprintf(err, err_len, "failed to listen on %s: %s", shown_as, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

static enum MHD_Result answer(struct MHD_Connection *conn, unsigned int status, const char *type,
			      const void *body, size_t len)
{
	struct MHD_Response *response =
	    MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	if (!response)
		return MHD_NO; /* out of memory: MHD closes the connection */
	MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(response, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(conn, status, response);
	MHD_destroy_response(response);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **state)
{
	static const char not_found[] = "Not found: foliostat serves /metrics\n";
	static const char not_allowed[] = "Method not allowed\n";
	static const char failed[] = "foliostat failed to read its maps\n";
	struct http_server *srv = cls;
	const char *accept, *text;
	bool openmetrics;
	size_t len;

	(void)version, (void)upload_data, (void)state;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		*upload_data_size = 0; /* a body is not read: the connection closes after this */
		return answer(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8",
			      not_allowed, sizeof(not_allowed) - 1);
	}
	if (!strcmp(url, "/"))
		return answer(conn, MHD_HTTP_OK, "text/html; charset=utf-8", index_page,
			      sizeof(index_page) - 1);
	if (strcmp(url, "/metrics"))
		return answer(conn, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8", not_found,
			      sizeof(not_found) - 1);
	accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	openmetrics = accept && accepts_openmetrics(accept);
	if (srv->metrics(srv->ctx, openmetrics, &text, &len))
		return answer(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8",
			      failed, sizeof(failed) - 1);
	return answer(conn, MHD_HTTP_OK,
		      openmetrics ? FS_OPENMETRICS_CONTENT_TYPE : FS_PROMETHEUS_CONTENT_TYPE, text,
		      len);
}

/* libmicrohttpd's own messages (a client's broken request, say) are of no use to the person
 * running foliostat: they are dropped. */
static void quiet_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls, (void)fmt, (void)ap;
}

int http_server_start(struct http_server *srv, http_metrics_fn metrics, void *ctx, char *err,
		      size_t err_len)
{
	srv->metrics = metrics;
	srv->ctx = ctx;
	/* No thread of its own (external polling, with epoll): see http_server.h. */
	srv->daemon = MHD_start_daemon(
	    MHD_USE_EPOLL | MHD_USE_ERROR_LOG, 0, NULL, NULL, on_request, srv,
	    MHD_OPTION_EXTERNAL_LOGGER, quiet_log, NULL, MHD_OPTION_LISTEN_SOCKET, srv->listen_fd,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)MAX_CONNECTIONS,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)CONNECTION_TIMEOUT_S, MHD_OPTION_END);
	if (!srv->daemon) {
		snprintf(err, err_len, "failed to start the HTTP server: %s",
			 errno ? strerror(errno) : "libmicrohttpd refused its options");
		return -1;
	}
	srv->listen_fd = -1; /* the daemon's now: it closes it when stopped */
	return 0;
}

int http_server_fd(const struct http_server *srv)
{
	const union MHD_DaemonInfo *info =
	    MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_EPOLL_FD);

	return info ? info->epoll_fd : -1;
}

int http_server_timeout_ms(const struct http_server *srv)
{
	MHD_UNSIGNED_LONG_LONG ms;

	if (MHD_get_timeout(srv->daemon, &ms) != MHD_YES)
		return -1;
	return ms > 60000 ? 60000 : (int)ms;
}

void http_server_run(struct http_server *srv)
{
	MHD_run(srv->daemon);
}

void http_server_stop(struct http_server *srv)
{
	if (srv->daemon)
		MHD_stop_daemon(srv->daemon);
	if (srv->listen_fd >= 0) /* never started */
		close(srv->listen_fd);
	*srv = (struct http_server){.listen_fd = -1};
}
