/* SPDX-License-Identifier: BSD-3-Clause */
/* serialio.h: the serialized_io finding: bulk READs and WRITEs sent one at
 * a time, each waiting for the one before it, so that the transfer moves at
 * one call per round trip (latency-bound throughput).
 *
 * Kept per client and server, not per file: what would put more calls in
 * flight (nconnect, larger rsize/wsize, readahead, asynchronous or parallel
 * I/O) acts on the client's mount of that server, and a client that keeps
 * two files going with one call each has two calls in flight on the link.
 *
 * A replied READ (bytes returned) or WRITE (bytes sent) of at least
 * SER_MIN_SIZE bytes is serialized when no other READ or WRITE of the same
 * client and server was in flight at any moment between its call and its
 * reply, and it was sent soon after the reply of the READ or WRITE before
 * it: within its own latency or SER_GAP_US, whichever is longer (a call is
 * timed from its last segment, so a large WRITE's own time on the wire
 * falls in that gap). The client was waiting on the server, not on itself
 * or its application. Replies come in order of reply, so a call counted serialized is
 * taken back when a later reply shows a call that was in flight beside it
 * (the last SER_MARKS counted calls of each pair can be taken back).
 *
 * A serialized call costs latency x (1 - 1 / SER_DEPTH): the share of its
 * wait that SER_DEPTH calls in flight would have overlapped. The throughput
 * achieved is the bytes over the time spent waiting for them; SER_DEPTH
 * calls in flight at the same latency would move SER_DEPTH times as much.
 * Reported from SER_MIN_CALLS serialized calls and SER_MIN_BYTES bytes on.
 * Bounded: the first SER_PAIRS client/server pairs have rows; calls of
 * others are counted apart. */
#ifndef NFSSCOPE_SERIALIO_H
#define NFSSCOPE_SERIALIO_H

#include <stdbool.h>
#include <stdint.h>

#include "addr_ix.h"

#define SER_MIN_SIZE (32u * 1024) /* a bulk call: bytes */
#define SER_MIN_CALLS 8
#define SER_MIN_BYTES (1024u * 1024)
#define SER_GAP_US 10000          /* see above */
#define SER_DEPTH 4               /* calls in flight the cost is measured against */
#define SER_PAIRS 64
#define SER_MARKS 8

/* A counted call, so that it can be taken back: its times and what it
 * added, and what the caller credited for it (client and file are the
 * caller's, opaque here). */
struct ser_mark {
    int64_t t_call, t_reply; /* ns; t_reply 0: none */
    uint64_t bytes, lat_us;
    bool write;
    uint64_t claimed_us;
    void *client, *file;
};

struct ser_pair {
    uint8_t af, cli[16], srv[16]; /* af 0: unused */
    int64_t last_reply;           /* latest reply of a READ or WRITE of the pair, 0: none */
    struct ser_mark mark[SER_MARKS];
    unsigned next_mark;           /* ring: the slot the next counted call takes */
    uint64_t calls, bytes, lat_us; /* serialized calls now counted */
};

struct serialio {
    unsigned npairs;
    struct ser_pair pair[SER_PAIRS];
    struct addr_ix ix;        /* pair[] by (server, client) */
    uint64_t not_kept;        /* calls whose pair had no row */
    uint64_t bulk;            /* replied READs and WRITEs of SER_MIN_SIZE or more looked at */
    uint64_t reads, writes, bytes, lat_us; /* serialized calls now counted */
};

/* A replied READ (write false, bytes returned) or WRITE (bytes sent)
 * between client cli and server srv, sent at t_call and answered at
 * t_reply (ns). Calls counted before that turn out to have been in flight
 * beside it are taken back: their marks are copied to undo[] (*nundo of
 * them) for the caller to take back what it credited. Returns the mark of
 * this call if it is counted serialized (the caller fills claimed_us,
 * client and file), else NULL; *saved is then the part of lat_us SER_DEPTH
 * calls in flight would have overlapped. */
struct ser_mark *serialio_record(struct serialio *s, uint8_t af, const uint8_t *srv,
                                 const uint8_t *cli, bool write, uint64_t bytes, int64_t t_call,
                                 int64_t t_reply, uint64_t lat_us, uint64_t *saved,
                                 struct ser_mark undo[SER_MARKS], unsigned *nundo);
/* Reported: at least SER_MIN_CALLS serialized calls and SER_MIN_BYTES bytes. */
bool serialio_reported(const struct serialio *s);
/* Bytes per second while waiting for the serialized calls, 0: none. */
uint64_t serialio_rate(uint64_t bytes, uint64_t lat_us);

#endif
