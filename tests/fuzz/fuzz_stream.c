/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_stream.c: TCP byte streams in both directions, cut into segments.
 *
 * The input is split on the 4-byte magic "\1PKT" (Zeek's FuzzBuffer). Bytes
 * before the first magic are one client segment. After each magic:
 *   byte 0 (flags):
 *     0x01 DIR    server -> client (else client -> server)
 *     0x02 SYN    a SYN (SYN+ACK from the server) first; if this direction
 *                 already sent data its sequence jumps ahead (a new incarnation)
 *     0x04 FIN    FIN on the data segment
 *     0x08 NOACK  no ACK flag
 *     0x10 TRUNC  only half of the payload is captured (caplen < wirelen)
 *     0x20 HOLD   sent after the next segment (out of order)
 *     0x40 LOSE   never captured: the sequence advances, the bytes are lost
 *     0x80 RST    RST on the data segment
 *   byte 1 (extra):
 *     bits 0-3    time since the previous segment: 0 = 1 ms, k = 4^k ms
 *     bits 4-6    connection: client port 700 + k (8 > max_flows: eviction)
 *     bit 7       ACK leads the peer's stream by 3 KiB (loss seen by ACK)
 *   then the TCP payload, up to the next magic.
 * Sequence numbers stay consistent per connection and direction (the client
 * starts just below 2^32 so they wrap). Each segment becomes an Ethernet/
 * IPv4/TCP frame fed to pipeline_packet(), so link, IP, flow, tcp_reasm,
 * rpc_rm, rpc_match, the dissectors and the stats all run. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "pipeline.h"
#include "view.h"

#define MAGIC      "\1PKT"
#define MAGIC_LEN  4
#define NCONN      8
#define HDR_LEN    54 /* Ethernet 14 + IPv4 20 + TCP 20 */
#define MAX_SEG    65000u

enum { F_DIR = 0x01, F_SYN = 0x02, F_FIN = 0x04, F_NOACK = 0x08, F_TRUNC = 0x10, F_HOLD = 0x20,
       F_LOSE = 0x40, F_RST = 0x80 };

struct conn {
    uint32_t next[2]; /* next sequence number each direction will send */
    bool sent[2];     /* data or SYN sent already */
};

struct frame {
    uint8_t buf[HDR_LEN + MAX_SEG];
    uint32_t caplen, wirelen;
};

struct stream_fuzz {
    struct nfsscope_ctx ctx;
    struct conn conn[NCONN];
    struct timespec ts;
    struct frame held; /* a HOLD segment waiting for the next one */
    bool have_held;
    struct frame cur;
};

static void
put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint16_t
ip_checksum(const uint8_t *ip)
{
    uint32_t sum = 0;
    unsigned i;

    for (i = 0; i < 20; i += 2)
        sum += (uint32_t)ip[i] << 8 | ip[i + 1];
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

static void
build(struct frame *f, unsigned conn, unsigned dir, uint32_t seq, uint32_t ack, uint8_t tcpf,
      const uint8_t *payload, uint32_t len, bool trunc)
{
    static const uint8_t mac_c[6] = { 2, 0, 0, 0, 0, 1 }, mac_s[6] = { 2, 0, 0, 0, 0, 2 };
    static const uint8_t ip_c[4] = { 10, 0, 0, 1 }, ip_s[4] = { 10, 0, 0, 2 };
    uint8_t *e = f->buf, *ip = e + 14, *tcp = ip + 20;
    uint16_t cport = (uint16_t)(700 + conn), sport = 2049;

    memcpy(e, dir ? mac_c : mac_s, 6);
    memcpy(e + 6, dir ? mac_s : mac_c, 6);
    put16(e + 12, 0x0800);
    ip[0] = 0x45;
    ip[1] = 0;
    put16(ip + 2, 40 + len);
    put16(ip + 4, 0);
    put16(ip + 6, 0x4000); /* DF */
    ip[8] = 64;
    ip[9] = 6;
    put16(ip + 10, 0);
    memcpy(ip + 12, dir ? ip_s : ip_c, 4);
    memcpy(ip + 16, dir ? ip_c : ip_s, 4);
    put16(ip + 10, ip_checksum(ip));
    put16(tcp, dir ? sport : cport);
    put16(tcp + 2, dir ? cport : sport);
    put32(tcp + 4, seq);
    put32(tcp + 8, ack);
    tcp[12] = 5 << 4;
    tcp[13] = tcpf;
    put16(tcp + 14, 65535);
    put16(tcp + 16, 0);
    put16(tcp + 18, 0);
    if (len)
        memcpy(tcp + 20, payload, len);
    f->wirelen = HDR_LEN + len;
    f->caplen = trunc ? HDR_LEN + len / 2 : f->wirelen;
}

static void
send_frame(struct stream_fuzz *sf, const struct frame *f)
{
    struct pkt p;

    p.frame = 0; /* not from a file */
    p.ts = sf->ts;
    p.data = f->buf;
    p.caplen = f->caplen;
    p.wirelen = f->wirelen;
    p.dlt = 1; /* DLT_EN10MB */
    pipeline_packet(&sf->ctx, &p);
}

static void
advance_time(struct timespec *ts, unsigned k)
{
    uint64_t ms = (uint64_t)1 << (2 * k); /* 4^k ms, at most ~12 days */

    ts->tv_sec += (time_t)(ms / 1000);
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_nsec -= 1000000000L;
        ts->tv_sec++;
    }
}

static void
segment(struct stream_fuzz *sf, uint8_t flags, uint8_t extra, const uint8_t *payload,
        size_t len)
{
    unsigned dir = flags & F_DIR, ci = (extra >> 4) & 7;
    struct conn *c = &sf->conn[ci];
    uint32_t ack;
    uint8_t tcpf = 0;

    advance_time(&sf->ts, extra & 15);
    if (flags & F_SYN && !(flags & F_RST)) {
        if (c->sent[dir])
            c->next[dir] += 0x40000000u; /* a new incarnation, far away */
        build(&sf->cur, ci, dir, c->next[dir] - 1, c->next[dir ^ 1],
              (uint8_t)(TCPF_SYN | (dir ? TCPF_ACK : 0)), NULL, 0, false);
        send_frame(sf, &sf->cur);
        c->sent[dir] = true;
    }
    do {
        uint32_t n = len > MAX_SEG ? MAX_SEG : (uint32_t)len;
        bool last = n == len;

        ack = c->next[dir ^ 1] + (extra & 0x80 ? 3072u : 0u);
        tcpf = flags & F_NOACK ? 0 : TCPF_ACK;
        if (n)
            tcpf |= TCPF_PSH;
        if (last && flags & F_FIN)
            tcpf |= TCPF_FIN;
        if (last && flags & F_RST)
            tcpf |= TCPF_RST;
        if (!(flags & F_LOSE)) {
            build(&sf->cur, ci, dir, c->next[dir], ack, tcpf, payload, n, flags & F_TRUNC);
            if (flags & F_HOLD) {
                if (sf->have_held)
                    send_frame(sf, &sf->held);
                sf->held = sf->cur;
                sf->have_held = true;
            } else {
                send_frame(sf, &sf->cur);
                if (sf->have_held) {
                    send_frame(sf, &sf->held);
                    sf->have_held = false;
                }
            }
        }
        c->next[dir] += n + (last && flags & F_FIN ? 1u : 0u);
        c->sent[dir] = true;
        payload += n;
        len -= n;
    } while (len > 0);
}

static const uint8_t *
find_magic(const uint8_t *p, const uint8_t *end)
{
    while ((size_t)(end - p) >= MAGIC_LEN) {
        const uint8_t *m = memchr(p, MAGIC[0], (size_t)(end - p) - (MAGIC_LEN - 1));
        if (!m)
            return NULL;
        if (memcmp(m, MAGIC, MAGIC_LEN) == 0)
            return m;
        p = m + 1;
    }
    return NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct nfsscope_config cfg;
    static struct stream_fuzz sf; /* ~130 KiB of frame buffers: not on the stack */
    const uint8_t *p = data, *end = data + size, *m;
    unsigned i;

    fuzz_small_config(&cfg);
    if (pipeline_init(&sf.ctx, &cfg) != 0)
        abort();
    for (i = 0; i < NCONN; i++) {
        sf.conn[i].next[0] = 0xfffff000u + i * 0x100u; /* wraps after a few KiB */
        sf.conn[i].next[1] = 0x7ffff800u - i * 0x10000u;
        sf.conn[i].sent[0] = sf.conn[i].sent[1] = false;
    }
    sf.ts.tv_sec = 1700000000;
    sf.ts.tv_nsec = 0;
    sf.have_held = false;

    m = find_magic(p, end);
    if (m != p) /* leading bytes: a plain client segment */
        segment(&sf, 0, 0, p, (size_t)((m ? m : end) - p));
    while (m) {
        const uint8_t *body = m + MAGIC_LEN;
        uint8_t flags = body < end ? body[0] : 0;
        uint8_t extra = body + 1 < end ? body[1] : 0;

        body = body + 2 <= end ? body + 2 : end;
        m = find_magic(body, end);
        segment(&sf, flags, extra, body, (size_t)((m ? m : end) - body));
    }
    if (sf.have_held)
        send_frame(&sf, &sf.held);
    pipeline_finish(&sf.ctx);
    if (getenv("NFSSCOPE_FUZZ_REPORT")) /* inspecting a corpus file by hand */
        report_text_view.report(stdout, &sf.ctx.stats,
                                &(struct view_info){ .findings = sf.ctx.findings,
                                                     .lockwait = sf.ctx.lockwait,
                                                     .nfs4_state = sf.ctx.nfs4_state });
    pipeline_fini(&sf.ctx);
    return 0;
}
