// SPDX-License-Identifier: GPL-2.0
/*
 * churn: keep N processes alive and active, for the loader's cost with a full table. Each child
 * drops and re-touches one page every second (one fault and one allocation a second), so all N
 * stay in foliostat's table from window to window. Runs until SIGTERM, which it passes on.
 *
 *   churn N
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void child(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *mem = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		_exit(1);
	for (;;) {
		mem[0] = 1;
		madvise(mem, page, MADV_DONTNEED);
		sleep(1);
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;

	/* Children die with us: the whole group gets the signal. */
	setpgid(0, 0);
	signal(SIGTERM, SIG_IGN);
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			signal(SIGTERM, SIG_DFL);
			child();
		}
		if (pid < 0) {
			perror("churn: fork");
			break;
		}
	}
	fprintf(stderr, "churn: %d processes\n", n);
	{
		sigset_t set;
		int sig;

		sigemptyset(&set);
		sigaddset(&set, SIGTERM);
		sigaddset(&set, SIGINT);
		sigprocmask(SIG_BLOCK, &set, NULL);
		signal(SIGTERM, SIG_DFL);
		sigwait(&set, &sig);
	}
	kill(0, SIGTERM);
	while (wait(NULL) > 0)
		;
	return 0;
}
