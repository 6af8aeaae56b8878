/* tcp_reasm.h: per-direction TCP stream reassembly (RFC 9293 §3.4 sequence space).
 *
 * Turns segments into an in-order byte stream per direction, delivered to a
 * stream_sink as data chunks, with holes reported as gaps so the layer above
 * can skip them and re-synchronise. In-order data is delivered straight from
 * the packet (never copied); only out-of-order segments are copied, into a
 * bounded pool shared by all connections. */
#ifndef NFSSCOPE_TCP_REASM_H
#define NFSSCOPE_TCP_REASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "anomaly.h"
#include "bytes.h"
#include "decode_ip.h"

/* In-order bytes out; holes reported as gaps. `flow` is the caller's opaque
 * connection pointer, passed through. Chunks are borrowed (valid only during
 * the call). A gap of n bytes means n stream bytes will never be delivered. */
struct stream_sink {
    void (*data)(void *ctx, void *flow, unsigned dir, struct bytes chunk,
                 const struct timespec *ts);
    void (*gap)(void *ctx, void *flow, unsigned dir, uint64_t nbytes, const struct timespec *ts);
    void *ctx;
};

/* One direction of one connection. Embedded in the flow entry; zero-initialise
 * (memset 0) before first use; tcp_reasm_release() before reuse. */
struct tcp_half {
    uint32_t next_seq;  /* next stream byte expected */
    uint32_t ooo_first; /* pool index of the first buffered out-of-order segment, or TCP_NONE */
    uint32_t ooo_bytes; /* bytes buffered for this direction */
    uint16_t ooo_count;
    uint8_t started; /* next_seq is valid */
    uint8_t fin;     /* FIN seen */
};

#define TCP_NONE UINT32_MAX

struct tcp_reasm_config {
    size_t pool_bytes;    /* total bytes of out-of-order data buffered, all connections */
    size_t per_half_max;  /* most bytes buffered for one direction before declaring a gap */
};

struct tcp_reasm;

/* Returns NULL on allocation failure. `an` receives TCP_* anomaly counts. */
struct tcp_reasm *tcp_reasm_new(const struct tcp_reasm_config *cfg, struct anomalies *an);
void tcp_reasm_free(struct tcp_reasm *r); /* NULL is a no-op */

/* Feed one segment travelling in direction `dir` (0 or 1) of a connection whose
 * two halves are half[0] and half[1]. The segment's ACK is used to detect data
 * the receiver got but the capture missed: when the peer has acknowledged past
 * a hole in this direction, the hole is a gap (nfstrace's `lost()`).
 * A segment with caplen < wirelen delivers its captured bytes, then a gap for
 * the rest, so stream offsets stay exact. */
void tcp_reasm_push(struct tcp_reasm *r, struct tcp_half half[2], void *flow, unsigned dir,
                    const struct l4_seg *seg, const struct timespec *ts,
                    const struct stream_sink *out);

/* Deliver everything still buffered for this direction (with gaps for holes):
 * at end of input or before a flow is evicted. */
void tcp_reasm_flush(struct tcp_reasm *r, struct tcp_half *h, void *flow, unsigned dir,
                     const struct timespec *ts, const struct stream_sink *out);

/* Drop buffered data without delivering it and reset the half. */
void tcp_reasm_release(struct tcp_reasm *r, struct tcp_half *h);

/* Bytes currently buffered in the pool (tests, report). */
size_t tcp_reasm_buffered(const struct tcp_reasm *r);

#endif
