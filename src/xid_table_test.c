/* SPDX-License-Identifier: BSD-3-Clause */
/* xid_table_test.c: unit tests for the pending-call table (RFC 5531 §9 XIDs). */
#include "xid_table.h"

#include <stdlib.h>
#include <string.h>

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
    CHECK(xid_table_find(&t, 1, 0, 100) == NULL);
    pc = xid_table_add(&t, 1, 0, 100, &now);
    CHECK(pc != NULL);
    EQ(t.count, 1);
    EQ(pc->flow_id, 1);
    EQ(pc->xid, 100);
    EQ(pc->state, PC_PENDING);
    EQ(pc->uid, UINT32_MAX);
    EQ(pc->gid, UINT32_MAX);
    EQ(pc->t_call.tv_sec, 5);
    EQ(pc->t_call.tv_nsec, 250);
    CHECK(xid_table_find(&t, 1, 0, 100) == pc);
    CHECK(xid_table_find(&t, 2, 0, 100) == NULL); /* same XID, other flow */
    CHECK(xid_table_find(&t, 1, 0, 101) == NULL);

    pc2 = xid_table_add(&t, 2, 0, 100, &now); /* same XID on another flow */
    CHECK(pc2 != pc);
    CHECK(xid_table_find(&t, 2, 0, 100) == pc2);
    CHECK(xid_table_find(&t, 1, 0, 100) == pc);
    EQ(t.count, 2);

    now = T(7);
    pc->prog = 100003;
    pc->proc = 6;
    xid_table_answer(&t, pc, &now); /* leaves the pending calls ... */
    CHECK(xid_table_find(&t, 1, 0, 100) == NULL);
    EQ(t.count, 1);
    EQ(t.ans_count, 1);
    { /* ... and is remembered as answered */
        const struct answered_call *a = xid_answered_find(&t, 1, 0, 100);
        CHECK(a != NULL);
        if (a) {
            EQ(a->t_answer.tv_sec, 7);
            EQ(a->prog, 100003);
            EQ(a->proc, 6);
            EQ(a->sent_dir, 0);
        }
        CHECK(xid_answered_find(&t, 2, 0, 100) == NULL); /* pc2 is pending, not answered */
        xid_answered_forget(&t, a);
        CHECK(xid_answered_find(&t, 1, 0, 100) == NULL);
        xid_answered_forget(&t, a); /* twice: a no-op */
    }
    CHECK(xid_table_find(&t, 2, 0, 100) == pc2);
    EQ(t.count, 1);
    xid_table_remove(&t, pc2);
    EQ(t.count, 0);
    CHECK(xid_table_find(&t, 2, 0, 100) == NULL);
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
        xid_table_add(&t, 9, 0, i, &now);
    }
    EQ(t.count, 16);
    EQ(L.n, 0);
    now = T(16);
    CHECK(xid_table_add(&t, 9, 0, 16, &now) != NULL); /* the 17th */
    EQ(t.count, 16);
    EQ(L.n, 1);
    EQ(L.e[0].xid, 0); /* the oldest */
    EQ(L.e[0].flow_id, 9);
    CHECK(L.e[0].evicted);
    EQ(L.e[0].state, PC_PENDING);
    EQ(t.evicted, 1);
    CHECK(xid_table_find(&t, 9, 0, 0) == NULL);
    CHECK(xid_table_find(&t, 9, 0, 1) != NULL);
    CHECK(xid_table_find(&t, 9, 0, 16) != NULL);
    xid_table_fini(&t);

    /* answered calls free their pending slot and never push a pending call out */
    memset(&L, 0, sizeof L);
    EQ(xid_table_init(&t, 16, 7, on_lost, &L), 0);
    for (i = 0; i < 16; i++) {
        now = T((long)i);
        xid_table_add(&t, 9, 0, i, &now);
    }
    xid_table_answer(&t, xid_table_find(&t, 9, 0, 0), &now);
    xid_table_answer(&t, xid_table_find(&t, 9, 0, 1), &now);
    xid_table_add(&t, 9, 0, 100, &now);
    xid_table_add(&t, 9, 0, 101, &now);
    EQ(L.n, 0);
    EQ(t.evicted, 0);
    CHECK(xid_table_find(&t, 9, 0, 0) == NULL);
    CHECK(xid_answered_find(&t, 9, 0, 0) != NULL);
    CHECK(xid_answered_find(&t, 9, 0, 1) != NULL);
    xid_table_add(&t, 9, 0, 102, &now); /* now the oldest (xid 2) is pending */
    EQ(L.n, 1);
    EQ(L.e[0].xid, 2);
    CHECK(L.e[0].evicted);
    EQ(t.evicted, 1);
    EQ(t.count, 16);
    xid_table_fini(&t);

    /* the answered ring holds cap calls: the oldest makes room, silently */
    memset(&L, 0, sizeof L);
    EQ(xid_table_init(&t, 16, 7, on_lost, &L), 0);
    for (i = 0; i < 17; i++) {
        now = T((long)i);
        xid_table_answer(&t, xid_table_add(&t, 5, 0, i, &now), &now);
    }
    EQ(t.ans_count, 16);
    EQ(t.count, 0);
    EQ(L.n, 0);
    EQ(t.evicted, 0);
    CHECK(xid_answered_find(&t, 5, 0, 0) == NULL);
    for (i = 1; i < 17; i++)
        CHECK(xid_answered_find(&t, 5, 0, i) != NULL);
    xid_table_fini(&t);

    /* a removed entry frees its slot: no eviction */
    memset(&L, 0, sizeof L);
    EQ(xid_table_init(&t, 16, 7, on_lost, &L), 0);
    for (i = 0; i < 16; i++)
        xid_table_add(&t, 9, 0, i, &now);
    xid_table_remove(&t, xid_table_find(&t, 9, 0, 5));
    xid_table_add(&t, 9, 0, 200, &now);
    EQ(L.n, 0);
    CHECK(xid_table_find(&t, 9, 0, 0) != NULL);
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
    xid_table_add(&t, 1, 0, 1, &now);
    now = T(10);
    xid_table_add(&t, 1, 0, 2, &now);
    now = T(20);
    xid_table_add(&t, 1, 0, 3, &now);
    now = T(12);
    xid_table_answer(&t, xid_table_find(&t, 1, 0, 2), &now);

    /* timeout 20, answered kept 5 */
    now = T(25);
    xid_table_expire(&t, &now, 20, 5, 0);
    EQ(L.n, 1);
    EQ(L.e[0].xid, 1); /* 25 s old */
    CHECK(!L.e[0].evicted);
    EQ(t.expired, 1);
    CHECK(xid_table_find(&t, 1, 0, 1) == NULL);
    CHECK(xid_answered_find(&t, 1, 0, 2) == NULL); /* answered 13 s ago: dropped silently */
    EQ(t.ans_count, 0);
    CHECK(xid_table_find(&t, 1, 0, 3) != NULL); /* 5 s old */
    EQ(t.count, 1);

    now = T(40); /* exactly 20 s: still waiting */
    xid_table_expire(&t, &now, 20, 5, 0);
    EQ(L.n, 1);
    CHECK(xid_table_find(&t, 1, 0, 3) != NULL);
    now = T(41);
    xid_table_expire(&t, &now, 20, 5, 0);
    EQ(L.n, 2);
    EQ(L.e[1].xid, 3);
    EQ(t.count, 0);
    EQ(t.expired, 2);

    /* an answered entry is kept for answered_keep_s */
    now = T(100);
    xid_table_add(&t, 1, 0, 4, &now);
    now = T(101);
    xid_table_answer(&t, xid_table_find(&t, 1, 0, 4), &now);
    now = T(106);
    xid_table_expire(&t, &now, 20, 5, 0);
    CHECK(xid_answered_find(&t, 1, 0, 4) != NULL);
    CHECK(xid_table_find(&t, 1, 0, 4) == NULL);
    now = T(107);
    xid_table_expire(&t, &now, 20, 5, 0);
    CHECK(xid_answered_find(&t, 1, 0, 4) == NULL);
    EQ(L.n, 2); /* never reported */

    /* budget: at most 2 entries looked at */
    for (i = 0; i < 5; i++) {
        now = T(200);
        xid_table_add(&t, 2, 0, i, &now);
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
        xid_table_add(&t, 3, 0, i, &now);
    xid_table_answer(&t, xid_table_find(&t, 3, 0, 2), &now);
    xid_table_answer(&t, xid_table_find(&t, 3, 0, 5), &now);
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
        CHECK(xid_table_find(&t, 3, 0, i) == NULL && xid_answered_find(&t, 3, 0, i) == NULL);
    EQ(t.ans_count, 0);
    xid_table_flush(&t); /* nothing left: nothing reported */
    EQ(L.n, 5);
    /* usable after a flush, to full capacity */
    for (i = 0; i < 16; i++)
        xid_table_add(&t, 4, 0, i, &now);
    EQ(t.count, 16);
    EQ(L.n, 5);
    xid_table_fini(&t);
}

/* ---- random operations against a reference model ---- */

#define RCAP 64

struct ref_ent {
    uint64_t flow_id;
    uint32_t xid;
    uint8_t live; /* answered: not forgotten */
    long t_call, t_answer;
};

struct ref {
    size_t n;
    struct ref_ent e[RCAP]; /* pending, arrival order, oldest first */
    size_t an;
    struct ref_ent a[RCAP]; /* answered, answer order, forgotten ones included */
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

static int
ref_afind(const struct ref *r, uint64_t f, uint32_t xid)
{
    size_t i;

    for (i = 0; i < r->an; i++)
        if (r->a[i].live && r->a[i].flow_id == f && r->a[i].xid == xid)
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
ref_apop(struct ref *r)
{
    memmove(&r->a[0], &r->a[1], (r->an - 1) * sizeof r->a[0]);
    r->an--;
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
    size_t looked = 0;

    while (r->an && (budget == 0 || looked < budget)) {
        if (r->a[0].live && now - r->a[0].t_answer <= keep)
            break;
        ref_apop(r);
        looked++;
    }
    while (r->n && (budget == 0 || looked++ < budget)) {
        if (now - r->e[0].t_call <= timeout)
            return;
        ref_lost(r, 0, false);
        ref_del(r, 0);
    }
}

static struct ref R;

/* The table agrees with the model: same pending calls in the same arrival
 * order, same answered calls in the same answer order. */
static bool
same(struct xid_table *t, const struct ref *r)
{
    uint32_t s = t->old_head;
    size_t i;

    if (t->count != r->n || t->ans_count != r->an)
        return false;
    for (i = 0; i < r->n; i++) {
        const struct ref_ent *e = &r->e[i];
        struct pending_call *pc = xid_table_find(t, e->flow_id, 0, e->xid);
        if (!pc || pc->state != PC_PENDING || pc->t_call.tv_sec != e->t_call)
            return false;
        if (s == HT_NONE || &t->slab[s] != pc)
            return false;
        s = pc->seq_next;
    }
    for (i = 0; i < r->an; i++) {
        const struct answered_call *a = &t->ans[(t->ans_head + i) % t->cap];
        const struct ref_ent *e = &r->a[i];
        if (a->live != e->live || (e->live && (a->flow_id != e->flow_id || a->xid != e->xid ||
                                               a->t_answer.tv_sec != e->t_answer)))
            return false;
        if (e->live && xid_answered_find(t, e->flow_id, 0, e->xid) != a)
            return false;
    }
    return s == HT_NONE;
}

/* step: the most packet time that passes per expiry step (0: none, so
 * answered calls stay until the ring is full). */
static void
test_random(long step)
{
    struct xid_table t;
    long now = 1000;
    unsigned op, mismatch_find = 0, mismatch_state = 0, mismatch_lost = 0, stale = 0;
    unsigned adds = 0, evicts_seen = 0, answers = 0, ans_pops = 0;
    uint64_t want_evicted = 0, want_expired = 0;

    memset(&L, 0, sizeof L);
    memset(&R, 0, sizeof R);
    EQ(xid_table_init(&t, RCAP, 0xabcdef, on_lost, &L), 0);
    for (op = 0; op < 100000; op++) {
        uint64_t f = 1 + rnd(4);
        uint32_t xid = rnd(48);
        uint32_t what = rnd(1000);
        int i = ref_find(&R, f, xid), j = ref_afind(&R, f, xid);
        struct pending_call *pc = xid_table_find(&t, f, 0, xid);
        const struct answered_call *a = xid_answered_find(&t, f, 0, xid);
        struct timespec ts = T(now);

        if ((i >= 0) != (pc != NULL) || (j >= 0) != (a != NULL))
            mismatch_find++;
        if (what < 450) { /* a call: an entry for the key, of either kind, is replaced */
            if (pc) {
                xid_table_remove(&t, pc);
                ref_del(&R, (size_t)i);
            }
            if (a) {
                xid_answered_forget(&t, a);
                R.a[j].live = 0;
            }
            if (R.n == RCAP) {
                ref_lost(&R, 0, true);
                want_evicted++;
                evicts_seen++;
                ref_del(&R, 0);
            }
            pc = xid_table_add(&t, f, 0, xid, &ts);
            pc->proc = xid; /* scribble on the payload */
            R.e[R.n].flow_id = f;
            R.e[R.n].xid = xid;
            R.e[R.n].t_call = now;
            R.n++;
            adds++;
        } else if (what < 650) { /* lookup only (done above) */
            if (pc && i >= 0 && pc->t_call.tv_sec != R.e[i].t_call)
                mismatch_state++;
            if (a && j >= 0 && a->t_answer.tv_sec != R.a[j].t_answer)
                mismatch_state++;
        } else if (what < 800) { /* a reply */
            if (pc && i >= 0) {
                if (R.an == RCAP) {
                    ref_apop(&R);
                    ans_pops++;
                }
                R.a[R.an] = R.e[i];
                R.a[R.an].live = 1;
                R.a[R.an].t_answer = now;
                R.an++;
                ref_del(&R, (size_t)i);
                xid_table_answer(&t, pc, &ts);
                answers++;
            }
        } else if (what < 880) { /* removed, or forgotten */
            if (pc && i >= 0) {
                xid_table_remove(&t, pc);
                ref_del(&R, (size_t)i);
            }
            if (a && j >= 0) {
                xid_answered_forget(&t, a);
                R.a[j].live = 0;
            }
        } else if (what < 998) { /* time passes, expiry runs */
            size_t budget = rnd(4) == 0 ? 0 : 1 + rnd(8);
            size_t before = R.want.n;
            now += rnd((uint32_t)step + 1);
            ts = T(now);
            xid_table_expire(&t, &ts, 30, 10, budget);
            ref_expire(&R, now, 30, 10, budget);
            want_expired += R.want.n - before;
            if (budget == 0) { /* nothing older than its limit survives */
                size_t k;
                for (k = 0; k < R.n; k++)
                    if (now - R.e[k].t_call > 30)
                        stale++;
                if (R.an && (!R.a[0].live || now - R.a[0].t_answer > 10))
                    stale++;
            }
        } else { /* end of input */
            size_t k;
            for (k = 0; k < R.n; k++)
                ref_lost(&R, k, false);
            R.n = 0;
            R.an = 0;
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
    CHECK(adds > 40000);
    CHECK(answers > 2000);
    if (step)
        CHECK(want_expired > 0); /* ...and expiry */
    else
        CHECK(ans_pops > 0); /* ...or a full answered ring */
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
        size_t before = L.n;
        xid_table_flush(&t);
        EQ(L.n - before, R.n);
        EQ(t.count, 0);
        EQ(t.ans_count, 0);
    }
    xid_table_fini(&t);
}

/* Direction is part of the key (RFC 5531 §9: XIDs are the caller's): a call
 * each way with one XID on one connection are two pending calls; a file
 * handle of NFS4_FHSIZE bytes fits a pending call whole; a call moved to a
 * new connection (a client reconnecting) is found there only. */
static void
test_directions_handles_rekey(void)
{
    struct xid_table t;
    struct pending_call *c0, *c1;
    struct timespec now = T(1);

    EQ(xid_table_init(&t, 8, 11, NULL, NULL), 0);
    c0 = xid_table_add(&t, 4, 0, 77, &now);
    c1 = xid_table_add(&t, 4, 1, 77, &now);
    CHECK(c0 != c1);
    EQ(t.count, 2);
    CHECK(xid_table_find(&t, 4, 0, 77) == c0 && xid_table_find(&t, 4, 1, 77) == c1);
    EQ(c0->sent_dir, 0);
    EQ(c1->sent_dir, 1);
    EQ(sizeof c0->fh, 128);
    memset(c1->fh, 0xab, sizeof c1->fh);
    c1->fh_len = (uint8_t)sizeof c1->fh;
    xid_table_answer(&t, c1, &now);
    CHECK(xid_table_find(&t, 4, 1, 77) == NULL && xid_table_find(&t, 4, 0, 77) == c0);
    CHECK(xid_answered_find(&t, 4, 1, 77) != NULL && xid_answered_find(&t, 4, 0, 77) == NULL);
    xid_table_rekey(&t, c0, 5);
    CHECK(xid_table_find(&t, 4, 0, 77) == NULL && xid_table_find(&t, 5, 0, 77) == c0);
    EQ(c0->flow_id, 5);
    xid_table_remove(&t, c0);
    EQ(t.count, 0);
    xid_table_fini(&t);
}

/* A slot given again comes back zeroed but for the handle and name bytes,
 * whose lengths are 0; the key's fields are the new key's. */
static void
test_reused_slot(void)
{
    struct xid_table t;
    struct pending_call *pc, *again;
    struct timespec now = T(3);
    size_t i;
    bool zero = true;

    EQ(xid_table_init(&t, 4, 12, NULL, NULL), 0);
    pc = xid_table_add(&t, 9, 1, 500, &now);
    memset(pc, 0xff, sizeof *pc); /* every field dirty, then back to its key */
    pc->flow_id = 9;
    pc->sent_dir = 1;
    pc->xid = 500;
    pc->state = PC_PENDING;
    pc->seq_prev = pc->seq_next = HT_NONE;
    xid_table_remove(&t, pc);
    again = xid_table_add(&t, 10, 0, 501, &now);
    CHECK(again == pc); /* the freed slot */
    EQ(again->flow_id, 10);
    EQ(again->xid, 501);
    EQ(again->sent_dir, 0);
    EQ(again->dir, 0);
    EQ(again->state, PC_PENDING);
    EQ(again->uid, UINT32_MAX);
    EQ(again->gid, UINT32_MAX);
    EQ(again->t_call.tv_sec, 3);
    CHECK(again->pg == NULL);
    EQ(again->fh_len, 0);
    EQ(again->name_len, 0);
    EQ(again->fh2_len, 0);
    EQ(again->name2_len, 0);
    EQ(again->retrans, 0);
    EQ(again->write_count, 0);
    EQ(again->minor, 0);
    for (i = 0; i < PC_BD_DIMS; i++)
        zero = zero && again->bd_idx[i] == 0 && again->bd_gen[i] == 0;
    for (i = 0; i < PC_PRIV_SIZE; i++)
        zero = zero && again->priv[i] == 0;
    CHECK(zero);
    CHECK(xid_table_find(&t, 10, 0, 501) == again && xid_table_find(&t, 9, 1, 500) == NULL);
    xid_table_fini(&t);
}

/* ---- xid_conn: the same answers as the index alone ----------------------------- */

static struct lost_log L2;

#define CF 6     /* connections */
#define CSENT 64 /* XIDs remembered per connection, to answer or resend */

struct cmodel {
    struct xid_conn xc;
    uint64_t id, prev_id;
    uint32_t next_xid;
    uint32_t sent[CSENT];
    uint8_t sent_dir[CSENT];
    unsigned nsent;
};

static uint32_t crng = 12345;

static uint32_t
crand(uint32_t n)
{
    crng = crng * 1103515245u + 12345u;
    return (crng >> 8) % n;
}

/* a (the connections' table) and b (the index alone) hold the same calls in
 * the same slots: compare one key. */
static int
same_find(struct xid_table *a, struct xid_table *b, struct cmodel *c, unsigned dir, uint32_t xid,
          struct pending_call **pa, struct pending_call **pb)
{
    *pa = xid_conn_find(a, &c->xc, c->id, dir, xid);
    *pb = xid_table_find(b, c->id, dir, xid);
    if (!*pa || !*pb)
        return !*pa && !*pb;
    return *pa - a->slab == *pb - b->slab && (*pa)->xid == xid && (*pa)->flow_id == c->id &&
           (*pa)->sent_dir == (dir & 1);
}

/* Calls, resent calls, XIDs reused for other calls, both directions (a
 * callback's XIDs are its own), deep pipelines (calls of one bucket),
 * replies, duplicate replies, answers (UDP) and removals (TCP), evictions
 * from a full table, expiry, reconnections (a new id, the old calls resent
 * and moved over) and forgotten connections, against a second table used
 * through the index alone. */
static void
test_conn_random(size_t cap, unsigned steps)
{
    static struct cmodel cm[CF];
    struct xid_table a, b;
    struct timespec now = { 100, 0 };
    uint64_t next_id = 0;
    unsigned i, k, bad = 0, held = 0, found = 0;

    memset(&L, 0, sizeof L);
    memset(&L2, 0, sizeof L2);
    memset(cm, 0, sizeof cm);
    EQ(xid_table_init(&a, cap, 99, on_lost, &L), 0);
    EQ(xid_table_init(&b, cap, 99, on_lost, &L2), 0);
    for (i = 0; i < CF; i++) {
        cm[i].id = next_id++;
        cm[i].next_xid = 1000u * i + (i & 1 ? 0xfffffff0u : 0); /* one wraps */
    }
    for (k = 0; k < steps && !bad; k++) {
        struct cmodel *c = &cm[crand(CF)];
        struct pending_call *pa, *pb;
        unsigned op = crand(100), dir = crand(8) == 0; /* callbacks now and then */
        uint32_t xid;

        if (k % 50 == 0)
            now.tv_sec += 1;
        if (op < 40) { /* a call: new, resent or reusing an XID */
            unsigned j = c->nsent ? crand(c->nsent) : 0;

            xid = op < 30 || !c->nsent ? c->next_xid++ : c->sent[j];
            if (op >= 30 && c->nsent)
                dir = c->sent_dir[j];
            if (!same_find(&a, &b, c, dir, xid, &pa, &pb)) {
                bad++;
                break;
            }
            if (pa) {
                found++;
                if (!pa->in_index)
                    held++;
                if (crand(2)) /* reused for another call: the old one is over */
                    xid_conn_remove(&a, &c->xc, pa), xid_table_remove(&b, pb);
                else
                    continue; /* resent */
            }
            pa = xid_conn_add(&a, &c->xc, c->id, dir, xid, &now);
            pb = xid_table_add(&b, c->id, dir, xid, &now);
            if (pa - a.slab != pb - b.slab)
                bad++;
            c->sent[c->nsent % CSENT] = xid;
            c->sent_dir[c->nsent % CSENT] = (uint8_t)dir;
            if (c->nsent < CSENT)
                c->nsent++;
            else
                memmove(c->sent, c->sent + 1, sizeof c->sent - sizeof c->sent[0]),
                    memmove(c->sent_dir, c->sent_dir + 1, sizeof c->sent_dir - 1),
                    c->sent[CSENT - 1] = xid, c->sent_dir[CSENT - 1] = (uint8_t)dir;
        } else if (op < 85) { /* a reply (maybe a duplicate, or to nothing) */
            unsigned j = c->nsent ? crand(c->nsent) : 0;

            xid = c->nsent && op < 83 ? c->sent[j] : c->next_xid + 7;
            dir = c->nsent ? c->sent_dir[j] : 0;
            if (!same_find(&a, &b, c, dir, xid, &pa, &pb)) {
                bad++;
                break;
            }
            if (pa) {
                found++;
                if (!pa->in_index)
                    held++;
                if (crand(2))
                    xid_conn_answer(&a, &c->xc, pa, &now), xid_table_answer(&b, pb, &now);
                else
                    xid_conn_remove(&a, &c->xc, pa), xid_table_remove(&b, pb);
            }
        } else if (op < 90) { /* expiry, a few at a time */
            xid_table_expire(&a, &now, 30, 5, 8);
            xid_table_expire(&b, &now, 30, 5, 8);
        } else if (op < 95) { /* a reconnection: a new id, old calls resent */
            unsigned r;

            c->prev_id = c->id;
            c->id = next_id++;
            for (r = 0; r < c->nsent && r < 8; r++) {
                unsigned j = c->nsent - 1 - r;

                /* as rpc_match: the new id first, then the old one */
                if (!same_find(&a, &b, c, c->sent_dir[j], c->sent[j], &pa, &pb)) {
                    bad++;
                    break;
                }
                if (pa) /* sent twice: moved over already */
                    continue;
                pa = xid_table_find(&a, c->prev_id, c->sent_dir[j], c->sent[j]);
                pb = xid_table_find(&b, c->prev_id, c->sent_dir[j], c->sent[j]);
                if (!pa != !pb || (pa && pa - a.slab != pb - b.slab)) {
                    bad++;
                    break;
                }
                if (pa)
                    xid_conn_rekey(&a, &c->xc, pa, c->id), xid_table_rekey(&b, pb, c->id);
            }
        } else if (op < 97) { /* the connection is forgotten (its flow evicted) */
            memset(&c->xc, 0, sizeof c->xc);
            c->id = next_id++;
            c->prev_id = 0;
            c->nsent = 0;
        } else { /* every remembered key of this connection */
            unsigned j;

            for (j = 0; j < c->nsent; j++)
                if (!same_find(&a, &b, c, c->sent_dir[j], c->sent[j], &pa, &pb))
                    bad++;
        }
        if (a.count != b.count || a.evicted != b.evicted || a.expired != b.expired ||
            a.ans_count != b.ans_count || L.n != L2.n)
            bad++;
    }
    if (bad)
        fprintf(stderr, "conn_random: differs at step %u\n", k);
    EQ(bad, 0);
    EQ(a.count, b.count);
    EQ(L.n, L2.n);
    for (i = 0; i < L.n && i < MAXLOST; i++)
        if (L.e[i].flow_id != L2.e[i].flow_id || L.e[i].xid != L2.e[i].xid ||
            L.e[i].evicted != L2.e[i].evicted)
            bad++;
    EQ(bad, 0);
    CHECK(found > steps / 10); /* the test found calls, ... */
    CHECK(held > found / 2);   /* ... mostly without the index ... */
    CHECK(a.evicted > 0 || cap > 1000); /* ... and a small table evicted */
    xid_table_flush(&a);
    xid_table_flush(&b);
    EQ(L.n, L2.n);
    xid_table_fini(&a);
    xid_table_fini(&b);
}

/* The connection's slot, the index, a bucket's count and a new id. */
static void
test_conn(void)
{
    struct xid_table t;
    struct xid_conn c;
    struct timespec now = { 1, 0 };
    struct pending_call *p1, *p2, *p3;

    memset(&L, 0, sizeof L);
    memset(&c, 0, sizeof c);
    EQ(xid_table_init(&t, 64, 5, on_lost, &L), 0);
    CHECK(xid_conn_find(&t, &c, 7, 0, 100) == NULL);
    p1 = xid_conn_add(&t, &c, 7, 0, 100, &now);
    CHECK(!p1->in_index);                        /* held by the connection ... */
    CHECK(xid_table_find(&t, 7, 0, 100) == NULL); /* ... not in the index */
    CHECK(xid_conn_find(&t, &c, 7, 0, 100) == p1);
    CHECK(xid_conn_find(&t, &c, 7, 1, 100) == NULL); /* the other direction */
    p2 = xid_conn_add(&t, &c, 7, 1, 100, &now);     /* a callback with the same XID */
    CHECK(p2 != p1 && xid_conn_find(&t, &c, 7, 1, 100) == p2);
    CHECK(xid_conn_find(&t, &c, 7, 0, 100) == p1);
    p3 = xid_conn_add(&t, &c, 7, 0, 100 + XC_BUCKETS, &now); /* p1's bucket */
    CHECK(p1->in_index && !p3->in_index);      /* p1 moved into the index */
    CHECK(xid_table_find(&t, 7, 0, 100) == p1);
    CHECK(xid_conn_find(&t, &c, 7, 0, 100) == p1);
    CHECK(xid_conn_find(&t, &c, 7, 0, 100 + XC_BUCKETS) == p3);
    xid_conn_remove(&t, &c, p1);
    CHECK(xid_conn_find(&t, &c, 7, 0, 100) == NULL);
    CHECK(xid_conn_find(&t, &c, 7, 0, 100 + XC_BUCKETS) == p3);
    xid_conn_remove(&t, &c, p3);
    CHECK(xid_conn_find(&t, &c, 7, 0, 100 + XC_BUCKETS) == NULL);
    EQ(t.count, 1);
    /* A new id: the old id's held call goes into the index, where a
     * reconnecting client's resent call finds it and moves it over. */
    CHECK(xid_conn_find(&t, &c, 8, 1, 100) == NULL);
    CHECK(xid_table_find(&t, 7, 1, 100) == p2 && p2->in_index);
    xid_conn_rekey(&t, &c, p2, 8);
    CHECK(xid_conn_find(&t, &c, 8, 1, 100) == p2);
    CHECK(xid_table_find(&t, 7, 1, 100) == NULL);
    xid_conn_remove(&t, &c, p2);
    CHECK(xid_conn_find(&t, &c, 8, 1, 100) == NULL);
    EQ(t.count, 0);
    EQ(t.idx.count, 0); /* nothing left in the index */
    EQ(L.n, 0);
    xid_table_fini(&t);
}

int
main(void)
{
    test_reused_slot();
    test_directions_handles_rekey();
    test_basic();
    test_evict();
    test_expire();
    test_flush();
    test_random(5);
    test_random(0);
    test_conn();
    test_conn_random(48, 200000);
    test_conn_random(4096, 200000);
    return t_done();
}
