/* SPDX-License-Identifier: BSD-3-Clause */
/* timeline_test.c: buckets, coarsening keeps every count, times before the
 * start; per-bucket p99 on known distributions; two timelines merged. */
#include "timeline.h"

#include <stdbool.h>
#include <string.h>

#include "t.h"

static bool
near(uint64_t got, uint64_t want) /* histo_small: within 12.5 % */
{
    return (double)got >= (double)want * 0.875 && (double)got <= (double)want * 1.125;
}

static void
at(struct timeline *t, time_t sec, uint64_t us)
{
    struct timespec ts = { sec, 0 };
    struct tl_bucket *b = timeline_at(t, &ts);

    if (b)
        histo_small_record(&b->latency, us);
}

/* p99 per bucket (the view's latency sparkline). */
static void
percentiles(void)
{
    struct timeline t;
    uint64_t v, i;
    time_t s;

    EQ(timeline_init(&t, 1), 0);
    for (i = 1; i <= 1000; i++) /* second 100: 1..1000 us, p99 = 990 */
        at(&t, 100, i);
    for (i = 0; i < 98; i++) /* second 101: 98 x 100 us and 2 x 10 ms: p99 = 10 ms */
        at(&t, 101, 100);
    at(&t, 101, 10000);
    at(&t, 101, 10000);
    at(&t, 103, 7); /* second 102: nothing */
    CHECK(timeline_percentile(&t, 100, 101, 99, &v));
    CHECK(near(v, 990));
    CHECK(timeline_percentile(&t, 101, 102, 99, &v));
    CHECK(near(v, 10000));
    CHECK(timeline_percentile(&t, 101, 102, 50, &v));
    CHECK(near(v, 100));
    CHECK(!timeline_percentile(&t, 102, 103, 99, &v));
    EQ(v, 0);
    CHECK(!timeline_percentile(&t, 104, 110, 99, &v)); /* beyond what was reached */
    CHECK(!timeline_percentile(&t, 90, 100, 99, &v));  /* before the start */
    CHECK(!timeline_percentile(&t, 101, 101, 99, &v)); /* empty range */
    /* [100, 102): the 1,100 values together; the 12th largest is 991 */
    CHECK(timeline_percentile(&t, 90, 102, 99, &v));
    CHECK(near(v, 991));
    /* coarsening: buckets of 2 s hold 100 and 101 together */
    for (s = 104; s < 100 + TIMELINE_BUCKETS + 1; s++)
        at(&t, s, 1);
    EQ(t.interval_s, 2);
    CHECK(timeline_percentile(&t, 100, 101, 99, &v));
    CHECK(near(v, 991));
    CHECK(timeline_percentile(&t, 103, 104, 100, &v));
    EQ(v, 7);
    timeline_fini(&t);
    /* The same second again, before and after a coarsening: its bucket moved. */
    {
        struct timespec a = { 1300, 0 }, late = { 1600, 0 };

        EQ(timeline_init(&t, 1), 0);
        timeline_start(&t, 1000);
        CHECK(timeline_at(&t, &a) == &t.b[300]);
        CHECK(timeline_at(&t, &a) == &t.b[300]);
        CHECK(timeline_at(&t, &late) == &t.b[300]); /* 600 s: 2 s buckets */
        EQ(t.interval_s, 2);
        CHECK(timeline_at(&t, &a) == &t.b[150]);
        a.tv_sec = 999; /* before the start: never a bucket, counted each time */
        CHECK(timeline_at(&t, &a) == NULL && timeline_at(&t, &a) == NULL);
        EQ(t.before, 2);
        timeline_fini(&t);
    }
    /* A merge that coarsens the timeline merged into: the second it found
     * last is in another bucket now (1,008 s: bucket 8 of 1 s, then 4 of 2 s). */
    {
        struct timeline src;
        struct timespec a = { 1008, 0 }, late = { 1608, 0 };

        EQ(timeline_init(&t, 1), 0);
        EQ(timeline_init(&src, 1), 0);
        timeline_start(&t, 1000);
        timeline_at(&t, &a)->calls = 3;
        timeline_at(&src, &a)->calls = 5; /* src starts at 1,008 */
        timeline_at(&src, &late);
        EQ(src.interval_s, 2);
        timeline_merge(&t, &src);
        EQ(t.interval_s, 2);
        EQ(t.b[4].calls, 8);
        EQ(t.b[8].calls, 0);
        timeline_fini(&src);
        timeline_fini(&t);
    }
}

/* timeline_merge: calls split between two timelines started at the same
 * second, one of them coarsened twice, the other not: merged, the buckets
 * of one timeline that saw every call (interval, start, counts, latency
 * histograms); one empty side changes nothing. */
static void
merged(void)
{
    struct timeline all, a, b, none;
    uint32_t i, k;

    EQ(timeline_init(&all, 1), 0);
    EQ(timeline_init(&a, 1), 0);
    EQ(timeline_init(&b, 1), 0);
    EQ(timeline_init(&none, 1), 0);
    timeline_start(&all, 5000);
    timeline_start(&a, 5000);
    timeline_start(&b, 5000);
    timeline_start(&none, 5000);
    for (i = 0; i < 20000; i++) {
        time_t sec = 5000 + (time_t)(i % 7 == 0 ? i / 10 : i / 100); /* a: up to 6999 s */
        struct timeline *half = i % 7 == 0 ? &a : &b;
        struct timespec ts = { sec, 0 };
        struct tl_bucket *x = timeline_at(&all, &ts), *y = timeline_at(half, &ts);

        x->calls++;
        y->calls++;
        x->read_bytes += i;
        y->read_bytes += i;
        histo_small_record(&x->latency, i % 5000);
        histo_small_record(&y->latency, i % 5000);
    }
    EQ(a.interval_s, 4); /* 2000 s */
    EQ(b.interval_s, 1); /* 200 s */
    timeline_merge(&b, &a);
    timeline_merge(&b, &none);
    EQ(b.interval_s, all.interval_s);
    EQ(b.start, all.start);
    EQ(b.used, all.used);
    for (k = 0, i = 0; k < all.used; k++)
        i += b.b[k].calls != all.b[k].calls || b.b[k].read_bytes != all.b[k].read_bytes ||
             memcmp(&b.b[k].latency, &all.b[k].latency, sizeof all.b[k].latency) != 0;
    EQ(i, 0);
    timeline_merge(&none, &all); /* into an empty one: a copy */
    EQ(none.used, all.used);
    EQ(none.b[3].calls, all.b[3].calls);
    timeline_fini(&all);
    timeline_fini(&a);
    timeline_fini(&b);
    timeline_fini(&none);
}

int
main(void)
{
    struct timeline t;
    struct timespec ts = { 1000, 0 };
    uint64_t total = 0, i;
    uint32_t k;

    merged();
    EQ(timeline_init(&t, 1), 0);
    for (i = 0; i < 100000; i++) { /* one call every 0.1 s for 10,000 s */
        struct tl_bucket *b;
        ts.tv_sec = 1000 + (time_t)(i / 10);
        b = timeline_at(&t, &ts);
        if (b) {
            b->calls++;
            histo_small_record(&b->latency, i % 500);
        }
    }
    CHECK(t.interval_s >= 10000 / TIMELINE_BUCKETS);
    CHECK(t.used <= TIMELINE_BUCKETS);
    for (k = 0; k < t.used; k++)
        total += t.b[k].calls;
    EQ(total, 100000);
    EQ(t.b[0].calls, (uint64_t)t.interval_s * 10);
    ts.tv_sec = 999;
    CHECK(timeline_at(&t, &ts) == NULL);
    EQ(t.before, 1);
    timeline_fini(&t);
    percentiles();
    return t_done();
}
