/* SPDX-License-Identifier: BSD-3-Clause */
/* bd_acc_test.c: the breakdown rows counted through accumulators
 * (stats_bd_defer) end equal to the rows counted directly, row by row and
 * bucket by bucket, with tables that evict, users that change, more pairs
 * than accumulators, and the rows read (settled) along the way. */
#include "bd_acc.h"

#include <stdlib.h>

#include "stats.h"
#include "t.h"
#include "xid_table.h"

#define MAXCONN 400
#define MAXOPEN 64

struct side {
    struct stats s;
    struct bd_cache c[MAXCONN];
    struct pending_call pc[MAXOPEN]; /* calls waiting for their end */
};

static uint64_t rng = 88172645463325252ull;

static uint32_t
rnd(uint32_t n)
{
    return t_rnd(&rng, n);
}

/* Whether two tables hold the same rows (the accumulator's own fields
 * apart). */
static size_t
table_diff(const struct bd_table *x, const struct bd_table *y)
{
    size_t i, bad = 0;

    if (x->count != y->count || x->evicted != y->evicted)
        return 1;
    for (i = 0; i <= x->count; i++) {
        const struct bd_row *a = i < x->count ? &x->rows[i] : &x->other;
        const struct bd_row *b = i < y->count ? &y->rows[i] : &y->other;

        bad += a->key_len != b->key_len || memcmp(a->key, b->key, a->key_len) != 0 ||
               a->gen != b->gen || a->calls != b->calls || a->replies != b->replies ||
               a->errors != b->errors || a->unanswered != b->unanswered ||
               a->read_bytes != b->read_bytes || a->write_bytes != b->write_bytes ||
               a->nfs3_calls != b->nfs3_calls ||
               memcmp(a->stable, b->stable, sizeof a->stable) != 0 ||
               memcmp(&a->latency, &b->latency, sizeof a->latency) != 0;
    }
    return bad;
}

static size_t
stats_diff(const struct stats *x, const struct stats *y)
{
    size_t bad = 0;
    unsigned d;

    for (d = 0; d < BD__COUNT; d++)
        bad += table_diff(&x->bd[d], &y->bd[d]);
    return bad;
}

/* One run of random traffic on nconn connections between nclient clients
 * and nserver servers, counted in both sides the same way; `on` counts
 * through accumulators. Returns the differences found after settling (and
 * at each settle on the way), and how many rows differed before the last
 * one in *before. */
static size_t
run(unsigned nconn, unsigned nclient, unsigned nserver, unsigned nuser, size_t rows,
    unsigned steps, size_t *before, uint64_t *folds, uint64_t *evicted)
{
    static struct side side[2];
    struct flow_key key[MAXCONN];
    uint8_t fh[16][8];
    unsigned open = 0, i, k;
    size_t bad = 0;

    memset(side, 0, sizeof side);
    for (k = 0; k < 2; k++) {
        EQ(stats_init(&side[k].s), 0);
        EQ(stats_breakdowns_init(&side[k].s, rows, 64, 11), 0);
        stats_bd_defer(&side[k].s, k == 1);
    }
    CHECK(side[1].s.bd_defer && !side[0].s.bd_defer);
    for (i = 0; i < nconn; i++) {
        memset(&key[i], 0, sizeof key[i]);
        key[i].af = FLOW_AF_INET;
        key[i].proto = FLOW_PROTO_TCP;
        key[i].saddr[0] = 10;
        key[i].saddr[3] = (uint8_t)(1 + i % nclient);
        key[i].daddr[0] = 192;
        key[i].daddr[3] = (uint8_t)(1 + (i / nclient + i) % nserver);
        key[i].sport = (uint16_t)(700 + i);
        key[i].dport = 2049;
    }
    for (i = 0; i < 16; i++) {
        memset(fh[i], 0, sizeof fh[i]);
        fh[i][0] = (uint8_t)(i + 1);
    }
    for (i = 0; i < steps; i++) {
        if (open < MAXOPEN && (open == 0 || rnd(3))) { /* a call */
            unsigned conn = rnd(nconn);
            struct pending_call pc;

            memset(&pc, 0, sizeof pc);
            pc.key = key[conn];
            pc.flow_id = conn;
            pc.dir = (uint8_t)(rnd(50) == 0); /* now and then a callback */
            pc.sent_dir = pc.dir;
            /* mostly one user per connection, sometimes another */
            pc.uid = rnd(8) ? conn % nuser : rnd(nuser + 1);
            if (pc.uid == nuser)
                pc.uid = UINT32_MAX;
            pc.fh_len = (uint8_t)(rnd(9) ? 8 : 0);
            memcpy(pc.fh, fh[rnd(16)], 8);
            pc.stable = (uint8_t)(rnd(4) ? STABLE_NONE : rnd(3));
            pc.write_count = pc.stable != STABLE_NONE ? 4096 * (1 + rnd(8)) : 0;
            pc.t_call.tv_sec = 1000 + i / 100;
            pc.t_call.tv_nsec = (long)(i % 100) * 10000000L;
            for (k = 0; k < 2; k++) {
                side[k].pc[open] = pc;
                stats_call_by(&side[k].s, &side[k].pc[open], &side[k].c[conn]);
            }
            open++;
        } else { /* the end of a call */
            unsigned j = rnd(open), out = rnd(10);
            uint64_t lat_us = rnd(4) ? 100 + rnd(2000) : rnd(2000000);
            uint64_t read_bytes = out > 5 ? 512u * rnd(64) : 0;

            for (k = 0; k < 2; k++) {
                struct pending_call *pc = &side[k].pc[j];
                struct op_event ev;

                memset(&ev, 0, sizeof ev);
                ev.outcome = out == 0 ? OP_NO_REPLY : out == 1 ? OP_RPC_ERROR : OP_REPLIED;
                ev.key = &pc->key;
                ev.call_dir = pc->dir;
                ev.uid = pc->uid;
                ev.gid = UINT32_MAX;
                ev.stable = ev.committed = STABLE_NONE;
                ev.fh.p = pc->fh;
                ev.fh.len = pc->fh_len;
                ev.bd_idx = pc->bd_idx;
                ev.bd_gen = pc->bd_gen;
                ev.t_call = pc->t_call;
                ev.t_reply = pc->t_call;
                ev.t_reply.tv_sec += (time_t)(lat_us / 1000000);
                ev.t_reply.tv_nsec += (long)(lat_us % 1000000) * 1000;
                if (ev.t_reply.tv_nsec >= 1000000000L) {
                    ev.t_reply.tv_sec++;
                    ev.t_reply.tv_nsec -= 1000000000L;
                }
                ev.read_bytes = read_bytes;
                stats_record_by(&side[k].s, &ev);
                side[k].pc[j] = side[k].pc[open - 1];
            }
            open--;
        }
        if (rnd(2000) == 0) { /* a tick or a scrape reads the rows */
            stats_settle(&side[1].s);
            bad += stats_diff(&side[0].s, &side[1].s);
        }
    }
    *before = stats_diff(&side[0].s, &side[1].s);
    stats_settle(&side[1].s);
    bad += stats_diff(&side[0].s, &side[1].s);
    *folds = side[1].s.acc.folds;
    *evicted = side[1].s.bd[BD_CLIENT].evicted + side[1].s.bd[BD_PAIR].evicted +
               side[1].s.bd[BD_USER].evicted;
    for (k = 0; k < 2; k++)
        stats_fini(&side[k].s);
    return bad;
}

static void
test_random(void)
{
    size_t before;
    uint64_t folds, evicted;

    /* Tables large enough: nothing evicted, the rows lag until settled. */
    EQ(run(12, 4, 2, 3, 64, 20000, &before, &folds, &evicted), 0);
    CHECK(before > 0);
    CHECK(folds > 0);
    EQ(evicted, 0);
    /* Small tables: client, pair and user rows evicted all along. */
    EQ(run(40, 12, 3, 9, 5, 20000, &before, &folds, &evicted), 0);
    CHECK(evicted > 100);
    /* More pairs than accumulators: they are taken from one another. */
    EQ(run(MAXCONN, 200, 2, 2, 512, 40000, &before, &folds, &evicted), 0);
    CHECK(folds > BD_ACC_CAP);
}

/* With the per-procedure tables (the view) no accumulator is used. */
static void
test_view_off(void)
{
    struct stats s;

    EQ(stats_init(&s), 0);
    EQ(stats_breakdowns_init(&s, 8, 16, 1), 0);
    stats_bd_defer(&s, true);
    CHECK(s.bd_defer);
    EQ(stats_by_proc_init(&s), 0);
    CHECK(!s.bd_defer);
    stats_bd_defer(&s, true);
    CHECK(!s.bd_defer);
    stats_fini(&s);
}

int
main(void)
{
    test_random();
    test_view_off();
    return t_done();
}
