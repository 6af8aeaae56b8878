/* SPDX-License-Identifier: BSD-3-Clause */
/* lockwait.c: NLM lock waits; see lockwait.h. */
#include "lockwait.h"

#include <stdlib.h>
#include <string.h>

#include "hashtab.h"
#include "stats.h"

enum { /* XNFS 3W chapter 14: the nlm4_stats used here */
    NLM4_GRANTED = 0, NLM4_BLOCKED = 3
};

struct wait {
    uint64_t key; /* seeded hash of (client, lock); 0 = free */
    struct timespec t;
    uint32_t prev, next; /* arrival order (slot ids) */
};

struct lockwait {
    struct wait *slab;
    size_t cap, count, fresh;
    uint32_t head, tail, free_head; /* head: newest; tail: oldest */
    struct hashtab idx;
    uint64_t seed;
    size_t merged; /* waits still open in the tables merged into this one */
    struct lockwait_stats st;
};

struct lockwait *
lockwait_new(size_t cap, uint64_t seed)
{
    struct lockwait *w = calloc(1, sizeof *w);

    if (!w || cap == 0 || cap >= HT_NONE)
        goto fail;
    w->slab = calloc(cap, sizeof *w->slab);
    if (!w->slab || hashtab_init(&w->idx, cap) != 0)
        goto fail;
    w->cap = cap;
    w->seed = seed;
    w->head = w->tail = w->free_head = HT_NONE;
    histo_init(&w->st.wait);
    return w;
fail:
    if (w)
        free(w->slab);
    free(w);
    return NULL;
}

void
lockwait_free(struct lockwait *w)
{
    if (!w)
        return;
    hashtab_fini(&w->idx);
    free(w->slab);
    free(w);
}

static uint64_t
key_of(const struct lockwait *w, const void *client, size_t len, uint64_t lock)
{
    uint64_t k = hash_u64x2(hash_bytes(client, len, w->seed), lock, w->seed);
    return k ? k : 1;
}

static uint32_t
find(const struct lockwait *w, uint64_t key)
{
    uint32_t pos, s;

    for (s = hashtab_first(&w->idx, key, &pos); s != HT_NONE; s = hashtab_next(&w->idx, key, &pos))
        if (w->slab[s].key == key)
            return s;
    return HT_NONE;
}

static void
drop(struct lockwait *w, uint32_t s)
{
    struct wait *e = &w->slab[s];

    if (e->prev != HT_NONE)
        w->slab[e->prev].next = e->next;
    else
        w->head = e->next;
    if (e->next != HT_NONE)
        w->slab[e->next].prev = e->prev;
    else
        w->tail = e->prev;
    hashtab_remove(&w->idx, e->key, s);
    e->key = 0;
    e->next = w->free_head;
    w->free_head = s;
    w->count--;
}

void
lockwait_blocked(struct lockwait *w, const void *client, size_t client_len, uint64_t lock,
                 const struct timespec *t)
{
    uint64_t key;
    uint32_t s;
    struct wait *e;

    if (!w)
        return;
    key = key_of(w, client, client_len, lock);
    if (find(w, key) != HT_NONE)
        return; /* asked again while waiting: the wait began with the first */
    if (w->free_head == HT_NONE && w->fresh < w->cap) {
        w->slab[w->fresh].next = HT_NONE;
        w->free_head = (uint32_t)w->fresh++;
    }
    if (w->free_head == HT_NONE) {
        drop(w, w->tail);
        w->st.evicted++;
    }
    s = w->free_head;
    e = &w->slab[s];
    w->free_head = e->next;
    e->key = key;
    e->t = *t;
    e->prev = HT_NONE;
    e->next = w->head;
    if (w->head != HT_NONE)
        w->slab[w->head].prev = s;
    w->head = s;
    if (w->tail == HT_NONE)
        w->tail = s;
    hashtab_insert(&w->idx, key, s);
    w->count++;
    w->st.blocked++;
}

bool
lockwait_granted(struct lockwait *w, const void *client, size_t client_len, uint64_t lock,
                 const struct timespec *t, bool callback)
{
    uint32_t s;
    int64_t us;

    if (!w)
        return false;
    s = find(w, key_of(w, client, client_len, lock));
    if (s == HT_NONE) {
        w->st.unmatched_grants += callback;
        return false;
    }
    us = ((int64_t)t->tv_sec - (int64_t)w->slab[s].t.tv_sec) * 1000000 +
         ((int64_t)t->tv_nsec - (int64_t)w->slab[s].t.tv_nsec) / 1000;
    histo_record(&w->st.wait, us > 0 ? (uint64_t)us : 0); /* time going backwards: 0 */
    w->st.granted++;
    drop(w, s);
    return true;
}

bool
lockwait_cancelled(struct lockwait *w, const void *client, size_t client_len, uint64_t lock)
{
    uint32_t s;

    if (!w)
        return false;
    s = find(w, key_of(w, client, client_len, lock));
    if (s == HT_NONE)
        return false;
    w->st.cancelled++;
    drop(w, s);
    return true;
}

void
lockwait_record(struct lockwait *w, const struct op_event *ev)
{
    uint8_t who[17];
    const uint8_t *caller, *callee;

    if (!w || !ev->nlm_has_lock || !ev->key || !ev->pg || !(ev->pg->flags & PGF_LOCK_WAITS) ||
        ev->outcome == OP_ORPHAN_REPLY)
        return;
    caller = (ev->call_dir ^ ev->from_server) == 0 ? ev->key->saddr : ev->key->daddr;
    callee = (ev->call_dir ^ ev->from_server) == 0 ? ev->key->daddr : ev->key->saddr;
    who[0] = ev->key->af;
    switch (ev->kind) {
    case OPK_LOCK: /* LOCK: nlm4_lockargs; nlm4_res (LOCK_MSG's result is a call of its own) */
        if ((ev->opf & OPF_MSG) || ev->outcome != OP_REPLIED || !ev->has_status)
            break;
        memcpy(who + 1, caller, 16);
        if (ev->status == NLM4_BLOCKED && ev->nlm_block)
            lockwait_blocked(w, who, sizeof who, ev->nlm_lock, &ev->t_call);
        else if (ev->status == NLM4_GRANTED) /* asked again, and had it at once */
            lockwait_granted(w, who, sizeof who, ev->nlm_lock, &ev->t_reply, false);
        break;
    case OPK_LOCK_GRANTED: /* GRANTED, GRANTED_MSG: nlm4_testargs, server to client */
        memcpy(who + 1, callee, 16);
        lockwait_granted(w, who, sizeof who, ev->nlm_lock, &ev->t_call, true);
        break;
    case OPK_LOCK_CANCEL: /* CANCEL, CANCEL_MSG: nlm4_cancargs */
        memcpy(who + 1, caller, 16);
        lockwait_cancelled(w, who, sizeof who, ev->nlm_lock);
        break;
    default:
        break;
    }
}

size_t
lockwait_pending(const struct lockwait *w)
{
    return w ? w->count + w->merged : 0;
}

void
lockwait_merge(struct lockwait *dst, const struct lockwait *src)
{
    if (!dst || !src)
        return;
    dst->merged += lockwait_pending(src);
    dst->st.blocked += src->st.blocked;
    dst->st.granted += src->st.granted;
    dst->st.cancelled += src->st.cancelled;
    dst->st.evicted += src->st.evicted;
    dst->st.unmatched_grants += src->st.unmatched_grants;
    histo_merge(&dst->st.wait, &src->st.wait);
}

const struct lockwait_stats *
lockwait_stats(const struct lockwait *w)
{
    return w ? &w->st : NULL;
}
