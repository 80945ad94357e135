// SPDX-License-Identifier: GPL-2.0
/*
 * churn: keep up to N processes alive and active, for the loader's cost with a full table. Each
 * child drops and re-touches one page every second (one fault and one allocation a second), so
 * all stay in foliostat's table from window to window. Runs until SIGTERM or SIGINT.
 *
 * The children's seconds are spread over the second (child i wakes at the fraction i times the
 * golden ratio of it, even for any number started), and they are stopped a batch at a time: N processes waking together, or exiting together, would
 * leave thousands of tasks queued at once. And they are started a batch at a time, each batch
 * given two of its seconds: when the children wake more than a quarter second late, the host
 * cannot keep this many, and no more are started (a small host, a 2-CPU VM that flushes its
 * TLB at every switch, was swamped by 10,000: a load average of thousands). It says how many
 * it keeps, on standard error and in the file CHURN_STARTED names (for the bench).
 *
 *   churn N
 */
#define _GNU_SOURCE
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_SEC 1000000000L
#define BATCH 250
#define LATE_NS (NSEC_PER_SEC / 4)

/* Each child's lateness at its last wake-up (ns), where the parent reads it. */
static volatile long *late_ns;

static void child(int i, const struct timespec *base, long offset_ns)
{
	long page = sysconf(_SC_PAGESIZE);
	char *mem = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct timespec next = *base, now;

	if (mem == MAP_FAILED)
		_exit(1);
	next.tv_nsec += offset_ns;
	if (next.tv_nsec >= NSEC_PER_SEC) {
		next.tv_nsec -= NSEC_PER_SEC;
		next.tv_sec++;
	}
	/* Forked late (forking them all took over a second): the next turn of its own phase. */
	clock_gettime(CLOCK_MONOTONIC, &now);
	while (next.tv_sec < now.tv_sec || (next.tv_sec == now.tv_sec && next.tv_nsec < now.tv_nsec))
		next.tv_sec++;
	for (;;) {
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		late_ns[i] = (now.tv_sec - next.tv_sec) * NSEC_PER_SEC + now.tv_nsec - next.tv_nsec;
		mem[0] = 1;
		madvise(mem, page, MADV_DONTNEED);
		next.tv_sec++;
	}
}

/* The latest any of children[0..n) woke at its last turn. */
static long latest(int n)
{
	long most = 0;

	for (int i = 0; i < n; i++)
		if (late_ns[i] > most)
			most = late_ns[i];
	return most;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000, started = 0;
	const char *report = getenv("CHURN_STARTED");
	long behind = 0;
	pid_t *children;
	struct timespec base;
	sigset_t set;
	int sig;

	if (n < 1 || !(children = calloc(n, sizeof(*children)))) {
		fprintf(stderr, "usage: churn N (N >= 1)\n");
		return 2;
	}
	late_ns = mmap(NULL, n * sizeof(*late_ns), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (late_ns == MAP_FAILED) {
		perror("churn: mmap");
		return 1;
	}
	/* Block the stop signals before forking: children restore them, the parent waits for
	 * one (sigtimedwait between batches: a stop while starting them is heard too). */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	/* The children's first wake-up is a second from now. */
	clock_gettime(CLOCK_MONOTONIC, &base);
	base.tv_sec += 1;
	for (sig = 0; started < n && !sig;) {
		int end = started + BATCH < n ? started + BATCH : n;
		struct timespec two_turns = {2, 0};

		for (; started < end; started++) {
			pid_t pid = fork();

			if (pid == 0) {
				sigprocmask(SIG_UNBLOCK, &set, NULL);
				child(started, &base,
				      (long)(fmod(started * 0.6180339887498949, 1.0) * NSEC_PER_SEC));
			}
			if (pid < 0) {
				perror("churn: fork");
				n = started;
				break;
			}
			children[started] = pid;
		}
		sig = sigtimedwait(&set, NULL, &two_turns);
		if (sig < 0)
			sig = 0;
		behind = latest(started);
		if (behind > LATE_NS)
			break;
	}
	fprintf(stderr, "churn: %d processes%s (woken up to %ld ms late)\n", started,
		started < n ? ", as many as this host keeps up with" : "", behind / 1000000);
	if (report) {
		FILE *f = fopen(report, "w");

		if (f) {
			fprintf(f, "%d\n", started);
			fclose(f);
		}
	}
	if (!sig)
		sigwait(&set, &sig);
	for (int first = 0; first < started; first += BATCH) {
		int end = first + BATCH < started ? first + BATCH : started;

		for (int i = first; i < end; i++)
			kill(children[i], SIGKILL);
		for (int i = first; i < end; i++)
			waitpid(children[i], NULL, 0);
	}
	free(children);
	return 0;
}
