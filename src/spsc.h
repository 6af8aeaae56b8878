/* spsc.h: a single-producer, single-consumer ring of variable-length records.
 *
 * One fixed buffer, allocated once; records are contiguous (a record that
 * does not fit before the end of the buffer starts again at its beginning).
 * The producer blocks while the ring is full, the consumer while it is
 * empty. Waking is batched: a sleeping consumer is woken once an eighth of
 * the ring is filled (or on spsc_flush / spsc_close), a sleeping producer
 * once half of it is free, so the two threads do not ping-pong per record.
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

struct spsc {
    uint8_t *buf;
    size_t cap;                  /* bytes, a multiple of 8 */
    _Atomic uint64_t head, tail; /* bytes ever consumed / produced */
    atomic_int cons_waiting, closed;
    _Atomic size_t prod_want;      /* bytes the sleeping producer waits for; 0 = awake */
    uint64_t reserved;           /* producer: bytes of the record being written */
    uint64_t peeked;             /* consumer: bytes of the record being read */
    pthread_mutex_t mu;
    pthread_cond_t not_empty, not_full;
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

#endif
