/* SPDX-License-Identifier: BSD-3-Clause */
/* reconnects.h: TCP connections opened again on the same addresses and
 * ports, counted per client (the opener of the new connection).
 *
 * A Linux NFS client keeps its source port across reconnects so that the
 * server's duplicate request cache still knows it; how often each client
 * reconnects says which clients lose their connections. Fixed size: the
 * first RECONNECT_CLIENTS clients are named, the rest counted together. */
#ifndef NFSSCOPE_RECONNECTS_H
#define NFSSCOPE_RECONNECTS_H

#include <stddef.h>
#include <stdint.h>

#define RECONNECT_CLIENTS 64

struct reconnect_client {
    uint8_t af;       /* FLOW_AF_INET or FLOW_AF_INET6 */
    uint8_t addr[16]; /* as in flow_key */
    uint64_t count;
};

struct reconnects {
    uint64_t total;
    uint64_t other; /* reconnects of clients past the first RECONNECT_CLIENTS */
    uint32_t n;
    struct reconnect_client c[RECONNECT_CLIENTS];
};

/* One more reconnect by the client at (af, addr). */
void reconnects_add(struct reconnects *r, uint8_t af, const uint8_t addr[16]);

/* Add src's counts to dst's, client by client (the shards of one run). */
void reconnects_merge(struct reconnects *dst, const struct reconnects *src);
/* The named clients, most reconnects first (ties: by address), into out[]
 * (room for RECONNECT_CLIENTS); returns how many, at most n. */
size_t reconnects_top(const struct reconnects *r, const struct reconnect_client **out, size_t n);

/* The client's address, printable (inet_ntop). */
void reconnect_client_addr(const struct reconnect_client *c, char *buf, size_t sz);

#endif
