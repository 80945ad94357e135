/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who a connection comes from, for the exporter's limits: its address (IPv4, IPv6), or its uid
 * on a Unix socket (where every local user has one address, and a uid is who they are).
 */
#ifndef FS_CLIENT_KEY_H
#define FS_CLIENT_KEY_H

#include <stdbool.h>
#include <string.h>

struct client_key {
	int family; /* AF_INET, AF_INET6, or AF_UNIX (addr: the uid) */
	unsigned char addr[16];
};

static inline bool same_client(const struct client_key *a, const struct client_key *b)
{
	return a->family == b->family && !memcmp(a->addr, b->addr, sizeof(a->addr));
}

#endif /* FS_CLIENT_KEY_H */
