/* SPDX-License-Identifier: BSD-3-Clause */
/* bd_procs_test.c: entries per row and generation, the overflow entry,
 * eviction into "other" keeps every total. */
#include "bd_procs.h"

#include "t.h"

static uint64_t
sum_calls(const struct bd_procs *bp)
{
    uint64_t n = 0;
    size_t s;
    uint32_t i;

    for (s = 0; s <= bp->cap; s++)
        for (i = 0; i < bp->rows[s].n; i++)
            n += bp->rows[s].e[i].calls;
    return n;
}

int
main(void)
{
    struct bd_procs bp;
    const struct bd_proc *e;
    uint32_t n, k, i;

    EQ(bd_procs_init(&bp, 4), 0);
    /* slot 0, generation 1: getattr (nfs3 idx 2, proc 1) twice, read once */
    bd_procs_call(&bp, 0, 1, bd_procs_key(2, 1), 0);
    bd_procs_call(&bp, 0, 1, bd_procs_key(2, 1), 0);
    bd_procs_call(&bp, 0, 1, bd_procs_key(2, 6), 0);
    bd_procs_reply(&bp, 0, 1, bd_procs_key(2, 1), false, 0, 100);
    bd_procs_reply(&bp, 0, 1, bd_procs_key(2, 1), true, 0, 300);
    bd_procs_reply(&bp, 0, 1, bd_procs_key(2, 6), false, 4096, 50);
    e = bd_procs_row(&bp, 0, 1, &n);
    CHECK(e != NULL);
    EQ(n, 2);
    if (e && n == 2) {
        EQ(e[0].key, bd_procs_key(2, 1));
        EQ(e[0].calls, 2);
        EQ(e[0].errors, 1);
        EQ(e[0].lat_count, 2);
        EQ(e[0].lat_sum, 400);
        EQ(e[0].lat_max, 300);
        EQ(e[1].bytes, 4096);
    }
    /* another generation: the old entries are not shown, then start over */
    CHECK(bd_procs_row(&bp, 0, 2, &n) == NULL);
    EQ(n, 0);
    bd_procs_call(&bp, 0, 2, bd_procs_key(2, 3), 0);
    e = bd_procs_row(&bp, 0, 2, &n);
    EQ(n, 1);
    CHECK(bd_procs_row(&bp, 0, 1, &n) == NULL);

    /* more procedures than a row holds: the last entry is the overflow */
    for (k = 0; k < BD_PROCS_PER_ROW + 5; k++)
        bd_procs_call(&bp, 1, 1, bd_procs_key(0, k), 10);
    e = bd_procs_row(&bp, 1, 1, &n);
    EQ(n, BD_PROCS_PER_ROW);
    if (e && n == BD_PROCS_PER_ROW) {
        EQ(e[BD_PROCS_PER_ROW - 1].key, BD_PROCS_OTHER);
        EQ(e[BD_PROCS_PER_ROW - 1].calls, 6); /* procedures 23..28 */
        EQ(e[BD_PROCS_PER_ROW - 2].key, bd_procs_key(0, BD_PROCS_PER_ROW - 2));
    }
    EQ(bp.overflow, 6);
    /* a known procedure still finds its own entry when the row is full */
    bd_procs_call(&bp, 1, 1, bd_procs_key(0, 3), 0);
    EQ(bp.overflow, 6);

    /* eviction: slot 1's entries move to "other" (slot cap); totals hold */
    n = 0;
    EQ(sum_calls(&bp), 1 + BD_PROCS_PER_ROW + 5 + 1);
    bd_procs_evict(&bp, 1);
    EQ(sum_calls(&bp), 1 + BD_PROCS_PER_ROW + 5 + 1);
    CHECK(bd_procs_row(&bp, 1, 1, &n) == NULL);
    e = bd_procs_row(&bp, bp.cap, 0, &n);
    EQ(n, BD_PROCS_PER_ROW);
    for (i = 0; e && i < n; i++)
        if (e[i].key == bd_procs_key(0, 3))
            EQ(e[i].calls, 2);
    bd_procs_evict(&bp, 0); /* slot 0 into a full "other": its procedure overflows */
    EQ(sum_calls(&bp), 1 + BD_PROCS_PER_ROW + 5 + 1);
    EQ(bp.overflow, 7);

    /* out of range: ignored, never written */
    bd_procs_call(&bp, 5, 1, bd_procs_key(0, 0), 0);
    CHECK(bd_procs_entry(&bp, 5, 1, 0) == NULL);
    EQ(sum_calls(&bp), 1 + BD_PROCS_PER_ROW + 5 + 1);
    bd_procs_fini(&bp);
    return t_done();
}
