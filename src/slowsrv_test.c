/* SPDX-License-Identifier: BSD-3-Clause */
/* slowsrv_test.c: slow_server on hand-made latencies, each outlier and its
 * excess worked out by hand. */
#include "slowsrv.h"

#include <string.h>

#include "t.h"

#define MS 1000000LL

static const uint8_t A[4] = { 10, 0, 0, 2 }, B[4] = { 10, 0, 0, 3 };

static uint64_t
rec(struct slowsrv *s, const uint8_t *srv, unsigned kind, uint64_t lat_us, int64_t t_ms)
{
    return slowsrv_record(s, 4, srv, kind, lat_us, t_ms * MS, t_ms * MS + (int64_t)lat_us * 1000);
}

static void
test_outliers_and_periods(void)
{
    struct slowsrv *s = slowsrv_new();
    struct slow_period p[SLOW_PERIODS];
    const struct slow_server *a;
    unsigned i;

    CHECK(s != NULL);
    /* 40 LOOKUPs of 1 ms on A: no median yet for the first 32, none slow */
    for (i = 0; i < 40; i++)
        EQ(rec(s, A, OPK_LOOKUP, 1000, i * 10), 0);
    /* 9 ms: 9 x the median, not slow; 10 ms: 10 x and 9 ms above: slow by 9 ms */
    EQ(rec(s, A, OPK_LOOKUP, 9000, 1000), 0);
    EQ(rec(s, A, OPK_LOOKUP, 10000, 1100), 9000);
    EQ(rec(s, A, OPK_LOOKUP, 51000, 1500), 50000); /* the same period (< 1 s apart) */
    EQ(rec(s, A, OPK_LOOKUP, 101000, 5000), 100000); /* 3.4 s later: a second period */
    /* another operation, another server: their own medians */
    EQ(rec(s, A, OPK_READ, 51000, 5100), 0); /* READ has no history on A */
    for (i = 0; i < 40; i++)
        rec(s, B, OPK_LOOKUP, 20000, i); /* B is always 20 ms: that is its usual */
    EQ(rec(s, B, OPK_LOOKUP, 30000, 100), 0);
    a = &s->srv[0];
    EQ(s->nservers, 2);
    EQ(a->outliers, 3);
    EQ(a->excess_us, 159000);
    EQ(a->op[OPK_LOOKUP].outliers, 3);
    EQ(a->op[OPK_LOOKUP].lat.count, 44); /* every timed call, the slow ones too */
    EQ(s->srv[1].outliers, 0);
    EQ(slowsrv_periods(a, p), 2);
    EQ(p[0].calls, 1); /* the costliest first: the one at 5 s */
    EQ(p[0].excess_us, 100000);
    EQ(p[0].t_first, 5000 * MS);
    EQ(p[1].calls, 2);
    EQ(p[1].excess_us, 59000);
    EQ(p[1].t_first, 1100 * MS);
    EQ(p[1].t_last, 1500 * MS + 51 * MS);
    slowsrv_free(s);
}

/* Stable WRITEs have a distribution of their own; servers beyond the table
 * are counted, not judged; periods beyond SLOW_PERIODS keep the costliest. */
static void
test_bounds(void)
{
    struct slowsrv *s = slowsrv_new();
    struct slow_period p[SLOW_PERIODS];
    uint8_t addr[4] = { 10, 1, 0, 0 };
    unsigned i;

    for (i = 0; i < 40; i++)
        rec(s, A, OPK_WRITE, 500, i);
    EQ(rec(s, A, SLOW_KIND_STABLE_WRITE, 20000, 100), 0); /* no stable history yet */
    EQ(rec(s, A, OPK_WRITE, 20000, 200), 19500);
    for (i = 0; i < SLOW_SERVERS + 3; i++) {
        addr[3] = (uint8_t)i;
        rec(s, addr, OPK_GETATTR, 100, 300);
    }
    EQ(s->nservers, SLOW_SERVERS);
    EQ(s->servers_other_calls, 4); /* A took one row: 3 + 1 addresses over */
    /* 10 periods 2 s apart, the k-th slow by k ms more */
    for (i = 0; i < 10; i++)
        EQ(rec(s, A, OPK_WRITE, 20000 + i * 1000, 10000 + i * 2000), 19500 + i * 1000);
    EQ(slowsrv_periods(&s->srv[0], p), SLOW_PERIODS);
    EQ(s->srv[0].periods_total, 11); /* the one at 200 ms and the 10 */
    EQ(p[0].excess_us, 19500 + 9000);
    EQ(p[SLOW_PERIODS - 1].excess_us, 19500 + 2000);
    slowsrv_free(s);
    slowsrv_free(NULL);
}

/* A server is its address family and address: an IPv6 address whose first
 * four bytes are an IPv4 one's (the rest zero) is another server; the same
 * address seen again is found again, not added. */
static void
test_server_rows(void)
{
    struct slowsrv *s = slowsrv_new();
    uint8_t v6[16] = { 10, 0, 0, 2 };

    rec(s, A, OPK_GETATTR, 100, 1);
    slowsrv_record(s, 6, v6, OPK_GETATTR, 100, 2 * MS, 3 * MS);
    rec(s, B, OPK_GETATTR, 100, 4);
    rec(s, A, OPK_GETATTR, 100, 5);
    slowsrv_record(s, 6, v6, OPK_GETATTR, 100, 6 * MS, 7 * MS);
    EQ(s->nservers, 3);
    EQ(s->srv[0].af, 4);
    EQ(s->srv[1].af, 6);
    EQ(memcmp(s->srv[2].addr, B, 4), 0);
    EQ(s->srv[0].op[OPK_GETATTR].lat.count, 2);
    EQ(s->srv[1].op[OPK_GETATTR].lat.count, 2);
    EQ(s->srv[2].op[OPK_GETATTR].lat.count, 1);
    /* IPv6 addresses that differ from another server's only in their second
     * half are other servers; each found again. b6 was chosen to share a6's
     * home slot (addr_ix.h), c6 that of IPv4 A on a little-endian machine
     * (its second half XOR the families' is 0): each is told apart by the
     * key's second half, not by landing elsewhere. */
    {
        uint8_t a6[16] = { 0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
        uint8_t b6[16], c6[16] = { 10, 0, 0, 2, 0, 0, 0, 0, 6 ^ 4 };

        memcpy(b6, a6, 16);
        b6[14] = 1;
        b6[15] = 117;
        slowsrv_record(s, 6, a6, OPK_GETATTR, 100, 8 * MS, 9 * MS);
        slowsrv_record(s, 6, b6, OPK_GETATTR, 100, 8 * MS, 9 * MS);
        slowsrv_record(s, 6, c6, OPK_GETATTR, 100, 8 * MS, 9 * MS);
        slowsrv_record(s, 6, c6, OPK_GETATTR, 100, 8 * MS, 9 * MS);
        slowsrv_record(s, 6, b6, OPK_GETATTR, 100, 8 * MS, 9 * MS);
        slowsrv_record(s, 6, a6, OPK_GETATTR, 100, 8 * MS, 9 * MS);
        rec(s, B, OPK_GETATTR, 100, 10);
        EQ(s->nservers, 6);
        EQ(memcmp(s->srv[3].addr, a6, 16), 0);
        EQ(memcmp(s->srv[4].addr, b6, 16), 0);
        EQ(memcmp(s->srv[5].addr, c6, 16), 0);
        EQ(s->srv[3].op[OPK_GETATTR].lat.count, 2);
        EQ(s->srv[4].op[OPK_GETATTR].lat.count, 2);
        EQ(s->srv[5].op[OPK_GETATTR].lat.count, 2);
        EQ(s->srv[2].op[OPK_GETATTR].lat.count, 2);
        EQ(s->srv[0].op[OPK_GETATTR].lat.count, 2);
    }
    slowsrv_free(s);
}

/* The rule against a plain reference: the median by histo_small_percentile
 * of every earlier latency, on a stream mixing latencies below, at and
 * above SLOW_MIN_EXCESS_US (the median's cursor left behind by the fast
 * ones, then asked again), and a median of 0 where a call of exactly
 * SLOW_MIN_EXCESS_US is an outlier and one of a microsecond less is not. */
static void
test_against_reference(void)
{
    struct slowsrv *s = slowsrv_new();
    struct histo_small ref;
    uint64_t x = 88172645463325252ULL, lat, med, want;
    unsigned i, outliers = 0;

    memset(&ref, 0, sizeof ref);
    for (i = 0; i < 40; i++) {
        rec(s, B, OPK_READ, 0, i);
        histo_small_record(&ref, 0);
    }
    EQ(rec(s, B, OPK_READ, SLOW_MIN_EXCESS_US - 1, 100), 0);
    EQ(rec(s, B, OPK_READ, SLOW_MIN_EXCESS_US, 200), SLOW_MIN_EXCESS_US);
    histo_small_record(&ref, SLOW_MIN_EXCESS_US - 1);
    histo_small_record(&ref, SLOW_MIN_EXCESS_US);
    for (i = 0; i < 20000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        /* phases of fast and slow calls move the median both ways */
        switch ((i / 500) % 4) {
        case 0: lat = x % 600; break;
        case 1: lat = 400 + x % 40000; break;
        case 2: lat = x % 2 ? SLOW_MIN_EXCESS_US + x % 3 : x % 5000; break;
        default: lat = x % 8 ? 3000 + x % 3000 : 60000 + x % 100000; break;
        }
        med = histo_small_percentile(&ref, 50);
        want = lat >= SLOW_FACTOR * med && lat - med >= SLOW_MIN_EXCESS_US ? lat - med : 0;
        outliers += want != 0;
        EQ(rec(s, B, OPK_READ, lat, 1000 + i), want);
        histo_small_record(&ref, lat);
    }
    CHECK(outliers > 100);
    EQ(s->srv[0].op[OPK_READ].outliers, outliers + 1);
    slowsrv_free(s);
}

int
main(void)
{
    test_outliers_and_periods();
    test_bounds();
    test_server_rows();
    test_against_reference();
    return t_done();
}
