// SPDX-License-Identifier: GPL-2.0
/*
 * The workload the integration tests drive: each action does memory work whose folio activity
 * is known in advance, then prints one JSON line of what it did and what it measured itself
 * (its pid, pages touched, page-cache residency before and after), for the tests to compare
 * with foliostat's figures.
 *
 *   workload [--name HEX] [--linger SECS] thp MIB     touch MIB of MADV_HUGEPAGE memory, and
 *                                                   count the huge pages it got
 *   workload [--name HEX] [--linger SECS] pages N     touch N pages with THP off
 *   workload [--name HEX] [--linger SECS] reserve MIB,HEAD[,TAIL]   reserve MIB (MAP_NORESERVE),
 *                                                        touch its first HEAD and last TAIL pages
 *   workload [--name HEX] [--linger SECS] thphalf MIB  as thp MIB, then MADV_DONTNEED the
 *                                                        second half of every 2 MiB
 *   workload [--name HEX] [--linger SECS] sparsecollapse MIB   one page touched per 2 MiB,
 *                                                        then MADV_COLLAPSE (zero-filled pages)
 *   workload [--name HEX] [--linger SECS] mapheld FILE  drop FILE from the cache, say so, wait
 *                                                        for a byte on stdin, then map it and
 *                                                        touch every page (the mapping stays)
 *   workload [--name HEX] [--linger SECS] read FILE   drop FILE from the cache, read it all
 *   workload [--name HEX] [--linger SECS] mapread FILE   drop FILE from the cache, map it and
 *                                                        read one byte of each page
 *   workload [--name HEX] [--linger SECS] collapse MIB   populate MIB of 2 MiB-aligned memory
 *                                                        with small pages, then MADV_COLLAPSE,
 *                                                        and count the huge pages it got
 *   workload [--name HEX] [--linger SECS] compact NODE   scatter 8192 pages of its own, then
 *                                                        compact every zone of NUMA node NODE,
 *                                                        in this process (needs root)
 *   workload [--name HEX] [--linger SECS] tlbflip N      flip a page read-only and back N times
 *                                                        while other threads keep reading it
 *   workload [--name HEX] [--linger SECS] forks N        fork N short-lived children one after
 *                                                        another, each touching 4 pages
 *   workload [--name HEX] [--linger SECS] idle N         fork N children that wait (and end
 *                                                        with it, or in ten minutes)
 *   workload [--name HEX] [--linger SECS] ring N         8 processes on CPU 0 pass a token round
 *                                                        a ring of pipes N times
 *   workload [--name HEX] [--linger SECS] hop N          a new thread touches N pages with THP
 *                                                        off, moving to the next CPU after each
 *   workload [--name HEX] [--linger SECS] reuse A,B[,hold]   a child touches A pages and exits,
 *                                                        then a second one takes its pid and
 *                                                        touches B (needs root)
 *   workload [--name HEX] [--linger SECS] collapse_file MIB   write MIB of a memfd (shmem)
 *                                                        through a 2 MiB-aligned shared mapping,
 *                                                        then MADV_COLLAPSE it
 *   workload [--name HEX] [--linger SECS] tlbrange N     N times: zap 8 touched pages (a ranged
 *                                                        flush) and 512 (a full one), THP off
 *   workload [--name HEX] [--linger SECS] reread FILE    drop FILE from the cache, read it twice
 *                                                        on one CPU (the second read activates)
 *   workload [--name HEX] [--linger SECS] starve MAX     have hugetlb take every free 2 MiB block,
 *                                                        then one more at a time (MAX at most)
 *                                                        until direct reclaim ran (needs root)
 *   workload [--name HEX] [--linger SECS] threads N,PAGES   N threads, all alive while any
 *                                                        works, each touch PAGES pages (THP
 *                                                        off)
 *   workload [--name HEX] [--linger SECS] bound NODE,PAGES[,hold][,thp]   bind its memory to NUMA
 *                                                        node NODE, then a child touches PAGES
 *                                                        pages (THP off, or with "thp" advised
 *                                                        for it; "hold": it waits for a line on
 *                                                        stdin once they are touched)
 *   workload moved N,PAGES    N threads (the leader among them) fault, then the process stops
 *                             for the test to move it (see action_moved); then every thread
 *                             but the leader touches PAGES pages
 *
 * --name sets the process name to the given bytes (hex), to test hostile names; --in-cgroup DIR
 * runs the action in a child born in cgroup DIR. --pace SECS spreads the memory work of thp,
 * pages, read and collapse over about SECS seconds (a sleep after each 2 MiB), as a program
 * that ramps up would: a scraper then sees its counts grow (the docs' pictures).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/sched.h>
#include <signal.h>
#include <unistd.h>

#define HUGE_SIZE (2UL << 20)
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* Linux 6.1; older C libraries do not name it */
#endif

static long page_size;
static double pace; /* --pace: seconds to spread the work over (0: at once) */

/* After `done` of `total` bytes of work, in steps of 2 MiB: sleep the step's share of --pace. */
static void paced(size_t done, size_t total)
{
	size_t steps = total > HUGE_SIZE ? total / HUGE_SIZE : 1;

	if (pace > 0 && total && done % HUGE_SIZE == 0)
		usleep((useconds_t)(pace * 1e6 / (double)steps));
}

static void die(const char *what)
{
	fprintf(stderr, "workload: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void touch(char *mem, size_t len)
{
	for (size_t off = 0; off < len; off += page_size) {
		((volatile char *)mem)[off] = 1;
		paced(off + page_size, len);
	}
}

/* Fresh anonymous memory with THP off: every page a touch faults in is one order-0 folio. */
static char *map_small_pages(size_t len)
{
	char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		die("mmap");
	if (madvise(mem, len, MADV_NOHUGEPAGE))
		die("madvise(MADV_NOHUGEPAGE)");
	return mem;
}

/* Touch `pages` fresh anonymous pages with THP off: one order-0 folio per page. */
static void action_pages_quiet(long pages)
{
	size_t len = (size_t)pages * page_size;

	touch(map_small_pages(len), len);
}

/* Anonymous memory aligned to the PMD size, so every 2 MiB can be one order-9 folio. */
static char *map_aligned(size_t len)
{
	char *raw =
	    mmap(NULL, len + HUGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (raw == MAP_FAILED)
		die("mmap");
	return (char *)(((uintptr_t)raw + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1));
}

/* The same, advised for THP (MADV_HUGEPAGE): every 2 MiB a THP fault can take whole. */
static char *map_thp(size_t len)
{
	char *mem = map_aligned(len);

	if (madvise(mem, len, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE)");
	return mem;
}

/*
 * How many PMD-mapped huge pages back [mem, mem + len), from the AnonHugePages of the mappings
 * that overlap it in /proc/self/smaps. Whether the kernel finds a free 2 MiB block is its own
 * decision (fragmentation, the memory cgroup), so the tests compare with what it did.
 */
static long huge_pages_in(const char *mem, size_t len)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	unsigned long start, end, kib, total_kib = 0;
	int overlaps = 0;

	if (!f)
		die("/proc/self/smaps");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			overlaps = start < (uintptr_t)mem + len && (uintptr_t)mem < end;
		else if (overlaps && sscanf(line, "AnonHugePages: %lu kB", &kib) == 1)
			total_kib += kib;
	}
	fclose(f);
	return (long)(total_kib * 1024 / HUGE_SIZE);
}

/* Is THP "always" on (rather than madvise or never)? */
static int thp_always(void)
{
	char mode[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (f) {
		if (!fgets(mode, sizeof(mode), f))
			mode[0] = '\0';
		fclose(f);
	}
	return strstr(mode, "[always]") != NULL;
}

/* MADV_COLLAPSE of [mem, mem + len): 0 or the first errno. Paced (--pace), one 2 MiB range at
 * a time. */
static int collapse(char *mem, size_t len)
{
	size_t step = pace > 0 ? HUGE_SIZE : len;
	int err = 0;

	for (size_t off = 0; off < len; off += step) {
		if (madvise(mem + off, step, MADV_COLLAPSE) && !err)
			err = errno;
		paced(off + step, len);
	}
	return err;
}

/* Small pages first, then one collapse per 2 MiB: MIB/2 order-9 folios, each a successful
 * collapse of this process's memory, allocated by this process. */
static void action_collapse(long mib)
{
	size_t len = (size_t)mib << 20;
	char *mem = map_aligned(len);
	int err = 0;

	/*
	 * With THP in madvise mode, memory not advised MADV_HUGEPAGE faults in small pages and
	 * khugepaged leaves it alone, so MADV_COLLAPSE alone collapses it. With THP always on,
	 * fault with THP off, then allow it again (MADV_COLLAPSE honours VM_NOHUGEPAGE); khugepaged
	 * may then race to collapse some of it itself.
	 */
	if (thp_always()) {
		if (madvise(mem, len, MADV_NOHUGEPAGE))
			die("madvise(MADV_NOHUGEPAGE)");
		touch(mem, len);
		if (madvise(mem, len, MADV_HUGEPAGE))
			die("madvise(MADV_HUGEPAGE)");
	} else {
		touch(mem, len);
	}
	err = collapse(mem, len);
	printf("{\"pid\":%d,\"action\":\"collapse\",\"bytes\":%zu,\"collapse_errno\":%d,"
	       "\"huge_pages\":%ld}\n",
	       getpid(), len, err, huge_pages_in(mem, len));
}

/* The process's resident anonymous pages now (/proc/self/statm: resident less shared, the
 * file and shmem pages, which code run for the first time meanwhile, a sleep's, adds to). */
static long anon_resident_now(void)
{
	long size = 0, resident = -1, shared = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f || fscanf(f, "%ld %ld %ld", &size, &resident, &shared) != 3)
		die("/proc/self/statm");
	fclose(f);
	return resident - shared;
}

/* One page touched per 2 MiB of MIB, in small pages, then MADV_COLLAPSE: each collapse fills
 * the 511 other pages of its huge page with zeroes (MADV_COLLAPSE is not bound by
 * max_ptes_none); the process's resident anonymous pages grow by as many. */
static void action_sparsecollapse(long mib)
{
	size_t len = (size_t)mib << 20;
	char *mem = map_aligned(len);
	long before, after;
	int err = 0;

	/* As action_collapse: small pages first, whatever the THP mode. */
	if (thp_always() && madvise(mem, len, MADV_NOHUGEPAGE))
		die("madvise(MADV_NOHUGEPAGE)");
	for (size_t off = 0; off < len; off += HUGE_SIZE)
		((volatile char *)mem)[off] = 1;
	if (thp_always() && madvise(mem, len, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE)");
	before = anon_resident_now();
	err = collapse(mem, len);
	after = anon_resident_now();
	printf("{\"pid\":%d,\"action\":\"sparsecollapse\",\"touched\":%zu,\"collapse_errno\":%d,"
	       "\"huge_pages\":%ld,\"anon_before\":%ld,\"anon_after\":%ld}\n",
	       getpid(), len / HUGE_SIZE, err, huge_pages_in(mem, len), before, after);
}

/*
 * Writing to a node's compact file compacts its zones in the writer's own context. So that it
 * has something to move whatever the state of memory, the process first leaves 8192 of its own
 * pages scattered: 64 MiB touched, then every other page given back.
 */
static void action_compact(long node)
{
	size_t len = (size_t)16384 * page_size;
	char *mem = map_small_pages(len);
	char path[96];
	int fd;

	touch(mem, len);
	for (size_t off = 0; off < len; off += 2 * page_size)
		if (madvise(mem + off, page_size, MADV_DONTNEED))
			die("madvise(MADV_DONTNEED)");

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%ld/compact", node);
	fd = open(path, O_WRONLY);
	if (fd < 0 && node == 0)
		fd = open("/proc/sys/vm/compact_memory", O_WRONLY); /* kernels without NUMA */
	if (fd < 0 || write(fd, "1", 1) != 1)
		die(path);
	close(fd);
	printf("{\"pid\":%d,\"action\":\"compact\",\"node\":%ld}\n", getpid(), node);
}

static volatile int readers_started, readers_stop;
static unsigned long reader_laps; /* the readers' loops so far: shows they are running */

static void pin_to_cpu(long cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set); /* best effort: a cpuset may forbid it */
}

/* Keep reading the page, so this mm stays loaded on the reader's CPU and every flush of it has
 * to reach that CPU. Reads never fault: the page is always at least readable. */
static void *page_reader(void *page)
{
	static long next_cpu;

	/* Readers on CPUs 1.., the flipper on CPU 0: a flip always has a CPU to reach. */
	pin_to_cpu(__atomic_add_fetch(&next_cpu, 1, __ATOMIC_SEQ_CST));
	__atomic_add_fetch(&readers_started, 1, __ATOMIC_SEQ_CST);
	while (!readers_stop) {
		(void)*(volatile char *)page;
		__atomic_fetch_add(&reader_laps, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* Flip the page read-only and back FLIPS times while readers keep it loaded on every other CPU:
 * each mprotect flushes a TLB that a running reader holds, by an IPI. A reader descheduled (a
 * starved host) holds none, so the flips during which the readers were seen running through
 * both calls are reported too: the IPIs the test can count on. */
static void action_tlbflip(long flips)
{
	long readers = sysconf(_SC_NPROCESSORS_ONLN) - 1, watched = 0;
	pthread_t threads[64];
	char *page =
	    mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (page == MAP_FAILED)
		die("mmap");
	page[0] = 1;
	pin_to_cpu(0);
	readers = readers < 1 ? 1 : readers > 64 ? 64 : readers;
	for (long i = 0; i < readers; i++)
		if ((errno = pthread_create(&threads[i], NULL, page_reader, page)))
			die("pthread_create");
	while (readers_started < readers)
		;
	for (long i = 0; i < flips; i++) {
		unsigned long before = __atomic_load_n(&reader_laps, __ATOMIC_RELAXED), between;

		if (mprotect(page, page_size, PROT_READ))
			die("mprotect");
		between = __atomic_load_n(&reader_laps, __ATOMIC_RELAXED);
		if (mprotect(page, page_size, PROT_READ | PROT_WRITE))
			die("mprotect");
		watched += between != before &&
			   __atomic_load_n(&reader_laps, __ATOMIC_RELAXED) != between;
	}
	readers_stop = 1;
	for (long i = 0; i < readers; i++)
		pthread_join(threads[i], NULL);
	printf("{\"pid\":%d,\"action\":\"tlbflip\",\"flips\":%ld,\"readers\":%ld,"
	       "\"flips_with_readers_running\":%ld}\n",
	       getpid(), flips, readers, watched);
}

#define RING_SIZE 8 /* processes: more address spaces than x86 keeps TLB tags for per CPU */

/*
 * One member of the ring: take the token from `in`, pass it to `out`, `rounds` times. Odd
 * members touch a fresh page each turn, so that the thread switching away has had events of
 * its own in its turn, and even ones do not.
 */
static void ring_member(int index, int in, int out, long rounds)
{
	char *pages = NULL, token = 0;

	if (index % 2) {
		pages = mmap(NULL, rounds * page_size, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (pages == MAP_FAILED)
			die("mmap");
	}
	for (long i = 0; i < rounds; i++) {
		if (read(in, &token, 1) != 1)
			die("read from the ring");
		if (pages)
			pages[i * page_size] = 1;
		if (write(out, &token, 1) != 1)
			die("write to the ring");
	}
}

/*
 * Context switches between address spaces: RING_SIZE processes on CPU 0 pass a token round a
 * ring of pipes `rounds` times, each pass a switch to another process. With more address
 * spaces than the CPU keeps TLB tags for, a switch often flushes the TLB (tlb_flush, reason
 * flush_on_task_switch), in the context of the thread switching away.
 */
static void action_ring(long rounds)
{
	int pipes[RING_SIZE][2];
	pid_t pids[RING_SIZE];

	pin_to_cpu(0);
	for (int i = 0; i < RING_SIZE; i++)
		if (pipe(pipes[i]))
			die("pipe");
	pids[0] = getpid();
	for (int i = 1; i < RING_SIZE; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (pids[i] == 0) {
			ring_member(i, pipes[i][0], pipes[(i + 1) % RING_SIZE][1], rounds);
			_exit(0);
		}
	}
	if (write(pipes[1][1], "t", 1) != 1) /* the token starts at member 1 */
		die("write to the ring");
	ring_member(0, pipes[0][0], pipes[1][1], rounds);
	for (int i = 1; i < RING_SIZE; i++)
		if (waitpid(pids[i], NULL, 0) < 0)
			die("waitpid");
	printf("{\"pid\":%d,\"action\":\"ring\",\"rounds\":%ld,\"pids\":[", getpid(), rounds);
	for (int i = 0; i < RING_SIZE; i++)
		printf("%s%d", i ? "," : "", pids[i]);
	printf("]}\n");
}

/*
 * A thread whose events come from every CPU in turn: a new thread (so no table entry yet) moves
 * to the next CPU after each page it touches, so its counts start on several CPUs at once.
 */
static void *hopping_thread(void *arg)
{
	long pages = *(long *)arg, cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t len = (size_t)pages * page_size;
	char *mem = map_small_pages(len);

	for (long i = 0; i < pages; i++) {
		pin_to_cpu(i % cpus);
		mem[i * page_size] = 1;
	}
	return NULL;
}

static void action_hop(long pages)
{
	pthread_t thread;

	if ((errno = pthread_create(&thread, NULL, hopping_thread, &pages)))
		die("pthread_create");
	pthread_join(thread, NULL);
	printf("{\"pid\":%d,\"action\":\"hop\",\"pages_touched\":%ld}\n", getpid(), pages);
}

/*
 * moved N,PAGES: the threads of a process that moves to another cgroup. N threads (the leader
 * and N - 1 others) each touch 16 pages, so that each has done something where it was born; then
 * the process stops and prints {"pid": P, "tids": [the others' tids], "minflt": N, "majflt": N}
 * (its faults so far, getrusage(RUSAGE_SELF)), and waits for a byte on stdin: meanwhile the test
 * moves the process, or some of its threads. Then each thread but the leader touches PAGES pages
 * and the process prints {"pid": P, "action": "moved", "pages_touched": (N - 1) * PAGES,
 * "threads": [{"tid": T, "minflt": N, "majflt": N}]}: each of those threads' faults since it
 * stopped (getrusage(RUSAGE_THREAD)), all of which happened after the move. Only pipes and
 * a barrier order the steps: nothing guesses how long one takes.
 */
struct moved_thread {
	pthread_t thread;
	pid_t tid;
	long pages;
	int go[2];		  /* the leader writes a byte when the thread may go on */
	pthread_barrier_t *stopped; /* every thread has faulted where it was born */
	struct rusage before, after;
};

static void *moved_thread_main(void *arg)
{
	struct moved_thread *t = arg;
	size_t len = (size_t)t->pages * page_size;
	char byte;

	t->tid = (pid_t)syscall(SYS_gettid);
	action_pages_quiet(16);
	getrusage(RUSAGE_THREAD, &t->before);
	pthread_barrier_wait(t->stopped);
	if (read(t->go[0], &byte, 1) != 1)
		die("read");
	touch(map_small_pages(len), len);
	getrusage(RUSAGE_THREAD, &t->after);
	return NULL;
}

static void action_moved(const char *arg)
{
	long nr = 0, pages = 0;
	struct moved_thread *threads;
	static char stop_line[16384]; /* room for 1024 tids */
	pthread_barrier_t stopped;
	struct rusage self;
	char byte;
	int at;

	if (sscanf(arg, "%ld,%ld", &nr, &pages) != 2 || nr < 2 || nr > 1024 || pages <= 0)
		die("moved N,PAGES");
	threads = calloc(nr - 1, sizeof(*threads));
	if (!threads || pthread_barrier_init(&stopped, NULL, nr))
		die("calloc");
	for (long i = 0; i < nr - 1; i++) {
		threads[i].pages = pages;
		threads[i].stopped = &stopped;
		if (pipe(threads[i].go))
			die("pipe");
		if ((errno = pthread_create(&threads[i].thread, NULL, moved_thread_main, &threads[i])))
			die("pthread_create");
	}
	action_pages_quiet(16);
	pthread_barrier_wait(&stopped);
	/* From the count to the move, nothing may fault: the line is made in memory touched
	 * already, and written and the answer read without stdio (whose first use allocates). */
	memset(stop_line, 0, sizeof(stop_line));
	at = snprintf(stop_line, sizeof(stop_line), "{\"pid\":%d,\"tids\":[", getpid());
	for (long i = 0; i < nr - 1; i++)
		at += snprintf(stop_line + at, sizeof(stop_line) - at, "%s%d", i ? "," : "",
			       threads[i].tid);
	getrusage(RUSAGE_SELF, &self);
	at += snprintf(stop_line + at, sizeof(stop_line) - at, "],\"minflt\":%ld,\"majflt\":%ld}\n",
		       self.ru_minflt, self.ru_majflt);
	if (write(STDOUT_FILENO, stop_line, at) != at || read(STDIN_FILENO, &byte, 1) != 1)
		die("stop");
	for (long i = 0; i < nr - 1; i++)
		if (write(threads[i].go[1], "g", 1) != 1)
			die("write");
	for (long i = 0; i < nr - 1; i++)
		pthread_join(threads[i].thread, NULL);
	printf("{\"pid\":%d,\"action\":\"moved\",\"pages_touched\":%ld,\"threads\":[", getpid(),
	       (nr - 1) * pages);
	for (long i = 0; i < nr - 1; i++)
		printf("%s{\"tid\":%d,\"minflt\":%ld,\"majflt\":%ld}", i ? "," : "", threads[i].tid,
		       threads[i].after.ru_minflt - threads[i].before.ru_minflt,
		       threads[i].after.ru_majflt - threads[i].before.ru_majflt);
	printf("]}\n");
}

/* N processes that only wait: a host with many processes, each of which ends with the workload
 * (PR_SET_PDEATHSIG) or after ten minutes, whichever comes first. */
static void action_idle(long n)
{
	pid_t parent = getpid();

	for (long i = 0; i < n; i++) {
		pid_t child = fork();

		if (child < 0)
			die("fork");
		if (child == 0) {
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
				_exit(0);
			alarm(600);
			for (;;)
				pause();
		}
	}
	printf("{\"pid\":%d,\"action\":\"idle\",\"children\":%ld}\n", getpid(), n);
}

/* Process churn: many processes that live and die within a window. */
static void action_forks(long n)
{
	for (long i = 0; i < n; i++) {
		pid_t child = fork();

		if (child == 0) {
			action_pages_quiet(4);
			_exit(0);
		}
		if (child < 0)
			die("fork");
		waitpid(child, NULL, 0);
	}
	printf("{\"pid\":%d,\"action\":\"forks\",\"children\":%ld}\n", getpid(), n);
}

/* A child that touches `pages` pages, once it reads a byte from `hold_fd` (if not -1), and exits
 * at once if it did not get pid `want` (if not 0). */
static pid_t fork_toucher(long pages, int hold_fd, pid_t want)
{
	pid_t child = fork();
	char go;

	if (child < 0)
		die("fork");
	if (child > 0)
		return child;
	if (want && getpid() != want)
		_exit(0);
	if (hold_fd >= 0 && read(hold_fd, &go, 1) != 1)
		_exit(1);
	action_pages_quiet(pages);
	_exit(0);
}

/*
 * "A,B[,hold]": pid reuse. A child touches A pages and exits; once it is reaped, a second child
 * takes its pid and touches B pages. The kernel gives a fork the pid after ns_last_pid's (when
 * free), so it is set to the one before the first child's just before the fork (root in the
 * initial PID namespace may); another process on the host may fork in between and take it, so
 * this is tried again (a child that got another pid exits at once), up to 1000 times. What the
 * kernel accounted to each child over its life (forked, not executed: every fault of its raises
 * the perf event foliostat counts) is wait4's. With "hold", the first child waits, its pid
 * printed ({"held": PID}), until a line comes on standard input (for a foliostat -p PID to start).
 */
static void action_reuse(const char *arg)
{
	long first_pages, second_pages;
	struct rusage first, second;
	char hold[8] = "", line[16];
	int go[2] = {-1, -1}, attempts = 0, fd;
	pid_t pid, child;

	if (sscanf(arg, "%ld,%ld,%7s", &first_pages, &second_pages, hold) < 2 || first_pages < 0 ||
	    second_pages < 0 || (hold[0] && strcmp(hold, "hold")))
		die("reuse A,B[,hold]");
	if (hold[0] && pipe(go))
		die("pipe");
	pid = fork_toucher(first_pages, go[0], 0);
	if (hold[0]) {
		printf("{\"held\":%d}\n", pid);
		if (!fgets(line, sizeof(line), stdin) || write(go[1], "g", 1) != 1)
			die("hold");
	}
	if (wait4(pid, NULL, 0, &first) != pid)
		die("wait4");
	do {
		if (++attempts > 1000) {
			errno = EAGAIN;
			die("reuse: another process took the pid every time");
		}
		fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
		if (fd < 0 || dprintf(fd, "%d", pid - 1) < 0 || close(fd))
			die("/proc/sys/kernel/ns_last_pid");
		child = fork_toucher(second_pages, -1, pid);
		if (wait4(child, NULL, 0, &second) != child)
			die("wait4");
	} while (child != pid);
	printf("{\"pid\":%d,\"action\":\"reuse\",\"child\":%d,\"attempts\":%d,"
	       "\"first\":{\"pages\":%ld,\"majflt\":%ld,\"minflt\":%ld},"
	       "\"second\":{\"pages\":%ld,\"majflt\":%ld,\"minflt\":%ld}}\n",
	       getpid(), pid, attempts, first_pages, first.ru_majflt, first.ru_minflt, second_pages,
	       second.ru_majflt, second.ru_minflt);
}

/* "N,M": touch N pages, and fork a child that touches M (a command and its descendant). */
static void action_family(const char *counts)
{
	struct rusage usage, child_usage;
	long pages, child_pages;
	pid_t child;

	if (sscanf(counts, "%ld,%ld", &pages, &child_pages) != 2 || pages < 0 || child_pages < 0)
		die("family N,M");
	action_pages_quiet(pages);
	child = fork();
	if (child == 0) {
		action_pages_quiet(child_pages);
		_exit(0);
	}
	if (child < 0)
		die("fork");
	/* The kernel's own count of each one's faults, from fork (exec does not reset it). */
	if (wait4(child, NULL, 0, &child_usage) != child || getrusage(RUSAGE_SELF, &usage))
		die("wait4");
	printf("{\"pid\":%d,\"action\":\"family\",\"pages_touched\":%ld,\"faults\":%ld,"
	       "\"child\":%d,\"child_pages_touched\":%ld,\"child_faults\":%ld}\n",
	       getpid(), pages, usage.ru_minflt + usage.ru_majflt, child, child_pages,
	       child_usage.ru_minflt + child_usage.ru_majflt);
}

/*
 * "NODE,PAGES[,hold][,thp]": bind this process's memory to NODE (set_mempolicy MPOL_BIND), then
 * fork a child that touches PAGES pages: every allocation of the child's is made under the
 * binding (the parent's start-up came before it). With "thp", the pages are in 2 MiB blocks
 * advised for THP (PAGES rounded up to whole blocks), and the child says how many huge pages it
 * got. With "hold", the child prints {"held": PID, "huge_pages": N} once its pages are touched
 * and waits for a line on standard input (while a test reads its numa_maps).
 */
static void action_bound(const char *arg)
{
	long node, pages, huge = 0;
	char line[16], flags[16] = "";
	bool hold = false, thp = false;
	unsigned long mask;
	pid_t child;

	if (sscanf(arg, "%ld,%ld,%15s", &node, &pages, flags) < 2 || node < 0 || node > 63 ||
	    pages < 0)
		die("bound NODE,PAGES[,hold][,thp]");
	for (char *flag = strtok(flags, ","); flag; flag = strtok(NULL, ",")) {
		if (!strcmp(flag, "hold"))
			hold = true;
		else if (!strcmp(flag, "thp"))
			thp = true;
		else
			die("bound NODE,PAGES[,hold][,thp]");
	}
	mask = 1UL << node;
	/* 2: MPOL_BIND (<linux/mempolicy.h>, not in every libc's headers) */
	if (syscall(SYS_set_mempolicy, 2, &mask, sizeof(mask) * 8 + 1))
		die("set_mempolicy(MPOL_BIND)");
	child = fork();
	if (child == 0) {
		if (thp) {
			size_t len = ((size_t)pages * page_size + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1);
			char *mem = map_thp(len);

			touch(mem, len);
			huge = huge_pages_in(mem, len);
		} else {
			action_pages_quiet(pages);
		}
		if (hold) {
			printf("{\"held\":%d,\"huge_pages\":%ld}\n", getpid(), huge);
			if (!fgets(line, sizeof(line), stdin))
				_exit(1);
		}
		_exit(0);
	}
	if (child < 0)
		die("fork");
	if (waitpid(child, NULL, 0) != child)
		die("waitpid");
	printf("{\"pid\":%d,\"action\":\"bound\",\"node\":%ld,\"child\":%d,"
	       "\"pages_touched\":%ld}\n",
	       getpid(), node, child, pages);
}

/* "MIB[,KIB]": advise MIB MiB for THP and touch all of it, or only its first KIB KiB (whose
 * last 2 MiB block, if partly touched, still faults as one THP attempt). */
static void action_thp(const char *arg)
{
	long mib = 0, kib = -1;
	size_t len, touched;
	char *mem;

	if (sscanf(arg, "%ld,%ld", &mib, &kib) < 1 || mib <= 0 || kib > mib * 1024)
		die("thp MIB[,KIB]");
	len = (size_t)mib << 20;
	touched = kib < 0 ? len : (size_t)kib << 10;
	mem = map_thp(len);
	touch(mem, touched);
	printf("{\"pid\":%d,\"action\":\"thp\",\"bytes\":%zu,\"pages_touched\":%zu,"
	       "\"huge_pages\":%ld}\n",
	       getpid(), len, touched / page_size, huge_pages_in(mem, len));
}

/* As thp MIB, then MADV_DONTNEED of the second half of every 2 MiB: each huge page it got stays
 * a whole folio mapped only in part (its first half, by PTEs), until the kernel splits it (under
 * memory pressure: the deferred split queue's shrinker). */
static void action_thphalf(long mib)
{
	size_t len = (size_t)mib << 20;
	char *mem = map_thp(len);
	long huge;

	touch(mem, len);
	huge = huge_pages_in(mem, len);
	/* khugepaged would fill the holes again (max_ptes_none), collapsing each back whole. */
	if (madvise(mem, len, MADV_NOHUGEPAGE))
		die("madvise(MADV_NOHUGEPAGE)");
	for (size_t off = 0; off < len; off += HUGE_SIZE)
		if (madvise(mem + off + HUGE_SIZE / 2, HUGE_SIZE / 2, MADV_DONTNEED))
			die("madvise(MADV_DONTNEED)");
	printf("{\"pid\":%d,\"action\":\"thphalf\",\"bytes\":%zu,\"huge_pages\":%ld}\n",
	       getpid(), len, huge);
}

/* A reservation of MIB MiB of anonymous memory (MAP_NORESERVE, as runtimes reserve heaps) of
 * which one page in each 64 MiB is touched: page tables mostly empty, which pagemap still
 * shows entry by entry. */
static void action_sparse(long mib)
{
	size_t len = (size_t)mib << 20, step = (size_t)64 << 20, touched = 0;
	char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (mem == MAP_FAILED)
		die("mmap");
	if (madvise(mem, len, MADV_NOHUGEPAGE))
		die("madvise(MADV_NOHUGEPAGE)");
	for (size_t off = 0; off < len; off += step, touched++)
		mem[off] = 1;
	printf("{\"pid\":%d,\"action\":\"sparse\",\"bytes\":%zu,\"pages_touched\":%zu}\n",
	       getpid(), len, touched);
}

/* "MIB,HEAD[,TAIL]": a reservation of MIB MiB of anonymous memory (MAP_NORESERVE, as runtimes
 * reserve heaps; 64 TiB is 67108864) of which the first HEAD pages and the last TAIL are
 * touched: a mapping of terabytes whose pages are at its ends, holes in between. */
static void action_reserve(const char *arg)
{
	long mib, head, tail = 0, page = sysconf(_SC_PAGESIZE);
	size_t len;
	char *mem;

	if (sscanf(arg, "%ld,%ld,%ld", &mib, &head, &tail) < 2 || mib <= 0 || head < 0 ||
	    tail < 0 || (head + tail) * page > mib << 20)
		die("reserve MIB,HEAD[,TAIL]");
	len = (size_t)mib << 20;
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		   -1, 0);
	if (mem == MAP_FAILED)
		die("mmap");
	if (madvise(mem, len, MADV_NOHUGEPAGE))
		die("madvise(MADV_NOHUGEPAGE)");
	for (long i = 0; i < head; i++)
		mem[i * page] = 1;
	for (long i = 1; i <= tail; i++)
		mem[len - (size_t)(i * page)] = 1;
	printf("{\"pid\":%d,\"action\":\"reserve\",\"bytes\":%zu,\"start\":%lu,"
	       "\"pages_touched\":%ld}\n",
	       getpid(), len, (unsigned long)mem, head + tail);
}

/* Free blocks of the PMD order or larger over every zone (/proc/buddyinfo) of NUMA node `node`
 * (-1: of every node), in PMD-order blocks: what hugetlb can take at once, with neither reclaim
 * nor compaction. */
static long free_pmd_blocks(int pmd_order, int node)
{
	FILE *f = fopen("/proc/buddyinfo", "r");
	char line[1024];
	long blocks = 0;

	if (!f)
		die("/proc/buddyinfo");
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "zone");
		int order = 0, used, line_node;
		long count;

		if (!p || sscanf(line, "Node %d", &line_node) != 1 || (node >= 0 && line_node != node))
			continue;
		p += 4;
		while (*p == ' ')
			p++;
		while (*p && *p != ' ') /* the zone's name */
			p++;
		for (; sscanf(p, "%ld%n", &count, &used) == 1; p += used, order++)
			if (order >= pmd_order)
				blocks += count << (order - pmd_order);
	}
	fclose(f);
	return blocks;
}

static long read_long_file(const char *path);
static void write_long_file(const char *path, long value);

/*
 * Have hugetlb take every free PMD-order block, node by node where the kernel has nodes: a
 * count asked of the whole pool is spread over the nodes in turn, and a node with fewer free
 * blocks than its turns would be compacted and reclaimed for the rest (its single pages taken
 * as well, the workload's own killed for lack of memory: seen on a VM of two nodes).
 */
static void take_free_pmd_blocks(int pmd_order)
{
	char path[128];
	long blocks;

	for (int node = 0; node < 64; node++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%d/hugepages/hugepages-%lukB/nr_hugepages", node,
			 HUGE_SIZE >> 10);
		if (access(path, W_OK))
			continue;
		blocks = free_pmd_blocks(pmd_order, node);
		if (blocks)
			write_long_file(path, read_long_file(path) + blocks);
	}
	/* A kernel without nodes (no such files) has one pool. */
	snprintf(path, sizeof(path), "/sys/devices/system/node/node0/hugepages/hugepages-%lukB",
		 HUGE_SIZE >> 10);
	if (access(path, F_OK) && (blocks = free_pmd_blocks(pmd_order, -1)))
		write_long_file("/proc/sys/vm/nr_hugepages",
				read_long_file("/proc/sys/vm/nr_hugepages") + blocks);
}

static long read_long_file(const char *path)
{
	FILE *f = fopen(path, "r");
	long v;

	if (!f || fscanf(f, "%ld", &v) != 1)
		die(path);
	fclose(f);
	return v;
}

/* A counter of /proc/vmstat. */
static long vmstat_value(const char *name)
{
	FILE *f = fopen("/proc/vmstat", "r");
	char key[64];
	long v, found = -1;

	if (!f)
		die("/proc/vmstat");
	while (fscanf(f, "%63s %ld", key, &v) == 2)
		if (strcmp(key, name) == 0)
			found = v;
	fclose(f);
	if (found < 0)
		die(name);
	return found;
}

static void write_long_file(const char *path, long v)
{
	FILE *f = fopen(path, "w");

	if (!f || fprintf(f, "%ld\n", v) < 0 || fclose(f))
		die(path);
}

/* Pages scanned by direct compaction so far (every compaction's scans less kcompactd's): it
 * changes once an allocation has compacted, never while the kernel defers or skips compaction
 * (a compaction may run and scan nothing, every block marked to be skipped). */
static long direct_compaction_scanned(void)
{
	return vmstat_value("compact_migrate_scanned") + vmstat_value("compact_free_scanned") -
	       vmstat_value("compact_daemon_migrate_scanned") -
	       vmstat_value("compact_daemon_free_scanned");
}

static void report_scarce(size_t attempts, long huge_pages, long taken, long stalls, long scanned)
{
	printf("{\"pid\":%d,\"action\":\"scarce\",\"attempts\":%zu,\"huge_pages\":%ld,"
	       "\"hugetlb_taken\":%ld,\"compact_stalls\":%ld,\"compaction_scanned\":%ld}\n",
	       getpid(), attempts, huge_pages, taken, stalls, scanned);
}

/*
 * "FRAG_MIB,THP_MIB[,MAX_MIB]": THP faults where no free huge page exists, made so by the
 * workload itself: it faults FRAG_MIB of small pages and gives back every other one (free
 * memory aplenty, none of it in 2 MiB blocks), turns proactive compaction off, has a child make
 * hugetlb take every free block of the PMD order left (off the free lists), then touches THP_MIB
 * of MADV_HUGEPAGE memory, one THP attempt per 2 MiB, and gives hugetlb's pages back. With
 * defrag "never" each attempt that finds no block falls back at once; with "always" it compacts
 * first, unless the kernel defers compaction: hugetlb's failures leave it deferred for the next
 * 64 tries at most, and a fault tries once or more (seen on Linux 6.1 x86: the first 9 faults
 * deferred). With MAX_MIB, attempts go on, one 2 MiB block (one page touched) at a time up to
 * MAX_MIB in all, until direct compaction has scanned pages. Reports the attempts, the huge pages
 * it got (smaps), what hugetlb took, the direct compactions the kernel counted meanwhile
 * (compact_stall, deferred ones included) and the pages they scanned. With ",hold" after
 * MAX_MIB, it reports before it gives hugetlb's pages back, and waits for a byte on stdin
 * first: memory stays that scarce until then.
 */
static void action_scarce(const char *arg)
{
	const char *nr_hugepages = "/proc/sys/vm/nr_hugepages";
	const char *proactive = "/proc/sys/vm/compaction_proactiveness";
	int pmd_order = __builtin_ctzl(HUGE_SIZE / page_size);
	long frag_mib, thp_mib, max_mib = 0, before, taken, proactiveness, stalls, scanned;
	char hold[8] = "", go;
	pid_t child;
	int status, fields;
	size_t frag_len, thp_len, max_len;
	char *frag, *mem;

	fields = sscanf(arg, "%ld,%ld,%ld,%7s", &frag_mib, &thp_mib, &max_mib, hold);
	if (fields < 2 || frag_mib <= 0 || thp_mib <= 0 || (fields >= 3 && max_mib < thp_mib) ||
	    (fields == 4 && strcmp(hold, "hold")))
		die("scarce FRAG_MIB,THP_MIB[,MAX_MIB[,hold]]");
	frag_len = (size_t)frag_mib << 20;
	thp_len = (size_t)thp_mib << 20;
	max_len = fields >= 3 ? (size_t)max_mib << 20 : thp_len;
	frag = map_small_pages(frag_len);
	touch(frag, frag_len);
	for (size_t off = 0; off < frag_len; off += 2 * page_size)
		if (madvise(frag + off, page_size, MADV_DONTNEED))
			die("madvise(MADV_DONTNEED)");
	/* Background compaction would make new blocks meanwhile: off for the run. */
	proactiveness = access(proactive, W_OK) == 0 ? read_long_file(proactive) : -1;
	if (proactiveness > 0)
		write_long_file(proactive, 0);
	before = read_long_file(nr_hugepages);
	/* Blocks freed while hugetlb takes the others (a CPU's cache of them drained) are taken
	 * in the next round. A child asks, so that hugetlb's own allocations, and those that
	 * find no block, are not this process's. */
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		for (int round = 0; round < 8 && free_pmd_blocks(pmd_order, -1); round++)
			take_free_pmd_blocks(pmd_order);
		_exit(0);
	}
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		die("hugetlb's child");
	taken = read_long_file(nr_hugepages) - before;
	mem = map_thp(max_len);
	stalls = vmstat_value("compact_stall");
	scanned = direct_compaction_scanned();
	touch(mem, thp_len);
	/* (a fault that falls back maps the one page touched: a few KiB per attempt) */
	for (; thp_len < max_len && direct_compaction_scanned() == scanned; thp_len += HUGE_SIZE)
		mem[thp_len] = 1;
	stalls = vmstat_value("compact_stall") - stalls;
	scanned = direct_compaction_scanned() - scanned;
	if (hold[0]) {
		report_scarce(thp_len / HUGE_SIZE, huge_pages_in(mem, thp_len), taken, stalls,
			      scanned);
		fflush(stdout);
		if (read(0, &go, 1) != 1)
			die("hold");
	}
	write_long_file(nr_hugepages, before);
	if (proactiveness > 0)
		write_long_file(proactive, proactiveness);
	if (!hold[0])
		report_scarce(thp_len / HUGE_SIZE, huge_pages_in(mem, thp_len), taken, stalls,
			      scanned);
}

/* N: have hugetlb take N more pages into its pool and give them back, both from this thread
 * (no other large allocation in between). Reports the pages the pool took. */
static void action_hugetlb(long n)
{
	const char *nr_hugepages = "/proc/sys/vm/nr_hugepages";
	long before = read_long_file(nr_hugepages), taken;

	if (n <= 0)
		die("hugetlb N");
	write_long_file(nr_hugepages, before + n);
	taken = read_long_file(nr_hugepages) - before;
	write_long_file(nr_hugepages, before);
	printf("{\"pid\":%d,\"action\":\"hugetlb\",\"taken\":%ld}\n", getpid(), taken);
}

/* Of an smaps counter in kB (e.g. "ShmemPmdMapped:"), over the mappings that overlap
 * [mem, mem + len), in huge pages. */
static long smaps_huge_pages(const char *mem, size_t len, const char *key)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	unsigned long start, end, kib, total_kib = 0;
	size_t key_len = strlen(key);
	int overlaps = 0;

	if (!f)
		die("/proc/self/smaps");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			overlaps = start < (uintptr_t)mem + len && (uintptr_t)mem < end;
		else if (overlaps && strncmp(line, key, key_len) == 0 &&
			 sscanf(line + key_len, "%lu kB", &kib) == 1)
			total_kib += kib;
	}
	fclose(f);
	return (long)(total_kib * 1024 / HUGE_SIZE);
}

/*
 * File (shmem) collapse: MIB of a memfd written through a shared mapping aligned to 2 MiB (with
 * shmem THP off, small pages), then MADV_COLLAPSE, which scans and collapses each 2 MiB of the
 * file in this process (huge_memory:mm_khugepaged_scan_file, _collapse_file). khugepaged leaves
 * it alone: shmem THP is not enabled for it.
 */
static void action_collapse_file(long mib)
{
	size_t len = (size_t)mib << 20;
	char *mem = map_aligned(len);
	int fd = memfd_create("foliostat-collapse", 0), err = 0;

	if (fd < 0 || ftruncate(fd, (off_t)len))
		die("memfd");
	if (mmap(mem, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) != mem)
		die("mmap of the memfd");
	touch(mem, len);
	if (madvise(mem, len, MADV_COLLAPSE))
		err = errno;
	printf("{\"pid\":%d,\"action\":\"collapse_file\",\"bytes\":%zu,\"collapse_errno\":%d,"
	       "\"huge_pages\":%ld}\n",
	       getpid(), len, err, smaps_huge_pages(mem, len, "ShmemPmdMapped:"));
	close(fd);
}

/*
 * TLB flushes of known ranges: N times, touch 8 + 512 pages (THP off), then zap the 8 (one
 * ranged flush of 8 pages) and the 512 (more than the kernel flushes page by page, 33 by
 * default: a full flush). With a single thread, each is a local flush of this mm.
 */
static void action_tlbrange(long rounds)
{
	size_t small = 8 * page_size, large = 512 * page_size;
	char *mem = map_small_pages(small + large);

	for (long i = 0; i < rounds; i++) {
		touch(mem, small + large);
		if (madvise(mem, small, MADV_DONTNEED) || madvise(mem + small, large, MADV_DONTNEED))
			die("madvise(MADV_DONTNEED)");
	}
	printf("{\"pid\":%d,\"action\":\"tlbrange\",\"rounds\":%ld,\"small_pages\":8,"
	       "\"large_pages\":512}\n",
	       getpid(), rounds);
}

/* Sum of /proc/vmstat's allocstall_* counters: global direct reclaim runs so far. */
static long allocstalls(void)
{
	FILE *f = fopen("/proc/vmstat", "r");
	char key[64];
	long v, sum = 0;

	if (!f)
		die("/proc/vmstat");
	while (fscanf(f, "%63s %ld", key, &v) == 2)
		if (strncmp(key, "allocstall_", 11) == 0)
			sum += v;
	fclose(f);
	return sum;
}

/*
 * MAX: no free 2 MiB block left, then allocations that need one, from this process: hugetlb
 * takes every free block of the PMD order into its pool (as scarce's child does), then this
 * process asks it for one more page at a time, each an order-9 allocation that finds no block
 * (it wakes kswapd, compacts, reclaims), until /proc/vmstat's allocstall_* show that a direct
 * reclaim ran, MAX pages at most; then the pool is given back. Reports the pages the pool took
 * and the extra pages asked for, and the direct reclaims the kernel counted meanwhile.
 */
static void action_starve(long max)
{
	const char *nr_hugepages = "/proc/sys/vm/nr_hugepages";
	const char *proactive = "/proc/sys/vm/compaction_proactiveness";
	int pmd_order = __builtin_ctzl(HUGE_SIZE / page_size);
	long before, blocks, proactiveness, stalls, asked = 0, taken;

	if (max <= 0)
		die("starve MAX");
	proactiveness = access(proactive, W_OK) == 0 ? read_long_file(proactive) : -1;
	if (proactiveness > 0)
		write_long_file(proactive, 0);
	before = read_long_file(nr_hugepages);
	for (int round = 0; round < 8 && (blocks = free_pmd_blocks(pmd_order, -1)); round++)
		write_long_file(nr_hugepages, read_long_file(nr_hugepages) + blocks);
	stalls = allocstalls();
	for (; asked < max && allocstalls() == stalls; asked++)
		write_long_file(nr_hugepages, read_long_file(nr_hugepages) + 1);
	stalls = allocstalls() - stalls;
	taken = read_long_file(nr_hugepages) - before;
	write_long_file(nr_hugepages, before);
	if (proactiveness > 0)
		write_long_file(proactive, proactiveness);
	printf("{\"pid\":%d,\"action\":\"starve\",\"hugetlb_taken\":%ld,\"asked_more\":%ld,"
	       "\"allocstalls\":%ld}\n",
	       getpid(), taken, asked, stalls);
}

/*
 * threads N,PAGES: N threads (besides the leader), all alive while any works: each touches a
 * page of its own (its first event), waits until every one has, touches PAGES fresh pages with
 * THP off, and waits until every one has before it exits.
 */
static pthread_barrier_t threads_started, threads_done;

static void *touching_thread(void *arg)
{
	action_pages_quiet(1);
	pthread_barrier_wait(&threads_started);
	action_pages_quiet(*(long *)arg);
	pthread_barrier_wait(&threads_done);
	return NULL;
}

static void action_threads(const char *arg)
{
	long nr = 0, pages = 0;
	pthread_t *threads;

	if (sscanf(arg, "%ld,%ld", &nr, &pages) != 2 || nr < 1 || nr > 4096 || pages <= 0)
		die("threads N,PAGES");
	threads = calloc(nr, sizeof(*threads));
	if (!threads || pthread_barrier_init(&threads_started, NULL, nr) ||
	    pthread_barrier_init(&threads_done, NULL, nr))
		die("calloc");
	for (long i = 0; i < nr; i++)
		if ((errno = pthread_create(&threads[i], NULL, touching_thread, &pages)))
			die("pthread_create");
	for (long i = 0; i < nr; i++)
		pthread_join(threads[i], NULL);
	printf("{\"pid\":%d,\"action\":\"threads\",\"threads\":%ld,\"pages_each\":%ld}\n", getpid(),
	       nr, pages);
}

static void action_pages(long pages)
{
	/* Neither PMD THPs nor mTHPs: exactly one order-0 folio per page. */
	action_pages_quiet(pages);
	printf("{\"pid\":%d,\"action\":\"pages\",\"pages_touched\":%ld}\n", getpid(), pages);
}

/* Pages of the file in the page cache, by mincore() on a mapping that is never touched. */
static size_t resident_pages(int fd, size_t len)
{
	size_t pages = (len + page_size - 1) / page_size, resident = 0;
	unsigned char *vec = malloc(pages);
	void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);

	if (!vec || map == MAP_FAILED)
		die("mmap for mincore");
	if (mincore(map, len, vec))
		die("mincore");
	for (size_t i = 0; i < pages; i++)
		resident += vec[i] & 1;
	munmap(map, len);
	free(vec);
	return resident;
}

/* Open FILE with none of its pages in the page cache; returns the fd, its size in *size. */
static int open_uncached(const char *path, size_t *size)
{
	int fd = open(path, O_RDONLY);
	struct stat st;

	if (fd < 0 || fstat(fd, &st))
		die(path);
	/* Clean pages are dropped by DONTNEED; make sure none is dirty first. */
	if (fdatasync(fd) && errno != EINVAL)
		die("fdatasync");
	if ((errno = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)))
		die("posix_fadvise");
	*size = st.st_size;
	return fd;
}

static void action_mapread(const char *path)
{
	size_t size, before, after, sum = 0;
	int fd = open_uncached(path, &size);
	char *map;

	before = resident_pages(fd, size);
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	for (size_t off = 0; off < size; off += page_size)
		sum += ((volatile char *)map)[off];
	after = resident_pages(fd, size);
	printf("{\"pid\":%d,\"action\":\"mapread\",\"pages\":%zu,\"resident_before\":%zu,"
	       "\"resident_after\":%zu,\"sum\":%zu}\n",
	       getpid(), size / page_size, before, after, sum);
	munmap(map, size);
	close(fd);
}

/*
 * Drop FILE from the page cache, report that it is ready, wait for a byte on stdin, then map the
 * file and touch every page, and report again; the mapping stays (with --linger, while it
 * lingers): the test reads what the process maps before and after.
 */
static void action_mapheld(const char *path)
{
	size_t size, sum = 0;
	int fd = open_uncached(path, &size);
	char *map, byte;

	printf("{\"pid\":%d,\"action\":\"mapheld\",\"ready\":true}\n", getpid());
	if (read(0, &byte, 1) != 1)
		die("read(stdin)");
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	for (size_t off = 0; off < size; off += page_size)
		sum += ((volatile char *)map)[off];
	printf("{\"pid\":%d,\"action\":\"mapheld\",\"pages\":%zu,\"resident_after\":%zu,"
	       "\"sum\":%zu}\n",
	       getpid(), size / page_size, resident_pages(fd, size), sum);
}

/*
 * Read FILE, its pages dropped from the page cache first, through a mapping in a child process
 * (forked, not executed: exec's own faults on the new stack go through get_user_pages(), which
 * the kernel counts in the task but raises no perf event for), and report what the kernel
 * accounted to the child over its whole life, from wait4(): its majflt and minflt.
 */
static void action_faultcount(const char *path)
{
	size_t size;
	int fd = open_uncached(path, &size);
	struct rusage usage;
	pid_t child = fork();

	if (child < 0)
		die("fork");
	if (child == 0) {
		size_t sum = 0;
		char *map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);

		if (map == MAP_FAILED)
			_exit(1);
		for (size_t off = 0; off < size; off += page_size)
			sum += ((volatile char *)map)[off];
		_exit(sum == (size_t)-1); /* keeps the reads */
	}
	if (wait4(child, NULL, 0, &usage) != child)
		die("wait4");
	printf("{\"pid\":%d,\"action\":\"faultcount\",\"child\":%d,\"pages\":%zu,"
	       "\"majflt\":%ld,\"minflt\":%ld}\n",
	       getpid(), child, size / page_size, usage.ru_majflt, usage.ru_minflt);
	close(fd);
}

/*
 * Put the last page-cache folios this thread added on their LRU lists now, in its own context.
 * The kernel gathers folios bound for an LRU list in a per-CPU batch (of up to 31) and adds
 * them when the batch fills or is drained: left there, the last few join the lists when some
 * other task on this CPU fills the batch, and are charged to that task. FADV_DONTNEED drains
 * this CPU's batch first; past the file's end it evicts nothing.
 */
static void drain_lru_batch(int fd, size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	off_t end = (off_t)((size + page - 1) / page * page);

	errno = posix_fadvise(fd, end, 1, POSIX_FADV_DONTNEED);
	if (errno)
		die("posix_fadvise");
}

static void action_read(const char *path)
{
	static char buf[1 << 20];
	size_t size, before, after, total = 0;
	int fd = open_uncached(path, &size);
	ssize_t n;

	before = resident_pages(fd, size);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		total += n;
		paced(total, size);
	}
	if (n < 0)
		die("read");
	drain_lru_batch(fd, size);
	after = resident_pages(fd, size);
	printf("{\"pid\":%d,\"action\":\"read\",\"bytes\":%zu,\"resident_before\":%zu,"
	       "\"resident_after\":%zu}\n",
	       getpid(), total, before, after);
	close(fd);
}

/*
 * Read FILE twice, its pages dropped from the cache first, on one CPU: the first read adds each
 * folio to the inactive file list, the second finds it referenced and activates it
 * (pagemap:mm_lru_activate). Activations wait in a per-CPU batch; on one CPU, all but the last
 * batch are made by this process, and its exit drains that one.
 */
static void action_reread(const char *path)
{
	static char buf[1 << 20];
	size_t size, total = 0, before;
	int fd, cpu = sched_getcpu();
	ssize_t n;

	if (cpu >= 0)
		pin_to_cpu(cpu);
	fd = open_uncached(path, &size);
	before = resident_pages(fd, size);
	for (int pass = 0; pass < 2; pass++) {
		if (lseek(fd, 0, SEEK_SET))
			die("lseek");
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			total += n;
		if (n < 0)
			die("read");
	}
	printf("{\"pid\":%d,\"action\":\"reread\",\"pages\":%zu,\"bytes_read\":%zu,"
	       "\"resident_before\":%zu,\"resident_after\":%zu}\n",
	       getpid(), size / page_size, total, before, resident_pages(fd, size));
	close(fd);
}

static void set_name_hex(const char *hex)
{
	char name[16] = {0};
	size_t len = strlen(hex) / 2;

	if (len > 15)
		len = 15;
	for (size_t i = 0; i < len; i++)
		sscanf(hex + 2 * i, "%2hhx", (unsigned char *)&name[i]);
	if (prctl(PR_SET_NAME, name))
		die("prctl(PR_SET_NAME)");
}

/*
 * --in-cgroup DIR: the work is done by a child born in cgroup DIR (clone3 with
 * CLONE_INTO_CGROUP), so that nothing it does ever happened elsewhere (a process that moves
 * itself has done something before). This process only waits and exits as the child does.
 */
/* --rusage FILE (before --in-cgroup): where the born child's rusage goes once it has ended. */
static const char *rusage_path;

/*
 * Run the action in a child born in cgroup DIR (clone3), and exit as it did. With --rusage,
 * write what the kernel accounted to the child over its whole life, its reaped children
 * included, from wait4(): {"pid": N, "majflt": N, "minflt": N}, every fault the cgroup's
 * processes took.
 */
static void born_in_cgroup(const char *dir)
{
	struct clone_args args = {.flags = CLONE_INTO_CGROUP, .exit_signal = SIGCHLD};
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), status;
	struct rusage usage;
	long child;
	FILE *f;

	if (fd < 0)
		die("open cgroup");
	args.cgroup = (__u64)fd;
	child = syscall(SYS_clone3, &args, sizeof(args));
	if (child < 0)
		die("clone3(CLONE_INTO_CGROUP)");
	if (child == 0)
		return; /* the child goes on with the work */
	if (wait4((pid_t)child, &status, 0, &usage) < 0)
		die("wait4");
	if (rusage_path) {
		f = fopen(rusage_path, "w");
		if (!f || fprintf(f, "{\"pid\":%ld,\"majflt\":%ld,\"minflt\":%ld}\n", child,
				  usage.ru_majflt, usage.ru_minflt) < 0 || fclose(f))
			die(rusage_path);
	}
	exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

/* renames SECONDS: take the name the thread has (--name) again and again for SECONDS, as fast
 * as it can: each rename is a task:task_rename event. */
static void action_renames(long seconds)
{
	char name[16] = {0};
	time_t end = time(NULL) + seconds;

	if (prctl(PR_GET_NAME, name))
		die("prctl(PR_GET_NAME)");
	while (time(NULL) < end)
		for (int i = 0; i < 10000; i++)
			if (prctl(PR_SET_NAME, name))
				die("prctl(PR_SET_NAME)");
}

/* The actions, each with its argument (as the usage shows it): by text or by number. */
static const struct action {
	const char *name, *argument;
	void (*by_text)(const char *argument);
	void (*by_number)(long argument);
} actions[] = {
	{"thp", "MIB[,KIB]", action_thp, NULL},
	{"pages", "N", NULL, action_pages},
	{"renames", "SECONDS", NULL, action_renames},
	{"thphalf", "MIB", NULL, action_thphalf},
	{"sparse", "MIB", NULL, action_sparse},
	{"reserve", "MIB,HEAD[,TAIL]", action_reserve, NULL},
	{"read", "FILE", action_read, NULL},
	{"mapread", "FILE", action_mapread, NULL},
	{"mapheld", "FILE", action_mapheld, NULL},
	{"faultcount", "FILE", action_faultcount, NULL},
	{"scarce", "FRAG_MIB,THP_MIB[,MAX_MIB[,hold]]", action_scarce, NULL},
	{"hugetlb", "N", NULL, action_hugetlb},
	{"collapse", "MIB", NULL, action_collapse},
	{"sparsecollapse", "MIB", NULL, action_sparsecollapse},
	{"compact", "NODE", NULL, action_compact},
	{"tlbflip", "N", NULL, action_tlbflip},
	{"forks", "N", NULL, action_forks},
	{"idle", "N", NULL, action_idle},
	{"family", "N,M", action_family, NULL},
	{"bound", "NODE,PAGES[,hold]", action_bound, NULL},
	{"ring", "N", NULL, action_ring},
	{"hop", "N", NULL, action_hop},
	{"reuse", "A,B[,hold]", action_reuse, NULL},
	{"moved", "N,PAGES", action_moved, NULL},
	{"collapse_file", "MIB", NULL, action_collapse_file},
	{"tlbrange", "N", NULL, action_tlbrange},
	{"reread", "FILE", action_reread, NULL},
	{"starve", "MAX", NULL, action_starve},
	{"threads", "N,PAGES", action_threads, NULL},
};
#define NR_ACTIONS (sizeof(actions) / sizeof(actions[0]))

static int usage(void)
{
	fprintf(stderr, "usage: workload [--name HEX] [--linger SECS] ACTION ARGUMENT, one of:\n");
	for (size_t a = 0; a < NR_ACTIONS; a++)
		fprintf(stderr, "         %s %s\n", actions[a].name, actions[a].argument);
	fprintf(stderr, "       [--in-cgroup DIR] before the action runs it in a child born there\n"
			"       ([--rusage FILE] before it: the child's wait4 rusage, as JSON)\n");
	return 2;
}

int main(int argc, char **argv)
{
	const struct action *action = NULL;
	double linger = 0;
	int i = 1;

	page_size = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (strcmp(argv[i], "--name") == 0)
			set_name_hex(argv[i + 1]);
		else if (strcmp(argv[i], "--linger") == 0)
			linger = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--pace") == 0)
			pace = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--rusage") == 0)
			rusage_path = argv[i + 1];
		else if (strcmp(argv[i], "--in-cgroup") == 0)
			born_in_cgroup(argv[i + 1]);
		else
			break;
	}
	if (i + 2 != argc)
		return usage();
	for (size_t a = 0; a < NR_ACTIONS && !action; a++)
		if (strcmp(argv[i], actions[a].name) == 0)
			action = &actions[a];
	if (!action) {
		fprintf(stderr, "workload: unknown action '%s'\n", argv[i]);
		return 2;
	}
	if (action->by_text)
		action->by_text(argv[i + 1]);
	else
		action->by_number(atol(argv[i + 1]));
	if (linger > 0)
		usleep((useconds_t)(linger * 1e6));
	return 0;
}
