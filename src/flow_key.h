/* SPDX-License-Identifier: BSD-3-Clause */
/* flow_key.h: the address/port tuple that names one direction of a conversation. */
#ifndef NFSSCOPE_FLOW_KEY_H
#define NFSSCOPE_FLOW_KEY_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

enum { FLOW_AF_INET = 4, FLOW_AF_INET6 = 6 };
enum { FLOW_PROTO_TCP = 6, FLOW_PROTO_UDP = 17 };

/* IPv4 addresses are stored in the first 4 bytes of saddr/daddr, the rest zero,
 * so keys compare with memcmp. Ports in host order. */
struct flow_key {
    uint8_t saddr[16];
    uint8_t daddr[16];
    uint16_t sport, dport;
    uint8_t af;    /* FLOW_AF_INET or FLOW_AF_INET6 */
    uint8_t proto; /* FLOW_PROTO_TCP or FLOW_PROTO_UDP */
    uint8_t pad[2];
};

/* The same tuple seen from the other side. */
static inline struct flow_key
flow_key_reverse(const struct flow_key *k)
{
    struct flow_key r = *k;
    memcpy(r.saddr, k->daddr, 16);
    memcpy(r.daddr, k->saddr, 16);
    r.sport = k->dport;
    r.dport = k->sport;
    return r;
}

static inline bool
flow_key_eq(const struct flow_key *a, const struct flow_key *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

#endif
