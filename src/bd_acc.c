/* SPDX-License-Identifier: BSD-3-Clause */
/* bd_acc.c: breakdown counts folded into their rows later; see bd_acc.h. */
#include "bd_acc.h"

#include <stdlib.h>
#include <string.h>

/* An accumulator's counts into its rows (the ones that live), the
 * latency buckets it used into each. */
static void
fold_rows(struct bd_row *const r[BD_ACC_DIMS], unsigned n, const struct bd_acc *a)
{
    const struct histo_small *h = &a->latency;
    unsigned i, w;

    for (i = 0; i < n; i++) {
        struct histo_small *l = &r[i]->latency;

        r[i]->calls += a->calls;
        r[i]->replies += a->replies;
        r[i]->errors += a->errors;
        r[i]->unanswered += a->unanswered;
        r[i]->read_bytes += a->read_bytes;
        r[i]->write_bytes += a->write_bytes;
        r[i]->nfs3_calls += a->nfs3_calls;
        r[i]->stable[0] += a->stable[0];
        r[i]->stable[1] += a->stable[1];
        r[i]->stable[2] += a->stable[2];
        if (h->count == 0) /* as histo_small_merge */
            continue;
        if (l->count == 0 || h->min < l->min)
            l->min = h->min;
        if (h->max > l->max)
            l->max = h->max;
        l->count += h->count;
        l->sum += h->sum;
    }
    for (w = 0; w < BD_ACC_MARK_WORDS; w++)
        for (uint64_t m = a->marked[w]; m; m &= m - 1) {
            unsigned b = w * 64u + (unsigned)__builtin_ctzll(m);
            uint64_t v;

            for (i = 0; i < n; i++) {
                v = (uint64_t)r[i]->latency.bucket[b] + h->bucket[b];
                r[i]->latency.bucket[b] = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
            }
        }
}

/* Its counts into its rows, which live (the pool folds every accumulator
 * before a row of their tables is evicted), and cleared. */
static void
fold(struct bd_acc_pool *p, struct bd_acc *a)
{
    struct bd_row *r[BD_ACC_DIMS];
    unsigned d, w, n = 0;

    if (!a->dirty)
        return;
    for (d = 0; d < BD_ACC_DIMS; d++)
        if ((r[n] = bd_table_at(p->t[d], a->idx[d], a->gen[d])) != NULL)
            n++;
    fold_rows(r, n, a);
    for (w = 0; w < BD_ACC_MARK_WORDS; w++)
        for (uint64_t m = a->marked[w]; m; m &= m - 1)
            a->latency.bucket[w * 64u + (unsigned)__builtin_ctzll(m)] = 0;
    memset(a->marked, 0, sizeof a->marked);
    a->latency.count = a->latency.sum = a->latency.min = a->latency.max = 0;
    a->calls = a->replies = a->errors = a->unanswered = 0;
    a->read_bytes = a->write_bytes = a->nfs3_calls = 0;
    memset(a->stable, 0, sizeof a->stable);
    a->dirty = 0;
    p->folds++;
}

void
bd_acc_settle(struct bd_acc_pool *p)
{
    unsigned i;

    for (i = 0; i < p->ndirty; i++) {
        struct bd_acc *a = &p->acc[p->dirty[i]];
        fold(p, a);
        a->listed = 0;
    }
    p->ndirty = 0;
}

/* A row of a table is about to be evicted: every count in the rows, and
 * the rows an accumulator names checked again before its next use. */
static void
before_evict(void *arg)
{
    struct bd_acc_pool *p = arg;

    bd_acc_settle(p);
    p->epoch++;
}

int
bd_acc_init(struct bd_acc_pool *p, struct bd_table *client, struct bd_table *server,
            struct bd_table *pair, struct bd_table *user)
{
    unsigned d;

    memset(p, 0, sizeof *p);
    p->t[BD_ACC_CLIENT] = client;
    p->t[BD_ACC_SERVER] = server;
    p->t[BD_ACC_PAIR] = pair;
    p->t[BD_ACC_USER] = user;
    /* calloc: an accumulator's pages are touched when it is first taken */
    p->acc = calloc(BD_ACC_CAP, sizeof *p->acc);
    p->dirty = calloc(BD_ACC_CAP, sizeof *p->dirty);
    if (!p->acc || !p->dirty) {
        bd_acc_fini(p);
        return -1;
    }
    for (d = 0; d < BD_ACC_DIMS; d++) {
        p->t[d]->before_evict = before_evict;
        p->t[d]->evict_arg = p;
    }
    return 0;
}

void
bd_acc_fini(struct bd_acc_pool *p)
{
    unsigned d;

    for (d = 0; d < BD_ACC_DIMS; d++)
        if (p->t[d] && p->t[d]->evict_arg == p) {
            p->t[d]->before_evict = NULL;
            p->t[d]->evict_arg = NULL;
        }
    free(p->acc);
    free(p->dirty);
    p->acc = NULL;
    p->dirty = NULL;
    p->ndirty = 0;
}

bool
bd_acc_rows_live(struct bd_acc_pool *p, struct bd_acc *a)
{
    unsigned d;

    if (a->epoch == p->epoch)
        return true;
    for (d = 0; d < BD_ACC_DIMS; d++)
        if (!bd_table_at(p->t[d], a->idx[d], a->gen[d]))
            return false;
    a->epoch = p->epoch;
    return true;
}

/* The pair row's accumulator, if it is still its own. */
static struct bd_acc *
acc_of_pair(struct bd_acc_pool *p, const struct bd_row *pair)
{
    struct bd_acc *a;

    if (!pair->acc_gen || pair->acc >= BD_ACC_CAP)
        return NULL;
    a = &p->acc[pair->acc];
    return a->gen_self == pair->acc_gen ? a : NULL;
}

static void
take(struct bd_acc_pool *p, struct bd_acc *a, struct bd_row *const r[BD_ACC_DIMS], uint32_t uid)
{
    unsigned d;

    fold(p, a);
    if (++a->gen_self == 0)
        a->gen_self = 1;
    for (d = 0; d < BD_ACC_DIMS; d++) {
        a->idx[d] = (uint32_t)(r[d] - p->t[d]->rows);
        a->gen[d] = r[d]->gen;
    }
    a->uid = uid;
    a->epoch = p->epoch;
    r[BD_ACC_PAIR]->acc = (uint32_t)(a - p->acc);
    r[BD_ACC_PAIR]->acc_gen = a->gen_self;
}

struct bd_acc *
bd_acc_for_rows(struct bd_acc_pool *p, struct bd_row *const r[BD_ACC_DIMS], uint32_t uid)
{
    struct bd_acc *a = acc_of_pair(p, r[BD_ACC_PAIR]);
    unsigned d;

    if (a) {
        if (bd_acc_rows_live(p, a)) {
            for (d = 0; d < BD_ACC_DIMS; d++)
                if (a->idx[d] != (uint32_t)(r[d] - p->t[d]->rows) || a->gen[d] != r[d]->gen)
                    break;
            if (d == BD_ACC_DIMS)
                return a;
        }
        if (a->dirty) /* another user's calls on the pair: counted in the rows */
            return NULL;
    } else {
        unsigned n;

        for (n = 0; n <= BD_ACC_CAP; n++) { /* a second pass finds every one passed over */
            a = &p->acc[p->hand];
            p->hand = (p->hand + 1) % BD_ACC_CAP;
            if (!a->recent)
                break;
            a->recent = 0;
        }
    }
    take(p, a, r, uid);
    return a;
}
