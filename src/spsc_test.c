/* SPDX-License-Identifier: BSD-3-Clause */
/* spsc_test.c: a producer thread and this one through a small ring: every
 * record arrives once, in order, intact, across wraps, with both sides made
 * to wait (full ring, empty ring), spsc_wait_empty and spsc_close. */
#include "spsc.h"

#include <stdlib.h>
#include <string.h>

#include "t.h"

#define RECORDS 200000
#define EMPTY_EVERY 5003 /* the producer waits for an empty ring this often */

static struct spsc ring;
static unsigned empty_seen_bad;

static uint8_t
byte_of(uint32_t seq, size_t i)
{
    return (uint8_t)(seq * 31 + i * 7 + (i >> 8));
}

/* Record sizes: mostly small, some up to the largest allowed, some empty. */
static size_t
size_of(uint32_t seq)
{
    size_t max = spsc_max_record(&ring);
    uint32_t x = seq * 2654435761u;

    if (seq % 97 == 0)
        return max;
    if (seq % 13 == 0)
        return 0;
    return (x >> 7) % (seq % 5 == 0 ? max - 4 : 40) + 4;
}

static void *
producer(void *arg)
{
    uint32_t seq;

    (void)arg;
    for (seq = 0; seq < RECORDS; seq++) {
        size_t n = size_of(seq), i;
        uint8_t *p = spsc_reserve(&ring, n);

        if (n >= 4)
            memcpy(p, &seq, 4);
        for (i = 4; i < n; i++)
            p[i] = byte_of(seq, i);
        spsc_commit(&ring);
        if (seq % 1000 == 999)
            spsc_flush(&ring);
        if (seq % EMPTY_EVERY == 0) {
            spsc_wait_empty(&ring);
            if (atomic_load(&ring.head) != atomic_load(&ring.tail))
                empty_seen_bad++;
        }
    }
    spsc_close(&ring);
    return NULL;
}

int
main(void)
{
    pthread_t th;
    uint32_t seq = 0;
    unsigned bad_len = 0, bad_seq = 0, bad_byte = 0, bad_next = 0, nexts = 0;
    const void *rec, *next = NULL;
    size_t n, next_n = 0;

    EQ(spsc_init(&ring, 1000), 0); /* rounded up to 1024: wraps often */
    EQ(ring.cap, 1024);
    EQ(spsc_max_record(&ring), 512 - 16);
    EQ(pthread_create(&th, NULL, producer, NULL), 0);
    /* Every other record that spsc_peek_next showed is taken from it
     * without spsc_peek, as the findings worker does. */
    for (;;) {
        const uint8_t *p;
        size_t i;
        uint32_t got;

        if (next && seq % 2) {
            rec = next;
            n = next_n;
        } else if ((rec = spsc_peek(&ring, &n)) == NULL) {
            break;
        } else if (next) { /* spsc_peek_next showed this record ahead */
            bad_next += rec != next || n != next_n;
        }
        p = rec;
        CHECK(((uintptr_t)rec & 7) == 0);
        if (n != size_of(seq)) {
            bad_len++;
        } else if (n >= 4) {
            memcpy(&got, p, 4);
            bad_seq += got != seq;
            for (i = 4; i < n; i++)
                bad_byte += p[i] != byte_of(seq, i);
        }
        if (seq % 7 == 0) { /* a slow consumer now and then: the producer waits */
            volatile unsigned spin;
            for (spin = 0; spin < 2000; spin++)
                ;
        }
        next = spsc_peek_next(&ring, &next_n); /* never waits */
        if (next) {
            CHECK(((uintptr_t)next & 7) == 0);
            bad_next += next_n != size_of(seq + 1);
            nexts++;
        }
        spsc_release(&ring);
        seq++;
    }
    EQ(pthread_join(th, NULL), 0);
    EQ(seq, RECORDS);
    EQ(bad_len, 0);
    EQ(bad_seq, 0);
    EQ(bad_byte, 0);
    EQ(bad_next, 0);
    CHECK(nexts > 0);
    EQ(empty_seen_bad, 0);
    EQ(atomic_load(&ring.head), atomic_load(&ring.tail));
    CHECK(spsc_peek(&ring, &n) == NULL); /* closed and empty stays so */
    spsc_fini(&ring);
    return t_done();
}
