/* SPDX-License-Identifier: BSD-3-Clause */
/* flow.c: fixed-capacity connection table with LRU eviction. */
#include "flow.h"

#include <stdlib.h>
#include <string.h>

#include "hugemem.h"

_Static_assert(sizeof(struct flow_key) == 40, "flow keys compare as five words");

static inline uint64_t
ld64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, 8);
    return v;
}

/* a == b, word by word (flow_key_eq without the library call). */
static inline bool
key_same(const struct flow_key *a, const struct flow_key *b)
{
    const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)b;

    return ((ld64(x) ^ ld64(y)) | (ld64(x + 8) ^ ld64(y + 8)) | (ld64(x + 16) ^ ld64(y + 16)) |
            (ld64(x + 24) ^ ld64(y + 24)) | (ld64(x + 32) ^ ld64(y + 32))) == 0;
}

/* Is a the tuple k seen from the other side (flow_key_reverse, without the
 * copy)? */
static inline bool
key_is_reverse(const struct flow_key *a, const struct flow_key *k)
{
    return ((ld64(a->saddr) ^ ld64(k->daddr)) | (ld64(a->saddr + 8) ^ ld64(k->daddr + 8)) |
            (ld64(a->daddr) ^ ld64(k->saddr)) | (ld64(a->daddr + 8) ^ ld64(k->saddr + 8))) == 0 &&
           a->sport == k->dport && a->dport == k->sport && a->af == k->af &&
           a->proto == k->proto && a->pad[0] == k->pad[0] && a->pad[1] == k->pad[1];
}

/* The recent-slot index of a key, the same both ways: not seeded (an entry
 * is only a guess, checked against the key). */
static inline unsigned
recent_ix(const struct flow_key *k)
{
    /* The endpoints added, not xored: an xor would cancel what the two
     * addresses share (a capture's clients and servers often share most). */
    uint64_t a = ld64(k->saddr) ^ ld64(k->saddr + 8) ^ (uint64_t)k->sport << 48;
    uint64_t b = ld64(k->daddr) ^ ld64(k->daddr + 8) ^ (uint64_t)k->dport << 48;

    return (unsigned)(((a + b) * 0x9e3779b97f4a7c15ULL) >> 56) % FLOW_RECENT;
}

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
    for (size_t i = 0; i < FLOW_RECENT; i++)
        t->recent[i] = HT_NONE;
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

_Static_assert(ROLE_NONE == 0, "flow_client_dir: a role of 2 or more is decided");

unsigned
flow_client_decide(struct flow *f, unsigned call_dir)
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

/* The slot of k's entry (*dir as flow_table_get's), or HT_NONE. */
static uint32_t
lookup(const struct flow_table *t, const struct flow_key *k, unsigned *dir)
{
    uint64_t h = key_hash(k, t->seed);
    uint32_t pos, s;

    for (s = hashtab_first(&t->idx, h, &pos); s != HT_NONE; s = hashtab_next(&t->idx, h, &pos)) {
        if (key_same(&t->slab[s].key, k)) {
            *dir = 0;
            return s;
        }
        if (key_is_reverse(&t->slab[s].key, k)) {
            *dir = 1;
            return s;
        }
    }
    return HT_NONE;
}

/* Entries made resident at a time while the slab is given out in order
 * (mem_populate_run). */
#define FLOW_POPULATE 64

/* A new entry for k (dir 0), evicting the least recently used when full. */
static struct flow *
create(struct flow_table *t, const struct flow_key *k, const struct timespec *now)
{
    uint64_t h = key_hash(k, t->seed);
    struct flow *f;
    uint32_t s;

    if (t->free_head == HT_NONE && t->fresh < t->cap) {
        s = (uint32_t)t->fresh++;
        mem_populate_run(t->slab, sizeof *t->slab, s, t->cap, FLOW_POPULATE);
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
    return f;
}

struct flow *
flow_table_get(struct flow_table *t, const struct flow_key *k, const struct timespec *now,
               unsigned *dir)
{
    unsigned ri = recent_ix(k);
    uint32_t s = t->recent[ri];
    struct flow *f = s != HT_NONE ? &t->slab[s] : NULL;

    /* A recent connection's slot is found without hashing: a key names at
     * most one entry either way round, so an entry in use with this key is
     * the one the lookup below would find. */
    if (f && f->in_use && key_same(&f->key, k)) {
        *dir = 0;
    } else if (f && f->in_use && key_is_reverse(&f->key, k)) {
        *dir = 1;
    } else {
        s = lookup(t, k, dir);
        if (s == HT_NONE) {
            f = create(t, k, now);
            t->recent[ri] = t->lru_head;
            *dir = 0;
            return f;
        }
        t->recent[ri] = s;
        f = &t->slab[s];
    }
    f->last_seen = *now;
    if (t->lru_head != s) {
        lru_unlink(t, s);
        lru_push_head(t, s);
    }
    return f;
}

struct flow *
flow_table_find(const struct flow_table *t, const struct flow_key *k)
{
    unsigned dir;
    uint32_t s = lookup(t, k, &dir);

    return s != HT_NONE ? &t->slab[s] : NULL;
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
