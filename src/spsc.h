/* SPDX-License-Identifier: BSD-3-Clause */
/* spsc.h: a single-producer, single-consumer ring of variable-length records.
 *
 * One fixed buffer, allocated once; records are contiguous (a record that
 * does not fit before the end of the buffer starts again at its beginning).
 * The producer blocks while the ring is full, the consumer while it is
 * empty. Positions are published in batches and waking is batched: a
 * sleeping consumer is woken once half of the ring is filled (or on
 * spsc_flush / spsc_close), a sleeping producer once the room it waits for is
 * free, so the two threads neither ping-pong per record nor share a cache
 * line they both write.
 * Positions are C11 atomics (release/acquire), the sleeping a mutex and two
 * condition variables, with the Dekker-style handshake on the "waiting"
 * flags in spsc.c. */
#ifndef NFSSCOPE_SPSC_H
#define NFSSCOPE_SPSC_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPSC_LINE 64 /* fields written by different threads stay this far apart */

struct spsc {
    /* Set at init, then only read. */
    uint8_t *buf;
    size_t cap; /* bytes, a multiple of 8 */
    pthread_mutex_t mu;
    pthread_cond_t not_empty, not_full;
    char pad0[SPSC_LINE];
    /* The producer's. Positions count bytes ever produced / consumed; a
     * side publishes its own every SPSC_PUBLISH bytes (and before it waits),
     * and reads the other's only when its cached copy says "no room". */
    _Atomic uint64_t tail; /* published */
    uint64_t tail_local, head_cache, reserved;
    char pad1[SPSC_LINE];
    /* The consumer's. */
    _Atomic uint64_t head; /* published */
    uint64_t head_local, tail_cache, peeked, peeked_next;
    char pad2[SPSC_LINE];
    /* Sleeping: written only around a wait. */
    atomic_int cons_waiting, closed;
    _Atomic size_t prod_want; /* bytes the sleeping producer waits for; 0 = awake */
};

/* A ring of cap bytes (rounded up to a multiple of 8). 0, or -1 (ENOMEM). */
int spsc_init(struct spsc *r, size_t cap);
void spsc_fini(struct spsc *r);
/* The largest record spsc_reserve accepts: half the ring. */
size_t spsc_max_record(const struct spsc *r);

/* Producer. Room for a record of n bytes (n <= spsc_max_record), 8-byte
 * aligned; waits while the ring is full. Then spsc_commit publishes it. */
void *spsc_reserve(struct spsc *r, size_t n);
void spsc_commit(struct spsc *r);
/* Wake the consumer for what is in the ring, however little. */
void spsc_flush(struct spsc *r);
/* Wait until the consumer has released every record. */
void spsc_wait_empty(struct spsc *r);
/* No more records: the consumer drains the ring, then spsc_peek says NULL. */
void spsc_close(struct spsc *r);

/* Consumer. The next record (its length in *n), waiting while the ring is
 * empty; NULL once the ring is closed and empty. spsc_release frees it. */
const void *spsc_peek(struct spsc *r, size_t *n);
void spsc_release(struct spsc *r);
/* The record after the peeked one (spsc_peek's, or the last
 * spsc_peek_next's once the record before it is released), if the producer
 * has published it (never waits), else NULL. spsc_release then makes it
 * the peeked record: the consumer may use it without spsc_peek (which would
 * return it again) and release it in turn. */
const void *spsc_peek_next(struct spsc *r, size_t *n);

#endif
