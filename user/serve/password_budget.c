// SPDX-License-Identifier: GPL-2.0
/* The password checks' budgets: shared, and per client (see password_budget.h). */
#include "password_budget.h"

#include <math.h>

#include "bounds.h"

static void refill(struct check_budget *budget, double rate, double burst, double now)
{
	budget->left_s += (now - budget->refilled) * rate;
	if (budget->left_s > burst)
		budget->left_s = burst;
	budget->refilled = now;
}

/* Seconds until a budget refilled at `rate` has some left again (0: it has now). */
static double wait_for(const struct check_budget *budget, double rate)
{
	return budget->left_s > 0 ? 0 : -budget->left_s / rate;
}

void password_budgets_init(struct password_budgets *b, double now)
{
	*b = (struct password_budgets){.all = {PASSWORD_CHECK_BURST_S, now}};
	bound_set_limit(BOUND_PASSWORD_CLIENTS, PASSWORD_CLIENTS);
	bound_set_entries(BOUND_PASSWORD_CLIENTS, 0);
}

/* Its entry: found, free, or the least recently seen one's (an eviction). */
static struct password_client *entry_of(struct password_budgets *b, const struct client_key *key,
					double now)
{
	struct password_client *oldest = NULL, *free = NULL;

	for (int i = 0; i < PASSWORD_CLIENTS; i++) {
		struct password_client *c = &b->clients[i];

		if (!c->seen) {
			free = free ? free : c;
			continue;
		}
		if (same_client(&c->key, key))
			return c;
		if (!oldest || c->seen < oldest->seen)
			oldest = c;
	}
	if (free) {
		bound_set_entries(BOUND_PASSWORD_CLIENTS, ++b->nr_clients);
	} else {
		free = oldest;
		bound_evicted(BOUND_PASSWORD_CLIENTS, 1);
	}
	*free = (struct password_client){
	    .key = *key, .budget = {PASSWORD_CLIENT_BURST_S, now}, .seen = now};
	return free;
}

bool password_check_allowed(struct password_budgets *b, const struct client_key *key, double now,
			    struct password_client **client, unsigned int *retry_after_s)
{
	struct password_client *c = entry_of(b, key, now);
	double wait;

	c->seen = now;
	refill(&c->budget, PASSWORD_CLIENT_SHARE, PASSWORD_CLIENT_BURST_S, now);
	refill(&b->all, PASSWORD_CHECK_SHARE, PASSWORD_CHECK_BURST_S, now);
	if (c->budget.left_s > 0 && b->all.left_s > 0) {
		*client = c;
		return true;
	}
	wait = fmax(wait_for(&c->budget, PASSWORD_CLIENT_SHARE),
		    wait_for(&b->all, PASSWORD_CHECK_SHARE));
	/* (a whole second more than the exact time: the budget must be above 0, not at it) */
	*retry_after_s = (unsigned int)fmin(floor(wait) + 1, 86400);
	*client = NULL;
	return false;
}

void password_check_spent(struct password_budgets *b, struct password_client *client,
			  double spent_s)
{
	client->budget.left_s -= spent_s;
	b->all.left_s -= spent_s;
}
