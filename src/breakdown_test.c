/* SPDX-License-Identifier: BSD-3-Clause */
/* breakdown_test.c: bounded tables, eviction into "other", totals, top-N order;
 * per-procedure counts follow their rows into "other"; two tables merged. */
#include "breakdown.h"

#include <stdlib.h>
#include <string.h>

#include "t.h"

static void
test_small_table_floods(void)
{
    struct bd_table t;
    struct bd_row sum;
    struct histo_small every, empty;
    uint32_t i, stale = 0;

    histo_small_init(&every);
    memset(&empty, 0, sizeof empty);
    EQ(bd_table_init(&t, BD_FILE, 16, 42), 0);
    for (i = 0; i < 100000; i++) {
        uint32_t key = i % 3 ? i : 7; /* key 7 is hot: a third of all calls */
        uint64_t before = t.evicted;
        struct bd_row *r = bd_table_row(&t, (const uint8_t *)&key, sizeof key);
        /* a row given to a new key starts empty, whatever the last one left */
        stale += t.evicted != before && memcmp(&r->latency, &empty, sizeof empty) != 0;
        histo_small_record(&every, i % 1000);
        r->calls++;
        r->replies++;
        r->read_bytes += 10;
        histo_small_record(&r->latency, i % 1000);
    }
    EQ(t.count, 16);
    CHECK(t.evicted > 60000);
    bd_table_total(&t, &sum);
    EQ(sum.calls, 100000);
    EQ(sum.replies, 100000);
    EQ(sum.read_bytes, 1000000);
    EQ(sum.latency.count, 100000);
    EQ(stale, 0);
    /* every latency in its bucket, the evicted rows' through "other" */
    EQ(memcmp(&sum.latency, &every, sizeof every), 0);
    CHECK(t.other.calls > 0);
    {
        const struct bd_row *top[3];
        uint32_t k;
        EQ(bd_table_top(&t, BD_BY_CALLS, top, 3), 3);
        memcpy(&k, top[0]->key, 4);
        EQ(k, 7); /* the heavy hitter survives sampled eviction */
        CHECK(top[0]->calls >= top[1]->calls && top[1]->calls >= top[2]->calls);
    }
    bd_table_fini(&t);
}

static void
test_orders_and_ties(void)
{
    struct bd_table t;
    const struct bd_row *top[4];
    uint8_t a = 'a', b = 'b', c = 'c';
    struct bd_row *ra, *rb, *rc;

    EQ(bd_table_init(&t, BD_CLIENT, 8, 1), 0);
    rc = bd_table_row(&t, &c, 1);
    rb = bd_table_row(&t, &b, 1);
    ra = bd_table_row(&t, &a, 1);
    CHECK(bd_table_row(&t, &a, 1) == ra); /* found again, not duplicated */
    ra->calls = 5;
    rb->calls = 5;
    rc->calls = 1;
    ra->write_bytes = 1;
    rc->read_bytes = 100;
    histo_small_record(&rb->latency, 900);
    histo_small_record(&rc->latency, 100);
    EQ(bd_table_top(&t, BD_BY_CALLS, top, 4), 3);
    CHECK(top[0] == ra && top[1] == rb && top[2] == rc); /* tie broken by key */
    bd_table_top(&t, BD_BY_BYTES, top, 1);
    CHECK(top[0] == rc);
    bd_table_top(&t, BD_BY_LATENCY, top, 1);
    CHECK(top[0] == rb);
    bd_table_fini(&t);
}

/* The view's per-row, per-procedure counts (bd_procs.h) under a flood: a
 * slot given to another key passes its counts to "other", so the procedure
 * counts of all rows still add up to the rows' calls. */
static void
test_procs_follow_rows(void)
{
    struct bd_table t;
    struct bd_row sum;
    uint64_t n = 0;
    uint32_t i, k, m;

    EQ(bd_table_init(&t, BD_CLIENT, 8, 3), 0);
    t.procs = calloc(1, sizeof *t.procs);
    CHECK(t.procs != NULL);
    if (!t.procs || bd_procs_init(t.procs, t.cap) != 0) {
        bd_table_fini(&t);
        return;
    }
    for (i = 0; i < 20000; i++) {
        uint32_t key = i % 4 ? i % 997 : 5;
        struct bd_row *r = bd_table_row(&t, (const uint8_t *)&key, sizeof key);
        r->calls++;
        bd_procs_call(t.procs, (size_t)(r - t.rows), r->gen, bd_procs_key(2, i % 30), 0);
    }
    CHECK(t.evicted > 1000);
    bd_table_total(&t, &sum);
    EQ(sum.calls, 20000);
    for (k = 0; k <= t.cap; k++) {
        const struct bd_row *r = k < t.count ? &t.rows[k] : &t.other;
        const struct bd_proc *e;
        uint64_t rn = 0;

        if (k >= t.count && k < t.cap)
            continue;
        e = bd_procs_row(t.procs, k < t.cap ? k : t.cap, k < t.cap ? r->gen : 0, &m);
        for (i = 0; e && i < m; i++)
            rn += e[i].calls;
        EQ(rn, r->calls); /* each row: its procedures add up to its calls */
        n += rn;
    }
    EQ(n, 20000);
    CHECK(t.procs->overflow > 0); /* 30 procedures do not fit in "other"'s 23 */
    bd_table_fini(&t);
}

static void
test_names(void)
{
    enum bd_dim d;
    enum bd_order o;

    CHECK(bd_dim_parse("export", &d) && d == BD_EXPORT);
    CHECK(!bd_dim_parse("bogus", &d));
    STREQ(bd_dim_name(BD_USER), "user");
    CHECK(bd_order_parse("latency", &o) && o == BD_BY_LATENCY);
    CHECK(!bd_order_parse("size", &o));
}

/* File handles up to NFS4_FHSIZE (128 bytes, RFC 8881 §3.2) are keys as a
 * whole: two that differ only in their last byte are two rows. */
static void
test_long_handles(void)
{
    struct bd_table t;
    uint8_t a[128], b[128];
    struct bd_row *ra, *rb;

    EQ(bd_table_init(&t, BD_FILE, 8, 3), 0);
    memset(a, 0x5c, sizeof a);
    memcpy(b, a, sizeof b);
    b[127] ^= 1;
    ra = bd_table_row(&t, a, sizeof a);
    rb = bd_table_row(&t, b, sizeof b);
    CHECK(ra != rb);
    EQ(ra->key_len, 128);
    CHECK(memcmp(ra->key, a, 128) == 0 && memcmp(rb->key, b, 128) == 0);
    CHECK(bd_table_row(&t, a, sizeof a) == ra);
    EQ(t.count, 2);
    bd_table_fini(&t);
}

/* bd_table_merge: rows split between two tables (some keys in both), with
 * their per-procedure entries, merged: each key's row and entries as one
 * table that counted every call has them; "other" and evictions add. */
static void
test_merge(void)
{
    struct bd_table all, a, b;
    struct bd_procs pall, pa, pb;
    uint32_t i, bad = 0;

    EQ(bd_table_init(&all, BD_CLIENT, 64, 3), 0);
    EQ(bd_table_init(&a, BD_CLIENT, 64, 3), 0);
    EQ(bd_table_init(&b, BD_CLIENT, 64, 3), 0);
    EQ(bd_procs_init(&pall, 64), 0);
    EQ(bd_procs_init(&pa, 64), 0);
    EQ(bd_procs_init(&pb, 64), 0);
    all.procs = &pall;
    a.procs = &pa;
    b.procs = &pb;
    for (i = 0; i < 5000; i++) {
        uint8_t key = (uint8_t)(i * 31 % 50);
        struct bd_table *half = (i + key) % 3 ? &a : &b;
        struct bd_table *both[2] = { &all, half };
        unsigned k;

        for (k = 0; k < 2; k++) {
            struct bd_row *r = bd_table_row(both[k], &key, 1);
            size_t slot = (size_t)(r - both[k]->rows);

            r->calls++;
            r->read_bytes += i;
            histo_small_record(&r->latency, i % 977);
            bd_procs_call(both[k]->procs, slot, r->gen, i % 5, i);
        }
    }
    a.other.calls = 3;
    b.other.calls = 4;
    bd_table_merge(&a, &b);
    EQ(a.count, all.count);
    EQ(a.other.calls, 7);
    for (i = 0; i < all.count; i++) {
        const struct bd_row *x = &all.rows[i];
        const struct bd_row *y = bd_table_row(&a, x->key, x->key_len);
        const struct bd_proc *ex, *ey;
        uint32_t nx, ny, j;

        bad += y->calls != x->calls || y->read_bytes != x->read_bytes ||
               memcmp(&y->latency, &x->latency, sizeof x->latency) != 0;
        ex = bd_procs_row(&pall, i, x->gen, &nx);
        ey = bd_procs_row(&pa, (size_t)(y - a.rows), y->gen, &ny);
        bad += nx != ny;
        for (j = 0; ex && ey && j < nx && j < ny; j++) { /* entries: by key, any order */
            uint32_t m;
            for (m = 0; m < ny && ey[m].key != ex[j].key; m++)
                ;
            bad += m == ny || ey[m].calls != ex[j].calls || ey[m].bytes != ex[j].bytes;
        }
    }
    EQ(bad, 0);
    all.procs = a.procs = b.procs = NULL;
    bd_procs_fini(&pall);
    bd_procs_fini(&pa);
    bd_procs_fini(&pb);
    bd_table_fini(&all);
    bd_table_fini(&a);
    bd_table_fini(&b);
}

int
main(void)
{
    test_merge();
    test_long_handles();
    test_small_table_floods();
    test_orders_and_ties();
    test_procs_follow_rows();
    test_names();
    return t_done();
}
