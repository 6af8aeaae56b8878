/* SPDX-License-Identifier: BSD-3-Clause */
/* flow.c: fixed-capacity connection table with LRU eviction. */
#include "flow.h"

#include <stdlib.h>
#include <string.h>

/* One endpoint (address, port), seeded. */
static uint64_t
ep_hash(const uint8_t *addr, uint16_t port, uint64_t seed)
{
    uint64_t a, b;

    memcpy(&a, addr, 8);
    memcpy(&b, addr + 8, 8);
    return hash_u64x2(a, b ^ port, seed);
}

/* Direction-independent: the sum of both endpoints' hashes (a sum, not an
 * xor, so a connection between equal endpoints does not hash to 0). */
static uint64_t
key_hash(const struct flow_key *k, uint64_t seed)
{
    return (ep_hash(k->saddr, k->sport, seed) + ep_hash(k->daddr, k->dport, seed)) ^
           ((uint64_t)k->proto << 56 | k->af);
}

static void
lru_unlink(struct flow_table *t, uint32_t s)
{
    struct flow *f = &t->slab[s];

    if (f->lru_prev != HT_NONE)
        t->slab[f->lru_prev].lru_next = f->lru_next;
    else
        t->lru_head = f->lru_next;
    if (f->lru_next != HT_NONE)
        t->slab[f->lru_next].lru_prev = f->lru_prev;
    else
        t->lru_tail = f->lru_prev;
}

static void
lru_push_head(struct flow_table *t, uint32_t s)
{
    struct flow *f = &t->slab[s];

    f->lru_prev = HT_NONE;
    f->lru_next = t->lru_head;
    if (t->lru_head != HT_NONE)
        t->slab[t->lru_head].lru_prev = s;
    t->lru_head = s;
    if (t->lru_tail == HT_NONE)
        t->lru_tail = s;
}

int
flow_table_init(struct flow_table *t, size_t cap, uint64_t seed, flow_evict_fn *on_evict, void *ctx)
{
    memset(t, 0, sizeof *t);
    if (cap == 0 || cap >= HT_NONE)
        return -1;
    /* calloc: pages of the slab are touched only as flows are used. */
    t->slab = calloc(cap, sizeof *t->slab);
    if (!t->slab || hashtab_init(&t->idx, cap) != 0) {
        free(t->slab);
        t->slab = NULL;
        return -1;
    }
    t->cap = cap;
    t->free_head = HT_NONE; /* slots past `fresh` were never used: no list to build */
    t->fresh = 0;
    t->lru_head = t->lru_tail = HT_NONE;
    t->seed = seed;
    t->next_id = 1;
    t->on_evict = on_evict;
    t->ctx = ctx;
    return 0;
}

void
flow_table_fini(struct flow_table *t)
{
    hashtab_fini(&t->idx);
    free(t->slab);
    t->slab = NULL;
}

static void
release(struct flow_table *t, uint32_t s)
{
    struct flow *f = &t->slab[s];

    if (t->on_evict)
        t->on_evict(t->ctx, f);
    hashtab_remove(&t->idx, f->hash, s);
    lru_unlink(t, s);
    f->in_use = 0;
    f->lru_next = t->free_head;
    t->free_head = s;
    t->count--;
}

/* f->role: bit 0 the client's direction, bits 1-2 how it was decided. */
enum { ROLE_NONE = 0, ROLE_FIRST_CALL = 1, ROLE_PORT = 2, ROLE_SYN = 3 };

static bool
rpc_port(uint16_t p)
{
    return p == 111 || p == 2049 || p == 4045 || p == 20048;
}

/* Rule 2: the end that serves a well-known port is the server. */
static uint8_t
port_role(const struct flow_key *k)
{
    if (rpc_port(k->dport) && !rpc_port(k->sport))
        return ROLE_PORT << 1 | 0;
    if (rpc_port(k->sport) && !rpc_port(k->dport))
        return ROLE_PORT << 1 | 1;
    return ROLE_NONE;
}

void
flow_table_renew(struct flow_table *t, struct flow *f)
{
    f->prev_id = f->id;
    f->id = t->next_id++;
    f->role = ROLE_NONE;
    f->tls = 0;
    memset(f->tls_half, 0, sizeof f->tls_half);
}

unsigned
flow_client_dir(struct flow *f, unsigned call_dir)
{
    if (f->role >> 1 == ROLE_NONE)
        f->role = port_role(&f->key);
    if (f->role >> 1 == ROLE_NONE)
        f->role = (uint8_t)(ROLE_FIRST_CALL << 1 | (call_dir & 1));
    return f->role & 1;
}

void
flow_note_syn(struct flow *f, unsigned dir, bool synack)
{
    /* The SYN-ACK answers the opener; the opener's own SYN says more. */
    if (!synack)
        f->role = (uint8_t)(ROLE_SYN << 1 | (dir & 1));
    else if (f->role >> 1 != ROLE_SYN)
        f->role = (uint8_t)(ROLE_SYN << 1 | ((dir & 1) ^ 1));
}

/* Is a the tuple k seen from the other side (flow_key_reverse, without the
 * copy)? */
static bool
key_is_reverse(const struct flow_key *a, const struct flow_key *k)
{
    return a->sport == k->dport && a->dport == k->sport && a->af == k->af &&
           a->proto == k->proto && memcmp(a->pad, k->pad, sizeof a->pad) == 0 &&
           memcmp(a->saddr, k->daddr, 16) == 0 && memcmp(a->daddr, k->saddr, 16) == 0;
}

struct flow *
flow_table_get(struct flow_table *t, const struct flow_key *k, const struct timespec *now,
               unsigned *dir)
{
    uint64_t h;
    uint32_t pos, s;
    struct flow *f;

    /* The same connection as the previous packet (the head of the LRU list)
     * is found without hashing: a key names at most one entry either way
     * round, so this is the entry the lookup below would find. */
    if (t->lru_head != HT_NONE) {
        bool fwd;

        f = &t->slab[t->lru_head];
        fwd = flow_key_eq(&f->key, k);
        if (fwd || key_is_reverse(&f->key, k)) {
            *dir = fwd ? 0 : 1;
            f->last_seen = *now;
            return f;
        }
    }
    h = key_hash(k, t->seed);
    for (s = hashtab_first(&t->idx, h, &pos); s != HT_NONE; s = hashtab_next(&t->idx, h, &pos)) {
        f = &t->slab[s];
        if (flow_key_eq(&f->key, k))
            *dir = 0;
        else {
            struct flow_key r = flow_key_reverse(k);
            if (!flow_key_eq(&f->key, &r))
                continue;
            *dir = 1;
        }
        f->last_seen = *now;
        if (t->lru_head != s) {
            lru_unlink(t, s);
            lru_push_head(t, s);
        }
        return f;
    }
    if (t->free_head == HT_NONE && t->fresh < t->cap) {
        s = (uint32_t)t->fresh++;
    } else {
        if (t->free_head == HT_NONE) {
            t->evicted++;
            release(t, t->lru_tail);
        }
        s = t->free_head;
        t->free_head = t->slab[s].lru_next;
    }
    f = &t->slab[s];
    memset(f, 0, sizeof *f);
    f->key = *k;
    f->id = t->next_id++;
    f->hash = h;
    f->last_seen = *now;
    f->in_use = 1;
    f->tcp[0].ooo_first = f->tcp[1].ooo_first = TCP_NONE;
    f->rm[0].head_slot = f->rm[1].head_slot = RPC_RM_NONE;
    hashtab_insert(&t->idx, h, s);
    lru_push_head(t, s);
    t->count++;
    *dir = 0;
    return f;
}

struct flow *
flow_table_find(const struct flow_table *t, const struct flow_key *k)
{
    struct flow_key r = flow_key_reverse(k);
    uint64_t h = key_hash(k, t->seed);
    uint32_t pos, s;

    for (s = hashtab_first(&t->idx, h, &pos); s != HT_NONE; s = hashtab_next(&t->idx, h, &pos))
        if (flow_key_eq(&t->slab[s].key, k) || flow_key_eq(&t->slab[s].key, &r))
            return &t->slab[s];
    return NULL;
}

void
flow_table_expire(struct flow_table *t, const struct timespec *now, unsigned idle_s, size_t budget)
{
    size_t looked = 0;

    while (t->lru_tail != HT_NONE && (budget == 0 || looked++ < budget)) {
        struct flow *f = &t->slab[t->lru_tail];
        if (now->tv_sec - f->last_seen.tv_sec <= (time_t)idle_s)
            return;
        t->expired++;
        release(t, t->lru_tail);
    }
}

void
flow_table_foreach(struct flow_table *t, void (*fn)(void *ctx, struct flow *f), void *ctx)
{
    uint32_t s;

    for (s = t->lru_head; s != HT_NONE; s = t->slab[s].lru_next)
        fn(ctx, &t->slab[s]);
}
