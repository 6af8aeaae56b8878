/* SPDX-License-Identifier: BSD-3-Clause */
/* spsc.c: the single-producer, single-consumer record ring (spsc.h).
 *
 * A record is an 8-byte header (its length) and its bytes, padded to 8. A
 * record that would run past the end of the buffer is preceded by a wrap
 * marker filling the rest of the buffer; marker and record are published
 * together. Sleeping: a thread sets its "waiting" flag, then checks the
 * other side's position again under the mutex; the other side publishes its
 * position, then reads the flag (both sequentially consistent), so one of
 * the two always sees the other and no wake-up is lost. */
#include "spsc.h"

#include <stdlib.h>
#include <string.h>

#include "hugemem.h"

#define HDR 8
#define WRAP UINT32_MAX

static size_t
pad8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

int
spsc_init(struct spsc *r, size_t cap)
{
    memset(r, 0, sizeof *r);
    r->cap = pad8(cap < 1024 ? 1024 : cap);
    r->buf = malloc(r->cap);
    if (!r->buf)
        return -1;
    mem_populate(r->buf, r->cap); /* all of it is written, in order, soon */
    atomic_init(&r->head, 0);
    atomic_init(&r->tail, 0);
    atomic_init(&r->cons_waiting, 0);
    atomic_init(&r->prod_want, 0);
    atomic_init(&r->closed, 0);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->not_empty, NULL);
    pthread_cond_init(&r->not_full, NULL);
    return 0;
}

void
spsc_fini(struct spsc *r)
{
    if (!r->buf)
        return;
    free(r->buf);
    r->buf = NULL;
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->not_empty);
    pthread_cond_destroy(&r->not_full);
}

/* A record of n bytes takes at most 2 * (HDR + pad8(n)) - HDR bytes with its
 * wrap marker; this keeps that below the ring's size. */
size_t
spsc_max_record(const struct spsc *r)
{
    return r->cap / 2 - 2 * HDR;
}

#define SPSC_PUBLISH 16384 /* bytes between position stores */

/* ---- producer ---------------------------------------------------------------- */

static void
wake_consumer(struct spsc *r, bool force)
{
    if (!atomic_load(&r->cons_waiting))
        return;
    if (!force && r->tail_local - (r->head_cache = atomic_load(&r->head)) < r->cap / 2)
        return; /* (a waiting consumer has published its head) */
    pthread_mutex_lock(&r->mu);
    pthread_cond_signal(&r->not_empty);
    pthread_mutex_unlock(&r->mu);
}

/* Store tail_local (sequentially consistent: paired with the consumer's
 * store of cons_waiting and load of tail, see the top of the file). */
static void
publish_tail(struct spsc *r, bool force)
{
    atomic_store(&r->tail, r->tail_local);
    wake_consumer(r, force);
}

/* Wait until `want` bytes are free. prod_want holds `want` while asleep, so
 * the consumer wakes it only when that much is free. */
static void
wait_free(struct spsc *r, size_t want)
{
    if (r->cap - (r->tail_local - r->head_cache) >= want)
        return;
    r->head_cache = atomic_load(&r->head);
    if (r->cap - (r->tail_local - r->head_cache) >= want)
        return;
    publish_tail(r, true); /* a consumer asleep below its wake-up mark: now */
    pthread_mutex_lock(&r->mu);
    atomic_store(&r->prod_want, want);
    while (r->cap - (r->tail_local - (r->head_cache = atomic_load(&r->head))) < want)
        pthread_cond_wait(&r->not_full, &r->mu);
    atomic_store(&r->prod_want, 0);
    pthread_mutex_unlock(&r->mu);
}

void *
spsc_reserve(struct spsc *r, size_t n)
{
    size_t off = (size_t)(r->tail_local % r->cap), need = HDR + pad8(n), to_end = r->cap - off;
    uint32_t len = (uint32_t)n;

    if (n > spsc_max_record(r))
        abort(); /* a caller's bug: the limit is documented and checked there */
    if (need <= to_end) {
        wait_free(r, need);
        r->reserved = need;
    } else {
        uint32_t wrap = WRAP;
        wait_free(r, to_end + need);
        memcpy(r->buf + off, &wrap, sizeof wrap);
        r->reserved = to_end + need;
        off = 0;
    }
    memcpy(r->buf + off, &len, sizeof len);
    return r->buf + off + HDR;
}

void
spsc_commit(struct spsc *r)
{
    r->tail_local += r->reserved;
    r->reserved = 0;
    if (r->tail_local - atomic_load_explicit(&r->tail, memory_order_relaxed) >= SPSC_PUBLISH)
        publish_tail(r, false);
}

void
spsc_flush(struct spsc *r)
{
    publish_tail(r, true);
}

void
spsc_wait_empty(struct spsc *r)
{
    wait_free(r, r->cap);
}

void
spsc_close(struct spsc *r)
{
    atomic_store(&r->tail, r->tail_local);
    pthread_mutex_lock(&r->mu);
    atomic_store(&r->closed, 1);
    pthread_cond_signal(&r->not_empty);
    pthread_mutex_unlock(&r->mu);
}

/* ---- consumer ---------------------------------------------------------------- */

/* Store head_local, then wake a producer waiting for the room now free. */
static void
publish_head(struct spsc *r)
{
    size_t want;

    atomic_store(&r->head, r->head_local);
    want = atomic_load(&r->prod_want);
    if (want && r->cap - (atomic_load(&r->tail) - r->head_local) >= want) {
        pthread_mutex_lock(&r->mu);
        pthread_cond_signal(&r->not_full);
        pthread_mutex_unlock(&r->mu);
    }
}

/* The published record at ring position pos: its bytes and length (*n);
 * *span: the ring bytes it takes from pos, a wrap marker's included. */
static const void *
rec_at(const struct spsc *r, uint64_t pos, uint64_t *span, size_t *n)
{
    size_t off = (size_t)(pos % r->cap), skip = 0;
    uint32_t len;

    memcpy(&len, r->buf + off, sizeof len);
    if (len == WRAP) { /* published together with the record after it */
        skip = r->cap - off;
        off = 0;
        memcpy(&len, r->buf, sizeof len);
    }
    *span = skip + HDR + pad8(len);
    *n = len;
    return r->buf + off + HDR;
}

const void *
spsc_peek(struct spsc *r, size_t *n)
{
    uint64_t head = r->head_local;

    if (r->tail_cache == head && (r->tail_cache = atomic_load(&r->tail)) == head) {
        publish_head(r); /* all consumed: a producer may be waiting for that */
        pthread_mutex_lock(&r->mu);
        atomic_store(&r->cons_waiting, 1);
        while ((r->tail_cache = atomic_load(&r->tail)) == head && !atomic_load(&r->closed))
            pthread_cond_wait(&r->not_empty, &r->mu);
        atomic_store(&r->cons_waiting, 0);
        pthread_mutex_unlock(&r->mu);
        if ((r->tail_cache = atomic_load(&r->tail)) == head) /* closed and empty */
            return NULL;
    }
    r->peeked_next = 0;
    return rec_at(r, head, &r->peeked, n);
}

void
spsc_release(struct spsc *r)
{
    r->head_local += r->peeked;
    r->peeked = r->peeked_next; /* spsc_peek_next's record, or 0 */
    r->peeked_next = 0;
    if (r->head_local - atomic_load_explicit(&r->head, memory_order_relaxed) >= SPSC_PUBLISH)
        publish_head(r);
}

const void *
spsc_peek_next(struct spsc *r, size_t *n)
{
    uint64_t pos = r->head_local + r->peeked;

    r->peeked_next = 0;
    if (!r->peeked)
        return NULL; /* nothing peeked */
    if (r->tail_cache <= pos && (r->tail_cache = atomic_load(&r->tail)) <= pos)
        return NULL; /* not published yet */
    return rec_at(r, pos, &r->peeked_next, n);
}
