/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Openers: children forked before foliostat drops its privileges, each keeping the few
 * capabilities one kind of open() needs and nothing else of foliostat's, that open what
 * foliostat asks for (among what its kind allows) and pass the descriptor back over a socket
 * (SCM_RIGHTS). The perf events of CPUs brought online later are opened so, and a process's
 * /proc files for the resident scan. Each makes no system call but those of its loop and its
 * open (a seccomp allow-list where the kernel has seccomp), and dies with foliostat.
 */
#ifndef FS_OPENER_H
#define FS_OPENER_H

#include <stddef.h>
#include <sys/socket.h>

struct opener_kind {
	const char *name; /* its process name (comm), e.g. foliostat-perf */
	const int *caps;  /* the capabilities it keeps, of those foliostat has */
	size_t nr_caps;
	const int *calls; /* the system calls its open makes */
	size_t nr_calls;
	size_t request_size; /* every request has this size */
	/* In the child: the descriptor for `request`, or a negative errno (a request its kind
	 * does not allow: -EINVAL). */
	int (*open)(const void *request);
};

/* Fork the opener of `kind`. Its socket, or a negative errno. */
int opener_start(const struct opener_kind *kind);
/* Ask it: the descriptor it opened (close-on-exec), or a negative errno (-EPERM once it is
 * gone). */
int opener_ask(int opener, const void *request, size_t size);
/* The descriptor an answer `msg` (as recvmsg() filled it) brings: exactly one, in one
 * SOL_SOCKET/SCM_RIGHTS message, with nothing cut off (MSG_CTRUNC); else -EPROTO, and every
 * descriptor it brought is closed. */
int opener_take_fd(const struct msghdr *msg);

#endif
