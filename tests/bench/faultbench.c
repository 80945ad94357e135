// SPDX-License-Identifier: GPL-2.0
/*
 * faultbench: a page_fault1-style loop for the overhead benchmark. Each thread maps 128 MiB of
 * anonymous memory with THP off, touches every page (one fault and one order-0 allocation
 * each), unmaps it, and repeats until SECONDS have passed. Prints one JSON line:
 * {"threads": N, "seconds": S, "faults": F, "faults_per_s": R}
 *
 *   faultbench SECONDS [THREADS]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define REGION (128UL << 20)

static double deadline;
static long page_size;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *fault_loop(void *arg)
{
	unsigned long *faults = arg;

	while (now() < deadline) {
		char *mem =
		    mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (mem == MAP_FAILED) {
			perror("faultbench: mmap");
			exit(1);
		}
		madvise(mem, REGION, MADV_NOHUGEPAGE);
		for (unsigned long off = 0; off < REGION; off += page_size)
			mem[off] = 1;
		munmap(mem, REGION);
		*faults += REGION / page_size;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5, start;
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	unsigned long faults[256] = {0}, total = 0;
	pthread_t tids[256];

	if (seconds <= 0 || threads < 1 || threads > 256) {
		fprintf(stderr, "usage: faultbench SECONDS [THREADS (1-256)]\n");
		return 2;
	}
	page_size = sysconf(_SC_PAGESIZE);
	start = now();
	deadline = start + seconds;
	for (int i = 0; i < threads; i++)
		pthread_create(&tids[i], NULL, fault_loop, &faults[i]);
	for (int i = 0; i < threads; i++) {
		pthread_join(tids[i], NULL);
		total += faults[i];
	}
	seconds = now() - start;
	printf("{\"threads\": %d, \"seconds\": %.3f, \"faults\": %lu, \"faults_per_s\": %.0f}\n",
	       threads, seconds, total, total / seconds);
	return 0;
}
