/* SPDX-License-Identifier: BSD-3-Clause */
/* flow.h: the connection table: one entry per TCP connection or UDP
 * address/port pair, both directions, with its reassembly state.
 *
 * Fixed capacity, allocated once; the least recently used entry is evicted
 * when full (the caller is told first, to flush it), and idle entries expire
 * by packet time. Entries never move: a `struct flow *` stays valid until the
 * entry is evicted or expired. */
#ifndef NFSSCOPE_FLOW_H
#define NFSSCOPE_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "breakdown.h"
#include "flow_key.h"
#include "hashtab.h"
#include "rpc_rm.h"
#include "rpc_tls.h"
#include "tcp_reasm.h"
#include "xid_table.h"

struct flow {
    struct flow_key key; /* as first seen: direction 0 is src -> dst */
    uint64_t id;         /* the connection: unique for the table's lifetime (XID matching key) */
    uint64_t prev_id;    /* the previous connection on the same ports, or 0 */
    uint64_t hash;
    struct timespec last_seen;
    uint32_t lru_prev, lru_next; /* slot ids, HT_NONE at the ends */
    uint8_t in_use;
    uint8_t rpc_seen;  /* a valid RPC message was decoded on this flow */
    uint8_t role;      /* internal: who is the client, and from what (flow_client_dir) */
    uint8_t tls;       /* the connection switched to TLS after an AUTH_TLS probe
                        * (RFC 9289 §4.1): its bytes are TLS records, not RPC */
    uint8_t tls_idx;   /* its row in stats.tls (rpc_tls_start) */
    struct rpc_tls_half tls_half[2];
    struct tcp_half tcp[2];
    struct rpc_rm rm[2];
    struct bd_cache bdc; /* breakdown rows of this connection's calls */
    struct xid_conn xc;  /* its pending calls, for the matcher (xid_table.h) */
};

/* Called before an entry is reused (evicted or expired), so its streams can be
 * flushed and its resources released. */
typedef void flow_evict_fn(void *ctx, struct flow *f);

/* Slots of recently seen connections, by a cheap hash of the unordered
 * address and port pair (flow.c): most packets find their connection
 * there without the seeded hash. */
#define FLOW_RECENT 256

struct flow_table {
    struct flow *slab;
    size_t cap;
    uint32_t free_head; /* free list through lru_next */
    size_t fresh;       /* slots [fresh, cap) have never been used */
    uint32_t lru_head, lru_tail; /* most / least recently used */
    struct hashtab idx;
    uint64_t seed, next_id;
    size_t count;
    uint64_t evicted, expired;
    flow_evict_fn *on_evict;
    void *ctx;
    uint32_t recent[FLOW_RECENT]; /* slot ids or HT_NONE; checked against the key */
};

int flow_table_init(struct flow_table *t, size_t cap, uint64_t seed, flow_evict_fn *on_evict,
                    void *ctx);
void flow_table_fini(struct flow_table *t);

/* Find or create the flow of `k` (either direction). *dir is 0 when k runs
 * the way the flow was first seen, 1 otherwise. Never fails: when full, the
 * least recently used flow is evicted (counted). */
struct flow *flow_table_get(struct flow_table *t, const struct flow_key *k,
                            const struct timespec *now, unsigned *dir);

/* The flow of `k` (either direction) if it is in the table, else NULL; no
 * side effects (no LRU touch, nothing created). */
struct flow *flow_table_find(const struct flow_table *t, const struct flow_key *k);

/* A new connection on f's addresses and ports (TCP: a SYN after the old one
 * ended): f gets a new id, the old one is kept as prev_id, and its role is
 * decided afresh. */
void flow_table_renew(struct flow_table *t, struct flow *f);

/* The connection's role, RFC 5531 §9 terms: the flow direction that runs
 * from the client (the caller of the connection's programs) to the server.
 * Decided once per connection, by the strongest evidence seen:
 *   1. who opened it: the sender of a SYN, the receiver of a SYN-ACK
 *      (flow_note_syn);
 *   2. who serves a well-known RPC port (rpcbind 111, NFS 2049, NLM 4045,
 *      mountd 20048) when only one end does;
 *   3. who sent the first call (call_dir, the direction of the call being
 *      matched: it decides when nothing above did).
 * A call travelling the other way is a callback from the server. */
unsigned flow_client_decide(struct flow *f, unsigned call_dir);
static inline unsigned
flow_client_dir(struct flow *f, unsigned call_dir)
{
    if (f->role >= 2) /* decided (flow.c: the evidence, then the client's direction) */
        return f->role & 1;
    return flow_client_decide(f, call_dir);
}

/* Direction dir of f started at a SYN (synack: a SYN-ACK) that the
 * reassembly accepted (TCP_EV_OPEN, TCP_EV_ACCEPT). */
void flow_note_syn(struct flow *f, unsigned dir, bool synack);

/* Expire flows idle longer than idle_s at packet time `now`; at most `budget`
 * (0 = no limit). */
void flow_table_expire(struct flow_table *t, const struct timespec *now, unsigned idle_s,
                       size_t budget);

/* Visit every flow in use (for end-of-input flushing). */
void flow_table_foreach(struct flow_table *t, void (*fn)(void *ctx, struct flow *f), void *ctx);

#endif
