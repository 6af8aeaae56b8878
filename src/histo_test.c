/* SPDX-License-Identifier: BSD-3-Clause */
/* histo_test.c: histogram index monotonicity, error bound, percentiles, merge. */
#include "histo.h"

#include <stdlib.h>

#include "t.h"

static void
test_index_bounds(void)
{
    unsigned prev = 0, bad = 0;
    uint64_t v;

    for (v = 0; v < 5000000; v++) {
        unsigned i = histo_index(v);
        if (i < prev || histo_bucket_lo(i) > v || histo_bucket_hi(i) < v)
            bad++;
        /* width of the bucket at most 1/32 of its lower bound */
        if (v >= 32 && (histo_bucket_hi(i) - histo_bucket_lo(i) + 1) * 32 > histo_bucket_lo(i))
            bad++;
        prev = i;
    }
    EQ(bad, 0);
    EQ(histo_index(UINT64_MAX), HISTO_BUCKETS - 1);
}

static void
test_percentiles(void)
{
    struct histo h;
    uint64_t v;

    histo_init(&h);
    EQ(histo_percentile(&h, 50), 0);
    for (v = 1; v <= 1000; v++)
        histo_record(&h, v);
    EQ(h.count, 1000);
    EQ(h.min, 1);
    EQ(h.max, 1000);
    /* true p50 = 500, p90 = 900, p99 = 990: within 3 % */
    CHECK(llabs((long long)histo_percentile(&h, 50) - 500) <= 15);
    CHECK(llabs((long long)histo_percentile(&h, 90) - 900) <= 27);
    CHECK(llabs((long long)histo_percentile(&h, 99) - 990) <= 30);
    EQ(histo_percentile(&h, 100), 1000);
    EQ(histo_percentile(&h, 0), 1);
    CHECK(histo_mean(&h) > 500.4 && histo_mean(&h) < 500.6);
}

static void
test_small_exact(void)
{
    struct histo h;

    histo_init(&h);
    histo_record(&h, 7);
    EQ(histo_percentile(&h, 50), 7);
    EQ(histo_percentile(&h, 99), 7);
}

static void
test_merge(void)
{
    struct histo a, b, c;
    uint64_t v;

    histo_init(&a);
    histo_init(&b);
    histo_init(&c);
    for (v = 0; v < 3000; v++) {
        histo_record(v % 2 ? &a : &b, v * 37);
        histo_record(&c, v * 37);
    }
    histo_merge(&a, &b);
    EQ(a.count, c.count);
    EQ(a.sum, c.sum);
    EQ(a.min, c.min);
    EQ(a.max, c.max);
    EQ(memcmp(a.bucket, c.bucket, sizeof a.bucket), 0);
}

/* histo_merge reads only the buckets of [min, max] of src: the same as
 * adding every bucket, for values at both ends (0, the overflow bucket),
 * into an empty histogram and into one with other values; buckets of src
 * outside its [min, max] (none a record fills) are not read. */
static void
test_merge_range(void)
{
    static const uint64_t lo[] = { 0, 5, 31, 1000, 77777 };
    static const uint64_t hi[] = { 0, 6, 40, 123456, UINT64_MAX };
    struct histo a, b, c, d;
    unsigned k, i, bad = 0;

    for (k = 0; k < sizeof lo / sizeof lo[0]; k++) {
        uint64_t v;

        histo_init(&a);
        histo_init(&b);
        histo_init(&c);
        for (v = 0; v < 50; v++) {
            uint64_t x = lo[k] + (hi[k] - lo[k]) / 49 * v;

            histo_record(&b, x);
            histo_record(&c, x);
        }
        histo_record(&b, hi[k]);
        histo_record(&c, hi[k]);
        if (k % 2) { /* dst has values of its own */
            histo_record(&a, 300);
            histo_record(&c, 300);
        }
        d = b;
        histo_merge(&a, &b);
        for (i = 0; i < HISTO_BUCKETS; i++)
            bad += a.bucket[i] != c.bucket[i];
        EQ(a.count, c.count);
        EQ(a.min, c.min);
        EQ(a.max, c.max);
        EQ(a.overflow, c.overflow);
        /* a bucket below min's: not read (were it, it would be added) */
        if (histo_index(d.min) > 0) {
            histo_init(&a);
            d.bucket[0] = 7;
            histo_merge(&a, &d);
            EQ(a.bucket[0], 0);
        }
    }
    EQ(bad, 0);
}

static void
test_small(void)
{
    struct histo_small h, a, b;
    uint64_t v;
    unsigned bad = 0;

    histo_small_init(&h);
    histo_small_init(&a);
    histo_small_init(&b);
    for (v = 1; v <= 100000; v++) {
        histo_small_record(&h, v);
        histo_small_record(v % 2 ? &a : &b, v);
    }
    /* every percentile within 12.5 % of the exact nearest-rank value */
    for (v = 1; v < 100; v++) {
        uint64_t exact = v * 1000, got = histo_small_percentile(&h, (double)v);
        if (got * 8 < exact * 7 || got * 8 > exact * 9)
            bad++;
    }
    EQ(bad, 0);
    EQ(histo_small_percentile(&h, 100), 100000);
    EQ(histo_small_percentile(&h, 0), 1);
    histo_small_merge(&a, &b);
    EQ(a.count, h.count);
    EQ(a.sum, h.sum);
    EQ(memcmp(a.bucket, h.bucket, sizeof a.bucket), 0);
    CHECK(sizeof h.bucket <= 1024);
}

/* A merged bucket saturates at UINT32_MAX, whatever the two counts: one
 * short of the top, the top exactly, and sums that wrap 32 bits to 0, to
 * 1 and to UINT32_MAX - 1. Every other bucket is the plain sum. */
static void
test_small_merge_saturates(void)
{
    static const uint32_t x[] = { 1, UINT32_MAX - 2, 0x80000000u, 0x80000000u, 0x80000001u,
                                  UINT32_MAX, 7 };
    static const uint32_t y[] = { 2, 1, 0x7fffffffu, 0x80000000u, 0x80000000u,
                                  UINT32_MAX, UINT32_MAX };
    static const uint32_t want[] = { 3, UINT32_MAX - 1, UINT32_MAX, UINT32_MAX, UINT32_MAX,
                                     UINT32_MAX, UINT32_MAX };
    struct histo_small a, b;
    unsigned i;

    histo_small_init(&a);
    histo_small_init(&b);
    for (i = 0; i < HISTO_SMALL_BUCKETS; i++) {
        a.bucket[i] = i < 7 ? x[i] : i * 1000u;
        b.bucket[i] = i < 7 ? y[i] : i;
    }
    /* min and max span every bucket, as records would leave them */
    a.count = b.count = 1;
    a.max = b.max = UINT64_MAX;
    histo_small_merge(&a, &b);
    for (i = 0; i < 7; i++)
        EQ(a.bucket[i], want[i]);
    for (i = 7; i < HISTO_SMALL_BUCKETS; i++)
        EQ(a.bucket[i], i * 1001u);
}

/* The cursor's median equals the walk's after every record, on latencies
 * that jump up and down by orders of magnitude (the cursor moves both
 * ways), and on a bucket saturated at UINT32_MAX (its count stays put). */
static void
test_small_at(void)
{
    struct histo_small h;
    struct histo_small_at at = { 0, 0 };
    uint64_t x = 88172645463325252ULL, bad = 0;
    unsigned n;

    histo_small_init(&h);
    for (n = 0; n < 20000; n++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        histo_small_record_at(&h, &at, (x % 7 < 5) ? x % 300 : x % 5000000);
        bad += histo_small_percentile_at(&h, &at, 50) != histo_small_percentile(&h, 50);
        bad += n % 97 == 0 && histo_small_percentile_at(&h, &at, 99) != histo_small_percentile(&h, 99);
    }
    EQ(bad, 0);
    h.bucket[0] = UINT32_MAX;
    h.count += UINT32_MAX;
    at.i = 0; /* the cursor is rebuilt from bucket 0 */
    at.below = 0;
    histo_small_record_at(&h, &at, 0);
    EQ(histo_small_percentile_at(&h, &at, 50), histo_small_percentile(&h, 50));
    histo_small_record_at(&h, &at, 4000000);
    EQ(histo_small_percentile_at(&h, &at, 99.99999), histo_small_percentile(&h, 99.99999));
    EQ(histo_small_percentile_at(&h, &at, 50), histo_small_percentile(&h, 50));
}

int
main(void)
{
    test_index_bounds();
    test_percentiles();
    test_small_exact();
    test_merge();
    test_merge_range();
    test_small();
    test_small_merge_saturates();
    test_small_at();
    return t_done();
}
