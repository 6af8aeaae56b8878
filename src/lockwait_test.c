/* SPDX-License-Identifier: BSD-3-Clause */
/* lockwait_test.c: the lock waits table: matching, eviction, time; two
 * tables merged. */
#include "lockwait.h"

#include <string.h>

#include "t.h"

static struct timespec
T(time_t s, long ns)
{
    struct timespec t = { s, ns };
    return t;
}

/* lockwait_merge: waits split between two tables, merged: the counts, the
 * waits' histogram and the waits still open of one table that saw all. */
static void
test_merge(void)
{
    struct lockwait *all = lockwait_new(16, 1), *a = lockwait_new(16, 1), *b = lockwait_new(16, 1);
    const struct lockwait_stats *sa, *sall;
    char c[4] = "cli";
    uint64_t i;

    for (i = 0; i < 10; i++) {
        struct lockwait *half = i % 3 ? a : b;
        struct timespec t0 = T((time_t)i, 0), t1 = T((time_t)(i * 2 + 1), 5000);

        c[0] = (char)('a' + i % 4);
        lockwait_blocked(all, c, sizeof c, i, &t0);
        lockwait_blocked(half, c, sizeof c, i, &t0);
        if (i % 4 == 3) /* left waiting */
            continue;
        if (i % 4 == 2) {
            CHECK(lockwait_cancelled(all, c, sizeof c, i));
            CHECK(lockwait_cancelled(half, c, sizeof c, i));
        } else {
            CHECK(lockwait_granted(all, c, sizeof c, i, &t1, true));
            CHECK(lockwait_granted(half, c, sizeof c, i, &t1, true));
        }
    }
    CHECK(!lockwait_granted(b, "zz", 2, 99, &(struct timespec){ 50, 0 }, true));
    CHECK(!lockwait_granted(all, "zz", 2, 99, &(struct timespec){ 50, 0 }, true));
    lockwait_merge(a, b);
    sa = lockwait_stats(a);
    sall = lockwait_stats(all);
    EQ(lockwait_pending(a), lockwait_pending(all));
    EQ(lockwait_pending(a), 2);
    EQ(sa->blocked, sall->blocked);
    EQ(sa->granted, sall->granted);
    EQ(sa->cancelled, sall->cancelled);
    EQ(sa->unmatched_grants, 1);
    CHECK(memcmp(&sa->wait, &sall->wait, sizeof sa->wait) == 0);
    lockwait_free(all);
    lockwait_free(a);
    lockwait_free(b);
}

int
main(void)
{
    struct lockwait *w = lockwait_new(3, 42);
    const struct lockwait_stats *st;
    struct timespec t;
    char c[4];
    uint64_t i;

    test_merge();
    CHECK(lockwait_new(0, 1) == NULL);
    CHECK(w != NULL);
    if (!w)
        return t_done();
    st = lockwait_stats(w);
    t = T(10, 0);
    lockwait_blocked(w, "A", 1, 7, &t);
    /* The same lock of another client, another lock of the same client. */
    CHECK(!lockwait_granted(w, "B", 1, 7, &t, true));
    CHECK(!lockwait_granted(w, "A", 1, 8, &t, true));
    CHECK(!lockwait_cancelled(w, "B", 1, 7));
    EQ(st->unmatched_grants, 2);
    EQ(lockwait_pending(w), 1);
    /* A LOCK answered NLM4_GRANTED for no wait is not an unmatched grant. */
    CHECK(!lockwait_granted(w, "A", 1, 9, &t, false));
    EQ(st->unmatched_grants, 2);
    t = T(11, 250000000);
    CHECK(lockwait_granted(w, "A", 1, 7, &t, true));
    EQ(st->wait.count, 1);
    EQ(st->wait.min, 1250000);
    EQ(lockwait_pending(w), 0);
    /* Time going backwards (merged captures): a wait of 0, never negative. */
    t = T(20, 0);
    lockwait_blocked(w, "A", 1, 7, &t);
    t = T(19, 0);
    CHECK(lockwait_granted(w, "A", 1, 7, &t, true));
    EQ(st->wait.min, 0);
    /* Bounded: 3 waits; the oldest are dropped and counted. */
    t = T(30, 0);
    for (i = 0; i < 10; i++) {
        memcpy(c, &i, sizeof c);
        lockwait_blocked(w, c, sizeof c, 100 + i, &t);
        CHECK(lockwait_pending(w) <= 3);
    }
    EQ(lockwait_pending(w), 3);
    EQ(st->evicted, 7);
    EQ(st->blocked, 12);
    i = 0;
    memcpy(c, &i, sizeof c);
    CHECK(!lockwait_cancelled(w, c, sizeof c, 100)); /* evicted */
    i = 9;
    memcpy(c, &i, sizeof c);
    CHECK(lockwait_cancelled(w, c, sizeof c, 109)); /* the newest stays */
    EQ(st->cancelled, 1);
    /* Freed slots are reused. */
    lockwait_blocked(w, "Z", 1, 1, &t);
    EQ(lockwait_pending(w), 3);
    EQ(st->evicted, 7);
    lockwait_free(w);
    lockwait_free(NULL);
    EQ(lockwait_pending(NULL), 0);
    CHECK(lockwait_stats(NULL) == NULL);
    return t_done();
}
