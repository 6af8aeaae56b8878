/* SPDX-License-Identifier: BSD-3-Clause */
/* serialio_test.c: serialized_io's rule on hand-made call times, each
 * saving worked out by hand. */
#include "serialio.h"

#include "t.h"

static const uint8_t S[4] = { 10, 0, 0, 2 }, C[4] = { 10, 0, 0, 1 }, C2[4] = { 10, 0, 0, 3 };

#define MS 1000000LL /* ns */
#define K64 65536u

static struct ser_mark undo[SER_MARKS];
static unsigned nundo;
static uint64_t saved;

static struct ser_mark *
rec(struct serialio *s, const uint8_t *cli, bool write, uint64_t bytes, int64_t call,
    int64_t reply)
{
    return serialio_record(s, 4, S, cli, write, bytes, call, reply,
                           (uint64_t)(reply - call) / 1000, &saved, undo, &nundo);
}

int
main(void)
{
    struct serialio s = { 0 };
    struct ser_mark *m;
    int64_t t = 1000 * MS;
    unsigned i;

    /* one at a time, each sent 0.1 ms after the reply before it, 2 ms each */
    CHECK(rec(&s, C, false, K64, t, t + 2 * MS) == NULL); /* the first: nothing before it */
    for (i = 1; i <= 9; i++) {
        int64_t c = t + (int64_t)i * 21 * MS / 10; /* 2.1 ms apart */
        m = rec(&s, C, i % 2 == 0, K64, c, c + 2 * MS);
        CHECK(m != NULL);
        EQ(saved, 1500); /* 2000 us - 2000 / 4 */
        EQ(nundo, 0);
        if (m)
            m->claimed_us = saved;
    }
    EQ(s.reads + s.writes, 9);
    EQ(s.writes, 4);
    EQ(s.bytes, 9ull * K64);
    EQ(s.lat_us, 9 * 2000);
    EQ(s.pair[0].calls, 9);
    CHECK(!serialio_reported(&s)); /* 9 calls, but 576 KiB: not bulk yet */

    /* parallel transfers are not serialized: a call sent 1 ms before the
     * last counted reply came was in flight beside it; it and that call are
     * not alone; the one before (replied before it was sent) stays */
    {
        int64_t last_call = t + 9 * 21 * MS / 10, last_reply = last_call + 2 * MS;

        CHECK(rec(&s, C, false, K64, last_reply - MS, last_reply + MS) == NULL);
        EQ(nundo, 1);
        EQ(undo[0].t_call, last_call);
        EQ(undo[0].claimed_us, 1500);
        EQ(s.reads + s.writes, 8);
        EQ(s.pair[0].calls, 8);
        t = last_reply + MS;
    }
    /* two streams of the same client to the same server, interleaved (two
     * files, one call each): never alone */
    for (i = 0; i < 8; i++) {
        int64_t c = t + (int64_t)i * 2 * MS;
        m = rec(&s, C, false, K64, c, c + 3 * MS);
        CHECK(i == 0 || m == NULL); /* the first looks alone until the second replies */
        EQ(nundo, i == 1);
    }
    EQ(s.reads + s.writes, 8);

    /* small calls and calls long after the reply before them do not count */
    t += 100 * MS;
    CHECK(rec(&s, C, false, 4096, t, t + MS) == NULL);
    CHECK(rec(&s, C, false, K64, t + 1100 * MS / 1000, t + 2100 * MS / 1000) != NULL);
    CHECK(rec(&s, C, false, K64, t + 50 * MS, t + 52 * MS) == NULL); /* 48 ms later */
    /* within SER_GAP_US although longer than its own latency */
    CHECK(rec(&s, C, true, K64, t + 60 * MS, t + 61 * MS) != NULL);
    EQ(saved, 750);

    /* another client is its own pair */
    CHECK(rec(&s, C2, false, K64, t, t + MS) == NULL);
    CHECK(rec(&s, C2, false, K64, t + MS + MS / 10, t + 2 * MS) != NULL);
    EQ(s.npairs, 2);
    EQ(s.pair[1].calls, 1);

    /* 1 MiB from bigger calls: reported */
    CHECK(!serialio_reported(&s)); /* 11 calls, 704 KiB */
    t += 200 * MS;
    for (i = 0; i < 5; i++) {
        int64_t c = t + (int64_t)i * 5 * MS;
        m = rec(&s, C2, true, 262144, c, c + 4 * MS);
        CHECK((i == 0) == (m == NULL)); /* the first: 198 ms after the reply before it */
    }
    EQ(s.reads + s.writes, 15);
    CHECK(serialio_reported(&s));
    EQ(serialio_rate(1000000, 1000000), 1000000);
    EQ(serialio_rate(1, 0), 0);

    /* a pair is (server, client) in that order, per address family; past
     * SER_PAIRS pairs, calls are counted apart */
    {
        struct serialio p = { 0 };
        uint8_t cli[4] = { 10, 1, 0, 0 }, v6s[16] = { 10, 0, 0, 2 }, v6c[16] = { 10, 0, 0, 1 };

        serialio_record(&p, 4, S, C, false, K64, t, t + MS, 1000, &saved, undo, &nundo);
        serialio_record(&p, 4, C, S, false, K64, t, t + MS, 1000, &saved, undo, &nundo);
        serialio_record(&p, 6, v6s, v6c, false, K64, t, t + MS, 1000, &saved, undo, &nundo);
        serialio_record(&p, 4, S, C, false, K64, t, t + MS, 1000, &saved, undo, &nundo);
        EQ(p.npairs, 3);
        EQ(p.pair[1].srv[3], 1);
        EQ(p.pair[2].af, 6);
        for (i = 0; i < SER_PAIRS; i++) {
            cli[3] = (uint8_t)i;
            serialio_record(&p, 4, S, cli, false, K64, t, t + MS, 1000, &saved, undo, &nundo);
        }
        EQ(p.npairs, SER_PAIRS);
        EQ(p.not_kept, 3); /* 3 rows were taken before the loop */
    }
    return t_done();
}
