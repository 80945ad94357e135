// SPDX-License-Identifier: GPL-2.0
/* The --listen endpoint (see http_server.h). */
#define _GNU_SOURCE /* struct ucred */
#include "http_server.h"

#include <arpa/inet.h>
#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <microhttpd.h>

#include "bounds.h"
#include "client_key.h"
#include "exposition.h"
#include "password_budget.h"
#include "sanitize.h"
#include "web_config.h"

/*
 * Scrapers are few (a Prometheus or two, a person with curl): these bound what other clients
 * can hold. Beyond either limit of connections a new one takes the place of another, never the
 * newcomer itself: first the one idle longest (no request in hand), so that idle connections
 * (which any local user can open by the hundred, from any of 127.0.0.0/8's addresses) can never
 * keep a scraper out; then the answer that made the least progress (a limit per address that
 * refused the newcomer instead would refuse a scraper on loopback first).
 */
#define MAX_CONNECTIONS 128
#define MAX_PER_CLIENT 32 /* per address; per uid on a Unix socket */
/* Room for the connections closed to make place, until libmicrohttpd has seen them close. */
#define CLIENT_SLOTS (MAX_CONNECTIONS + 16)
#define CONNECTION_TIMEOUT_S 5 /* idle, or not reading what it asked for */
/*
 * Answers of /metrics being sent at once, in all and per client: each holds its text (that of
 * the read it was made from) until its client has read it, so a client that reads slowly, or
 * not at all, holds memory; beyond either limit the answer that made the least progress (bytes
 * taken per second), among those past their grace, is closed for the new one. A scraper reads
 * its answer at once: it is never the slowest.
 */
#define MAX_ANSWERS 16
#define MAX_ANSWERS_PER_CLIENT 4
/* An answer begun this recently has not had the time to show how fast its client reads: it is
 * not closed for another answer, and for a connection only when no older one can be. */
#define ANSWER_GRACE_S 1.0
/* What libmicrohttpd takes of an answer's text at a time. */
#define ANSWER_BLOCK 16384

/* A rendered exposition, shared by the answers made from it until the last is sent. */
struct answer_text {
	unsigned int refs;
	size_t len;
	char text[];
};

/* A connection (libmicrohttpd's socket context). */
struct http_client {
	bool used, closing; /* closing: shut down to make room, not yet closed */
	bool suspended;	    /* waiting for the next read */
	bool openmetrics;
	bool holds_answer; /* a /metrics answer is being sent to it */
	struct MHD_Connection *conn;
	int fd;
	struct client_key key;
	double since;	/* connected, or its last request ended */
	double arrived; /* when its request in hand arrived; 0: none */
	uint64_t sent;	/* bytes of its answer libmicrohttpd has taken to send */
};

/* One answer's reading of a text: its connection's progress. */
struct answer_reader {
	struct answer_text *answer;
	struct http_client *client;
};

/* A password that matched its user's hash, as its SHA-256: compared in a time that does not
 * depend on what is given, and not kept as it was typed. */
struct remembered {
	bool set;
	unsigned char digest[32];
};

struct http_state {
	struct MHD_Daemon *daemon;
	http_read_fn read;
	http_render_fn render;
	void *ctx;
	bool is_unix;
	char *unix_path; /* the socket made, to remove at the end (if it is still ours) */
	dev_t unix_dev;
	ino_t unix_ino;
	struct web_config web;
	struct remembered *verified; /* per user: the last password that matched its hash */
	struct password_budgets budgets;
	/* The shared reads: when the last began, when one last failed; each format's answer
	 * rendered from a read (made then). */
	double last_read, failed_at;
	struct answer_text *answers[2];
	double answer_read[2];
	int nr_suspended;
	int nr_open, nr_answers; /* connections, and answers being sent, not closing */
	struct http_client clients[CLIENT_SLOTS];
};

static const char index_page[] =
    "<!DOCTYPE html>\n<html><head><title>foliostat</title></head><body>\n"
    "<h1>foliostat</h1>\n"
    "<p>Per-process and per-cgroup folio activity of the memory-management subsystem, "
    "counted by BPF programs on the kernel's tracepoints.</p>\n"
    "<p><a href=\"/metrics\">Metrics</a></p>\n"
    "</body></html>\n";

static double monotonic_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The CPU time this thread has used. */
static double thread_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 127.0.0.1:10140, [::1]:10140, unix:/run/foliostat.sock: an address as --listen takes it. */
static void format_address(const struct sockaddr *addr, char *out, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (addr->sa_family == AF_UNIX) {
		snprintf(out, len, "unix:%s", ((const struct sockaddr_un *)addr)->sun_path);
	} else if (addr->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		snprintf(out, len, "[%s]:%u", host, ntohs(in6->sin6_port));
	} else {
		const struct sockaddr_in *in = (const struct sockaddr_in *)addr;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		snprintf(out, len, "%s:%u", host, ntohs(in->sin_port));
	}
}

/*
 * A Unix socket's path: a socket left by a foliostat that did not exit cleanly is replaced (no
 * one answers on it); a socket someone listens on, or anything else at the path, is not.
 * Made with mode 0660: only its owner and group may connect.
 */
static int listen_unix(struct http_state *st, const struct sockaddr_un *addr, socklen_t len, int fd)
{
	struct stat sb;
	mode_t old_mask;
	int ret;

	if (!lstat(addr->sun_path, &sb)) {
		int probe;

		if (!S_ISSOCK(sb.st_mode)) {
			errno = EEXIST;
			return -1;
		}
		probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (probe < 0)
			return -1;
		ret = connect(probe, (const struct sockaddr *)addr, len);
		close(probe);
		if (!ret) {
			errno = EADDRINUSE;
			return -1;
		}
		if (errno != ECONNREFUSED || (unlink(addr->sun_path) && errno != ENOENT))
			return -1;
	}
	old_mask = umask(0117);
	ret = bind(fd, (const struct sockaddr *)addr, len);
	umask(old_mask);
	if (ret || stat(addr->sun_path, &sb))
		return -1;
	st->unix_path = strdup(addr->sun_path);
	st->unix_dev = sb.st_dev;
	st->unix_ino = sb.st_ino;
	return 0;
}

static int listen_on(struct http_server *srv, const struct sockaddr *addr, socklen_t addr_len,
		     char *err, size_t err_len)
{
	char shown_as[sizeof(((struct sockaddr_un *)0)->sun_path) + 16];
	int one = 1, fd;

	fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	if (addr->sa_family == AF_UNIX) {
		srv->state->is_unix = true;
		if (listen_unix(srv->state, (const struct sockaddr_un *)addr, addr_len, fd))
			goto fail;
	} else {
		/* A restarted foliostat must not wait for the last one's connections to end. */
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		/* [::] means IPv6 and IPv4 alike, whatever the host's bindv6only says. */
		if (addr->sa_family == AF_INET6) {
			int zero = 0;

			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		}
		if (bind(fd, addr, addr_len))
			goto fail;
	}
	if (listen(fd, 128))
		goto fail;
	srv->listen_fd = fd;
	return 0;
fail:
	format_address(addr, shown_as, sizeof(shown_as));
	snprintf(err, err_len, "failed to listen on %s: %s", shown_as,
		 errno == EEXIST ? "a file that is not a socket is there"
		 : errno == EADDRINUSE && addr->sa_family == AF_UNIX
		     ? "another process listens on that socket"
		     : strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* A PEM file, whole and NUL-terminated, for libmicrohttpd (GnuTLS). */
static char *read_pem(const char *path, const char *what, char *err, size_t err_len)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "re");

	if (f) {
		text = calloc(1, 1 << 20);
		if (text)
			len = fread(text, 1, (1 << 20) - 1, f);
		if (!text || ferror(f) || !feof(f) || !len) {
			errno = !text ? ENOMEM : ferror(f) ? EIO : len ? EFBIG : ENODATA;
			free(text);
			text = NULL;
		}
		fclose(f);
	}
	if (!text)
		snprintf(err, err_len, "failed to read the TLS %s '%s': %s", what, path,
			 strerror(errno));
	return text;
}

/*
 * The limits' key of a connection: its uid on a Unix socket; an IPv4 address (an IPv6 one
 * that maps IPv4 is that address); an IPv6 /64, the least a host is given (a host with a /64
 * has 2^64 addresses: keyed by each, it would be as many clients). A peer that cannot be told
 * (no credentials, no address) is a client of its own, never root's or another's.
 */
static struct client_key client_key(const struct http_state *st, struct MHD_Connection *conn,
				    int fd)
{
	struct client_key key = {0}, unknown = {.family = AF_UNSPEC};
	const union MHD_ConnectionInfo *info;

	memcpy(unknown.addr, &fd, sizeof(fd)); /* (a descriptor is one connection's while open) */
	if (st->is_unix) {
		struct ucred cred = {0};
		socklen_t len = sizeof(cred);

		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
			return unknown;
		key.family = AF_UNIX;
		memcpy(key.addr, &cred.uid, sizeof(cred.uid));
		return key;
	}
	info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (!info || !info->client_addr)
		return unknown;
	key.family = info->client_addr->sa_family;
	if (key.family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)info->client_addr)->sin6_addr;

		if (IN6_IS_ADDR_V4MAPPED(a)) {
			key.family = AF_INET;
			memcpy(key.addr, &a->s6_addr[12], 4);
		} else {
			memcpy(key.addr, a, 8);
		}
	} else if (key.family == AF_INET) {
		memcpy(key.addr, &((const struct sockaddr_in *)info->client_addr)->sin_addr, 4);
	} else {
		return unknown;
	}
	return key;
}

/* Close a connection to make room: shut down, it reads as closed by its client, and
 * libmicrohttpd closes it (and tells on_connection) in its own time. */
static void close_client(struct http_state *st, struct http_client *c)
{
	c->closing = true;
	shutdown(c->fd, SHUT_RDWR);
	bound_set_entries(BOUND_CONNECTIONS, --st->nr_open);
	bound_evicted(BOUND_CONNECTIONS, 1);
	if (c->holds_answer) {
		bound_set_entries(BOUND_ANSWERS, --st->nr_answers);
		bound_evicted(BOUND_ANSWERS, 1);
		c->holds_answer = false; /* (counted once: end_answer has nothing left to count) */
	}
}

/* Its answer is done with (sent, or the connection closed). */
static void end_answer(struct http_state *st, struct http_client *c)
{
	if (c->holds_answer)
		bound_set_entries(BOUND_ANSWERS, --st->nr_answers);
	c->holds_answer = false;
}

/* Bytes of its answer taken per second so far. */
static double progress(const struct http_client *c, double now)
{
	return c->sent / fmax(now - c->arrived, 1e-3);
}

/* Whether `a` is closed for room before `b`: idle ones first, the longest idle first; then
 * answers past their grace, then the others, each the least progress first. */
static bool closes_before(const struct http_client *a, const struct http_client *b, double now)
{
	int rank_a = !a->arrived ? 0 : now - a->arrived >= ANSWER_GRACE_S ? 1 : 2;
	int rank_b = !b->arrived ? 0 : now - b->arrived >= ANSWER_GRACE_S ? 1 : 2;

	if (rank_a != rank_b)
		return rank_a < rank_b;
	return rank_a ? progress(a, now) < progress(b, now) : a->since < b->since;
}

/* The connection to close for room, other than `new` (the newcomer, never closed while another
 * can be), among those of `key` (or all), and among those sending an answer if `answers`. A
 * connection waiting for the next read (250 ms at most) is not closed: it is being served. */
static struct http_client *first_to_close(struct http_state *st, const struct http_client *new,
					  const struct client_key *key, bool answers, double now)
{
	struct http_client *best = NULL;

	for (int i = 0; i < CLIENT_SLOTS; i++) {
		struct http_client *c = &st->clients[i];

		if (!c->used || c->closing || c == new || c->suspended)
			continue;
		if ((key && !same_client(&c->key, key)) || (answers && !c->holds_answer))
			continue;
		if (!best || closes_before(c, best, now))
			best = c;
	}
	return best;
}

/* Make room for a new connection within the limits. */
static void admit(struct http_state *st, struct http_client *new, double now)
{
	int same = 0;

	for (int i = 0; i < CLIENT_SLOTS; i++) {
		const struct http_client *c = &st->clients[i];

		if (c->used && !c->closing)
			same += same_client(&c->key, &new->key);
	}
	bound_set_entries(BOUND_CONNECTIONS, ++st->nr_open);
	if (same > MAX_PER_CLIENT) {
		struct http_client *victim = first_to_close(st, new, &new->key, false, now);

		/* (every other one waits for a read: the newcomer is the one to go) */
		close_client(st, victim ? victim : new);
		if (!victim)
			return;
	}
	if (st->nr_open > MAX_CONNECTIONS) {
		struct http_client *victim = first_to_close(st, new, NULL, false, now);

		close_client(st, victim ? victim : new);
	}
}

/* Whether an answer to `victim`, if there is one, may be closed for a new one: not within its
 * grace. (Answers begun within the grace are never many texts: those of the last reads.) */
static bool past_grace(const struct http_client *victim, double now)
{
	return victim && now - victim->arrived >= ANSWER_GRACE_S;
}

/* Make room for a new answer to `c` within the limits of answers being sent. */
static void make_room_for_answer(struct http_state *st, struct http_client *c, double now)
{
	int same = 0;

	for (int i = 0; i < CLIENT_SLOTS; i++) {
		const struct http_client *o = &st->clients[i];

		if (o->used && !o->closing && o->holds_answer)
			same += same_client(&o->key, &c->key);
	}
	if (same >= MAX_ANSWERS_PER_CLIENT) {
		struct http_client *victim = first_to_close(st, c, &c->key, true, now);

		if (past_grace(victim, now))
			close_client(st, victim);
	}
	if (st->nr_answers >= MAX_ANSWERS) {
		struct http_client *victim = first_to_close(st, c, NULL, true, now);

		if (past_grace(victim, now))
			close_client(st, victim);
	}
}

/* Answers past their grace sent to `key`'s connections (NULL: all). */
static int aged_answers(const struct http_state *st, const struct client_key *key, double now)
{
	int n = 0;

	for (int i = 0; i < CLIENT_SLOTS; i++) {
		const struct http_client *c = &st->clients[i];

		n += c->used && !c->closing && c->holds_answer && past_grace(c, now) &&
		     (!key || same_client(&c->key, key));
	}
	return n;
}

/*
 * Keep the answers past their grace within the limits (16, 4 per client) as they age, not only
 * when a new one comes: answers begun together within a second (any local user can start 128)
 * would otherwise all outlive it. The slowest goes first. Cheap: a pass over the slots, made
 * only when some answer is held.
 */
static void trim_aged_answers(struct http_state *st, double now)
{
	bool closed = st->nr_answers > 0;

	while (closed) {
		struct http_client *victim = NULL;

		closed = false;
		if (aged_answers(st, NULL, now) > MAX_ANSWERS) {
			victim = first_to_close(st, NULL, NULL, true, now);
		} else {
			for (int i = 0; i < CLIENT_SLOTS && !victim; i++) {
				const struct http_client *c = &st->clients[i];

				if (c->used && !c->closing && c->holds_answer &&
				    past_grace(c, now) &&
				    aged_answers(st, &c->key, now) > MAX_ANSWERS_PER_CLIENT)
					victim = first_to_close(st, NULL, &c->key, true, now);
			}
		}
		if (past_grace(victim, now)) {
			close_client(st, victim);
			closed = true;
		}
	}
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct http_state *st = cls;
	struct http_client *c = *socket_context;
	const union MHD_ConnectionInfo *info;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (c) {
			if (c->suspended)
				st->nr_suspended--;
			end_answer(st, c);
			if (!c->closing)
				bound_set_entries(BOUND_CONNECTIONS, --st->nr_open);
			*c = (struct http_client){0};
		}
		return;
	}
	info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	for (int i = 0; i < CLIENT_SLOTS; i++) {
		if (!st->clients[i].used) {
			c = &st->clients[i];
			break;
		}
	}
	if (!info)
		return;
	if (!c) { /* (libmicrohttpd's own limit is CLIENT_SLOTS: not reached) */
		shutdown(info->connect_fd, SHUT_RDWR);
		return;
	}
	*c = (struct http_client){.used = true, .conn = conn, .fd = info->connect_fd};
	c->key = client_key(st, conn, c->fd);
	c->since = monotonic_now();
	*socket_context = c;
	admit(st, c, c->since);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **state,
			 enum MHD_RequestTerminationCode toe)
{
	struct http_client *c = *state;

	(void)conn, (void)toe;
	if (c) {
		end_answer(cls, c);
		c->arrived = 0;
		c->sent = 0;
		c->since = monotonic_now();
	}
	*state = NULL;
}

/* A static answer; `retry_after_s` for a 429. */
static enum MHD_Result answer_with(struct MHD_Connection *conn, unsigned int status,
				   const char *type, const void *body, size_t len,
				   unsigned int retry_after_s)
{
	struct MHD_Response *response =
	    MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!response)
		return MHD_NO; /* out of memory: MHD closes the connection */
	MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(response, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (status == MHD_HTTP_TOO_MANY_REQUESTS) {
		char seconds[16];

		snprintf(seconds, sizeof(seconds), "%u", retry_after_s);
		MHD_add_response_header(response, MHD_HTTP_HEADER_RETRY_AFTER, seconds);
	}
	if (status == MHD_HTTP_UNAUTHORIZED)
		ret = MHD_queue_basic_auth_fail_response(conn, "foliostat", response);
	else
		ret = MHD_queue_response(conn, status, response);
	MHD_destroy_response(response);
	return ret;
}

static enum MHD_Result answer(struct MHD_Connection *conn, unsigned int status, const char *type,
			      const void *body, size_t len)
{
	return answer_with(conn, status, type, body, len, 0);
}

/* Equal strings, in a time that depends on the length of `known` only. */
static bool same_secret(const char *known, const char *given)
{
	size_t known_len = strlen(known), given_len = strlen(given);
	unsigned char diff = known_len != given_len;

	for (size_t i = 0; i < known_len; i++)
		diff |= (unsigned char)known[i] ^ (unsigned char)(i < given_len ? given[i] : 0);
	return !diff;
}

/* Whether `password` is the one remembered: digests compared in full, whatever differs. */
static bool same_digest(const struct remembered *known, const char *password)
{
	unsigned char given[32], diff = 0;

	sha256(password, strlen(password), given);
	for (size_t i = 0; i < sizeof(given); i++)
		diff |= known->digest[i] ^ given[i];
	explicit_bzero(given, sizeof(given));
	return !diff;
}

/* Whether `password` is the one of `hash` (bcrypt, through libcrypt). */
static bool bcrypt_matches(const char *hash, const char *password)
{
	static struct crypt_data data; /* 32 KiB: not on the stack */
	const char *out;

	memset(&data, 0, sizeof(data));
	out = crypt_r(password, hash, &data);
	/* (libcrypt's failure tokens begin with '*', which no bcrypt hash does) */
	return out && out[0] == '$' && same_secret(hash, out);
}

enum auth { AUTH_OK, AUTH_REFUSED, AUTH_BUSY };

/*
 * Basic auth against --web.config.file's users, for client `c`. A password that matched once is
 * compared with the one remembered (in constant time), never checked with bcrypt again; others
 * are checked within the budgets (password_budget.h), or not (AUTH_BUSY, *retry_after_s).
 */
static enum auth authenticate(struct http_state *st, struct http_client *c,
			      unsigned int *retry_after_s)
{
	char *password = NULL, *name = MHD_basic_auth_get_username_password(c->conn, &password);
	const struct web_user *user = NULL;
	struct password_client *budget;
	enum auth result = AUTH_REFUSED;
	double began;
	int u;

	if (!name || !password)
		goto out;
	for (u = 0; u < st->web.nr_users && !user; u++)
		if (!strcmp(st->web.users[u].name, name))
			user = &st->web.users[u];
	u--;
	/* The right password again (a scraper's, every scrape): no bcrypt. */
	if (user && st->verified[u].set && same_digest(&st->verified[u], password)) {
		result = AUTH_OK;
		goto out;
	}
	if (!password_check_allowed(&st->budgets, &c->key, monotonic_now(), &budget,
				    retry_after_s)) {
		result = AUTH_BUSY;
		goto out;
	}
	/* (the CPU time a check takes: the same whatever else the host runs meanwhile) */
	began = thread_cpu_now();
	/* An unknown user costs a check too, so that the time does not tell which users exist. */
	if (bcrypt_matches(user ? user->hash : st->web.users[0].hash, password) && user) {
		st->verified[u].set = true;
		sha256(password, strlen(password), st->verified[u].digest);
		result = AUTH_OK;
	}
	password_check_spent(&st->budgets, budget, thread_cpu_now() - began);
out:
	if (password) {
		explicit_bzero(password, strlen(password));
		MHD_free(password);
	}
	if (name)
		MHD_free(name);
	return result;
}

/* The scrapes waiting: let them be answered (from a read made since they arrived). */
static void resume_waiting(struct http_state *st)
{
	for (int i = 0; i < CLIENT_SLOTS; i++) {
		struct http_client *c = &st->clients[i];

		if (c->used && c->suspended) {
			c->suspended = false;
			MHD_resume_connection(c->conn);
		}
	}
	st->nr_suspended = 0;
}

/* The scrapes' read: for those waiting too. */
static void shared_read(struct http_state *st, double now)
{
	st->last_read = now;
	if (st->read(st->ctx))
		st->failed_at = now;
	resume_waiting(st);
}

static void answer_put(struct answer_text *answer)
{
	if (answer && !--answer->refs)
		free(answer);
}

/* libmicrohttpd takes the next part of an answer's text to send: the connection's progress. */
static ssize_t read_answer(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct answer_reader *reader = cls;
	const struct answer_text *text = reader->answer;
	size_t n;

	if (pos >= text->len)
		return MHD_CONTENT_READER_END_OF_STREAM;
	n = text->len - pos < max ? text->len - pos : max;
	memcpy(buf, text->text + pos, n);
	reader->client->sent = pos + n;
	return (ssize_t)n;
}

static void drop_reader(void *cls)
{
	struct answer_reader *reader = cls;

	answer_put(reader->answer);
	free(reader);
}

/* Send `answer` to `c`, within the limits of answers being sent. */
static enum MHD_Result send_answer(struct http_state *st, struct http_client *c,
				   struct answer_text *text)
{
	struct answer_reader *reader = malloc(sizeof(*reader));
	struct MHD_Response *response = NULL;
	enum MHD_Result ret;

	if (reader) {
		*reader = (struct answer_reader){text, c};
		text->refs++;
		response = MHD_create_response_from_callback(text->len, ANSWER_BLOCK, read_answer,
							     reader, drop_reader);
		if (!response)
			drop_reader(reader);
	}
	if (!response)
		return MHD_NO; /* out of memory: MHD closes the connection */
	MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE,
				c->openmetrics ? FS_OPENMETRICS_CONTENT_TYPE
					       : FS_PROMETHEUS_CONTENT_TYPE);
	ret = MHD_queue_response(c->conn, MHD_HTTP_OK, response);
	MHD_destroy_response(response);
	if (ret == MHD_YES) {
		make_room_for_answer(st, c, monotonic_now());
		c->holds_answer = true;
		bound_set_entries(BOUND_ANSWERS, ++st->nr_answers);
	}
	return ret;
}

/* /metrics: from a read made after the request arrived, the next one if none yet. */
static enum MHD_Result answer_metrics(struct http_state *st, struct http_client *c)
{
	static const char failed[] = "foliostat failed to read its maps\n";
	int f = c->openmetrics;
	double now = monotonic_now();
	const char *text;
	size_t len;

	if (st->answer_read[f] < c->arrived && st->last_read < c->arrived &&
	    st->failed_at < c->arrived) {
		if (now < st->last_read + HTTP_SHARE_MS / 1000.0) {
			MHD_suspend_connection(c->conn);
			c->suspended = true;
			st->nr_suspended++;
			return MHD_YES;
		}
		shared_read(st, now);
	}
	if (st->failed_at >= c->arrived)
		return answer(c->conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8",
			      failed, sizeof(failed) - 1);
	if (st->answer_read[f] < c->arrived) {
		struct answer_text *fresh = NULL;

		if (!st->render(st->ctx, f, &text, &len))
			fresh = malloc(sizeof(*fresh) + len);
		if (!fresh)
			return answer(c->conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				      "text/plain; charset=utf-8", failed, sizeof(failed) - 1);
		*fresh = (struct answer_text){.refs = 1, .len = len};
		memcpy(fresh->text, text, len);
		/* The last text goes once the connections sending it are done with it. */
		answer_put(st->answers[f]);
		st->answers[f] = fresh;
		st->answer_read[f] = st->last_read;
	}
	return send_answer(st, c, st->answers[f]);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **state)
{
	static const char not_found[] = "Not found: foliostat serves /metrics\n";
	static const char not_allowed[] = "Method not allowed\n";
	static const char unauthorized[] = "Unauthorized\n";
	static const char busy[] = "Too many password checks: try again after Retry-After\n";
	struct http_state *st = cls;
	const union MHD_ConnectionInfo *info;
	struct http_client *c = *state;
	const char *accept;

	(void)version, (void)upload_data;
	if (c) { /* resumed: a read has been made since it arrived */
		c->suspended = false;
		return c->closing ? MHD_NO : answer_metrics(st, c);
	}
	info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	c = info ? info->socket_context : NULL;
	/* (a connection closed for room may still have a request queued: it is not served) */
	if (!c || c->closing)
		return MHD_NO;
	*state = c;
	c->arrived = c->since = monotonic_now();
	c->sent = 0;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		*upload_data_size = 0; /* a body is not read: the connection closes after this */
		return answer(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8",
			      not_allowed, sizeof(not_allowed) - 1);
	}
	if (st->web.nr_users) {
		unsigned int retry_after_s = 1;

		switch (authenticate(st, c, &retry_after_s)) {
		case AUTH_OK:
			break;
		case AUTH_REFUSED:
			return answer(conn, MHD_HTTP_UNAUTHORIZED, "text/plain; charset=utf-8",
				      unauthorized, sizeof(unauthorized) - 1);
		case AUTH_BUSY:
			return answer_with(conn, MHD_HTTP_TOO_MANY_REQUESTS,
					   "text/plain; charset=utf-8", busy, sizeof(busy) - 1,
					   retry_after_s);
		}
	}
	if (!strcmp(url, "/"))
		return answer(conn, MHD_HTTP_OK, "text/html; charset=utf-8", index_page,
			      sizeof(index_page) - 1);
	if (strcmp(url, "/metrics"))
		return answer(conn, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8", not_found,
			      sizeof(not_found) - 1);
	accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	c->openmetrics = accept && accepts_openmetrics(accept);
	return answer_metrics(st, c);
}

/* libmicrohttpd's own messages (a client's broken request, say) are of no use to the person
 * running foliostat: they are dropped. */
static void quiet_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls, (void)fmt, (void)ap;
}

static int start_daemon(struct http_server *srv, char *err, size_t err_len)
{
	struct http_state *st = srv->state;
	const struct web_config *web = &st->web;
	char *cert = NULL, *key = NULL;
	bool tls = web->cert_file != NULL;
	unsigned int flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME;

	if (tls) {
		if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
			snprintf(err, err_len,
				 "failed to serve TLS: this libmicrohttpd is built without it");
			return -1;
		}
		cert = read_pem(web->cert_file, "certificate", err, err_len);
		key = cert ? read_pem(web->key_file, "key", err, err_len) : NULL;
		if (!key) {
			free(cert);
			return -1;
		}
		flags |= MHD_USE_TLS;
	}
	/* No thread of its own (external polling, with epoll): see http_server.h. The TLS
	 * options come last, ended early without TLS. */
	errno = 0;
	st->daemon = MHD_start_daemon(
	    flags, 0, NULL, NULL, on_request, st, MHD_OPTION_EXTERNAL_LOGGER, quiet_log, NULL,
	    MHD_OPTION_LISTEN_SOCKET, srv->listen_fd, MHD_OPTION_CONNECTION_LIMIT,
	    (unsigned int)CLIENT_SLOTS, MHD_OPTION_CONNECTION_TIMEOUT,
	    (unsigned int)CONNECTION_TIMEOUT_S, MHD_OPTION_NOTIFY_CONNECTION, on_connection, st,
	    MHD_OPTION_NOTIFY_COMPLETED, on_completed, st,
	    tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, cert, MHD_OPTION_HTTPS_MEM_KEY, key,
	    MHD_OPTION_END);
	if (key) {
		explicit_bzero(key, strlen(key));
		free(key);
	}
	free(cert);
	if (!st->daemon) {
		if (tls)
			snprintf(
			    err, err_len,
			    "failed to start the HTTPS server: the certificate '%s' or the key "
			    "'%s' is not PEM, or they are not a pair",
			    web->cert_file, web->key_file);
		else
			snprintf(err, err_len, "failed to start the HTTP server: %s",
				 errno ? strerror(errno) : "libmicrohttpd refused its options");
		return -1;
	}
	srv->listen_fd = -1; /* the daemon's now: it closes it when stopped */
	return 0;
}

int http_server_open(struct http_server *srv, const struct http_settings *settings,
		     http_read_fn read, http_render_fn render, void *ctx, char *err, size_t err_len)
{
	struct http_state *st = calloc(1, sizeof(*st));
	int ret = 1;

	*srv = (struct http_server){.listen_fd = -1, .state = st};
	if (!st) {
		snprintf(err, err_len, "failed to allocate: %s", strerror(ENOMEM));
		return 1;
	}
	*st = (struct http_state){.read = read,
				  .render = render,
				  .ctx = ctx,
				  .failed_at = -1,
				  .answer_read = {-1, -1},
				  .last_read = -1};
	password_budgets_init(&st->budgets, monotonic_now());
	bound_set_limit(BOUND_CONNECTIONS, MAX_CONNECTIONS);
	bound_set_limit(BOUND_ANSWERS, MAX_ANSWERS);
	if (settings->web_config &&
	    (ret = web_config_load(settings->web_config, &st->web, err, err_len)))
		goto fail;
	ret = 1;
	st->verified = calloc(st->web.nr_users + 1, sizeof(*st->verified));
	if (!st->verified) {
		snprintf(err, err_len, "failed to allocate: %s", strerror(ENOMEM));
		goto fail;
	}
	if (listen_on(srv, settings->addr, settings->addr_len, err, err_len) ||
	    start_daemon(srv, err, err_len))
		goto fail;
	return 0;
fail:
	http_server_stop(srv);
	return ret;
}

int http_server_fd(const struct http_server *srv)
{
	const union MHD_DaemonInfo *info =
	    MHD_get_daemon_info(srv->state->daemon, MHD_DAEMON_INFO_EPOLL_FD);

	return info ? info->epoll_fd : -1;
}

int http_server_timeout_ms(const struct http_server *srv)
{
	const struct http_state *st = srv->state;
	MHD_UNSIGNED_LONG_LONG ms;
	int timeout = -1;

	if (MHD_get_timeout(st->daemon, &ms) == MHD_YES)
		timeout = ms > 60000 ? 60000 : (int)ms;
	if (st->nr_suspended) {
		double left = st->last_read + HTTP_SHARE_MS / 1000.0 - monotonic_now();
		int read_ms = left > 0 ? (int)(left * 1000) + 1 : 0;

		if (timeout < 0 || read_ms < timeout)
			timeout = read_ms;
	}
	return timeout;
}

void http_server_run(struct http_server *srv)
{
	struct http_state *st = srv->state;
	double now;

	MHD_run(st->daemon);
	now = monotonic_now();
	trim_aged_answers(st, now);
	if (st->nr_suspended && now >= st->last_read + HTTP_SHARE_MS / 1000.0) {
		shared_read(st, now);
		MHD_run(st->daemon);
	}
}

void http_server_stop(struct http_server *srv)
{
	struct http_state *st = srv->state;

	if (st) {
		if (st->daemon) {
			resume_waiting(st); /* (libmicrohttpd stops with none suspended) */
			MHD_stop_daemon(st->daemon);
		}
		for (int f = 0; f < 2; f++)
			answer_put(st->answers[f]);
		/* Only the socket this foliostat made: another may have replaced it since. */
		if (st->unix_path) {
			struct stat sb;

			if (!stat(st->unix_path, &sb) && sb.st_dev == st->unix_dev &&
			    sb.st_ino == st->unix_ino)
				unlink(st->unix_path);
			free(st->unix_path);
		}
		if (st->verified)
			explicit_bzero(st->verified, st->web.nr_users * sizeof(*st->verified));
		free(st->verified);
		web_config_free(&st->web);
		free(st);
	}
	if (srv->listen_fd >= 0) /* never started */
		close(srv->listen_fd);
	*srv = (struct http_server){.listen_fd = -1};
}
