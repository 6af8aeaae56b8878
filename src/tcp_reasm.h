/* SPDX-License-Identifier: BSD-3-Clause */
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

/* What the connection did (RFC 9293 §3.5, §3.10.7):
 *  TCP_EV_OPEN   direction dir's stream starts at ISN + 1 after its SYN:
 *                its sender opened the connection (the client); its first
 *                byte begins whatever the layer above frames;
 *  TCP_EV_ACCEPT the same after a SYN-ACK: its sender accepted (the server);
 *  TCP_EV_END    direction dir's stream is over (its FIN, a reset, or a new
 *                connection on the same ports): no more of its bytes follow;
 *  TCP_EV_NEW    a new connection on the flow's addresses and ports, opened
 *                from direction dir (the sender of the SYN). It follows the
 *                END of both directions of the old one, and precedes the
 *                OPEN or ACCEPT of the new one's first direction. */
enum tcp_event { TCP_EV_OPEN, TCP_EV_ACCEPT, TCP_EV_END, TCP_EV_NEW };

/* In-order bytes out; holes reported as gaps. `flow` is the caller's opaque
 * connection pointer, passed through. Chunks are borrowed (valid only during
 * the call). A gap of n bytes means n stream bytes will never be delivered.
 * `event` may be NULL. */
struct stream_sink {
    void (*data)(void *ctx, void *flow, unsigned dir, struct bytes chunk,
                 const struct timespec *ts);
    void (*gap)(void *ctx, void *flow, unsigned dir, uint64_t nbytes, const struct timespec *ts);
    void *ctx;
    void (*event)(void *ctx, void *flow, unsigned dir, enum tcp_event ev,
                  const struct timespec *ts);
};

/* One direction of one connection. Embedded in the flow entry; zero-initialise
 * (memset 0) before first use; tcp_reasm_release() before reuse. */
struct tcp_half {
    uint32_t next_seq;  /* next stream byte expected */
    uint32_t ooo_first; /* pool index of the first buffered chunk; valid only if ooo_count > 0 */
    uint32_t ooo_bytes; /* bytes buffered for this direction */
    uint32_t isn;       /* the SYN's sequence number; valid only if has_isn */
    uint16_t ooo_count; /* pool chunks held (1 KiB each, or a known-lost hole) */
    uint8_t started; /* next_seq is valid */
    uint8_t fin;     /* FIN seen */
    uint8_t has_isn; /* the stream started at a SYN */
    uint8_t reset;   /* the connection was reset: what follows is a new stream */
    uint8_t tomb;    /* reset, not started: next_seq is where the old stream ended */
    int64_t trouble_ns; /* packet time (ns) of the last segment this way that came again
                         * (a retransmission), ahead of a hole (loss or reordering), or
                         * of a hole declared lost; 0: none. A snaplen cut is not trouble. */
};

#define TCP_NONE UINT32_MAX

struct tcp_reasm_config {
    size_t pool_bytes;    /* total bytes of out-of-order data buffered, all connections;
                           * 0: 32 MiB. Allocated once, in 1 KiB chunks. */
    size_t per_half_max;  /* most bytes buffered for one direction before declaring a gap;
                           * 0: 256 KiB. Also the ACK lead that counts as loss when
                           * nothing is buffered (see tcp_reasm_push). */
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
 * the rest, so stream offsets stay exact.
 * Exact rules (details in tcp_reasm.c):
 *  - the stream starts at ISN+1 after a SYN, else at the first data segment;
 *  - in-order bytes are delivered from the packet, never copied; buffered bytes
 *    are delivered as soon as they become in order: with this segment's ts
 *    when it filled the hole before them, with their own segment's capture
 *    time (the latest so far of that delivery) when the hole was declared
 *    lost;
 *  - fully-old segments count tcp_retransmit; overlaps deliver only new bytes;
 *  - out of room (per_half_max or pool): tcp_ooo_overflow, gap up to the
 *    first buffered byte (or this segment) and deliver -- no allocation;
 *  - ACK past next_seq with data buffered: gap up to min(ack, first buffered
 *    byte); with nothing buffered: gap only if ack leads by > per_half_max
 *    (a smaller lead may be the capture reordering directions);
 *  - FIN flushes (a FIN after missing bytes declares them lost) and ends the
 *    direction (TCP_EV_END);
 *  - RST at or ahead of next_seq ends the connection: both directions are
 *    flushed and ended, and data after it starts a new stream (a segment
 *    wholly before where the old stream ended is a late copy of an old one,
 *    counted tcp_retransmit); an RST behind next_seq is ignored, as the
 *    receiver would (RFC 5961 §3.2);
 *  - a SYN with a new ISN (or the old ISN after data: a replay) opens a new
 *    connection on the same ports (TCP_EV_NEW; both directions flushed and
 *    ended first); a retransmitted SYN is ignored, and one carrying data
 *    within per_half_max of a live stream is a corrupt segment, dropped
 *    with its data (RFC 9293 §3.10.7.4, RFC 5961 §4);
 *  - a direction that starts at a SYN reports TCP_EV_OPEN (TCP_EV_ACCEPT for
 *    a SYN-ACK).
 * Every gap is reported through out->gap, which may be called for the OTHER
 * direction (dir ^ 1) when this segment's ACK reveals loss there. */
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
