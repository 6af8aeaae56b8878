/* SPDX-License-Identifier: BSD-3-Clause */
/* tcp_reasm_test.c: unit tests for TCP stream reassembly (RFC 9293 §3.4). */
#include "tcp_reasm.h"

#include <stdlib.h>

#include "t.h"

/* A sink that rebuilds the stream: data bytes as delivered, gaps as '#'. */
#define OUT_MAX 200000
struct rec {
    uint8_t buf[OUT_MAX];
    size_t len;       /* stream bytes accounted for (data + gaps) */
    size_t ndata, ngap;
    uint64_t gap_bytes;
    const uint8_t *last_p; /* pointer of the last data chunk (zero-copy check) */
    size_t last_len;
    struct timespec last_ts;
    char log[512];    /* "D5 G3 D10 " */
};

static void
rec_data(void *ctx, void *flow, unsigned dir, struct bytes chunk, const struct timespec *ts)
{
    struct rec *r = ctx;
    size_t l = strlen(r->log);

    (void)flow;
    (void)dir;
    if (r->len + chunk.len <= OUT_MAX)
        memcpy(r->buf + r->len, chunk.p, chunk.len);
    r->len += chunk.len;
    r->ndata++;
    r->last_p = chunk.p;
    r->last_len = chunk.len;
    r->last_ts = *ts;
    if (l + 16 < sizeof r->log)
        snprintf(r->log + l, sizeof r->log - l, "D%zu ", chunk.len);
}

static void
rec_gap(void *ctx, void *flow, unsigned dir, uint64_t n, const struct timespec *ts)
{
    struct rec *r = ctx;
    size_t l = strlen(r->log);

    (void)flow;
    (void)dir;
    (void)ts;
    for (uint64_t i = 0; i < n && r->len + i < OUT_MAX; i++)
        r->buf[r->len + i] = '#';
    r->len += n;
    r->ngap++;
    r->gap_bytes += n;
    if (l + 24 < sizeof r->log)
        snprintf(r->log + l, sizeof r->log - l, "G%llu ", (unsigned long long)n);
}

static struct rec R[2];
static struct stream_sink sink[2] = { { rec_data, rec_gap, &R[0], NULL },
                                      { rec_data, rec_gap, &R[1], NULL } };

/* Connection events, in order: "O0" direction 0 opened (SYN), "A1"
 * direction 1 accepted (SYN-ACK), "E1" end of direction 1, "N0" a new
 * connection opened from direction 0. */
static char EV[256];

static void
ev_any(void *ctx, void *flow, unsigned dir, enum tcp_event e, const struct timespec *ts)
{
    size_t l = strlen(EV);

    (void)ctx;
    (void)flow;
    (void)ts;
    if (l + 4 < sizeof EV)
        snprintf(EV + l, sizeof EV - l, "%c%u ", "OAEN"[e], dir);
}

/* The sink for direction d records into R[d]. */
static void
data_any(void *ctx, void *flow, unsigned dir, struct bytes chunk, const struct timespec *ts)
{
    (void)ctx;
    rec_data(&R[dir], flow, dir, chunk, ts);
}

static void
gap_any(void *ctx, void *flow, unsigned dir, uint64_t n, const struct timespec *ts)
{
    (void)ctx;
    rec_gap(&R[dir], flow, dir, n, ts);
}

static const struct stream_sink both = { data_any, gap_any, NULL, ev_any };

static struct l4_seg
seg(uint32_t seq, uint32_t ack, uint8_t flags, const void *p, size_t caplen, uint32_t wirelen)
{
    struct l4_seg s;

    memset(&s, 0, sizeof s);
    s.seq = seq;
    s.ack = ack;
    s.tcp_flags = flags;
    s.payload.p = p;
    s.payload.len = caplen;
    s.payload_wirelen = wirelen;
    return s;
}

static struct timespec
T(long sec)
{
    struct timespec ts = { sec, 0 };
    return ts;
}

static void
reset(void)
{
    memset(R, 0, sizeof R);
    EV[0] = 0;
}

static struct anomalies an;
static struct tcp_reasm *r;
static struct tcp_half hh[2];

static void
push(unsigned dir, uint32_t seq, uint32_t ack, uint8_t flags, const char *s, long sec)
{
    struct l4_seg g = seg(seq, ack, flags, s, s ? strlen(s) : 0, s ? (uint32_t)strlen(s) : 0);
    struct timespec ts = T(sec);

    tcp_reasm_push(r, hh, NULL, dir, &g, &ts, &both);
}

static void
fresh(size_t pool, size_t half)
{
    struct tcp_reasm_config cfg = { pool, half };

    tcp_reasm_free(r);
    memset(&an, 0, sizeof an);
    memset(hh, 0, sizeof hh);
    reset();
    r = tcp_reasm_new(&cfg, &an);
    CHECK(r != NULL);
}

static bool
out_is(unsigned d, const char *s)
{
    return R[d].len == strlen(s) && memcmp(R[d].buf, s, R[d].len) == 0;
}

static void
test_syn_inorder_zero_copy(void)
{
    static const char hello[] = "hello";
    struct l4_seg g;
    struct timespec ts = T(7);

    fresh(1 << 16, 1 << 14);
    push(0, 1000, 0, TCPF_SYN, NULL, 1);
    EQ(hh[0].next_seq, 1001);
    g = seg(1001, 0, TCPF_ACK, hello, 5, 5);
    tcp_reasm_push(r, hh, NULL, 0, &g, &ts, &both);
    CHECK(out_is(0, "hello"));
    CHECK(R[0].last_p == (const uint8_t *)hello); /* delivered from the packet */
    EQ(R[0].last_ts.tv_sec, 7);
    EQ(tcp_reasm_buffered(r), 0);
    push(0, 1006, 0, TCPF_ACK, NULL, 2); /* zero-length segment: nothing */
    EQ(R[0].ndata, 1);
    EQ(an.n[ANOM_TCP_RETRANSMIT], 0);
}

static void
test_midstream_ooo_retransmit_overlap(void)
{
    fresh(1 << 16, 1 << 14);
    push(0, 500, 0, TCPF_ACK, "abc", 1); /* mid-connection start */
    CHECK(out_is(0, "abc"));
    push(0, 509, 0, TCPF_ACK, "jkl", 2); /* ahead: buffered */
    push(0, 506, 0, TCPF_ACK, "ghi", 3); /* ahead: buffered */
    CHECK(out_is(0, "abc"));
    EQ(tcp_reasm_buffered(r), 6);
    EQ(hh[0].ooo_count, 2);
    push(0, 503, 0, TCPF_ACK, "def", 4); /* fills the hole */
    CHECK(out_is(0, "abcdefghijkl"));
    EQ(R[0].last_ts.tv_sec, 4); /* buffered data is delivered at the filling packet */
    EQ(tcp_reasm_buffered(r), 0);
    push(0, 503, 0, TCPF_ACK, "def", 5); /* fully old */
    EQ(an.n[ANOM_TCP_RETRANSMIT], 1);
    push(0, 509, 0, TCPF_ACK, "jklmno", 6); /* overlaps: only "mno" is new */
    CHECK(out_is(0, "abcdefghijklmno"));
    EQ(an.n[ANOM_TCP_RETRANSMIT], 1);

    /* overlapping out-of-order segments: [530,540) [525,535) [520,545) */
    push(0, 530, 0, TCPF_ACK, "EFGHIJKLMN", 7);                /* 530..539 */
    push(0, 525, 0, TCPF_ACK, "zABCDEFGHI", 8);                /* 525..534, overlaps */
    push(0, 520, 0, TCPF_ACK, "uvwxyzABCDEFGHIJKLMNOPQRS", 9); /* 520..544, covers both */
    CHECK(out_is(0, "abcdefghijklmno"));
    push(0, 530, 0, TCPF_ACK, "EFGHIJKLMN", 10); /* duplicate of buffered bytes */
    EQ(an.n[ANOM_TCP_RETRANSMIT], 2);
    push(0, 515, 0, TCPF_ACK, "pqrst", 11);
    CHECK(out_is(0, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"));
    EQ(tcp_reasm_buffered(r), 0);
    EQ(hh[0].ooo_count, 0);
    EQ(an.n[ANOM_TCP_GAP], 0);
}

static void
test_wraparound(void)
{
    fresh(1 << 16, 1 << 14);
    push(1, 0xfffffff9u, 0, TCPF_SYN, NULL, 1); /* ISN: stream starts at 0xfffffffa */
    push(1, 0x00000002u, 0, TCPF_ACK, "ij", 2);     /* after the wrap: buffered */
    push(1, 0xfffffffau, 0, TCPF_ACK, "abcdef", 3); /* 0xfffffffa..0xffffffff */
    CHECK(out_is(1, "abcdef"));
    push(1, 0x00000000u, 0, TCPF_ACK, "gh", 4); /* fills 0..1 */
    push(1, 0x00000000u, 0, TCPF_ACK, "gh", 4); /* old now */
    CHECK(out_is(1, "abcdefghij"));
    EQ(hh[1].next_seq, 4);
    EQ(an.n[ANOM_TCP_RETRANSMIT], 1);
    push(1, 0xfffffff0u, 0, TCPF_ACK, "zz", 5); /* far behind: old */
    EQ(an.n[ANOM_TCP_RETRANSMIT], 2);
    CHECK(out_is(1, "abcdefghij"));
}

static void
test_snaplen(void)
{
    static const char d[] = "0123456789";
    struct l4_seg g;
    struct timespec ts = T(1);

    fresh(1 << 16, 1 << 14);
    push(0, 99, 0, TCPF_SYN, NULL, 1);
    g = seg(100, 0, TCPF_ACK, d, 4, 10); /* 4 captured of 10 */
    tcp_reasm_push(r, hh, NULL, 0, &g, &ts, &both);
    CHECK(out_is(0, "0123######"));
    EQ(hh[0].next_seq, 110);
    EQ(an.n[ANOM_TCP_GAP], 1);
    /* truncated and out of order: the hole is kept in the buffer */
    g = seg(120, 0, TCPF_ACK, d, 3, 10); /* 120..129, 3 captured */
    tcp_reasm_push(r, hh, NULL, 0, &g, &ts, &both);
    EQ(an.n[ANOM_TCP_GAP], 2);
    EQ(tcp_reasm_buffered(r), 3);
    push(0, 110, 0, TCPF_ACK, "abcdefghij", 2);
    CHECK(out_is(0, "0123######abcdefghij012#######"));
    EQ(hh[0].next_seq, 130);
    push(0, 130, 0, TCPF_ACK, "xy", 3);
    CHECK(out_is(0, "0123######abcdefghij012#######xy"));
    EQ(tcp_reasm_buffered(r), 0);
}

static void
test_ack_loss(void)
{
    fresh(1 << 16, 4096);
    push(0, 1000, 0, TCPF_ACK, "aaaa", 1);       /* 1000..1003 */
    push(0, 1010, 0, TCPF_ACK, "bbbb", 2);       /* 1010..1013: hole 1004..1009 */
    push(1, 7000, 1007, TCPF_ACK, "r", 3);       /* peer acks into the hole */
    CHECK(out_is(0, "aaaa###"));
    EQ(an.n[ANOM_TCP_GAP], 1);
    push(0, 1007, 0, TCPF_ACK, "ccc", 4); /* the rest of the hole did arrive */
    CHECK(out_is(0, "aaaa###cccbbbb"));
    EQ(an.n[ANOM_TCP_GAP], 1);

    push(0, 1020, 0, TCPF_ACK, "dd", 5);         /* hole 1014..1019 */
    push(1, 7001, 1022, TCPF_ACK, NULL, 6);      /* peer has everything */
    CHECK(out_is(0, "aaaa###cccbbbb######dd"));
    EQ(an.n[ANOM_TCP_GAP], 2);

    /* nothing buffered: a small lead may be capture reordering, not loss */
    push(1, 7001, 1100, TCPF_ACK, NULL, 7);
    EQ(R[0].gap_bytes, 9);
    EQ(hh[0].next_seq, 1022);
    push(0, 1022, 0, TCPF_ACK, "ee", 8); /* the data was just late */
    CHECK(out_is(0, "aaaa###cccbbbb######ddee"));
    /* ... but a lead beyond per_half_max is loss */
    push(1, 7001, 1024 + 5000, TCPF_ACK, NULL, 9);
    EQ(R[0].gap_bytes, 9 + 5000);
    EQ(hh[0].next_seq, 1024 + 5000);
    EQ(an.n[ANOM_TCP_GAP], 3);
    /* the peer's data direction is independent */
    CHECK(out_is(1, "r"));
}

/* An in-order data segment on a started direction, nothing of its own
 * buffered (the usual segment), still settles what its ACK says of the
 * other direction first: rule a with bytes buffered there, rule c past
 * them. */
static void
test_ack_on_inorder_data(void)
{
    fresh(1 << 16, 4096);
    push(0, 1000, 0, TCPF_ACK, "aaaa", 1);    /* 1000..1003 */
    push(1, 7000, 1004, TCPF_ACK, "r", 2);    /* started; acks all of it */
    push(0, 1010, 7001, TCPF_ACK, "bbbb", 3); /* buffered: hole 1004..1009 */
    push(1, 7001, 1006, TCPF_ACK, "s", 4);    /* in order; acks into the hole: rule a */
    CHECK(out_is(0, "aaaa##"));
    CHECK(out_is(1, "rs"));
    push(1, 7002, 1020, TCPF_ACK, "t", 5); /* acks past everything, with data: rule c */
    CHECK(out_is(0, "aaaa######bbbb######"));
    CHECK(out_is(1, "rst"));
    EQ(an.n[ANOM_TCP_GAP], 3);
    EQ(tcp_reasm_buffered(r), 0);
}

/* Bytes released by a declared gap keep their own capture time (the
 * latest so far of that release); bytes released by the segment that fills
 * the hole take its time: what spans the hole completes with it. */
static void
test_release_times(void)
{
    fresh(1 << 16, 4096);
    push(0, 1000, 0, TCPF_ACK, "aaaa", 1);
    push(0, 1010, 0, TCPF_ACK, "bbbb", 2);       /* ahead of the hole 1004..1009 */
    push(0, 1014, 0, TCPF_ACK, "cc", 4);
    push(1, 7000, 1016, TCPF_ACK, "r", 9);       /* the reply acks it all: a gap */
    CHECK(out_is(0, "aaaa######bbbbcc"));
    EQ(R[0].last_ts.tv_sec, 4);                  /* "cc": its own time, not the ACK's 9 */
    push(0, 1020, 0, TCPF_ACK, "ee", 10);        /* ahead of 1016..1019 */
    push(0, 1016, 0, TCPF_ACK, "dddd", 12);      /* fills it */
    CHECK(out_is(0, "aaaa######bbbbccddddee"));
    EQ(R[0].last_ts.tv_sec, 12);
    /* the FIN's flush declares the hole lost: own times too */
    push(0, 1030, 0, TCPF_ACK, "ff", 13);
    push(0, 1040, 0, TCPF_ACK | TCPF_FIN, NULL, 20);
    EQ(R[0].last_ts.tv_sec, 13);
}

static void
test_half_overflow(void)
{
    char big[1000];

    memset(big, 'x', sizeof big);
    big[999] = 0;
    fresh(1 << 20, 4096);
    push(0, 0, 0, TCPF_SYN, NULL, 1);
    push(0, 1, 0, TCPF_ACK, "s", 1);
    /* hole at 2..101, then 5 x 999 bytes out of order: the 5th does not fit */
    for (int i = 0; i < 4; i++)
        push(0, 102 + (uint32_t)i * 999, 0, TCPF_ACK, big, 2);
    EQ(tcp_reasm_buffered(r), 3996);
    EQ(R[0].len, 1);
    push(0, 102 + 4 * 999, 0, TCPF_ACK, big, 3);
    EQ(an.n[ANOM_TCP_OOO_OVERFLOW], 1);
    EQ(an.n[ANOM_TCP_GAP], 0);
    EQ(R[0].gap_bytes, 100);
    EQ(R[0].len, 1 + 100 + 5 * 999);
    EQ(tcp_reasm_buffered(r), 0);
    EQ(hh[0].next_seq, 102 + 5 * 999);
}

static void
test_pool_exhausted(void)
{
    char big[1025];
    struct tcp_half other[2];

    memset(big, 'y', sizeof big);
    big[1024] = 0;
    memset(other, 0, sizeof other);
    fresh(4 * 1024, 1 << 20); /* 4 chunks for everybody */
    push(0, 100, 0, TCPF_ACK, "a", 1);
    for (int i = 0; i < 4; i++)
        push(0, 200 + (uint32_t)i * 1024, 0, TCPF_ACK, big, 1);
    EQ(tcp_reasm_buffered(r), 4096);
    EQ(an.n[ANOM_TCP_OOO_OVERFLOW], 0);

    /* another connection gets nothing buffered: it skips to its own segment */
    {
        struct l4_seg g = seg(50, 0, TCPF_ACK, "b", 1, 1);
        struct timespec ts = T(2);

        tcp_reasm_push(r, other, NULL, 1, &g, &ts, &both);
        g = seg(60, 0, TCPF_ACK, "c", 1, 1);
        tcp_reasm_push(r, other, NULL, 1, &g, &ts, &both);
    }
    EQ(an.n[ANOM_TCP_OOO_OVERFLOW], 1);
    CHECK(out_is(1, "b#########c"));
    EQ(tcp_reasm_buffered(r), 4096);
    tcp_reasm_release(r, &hh[0]);
    EQ(tcp_reasm_buffered(r), 0);
    EQ(hh[0].ooo_count, 0);
    EQ(hh[0].started, 0);
    /* the pool is usable again */
    push(0, 10, 0, TCPF_ACK, "p", 3);
    push(0, 20, 0, TCPF_ACK, "q", 3);
    EQ(tcp_reasm_buffered(r), 1);
    tcp_reasm_release(r, &hh[0]);
    tcp_reasm_release(r, &other[1]);
}

static void
test_fin_rst_flush(void)
{
    struct timespec ts = T(9);

    fresh(1 << 16, 1 << 14);
    push(0, 0, 0, TCPF_SYN, NULL, 1);
    push(0, 1, 0, TCPF_ACK, "ab", 1);
    push(0, 5, 0, TCPF_ACK, "ef", 2);
    push(0, 7, 0, TCPF_ACK | TCPF_FIN, "g", 3); /* FIN at 8 */
    CHECK(out_is(0, "ab##efg"));
    EQ(hh[0].next_seq, 9);
    EQ(hh[0].fin, 1);
    EQ(tcp_reasm_buffered(r), 0);
    push(1, 0, 9, TCPF_ACK, NULL, 4); /* ACK of the FIN is not a gap */
    EQ(R[0].ngap, 1);
    /* a bare FIN ahead of missing data: the missing bytes are a gap */
    push(1, 100, 0, TCPF_ACK, "xy", 5);
    push(1, 105, 0, TCPF_ACK | TCPF_FIN, NULL, 6);
    CHECK(out_is(1, "xy###"));
    /* RST flushes too */
    fresh(1 << 16, 1 << 14);
    push(0, 1, 0, TCPF_ACK, "ab", 1);
    push(0, 6, 0, TCPF_ACK, "gh", 2);
    push(0, 9, 0, TCPF_RST, NULL, 3);
    CHECK(out_is(0, "ab###gh"));
    /* explicit flush */
    push(1, 1, 0, TCPF_ACK, "q", 1);
    push(1, 3, 0, TCPF_ACK, "s", 1);
    tcp_reasm_flush(r, &hh[1], NULL, 1, &ts, &both);
    CHECK(out_is(1, "q#s"));
    EQ(tcp_reasm_buffered(r), 0);
}

static void
test_syn_reuse(void)
{
    fresh(1 << 16, 1 << 14);
    push(0, 10, 0, TCPF_SYN, NULL, 1);
    push(0, 10, 0, TCPF_SYN, NULL, 2); /* retransmitted SYN: ignored */
    push(0, 11, 0, TCPF_ACK, "ab", 1);
    push(0, 13, 0, TCPF_ACK, "cd", 2);
    CHECK(out_is(0, "abcd"));
    push(0, 0x80000000u, 0, TCPF_SYN, NULL, 3); /* new connection, same ports */
    push(0, 0x80000001u, 0, TCPF_ACK, "ef", 4);
    CHECK(out_is(0, "abcdef"));
}

/* A connection's life: SYN, SYN-ACK, FIN and RST start and end streams. */
static void
test_lifecycle(void)
{
    /* handshake, data, FIN both ways, then the same ports again (a client
     * that keeps its port across reconnects): a new connection */
    fresh(1 << 16, 1 << 14);
    push(0, 1000, 0, TCPF_SYN, NULL, 1);
    push(1, 5000, 1001, TCPF_SYN | TCPF_ACK, NULL, 1);
    push(0, 1001, 5001, TCPF_ACK, "ab", 1);
    push(1, 5001, 1003, TCPF_ACK, "xy", 1);
    push(0, 1003, 5003, TCPF_ACK | TCPF_FIN, NULL, 2);
    push(1, 5003, 1004, TCPF_ACK | TCPF_FIN, NULL, 2);
    CHECK(strcmp(EV, "O0 A1 E0 E1 ") == 0);
    EV[0] = 0;
    push(0, 1000 + 7, 0, TCPF_SYN, NULL, 3); /* near the old stream, after FIN: new */
    push(1, 9000, 1008, TCPF_SYN | TCPF_ACK, NULL, 3);
    push(0, 1008, 9001, TCPF_ACK, "cd", 3);
    push(1, 9001, 1010, TCPF_ACK, "zw", 3);
    CHECK(strcmp(EV, "N0 O0 A1 ") == 0);
    CHECK(out_is(0, "abcd") && out_is(1, "xyzw"));
    EQ(an.n[ANOM_TCP_RETRANSMIT] + an.n[ANOM_TCP_GAP] + an.n[ANOM_TCP_MALFORMED], 0);

    /* no FIN: a SYN with a new ISN far from the stream is a new connection;
     * the old one's buffered bytes are delivered first */
    fresh(1 << 16, 1 << 14);
    push(0, 1000, 0, TCPF_SYN, NULL, 1);
    push(0, 1001, 0, TCPF_ACK, "ab", 1);
    push(0, 1005, 0, TCPF_ACK, "ef", 1); /* buffered: 1003..1004 missing */
    push(1, 5000, 1001, TCPF_SYN | TCPF_ACK, NULL, 1);
    EV[0] = 0;
    push(0, 0x70000000u, 0, TCPF_SYN, NULL, 2);
    CHECK(strcmp(EV, "E0 E1 N0 O0 ") == 0);
    push(0, 0x70000001u, 0, TCPF_ACK, "gh", 2);
    CHECK(out_is(0, "ab##efgh"));
    EQ(tcp_reasm_buffered(r), 0);

    /* the same ISN again after data (a capture replayed): a new connection */
    fresh(1 << 16, 1 << 14);
    push(0, 1000, 0, TCPF_SYN, NULL, 1);
    push(0, 1001, 0, TCPF_ACK, "ab", 1);
    push(0, 1000, 0, TCPF_SYN, NULL, 2);
    push(0, 1001, 0, TCPF_ACK, "ab", 2);
    CHECK(out_is(0, "abab"));
    CHECK(strcmp(EV, "O0 E0 N0 O0 ") == 0);
    EQ(an.n[ANOM_TCP_RETRANSMIT], 0);

    /* a SYN-ACK with a new ISN whose SYN was not captured: new, opened by
     * the other side */
    fresh(1 << 16, 1 << 14);
    push(0, 1000, 0, TCPF_SYN, NULL, 1);
    push(1, 5000, 1001, TCPF_SYN | TCPF_ACK, NULL, 1);
    push(1, 5001, 1001, TCPF_ACK, "xy", 1);
    EV[0] = 0;
    push(1, 0x60000000u, 77, TCPF_SYN | TCPF_ACK, NULL, 2);
    CHECK(strcmp(EV, "E0 E1 N0 A1 ") == 0);

    /* RST in the middle: both directions end; data after it (its SYN not
     * captured) is a new stream, not compared with the old one's next byte,
     * unless it lies wholly before where the old stream ended */
    fresh(1 << 16, 1 << 14);
    push(0, 1000, 0, TCPF_SYN, NULL, 1);
    push(0, 1001, 0, TCPF_ACK, "abcd", 1);
    push(0, 1005, 0, TCPF_RST, NULL, 2);
    CHECK(strcmp(EV, "O0 E0 ") == 0);
    CHECK(!hh[0].started && hh[0].reset && hh[1].reset);
    push(0, 1001, 0, TCPF_ACK, "abcd", 3); /* a late copy of the old bytes */
    EQ(an.n[ANOM_TCP_RETRANSMIT], 1);
    push(0, 0x30000000u, 0, TCPF_ACK, "wxyz", 3); /* the next connection's */
    push(0, 0x30000004u, 0, TCPF_ACK, "12", 3);
    CHECK(out_is(0, "abcdwxyz12"));
    EQ(an.n[ANOM_TCP_RETRANSMIT], 1);
    /* and a SYN after the reset is a new connection, whatever its ISN */
    EV[0] = 0;
    push(0, 1004, 0, TCPF_SYN, NULL, 4);
    CHECK(strcmp(EV, "E0 N0 O0 ") == 0);

    /* an RST behind the stream is not the receiver's: ignored (RFC 5961 §3.2) */
    fresh(1 << 16, 1 << 14);
    push(0, 1000, 0, TCPF_SYN, NULL, 1);
    push(0, 1001, 0, TCPF_ACK, "abcd", 1);
    push(0, 1002, 0, TCPF_RST | TCPF_ACK, "zz", 2);
    push(0, 1005, 0, TCPF_ACK, "ef", 3);
    CHECK(out_is(0, "abcdef"));
    CHECK(strcmp(EV, "O0 ") == 0);
    /* nor one far ahead */
    push(0, 0x40001000u, 0, TCPF_RST, NULL, 4);
    CHECK(strcmp(EV, "O0 ") == 0);

    /* a SYN with data near a live stream, with another ISN, is dropped
     * with its data (RFC 5961 §4); a retransmitted SYN before data is ignored */
    fresh(1 << 16, 1 << 14);
    push(0, 1000, 0, TCPF_SYN, NULL, 1);
    push(0, 1000, 0, TCPF_SYN, NULL, 1);
    push(0, 1001, 0, TCPF_ACK, "abcd", 1);
    push(0, 1003, 0, TCPF_SYN, "zz", 2);
    push(0, 1005, 0, TCPF_ACK, "ef", 3);
    CHECK(out_is(0, "abcdef"));
    CHECK(strcmp(EV, "O0 ") == 0);
    EQ(an.n[ANOM_TCP_MALFORMED], 1);
    /* a bare SYN there is a client opening a new connection from its port */
    push(0, 1010, 0, TCPF_SYN, NULL, 4);
    push(0, 1011, 0, TCPF_ACK, "gh", 4);
    CHECK(out_is(0, "abcdefgh"));
    CHECK(strcmp(EV, "O0 E0 N0 O0 ") == 0);

    /* a client SYN after only the server's data was seen (the capture began
     * mid-connection): the old connection is over */
    fresh(1 << 16, 1 << 14);
    push(1, 5001, 0, TCPF_ACK, "xy", 1);
    push(0, 1000, 0, TCPF_SYN, NULL, 2);
    CHECK(strcmp(EV, "E1 N0 O0 ") == 0);
}

/* Random segmentation, duplication, reordering, loss and truncation of a known
 * stream: every delivered byte is at its true offset, state stays bounded. */
static void
test_fuzz(void)
{
    enum { N = 60000 };
    static uint8_t src[N];
    struct seginfo {
        uint32_t off, len, cap;
    } *segs = calloc(4096, sizeof *segs);
    uint32_t isn = 0xffff0000u;
    unsigned seed = 12345;

    CHECK(segs != NULL);
    if (!segs)
        return;
    for (size_t i = 0; i < N; i++)
        src[i] = (uint8_t)('a' + (i * 7 + i / 13) % 26);
    for (int round = 0; round < 40; round++) {
        size_t nseg = 0, off = 0;

        fresh(round % 2 ? 8 * 1024 : 1 << 20, round % 3 ? 16384 : 3000);
        while (off < N && nseg < 4096) {
            uint32_t len = 1 + (uint32_t)(rand_r(&seed) % 1500);

            if (off + len > N)
                len = (uint32_t)(N - off);
            segs[nseg].off = (uint32_t)off;
            segs[nseg].len = len;
            segs[nseg].cap = rand_r(&seed) % 20 == 0 ? len / 2 : len;
            nseg++;
            off += len;
        }
        /* local shuffles, duplicates, drops */
        for (size_t i = 0; i + 1 < nseg; i++)
            if (rand_r(&seed) % 4 == 0) {
                size_t j = i + 1 + (size_t)rand_r(&seed) % 8;
                struct seginfo t;

                if (j >= nseg)
                    j = nseg - 1;
                t = segs[i];
                segs[i] = segs[j];
                segs[j] = t;
            }
        push(0, isn, 0, TCPF_SYN, NULL, 0);
        for (size_t i = 0; i < nseg; i++) {
            int rr = rand_r(&seed) % 30;
            struct seginfo s = segs[i];
            struct l4_seg g;
            struct timespec ts = T((long)i);

            if (rr == 0)
                continue; /* lost */
            g = seg(isn + 1 + s.off, 0, TCPF_ACK, src + s.off, s.cap, s.len);
            tcp_reasm_push(r, hh, NULL, 0, &g, &ts, &both);
            if (rr == 1)
                tcp_reasm_push(r, hh, NULL, 0, &g, &ts, &both); /* duplicate */
            if (rr == 2) { /* a peer ACK up to somewhere near */
                g = seg(1, isn + 1 + s.off + s.len, TCPF_ACK, NULL, 0, 0);
                tcp_reasm_push(r, hh, NULL, 1, &g, &ts, &both);
            }
            CHECK(hh[0].ooo_bytes <= (round % 3 ? 16384u : 3000u));
            CHECK(tcp_reasm_buffered(r) <= (round % 2 ? 8 * 1024u : 1u << 20));
        }
        {
            struct timespec ts = T(99999);
            tcp_reasm_flush(r, &hh[0], NULL, 0, &ts, &both);
        }
        EQ(tcp_reasm_buffered(r), 0);
        CHECK(R[0].len <= N);
        {
            size_t bad = 0;
            for (size_t i = 0; i < R[0].len && i < N; i++)
                if (R[0].buf[i] != '#' && R[0].buf[i] != src[i])
                    bad++;
            EQ(bad, 0);
        }
        tcp_reasm_release(r, &hh[0]);
        tcp_reasm_release(r, &hh[1]);
    }
    free(segs);
}

/* trouble_ns: when a direction last needed recovery (a segment again, ahead
 * of a hole, a hole declared lost); in-order data and snaplen cuts are not. */
static void
test_trouble(void)
{
    static const char d[] = "0123456789";
    struct l4_seg g;
    struct timespec ts = T(3);

    fresh(1 << 16, 1 << 14);
    push(0, 99, 0, TCPF_SYN, NULL, 1);
    push(0, 100, 0, TCPF_ACK, "abc", 2);
    EQ(hh[0].trouble_ns, 0);
    g = seg(103, 0, TCPF_ACK, d, 4, 10); /* snaplen cut: not the network's doing */
    tcp_reasm_push(r, hh, NULL, 0, &g, &ts, &both);
    EQ(hh[0].trouble_ns, 0);
    push(0, 100, 0, TCPF_ACK, "abc", 4); /* sent again */
    EQ(hh[0].trouble_ns, 4 * 1000000000LL);
    EQ(hh[1].trouble_ns, 0);
    push(0, 116, 0, TCPF_ACK, "xyz", 5); /* ahead of a hole [113, 116) */
    EQ(hh[0].trouble_ns, 5 * 1000000000LL);
    push(0, 113, 0, TCPF_ACK, "def", 6); /* fills it: in order, no new trouble */
    EQ(hh[0].trouble_ns, 5 * 1000000000LL);
    CHECK(out_is(0, "abc0123######defxyz"));
    /* direction 1 acknowledges direction 0 past what came: bytes lost for good */
    push(0, 130, 0, TCPF_ACK, "q", 7);         /* buffered ahead of [119, 130) */
    push(1, 500, 131, TCPF_ACK, "r", 8);       /* ACK 131: the hole will never be filled */
    EQ(hh[0].trouble_ns, 8 * 1000000000LL);
    EQ(hh[1].trouble_ns, 0);
}

int
main(void)
{
    (void)sink;
    test_syn_inorder_zero_copy();
    test_midstream_ooo_retransmit_overlap();
    test_wraparound();
    test_snaplen();
    test_ack_loss();
    test_ack_on_inorder_data();
    test_release_times();
    test_half_overflow();
    test_pool_exhausted();
    test_fin_rst_flush();
    test_syn_reuse();
    test_lifecycle();
    test_fuzz();
    test_trouble();
    tcp_reasm_free(r);
    tcp_reasm_free(NULL);
    return t_done();
}
