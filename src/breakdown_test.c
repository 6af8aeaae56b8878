/* breakdown_test.c: bounded tables, eviction into "other", totals, top-N order. */
#include "breakdown.h"

#include <string.h>

#include "t.h"

static void
test_small_table_floods(void)
{
    struct bd_table t;
    struct bd_row sum;
    uint32_t i;

    EQ(bd_table_init(&t, BD_FILE, 16, 42), 0);
    for (i = 0; i < 100000; i++) {
        uint32_t key = i % 3 ? i : 7; /* key 7 is hot: a third of all calls */
        struct bd_row *r = bd_table_row(&t, (const uint8_t *)&key, sizeof key);
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

int
main(void)
{
    test_small_table_floods();
    test_orders_and_ties();
    test_names();
    return t_done();
}
