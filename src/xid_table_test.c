/* xid_table_test.c: unit tests for the pending-call table (RFC 5531 §9 XIDs). */
#include "xid_table.h"

#include <stdlib.h>

#include "t.h"

#define MAXLOST 100000

struct lost_log {
    size_t n;
    struct {
        uint64_t flow_id;
        uint32_t xid;
        bool evicted;
        uint8_t state;
    } e[MAXLOST];
};

static struct lost_log L;

static void
on_lost(void *ctx, const struct pending_call *pc, bool evicted)
{
    struct lost_log *l = ctx;

    if (l->n < MAXLOST) {
        l->e[l->n].flow_id = pc->flow_id;
        l->e[l->n].xid = pc->xid;
        l->e[l->n].evicted = evicted;
        l->e[l->n].state = pc->state;
    }
    l->n++;
}

static struct timespec
T(long s)
{
    struct timespec t = { s, 0 };
    return t;
}

static void
test_basic(void)
{
    struct xid_table t;
    struct pending_call *pc, *pc2;
    struct timespec now = { 5, 250 };

    memset(&L, 0, sizeof L);
    EQ(xid_table_init(&t, 16, 42, on_lost, &L), 0);
    CHECK(xid_table_find(&t, 1, 100) == NULL);
    pc = xid_table_add(&t, 1, 100, &now);
    CHECK(pc != NULL);
    EQ(t.count, 1);
    EQ(pc->flow_id, 1);
    EQ(pc->xid, 100);
    EQ(pc->state, PC_PENDING);
    EQ(pc->uid, UINT32_MAX);
    EQ(pc->gid, UINT32_MAX);
    EQ(pc->t_call.tv_sec, 5);
    EQ(pc->t_call.tv_nsec, 250);
    CHECK(xid_table_find(&t, 1, 100) == pc);
    CHECK(xid_table_find(&t, 2, 100) == NULL); /* same XID, other flow */
    CHECK(xid_table_find(&t, 1, 101) == NULL);

    pc2 = xid_table_add(&t, 2, 100, &now); /* same XID on another flow */
    CHECK(pc2 != pc);
    CHECK(xid_table_find(&t, 2, 100) == pc2);
    CHECK(xid_table_find(&t, 1, 100) == pc);
    EQ(t.count, 2);

    now = T(7);
    xid_table_answer(&t, pc, &now);
    EQ(pc->state, PC_ANSWERED);
    EQ(pc->t_answer.tv_sec, 7);
    CHECK(xid_table_find(&t, 1, 100) == pc); /* answered entries stay findable */

    xid_table_remove(&t, pc);
    CHECK(xid_table_find(&t, 1, 100) == NULL);
    CHECK(xid_table_find(&t, 2, 100) == pc2);
    EQ(t.count, 1);
    xid_table_remove(&t, pc2);
    EQ(t.count, 0);
    CHECK(xid_table_find(&t, 2, 100) == NULL);
    EQ(L.n, 0); /* removal is not loss */
    xid_table_fini(&t);

    EQ(xid_table_init(&t, 0, 1, NULL, NULL), -1); /* capacity 0 refused */
}

static void
test_evict(void)
{
    struct xid_table t;
    struct timespec now;
    uint32_t i;

    memset(&L, 0, sizeof L);
    EQ(xid_table_init(&t, 16, 7, on_lost, &L), 0);
    for (i = 0; i < 16; i++) {
        now = T((long)i);
        xid_table_add(&t, 9, i, &now);
    }
    EQ(t.count, 16);
    EQ(L.n, 0);
    now = T(16);
    CHECK(xid_table_add(&t, 9, 16, &now) != NULL); /* the 17th */
    EQ(t.count, 16);
    EQ(L.n, 1);
    EQ(L.e[0].xid, 0); /* the oldest */
    EQ(L.e[0].flow_id, 9);
    CHECK(L.e[0].evicted);
    EQ(L.e[0].state, PC_PENDING);
    EQ(t.evicted, 1);
    CHECK(xid_table_find(&t, 9, 0) == NULL);
    CHECK(xid_table_find(&t, 9, 1) != NULL);
    CHECK(xid_table_find(&t, 9, 16) != NULL);
    xid_table_fini(&t);

    /* answered entries are evicted silently */
    memset(&L, 0, sizeof L);
    EQ(xid_table_init(&t, 16, 7, on_lost, &L), 0);
    for (i = 0; i < 16; i++) {
        now = T((long)i);
        xid_table_add(&t, 9, i, &now);
    }
    xid_table_answer(&t, xid_table_find(&t, 9, 0), &now);
    xid_table_answer(&t, xid_table_find(&t, 9, 1), &now);
    xid_table_add(&t, 9, 100, &now);
    xid_table_add(&t, 9, 101, &now);
    EQ(L.n, 0);
    EQ(t.evicted, 0);
    CHECK(xid_table_find(&t, 9, 0) == NULL);
    CHECK(xid_table_find(&t, 9, 1) == NULL);
    xid_table_add(&t, 9, 102, &now); /* now the oldest (xid 2) is pending */
    EQ(L.n, 1);
    EQ(L.e[0].xid, 2);
    CHECK(L.e[0].evicted);
    EQ(t.evicted, 1);
    EQ(t.count, 16);
    xid_table_fini(&t);

    /* a removed entry frees its slot: no eviction */
    memset(&L, 0, sizeof L);
    EQ(xid_table_init(&t, 16, 7, on_lost, &L), 0);
    for (i = 0; i < 16; i++)
        xid_table_add(&t, 9, i, &now);
    xid_table_remove(&t, xid_table_find(&t, 9, 5));
    xid_table_add(&t, 9, 200, &now);
    EQ(L.n, 0);
    CHECK(xid_table_find(&t, 9, 0) != NULL);
    xid_table_fini(&t);
}

static void
test_expire(void)
{
    struct xid_table t;
    struct timespec now;
    uint32_t i;

    memset(&L, 0, sizeof L);
    EQ(xid_table_init(&t, 16, 3, on_lost, &L), 0);
    now = T(0);
    xid_table_add(&t, 1, 1, &now);
    now = T(10);
    xid_table_add(&t, 1, 2, &now);
    now = T(20);
    xid_table_add(&t, 1, 3, &now);
    now = T(12);
    xid_table_answer(&t, xid_table_find(&t, 1, 2), &now);

    /* timeout 20, answered kept 5 */
    now = T(25);
    xid_table_expire(&t, &now, 20, 5, 0);
    EQ(L.n, 1);
    EQ(L.e[0].xid, 1); /* 25 s old */
    CHECK(!L.e[0].evicted);
    EQ(t.expired, 1);
    CHECK(xid_table_find(&t, 1, 1) == NULL);
    CHECK(xid_table_find(&t, 1, 2) == NULL); /* answered 13 s ago: dropped silently */
    CHECK(xid_table_find(&t, 1, 3) != NULL); /* 5 s old */
    EQ(t.count, 1);

    now = T(40); /* exactly 20 s: still waiting */
    xid_table_expire(&t, &now, 20, 5, 0);
    EQ(L.n, 1);
    CHECK(xid_table_find(&t, 1, 3) != NULL);
    now = T(41);
    xid_table_expire(&t, &now, 20, 5, 0);
    EQ(L.n, 2);
    EQ(L.e[1].xid, 3);
    EQ(t.count, 0);
    EQ(t.expired, 2);

    /* an answered entry is kept for answered_keep_s */
    now = T(100);
    xid_table_add(&t, 1, 4, &now);
    now = T(101);
    xid_table_answer(&t, xid_table_find(&t, 1, 4), &now);
    now = T(106);
    xid_table_expire(&t, &now, 20, 5, 0);
    CHECK(xid_table_find(&t, 1, 4) != NULL);
    EQ(xid_table_find(&t, 1, 4)->state, PC_ANSWERED);
    now = T(107);
    xid_table_expire(&t, &now, 20, 5, 0);
    CHECK(xid_table_find(&t, 1, 4) == NULL);
    EQ(L.n, 2); /* never reported */

    /* budget: at most 2 entries looked at */
    for (i = 0; i < 5; i++) {
        now = T(200);
        xid_table_add(&t, 2, i, &now);
    }
    now = T(300);
    xid_table_expire(&t, &now, 20, 5, 2);
    EQ(L.n, 4);
    EQ(t.count, 3);
    xid_table_expire(&t, &now, 20, 5, 0);
    EQ(L.n, 7);
    EQ(t.count, 0);
    xid_table_fini(&t);
}

static void
test_flush(void)
{
    struct xid_table t;
    struct timespec now = T(1);
    uint32_t i;
    size_t k;
    unsigned seen[8] = { 0 };

    memset(&L, 0, sizeof L);
    EQ(xid_table_init(&t, 16, 3, on_lost, &L), 0);
    for (i = 0; i < 7; i++)
        xid_table_add(&t, 3, i, &now);
    xid_table_answer(&t, xid_table_find(&t, 3, 2), &now);
    xid_table_answer(&t, xid_table_find(&t, 3, 5), &now);
    xid_table_flush(&t);
    EQ(t.count, 0);
    EQ(L.n, 5);
    for (k = 0; k < L.n && k < MAXLOST; k++) {
        CHECK(!L.e[k].evicted);
        if (L.e[k].xid < 8)
            seen[L.e[k].xid]++;
    }
    CHECK(seen[0] == 1 && seen[1] == 1 && seen[3] == 1 && seen[4] == 1 && seen[6] == 1);
    CHECK(seen[2] == 0 && seen[5] == 0);
    for (i = 0; i < 7; i++)
        CHECK(xid_table_find(&t, 3, i) == NULL);
    xid_table_flush(&t); /* nothing left: nothing reported */
    EQ(L.n, 5);
    /* usable after a flush, to full capacity */
    for (i = 0; i < 16; i++)
        xid_table_add(&t, 4, i, &now);
    EQ(t.count, 16);
    EQ(L.n, 5);
    xid_table_fini(&t);
}

/* ---- random operations against a reference model ---- */

#define RCAP 64

struct ref_ent {
    uint64_t flow_id;
    uint32_t xid;
    uint8_t state;
    long t_call, t_answer;
};

struct ref {
    size_t n;
    struct ref_ent e[RCAP]; /* arrival order, oldest first */
    struct lost_log want;
};

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t
rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)((rng >> 16) % n);
}

static int
ref_find(const struct ref *r, uint64_t f, uint32_t xid)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        if (r->e[i].flow_id == f && r->e[i].xid == xid)
            return (int)i;
    return -1;
}

static void
ref_del(struct ref *r, size_t i)
{
    memmove(&r->e[i], &r->e[i + 1], (r->n - i - 1) * sizeof r->e[0]);
    r->n--;
}

static void
ref_lost(struct ref *r, size_t i, bool evicted)
{
    if (r->want.n < MAXLOST) {
        r->want.e[r->want.n].flow_id = r->e[i].flow_id;
        r->want.e[r->want.n].xid = r->e[i].xid;
        r->want.e[r->want.n].evicted = evicted;
        r->want.e[r->want.n].state = PC_PENDING;
    }
    r->want.n++;
}

static void
ref_expire(struct ref *r, long now, long timeout, long keep, size_t budget)
{
    size_t i = 0, looked = 0;

    while (i < r->n && (budget == 0 || looked++ < budget)) {
        struct ref_ent *e = &r->e[i];
        if (e->state == PC_ANSWERED) {
            if (now - e->t_answer > keep) {
                ref_del(r, i);
                continue;
            }
            if (now - e->t_call <= timeout)
                return;
        } else {
            if (now - e->t_call <= timeout)
                return;
            ref_lost(r, i, false);
            ref_del(r, i);
            continue;
        }
        i++;
    }
}

static struct ref R;

/* The table agrees with the model: same entries, same arrival order. */
static bool
same(struct xid_table *t, const struct ref *r)
{
    uint32_t s = t->old_head;
    size_t i;

    if (t->count != r->n)
        return false;
    for (i = 0; i < r->n; i++) {
        const struct ref_ent *e = &r->e[i];
        struct pending_call *pc = xid_table_find(t, e->flow_id, e->xid);
        if (!pc || pc->state != e->state || pc->t_call.tv_sec != e->t_call)
            return false;
        if (s == HT_NONE || &t->slab[s] != pc)
            return false;
        s = pc->seq_next;
    }
    return s == HT_NONE;
}

static void
test_random(void)
{
    struct xid_table t;
    long now = 1000;
    unsigned op, mismatch_find = 0, mismatch_state = 0, mismatch_lost = 0, stale = 0;
    unsigned adds = 0, evicts_seen = 0;
    uint64_t want_evicted = 0, want_expired = 0;

    memset(&L, 0, sizeof L);
    memset(&R, 0, sizeof R);
    EQ(xid_table_init(&t, RCAP, 0xabcdef, on_lost, &L), 0);
    for (op = 0; op < 100000; op++) {
        uint64_t f = 1 + rnd(4);
        uint32_t xid = rnd(48);
        uint32_t what = rnd(1000);
        int i = ref_find(&R, f, xid);
        struct pending_call *pc = xid_table_find(&t, f, xid);
        struct timespec ts = T(now);

        if ((i >= 0) != (pc != NULL))
            mismatch_find++;
        if (what < 450) { /* a call: an existing entry for the key is replaced */
            if (pc) {
                xid_table_remove(&t, pc);
                ref_del(&R, (size_t)i);
            }
            if (R.n == RCAP) {
                if (R.e[0].state == PC_PENDING) {
                    ref_lost(&R, 0, true);
                    want_evicted++;
                    evicts_seen++;
                }
                ref_del(&R, 0);
            }
            pc = xid_table_add(&t, f, xid, &ts);
            pc->proc = xid; /* scribble on the payload */
            R.e[R.n].flow_id = f;
            R.e[R.n].xid = xid;
            R.e[R.n].state = PC_PENDING;
            R.e[R.n].t_call = now;
            R.n++;
            adds++;
        } else if (what < 650) { /* lookup only (done above) */
            if (pc && i >= 0 && (pc->state != R.e[i].state || pc->t_call.tv_sec != R.e[i].t_call))
                mismatch_state++;
        } else if (what < 800) { /* a reply */
            if (pc && i >= 0 && pc->state == PC_PENDING) {
                xid_table_answer(&t, pc, &ts);
                R.e[i].state = PC_ANSWERED;
                R.e[i].t_answer = now;
            }
        } else if (what < 880) { /* removed */
            if (pc && i >= 0) {
                xid_table_remove(&t, pc);
                ref_del(&R, (size_t)i);
            }
        } else if (what < 998) { /* time passes, expiry runs */
            size_t budget = rnd(4) == 0 ? 0 : 1 + rnd(8);
            size_t before = R.want.n;
            now += rnd(6);
            ts = T(now);
            xid_table_expire(&t, &ts, 30, 10, budget);
            ref_expire(&R, now, 30, 10, budget);
            want_expired += R.want.n - before;
            if (budget == 0) { /* nothing pending older than the timeout survives */
                size_t k;
                for (k = 0; k < R.n; k++)
                    if (R.e[k].state == PC_PENDING && now - R.e[k].t_call > 30)
                        stale++;
            }
        } else { /* end of input */
            size_t k;
            for (k = 0; k < R.n; k++)
                if (R.e[k].state == PC_PENDING)
                    ref_lost(&R, k, false);
            R.n = 0;
            xid_table_flush(&t);
        }
        if (t.count != R.n || L.n != R.want.n)
            mismatch_lost++;
        if (op % 97 == 0 && !same(&t, &R))
            mismatch_state++;
    }
    EQ(mismatch_find, 0);
    EQ(mismatch_state, 0);
    EQ(mismatch_lost, 0);
    EQ(stale, 0);
    CHECK(same(&t, &R));
    EQ(t.count, R.n);
    EQ(t.evicted, want_evicted);
    EQ(t.expired, want_expired);
    CHECK(evicts_seen > 0); /* the run exercised eviction... */
    CHECK(want_expired > 0); /* ...and expiry */
    CHECK(adds > 40000);
    /* the lost reports, in order */
    {
        size_t k, n = L.n < MAXLOST ? L.n : MAXLOST, bad = 0;
        for (k = 0; k < n; k++)
            if (L.e[k].flow_id != R.want.e[k].flow_id || L.e[k].xid != R.want.e[k].xid ||
                L.e[k].evicted != R.want.e[k].evicted || L.e[k].state != PC_PENDING)
                bad++;
        EQ(bad, 0);
    }
    /* drain: every remaining pending call reported exactly once */
    {
        size_t k, pending = 0, before = L.n;
        for (k = 0; k < R.n; k++)
            pending += R.e[k].state == PC_PENDING;
        xid_table_flush(&t);
        EQ(L.n - before, pending);
        EQ(t.count, 0);
    }
    xid_table_fini(&t);
}

int
main(void)
{
    test_basic();
    test_evict();
    test_expire();
    test_flush();
    test_random();
    return t_done();
}
