/* SPDX-License-Identifier: BSD-3-Clause */
/* mtab_test.c: the model's table: each member's own entries of a shared
 * key, placement in a full window (the slot of the fewest entries goes,
 * the least recently used of those, all its entries counted), and lookups
 * remembered across other keys' puts (mref). */
#include "mtab.h"

#include <stdlib.h>

#include "t.h"

/* The i-th key whose home is row `home` of a 16-row table. */
static uint64_t
key_at(uint32_t home, unsigned i)
{
    return ((uint64_t)(i + 1) << 20) | home;
}

static void
test_members(void)
{
    uint64_t evicted = 0;
    struct mtab *t = mtab_new(16, &evicted);
    uint64_t k = key_at(3, 0);
    struct mslot *s;
    uint8_t *v0, *v2;
    unsigned m, zero = 0;

    CHECK(t != NULL);
    if (!t)
        return;
    EQ(t->mask, 15);
    EQ(mtab_lines(), 8);
    CHECK(mtab_find(t, k) == NULL);
    /* a capture's time may be 0: an entry all the same */
    v0 = mtab_put(t, k, 0, 0);
    memset(v0, 0xa0, MTAB_VSIZE);
    s = mtab_find(t, k);
    CHECK(s != NULL);
    if (!s)
        return;
    EQ(s - mtab_slot_at(t, 3), 0);
    CHECK(mtab_has(s, 0));
    for (m = 1; m < MTAB_N; m++) {
        CHECK(!mtab_has(s, m));
        CHECK(mtab_get(t, k, m) == NULL);
    }
    CHECK(mtab_get(t, k, 0) == v0);
    /* another member's put: the same slot, its own zeroed value, the first
     * member's untouched; nothing evicted */
    memset(mtab_val(s, 2), 0xee, MTAB_VSIZE);
    v2 = mtab_put(t, k, 2, 50);
    CHECK(v2 == mtab_val(s, 2));
    for (m = 0; m < MTAB_VSIZE; m++)
        zero += v2[m] == 0 && v0[m] == 0xa0;
    EQ(zero, MTAB_VSIZE);
    EQ(s->has, 5);
    EQ(s->latest, 50);
    /* a put makes the slot recent, never older */
    mtab_put(t, k, 2, 40);
    EQ(s->latest, 50);
    mtab_put(t, k, 0, 70);
    EQ(s->latest, 70);
    EQ(v0[0], 0xa0);
    EQ(t->placed, 1);
    EQ(evicted, 0);
    mtab_free(t);
}

/* Fill the window of home 5 with 8 keys; puts (member: time):
 * slot 0: m0 10, m3 100 (the oldest single entry, two entries)
 * slots 1..5: m1 60 + slot, m4 20 + slot, m6 80 + slot
 * slot 6: m1 1, m4 2, m6 3 (the oldest latest use, three entries)
 * slot 7: m2 30, m5 50 (two entries, the older latest: the victim) */
static void
test_victim(void)
{
    uint64_t evicted = 0;
    struct mtab *t = mtab_new(16, &evicted);
    struct mslot *s;
    unsigned i, m;

    CHECK(t != NULL);
    if (!t)
        return;
    mtab_put(t, key_at(5, 0), 0, 10);
    mtab_put(t, key_at(5, 0), 3, 100);
    for (i = 1; i < 6; i++) {
        mtab_put(t, key_at(5, i), 1, 60 + i);
        mtab_put(t, key_at(5, i), 4, 20 + i);
        mtab_put(t, key_at(5, i), 6, 80 + i);
    }
    mtab_put(t, key_at(5, 6), 1, 1);
    mtab_put(t, key_at(5, 6), 4, 2);
    mtab_put(t, key_at(5, 6), 6, 3);
    mtab_put(t, key_at(5, 7), 2, 30);
    mtab_put(t, key_at(5, 7), 5, 50);
    EQ(evicted, 0);
    for (i = 0; i < 8; i++)
        CHECK(mtab_find(t, key_at(5, i)) == mtab_slot_at(t, (5 + i) & 15));
    /* the window is full: a new key takes slot 7, its two entries go */
    memset(mtab_val(mtab_slot_at(t, 12), 6), 0xff, MTAB_VSIZE);
    mtab_put(t, key_at(5, 8), 6, 200);
    EQ(evicted, 2);
    s = mtab_find(t, key_at(5, 8));
    CHECK(s == mtab_slot_at(t, 12));
    CHECK(mtab_find(t, key_at(5, 7)) == NULL);
    if (s) {
        EQ(s->latest, 200);
        CHECK(mtab_has(s, 6));
        EQ(*(uint8_t *)mtab_val(s, 6), 0);
        for (m = 0; m < 6; m++)
            CHECK(!mtab_has(s, m));
    }
    for (i = 0; i < 7; i++)
        CHECK(mtab_find(t, key_at(5, i)) != NULL);
    /* the fewest entries before the most recent use: the new key's one */
    mtab_put(t, key_at(5, 9), 0, 201);
    EQ(evicted, 3);
    CHECK(mtab_find(t, key_at(5, 8)) == NULL);
    CHECK(mtab_find(t, key_at(5, 9)) == mtab_slot_at(t, 12));
    /* of two entries each, slot 0's (latest 100) before slot 7's (201)
     * once it has two */
    mtab_put(t, key_at(5, 9), 1, 202);
    mtab_put(t, key_at(5, 10), 0, 203);
    EQ(evicted, 5);
    CHECK(mtab_find(t, key_at(5, 0)) == NULL);
    CHECK(mtab_find(t, key_at(5, 10)) == mtab_slot_at(t, 5));
    /* a found key's put evicts nothing, however old its slot's use */
    mtab_put(t, key_at(5, 6), 0, 1);
    EQ(evicted, 5);
    EQ(t->placed, 11);
    mtab_free(t);
}

/* Lookups remembered in an mref: a slot another key took is looked up
 * again, and so is an absence once any key was placed (the same key may be
 * in two mrefs of a call). */
static void
test_mref(void)
{
    uint64_t evicted = 0;
    struct mtab *t = mtab_new(16, &evicted);
    struct mref a, b, c;
    uint64_t ka = key_at(9, 0);
    unsigned i;

    CHECK(t != NULL);
    if (!t)
        return;
    for (i = 0; i < 8; i++)
        mtab_put(t, key_at(9, i), 0, 10 + i);
    mref_init(&a, ka);
    CHECK(mref_get(t, &a, 0) == mtab_val(mtab_slot_at(t, 9), 0));
    CHECK(mref_get(t, &a, 1) == NULL);
    /* another key takes a's slot (the oldest): a finds it gone */
    mtab_put(t, key_at(9, 8), 0, 30);
    EQ(evicted, 1);
    CHECK(a.s != NULL && a.s->key != (ka | FTAB_USED));
    CHECK(mref_get(t, &a, 0) == NULL);
    CHECK(mref_slot(t, &a) == NULL);
    /* the same key in two mrefs: a put through one is seen by the other */
    mref_init(&b, ka);
    CHECK(mref_get(t, &b, 3) == NULL);
    mref_put(t, &a, 2, 40);
    EQ(evicted, 2);
    CHECK(mref_get(t, &b, 3) == NULL);
    CHECK(mref_get(t, &b, 2) == mtab_get(t, ka, 2));
    CHECK(b.s != NULL && b.s == a.s);
    /* a put through an mref whose key has a slot: that slot, no probe */
    mref_init(&c, key_at(9, 8));
    CHECK(mref_put(t, &c, 5, 50) == mtab_get(t, key_at(9, 8), 5));
    EQ(evicted, 2);
    EQ(t->placed, 10);
    mtab_free(t);
}

/* splitmix64's finalizer: keys spread as the findings' hashes are. */
static uint64_t
mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Against a plain model of the rule, with random keys, members and times
 * in a table that keeps evicting: every lookup, every victim, the count. */
#define RKEYS 96
static void
test_random(void)
{
    uint64_t evicted = 0, want_evicted = 0, rnd = 88172645463325252ULL;
    struct mtab *t = mtab_new(16, &evicted);
    /* the model: per row, its key (index + 1, 0 none) and a stamp per
     * member; the table keeps only which members have one and the newest */
    struct {
        unsigned key;
        int64_t stamp[MTAB_N];
    } row[16];
    unsigned step, bad = 0;

    CHECK(t != NULL);
    if (!t)
        return;
    memset(row, 0, sizeof row);
    for (step = 0; step < 20000; step++) {
        unsigned k = t_rnd(&rnd, RKEYS), m = t_rnd(&rnd, MTAB_N), i, at = 16;
        uint64_t key = mix(k);
        uint32_t home = (uint32_t)key & 15;
        int64_t now = step / 3 + (int64_t)t_rnd(&rnd, 20), best = 0;
        bool put = t_rnd(&rnd, 3) != 0;
        struct mslot *s;

        for (i = 0; i < FTAB_PROBE; i++) {
            unsigned j = (home + i) & 15;
            if (row[j].key == k + 1 || row[j].key == 0) {
                at = j;
                break;
            }
        }
        s = mtab_find(t, key);
        if (at < 16 && row[at].key == k + 1) {
            bad += s != mtab_slot_at(t, at);
            bad += s && mtab_has(s, m) != (row[at].stamp[m] != MTAB_NONE);
        } else {
            bad += s != NULL;
        }
        if (!put)
            continue;
        mtab_put(t, key, m, now);
        if (at == 16) {
            unsigned fewest = 0;
            for (i = 0; i < FTAB_PROBE; i++) {
                unsigned j = (home + i) & 15, n, c = 0;
                int64_t l = MTAB_NONE;
                for (n = 0; n < MTAB_N; n++) {
                    l = row[j].stamp[n] > l ? row[j].stamp[n] : l;
                    c += row[j].stamp[n] != MTAB_NONE;
                }
                if (at == 16 || c < fewest || (c == fewest && l < best)) {
                    at = j;
                    fewest = c;
                    best = l;
                }
            }
        }
        if (row[at].key != k + 1) {
            unsigned n;
            for (n = 0; n < MTAB_N; n++) {
                want_evicted += row[at].key && row[at].stamp[n] != MTAB_NONE;
                row[at].stamp[n] = MTAB_NONE;
            }
            row[at].key = k + 1;
        }
        if (row[at].stamp[m] == MTAB_NONE || row[at].stamp[m] < now)
            row[at].stamp[m] = now;
        bad += mtab_find(t, key) != mtab_slot_at(t, at);
        {
            const struct mslot *x = mtab_slot_at(t, at);
            int64_t l = MTAB_NONE;
            unsigned n;

            for (n = 0; n < MTAB_N; n++) {
                l = row[at].stamp[n] > l ? row[at].stamp[n] : l;
                bad += mtab_has(x, n) != (row[at].stamp[n] != MTAB_NONE);
            }
            bad += x->latest != l;
        }
    }
    EQ(bad, 0);
    EQ(evicted, want_evicted);
    CHECK(evicted > 1000);
    mtab_free(t);
}

int
main(void)
{
    test_members();
    test_victim();
    test_mref();
    test_random();
    return t_done();
}
