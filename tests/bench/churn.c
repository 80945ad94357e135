// SPDX-License-Identifier: GPL-2.0
/*
 * churn: keep N processes alive and active, for the loader's cost with a full table. Each child
 * drops and re-touches one page every second (one fault and one allocation a second), so all N
 * stay in foliostat's table from window to window. Runs until SIGTERM or SIGINT.
 *
 * The children's seconds are spread evenly over the second (child i wakes at i/N of it), and
 * they are stopped a batch at a time: N processes waking together, or exiting together, would
 * leave thousands of tasks queued at once, which a small host (a 2-CPU VM that flushes its TLB
 * at every switch) does not work off within the second.
 *
 *   churn N
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_SEC 1000000000L
#define STOP_BATCH 250

static void child(const struct timespec *base, long offset_ns)
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
		mem[0] = 1;
		madvise(mem, page, MADV_DONTNEED);
		next.tv_sec++;
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000, started = 0;
	pid_t *children;
	struct timespec base;
	sigset_t set;
	int sig;

	if (n < 1 || !(children = calloc(n, sizeof(*children)))) {
		fprintf(stderr, "usage: churn N (N >= 1)\n");
		return 2;
	}
	/* Block the stop signals before forking: children restore them, the parent waits for
	 * one. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	/* The children's first wake-up is a second from now, so forking them all comes first. */
	clock_gettime(CLOCK_MONOTONIC, &base);
	base.tv_sec += 1;
	for (; started < n; started++) {
		pid_t pid = fork();

		if (pid == 0) {
			sigprocmask(SIG_UNBLOCK, &set, NULL);
			child(&base, (long)((long long)started * NSEC_PER_SEC / n));
		}
		if (pid < 0) {
			perror("churn: fork");
			break;
		}
		children[started] = pid;
	}
	fprintf(stderr, "churn: %d processes\n", started);
	sigwait(&set, &sig);
	for (int first = 0; first < started; first += STOP_BATCH) {
		int end = first + STOP_BATCH < started ? first + STOP_BATCH : started;

		for (int i = first; i < end; i++)
			kill(children[i], SIGKILL);
		for (int i = first; i < end; i++)
			waitpid(children[i], NULL, 0);
	}
	free(children);
	return 0;
}
