/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process's start time, the half of its identity a reused pid does not share. BPF reads it
 * from the kernel (the leader's start_boottime, ns since boot); /proc/PID/stat shows it in clock
 * ticks (field 22, starttime), which is how the loader tells whether the process that has a pid
 * now is the one it has counted.
 */
#ifndef FS_PROCESS_START_H
#define FS_PROCESS_START_H

#include <stdbool.h>
#include <linux/types.h>

/* Field 22 of a /proc/PID/stat line (the name in field 2 may hold spaces and parentheses).
 * Returns 0, or -EINVAL for a line without it. */
int stat_start_ticks(const char *line, unsigned long long *ticks);
/* The start time of process `pid`, in clock ticks since boot. Returns 0 or a negative errno
 * (-ENOENT: no such process). */
int process_start_ticks(int pid, unsigned long long *ticks);
/* ns since boot -> the clock tick /proc/PID/stat shows (the kernel's nsec_to_clock_t()), with
 * `tick_ns` ns per tick. */
static inline unsigned long long start_tick(__u64 start_ns, __u64 tick_ns)
{
	return start_ns / tick_ns;
}
/* The start time as outputs show it: seconds since boot with microseconds ("1234.567890"), as
 * the JSON member and the Prometheus label start_time_s have it. A pid is never reused within
 * a microsecond (its process must exit and be reaped first). */
#define FS_START_TIME_LEN 32
void format_start_time(__u64 start_ns, char buf[FS_START_TIME_LEN]);
/* The same as a number (exact to the microsecond for 30 years of uptime). */
static inline double start_time_s(__u64 start_ns)
{
	return (double)(start_ns / 1000) / 1e6;
}
/* ns per clock tick (sysconf(_SC_CLK_TCK)). */
__u64 clock_tick_ns(void);
/* Does process `pid` run, and is it the one started at `start_ns` (to the clock tick)? Where
 * /proc does not say (mounted with hidepid), any process with the pid is taken for it. */
bool process_alive(int pid, __u64 start_ns);

#endif /* FS_PROCESS_START_H */
