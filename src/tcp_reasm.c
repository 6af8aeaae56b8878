/* SPDX-License-Identifier: BSD-3-Clause */
/* tcp_reasm.c: per-direction TCP reassembly (RFC 9293 §3.4 sequence space).
 *
 * In-order bytes go straight from the packet to the sink (never copied). Only
 * segments that arrive ahead of next_seq are copied, into one pool of
 * fixed-size chunks allocated by tcp_reasm_new() and shared by every
 * connection; there is no allocation after that.
 *
 * Per direction, buffered data is a list of chunks sorted by sequence number
 * that never overlap each other and always lie ahead of next_seq (within
 * 2^31, so serial-number arithmetic, RFC 1982, orders them). A chunk holds up
 * to CHUNK_DATA bytes, or is a "hole": a known-lost range (the uncaptured
 * tail of a snaplen-truncated segment) that is delivered as a gap.
 *
 * push(segment), for direction d:
 *  1. SYN: next_seq = ISN + 1. A SYN that opens a new connection on the same
 *     ports (see tcp_reasm.h) ends both directions first; one carrying data
 *     near the current stream is dropped with it, as the receiver would.
 *  2. The first data segment of a connection seen mid-stream sets next_seq.
 *  3. seq <= next_seq: deliver the bytes past next_seq from the packet, then a
 *     gap for the uncaptured tail (caplen < wirelen); fully-old segments are
 *     retransmissions. Then drain buffered chunks that have become in order.
 *  4. seq > next_seq: copy the new (not yet buffered) bytes into chunks. If the
 *     direction's limit or the pool would be exceeded, skip ahead instead:
 *     gap up to the first buffered byte (or this segment), deliver, retry.
 *  5. FIN: flush (gaps for holes, deliver everything buffered), end the
 *     direction. RST (in sequence): flush and end both directions, and
 *     forget them, so data after it starts a new stream; an RST's own data
 *     is not stream data.
 *  6. (Done first, as step 0.) The segment's ACK covers the other
 *     direction. Loss rule: if the peer
 *     acknowledges past next_seq,
 *       a. and data is buffered: the receiver holds bytes we never saw (the
 *          hole before the buffered data), so they will not be retransmitted:
 *          gap up to min(ack, first buffered byte), drain, repeat;
 *       b. and nothing is buffered: the ACK may simply have been captured
 *          before the data (capture reordering across directions), so the
 *          gap is declared only when the ACK is more than per_half_max bytes
 *          ahead -- more reordering than we would ever buffer. Smaller losses
 *          are caught by rule (a) as soon as the next data segment is
 *          buffered, or by the flush at FIN/RST/eviction;
 *       c. and the acknowledging segment carries data: the peer answers
 *          (an RPC reply) after receiving everything it acknowledges, so the
 *          missing bytes are declared lost at once; otherwise the reply
 *          would be seen before the call it answers. */
#include "tcp_reasm.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_DATA 1024u /* bytes of data per pool chunk */

struct chunk {
    uint32_t next; /* next chunk of the same direction, or TCP_NONE; free-list link */
    uint32_t seq;  /* sequence number of the first byte */
    uint32_t len;  /* bytes (<= CHUNK_DATA), or the length of a hole */
    uint8_t hole;  /* no data: a range known to be lost */
    struct timespec ts; /* when its segment was captured */
};

struct tcp_reasm {
    struct chunk *ck;
    uint8_t *data; /* nchunks * CHUNK_DATA */
    uint32_t nchunks, nfree, free_head;
    uint32_t fresh; /* chunks [fresh, nchunks) never used: off the free list, untouched */
    uint32_t half_max_bytes;  /* per direction, data bytes */
    uint32_t half_max_chunks; /* per direction, chunks (holes included); fits ooo_count */
    size_t buffered;          /* data bytes in the pool, all directions */
    struct anomalies *an;
};

/* Serial-number comparison (RFC 1982): a before b. */
static bool
seq_lt(uint32_t a, uint32_t b)
{
    return ((a - b) & 0x80000000u) != 0;
}

static uint32_t
ck_alloc(struct tcp_reasm *r)
{
    uint32_t i = r->free_head;

    if (i == TCP_NONE) {
        if (r->fresh == r->nchunks)
            return TCP_NONE;
        r->nfree--;
        return r->fresh++;
    }
    r->free_head = r->ck[i].next;
    r->nfree--;
    return i;
}

static void
ck_free(struct tcp_reasm *r, uint32_t i)
{
    r->ck[i].next = r->free_head;
    r->free_head = i;
    r->nfree++;
}

static void
emit_data(const struct stream_sink *out, void *flow, unsigned dir, const uint8_t *p, size_t n,
          const struct timespec *ts)
{
    if (n > 0 && out && out->data) {
        struct bytes b = { p, n };
        out->data(out->ctx, flow, dir, b, ts);
    }
}

static void
emit_gap(const struct stream_sink *out, void *flow, unsigned dir, uint64_t n,
         const struct timespec *ts)
{
    if (n > 0 && out && out->gap)
        out->gap(out->ctx, flow, dir, n, ts);
}

/* The network delayed this direction at ts: a segment came again, ahead of a
 * hole, or a hole was declared lost (tcp_half.trouble_ns). */
static void
trouble(struct tcp_half *h, const struct timespec *ts)
{
    int64_t ns = ts ? (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec : 0;

    h->trouble_ns = ns > 0 ? ns : 1;
}

/* Remove the first buffered chunk of h and return it to the pool. */
static void
pop_first(struct tcp_reasm *r, struct tcp_half *h)
{
    uint32_t i = h->ooo_first;
    struct chunk *c = &r->ck[i];

    h->ooo_first = c->next;
    h->ooo_count--;
    if (!c->hole) {
        h->ooo_bytes -= c->len;
        r->buffered -= c->len;
    }
    ck_free(r, i);
    if (h->ooo_count == 0)
        h->ooo_first = TCP_NONE;
}

static bool
ts_before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Deliver buffered chunks that are now in order (step 3); drop the parts that
 * next_seq has already passed. Stops at the first hole in sequence space.
 * The chunks go out stamped `after`: the segment that filled the hole
 * before them, which completes what spans it. After a declared gap (after
 * NULL) no segment filled anything: each chunk goes out stamped with the
 * latest capture time of the chunks delivered so far in this drain, so a
 * message lying wholly past a lost hole keeps the time its own segment
 * was captured (the frame Wireshark's rpc.time counts from), not that of
 * the ACK or FIN that revealed the loss. */
static void
drain(struct tcp_reasm *r, struct tcp_half *h, void *flow, unsigned dir,
      const struct timespec *after, const struct stream_sink *out)
{
    struct timespec t = { 0, 0 };

    if (after)
        t = *after;
    while (h->ooo_count > 0) {
        const struct chunk *c = &r->ck[h->ooo_first];
        const struct timespec *ts = &t;
        uint32_t skip;

        if (seq_lt(h->next_seq, c->seq))
            break;
        if (!after && ts_before(&t, &c->ts))
            t = c->ts;
        skip = h->next_seq - c->seq;
        if (skip < c->len) {
            if (c->hole)
                emit_gap(out, flow, dir, c->len - skip, ts);
            else
                emit_data(out, flow, dir, r->data + (size_t)h->ooo_first * CHUNK_DATA + skip,
                          c->len - skip, ts);
            h->next_seq = c->seq + c->len;
        }
        pop_first(r, h);
    }
}

/* Jump next_seq forward to `to` (a declared gap), then drain. */
static void
skip_to(struct tcp_reasm *r, struct tcp_half *h, void *flow, unsigned dir, uint32_t to,
        const struct timespec *ts, const struct stream_sink *out)
{
    if (seq_lt(h->next_seq, to)) {
        emit_gap(out, flow, dir, (uint32_t)(to - h->next_seq), ts);
        h->next_seq = to;
    }
    drain(r, h, flow, dir, NULL, out);
}

/* Add the parts of [s, s+len) not yet buffered. p == NULL adds a hole.
 * With commit false, only count what it would take (chunks, data bytes);
 * with commit true the caller has checked that the pool has room. */
static void
add_range(struct tcp_reasm *r, struct tcp_half *h, uint32_t s, const uint8_t *p, uint32_t len,
          const struct timespec *ts, bool commit, uint32_t *nck, uint32_t *nbytes)
{
    uint32_t prev = TCP_NONE, cur = h->ooo_count ? h->ooo_first : TCP_NONE;
    uint32_t off = 0;

    while (off < len) {
        uint32_t pos = s + off, room = len - off, piece;

        /* skip chunks that end at or before pos */
        while (cur != TCP_NONE && !seq_lt(pos, r->ck[cur].seq + r->ck[cur].len)) {
            prev = cur;
            cur = r->ck[cur].next;
        }
        if (cur != TCP_NONE && !seq_lt(pos, r->ck[cur].seq)) {
            uint32_t cov = r->ck[cur].seq + r->ck[cur].len - pos; /* already held */
            off += cov < room ? cov : room;
            continue;
        }
        if (cur != TCP_NONE && (uint32_t)(r->ck[cur].seq - pos) < room)
            room = r->ck[cur].seq - pos;
        piece = (p && room > CHUNK_DATA) ? CHUNK_DATA : room;
        if (commit) {
            uint32_t i = ck_alloc(r);
            struct chunk *c = &r->ck[i];

            c->seq = pos;
            c->len = piece;
            c->hole = p == NULL;
            c->ts = *ts;
            c->next = cur;
            if (p) {
                memcpy(r->data + (size_t)i * CHUNK_DATA, p + off, piece);
                h->ooo_bytes += piece;
                r->buffered += piece;
            }
            if (prev == TCP_NONE)
                h->ooo_first = i;
            else
                r->ck[prev].next = i;
            h->ooo_count++;
            prev = i;
        } else {
            (*nck)++;
            if (p)
                *nbytes += piece;
        }
        off += piece;
    }
}

/* Buffer an out-of-order segment (step 4). Returns false when it does not
 * fit (the caller skips ahead). A segment adding nothing new is a retransmission. */
static bool
buffer_seg(struct tcp_reasm *r, struct tcp_half *h, uint32_t s, const uint8_t *p, uint32_t caplen,
           uint32_t wirelen, const struct timespec *ts)
{
    uint32_t nck = 0, nbytes = 0;

    add_range(r, h, s, p, caplen, ts, false, &nck, &nbytes);
    add_range(r, h, s + caplen, NULL, wirelen - caplen, ts, false, &nck, &nbytes);
    if (nck == 0) {
        anomaly_add(r->an, ANOM_TCP_RETRANSMIT, 1);
        return true;
    }
    if (nck > r->nfree || (uint64_t)h->ooo_count + nck > r->half_max_chunks ||
        (uint64_t)h->ooo_bytes + nbytes > r->half_max_bytes)
        return false;
    add_range(r, h, s, p, caplen, ts, true, NULL, NULL);
    add_range(r, h, s + caplen, NULL, wirelen - caplen, ts, true, NULL, NULL);
    if (wirelen > caplen)
        anomaly_add(r->an, ANOM_TCP_GAP, 1); /* snaplen cut the payload */
    return true;
}

/* Steps 3 and 4 for a segment carrying data [s, s+wirelen), caplen captured. */
static void
push_data(struct tcp_reasm *r, struct tcp_half *h, void *flow, unsigned dir, uint32_t s,
          const uint8_t *p, uint32_t caplen, uint32_t wirelen, const struct timespec *ts,
          const struct stream_sink *out)
{
    bool overflowed = false;

    if (seq_lt(h->next_seq, s))
        trouble(h, ts); /* ahead of a hole */
    while (seq_lt(h->next_seq, s)) {
        uint32_t to = s;

        if (buffer_seg(r, h, s, p, caplen, wirelen, ts))
            return;
        /* No room: skip ahead to the first buffered byte (or this segment). */
        if (!overflowed)
            anomaly_add(r->an, ANOM_TCP_OOO_OVERFLOW, 1);
        overflowed = true;
        if (h->ooo_count > 0 && seq_lt(r->ck[h->ooo_first].seq, s))
            to = r->ck[h->ooo_first].seq;
        skip_to(r, h, flow, dir, to, ts, out);
    }

    uint32_t end = s + wirelen, skip = h->next_seq - s;

    if (!seq_lt(h->next_seq, end)) {
        anomaly_add(r->an, ANOM_TCP_RETRANSMIT, 1);
        trouble(h, ts);
        return;
    }
    if (skip < caplen) {
        emit_data(out, flow, dir, p + skip, caplen - skip, ts);
        h->next_seq += caplen - skip;
    }
    if (seq_lt(h->next_seq, end)) { /* snaplen cut the payload: keep offsets exact */
        if (!overflowed)
            anomaly_add(r->an, ANOM_TCP_GAP, 1);
        emit_gap(out, flow, dir, (uint32_t)(end - h->next_seq), ts);
        h->next_seq = end;
    }
    if (h->ooo_count > 0) /* in order, nothing buffered: the usual segment */
        drain(r, h, flow, dir, ts, out);
}

/* Step 6: the peer acknowledged `ack` of half o. */
static void
ack_check(struct tcp_reasm *r, struct tcp_half *o, void *flow, unsigned odir, uint32_t ack,
          bool with_data, const struct timespec *ts, const struct stream_sink *out)
{
    if (!o->started)
        return;
    while (o->ooo_count > 0 && seq_lt(o->next_seq, ack)) { /* rule a */
        uint32_t first = r->ck[o->ooo_first].seq;

        if (seq_lt(o->next_seq, first)) {
            anomaly_add(r->an, ANOM_TCP_GAP, 1);
            trouble(o, ts);
        }
        skip_to(r, o, flow, odir, seq_lt(ack, first) ? ack : first, ts, out);
    }
    if (o->ooo_count == 0 && seq_lt(o->next_seq, ack) &&
        (with_data || (uint32_t)(ack - o->next_seq) > r->half_max_bytes)) { /* rule b, c */
        anomaly_add(r->an, ANOM_TCP_GAP, 1);
        trouble(o, ts);
        skip_to(r, o, flow, odir, ack, ts, out);
    }
}

static void
emit_event(const struct stream_sink *out, void *flow, unsigned dir, enum tcp_event ev,
           const struct timespec *ts)
{
    if (out && out->event)
        out->event(out->ctx, flow, dir, ev, ts);
}

/* Direction dir starts at its SYN (a SYN-ACK: synack), sequence number isn. */
static void
start_syn(struct tcp_half *h, void *flow, unsigned dir, uint32_t isn, bool synack,
          const struct timespec *ts, const struct stream_sink *out)
{
    h->next_seq = isn + 1;
    h->isn = isn;
    h->has_isn = 1;
    h->started = 1;
    h->reset = 0;
    h->fin = 0;
    emit_event(out, flow, dir, synack ? TCP_EV_ACCEPT : TCP_EV_OPEN, ts);
}

/* The connection is over: deliver what both directions hold, end them and
 * start afresh (a later segment is never taken for an old one). */
static void
end_conn(struct tcp_reasm *r, struct tcp_half half[2], void *flow, const struct timespec *ts,
         const struct stream_sink *out)
{
    for (unsigned d = 0; d < 2; d++) {
        tcp_reasm_flush(r, &half[d], flow, d, ts, out);
        if (half[d].started && !half[d].fin)
            emit_event(out, flow, d, TCP_EV_END, ts);
        tcp_reasm_release(r, &half[d]);
    }
}

struct tcp_reasm *
tcp_reasm_new(const struct tcp_reasm_config *cfg, struct anomalies *an)
{
    size_t pool = cfg && cfg->pool_bytes ? cfg->pool_bytes : (size_t)32 << 20;
    size_t half = cfg && cfg->per_half_max ? cfg->per_half_max : (size_t)256 << 10;
    size_t n = pool / CHUNK_DATA, hc;
    struct tcp_reasm *r;

    if (n == 0)
        n = 1;
    if (n > UINT32_MAX - 1)
        n = UINT32_MAX - 1;
    if (half > 0x40000000u) /* keep buffered data well inside the 2^31 window */
        half = 0x40000000u;
    hc = 2 * ((half + CHUNK_DATA - 1) / CHUNK_DATA) + 2; /* room for holes too */
    if (hc > UINT16_MAX)
        hc = UINT16_MAX;

    r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->ck = calloc(n, sizeof *r->ck);
    r->data = malloc(n * CHUNK_DATA);
    if (!r->ck || !r->data) {
        tcp_reasm_free(r);
        return NULL;
    }
    r->nchunks = (uint32_t)n;
    /* No free list to build: chunks come from `fresh` once the list is
     * empty, so calloc's pages are touched only as chunks are used. */
    r->free_head = TCP_NONE;
    r->fresh = 0;
    r->nfree = r->nchunks;
    r->half_max_bytes = (uint32_t)half;
    r->half_max_chunks = (uint32_t)hc;
    r->an = an;
    return r;
}

void
tcp_reasm_free(struct tcp_reasm *r)
{
    if (!r)
        return;
    free(r->ck);
    free(r->data);
    free(r);
}

/* Steps 0-5 for one segment (the top of the file); not inlined, so the
 * usual segment in tcp_reasm_push() does not pay for its registers. */
static __attribute__((noinline)) void
push_steps(struct tcp_reasm *r, struct tcp_half half[2], void *flow, unsigned dir,
           const struct l4_seg *seg, const struct timespec *ts, const struct stream_sink *out)
{
    struct tcp_half *h = &half[dir & 1];
    uint32_t s = seg->seq;
    uint32_t caplen = seg->payload.len > UINT32_MAX ? UINT32_MAX : (uint32_t)seg->payload.len;
    uint32_t wirelen = seg->payload_wirelen < caplen ? caplen : seg->payload_wirelen;
    const uint8_t *p = seg->payload.p;
    uint8_t fl = seg->tcp_flags;

    if (!p)
        caplen = 0;
    if (wirelen > 0x40000000u) { /* impossible for one segment: keep the 2^31 window sane */
        anomaly_add(r->an, ANOM_TCP_MALFORMED, 1);
        return;
    }

    /* 0. The ACK says what the peer had received of the other direction
     *    before it sent this segment: settle losses there first (step 6), so
     *    a reply is never delivered before the call it answers. An RST's ACK
     *    field is not reliable. */
    if ((fl & TCPF_ACK) && !(fl & TCPF_RST))
        ack_check(r, &half[(dir & 1) ^ 1], flow, (dir & 1) ^ 1, seg->ack, wirelen > 0, ts, out);

    /* 1. SYN: the stream starts at ISN + 1 (the SYN takes one sequence number). */
    if (fl & TCPF_SYN) {
        struct tcp_half *o = &half[(dir & 1) ^ 1];
        uint32_t isn1 = s + 1;
        bool synack = (fl & TCPF_ACK) != 0;

        if (!h->started && !h->reset && (synack || (!o->started && !o->reset))) {
            /* A fresh flow, or the handshake's answer to the opener's SYN. */
            start_syn(h, flow, dir & 1, s, synack, ts, out);
        } else if (h->started && !h->reset && !h->fin && !o->fin && h->has_isn &&
                   s == h->isn && h->next_seq == isn1) {
            /* The same SYN again, before any data: retransmitted. */
        } else {
            uint32_t d = seq_lt(isn1, h->next_seq) ? h->next_seq - isn1 : isn1 - h->next_seq;

            if (h->started && !h->reset && !h->fin && !o->fin && !(h->has_isn && s == h->isn) &&
                d <= r->half_max_bytes && wirelen > 0) {
                /* A SYN with data inside a synchronised stream: a corrupt
                 * segment. The receiver answers with a challenge ACK and
                 * drops it, data included (RFC 9293 §3.10.7.4, RFC 5961 §4),
                 * so its bytes are not stream bytes. A bare SYN there is a
                 * client that lost its connection and opens a new one from
                 * the same port (it answers the challenge ACK with an RST
                 * and sends the SYN again): a new connection. */
                anomaly_add(r->an, ANOM_TCP_MALFORMED, 1);
                return;
            }
            /* The old connection is over (FIN, RST, its ISN replayed after
             * data, or a new ISN): a new one on the same ports. Its opener
             * sent the SYN; a SYN-ACK answers one the capture missed. */
            end_conn(r, half, flow, ts, out);
            emit_event(out, flow, synack ? (dir & 1) ^ 1 : dir & 1, TCP_EV_NEW, ts);
            start_syn(h, flow, dir & 1, s, synack, ts, out);
        }
        s = isn1;
    }

    /* 2. Mid-stream start: the first data segment defines the stream. Data
     *    on an RST is diagnostic text, not stream bytes (RFC 9293 §3.5.3). */
    if (wirelen > 0 && !(fl & TCPF_RST)) {
        if (h->tomb && !seq_lt(h->next_seq, s + wirelen) &&
            h->next_seq - s <= r->half_max_bytes) {
            /* After a reset: a late copy of the old stream's bytes. */
            anomaly_add(r->an, ANOM_TCP_RETRANSMIT, 1);
            return;
        }
        h->tomb = 0;
        if (!h->started) {
            h->next_seq = s;
            h->started = 1;
        }
        push_data(r, h, flow, dir & 1, s, p, caplen, wirelen, ts, out); /* 3, 4 */
    }

    /* 5. FIN: nothing more will come this way; deliver what is buffered. */
    if ((fl & TCPF_FIN) && !(fl & TCPF_RST) && h->started) {
        uint32_t fin_seq = s + wirelen;

        tcp_reasm_flush(r, h, flow, dir & 1, ts, out);
        if (!seq_lt(fin_seq, h->next_seq)) {
            if (seq_lt(h->next_seq, fin_seq)) { /* bytes before the FIN never came */
                anomaly_add(r->an, ANOM_TCP_GAP, 1);
                trouble(h, ts);
                skip_to(r, h, flow, dir & 1, fin_seq, ts, out);
            }
            h->next_seq = fin_seq + 1; /* the FIN takes one sequence number */
            if (!h->fin)
                emit_event(out, flow, dir & 1, TCP_EV_END, ts);
            h->fin = 1;
        }
    }

    /* RST: the connection is over, both ways, when its sequence number is
     * the next expected (or ahead: bytes before it were not captured). One
     * behind is ignored, as the receiver would (RFC 5961 §3.2). */
    if ((fl & TCPF_RST) &&
        (!h->started || (!seq_lt(s, h->next_seq) && s - h->next_seq <= r->half_max_bytes))) {
        uint32_t end[2] = { half[0].next_seq, half[1].next_seq };
        uint8_t was[2] = { half[0].started, half[1].started };

        end_conn(r, half, flow, ts, out);
        for (unsigned d = 0; d < 2; d++) {
            half[d].reset = 1;
            half[d].tomb = was[d];
            half[d].next_seq = end[d];
        }
    }
}

void
tcp_reasm_push(struct tcp_reasm *r, struct tcp_half half[2], void *flow, unsigned dir,
               const struct l4_seg *seg, const struct timespec *ts, const struct stream_sink *out)
{
    struct tcp_half *h = &half[dir & 1];
    const struct tcp_half *o = &half[(dir & 1) ^ 1];
    size_t n = seg->payload.len;

    /* The usual segment: an ACK carrying the next bytes of a started
     * direction, all captured, no SYN, FIN or RST, nothing buffered either
     * way and its ACK not past what the other direction has delivered (step
     * 6 finds nothing to do). Of steps 0-5 only this is left of it: */
    if ((seg->tcp_flags & (TCPF_SYN | TCPF_FIN | TCPF_RST | TCPF_ACK)) == TCPF_ACK && seg->payload.p &&
        n == seg->payload_wirelen && n > 0 && n <= 0x40000000u && h->started &&
        seg->seq == h->next_seq && h->ooo_count == 0 && o->ooo_count == 0 &&
        (!o->started || !seq_lt(o->next_seq, seg->ack))) {
        h->tomb = 0;
        emit_data(out, flow, dir & 1, seg->payload.p, n, ts);
        h->next_seq += (uint32_t)n;
        return;
    }
    push_steps(r, half, flow, dir, seg, ts, out);
}

void
tcp_reasm_flush(struct tcp_reasm *r, struct tcp_half *h, void *flow, unsigned dir,
                const struct timespec *ts, const struct stream_sink *out)
{
    while (h->ooo_count > 0) {
        uint32_t first = r->ck[h->ooo_first].seq;

        if (seq_lt(h->next_seq, first))
            anomaly_add(r->an, ANOM_TCP_GAP, 1);
        skip_to(r, h, flow, dir, first, ts, out);
    }
}

void
tcp_reasm_release(struct tcp_reasm *r, struct tcp_half *h)
{
    while (h->ooo_count > 0)
        pop_first(r, h);
    memset(h, 0, sizeof *h);
    h->ooo_first = TCP_NONE;
}

size_t
tcp_reasm_buffered(const struct tcp_reasm *r)
{
    return r ? r->buffered : 0;
}
