// SPDX-License-Identifier: GPL-2.0
/* Password checks' budgets: guessers use their own, not the scraper's (password_budget.h). */
#include <sys/socket.h>

#include "bounds.h"
#include "password_budget.h"
#include "unit.h"

static struct password_budgets budgets;

static struct client_key ipv4(unsigned char last)
{
	return (struct client_key){.family = AF_INET, .addr = {127, 0, 0, last}};
}

/* One check for `key` at `now` taking `cost` seconds, if allowed; else its Retry-After. */
static bool check(struct client_key key, double now, double cost, unsigned int *retry)
{
	struct password_client *c;

	if (!password_check_allowed(&budgets, &key, now, &c, retry))
		return false;
	password_check_spent(&budgets, c, cost);
	return true;
}

/* Four guessers as fast as they may for a minute: a newcomer's check is made at any moment. */
static bool guessers_leave_room_for_a_newcomer(void)
{
	unsigned int retry;
	int made = 0;

	password_budgets_init(&budgets, 1000);
	for (double t = 1000; t < 1060; t += 0.01)
		for (unsigned char a = 2; a <= 5; a++)
			made += check(ipv4(a), t, 0.08, &retry);
	/* each: its first check, then a sixteenth of a tenth of a CPU (80 ms every 12.8 s) */
	if (!ASSERT_TRUE(made >= 4 && made <= 4 * (1 + 60 / 12.8 + 1)))
		return false;
	return ASSERT_TRUE(check(ipv4(1), 1060, 0.08, &retry));
}

/* Retry-After is when the client may have a check: not before, and then yes. */
static bool retry_after_says_when(void)
{
	unsigned int retry = 0, again = 0;

	password_budgets_init(&budgets, 50);
	if (!ASSERT_TRUE(check(ipv4(2), 50, 0.08, &retry)) ||
	    !ASSERT_TRUE(!check(ipv4(2), 50.001, 0.08, &retry)))
		return false;
	/* 30 ms owed at 6.25 ms a second: 4.8 s, said as 5 */
	return ASSERT_EQ(retry, 5) && ASSERT_TRUE(!check(ipv4(2), 50 + 4.7, 0.08, &again)) &&
	       ASSERT_EQ(again, 1) && ASSERT_TRUE(check(ipv4(2), 50.001 + retry, 0.08, &retry));
}

/* Many addresses together cannot take more than the shared budget: a tenth of a CPU after a
 * first second. */
static bool the_shared_budget_bounds_all(void)
{
	unsigned int retry;
	int made = 0;

	password_budgets_init(&budgets, 10);
	for (int i = 0; i < 1000; i++)
		made += check(ipv4((unsigned char)(i % 200 + 2)), 10 + i * 0.01, 0.1, &retry);
	/* 10 s: 1 s + 1 s of checks of 0.1 s, and the one under way */
	return ASSERT_TRUE(made <= 21);
}

/* The table holds PASSWORD_CLIENTS, the least recently seen giving its place; bounds.h says so. */
static bool the_table_is_bounded(void)
{
	struct bound_count counts[FS_NR_BOUNDS];
	unsigned int retry;
	uint64_t evicted;

	password_budgets_init(&budgets, 10);
	bounds_read(counts);
	evicted = counts[BOUND_PASSWORD_CLIENTS].evictions;
	for (int i = 0; i < PASSWORD_CLIENTS + 10; i++)
		check(ipv4((unsigned char)i), 10 + i * 0.001, 0, &retry);
	bounds_read(counts);
	return ASSERT_EQ(counts[BOUND_PASSWORD_CLIENTS].limit, PASSWORD_CLIENTS) &&
	       ASSERT_EQ(counts[BOUND_PASSWORD_CLIENTS].entries, PASSWORD_CLIENTS) &&
	       ASSERT_EQ(counts[BOUND_PASSWORD_CLIENTS].evictions - evicted, 10);
}

const struct unit_test password_budget_tests[] = {
    UNIT_TEST(guessers_leave_room_for_a_newcomer),
    UNIT_TEST(retry_after_says_when),
    UNIT_TEST(the_shared_budget_bounds_all),
    UNIT_TEST(the_table_is_bounded),
    {},
};
