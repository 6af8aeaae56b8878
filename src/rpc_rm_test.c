/* SPDX-License-Identifier: BSD-3-Clause */
/* rpc_rm_test.c: unit tests for RPC record marking (RFC 5531 §11). */
#include "rpc_rm.h"

#include <stdlib.h>

#include "t.h"
#include "tcp_reasm.h"

/* Test probe: msg_type (bytes 4..7) is CALL (0) or REPLY (1); a call has
 * rpcvers (bytes 8..11) == 2 (RFC 5531 §9). */
static bool
test_probe(const uint8_t *p, size_t n, uint32_t msg_len)
{
    (void)msg_len;
    if (n < 8 || p[4] || p[5] || p[6] || p[7] > 1)
        return false;
    if (p[7] == 1)
        return true;
    return n >= 12 && p[8] == 0 && p[9] == 0 && p[10] == 0 && p[11] == 2;
}

#define MAXMSG 64
struct got {
    size_t n;
    struct {
        uint8_t head[2048];
        size_t head_len;
        const uint8_t *head_p;
        uint32_t msg_len;
        bool partial, body_gap;
        uint8_t tail[4096];
        size_t tail_len;
        const uint8_t *tail_p;
        uint32_t tail_off;
        long t_first, t_last;
        unsigned dir;
    } m[MAXMSG];
};

static struct got G;

static void
on_msg(void *ctx, void *flow, unsigned dir, const struct rpc_msg_view *v)
{
    struct got *g = ctx;

    (void)flow;
    if (g->n >= MAXMSG)
        return;
    g->m[g->n].head_len = v->head.len;
    g->m[g->n].head_p = v->head.p;
    if (v->head.len)
        memcpy(g->m[g->n].head, v->head.p, v->head.len < 2048 ? v->head.len : 2048);
    g->m[g->n].tail_len = v->tail.len;
    g->m[g->n].tail_p = v->tail.p;
    g->m[g->n].tail_off = v->tail_off;
    if (v->tail.len)
        memcpy(g->m[g->n].tail, v->tail.p, v->tail.len < 4096 ? v->tail.len : 4096);
    CHECK(v->tail.len == 0 || v->tail_off + v->tail.len == v->msg_len); /* it ends the message */
    CHECK(v->tail.len == 0 || v->tail_off >= v->head.len);              /* past the head */
    g->m[g->n].msg_len = v->msg_len;
    g->m[g->n].partial = v->head_partial;
    g->m[g->n].body_gap = v->body_gap;
    g->m[g->n].t_first = (long)v->ts_first.tv_sec;
    g->m[g->n].t_last = (long)v->ts_last.tv_sec;
    g->m[g->n].dir = dir;
    g->n++;
}

static struct anomalies an;
static struct rpc_rm_pool *pool;
static struct rpc_rm rm;

static void
fresh_tail(size_t head_max, size_t heads, size_t tail_max)
{
    struct rpc_rm_config cfg = { head_max, heads, 1u << 20, test_probe, 0, 0, NULL, tail_max };

    if (pool)
        rpc_rm_release(pool, &rm);
    rpc_rm_pool_free(pool);
    memset(&an, 0, sizeof an);
    memset(&rm, 0, sizeof rm);
    memset(&G, 0, sizeof G);
    pool = rpc_rm_pool_new(&cfg, &an);
    CHECK(pool != NULL);
}

/* Wide heads: the xids the "matcher" wants kept wide, and how often it was asked. */
static uint32_t wide_xid = 0x77;
static unsigned wide_asked;

static bool
test_wide(void *ctx, void *flow, unsigned dir, uint32_t xid)
{
    (void)flow;
    (void)dir;
    CHECK(ctx == &G); /* the deliver ctx */
    wide_asked++;
    return xid == wide_xid;
}

static void
fresh_wide(size_t head_max, size_t heads, size_t wide_max, size_t wide_slots)
{
    struct rpc_rm_config cfg = { head_max, heads, 1u << 20, test_probe, wide_max, wide_slots,
                                 test_wide, 0 };

    if (pool)
        rpc_rm_release(pool, &rm);
    rpc_rm_pool_free(pool);
    memset(&an, 0, sizeof an);
    memset(&rm, 0, sizeof rm);
    memset(&G, 0, sizeof G);
    wide_asked = 0;
    pool = rpc_rm_pool_new(&cfg, &an);
    CHECK(pool != NULL);
}

static void
fresh(size_t head_max, size_t heads)
{
    fresh_tail(head_max, heads, 0);
}

static struct timespec
T(long s)
{
    struct timespec ts = { s, 0 };
    return ts;
}

static void
feed(const uint8_t *p, size_t n, long t)
{
    struct bytes b = { p, n };
    struct timespec ts = T(t);

    rpc_rm_feed(pool, &rm, NULL, 0, b, &ts, on_msg, &G);
}

static void
gap(uint64_t n, long t)
{
    struct timespec ts = T(t);

    rpc_rm_gap(pool, &rm, NULL, 0, n, &ts, on_msg, &G);
}

static void
put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* An RPC message body of len bytes (len >= 12): xid, msg_type, rpcvers 2,
 * then filler bytes derived from xid. */
static void
body(uint8_t *p, uint32_t len, uint32_t xid, uint32_t type)
{
    put32(p, xid);
    put32(p + 4, type);
    put32(p + 8, 2);
    for (uint32_t i = 12; i < len; i++)
        p[i] = (uint8_t)(0x80 | ((xid + i) & 0x3f)); /* never looks like a small mark */
}

/* A single-fragment record: mark + body. Returns bytes written. */
static size_t
record(uint8_t *p, uint32_t len, uint32_t xid, uint32_t type)
{
    put32(p, 0x80000000u | len);
    body(p + 4, len, xid, type);
    return 4 + len;
}

static void
test_one_record_zero_copy(void)
{
    uint8_t buf[200];
    size_t n;

    fresh(1024, 8);
    n = record(buf, 100, 0x11, 0);
    feed(buf, n, 5);
    EQ(G.n, 1);
    EQ(G.m[0].msg_len, 100);
    EQ(G.m[0].head_len, 100);
    CHECK(G.m[0].head_p == buf + 4); /* a view into the chunk */
    CHECK(!G.m[0].partial && !G.m[0].body_gap);
    EQ(G.m[0].t_first, 5);
    EQ(G.m[0].t_last, 5);
    CHECK(memcmp(G.m[0].head, buf + 4, 100) == 0);
    EQ(an.n[ANOM_RPC_RESYNC], 0); /* initial sync at a boundary is not a resync */
    EQ(an.n[ANOM_RPC_SKIPPED_BYTES], 0);
}

static void
test_mark_split(void)
{
    uint8_t buf[200];
    size_t n;

    for (size_t k = 1; k <= 3; k++) {
        fresh(1024, 8);
        n = record(buf, 60, 0x22, 1);
        n += record(buf + n, 40, 0x23, 0);
        feed(buf, 64, 1);          /* the first record */
        feed(buf + 64, k, 2);      /* k bytes of the second mark */
        feed(buf + 64 + k, n - 64 - k, 3);
        EQ(G.n, 2);
        EQ(G.m[1].msg_len, 40);
        CHECK(G.m[1].head_p == buf + 68); /* still one chunk for the message */
        CHECK(memcmp(G.m[1].head, buf + 68, 40) == 0);
        EQ(G.m[1].t_first, 3);
        EQ(G.m[1].t_last, 3);
        EQ(an.n[ANOM_RPC_RESYNC] + an.n[ANOM_RPC_BAD_MARK] + an.n[ANOM_RPC_SKIPPED_BYTES], 0);
    }
    /* the split also at the very start of the stream (the probe carries it) */
    for (size_t k = 1; k <= 3; k++) {
        fresh(1024, 8);
        n = record(buf, 60, 0x24, 0);
        feed(buf, k, 1);
        feed(buf + k, n - k, 2);
        EQ(G.n, 1);
        EQ(G.m[0].msg_len, 60);
        CHECK(memcmp(G.m[0].head, buf + 4, 60) == 0);
        EQ(an.n[ANOM_RPC_RESYNC] + an.n[ANOM_RPC_SKIPPED_BYTES], 0);
    }
}

static void
test_body_split_latency(void)
{
    uint8_t buf[400];
    size_t n;

    fresh(1024, 8);
    n = record(buf, 300, 0x31, 0);
    feed(buf, 50, 10);
    feed(buf + 50, 100, 11);
    EQ(G.n, 0);
    feed(buf + 150, n - 150, 12);
    EQ(G.n, 1);
    EQ(G.m[0].t_first, 10);
    EQ(G.m[0].t_last, 12); /* the packet completing the message */
    EQ(G.m[0].head_len, 300);
    CHECK(G.m[0].head_p < buf || G.m[0].head_p >= buf + sizeof buf); /* copied */
    CHECK(memcmp(G.m[0].head, buf + 4, 300) == 0);
}

static void
test_several_in_one(void)
{
    uint8_t buf[400];
    size_t n = 0;

    fresh(1024, 8);
    n += record(buf + n, 24, 1, 1);
    n += record(buf + n, 100, 2, 0);
    n += record(buf + n, 40, 3, 1);
    feed(buf, n, 4);
    EQ(G.n, 3);
    EQ(G.m[0].msg_len, 24);
    EQ(G.m[1].msg_len, 100);
    EQ(G.m[2].msg_len, 40);
    CHECK(G.m[0].head_p == buf + 4);
    CHECK(G.m[1].head_p == buf + 32);
    CHECK(G.m[2].head_p == buf + 136);
    EQ(G.m[2].head[3], 3);
}

static void
test_multi_fragment(void)
{
    uint8_t buf[300], msg[120];
    size_t n = 0;

    fresh(1024, 8);
    body(msg, 120, 0x41, 0);
    put32(buf + n, 50); /* not last */
    memcpy(buf + n + 4, msg, 50);
    n += 54;
    put32(buf + n, 0); /* an empty middle fragment */
    n += 4;
    put32(buf + n, 0x80000000u | 70);
    memcpy(buf + n + 4, msg + 50, 70);
    n += 74;
    feed(buf, n, 1);
    EQ(G.n, 1);
    EQ(G.m[0].msg_len, 120);
    EQ(G.m[0].head_len, 120);
    CHECK(memcmp(G.m[0].head, msg, 120) == 0); /* marks removed */
    /* and split across chunks at every position */
    for (size_t cut = 1; cut < n; cut++) {
        fresh(1024, 8);
        feed(buf, cut, 1);
        feed(buf + cut, n - cut, 2);
        EQ(G.n, 1);
        EQ(G.m[0].msg_len, 120);
        CHECK(G.m[0].head_len == 120 && memcmp(G.m[0].head, msg, 120) == 0);
    }
    /* head within the first fragment: head_max 16 */
    fresh(16, 8);
    feed(buf, n, 1);
    EQ(G.n, 1);
    EQ(G.m[0].head_len, 16);
    CHECK(!G.m[0].partial);
    CHECK(memcmp(G.m[0].head, msg, 16) == 0);
    /* head spanning fragments: head_max 60 */
    fresh(60, 8);
    feed(buf, 30, 1);
    feed(buf + 30, n - 30, 2);
    EQ(G.n, 1);
    EQ(G.m[0].head_len, 60);
    CHECK(memcmp(G.m[0].head, msg, 60) == 0);
}

static void
test_large_skip(void)
{
    static uint8_t buf[5000];
    size_t n;

    fresh(64, 8);
    n = record(buf, 4900, 0x51, 1);
    for (size_t off = 0; off < n; off += 100)
        feed(buf + off, n - off < 100 ? n - off : 100, (long)off);
    EQ(G.n, 1);
    EQ(G.m[0].msg_len, 4900);
    EQ(G.m[0].head_len, 64);
    CHECK(!G.m[0].partial);
    CHECK(memcmp(G.m[0].head, buf + 4, 64) == 0);
    EQ(G.m[0].t_first, 0);
    EQ(G.m[0].t_last, 4900);
}

static void
test_gap_body_and_head(void)
{
    uint8_t buf[600];
    size_t n = 0;

    /* gap in the body past the head: delivered, body_gap */
    fresh(64, 8);
    n = record(buf, 200, 0x61, 0);
    n += record(buf + n, 30, 0x62, 1);
    feed(buf, 100, 1);
    gap(50, 2);
    feed(buf + 150, n - 150, 3);
    EQ(G.n, 2);
    EQ(G.m[0].msg_len, 200);
    CHECK(G.m[0].body_gap && !G.m[0].partial);
    EQ(G.m[0].head_len, 64);
    EQ(G.m[0].t_last, 3);
    EQ(G.m[1].msg_len, 30);
    CHECK(!G.m[1].body_gap);
    EQ(an.n[ANOM_RPC_RESYNC], 0);

    /* gap inside the head: head_partial, position kept */
    fresh(64, 8);
    feed(buf + 204, 34, 1); /* sync on record #2 first */
    feed(buf, 24, 1);       /* mark + 20 bytes */
    gap(30, 2);
    feed(buf + 54, n - 54, 3);
    EQ(G.n, 3);
    CHECK(G.m[1].partial);
    CHECK(G.m[1].body_gap == false);
    EQ(G.m[1].head_len, 20);
    CHECK(memcmp(G.m[1].head, buf + 4, 20) == 0);
    EQ(G.m[1].msg_len, 200);
    EQ(G.m[2].msg_len, 30);
    EQ(an.n[ANOM_RPC_RESYNC], 0);

    /* gap ending exactly at the end of the message: delivered at the gap */
    fresh(64, 8);
    feed(buf, 150, 1);
    gap(54, 4);
    EQ(G.n, 1);
    EQ(G.m[0].t_last, 4);
    CHECK(G.m[0].body_gap);
    feed(buf + 204, n - 204, 5);
    EQ(G.n, 2);
    EQ(an.n[ANOM_RPC_RESYNC], 0);
}

static void
test_gap_over_mark(void)
{
    uint8_t buf[600];
    size_t n = 0, b2, b3;

    fresh(64, 8);
    n = record(buf, 100, 0x71, 0);
    b2 = n;
    n += record(buf + n, 100, 0x72, 1);
    b3 = n;
    n += record(buf + n, 40, 0x73, 0);
    feed(buf, 90, 1);
    gap(b2 + 30 - 90, 2); /* the end of #1, mark of #2, start of #2 */
    feed(buf + b2 + 30, n - b2 - 30, 3);
    EQ(G.n, 2);
    EQ(G.m[0].msg_len, 100); /* #1 still ends where its mark said */
    CHECK(G.m[0].body_gap);
    EQ(G.m[0].t_last, 2);
    EQ(G.m[1].msg_len, 40); /* #3, found by the probe */
    EQ(G.m[1].head[3], 0x73);
    EQ(an.n[ANOM_RPC_RESYNC], 1);
    EQ(an.n[ANOM_RPC_SKIPPED_BYTES], b3 - b2 - 30);

    /* a gap inside a mark */
    fresh(64, 8);
    feed(buf, b2 + 2, 1);
    gap(1, 2);
    feed(buf + b2 + 3, n - b2 - 3, 3);
    EQ(G.n, 2);
    EQ(G.m[1].msg_len, 40);
    EQ(an.n[ANOM_RPC_RESYNC], 1);
}

static void
test_junk_and_midrecord(void)
{
    uint8_t buf[600];
    size_t n;

    fresh(1024, 8);
    for (size_t i = 0; i < 13; i++)
        buf[i] = (uint8_t)(0x90 + i);
    n = 13 + record(buf + 13, 50, 0x81, 0);
    feed(buf, n, 1);
    EQ(G.n, 1);
    EQ(G.m[0].msg_len, 50);
    EQ(an.n[ANOM_RPC_SKIPPED_BYTES], 13);
    EQ(an.n[ANOM_RPC_RESYNC], 1);

    /* capture starts in the middle of a record */
    fresh(1024, 8);
    n = record(buf, 200, 0x82, 0);
    n += record(buf + n, 60, 0x83, 1);
    feed(buf + 77, 100, 1);
    feed(buf + 177, n - 177, 2);
    EQ(G.n, 1);
    EQ(G.m[0].msg_len, 60);
    EQ(G.m[0].head[3], 0x83);
    EQ(an.n[ANOM_RPC_SKIPPED_BYTES], 204 - 77);

    /* a candidate close to the end of a chunk is carried to the next one */
    fresh(1024, 8);
    for (size_t i = 0; i < 10; i++)
        buf[i] = 0xee;
    n = 10 + record(buf + 10, 50, 0x84, 0);
    feed(buf, 16, 1); /* junk + mark + 2 bytes */
    EQ(G.n, 0);
    feed(buf + 16, 3, 2);
    feed(buf + 19, n - 19, 3);
    EQ(G.n, 1);
    EQ(G.m[0].msg_len, 50);
    CHECK(memcmp(G.m[0].head, buf + 14, 50) == 0);
    EQ(G.m[0].t_first, 1);
    EQ(an.n[ANOM_RPC_SKIPPED_BYTES], 10);
}

static void
test_bad_marks(void)
{
    uint8_t buf[600];
    size_t n;

    fresh(1024, 8);
    n = record(buf, 30, 0x91, 0);
    put32(buf + n, 0xffffffffu); /* absurd length */
    n += 4;
    memset(buf + n, 0xab, 20);
    n += 20;
    n += record(buf + n, 30, 0x92, 1);
    feed(buf, n, 1);
    EQ(G.n, 2);
    EQ(G.m[1].head[3], 0x92);
    EQ(an.n[ANOM_RPC_BAD_MARK], 1);
    EQ(an.n[ANOM_RPC_RESYNC], 1);
    EQ(an.n[ANOM_RPC_SKIPPED_BYTES], 20);

    /* a whole record of 4 bytes: no room for xid and msg_type (a first
     * fragment that small is legal only when more fragments follow) */
    fresh(1024, 8);
    n = record(buf, 30, 0x93, 0);
    put32(buf + n, 0x80000004u);
    n += 8;
    n += record(buf + n, 30, 0x94, 1);
    feed(buf, n, 1);
    EQ(G.n, 2);
    EQ(an.n[ANOM_RPC_BAD_MARK], 1);

    /* nothing plausible at all */
    fresh(1024, 8);
    memset(buf, 0x7f, 300);
    feed(buf, 300, 1);
    EQ(G.n, 0);
    EQ(an.n[ANOM_RPC_SKIPPED_BYTES], 297); /* 3 bytes kept: they might start a mark */
    rpc_rm_release(pool, &rm);
    EQ(an.n[ANOM_RPC_SKIPPED_BYTES], 300);
}

static void
test_pool_full(void)
{
    uint8_t buf[200];
    size_t n;
    struct rpc_rm rm2;
    struct timespec ts = T(1);
    struct bytes b;

    fresh(1024, 1);
    memset(&rm2, 0, sizeof rm2);
    n = record(buf, 100, 0xa1, 0);
    feed(buf, 50, 1); /* rm holds the only slot */
    b.p = buf;
    b.len = 50;
    rpc_rm_feed(pool, &rm2, NULL, 1, b, &ts, on_msg, &G);
    b.p = buf + 50;
    b.len = n - 50;
    rpc_rm_feed(pool, &rm2, NULL, 1, b, &ts, on_msg, &G);
    EQ(G.n, 1);
    CHECK(G.m[0].partial);
    EQ(G.m[0].head_len, 0);
    EQ(G.m[0].msg_len, 100);
    EQ(an.n[ANOM_RPC_HEAD_POOL_FULL], 1);
    feed(buf + 50, n - 50, 2);
    EQ(G.n, 2);
    CHECK(!G.m[1].partial);
    EQ(G.m[1].head_len, 100);
    /* slots come back: a split message now gets one */
    rpc_rm_feed(pool, &rm2, NULL, 1, (struct bytes){ buf, 50 }, &ts, on_msg, &G);
    rpc_rm_feed(pool, &rm2, NULL, 1, (struct bytes){ buf + 50, n - 50 }, &ts, on_msg, &G);
    EQ(G.n, 3);
    EQ(G.m[2].head_len, 100);
    /* release drops a message in progress */
    rpc_rm_feed(pool, &rm2, NULL, 1, (struct bytes){ buf, 50 }, &ts, on_msg, &G);
    rpc_rm_release(pool, &rm2);
    EQ(an.n[ANOM_RPC_TRUNCATED], 1);
    feed(buf, 50, 3);
    feed(buf + 50, n - 50, 3);
    EQ(G.n, 4);
    EQ(G.m[3].head_len, 100);
}

/* tcp_reasm -> rpc_rm: out-of-order, retransmitted and snaplen-cut segments. */
static struct tcp_reasm *tr;

static void
s_data(void *ctx, void *flow, unsigned dir, struct bytes chunk, const struct timespec *ts)
{
    (void)ctx;
    rpc_rm_feed(pool, &rm, flow, dir, chunk, ts, on_msg, &G);
}

static void
s_gap(void *ctx, void *flow, unsigned dir, uint64_t n, const struct timespec *ts)
{
    (void)ctx;
    rpc_rm_gap(pool, &rm, flow, dir, n, ts, on_msg, &G);
}

static void
tpush(struct tcp_half *h, uint32_t seq, const uint8_t *p, size_t cap, size_t wire, long t)
{
    static const struct stream_sink out = { s_data, s_gap, NULL, NULL };
    struct l4_seg s;
    struct timespec ts = T(t);

    memset(&s, 0, sizeof s);
    s.seq = seq;
    s.tcp_flags = TCPF_ACK;
    s.payload.p = p;
    s.payload.len = cap;
    s.payload_wirelen = (uint32_t)wire;
    tcp_reasm_push(tr, h, NULL, 0, &s, &ts, &out);
}

static void
test_pipeline(void)
{
    struct tcp_reasm_config tc = { 1 << 16, 1 << 14 };
    struct tcp_half h[2];
    static uint8_t buf[2000];
    size_t n = 0, b2, b3;
    uint32_t isn = 0xfffffe00u; /* wraps inside the stream */

    tr = tcp_reasm_new(&tc, &an);
    fresh(64, 8);
    memset(h, 0, sizeof h);
    n = record(buf, 300, 0xb1, 0);
    b2 = n;
    n += record(buf + n, 500, 0xb2, 1);
    b3 = n;
    n += record(buf + n, 100, 0xb3, 0);
    n += record(buf + n, 60, 0xb4, 1);
    /* segments: [0,2) [2,200) [200,b2+2) then out of order */
    tpush(h, isn, buf, 2, 2, 1);
    tpush(h, isn + 200, buf + 200, b2 + 2 - 200, b2 + 2 - 200, 3); /* ooo */
    tpush(h, isn + 2, buf + 2, 198, 198, 2);
    EQ(G.n, 1);
    EQ(G.m[0].msg_len, 300);
    EQ(G.m[0].t_last, 2); /* completed by the packet that filled the hole */
    tpush(h, isn + 2, buf + 2, 198, 198, 4); /* retransmission: nothing new */
    EQ(G.n, 1);
    /* snaplen: 2 mark bytes + 38 of the 500-byte body captured; head_max 64 */
    tpush(h, isn + (uint32_t)b2 + 2, buf + b2 + 2, 40, b3 - b2 - 2, 5);
    EQ(G.n, 2);
    EQ(G.m[1].msg_len, 500);
    CHECK(G.m[1].body_gap && G.m[1].partial);
    EQ(G.m[1].head_len, 38);
    EQ(G.m[1].t_last, 5);
    /* the rest in one segment */
    tpush(h, isn + (uint32_t)b3, buf + b3, n - b3, n - b3, 6);
    EQ(G.n, 4);
    EQ(G.m[3].head[3], 0xb4);
    EQ(an.n[ANOM_RPC_RESYNC], 0);
    EQ(an.n[ANOM_TCP_RETRANSMIT], 1);
    tcp_reasm_release(tr, &h[0]);
    tcp_reasm_free(tr);
}

/* Random bytes, random splits and gaps: no crash, sane views. Then a valid
 * stream, randomly split: every message comes out exactly. */
static void
test_fuzz(void)
{
    static uint8_t buf[20000];
    unsigned seed = 4242;

    for (int round = 0; round < 300; round++) {
        size_t n = 1 + (size_t)rand_r(&seed) % sizeof buf, off = 0;
        size_t hm = round % 3 ? 1024 : 16;

        fresh(hm, round % 5 ? 16 : 1);
        for (size_t i = 0; i < n; i++) {
            int k = rand_r(&seed) % 8;
            /* small values make plausible marks and headers likely */
            buf[i] = k < 4 ? 0 : k == 4 ? (uint8_t)(rand_r(&seed) % 3) : (uint8_t)rand_r(&seed);
        }
        while (off < n) {
            size_t k = 1 + (size_t)rand_r(&seed) % 300;

            if (k > n - off)
                k = n - off;
            if (rand_r(&seed) % 10 == 0)
                gap(k, (long)off);
            else
                feed(buf + off, k, (long)off);
            off += k;
            G.n = 0;
        }
        rpc_rm_release(pool, &rm);
        CHECK(rm.state == 0 && rm.flags == 0);
    }

    for (int round = 0; round < 100; round++) {
        size_t n = 0, nmsg = 0, off = 0;
        uint32_t lens[40];

        fresh(round % 2 ? 64 : 1024, 4);
        while (nmsg < 40) {
            uint32_t len = (nmsg ? 12 : 20) + (uint32_t)rand_r(&seed) % 400;

            if (n + 4 + len > sizeof buf)
                break;
            n += record(buf + n, len, (uint32_t)nmsg, (uint32_t)rand_r(&seed) % 2);
            lens[nmsg++] = len;
        }
        while (off < n) {
            size_t k = 1 + (size_t)rand_r(&seed) % 200;

            if (k > n - off)
                k = n - off;
            feed(buf + off, k, (long)off);
            off += k;
        }
        EQ(G.n, nmsg > MAXMSG ? MAXMSG : nmsg);
        for (size_t i = 0; i < G.n; i++) {
            size_t want = lens[i] < (round % 2 ? 64u : 1024u) ? lens[i] : (round % 2 ? 64u : 1024u);

            EQ(G.m[i].msg_len, lens[i]);
            EQ(G.m[i].head_len, want);
            EQ(G.m[i].head[3], i);
        }
        EQ(an.n[ANOM_RPC_SKIPPED_BYTES] + an.n[ANOM_RPC_BAD_MARK], 0);
    }
}

/* A record of one message: mark (last fragment) + xid + msg_type + bytes
 * numbered by their offset. Returns its length. */
static size_t
wide_msg(uint8_t *b, uint32_t xid, uint32_t type, uint32_t len)
{
    uint32_t i;

    put32(b, 0x80000000u | len);
    for (i = 0; i < len; i++)
        b[4 + i] = (uint8_t)(i * 7 + 1);
    put32(b + 4, xid);
    put32(b + 8, type);
    put32(b + 12, 0); /* reply_stat MSG_ACCEPTED (calls: rpcvers below) */
    if (type == 0)
        put32(b + 12, 2);
    return 4 + len;
}

static bool
head_is(size_t k, const uint8_t *msg, size_t n)
{
    return G.m[k].head_len == n && memcmp(G.m[k].head, msg, n < 2048 ? n : 2048) == 0;
}

static void
test_wide_heads(void)
{
    static uint8_t b[3 * 4000];
    size_t n, i;
    struct rpc_rm rm2;

    /* One chunk: the view simply reaches wide_max. */
    fresh_wide(64, 4, 1024, 1);
    n = wide_msg(b, 0x77, 1, 3000);
    feed(b, n, 1);
    EQ(G.n, 1);
    CHECK(head_is(0, b + 4, 1024));
    CHECK(!G.m[0].partial);
    EQ(wide_asked, 1);
    /* Small chunks: the head is copied into the wide slot, byte for byte. */
    for (i = 0; i < n; i += 100)
        feed(b + i, n - i < 100 ? n - i : 100, 2);
    EQ(G.n, 2);
    CHECK(head_is(1, b + 4, 1024));
    CHECK(!G.m[1].partial);
    EQ(wide_asked, 2);
    /* A chunk ending exactly at head_max: widened from the normal slot. */
    feed(b, 4 + 64, 3);
    feed(b + 4 + 64, n - 4 - 64, 3);
    EQ(G.n, 3);
    CHECK(head_is(2, b + 4, 1024));
    EQ(wide_asked, 3);
    /* Not wanted (another xid): the normal head; a call: not even asked. */
    n = wide_msg(b, 0x78, 1, 3000);
    feed(b, n, 4);
    CHECK(head_is(3, b + 4, 64));
    EQ(wide_asked, 4);
    n = wide_msg(b, 0x77, 0, 3000);
    feed(b, n, 5);
    CHECK(head_is(4, b + 4, 64));
    EQ(wide_asked, 4);
    /* A message within head_max is never asked about. */
    n = wide_msg(b, 0x77, 1, 40);
    feed(b, n, 6);
    CHECK(head_is(5, b + 4, 40));
    EQ(wide_asked, 4);

    /* The only wide slot busy in another direction: the normal head, then
     * the slot comes back for the next message. */
    memset(&rm2, 0, sizeof rm2);
    rm2.head_slot = RPC_RM_NONE;
    n = wide_msg(b, 0x77, 1, 3000);
    feed(b, 200, 7); /* rm holds the wide slot, message in progress */
    {
        struct bytes c = { b, n };
        struct timespec ts = T(7);

        rpc_rm_feed(pool, &rm2, NULL, 1, c, &ts, on_msg, &G);
    }
    EQ(G.n, 7);
    CHECK(head_is(6, b + 4, 64));
    CHECK(!G.m[6].partial);
    feed(b + 200, n - 200, 8);
    EQ(G.n, 8);
    CHECK(head_is(7, b + 4, 1024));
    {
        struct bytes c = { b, n };
        struct timespec ts = T(9);

        rpc_rm_feed(pool, &rm2, NULL, 1, c, &ts, on_msg, &G);
    }
    EQ(G.n, 9);
    CHECK(head_is(8, b + 4, 1024));
    rpc_rm_release(pool, &rm2);
    /* A gap inside the wide part: the head is cut there, flagged partial. */
    feed(b, 500, 10);
    gap(100, 10);
    feed(b + 600, n - 600, 10);
    EQ(G.n, 10);
    CHECK(G.m[9].partial);
    EQ(G.m[9].head_len, 496);
    EQ(an.n[ANOM_RPC_HEAD_POOL_FULL], 0);
}

/* A message of len bytes split into fragments of `fl` bytes (the last one
 * shorter), each behind its mark. Returns bytes written. */
static size_t
frag_record(uint8_t *p, uint32_t len, uint32_t fl, uint32_t xid, uint32_t type)
{
    uint8_t msg[512];
    size_t n = 0;

    body(msg, len, xid, type);
    for (uint32_t off = 0; off < len; off += fl) {
        uint32_t k = len - off < fl ? len - off : fl;

        put32(p + n, (off + k == len ? 0x80000000u : 0) | k);
        memcpy(p + n + 4, msg + off, k);
        n += 4 + k;
    }
    return n;
}

/* Fragments of 1, 4 and 8 bytes are legal (RFC 5531 §11): found by the
 * probe at the start of a stream and after a resync. */
static void
test_tiny_fragments(void)
{
    static const uint32_t sizes[] = { 1, 4, 8 };
    uint8_t buf[4096], msg[64];

    for (unsigned k = 0; k < 3; k++) {
        { /* at the start of a stream */
            size_t n = 0;

            fresh(1024, 8);
            n += frag_record(buf + n, 40, sizes[k], 0x51, 0);
            n += frag_record(buf + n, 28, sizes[k], 0x52, 1);
            n += record(buf + n, 30, 0x53, 0);
            feed(buf, n, 1);
            EQ(G.n, 3);
            EQ(G.m[0].msg_len, 40);
            body(msg, 40, 0x51, 0);
            CHECK(G.m[0].head_len == 40 && memcmp(G.m[0].head, msg, 40) == 0);
            EQ(G.m[1].msg_len, 28);
            EQ(G.m[1].head[3], 0x52);
            EQ(G.m[2].head[3], 0x53);
            EQ(an.n[ANOM_RPC_RESYNC] + an.n[ANOM_RPC_BAD_MARK] + an.n[ANOM_RPC_SKIPPED_BYTES], 0);
            CHECK(rpc_rm_synced(&rm));
        }
        /* after a resync: junk, then tiny fragments, fed one byte at a time
         * (every candidate is carried across chunks) */
        {
            size_t n = 0;

            fresh(1024, 8);
            memset(buf, 0xee, 10);
            n = 10;
            n += frag_record(buf + n, 40, sizes[k], 0x61, 0);
            n += frag_record(buf + n, 24, sizes[k], 0x62, 1);
            for (size_t i = 0; i < n; i++)
                feed(buf + i, 1, (long)i);
            EQ(G.n, 2);
            EQ(G.m[0].msg_len, 40);
            body(msg, 40, 0x61, 0);
            CHECK(memcmp(G.m[0].head, msg, 40) == 0);
            EQ(G.m[1].head[3], 0x62);
            EQ(an.n[ANOM_RPC_SKIPPED_BYTES], 10);
            EQ(an.n[ANOM_RPC_RESYNC], 1);
            /* and after a gap that hides a mark */
            gap(3, 1000);
            n = frag_record(buf, 40, sizes[k], 0x63, 0);
            feed(buf, n, 1001);
            EQ(G.n, 3);
            EQ(G.m[2].head[3], 0x63);
            EQ(an.n[ANOM_RPC_RESYNC], 2);
        }
    }
    /* a small first fragment whose joined bytes the probe refuses: not a record */
    {
        size_t n;

        fresh(1024, 8);
        n = frag_record(buf, 40, 4, 0x71, 7); /* msg_type 7 */
        feed(buf, n, 1);
        EQ(G.n, 0);
        CHECK(an.n[ANOM_RPC_SKIPPED_BYTES] < n); /* the tail is kept: it might start a mark */
        rpc_rm_release(pool, &rm);
        EQ(an.n[ANOM_RPC_SKIPPED_BYTES], n);
    }
}

/* A message longer than its head keeps its last tail_max bytes: a view
 * when they lie in the chunk that ends it, else copied into its slot;
 * joined across fragments; cut by a gap to what follows the gap; none when
 * the message's end was lost. */
static void
test_tails(void)
{
    static uint8_t buf[8192];
    uint8_t msg[4096];
    size_t n;

    /* one chunk: both views; default tail_max 256 */
    fresh(1024, 8);
    n = record(buf, 3000, 0x81, 0);
    feed(buf, n, 1);
    EQ(G.n, 1);
    EQ(G.m[0].head_len, 1024);
    EQ(G.m[0].tail_len, 256);
    EQ(G.m[0].tail_off, 2744);
    CHECK(G.m[0].tail_p == buf + 4 + 2744);
    /* no tail for a message that fits its head; a short one just past it */
    n = record(buf, 1024, 0x82, 0);
    n += record(buf + n, 1030, 0x83, 1);
    feed(buf, n, 2);
    EQ(G.n, 3);
    EQ(G.m[1].tail_len, 0);
    EQ(G.m[2].tail_len, 6);
    EQ(G.m[2].tail_off, 1024);
    /* split over many chunks: copied, the same bytes */
    for (size_t step = 1; step <= 700; step = step * 3 + 1) {
        fresh_tail(1024, 8, 100);
        n = record(buf, 3000, 0x84, 0);
        body(msg, 3000, 0x84, 0);
        for (size_t at = 0; at < n; at += step)
            feed(buf + at, n - at < step ? n - at : step, (long)at);
        EQ(G.n, 1);
        EQ(G.m[0].tail_len, 100);
        EQ(G.m[0].tail_off, 2900);
        CHECK(memcmp(G.m[0].tail, msg + 2900, 100) == 0);
        CHECK(memcmp(G.m[0].head, msg, 1024) == 0);
    }
    /* fragments: a short last one joins the previous one's end */
    fresh_tail(64, 8, 50);
    body(msg, 300, 0x85, 0);
    put32(buf, 200);
    memcpy(buf + 4, msg, 200);
    put32(buf + 204, 0x80000000u | 100);
    memcpy(buf + 208, msg + 200, 100);
    feed(buf, 150, 1);
    feed(buf + 150, 100, 2);
    feed(buf + 250, 58, 3);
    EQ(G.n, 1);
    EQ(G.m[0].msg_len, 300);
    EQ(G.m[0].tail_len, 50);
    CHECK(memcmp(G.m[0].tail, msg + 250, 50) == 0);
    fresh_tail(64, 8, 150);
    feed(buf, 308, 1); /* one chunk, two fragments: joined in the slot */
    EQ(G.m[0].tail_len, 150);
    EQ(G.m[0].tail_off, 150);
    CHECK(memcmp(G.m[0].tail, msg + 150, 150) == 0);
    /* a gap in the tail: what follows it; a gap at the end: none */
    fresh_tail(64, 8, 100);
    n = record(buf, 1000, 0x86, 0);
    body(msg, 1000, 0x86, 0);
    feed(buf, 4 + 930, 1);
    gap(20, 2);
    feed(buf + 4 + 950, 50, 3);
    EQ(G.n, 1);
    CHECK(G.m[0].body_gap);
    EQ(G.m[0].tail_len, 50);
    EQ(G.m[0].tail_off, 950);
    CHECK(memcmp(G.m[0].tail, msg + 950, 50) == 0);
    feed(buf, 4 + 990, 4);
    gap(10, 5);
    EQ(G.n, 2);
    EQ(G.m[1].tail_len, 0);
    /* the pool empty: no head copy (counted), the tail still a view */
    fresh_tail(64, 1, 100);
    {
        struct rpc_rm other;
        struct bytes b;
        struct timespec ts = T(1);

        memset(&other, 0, sizeof other);
        n = record(buf, 1000, 0x87, 0);
        b.p = buf;
        b.len = 500;
        rpc_rm_feed(pool, &other, NULL, 1, b, &ts, on_msg, &G); /* holds the one slot */
        feed(buf, 500, 1);
        feed(buf + 500, n - 500, 2);
        EQ(G.n, 1);
        CHECK(G.m[0].partial);
        EQ(G.m[0].tail_len, 100); /* it lies in the chunk that ends it: a view */
        CHECK(G.m[0].tail_p == buf + 4 + 900);
        CHECK(an.n[ANOM_RPC_HEAD_POOL_FULL] >= 1);
        rpc_rm_release(pool, &other);
    }
    /* a wide head keeps its tail too */
    fresh_wide(64, 8, 512, 2);
    n = record(buf, 2000, wide_xid, 1);
    body(msg, 2000, wide_xid, 1);
    feed(buf, 700, 1);
    feed(buf + 700, n - 700, 2);
    EQ(G.n, 1);
    EQ(G.m[0].head_len, 512);
    EQ(G.m[0].tail_len, 256);
    CHECK(memcmp(G.m[0].tail, msg + 2000 - 256, 256) == 0);
}

/* A message wholly in one chunk, one fragment, no longer than its head is
 * delivered without the state machine's steps: it must look exactly as
 * those would make it. The same records fed in one chunk and a byte at a
 * time (every message then goes through the steps) give the same views and
 * counters, at the lengths around the shortcut's limits: the shortest
 * whole message (8), head_max and one past it, a message in two fragments,
 * a record too short to be RPC (a bad mark, then a resync). */
static void
test_whole_in_chunk(void)
{
    static const uint32_t lens[] = { 12, 20, 63, 64, 65, 200 };
    static struct got one;
    static uint8_t buf[2048];
    struct anomalies an_one;
    uint32_t xid = 0x900;
    size_t n = 0;

    n += record(buf + n, 24, xid++, 1); /* in sync from here (a probe needs 20 bytes or more) */
    put32(buf + n, 0x80000000u | 8);    /* the shortest message: xid and msg_type */
    put32(buf + n + 4, xid++);
    put32(buf + n + 8, 1);
    n += 12;
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
        n += record(buf + n, lens[i], xid++, 1);
    put32(buf + n, 0x80000000u | 4); /* too short for RPC: a bad mark, then a resync */
    memset(buf + n + 4, 0xff, 4);
    n += 8;
    n += record(buf + n, 64, xid++, 1);
    put32(buf + n, 40); /* two fragments: 40 + 30 bytes */
    body(buf + n + 4, 40, xid++, 0);
    put32(buf + n + 44, 0x80000000u | 30);
    memset(buf + n + 48, 0x99, 30);
    n += 78;
    n += record(buf + n, 16, xid++, 1);
    for (int pass = 0; pass < 2; pass++) {
        fresh_tail(64, 8, 16);
        if (pass == 0) {
            feed(buf, n, 3);
            one = G;
            an_one = an;
            EQ(one.n, 11);
            CHECK(one.m[1].head_p == buf + 32); /* a view into the chunk */
            EQ(one.m[1].msg_len, 8);
            EQ(one.m[6].tail_len, 1); /* 65: one byte past its head */
            EQ(an_one.n[ANOM_RPC_BAD_MARK], 1);
            continue;
        }
        for (size_t at = 0; at < n; at++) /* every message through the steps */
            feed(buf + at, 1, 3);
        EQ(G.n, one.n);
        for (size_t i = 0; i < G.n && i < one.n; i++) {
            EQ(G.m[i].msg_len, one.m[i].msg_len);
            EQ(G.m[i].head_len, one.m[i].head_len);
            CHECK(memcmp(G.m[i].head, one.m[i].head, G.m[i].head_len) == 0);
            EQ(G.m[i].tail_len, one.m[i].tail_len);
            CHECK(memcmp(G.m[i].tail, one.m[i].tail, G.m[i].tail_len) == 0);
            EQ(G.m[i].tail_off, one.m[i].tail_off);
            EQ(G.m[i].partial, one.m[i].partial);
            EQ(G.m[i].body_gap, one.m[i].body_gap);
            EQ(G.m[i].t_first, one.m[i].t_first);
            EQ(G.m[i].t_last, one.m[i].t_last);
        }
        CHECK(memcmp(an.n, an_one.n, sizeof an.n) == 0);
    }
}

int
main(void)
{
    test_one_record_zero_copy();
    test_mark_split();
    test_body_split_latency();
    test_several_in_one();
    test_multi_fragment();
    test_large_skip();
    test_gap_body_and_head();
    test_gap_over_mark();
    test_junk_and_midrecord();
    test_bad_marks();
    test_tiny_fragments();
    test_pool_full();
    test_pipeline();
    test_fuzz();
    test_wide_heads();
    test_tails();
    test_whole_in_chunk();
    rpc_rm_release(pool, &rm);
    rpc_rm_pool_free(pool);
    rpc_rm_pool_free(NULL);
    return t_done();
}
