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
#include "tcp_reasm.h"

struct flow {
    struct flow_key key; /* as first seen: direction 0 is src -> dst */
    uint64_t id;         /* unique for the table's lifetime (XID matching key) */
    uint64_t hash;
    struct timespec last_seen;
    uint32_t lru_prev, lru_next; /* slot ids, HT_NONE at the ends */
    uint8_t in_use;
    uint8_t rpc_seen;  /* a valid RPC message was decoded on this flow */
    struct tcp_half tcp[2];
    struct rpc_rm rm[2];
    struct bd_cache bdc; /* breakdown rows of this connection's calls */
};

/* Called before an entry is reused (evicted or expired), so its streams can be
 * flushed and its resources released. */
typedef void flow_evict_fn(void *ctx, struct flow *f);

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

/* Expire flows idle longer than idle_s at packet time `now`; at most `budget`
 * (0 = no limit). */
void flow_table_expire(struct flow_table *t, const struct timespec *now, unsigned idle_s,
                       size_t budget);

/* Visit every flow in use (for end-of-input flushing). */
void flow_table_foreach(struct flow_table *t, void (*fn)(void *ctx, struct flow *f), void *ctx);

#endif
