/* SPDX-License-Identifier: BSD-3-Clause */
/* xid_table.c: pending RPC calls, bounded, in arrival order. */
#include "xid_table.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "hugemem.h"

/* The key's hash; the last one is kept, as a call's find is followed by
 * its add and a reply's find by its removal, of the same key. */
static uint64_t
key_hash(struct xid_table *t, uint64_t flow_id, unsigned dir, uint32_t xid)
{
    uint64_t w = (uint64_t)(dir & 1) << 32 | xid;

    if (flow_id != t->last_flow || w != t->last_word) {
        t->last_flow = flow_id;
        t->last_word = w;
        t->last_hash = hash_u64x2(flow_id, w, t->seed);
    }
    return t->last_hash;
}

int
xid_table_init(struct xid_table *t, size_t cap, uint64_t seed, xid_lost_fn *on_lost, void *ctx)
{
    memset(t, 0, sizeof *t);
    if (cap == 0 || cap >= HT_NONE)
        return -1;
    t->slab = calloc(cap, sizeof *t->slab);
    t->ans = calloc(cap, sizeof *t->ans);
    if (!t->slab || !t->ans || hashtab_init(&t->idx, cap) != 0 ||
        hashtab_init(&t->ans_idx, cap) != 0) {
        xid_table_fini(t); /* frees what was allocated (the rest is zero) */
        return -1;
    }
    t->cap = cap;
    t->free_head = HT_NONE; /* slots past `fresh` were never used: no list to build */
    t->fresh = 0;
    t->old_head = t->old_tail = HT_NONE;
    t->seed = seed;
    t->last_hash = hash_u64x2(0, 0, seed); /* of the key last_flow, last_word (0, 0) */
    t->on_lost = on_lost;
    t->ctx = ctx;
    return 0;
}

void
xid_table_fini(struct xid_table *t)
{
    hashtab_fini(&t->idx);
    hashtab_fini(&t->ans_idx);
    free(t->slab);
    free(t->ans);
    t->slab = NULL;
    t->ans = NULL;
}

static uint32_t
slot_of(const struct xid_table *t, const struct pending_call *pc)
{
    return (uint32_t)(pc - t->slab);
}

struct pending_call *
xid_table_find(struct xid_table *t, uint64_t flow_id, unsigned sent_dir, uint32_t xid)
{
    uint64_t h = key_hash(t, flow_id, sent_dir, xid);
    uint32_t pos, s;

    for (s = hashtab_first(&t->idx, h, &pos); s != HT_NONE; s = hashtab_next(&t->idx, h, &pos))
        if (t->slab[s].flow_id == flow_id && t->slab[s].xid == xid &&
            t->slab[s].sent_dir == (sent_dir & 1))
            return &t->slab[s];
    return NULL;
}

void
xid_table_remove(struct xid_table *t, struct pending_call *pc)
{
    uint32_t s = slot_of(t, pc);

    if (pc->in_index)
        hashtab_remove(&t->idx, key_hash(t, pc->flow_id, pc->sent_dir, pc->xid), s);
    if (pc->seq_prev != HT_NONE)
        t->slab[pc->seq_prev].seq_next = pc->seq_next;
    else
        t->old_head = pc->seq_next;
    if (pc->seq_next != HT_NONE)
        t->slab[pc->seq_next].seq_prev = pc->seq_prev;
    else
        t->old_tail = pc->seq_prev;
    pc->state = 0;
    pc->in_index = 0;
    pc->seq_next = t->free_head;
    t->free_head = s;
    t->count--;
}

static void
drop(struct xid_table *t, struct pending_call *pc, bool evicted)
{
    if (pc->state == PC_PENDING && t->on_lost)
        t->on_lost(t->ctx, pc, evicted);
    xid_table_remove(t, pc);
}

static void
index_add(struct xid_table *t, struct pending_call *pc)
{
    hashtab_insert(&t->idx, key_hash(t, pc->flow_id, pc->sent_dir, pc->xid), slot_of(t, pc));
    pc->in_index = 1;
}

void
xid_table_rekey(struct xid_table *t, struct pending_call *pc, uint64_t flow_id)
{
    uint32_t s = slot_of(t, pc);

    if (pc->in_index)
        hashtab_remove(&t->idx, key_hash(t, pc->flow_id, pc->sent_dir, pc->xid), s);
    pc->flow_id = flow_id;
    index_add(t, pc);
}

/* Entries made resident at a time while the slab, and the answered ring on
 * its first lap, are given out in order (mem_populate_run). */
#define SLAB_POPULATE 64

/* A new pending entry, not yet in the index. */
static struct pending_call *
add_entry(struct xid_table *t, uint64_t flow_id, unsigned sent_dir, uint32_t xid,
          const struct timespec *now)
{
    struct pending_call *pc;
    uint32_t s;

    if (t->free_head == HT_NONE && t->fresh < t->cap) {
        s = (uint32_t)t->fresh++;
        mem_populate_run(t->slab, sizeof *t->slab, s, t->cap, SLAB_POPULATE);
    } else {
        if (t->free_head == HT_NONE) {
            pc = &t->slab[t->old_head];
            if (pc->state == PC_PENDING)
                t->evicted++;
            drop(t, pc, true);
        }
        s = t->free_head;
        t->free_head = t->slab[s].seq_next;
    }
    pc = &t->slab[s];
    /* Zeroed but the handle and the name, which are read only as far as
     * their lengths (zeroed) say: 366 bytes of 752. */
    memset(pc, 0, offsetof(struct pending_call, fh));
    memset(pc->bd_idx, 0, sizeof *pc - offsetof(struct pending_call, bd_idx));
    pc->flow_id = flow_id;
    pc->xid = xid;
    pc->sent_dir = (uint8_t)(sent_dir & 1);
    pc->dir = pc->sent_dir;
    pc->t_call = *now;
    pc->state = PC_PENDING;
    pc->uid = pc->gid = UINT32_MAX;
    pc->seq_next = HT_NONE;
    pc->seq_prev = t->old_tail;
    if (t->old_tail != HT_NONE)
        t->slab[t->old_tail].seq_next = s;
    else
        t->old_head = s;
    t->old_tail = s;
    t->count++;
    return pc;
}

struct pending_call *
xid_table_add(struct xid_table *t, uint64_t flow_id, unsigned sent_dir, uint32_t xid,
              const struct timespec *now)
{
    struct pending_call *pc = add_entry(t, flow_id, sent_dir, xid, now);

    index_add(t, pc);
    return pc;
}

/* ---- answered calls ----------------------------------------------------------- */

const struct answered_call *
xid_answered_find(struct xid_table *t, uint64_t flow_id, unsigned sent_dir, uint32_t xid)
{
    uint64_t h = key_hash(t, flow_id, sent_dir, xid);
    uint32_t pos, s;

    for (s = hashtab_first(&t->ans_idx, h, &pos); s != HT_NONE;
         s = hashtab_next(&t->ans_idx, h, &pos))
        if (t->ans[s].flow_id == flow_id && t->ans[s].xid == xid &&
            t->ans[s].sent_dir == (sent_dir & 1))
            return &t->ans[s];
    return NULL;
}

void
xid_answered_forget(struct xid_table *t, const struct answered_call *a)
{
    struct answered_call *e = &t->ans[a - t->ans];

    if (!e->live)
        return;
    hashtab_remove(&t->ans_idx, key_hash(t, e->flow_id, e->sent_dir, e->xid),
                   (uint32_t)(e - t->ans));
    e->live = 0;
}

/* Reclaim the oldest answered slot. */
static void
ans_pop(struct xid_table *t)
{
    xid_answered_forget(t, &t->ans[t->ans_head]);
    t->ans_head = (t->ans_head + 1) % t->cap;
    t->ans_count--;
}

void
xid_table_answer(struct xid_table *t, struct pending_call *pc, const struct timespec *now)
{
    struct answered_call *a;
    size_t s;

    if (t->ans_count == t->cap)
        ans_pop(t); /* silently: an answered call is no loss */
    s = (t->ans_head + t->ans_count) % t->cap;
    if (s >= t->ans_fresh) { /* the ring's first lap: s counts up from 0 */
        mem_populate_run(t->ans, sizeof *t->ans, s, t->cap, SLAB_POPULATE);
        t->ans_fresh = s + 1;
    }
    a = &t->ans[s];
    a->flow_id = pc->flow_id;
    a->pg = pc->pg;
    a->t_answer = *now;
    a->xid = pc->xid;
    a->prog = pc->prog;
    a->vers = pc->vers;
    a->proc = pc->proc;
    a->sent_dir = pc->sent_dir;
    a->live = 1;
    t->ans_count++;
    hashtab_insert(&t->ans_idx, key_hash(t, a->flow_id, a->sent_dir, a->xid), (uint32_t)s);
    xid_table_remove(t, pc);
}

/* Both lists are in time order (answers, calls), so each walk from the
 * oldest stops at the first entry that is still young. */
void
xid_table_expire(struct xid_table *t, const struct timespec *now, unsigned timeout_s,
                 unsigned answered_keep_s, size_t budget)
{
    uint32_t s = t->old_head;
    size_t looked = 0;

    while (t->ans_count && (budget == 0 || looked < budget)) {
        const struct answered_call *a = &t->ans[t->ans_head];
        if (a->live && now->tv_sec - a->t_answer.tv_sec <= (time_t)answered_keep_s)
            break;
        ans_pop(t);
        looked++;
    }
    while (s != HT_NONE && (budget == 0 || looked++ < budget)) {
        struct pending_call *pc = &t->slab[s];
        uint32_t next = pc->seq_next;

        if (now->tv_sec - pc->t_call.tv_sec <= (time_t)timeout_s)
            return;
        t->expired++;
        drop(t, pc, false);
        s = next;
    }
}

void
xid_table_flush(struct xid_table *t)
{
    while (t->old_head != HT_NONE)
        drop(t, &t->slab[t->old_head], false);
    while (t->ans_count)
        ans_pop(t);
}

/* ---- one connection's pending calls ------------------------------------------- */

static unsigned
xc_bucket(unsigned sent_dir, uint32_t xid)
{
    return xid_conn_bucket(sent_dir, xid);
}

/* The slot-held call of bucket b, if it still is one. */
static struct pending_call *
xc_held(struct xid_table *t, const struct xid_conn *c, unsigned b)
{
    struct pending_call *pc = &t->slab[c->slot[b]];

    if (c->maybe[b] && pc->state == PC_PENDING && !pc->in_index && pc->flow_id == c->id &&
        xc_bucket(pc->sent_dir, pc->xid) == b)
        return pc;
    return NULL;
}

/* c about connection flow_id: when it was about another id, that id's
 * slot-held calls go into the index first. */
static void
xc_sync(struct xid_table *t, struct xid_conn *c, uint64_t flow_id)
{
    unsigned b;

    if (c->id == flow_id)
        return;
    for (b = 0; b < XC_BUCKETS; b++) {
        struct pending_call *pc = xc_held(t, c, b);

        if (pc)
            index_add(t, pc);
    }
    memset(c, 0, sizeof *c);
    c->id = flow_id;
}

/* pc, of connection c, takes its bucket's slot; the call that held it, if
 * still pending there, goes into the index. */
static inline void
xc_enter(struct xid_table *t, struct xid_conn *c, struct pending_call *pc)
{
    unsigned b = xc_bucket(pc->sent_dir, pc->xid);
    struct pending_call *old;

    xc_sync(t, c, pc->flow_id);
    old = xc_held(t, c, b);
    if (old && old != pc)
        index_add(t, old);
    if (c->maybe[b] != UINT8_MAX)
        c->maybe[b]++;
    c->slot[b] = slot_of(t, pc);
}

static void
xc_leave(struct xid_conn *c, const struct pending_call *pc)
{
    unsigned b = xc_bucket(pc->sent_dir, pc->xid);

    if (pc->flow_id == c->id && c->maybe[b] != UINT8_MAX && c->maybe[b] != 0)
        c->maybe[b]--;
}

struct pending_call *
xid_conn_find_more(struct xid_table *t, struct xid_conn *c, uint64_t flow_id, unsigned sent_dir,
                   uint32_t xid)
{
    xc_sync(t, c, flow_id);
    return xid_conn_find(t, c, flow_id, sent_dir, xid);
}

struct pending_call *
xid_conn_add(struct xid_table *t, struct xid_conn *c, uint64_t flow_id, unsigned sent_dir,
             uint32_t xid, const struct timespec *now)
{
    struct pending_call *pc = add_entry(t, flow_id, sent_dir, xid, now);

    xc_enter(t, c, pc);
    return pc;
}

void
xid_conn_remove(struct xid_table *t, struct xid_conn *c, struct pending_call *pc)
{
    xc_leave(c, pc);
    xid_table_remove(t, pc);
}

void
xid_conn_answer(struct xid_table *t, struct xid_conn *c, struct pending_call *pc,
                const struct timespec *now)
{
    xc_leave(c, pc);
    xid_table_answer(t, pc, now);
}

void
xid_conn_rekey(struct xid_table *t, struct xid_conn *c, struct pending_call *pc, uint64_t flow_id)
{
    xid_table_rekey(t, pc, flow_id); /* in the index */
    xc_enter(t, c, pc);
}
