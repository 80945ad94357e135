/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How much time checking passwords may take (bcrypt costs tens of milliseconds by design), so
 * that guessers can neither keep the loader busy nor, from a few addresses, keep a scraper's
 * first check out. (More addresses than about a dozen, at full rate, spend the shared budget:
 * addresses are all a TCP peer is known by here; foliostat(8) says so.)
 *
 * All checks together take at most PASSWORD_CHECK_SHARE of a CPU, after a first
 * PASSWORD_CHECK_BURST_S. Under that, each client (address, or uid on a Unix socket) has a
 * budget of its own, a sixteenth of the shared rate: a few clients guessing as fast as they
 * may leave most of the shared budget to the others, so a scraper's check is made at once
 * however fast they guess. The clients are remembered in a table of PASSWORD_CLIENTS, the
 * least recently seen giving its place to a new one (its budget then starts full again).
 * A password that matched once is not checked with bcrypt again (http_server.c): only a
 * scraper's first check after start-up needs the budget.
 *
 * Budgets count a check's CPU time, so that what a client may do does not depend on what else
 * the host runs. Pure: the caller gives the time, so that the unit tests can.
 */
#ifndef FS_PASSWORD_BUDGET_H
#define FS_PASSWORD_BUDGET_H

#include <stdbool.h>

#include "client_key.h"

#define PASSWORD_CHECK_SHARE 0.1
#define PASSWORD_CHECK_BURST_S 1.0
#define PASSWORD_CLIENT_SHARE (PASSWORD_CHECK_SHARE / 16)
#define PASSWORD_CLIENT_BURST_S 0.05
#define PASSWORD_CLIENTS 64

/* Seconds of checking left (negative: owed), refilled at a share of a CPU up to a burst. */
struct check_budget {
	double left_s, refilled;
};

struct password_client {
	struct client_key key;
	struct check_budget budget;
	double seen; /* the last time it asked for a check; 0: a free entry */
};

struct password_budgets {
	struct check_budget all;
	int nr_clients;
	struct password_client clients[PASSWORD_CLIENTS];
};

void password_budgets_init(struct password_budgets *b, double now);
/*
 * Whether `key` may have a password checked now. Yes: *client is its entry, to charge with
 * password_check_spent(). No: *retry_after_s is the whole seconds (1 at least) after which its
 * own budget, and the shared one as it stands, allow one (the Retry-After of the 429).
 */
bool password_check_allowed(struct password_budgets *b, const struct client_key *key, double now,
			    struct password_client **client, unsigned int *retry_after_s);
/* A check allowed to `client` took `spent_s` seconds. */
void password_check_spent(struct password_budgets *b, struct password_client *client,
			  double spent_s);

#endif /* FS_PASSWORD_BUDGET_H */
