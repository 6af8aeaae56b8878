/* SPDX-License-Identifier: BSD-3-Clause */
/* smallio.h: the small_io finding: READs and WRITEs far smaller than the
 * server takes (FSINFO rtmax/wtmax, RFC 1813 §3.3.19) or than the same
 * client sent elsewhere.
 *
 * A replied READ (bytes asked for) or WRITE (bytes sent) is small when it
 * is at most 1/SMALL_RATIO of its reference: the server's rtmax (wtmax) from
 * its latest FSINFO reply, or, before any, the largest READ (WRITE) the same
 * client sent earlier. A READ that reached end of file is never small (the
 * file ended). A small call's cost is the share of its latency a call of the
 * reference size would have saved, latency x (1 - size / reference): the
 * same bytes in fewer calls. The finding is reported from SMALL_MIN_CALLS
 * small calls on. Bounded: the first SMALL_SERVERS servers and
 * SMALL_CLIENTS clients have rows; calls of others are counted apart. */
#ifndef NFSSCOPE_SMALLIO_H
#define NFSSCOPE_SMALLIO_H

#include <stdbool.h>
#include <stdint.h>

#include "addr_ix.h"

#define SMALL_RATIO 4
#define SMALL_MIN_CALLS 8
#define SMALL_SERVERS 16
#define SMALL_CLIENTS 64

struct small_peer { /* a server (FSINFO) or a client (sizes it used) */
    uint8_t af, addr[16]; /* af 0: unused */
    uint32_t rmax, wmax;  /* server: rtmax, wtmax; client: largest READ, WRITE sent */
    uint64_t small_reads, small_writes, small_read_bytes, small_write_bytes;
};

struct smallio {
    unsigned nservers, nclients;
    struct small_peer srv[SMALL_SERVERS], cli[SMALL_CLIENTS];
    struct addr_ix srv_ix, cli_ix; /* srv[], cli[] by address */
    uint64_t not_kept;      /* calls whose server or client had no row */
    uint64_t reads, writes; /* replied READs and WRITEs looked at */
    uint64_t small_reads, small_writes, small_read_bytes, small_write_bytes;
};

/* A server's FSINFO answer. */
void smallio_fsinfo(struct smallio *s, uint8_t af, const uint8_t *srv, uint32_t rtmax,
                    uint32_t wtmax);
/* A replied READ (write false; size the bytes asked for, eof its reply's)
 * or WRITE (size the bytes sent). Is it small? If so, *saved is the part of
 * lat_us that calls of the reference size would have saved. */
bool smallio_record(struct smallio *s, uint8_t af, const uint8_t *srv, const uint8_t *cli,
                    bool write, uint32_t size, bool eof, uint64_t lat_us, uint64_t *saved);
/* Reported: at least SMALL_MIN_CALLS small calls. */
bool smallio_reported(const struct smallio *s);

#endif
