/* SPDX-License-Identifier: BSD-3-Clause */
/* flow_test.c: unit tests for the connection table (LRU, expiry, direction). */
#include "flow.h"

#include <stdlib.h>

#include "t.h"

#define MAXEV 256

struct evict_log {
    size_t n;
    struct {
        struct flow_key key;
        uint64_t id;
        uint8_t in_use;
    } e[MAXEV];
};

static struct evict_log E;

static void
on_evict(void *ctx, struct flow *f)
{
    struct evict_log *l = ctx;

    if (l->n < MAXEV) {
        l->e[l->n].key = f->key;
        l->e[l->n].id = f->id;
        l->e[l->n].in_use = f->in_use;
    }
    l->n++;
}

static struct timespec
T(long s)
{
    struct timespec t = { s, 0 };
    return t;
}

/* 10.0.0.a:sport -> 10.0.0.b:dport */
static struct flow_key
key4(uint8_t a, uint8_t b, uint16_t sport, uint16_t dport, uint8_t proto)
{
    struct flow_key k;

    memset(&k, 0, sizeof k);
    k.saddr[0] = 10;
    k.saddr[3] = a;
    k.daddr[0] = 10;
    k.daddr[3] = b;
    k.sport = sport;
    k.dport = dport;
    k.af = FLOW_AF_INET;
    k.proto = proto;
    return k;
}

static void
test_directions(void)
{
    struct flow_table t;
    struct flow_key k = key4(1, 2, 51000, 2049, FLOW_PROTO_TCP);
    struct flow_key r = flow_key_reverse(&k);
    struct timespec now = T(1);
    struct flow *f, *g;
    unsigned dir = 99;

    memset(&E, 0, sizeof E);
    EQ(flow_table_init(&t, 16, 1234, on_evict, &E), 0);
    f = flow_table_get(&t, &k, &now, &dir);
    CHECK(f != NULL);
    EQ(dir, 0);
    EQ(t.count, 1);
    CHECK(flow_key_eq(&f->key, &k));
    EQ(f->in_use, 1);
    EQ(f->rm[0].head_slot, RPC_RM_NONE);
    EQ(f->rm[1].head_slot, RPC_RM_NONE);
    now = T(2);
    dir = 99;
    g = flow_table_get(&t, &r, &now, &dir);
    CHECK(g == f);
    EQ(dir, 1);
    EQ(t.count, 1);
    EQ(f->last_seen.tv_sec, 2);
    dir = 99;
    CHECK(flow_table_get(&t, &k, &now, &dir) == f);
    EQ(dir, 0);

    /* the reverse seen first makes the reverse direction 0 */
    {
        struct flow_key k2 = key4(3, 4, 2049, 800, FLOW_PROTO_UDP);
        struct flow_key r2 = flow_key_reverse(&k2);
        struct flow *h = flow_table_get(&t, &r2, &now, &dir);
        EQ(dir, 0);
        CHECK(h != f);
        CHECK(flow_table_get(&t, &k2, &now, &dir) == h);
        EQ(dir, 1);
    }
    /* same addresses and ports, other protocol: another flow */
    {
        struct flow_key ku = key4(1, 2, 51000, 2049, FLOW_PROTO_UDP);
        CHECK(flow_table_get(&t, &ku, &now, &dir) != f);
        EQ(dir, 0);
    }
    /* other port: another flow */
    {
        struct flow_key kp = key4(1, 2, 51001, 2049, FLOW_PROTO_TCP);
        CHECK(flow_table_get(&t, &kp, &now, &dir) != f);
    }
    /* same address on both ends (loopback), ports swapped */
    {
        struct flow_key kl = key4(7, 7, 700, 2049, FLOW_PROTO_TCP);
        struct flow_key rl = flow_key_reverse(&kl);
        struct flow *l = flow_table_get(&t, &kl, &now, &dir);
        EQ(dir, 0);
        CHECK(flow_table_get(&t, &rl, &now, &dir) == l);
        EQ(dir, 1);
    }
    EQ(t.count, 5);
    EQ(E.n, 0);
    flow_table_fini(&t);
}

static void
test_ipv4_ipv6(void)
{
    struct flow_table t;
    struct flow_key k4 = key4(1, 2, 900, 2049, FLOW_PROTO_TCP);
    struct flow_key k6 = k4; /* the same 16 address bytes, but IPv6 */
    struct flow_key r6;
    struct timespec now = T(1);
    struct flow *f4, *f6;
    unsigned dir;

    k6.af = FLOW_AF_INET6;
    r6 = flow_key_reverse(&k6);
    EQ(flow_table_init(&t, 16, 99, NULL, NULL), 0);
    f4 = flow_table_get(&t, &k4, &now, &dir);
    f6 = flow_table_get(&t, &k6, &now, &dir);
    CHECK(f4 != f6);
    EQ(dir, 0);
    EQ(t.count, 2);
    CHECK(f4->id != f6->id);
    CHECK(flow_table_get(&t, &r6, &now, &dir) == f6);
    EQ(dir, 1);
    CHECK(flow_table_get(&t, &k4, &now, &dir) == f4);
    EQ(t.count, 2);

    /* a real IPv6 pair: 2001:db8::1 <-> 2001:db8::2 */
    {
        struct flow_key a;
        struct flow_key b;
        struct flow *fa;

        memset(&a, 0, sizeof a);
        a.saddr[0] = 0x20;
        a.saddr[1] = 0x01;
        a.saddr[2] = 0x0d;
        a.saddr[3] = 0xb8;
        memcpy(a.daddr, a.saddr, 16);
        a.saddr[15] = 1;
        a.daddr[15] = 2;
        a.sport = 1023;
        a.dport = 2049;
        a.af = FLOW_AF_INET6;
        a.proto = FLOW_PROTO_TCP;
        b = flow_key_reverse(&a);
        fa = flow_table_get(&t, &b, &now, &dir);
        EQ(dir, 0);
        CHECK(flow_table_get(&t, &a, &now, &dir) == fa);
        EQ(dir, 1);
        EQ(t.count, 3);
    }
    flow_table_fini(&t);
}

static void
test_lru(void)
{
    struct flow_table t;
    struct flow *f[17];
    struct flow_key k;
    struct timespec now;
    uint64_t id0;
    unsigned dir, i;

    /* the 17th flow evicts the least recently used */
    memset(&E, 0, sizeof E);
    EQ(flow_table_init(&t, 16, 5, on_evict, &E), 0);
    for (i = 0; i < 16; i++) {
        k = key4(1, 2, (uint16_t)(1000 + i), 2049, FLOW_PROTO_TCP);
        now = T((long)i);
        f[i] = flow_table_get(&t, &k, &now, &dir);
    }
    id0 = f[0]->id;
    EQ(t.count, 16);
    EQ(E.n, 0);
    k = key4(1, 2, 1016, 2049, FLOW_PROTO_TCP);
    now = T(16);
    f[16] = flow_table_get(&t, &k, &now, &dir);
    EQ(E.n, 1);
    EQ(E.e[0].key.sport, 1000);
    EQ(E.e[0].id, id0);
    EQ(E.e[0].in_use, 1); /* told before the entry is reused */
    EQ(t.evicted, 1);
    EQ(t.count, 16);
    CHECK(f[16] == f[0]); /* the slot was reused */
    EQ(f[16]->key.sport, 1016);
    /* flow 0 again: a new flow (new id), evicting flow 1 */
    k = key4(1, 2, 1000, 2049, FLOW_PROTO_TCP);
    CHECK(flow_table_get(&t, &k, &now, &dir)->id != id0);
    EQ(E.n, 2);
    EQ(E.e[1].key.sport, 1001);
    flow_table_fini(&t);

    /* touching a flow (either direction) protects it */
    memset(&E, 0, sizeof E);
    EQ(flow_table_init(&t, 16, 5, on_evict, &E), 0);
    for (i = 0; i < 16; i++) {
        k = key4(1, 2, (uint16_t)(1000 + i), 2049, FLOW_PROTO_TCP);
        now = T((long)i);
        f[i] = flow_table_get(&t, &k, &now, &dir);
    }
    k = key4(2, 1, 2049, 1000, FLOW_PROTO_TCP); /* flow 0, reply direction */
    now = T(20);
    CHECK(flow_table_get(&t, &k, &now, &dir) == f[0]);
    EQ(dir, 1);
    k = key4(1, 2, 1001, 2049, FLOW_PROTO_TCP); /* flow 1 */
    CHECK(flow_table_get(&t, &k, &now, &dir) == f[1]);
    k = key4(1, 2, 2000, 2049, FLOW_PROTO_TCP);
    flow_table_get(&t, &k, &now, &dir);
    EQ(E.n, 1);
    EQ(E.e[0].key.sport, 1002); /* not 1000 or 1001 */
    k = key4(1, 2, 2001, 2049, FLOW_PROTO_TCP);
    flow_table_get(&t, &k, &now, &dir);
    EQ(E.n, 2);
    EQ(E.e[1].key.sport, 1003);
    k = key4(1, 2, 1000, 2049, FLOW_PROTO_TCP);
    CHECK(flow_table_get(&t, &k, &now, &dir) == f[0]); /* still there */
    EQ(E.n, 2);
    flow_table_fini(&t);
}

static void
test_expire(void)
{
    struct flow_table t;
    struct flow_key k;
    struct timespec now;
    unsigned dir, i;

    memset(&E, 0, sizeof E);
    EQ(flow_table_init(&t, 16, 77, on_evict, &E), 0);
    for (i = 0; i < 16; i++) {
        k = key4(1, 2, (uint16_t)(1000 + i), 2049, FLOW_PROTO_TCP);
        now = T((long)(100 + i));
        flow_table_get(&t, &k, &now, &dir);
    }
    /* touch flow 0 late: it is not idle */
    k = key4(1, 2, 1000, 2049, FLOW_PROTO_TCP);
    now = T(118);
    flow_table_get(&t, &k, &now, &dir);

    now = T(120); /* idle 10: flows last seen before 110 go (101..109) */
    flow_table_expire(&t, &now, 10, 3); /* budget 3 first */
    EQ(E.n, 3);
    EQ(t.expired, 3);
    flow_table_expire(&t, &now, 10, 100);
    EQ(E.n, 9);
    EQ(t.expired, 9);
    EQ(t.evicted, 0);
    EQ(t.count, 7);
    {
        size_t j;
        unsigned bad = 0;
        for (j = 0; j < E.n && j < MAXEV; j++)
            if (E.e[j].key.sport < 1001 || E.e[j].key.sport > 1009)
                bad++;
        EQ(bad, 0);
        EQ(E.e[0].key.sport, 1001); /* least recently used first */
    }
    /* exactly idle_s is not idle */
    for (i = 10; i < 16; i++) {
        k = key4(1, 2, (uint16_t)(1000 + i), 2049, FLOW_PROTO_TCP);
        now = T(120);
        CHECK(flow_table_get(&t, &k, &now, &dir) != NULL);
    }
    EQ(E.n, 9); /* all still present: no new flow, no eviction */
    EQ(t.count, 7);
    now = T(128); /* flow 0 (last seen 118) idle exactly 10 */
    flow_table_expire(&t, &now, 10, 100);
    EQ(t.count, 7);
    now = T(129);
    flow_table_expire(&t, &now, 10, 100);
    EQ(t.count, 6);
    EQ(E.e[9].key.sport, 1000);
    now = T(130); /* flows 10..15 (last seen 120) idle exactly 10 */
    flow_table_expire(&t, &now, 10, 100);
    EQ(t.count, 6);
    now = T(131);
    flow_table_expire(&t, &now, 10, 100);
    EQ(t.count, 0);
    EQ(E.n, 16);
    EQ(t.expired, 16);
    flow_table_expire(&t, &now, 10, 100); /* empty table */
    EQ(t.count, 0);
    flow_table_fini(&t);
}

struct visit {
    size_t n;
    struct flow *seen[64];
    unsigned bad;
};

static void
visit(void *ctx, struct flow *f)
{
    struct visit *v = ctx;
    size_t i;

    if (!f->in_use)
        v->bad++;
    for (i = 0; i < v->n && i < 64; i++)
        if (v->seen[i] == f)
            v->bad++; /* visited twice */
    if (v->n < 64)
        v->seen[v->n] = f;
    v->n++;
}

static void
test_ids_foreach(void)
{
    struct flow_table t;
    struct flow_key k;
    struct timespec now = T(1);
    struct visit v;
    uint64_t last = 0;
    unsigned dir, i, nonincr = 0;

    memset(&E, 0, sizeof E);
    EQ(flow_table_init(&t, 16, 3, on_evict, &E), 0);
    memset(&v, 0, sizeof v);
    flow_table_foreach(&t, visit, &v); /* empty table */
    EQ(v.n, 0);
    for (i = 0; i < 100; i++) { /* with evictions: ids keep growing */
        struct flow *f;
        k = key4((uint8_t)(i % 7), 200, (uint16_t)(3000 + i), 2049, FLOW_PROTO_UDP);
        f = flow_table_get(&t, &k, &now, &dir);
        if (f->id <= last)
            nonincr++;
        last = f->id;
    }
    EQ(nonincr, 0);
    EQ(t.evicted, 84);
    EQ(E.n, 84);
    memset(&v, 0, sizeof v);
    flow_table_foreach(&t, visit, &v);
    EQ(v.n, 16);
    EQ(v.n, t.count);
    EQ(v.bad, 0);
    {
        /* the live flows are exactly the last 16 created */
        unsigned missing = 0;
        for (i = 84; i < 100; i++) {
            size_t j;
            bool found = false;
            for (j = 0; j < v.n && j < 64; j++)
                if (v.seen[j]->key.sport == 3000 + i)
                    found = true;
            if (!found)
                missing++;
        }
        EQ(missing, 0);
    }
    /* after expiring some, foreach sees only the rest */
    now = T(100);
    k = key4(99 % 7, 200, 3099, 2049, FLOW_PROTO_UDP);
    flow_table_get(&t, &k, &now, &dir);
    flow_table_expire(&t, &now, 10, 100);
    EQ(t.count, 1);
    memset(&v, 0, sizeof v);
    flow_table_foreach(&t, visit, &v);
    EQ(v.n, 1);
    EQ(v.bad, 0);
    flow_table_fini(&t);
}

/* Who is the client (flow_client_dir): the SYN's sender, else the end off
 * the well-known port, else the first caller; a new connection on the same
 * ports gets a new id, keeps the old one, and is judged afresh. */
static void
test_roles_renew(void)
{
    struct flow_table t;
    struct flow_key k = key4(1, 2, 2049, 51000, FLOW_PROTO_TCP); /* dir 0: server -> client */
    struct timespec now = T(1);
    struct flow *f;
    unsigned dir;
    uint64_t id;

    EQ(flow_table_init(&t, 16, 77, NULL, NULL), 0);
    f = flow_table_get(&t, &k, &now, &dir);
    EQ(flow_client_dir(f, 0), 1); /* port 2049 serves: a call from it is a callback */
    EQ(flow_client_dir(f, 1), 1);
    flow_note_syn(f, 0, false); /* ... unless that end opened the connection */
    EQ(flow_client_dir(f, 1), 0);
    flow_note_syn(f, 0, true); /* a SYN-ACK does not override the SYN */
    EQ(flow_client_dir(f, 1), 0);
    id = f->id;
    flow_table_renew(&t, f);
    CHECK(f->id != id && f->prev_id == id);
    EQ(flow_client_dir(f, 0), 1); /* judged afresh: the port again */
    flow_table_renew(&t, f);
    flow_note_syn(f, 0, true); /* the SYN-ACK's sender is the server */
    EQ(flow_client_dir(f, 0), 1);

    /* no well-known port, no SYN: the first caller */
    k = key4(1, 2, 40000, 50000, FLOW_PROTO_UDP);
    f = flow_table_get(&t, &k, &now, &dir);
    EQ(flow_client_dir(f, 1), 1);
    EQ(flow_client_dir(f, 0), 1);
    /* both ends on well-known ports: the first caller too */
    k = key4(1, 2, 111, 2049, FLOW_PROTO_UDP);
    f = flow_table_get(&t, &k, &now, &dir);
    EQ(flow_client_dir(f, 0), 0);
    EQ(flow_client_dir(f, 1), 0);
    flow_table_fini(&t);
}

/* A packet of the same connection as the one before it is found without
 * hashing (the head of the LRU list): a random walk over a few connections,
 * both directions and runs of one, gives the same flows and directions as a
 * table in which every lookup hashes (a packet of another connection comes
 * between any two). */
static void
test_same_flow(void)
{
    struct flow_table a, b;
    struct flow_key keys[6], other = key4(99, 98, 1, 2, FLOW_PROTO_UDP);
    struct timespec now = T(1);
    unsigned i, fast = 0;
    uint32_t x = 12345;

    keys[0] = key4(1, 2, 51000, 2049, FLOW_PROTO_TCP);
    keys[1] = key4(1, 2, 51001, 2049, FLOW_PROTO_TCP);
    keys[2] = key4(1, 2, 51000, 2049, FLOW_PROTO_UDP);
    keys[3] = key4(7, 7, 700, 2049, FLOW_PROTO_TCP); /* loopback: equal addresses */
    keys[4] = key4(7, 7, 2049, 700, FLOW_PROTO_TCP); /* its reverse, as a key */
    keys[5] = key4(3, 4, 2049, 2049, FLOW_PROTO_TCP); /* equal ports */
    EQ(flow_table_init(&a, 64, 77, NULL, NULL), 0);
    EQ(flow_table_init(&b, 64, 77, NULL, NULL), 0);
    for (i = 0; i < 2000; i++) {
        struct flow_key k;
        struct flow *fa, *fb, *prev = a.lru_head != HT_NONE ? &a.slab[a.lru_head] : NULL;
        unsigned da = 9, db = 9, d;

        x = x * 1103515245u + 12345u;
        k = keys[(x >> 16) % 6];
        if ((x >> 8) & 1)
            k = flow_key_reverse(&k);
        fa = flow_table_get(&a, &k, &now, &da);
        flow_table_get(&b, &other, &now, &d);
        fb = flow_table_get(&b, &k, &now, &db);
        EQ(da, db);
        CHECK(flow_key_eq(&fa->key, &fb->key));
        fast += fa == prev;
        if ((x >> 20) % 3 == 0) { /* a run of the same connection */
            fa = flow_table_get(&a, &k, &now, &da);
            fb = flow_table_get(&b, &k, &now, &db);
            EQ(da, db);
            CHECK(flow_key_eq(&fa->key, &fb->key));
        }
    }
    CHECK(fast > 100);
    EQ(a.count, 5); /* keys[3] and keys[4] are one connection */
    EQ(b.count, 6);
    flow_table_fini(&a);
    flow_table_fini(&b);
}

/* The recent slots are guesses: a slot freed (expired, evicted) or reused
 * by another connection must not be taken for the key it held. A small
 * table against a model of it (LRU order, ids): 40 keys over 4 entries,
 * both directions, with expiry, so slots are freed and reused all the
 * time; then a key whose slot was freed but still holds it. */
static void
test_recent(void)
{
    struct model {
        struct flow_key key;
        uint64_t id;
    } m[4];
    struct flow_table t;
    struct timespec now = T(1);
    size_t mn = 0, i, j;
    uint64_t next_id = 1;
    uint32_t x = 777;

    memset(&E, 0, sizeof E);
    EQ(flow_table_init(&t, 4, 5, on_evict, &E), 0);
    for (i = 0; i < 5000; i++) {
        struct flow_key k = key4((uint8_t)(1 + (x >> 16) % 40), 200, 800, 2049, FLOW_PROTO_TCP);
        unsigned dir = 9, want = 0;
        struct flow *f;

        x = x * 1103515245u + 12345u;
        if ((x >> 9) & 1) {
            k = flow_key_reverse(&k);
            want = 1;
        }
        for (j = 0; j < mn; j++) {
            struct flow_key r = flow_key_reverse(&m[j].key);
            if (flow_key_eq(&m[j].key, &k) || flow_key_eq(&r, &k))
                break;
        }
        if (j < mn) { /* found: to the front */
            struct model e = m[j];

            want = flow_key_eq(&e.key, &k) ? 0 : 1;
            memmove(m + 1, m, j * sizeof m[0]);
            m[0] = e;
        } else { /* new: the least recently used goes when full */
            if (mn == 4)
                mn--;
            memmove(m + 1, m, mn * sizeof m[0]);
            m[0].key = k;
            m[0].id = next_id++;
            mn++;
            want = 0;
        }
        f = flow_table_get(&t, &k, &now, &dir);
        EQ(f->id, m[0].id);
        EQ(dir, want);
        if ((x >> 24) % 50 == 0) { /* all idle: every entry expires, slots keep their keys */
            now.tv_sec += 100;
            flow_table_expire(&t, &now, 10, 0);
            mn = 0;
            EQ(t.count, 0);
        }
    }
    /* Freed, its key still in the slot: a new connection, not the old one. */
    {
        struct flow_key k = key4(50, 51, 900, 2049, FLOW_PROTO_TCP);
        unsigned dir;
        uint64_t old = flow_table_get(&t, &k, &now, &dir)->id;

        now.tv_sec += 100;
        flow_table_expire(&t, &now, 10, 0);
        CHECK(flow_table_get(&t, &k, &now, &dir)->id != old);
        EQ(t.count, 1);
    }
    flow_table_fini(&t);
}

int
main(void)
{
    test_roles_renew();
    test_directions();
    test_ipv4_ipv6();
    test_lru();
    test_expire();
    test_ids_foreach();
    test_same_flow();
    test_recent();
    return t_done();
}
