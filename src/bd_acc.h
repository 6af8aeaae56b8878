/* SPDX-License-Identifier: BSD-3-Clause */
/* bd_acc.h: breakdown counts added to a few rows at once, later.
 *
 * A client-server pair row determines its client and server rows, and its
 * calls mostly come with one user: every call and reply of the pair (for
 * that user) adds the same counts to those four rows. An accumulator
 * counts them once, for the four rows together, and adds them to the rows
 * (folds) when asked: before any row of their tables is evicted (eviction
 * picks the row with the fewest calls), when it is taken for other rows,
 * and before the rows are read (bd_acc_settle). Counts add and histograms
 * add bucket by bucket, so the rows end exactly as if each call had gone
 * to them; only the order of additions differs (the per-procedure tables,
 * bd_procs.h, keep the order calls came in: no accumulators with them).
 *
 * Bounded: BD_ACC_CAP accumulators allocated once, taken in turn, passing
 * over those that counted a call since the last turn (a clock: a pair
 * whose connections ended gives its accumulator first), the one taken
 * folding first. A pair row names its accumulator (bd_row.acc and
 * acc_gen); an accumulator names its rows by slot and generation. */
#ifndef NFSSCOPE_BD_ACC_H
#define NFSSCOPE_BD_ACC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "breakdown.h"
#include "histo.h"

#define BD_ACC_CAP 128
#define BD_ACC_MARK_WORDS (HISTO_SMALL_BUCKETS / 64u) /* a bit per latency bucket */

/* The rows an accumulator stands for, by index: client, server, pair
 * (which names it), user. */
enum { BD_ACC_CLIENT, BD_ACC_SERVER, BD_ACC_PAIR, BD_ACC_USER, BD_ACC_DIMS };

struct bd_acc {
    uint32_t idx[BD_ACC_DIMS], gen[BD_ACC_DIMS]; /* the rows, as bd_table_at takes them */
    uint32_t gen_self;  /* bumped each time it is taken for other rows (0: never) */
    uint32_t uid;       /* the key of the user row (stats.c: a uid) */
    uint8_t dirty;      /* counts not yet in the rows */
    uint8_t listed;     /* in the pool's dirty list */
    uint8_t recent;     /* counted a call since the pool's hand last passed it */
    uint64_t epoch;     /* the pool's epoch when its rows were last known to live */
    uint64_t calls, replies, errors, unanswered, read_bytes, write_bytes, nfs3_calls;
    uint64_t stable[3];
    uint64_t marked[BD_ACC_MARK_WORDS]; /* the latency buckets in use */
    struct histo_small latency;
};

struct bd_acc_pool {
    struct bd_table *t[BD_ACC_DIMS]; /* the tables of the rows */
    struct bd_acc *acc;              /* BD_ACC_CAP */
    uint32_t *dirty;                 /* indices of accumulators with counts, BD_ACC_CAP */
    unsigned ndirty, hand;
    uint64_t epoch; /* bumped before any of the tables evicts a row */
    uint64_t folds; /* accumulators folded (tests) */
};

/* The tables: client, server, pair, user. 0 or -1 (ENOMEM). The pool hooks
 * itself into the tables' before_evict: it must not move after this. */
int bd_acc_init(struct bd_acc_pool *p, struct bd_table *client, struct bd_table *server,
                struct bd_table *pair, struct bd_table *user);
/* Folds nothing: settle first if the counts matter. */
void bd_acc_fini(struct bd_acc_pool *p);

/* Take an accumulator for the rows r[BD_ACC_DIMS] (the client's, server's,
 * pair's and user's of a call, all live; uid: the user row's key): the pair
 * row's when it stands for these rows or holds no counts, else none (NULL:
 * the pair's calls of another user are being counted, count in the rows). */
struct bd_acc *bd_acc_for_rows(struct bd_acc_pool *p, struct bd_row *const r[BD_ACC_DIMS],
                               uint32_t uid);

/* Whether a's rows still live (checked again after an eviction). */
bool bd_acc_rows_live(struct bd_acc_pool *p, struct bd_acc *a);

/* The accumulator at index idx while its generation is gen (as a caller
 * remembered it from bd_acc_for_rows), or NULL. */
static inline struct bd_acc *
bd_acc_at(struct bd_acc_pool *p, uint32_t idx, uint32_t gen)
{
    struct bd_acc *a = &p->acc[idx % BD_ACC_CAP];

    if (!gen || a->gen_self != gen)
        return NULL;
    return a->epoch == p->epoch || bd_acc_rows_live(p, a) ? a : NULL;
}

/* The accumulator of pair row `pair` (live) if it counts for the user uid.
 * Its client and server rows are the pair's (the pair's key holds both
 * addresses) and its user row uid's: the rows a call of that pair and uid
 * went to, or, where one was evicted since, the rows found again by key. */
static inline struct bd_acc *
bd_acc_of_pair(struct bd_acc_pool *p, const struct bd_row *pair, uint32_t uid)
{
    struct bd_acc *a = bd_acc_at(p, pair->acc, pair->acc_gen);

    return a && a->uid == uid ? a : NULL;
}

/* What a call and its end add to each row (breakdown.c's fields). */
static inline void
bd_acc_mark(struct bd_acc_pool *p, struct bd_acc *a)
{
    a->dirty = 1;
    if (!a->listed) {
        a->listed = 1;
        p->dirty[p->ndirty++] = (uint32_t)(a - p->acc);
    }
}

static inline void
bd_acc_call(struct bd_acc_pool *p, struct bd_acc *a, bool nfs3, unsigned stable,
            uint64_t write_bytes)
{
    a->calls++;
    a->nfs3_calls += nfs3;
    if (stable < 3)
        a->stable[stable]++;
    a->write_bytes += write_bytes;
    a->recent = 1;
    bd_acc_mark(p, a);
}

/* A reply: lat_i = histo_small_index(lat). */
static inline void
bd_acc_reply(struct bd_acc_pool *p, struct bd_acc *a, bool error, uint64_t read_bytes,
             uint64_t lat, unsigned lat_i)
{
    a->replies++;
    a->errors += error;
    a->read_bytes += read_bytes;
    histo_small_record_in(&a->latency, lat, lat_i);
    a->marked[lat_i / 64u] |= 1ull << (lat_i % 64u);
    bd_acc_mark(p, a);
}

static inline void
bd_acc_unanswered(struct bd_acc_pool *p, struct bd_acc *a)
{
    a->unanswered++;
    bd_acc_mark(p, a);
}

/* Every accumulator's counts into its rows. */
void bd_acc_settle(struct bd_acc_pool *p);

#endif
