// SPDX-License-Identifier: GPL-2.0
/*
 * The --listen endpoint's handling of a request (user/serve/http_server.c, through its public
 * functions, on a Unix socket of a temporary folder): the input is what a client sends, bytes
 * of one or more requests; the endpoint runs in this process as in foliostat's loop. It covers
 * libmicrohttpd's parsing of the request and its headers, the Authorization header's basic
 * auth (a user of a web config, bcrypt of cost 4 so that a check is cheap), and the Accept
 * header's choice of format. Whatever the bytes, no answer is 200 to a client that sent no
 * Authorization header, and every answer is HTTP.
 */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"
#include "http_server.h"
#include "options.h"

/* User "prom", password "secret" (htpasswd -nbBC 4 prom secret). */
#define WEB_CONFIG "basic_auth_users:\n  prom: $2y$04$rPMA5BBCIZtmRznimhQSouCk7dhfbfbUB4sCYd6waDxj.keNsLbE.\n"
/* How long one input's exchange may take: a scrape that arrives within HTTP_SHARE_MS of the
 * last read waits for the next; it is left waiting, as a client that goes away would. */
#define EXCHANGE_S 0.02

static struct http_server server;
static struct fs_options opts;
static char folder[] = "/tmp/foliostat-fuzz-XXXXXX", config_path[64];

static int read_maps(void *ctx)
{
	(void)ctx;
	return 0;
}

static int render(void *ctx, bool openmetrics, const char **text, size_t *len)
{
	static const char prometheus[] = "foliostat_up 1\n", openmetrics_text[] =
		"foliostat_up 1\n# EOF\n";

	(void)ctx;
	*text = openmetrics ? openmetrics_text : prometheus;
	*len = strlen(*text);
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void stop(void)
{
	http_server_stop(&server);
	rmdir(folder);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct sockaddr_un *addr = (struct sockaddr_un *)&opts.listen_addr;
	struct http_settings settings;
	char err[512];
	FILE *f;

	(void)argc, (void)argv;
	FUZZ_CHECK(mkdtemp(folder));
	snprintf(config_path, sizeof(config_path), "%s/web.yml", folder);
	f = fopen(config_path, "w");
	FUZZ_CHECK(f && fputs(WEB_CONFIG, f) >= 0 && !fclose(f));
	addr->sun_family = AF_UNIX;
	snprintf(addr->sun_path, sizeof(addr->sun_path), "%s/socket", folder);
	opts.listen_addr_len = sizeof(*addr);
	opts.listen = addr->sun_path;
	opts.web_config = config_path;
	settings = (struct http_settings){.addr = (const struct sockaddr *)&opts.listen_addr,
					  .addr_len = opts.listen_addr_len,
					  .web_config = opts.web_config};
	if (http_server_open(&server, &settings, read_maps, render, NULL, err, sizeof(err))) {
		fprintf(stderr, "fuzz_http_request: %s\n", err);
		abort();
	}
	/* Read at the open: gone now, so that a run ended by a crash leaves only the socket. */
	unlink(config_path);
	atexit(stop);
	return 0;
}

/* Whether the client's bytes hold an Authorization header's name (in any case). */
static bool sent_authorization(const uint8_t *data, size_t size)
{
	for (size_t i = 0; i + 13 <= size; i++)
		if (!strncasecmp((const char *)data + i, "authorization", 13))
			return true;
	return false;
}

/* Let the server work, waiting for it at most timeout_ms; whether it had work. */
static bool serve(int timeout_ms)
{
	struct pollfd pfd = {.fd = http_server_fd(&server), .events = POLLIN};
	int server_ms = http_server_timeout_ms(&server), ready;

	if (server_ms >= 0 && server_ms < timeout_ms)
		timeout_ms = server_ms;
	ready = poll(&pfd, 1, timeout_ms);
	http_server_run(&server);
	return ready > 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_un *addr = (struct sockaddr_un *)&opts.listen_addr;
	char answer[4096];
	size_t sent = 0, got = 0;
	double deadline = now_s() + EXCHANGE_S;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	FUZZ_CHECK(fd >= 0);
	while (connect(fd, (struct sockaddr *)addr, sizeof(*addr))) {
		FUZZ_CHECK(errno == EAGAIN && now_s() < deadline + 1);
		serve(1);
	}
	/* Until the server closes, or has nothing more to do (an answer sent on a connection it
	 * keeps open, a scrape waiting for the next read). */
	for (int idle = 0; idle < 2 && now_s() < deadline;) {
		ssize_t n;
		bool worked;

		if (sent < size) {
			n = send(fd, data + sent, size - sent, MSG_NOSIGNAL);
			if (n > 0)
				sent += (size_t)n;
			else if (errno != EAGAIN)
				sent = size; /* the server closed: nothing more is read */
			if (sent == size)
				shutdown(fd, SHUT_WR);
		}
		worked = serve(1);
		n = recv(fd, answer + got, sizeof(answer) - 1 - got, 0);
		if (n == 0 || (n < 0 && errno != EAGAIN))
			break;
		if (n > 0)
			got += (size_t)n;
		idle = sent == size && !worked && n < 0 ? idle + 1 : 0;
		if (got == sizeof(answer) - 1)
			break;
	}
	close(fd);
	serve(0); /* (the server sees the close) */
	answer[got] = '\0';
	if (got >= 5)
		FUZZ_CHECK(!strncmp(answer, "HTTP/", 5));
	if (!strncmp(answer, "HTTP/1.1 200", 12) || !strncmp(answer, "HTTP/1.0 200", 12))
		FUZZ_CHECK(sent_authorization(data, size));
	return 0;
}
