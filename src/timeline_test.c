/* timeline_test.c: buckets, coarsening keeps every count, times before the start. */
#include "timeline.h"

#include "t.h"

int
main(void)
{
    struct timeline t;
    struct timespec ts = { 1000, 0 };
    uint64_t total = 0, i;
    uint32_t k;

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
    return t_done();
}
