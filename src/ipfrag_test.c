/* SPDX-License-Identifier: BSD-3-Clause */
/* ipfrag_test.c: unit tests for ipfrag.c through ip_decode(), IPv4 and IPv6 fragments. */
#include "ipfrag.h"

#include <stdlib.h>

#include "t.h"

#define MAXPKT 1600

static struct anomalies an;

static uint64_t
anom_total(void)
{
    uint64_t n = 0;

    for (size_t i = 0; i < ANOM__COUNT; i++)
        n += an.n[i];
    return n;
}

/* Lost-callback recorder. */
static struct {
    unsigned calls;
    struct l4_seg seg;
    uint8_t first[16];
    struct timespec ts;
} lost;

static void
on_lost(void *ctx, const struct l4_seg *seg, const struct timespec *ts)
{
    (void)ctx;
    lost.calls++;
    lost.seg = *seg;
    memset(lost.first, 0, sizeof lost.first);
    memcpy(lost.first, seg->payload.p, seg->payload.len < 16 ? seg->payload.len : 16);
    lost.seg.payload.p = NULL; /* not valid after the callback */
    lost.ts = *ts;
}

static struct timespec
at(time_t s)
{
    struct timespec t = { s, 0 };
    return t;
}

static uint8_t
pattern(size_t i)
{
    return (uint8_t)(i * 7 + 3 + (i >> 8));
}

/* A UDP datagram 2049 -> 800 with `plen` patterned payload bytes. */
static size_t
make_udp(uint8_t *d, size_t plen)
{
    size_t ulen = 8 + plen;

    d[0] = 0x08; /* sport 2049 */
    d[1] = 0x01;
    d[2] = 0x03; /* dport 800 */
    d[3] = 0x20;
    d[4] = (uint8_t)(ulen >> 8); /* length */
    d[5] = (uint8_t)ulen;
    d[6] = d[7] = 0; /* checksum */
    for (size_t i = 0; i < plen; i++)
        d[8 + i] = pattern(i);
    return ulen;
}

static void
set_ipv4_checksum(uint8_t *h)
{
    uint32_t sum = 0;

    h[10] = h[11] = 0;
    for (size_t i = 0; i < 20; i += 2)
        sum += (uint32_t)h[i] << 8 | h[i + 1];
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    sum = ~sum & 0xffff;
    h[10] = (uint8_t)(sum >> 8);
    h[11] = (uint8_t)sum;
}

/* Feed one IPv4 fragment of `dgram` [off, off+len) to ip_decode.
 * caplen_max limits the bytes captured (0: all). */
static enum decode_rc
feed4(struct ipfrag *fr, uint8_t proto, uint16_t id, const uint8_t *dgram, uint32_t off,
      uint32_t len, int more, time_t t, size_t caplen_max, struct l4_seg *out)
{
    uint8_t *p = malloc(20 + len);
    struct l3_view v;
    struct timespec ts = at(t);
    size_t tot = 20 + len;
    uint16_t fo = (uint16_t)((more ? 0x2000 : 0) | (off / 8));
    enum decode_rc rc;

    if (!p)
        return DECODE_INVALID;
    p[0] = 0x45;                  /* v4, IHL 5 */
    p[1] = 0;                     /* TOS */
    p[2] = (uint8_t)(tot >> 8);   /* total length */
    p[3] = (uint8_t)tot;
    p[4] = (uint8_t)(id >> 8);    /* identification */
    p[5] = (uint8_t)id;
    p[6] = (uint8_t)(fo >> 8);    /* flags + fragment offset */
    p[7] = (uint8_t)fo;
    p[8] = 64;                    /* TTL */
    p[9] = proto;                 /* protocol */
    p[12] = 10, p[13] = 0, p[14] = 0, p[15] = 2; /* src 10.0.0.2 */
    p[16] = 10, p[17] = 0, p[18] = 0, p[19] = 1; /* dst 10.0.0.1 */
    set_ipv4_checksum(p);
    if (len)
        memcpy(p + 20, dgram + off, len);
    memset(&v, 0, sizeof v);
    v.kind = L3_IPV4;
    v.l3.p = p;
    v.l3.len = caplen_max && caplen_max < tot ? caplen_max : tot;
    v.l3_wirelen = (uint32_t)tot;
    rc = ip_decode(fr, &v, &ts, &an, out);
    free(p); /* any payload in *out lives in ipfrag's buffer */
    return rc;
}

/* Feed one IPv6 fragment (Fragment header, next header `nh`). */
static enum decode_rc
feed6(struct ipfrag *fr, uint8_t nh, uint32_t id, const uint8_t *dgram, uint32_t off,
      uint32_t len, int more, time_t t, struct l4_seg *out)
{
    size_t tot = 48 + len;
    uint8_t *p = calloc(1, tot);
    struct l3_view v;
    struct timespec ts = at(t);
    uint16_t om = (uint16_t)(off | (more ? 1 : 0));
    enum decode_rc rc;

    if (!p)
        return DECODE_INVALID;
    p[0] = 0x60;                         /* v6 */
    p[4] = (uint8_t)((8 + len) >> 8);    /* payload length */
    p[5] = (uint8_t)(8 + len);
    p[6] = 44;                           /* next: Fragment */
    p[7] = 64;                           /* hop limit */
    p[8] = 0xfd, p[23] = 0x02;           /* src fd00::2 */
    p[24] = 0xfd, p[39] = 0x01;          /* dst fd00::1 */
    p[40] = nh;                          /* FRAG: next header */
    p[42] = (uint8_t)(om >> 8);          /* offset (13 bits) | res | M */
    p[43] = (uint8_t)om;
    p[44] = (uint8_t)(id >> 24);         /* identification */
    p[45] = (uint8_t)(id >> 16);
    p[46] = (uint8_t)(id >> 8);
    p[47] = (uint8_t)id;
    memcpy(p + 48, dgram + off, len);
    memset(&v, 0, sizeof v);
    v.kind = L3_IPV6;
    v.l3.p = p;
    v.l3.len = tot;
    v.l3_wirelen = (uint32_t)tot;
    rc = ip_decode(fr, &v, &ts, &an, out);
    free(p);
    return rc;
}

static bool
payload_is_pattern(const struct l4_seg *s, size_t n)
{
    if (s->payload.len != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s->payload.p[i] != pattern(i))
            return false;
    return true;
}

static struct ipfrag *
fresh(size_t cap)
{
    struct ipfrag *fr = ipfrag_new(cap, 30, &an);

    memset(&an, 0, sizeof an);
    memset(&lost, 0, sizeof lost);
    if (fr)
        ipfrag_set_lost_cb(fr, on_lost, NULL);
    return fr;
}

static uint8_t dg[65536 + 64];

static void
test_in_order_and_reverse(void)
{
    struct ipfrag *fr = fresh(16);
    struct l4_seg s;
    size_t n = make_udp(dg, 3000); /* 3008 bytes: 1480 + 1480 + 48 */

    EQ(n, 3008);
    EQ(feed4(fr, 17, 1, dg, 0, 1480, 1, 1, 0, &s), DECODE_PENDING);
    EQ(ipfrag_pending(fr), 1);
    EQ(feed4(fr, 17, 1, dg, 1480, 1480, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 1, dg, 2960, 48, 0, 1, 0, &s), DECODE_OK);
    CHECK(s.reassembled);
    CHECK(!s.first_frag_only);
    EQ(s.key.af, FLOW_AF_INET);
    EQ(s.key.proto, FLOW_PROTO_UDP);
    EQ(s.key.saddr[3], 2);
    EQ(s.key.daddr[3], 1);
    EQ(s.key.sport, 2049);
    EQ(s.key.dport, 800);
    EQ(s.payload_wirelen, 3000);
    CHECK(payload_is_pattern(&s, 3000));
    EQ(ipfrag_pending(fr), 0);

    /* Reverse order, another id. */
    EQ(feed4(fr, 17, 2, dg, 2960, 48, 0, 2, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 2, dg, 1480, 1480, 1, 2, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 2, dg, 0, 1480, 1, 2, 0, &s), DECODE_OK);
    CHECK(s.reassembled);
    CHECK(payload_is_pattern(&s, 3000));
    EQ(anom_total(), 0);
    EQ(lost.calls, 0);
    ipfrag_free(fr);
}

static void
test_duplicates(void)
{
    struct ipfrag *fr = fresh(16);
    struct l4_seg s;

    make_udp(dg, 3000);
    EQ(feed4(fr, 17, 7, dg, 0, 1480, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 7, dg, 0, 1480, 1, 1, 0, &s), DECODE_PENDING); /* duplicate */
    EQ(feed4(fr, 17, 7, dg, 1480, 1480, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 7, dg, 2960, 48, 0, 1, 0, &s), DECODE_OK);
    CHECK(payload_is_pattern(&s, 3000));
    /* A late duplicate of a finished datagram is absorbed, not a new one. */
    EQ(feed4(fr, 17, 7, dg, 1480, 1480, 1, 2, 0, &s), DECODE_PENDING);
    EQ(ipfrag_pending(fr), 0);
    ipfrag_expire(fr, &(struct timespec){ 100, 0 }, 0);
    EQ(anom_total(), 0);
    EQ(lost.calls, 0);

    /* Identical overlap (fragment re-cut at a different boundary) is fine. */
    EQ(feed4(fr, 17, 8, dg, 0, 1480, 1, 200, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 8, dg, 1000, 2008, 0, 200, 0, &s), DECODE_OK);
    CHECK(payload_is_pattern(&s, 3000));
    EQ(anom_total(), 0);

    /* Same id reused later for a bigger datagram: the finished slot is recycled. */
    make_udp(dg, 5000);
    EQ(feed4(fr, 17, 8, dg, 0, 1480, 1, 201, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 8, dg, 1480, 1480, 1, 201, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 8, dg, 2960, 1480, 1, 201, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 8, dg, 4440, 568, 0, 201, 0, &s), DECODE_OK);
    CHECK(payload_is_pattern(&s, 5000));
    EQ(anom_total(), 0);
    ipfrag_free(fr);
}

static void
test_overlap_inconsistent(void)
{
    struct ipfrag *fr = fresh(16);
    struct l4_seg s;
    static uint8_t alt[3008];

    make_udp(dg, 3000);
    memcpy(alt, dg, sizeof alt);
    alt[1475] ^= 0x01; /* differs inside the overlap [1472, 1480) */
    EQ(feed4(fr, 17, 9, dg, 0, 1480, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 9, alt, 1472, 1488, 1, 1, 0, &s), DECODE_INVALID);
    EQ(an.n[ANOM_IPFRAG_BAD], 1);
    EQ(ipfrag_pending(fr), 0); /* RFC 5722: the whole datagram is dropped */
    EQ(lost.calls, 0);

    /* Two last fragments that disagree on the length. */
    EQ(feed4(fr, 17, 10, dg, 2960, 48, 0, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 10, dg, 1480, 1488, 0, 1, 0, &s), DECODE_INVALID);
    EQ(an.n[ANOM_IPFRAG_BAD], 2);
    /* A fragment past the end set by the last one. */
    EQ(feed4(fr, 17, 11, dg, 1480, 1480, 0, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 11, dg, 2960, 48, 1, 1, 0, &s), DECODE_INVALID);
    EQ(an.n[ANOM_IPFRAG_BAD], 3);
    EQ(anom_total(), 3);
    EQ(ipfrag_pending(fr), 0);
    ipfrag_free(fr);
}

static void
test_giant_and_zero(void)
{
    struct ipfrag *fr = fresh(16);
    struct l4_seg s;

    make_udp(dg, 3000);
    /* Offset 65528 + 16 bytes > 65,535 (ping of death). */
    EQ(feed4(fr, 17, 12, dg, 0, 1480, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 12, dg, 8, 8, 0, 1, 0, &s), DECODE_INVALID); /* ends before data seen */
    EQ(an.n[ANOM_IPFRAG_BAD], 1);
    {
        static uint8_t big[65536 + 64];

        EQ(feed4(fr, 17, 13, big, 65528, 16, 0, 1, 0, &s), DECODE_INVALID);
        EQ(an.n[ANOM_IPFRAG_BAD], 2);
        /* Exactly 65,535 is allowed: 65528 + 7. */
        EQ(feed4(fr, 17, 14, big, 65528, 7, 0, 1, 0, &s), DECODE_PENDING);
    }
    /* Zero-length fragment and a middle fragment not a multiple of 8. */
    EQ(feed4(fr, 17, 15, dg, 8, 0, 1, 1, 0, &s), DECODE_INVALID);
    EQ(feed4(fr, 17, 15, dg, 8, 100, 1, 1, 0, &s), DECODE_INVALID);
    EQ(an.n[ANOM_IPFRAG_BAD], 4);
    EQ(anom_total(), 4);
    ipfrag_free(fr);
}

static void
test_big_udp_reply(void)
{
    /* A ~32 KB NFS READ reply over UDP at MTU 1500: 22 fragments. */
    struct ipfrag *fr = fresh(16);
    struct l4_seg s;
    size_t n = make_udp(dg, 32000);
    unsigned nfrag = (unsigned)((n + 1479) / 1480), oks = 0;

    EQ(nfrag, 22);
    /* Odd-numbered fragments first, then even ones (descending). */
    for (unsigned k = 1; k < nfrag; k += 2) {
        uint32_t off = k * 1480, len = off + 1480 > n ? (uint32_t)(n - off) : 1480;

        EQ(feed4(fr, 17, 0x4242, dg, off, len, k + 1 < nfrag, 5, 0, &s), DECODE_PENDING);
    }
    for (unsigned k = nfrag - 2 + (nfrag % 2);; k -= 2) {
        uint32_t off = k * 1480, len = off + 1480 > n ? (uint32_t)(n - off) : 1480;
        enum decode_rc rc = feed4(fr, 17, 0x4242, dg, off, len, k + 1 < nfrag, 5, 0, &s);

        if (rc == DECODE_OK)
            oks++;
        else
            EQ(rc, DECODE_PENDING);
        if (k == 0)
            break;
    }
    EQ(oks, 1);
    CHECK(s.reassembled);
    EQ(s.payload_wirelen, 32000);
    CHECK(payload_is_pattern(&s, 32000));
    EQ(anom_total(), 0);
    EQ(ipfrag_pending(fr), 0);
    ipfrag_free(fr);
}

static void
test_expiry_and_lost(void)
{
    struct ipfrag *fr = fresh(16);
    struct l4_seg s;

    make_udp(dg, 3000);
    EQ(feed4(fr, 17, 20, dg, 0, 1480, 1, 10, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 20, dg, 2960, 48, 0, 12, 0, &s), DECODE_PENDING);
    /* A datagram without its first fragment. */
    EQ(feed4(fr, 17, 21, dg, 1480, 1480, 1, 11, 0, &s), DECODE_PENDING);
    EQ(ipfrag_pending(fr), 2);

    ipfrag_expire(fr, &(struct timespec){ 40, 0 }, 0); /* exactly 30 s: not yet */
    EQ(ipfrag_pending(fr), 2);
    EQ(lost.calls, 0);
    ipfrag_expire(fr, &(struct timespec){ 40, 1 }, 0);
    EQ(ipfrag_pending(fr), 1);
    EQ(lost.calls, 1);
    CHECK(lost.seg.first_frag_only);
    CHECK(!lost.seg.reassembled);
    EQ(lost.seg.key.proto, FLOW_PROTO_UDP);
    EQ(lost.seg.key.sport, 2049);
    EQ(lost.seg.key.saddr[3], 2);
    EQ(lost.seg.payload.len, 1472);      /* contiguous bytes after the UDP header */
    EQ(lost.seg.payload_wirelen, 3000);  /* from the UDP length */
    EQ(lost.first[0], pattern(0));
    EQ(lost.first[15], pattern(15));
    EQ(lost.ts.tv_sec, 12);              /* time of the last fragment seen */
    EQ(an.n[ANOM_IPFRAG_EXPIRED], 1);

    ipfrag_expire(fr, &(struct timespec){ 42, 0 }, 0);
    EQ(ipfrag_pending(fr), 0);
    EQ(lost.calls, 1); /* no offset-0 fragment: nothing to hand over */
    EQ(an.n[ANOM_IPFRAG_EXPIRED], 2);

    /* A fragment arriving after its datagram timed out (no expire call in between). */
    EQ(feed4(fr, 17, 22, dg, 0, 1480, 1, 100, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 22, dg, 1480, 1480, 1, 200, 0, &s), DECODE_PENDING);
    EQ(an.n[ANOM_IPFRAG_EXPIRED], 3);
    EQ(lost.calls, 2);
    EQ(ipfrag_pending(fr), 1);

    /* End of input. */
    EQ(feed4(fr, 17, 23, dg, 0, 1480, 1, 200, 0, &s), DECODE_PENDING);
    ipfrag_flush(fr);
    EQ(ipfrag_pending(fr), 0);
    EQ(lost.calls, 3);
    EQ(an.n[ANOM_IPFRAG_EXPIRED], 5);
    EQ(anom_total(), 5);
    ipfrag_free(fr);
}

static void
test_budget(void)
{
    struct ipfrag *fr = fresh(16);
    struct l4_seg s;

    make_udp(dg, 3000);
    for (uint16_t id = 30; id < 33; id++)
        EQ(feed4(fr, 17, id, dg, 1480, 1480, 1, 1, 0, &s), DECODE_PENDING);
    ipfrag_expire(fr, &(struct timespec){ 100, 0 }, 2);
    EQ(ipfrag_pending(fr), 1);
    ipfrag_expire(fr, &(struct timespec){ 100, 0 }, 2);
    EQ(ipfrag_pending(fr), 0);
    EQ(an.n[ANOM_IPFRAG_EXPIRED], 3);
    ipfrag_free(fr);
}

static void
test_table_full(void)
{
    struct ipfrag *fr = fresh(2);
    struct l4_seg s;

    make_udp(dg, 3000);
    EQ(feed4(fr, 17, 40, dg, 0, 1480, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 41, dg, 0, 1480, 1, 2, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 42, dg, 0, 1480, 1, 3, 0, &s), DECODE_PENDING);
    EQ(an.n[ANOM_IPFRAG_EVICTED], 1);
    EQ(lost.calls, 1); /* the evicted one had its first fragment */
    EQ(lost.ts.tv_sec, 1);
    EQ(ipfrag_pending(fr), 2);
    /* The survivors still complete. */
    EQ(feed4(fr, 17, 42, dg, 1480, 1480, 1, 3, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 42, dg, 2960, 48, 0, 3, 0, &s), DECODE_OK);
    CHECK(payload_is_pattern(&s, 3000));
    /* With the oldest past its timeout, making room counts it as expired. */
    EQ(feed4(fr, 17, 43, dg, 0, 1480, 1, 100, 0, &s), DECODE_PENDING);
    EQ(an.n[ANOM_IPFRAG_EVICTED], 1);
    EQ(an.n[ANOM_IPFRAG_EXPIRED], 1);
    ipfrag_free(fr);

    /* Capacity zero: nothing is held. */
    fr = fresh(0);
    CHECK(fr != NULL);
    EQ(feed4(fr, 17, 44, dg, 0, 1480, 1, 1, 0, &s), DECODE_UNSUPPORTED);
    EQ(an.n[ANOM_IPFRAG_EVICTED], 1);
    ipfrag_flush(fr);
    ipfrag_free(fr);
    ipfrag_free(NULL);
}

static void
test_snaplen_cut(void)
{
    /* Every fragment captured with snaplen 120: 100 bytes of each. */
    struct ipfrag *fr = fresh(16);
    struct l4_seg s;

    make_udp(dg, 3000);
    EQ(feed4(fr, 17, 50, dg, 1480, 1480, 1, 1, 120, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 50, dg, 0, 1480, 1, 1, 120, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 50, dg, 2960, 48, 0, 1, 120, &s), DECODE_OK);
    CHECK(s.first_frag_only);
    CHECK(!s.reassembled);
    EQ(s.payload.len, 92);
    EQ(s.payload_wirelen, 3000);
    CHECK(s.payload.p[0] == pattern(0) && s.payload.p[91] == pattern(91));
    EQ(ipfrag_pending(fr), 0);
    EQ(anom_total(), 0);
    ipfrag_free(fr);
}

static void
test_tcp_fragments(void)
{
    struct ipfrag *fr = fresh(16);
    struct l4_seg s;
    static uint8_t seg[20 + 2000];

    memset(seg, 0, 20);
    seg[0] = 0x08, seg[1] = 0x01;                /* sport 2049 */
    seg[2] = 0x03, seg[3] = 0x20;                /* dport 800 */
    seg[4] = 0, seg[5] = 0, seg[6] = 0x10, seg[7] = 0; /* seq 4096 */
    seg[11] = 1;                                 /* ack 1 */
    seg[12] = 0x50;                              /* data offset 5 */
    seg[13] = TCPF_ACK | TCPF_PSH;               /* flags */
    for (size_t i = 0; i < 2000; i++)
        seg[20 + i] = pattern(i);
    EQ(feed4(fr, 6, 60, seg, 1480, 540, 0, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 6, 60, seg, 0, 1480, 1, 1, 0, &s), DECODE_OK);
    CHECK(s.reassembled);
    EQ(s.key.proto, FLOW_PROTO_TCP);
    EQ(s.seq, 4096);
    EQ(s.ack, 1);
    EQ(s.tcp_flags, TCPF_ACK | TCPF_PSH);
    EQ(s.payload_wirelen, 2000);
    CHECK(payload_is_pattern(&s, 2000));

    /* Lost TCP tail: payload_wirelen is what we hold. */
    EQ(feed4(fr, 6, 61, seg, 0, 1480, 1, 1, 0, &s), DECODE_PENDING);
    ipfrag_flush(fr);
    EQ(lost.calls, 1);
    EQ(lost.seg.key.proto, FLOW_PROTO_TCP);
    EQ(lost.seg.payload.len, 1460);
    EQ(lost.seg.payload_wirelen, 1460);
    EQ(lost.seg.seq, 4096);

    /* ICMP fragments are not kept. */
    EQ(feed4(fr, 1, 62, seg, 0, 1480, 1, 1, 0, &s), DECODE_UNSUPPORTED);
    EQ(an.n[ANOM_L4_OTHER], 1);
    ipfrag_free(fr);
}

static void
test_ipv6_fragments(void)
{
    struct ipfrag *fr = fresh(16);
    struct l4_seg s;
    size_t n;

    /* Fragmentable part: Destination Options (8) + UDP (8 + 2000). */
    dg[0] = 17;   /* DSTOPTS: next UDP */
    dg[1] = 0;    /* length 0: 8 bytes */
    dg[2] = 1;    /* PadN */
    dg[3] = 4;
    memset(dg + 4, 0, 4);
    n = 8 + make_udp(dg + 8, 2000);
    EQ(n, 2016);
    EQ(feed6(fr, 60, 0xdeadbeef, dg, 1232, (uint32_t)(n - 1232), 0, 1, &s), DECODE_PENDING);
    EQ(ipfrag_pending(fr), 1);
    EQ(feed6(fr, 60, 0xdeadbeef, dg, 0, 1232, 1, 1, &s), DECODE_OK);
    CHECK(s.reassembled);
    EQ(s.key.af, FLOW_AF_INET6);
    EQ(s.key.proto, FLOW_PROTO_UDP);
    EQ(s.key.saddr[0], 0xfd);
    EQ(s.key.saddr[15], 2);
    EQ(s.key.daddr[15], 1);
    EQ(s.key.sport, 2049);
    EQ(s.payload_wirelen, 2000);
    CHECK(payload_is_pattern(&s, 2000));

    /* Same id, different source would be a different datagram; same key, three pieces. */
    n = make_udp(dg, 3000);
    EQ(feed6(fr, 17, 7, dg, 0, 1448, 1, 2, &s), DECODE_PENDING);
    EQ(feed6(fr, 17, 7, dg, 2896, (uint32_t)(n - 2896), 0, 2, &s), DECODE_PENDING);
    EQ(feed6(fr, 17, 7, dg, 1448, 1448, 1, 2, &s), DECODE_OK);
    CHECK(payload_is_pattern(&s, 3000));

    /* Overlap with different content. */
    EQ(feed6(fr, 17, 8, dg, 0, 1448, 1, 3, &s), DECODE_PENDING);
    dg[1000] ^= 0xff;
    EQ(feed6(fr, 17, 8, dg, 992, 1448, 1, 3, &s), DECODE_INVALID);
    EQ(an.n[ANOM_IPFRAG_BAD], 1);
    EQ(anom_total(), 1);
    EQ(ipfrag_pending(fr), 0);
    ipfrag_free(fr);
}

/* The block bitmaps are walked a 64-bit word (64 blocks, 512 bytes) at a
 * time: holes, fragments and overlaps that start or end at a word's first or
 * last block. A 1,600-byte datagram is blocks 0-199, words 0-3. */
static void
test_word_boundaries(void)
{
    struct ipfrag *fr = fresh(16);
    struct l4_seg s;
    static uint8_t alt[1600];

    EQ(make_udp(dg, 1592), 1600);

    /* A hole of blocks 63-64 [504, 520) across the word 0/1 boundary. */
    EQ(feed4(fr, 17, 20, dg, 0, 504, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 20, dg, 520, 1080, 0, 1, 0, &s), DECODE_PENDING);
    EQ(ipfrag_pending(fr), 1);
    EQ(feed4(fr, 17, 20, dg, 504, 16, 1, 1, 0, &s), DECODE_OK);
    CHECK(s.reassembled);
    CHECK(payload_is_pattern(&s, 1592));

    /* One-block fragments at the last block of a word (63, 127) and the
     * first of the next (64, 128), filled last. */
    EQ(feed4(fr, 17, 21, dg, 0, 504, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 21, dg, 520, 496, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 21, dg, 1032, 568, 0, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 21, dg, 504, 8, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 21, dg, 1024, 8, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 21, dg, 1016, 8, 1, 1, 0, &s), DECODE_PENDING);
    EQ(ipfrag_pending(fr), 1);
    EQ(feed4(fr, 17, 21, dg, 512, 8, 1, 1, 0, &s), DECODE_OK);
    CHECK(payload_is_pattern(&s, 1592));
    /* A late duplicate of a one-block fragment at a word's end is absorbed. */
    EQ(feed4(fr, 17, 21, dg, 1016, 8, 1, 1, 0, &s), DECODE_PENDING);
    EQ(ipfrag_pending(fr), 0);
    EQ(anom_total(), 0);

    /* Retransmitted fragments re-cut at other boundaries, identical bytes:
     * overlaps across words 0-3 are accepted. */
    EQ(feed4(fr, 17, 22, dg, 0, 1480, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 22, dg, 0, 1000, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 22, dg, 496, 1104, 0, 1, 0, &s), DECODE_OK);
    CHECK(payload_is_pattern(&s, 1592));
    EQ(anom_total(), 0);

    /* The held run [0, 1480) crosses words; a retransmission that differs
     * in block 64 (byte 515, just past the word boundary) is an overlap with
     * different content (RFC 5722): the datagram is dropped. */
    memcpy(alt, dg, sizeof alt);
    alt[515] ^= 0x01;
    EQ(feed4(fr, 17, 23, dg, 0, 1480, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 23, alt, 504, 1096, 0, 1, 0, &s), DECODE_INVALID);
    EQ(an.n[ANOM_IPFRAG_BAD], 1);
    EQ(ipfrag_pending(fr), 0);

    /* Held: word 0 whole [0, 512) and [1024, 1600). A fragment over all of it
     * that differs at byte 511 (block 63, the end of the held word). */
    memcpy(alt, dg, sizeof alt);
    alt[511] ^= 0x80;
    EQ(feed4(fr, 17, 24, dg, 0, 512, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 24, dg, 1024, 576, 0, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 24, alt, 256, 1344, 0, 1, 0, &s), DECODE_INVALID);
    EQ(an.n[ANOM_IPFRAG_BAD], 2);
    /* ... or at byte 1024 (block 128, the start of the second held run; a
     * fragment [0, 1600) would be no fragment at all, so it ends at 1592). */
    memcpy(alt, dg, sizeof alt);
    alt[1024] ^= 0x80;
    EQ(feed4(fr, 17, 25, dg, 0, 512, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 25, dg, 1024, 576, 0, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 25, alt, 0, 1592, 1, 1, 0, &s), DECODE_INVALID);
    EQ(an.n[ANOM_IPFRAG_BAD], 3);
    /* A difference only in the hole [512, 1024) is not an overlap: the
     * datagram completes with the new fragment's bytes there. */
    memcpy(alt, dg, sizeof alt);
    alt[512] ^= 0x80;
    alt[1023] ^= 0x80;
    EQ(feed4(fr, 17, 26, dg, 0, 512, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 26, dg, 1024, 576, 0, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 26, alt, 0, 1592, 1, 1, 0, &s), DECODE_OK);
    EQ(s.payload.len, 1592);
    CHECK(memcmp(s.payload.p, alt + 8, 1592) == 0);
    EQ(an.n[ANOM_IPFRAG_BAD], 3);
    EQ(anom_total(), 3);
    EQ(ipfrag_pending(fr), 0);
    ipfrag_free(fr);
}

/* xorshift32: deterministic pseudo-random input. */
static uint32_t rng_state = 0x12345678u;

static uint32_t
rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

/* Random fragments (few ids, random offsets, lengths, MF, snaplen) into a
 * tiny table, and random bytes as IP headers: no crash, bounds hold. */
static void
test_random(void)
{
    struct ipfrag *fr = fresh(4);
    struct l4_seg s;
    static uint8_t big[65536 + 2048];
    unsigned bad = 0;

    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)rng();
    for (unsigned it = 0; it < 20000; it++) {
        uint32_t off = (rng() % 8200) * 8, len = 8 * (rng() % 190) + rng() % 8;
        int more = (int)(rng() & 1);
        size_t snap = rng() % 3 == 0 ? rng() % 200 : 0;
        enum decode_rc rc;

        if (off > 65528)
            off = 65528; /* the 13-bit field's maximum */
        if (len > 1480)
            len = 1480;
        if (rng() % 4 == 0)
            off = 0;
        rc = feed4(fr, (rng() & 1) ? 17 : 6, (uint16_t)(rng() % 6), big, off, len, more,
                   (time_t)(it / 50), snap, &s);
        if (rc == DECODE_OK)
            CHECK(s.payload.len <= s.payload_wirelen && s.payload.len <= 65535 &&
                  (s.payload.len == 0 || s.payload.p != NULL));
        if (ipfrag_pending(fr) > 4)
            bad++;
        if (it % 97 == 0)
            ipfrag_expire(fr, &(struct timespec){ (time_t)(it / 50), 0 }, 2);
    }
    EQ(bad, 0);
    ipfrag_flush(fr);
    EQ(ipfrag_pending(fr), 0);

    /* Random bytes behind a valid version nibble. */
    for (unsigned it = 0; it < 20000; it++) {
        uint8_t p[96];
        struct l3_view v;
        size_t n = rng() % sizeof p;
        struct timespec ts = at((time_t)it);

        for (size_t k = 0; k < sizeof p; k++)
            p[k] = (uint8_t)rng();
        memset(&v, 0, sizeof v);
        v.kind = (rng() & 1) ? L3_IPV4 : L3_IPV6;
        p[0] = (uint8_t)((v.kind == L3_IPV4 ? 0x40 : 0x60) | (p[0] & 0x0f));
        if (v.kind == L3_IPV4 && rng() % 2)
            p[2] = 0, p[3] = (uint8_t)n; /* plausible total length */
        if (v.kind == L3_IPV6 && rng() % 2)
            p[4] = 0, p[5] = (uint8_t)(n > 40 ? n - 40 : 0);
        v.l3.p = p;
        v.l3.len = n;
        v.l3_wirelen = (uint32_t)n + (rng() % 3 == 0 ? rng() % 64 : 0);
        if (ip_decode(fr, &v, &ts, &an, &s) == DECODE_OK && !s.reassembled &&
            !s.first_frag_only)
            CHECK(s.payload.len == 0 ||
                  (s.payload.p >= p && s.payload.p + s.payload.len <= p + n));
    }
    ipfrag_flush(fr);
    ipfrag_free(fr);
}

/* The XID make_udp() puts after the UDP header (pattern bytes 0..3). */
static uint32_t
dg_xid(void)
{
    return (uint32_t)pattern(0) << 24 | (uint32_t)pattern(1) << 16 | (uint32_t)pattern(2) << 8 |
           pattern(3);
}

/* A reply with no call gives up only the datagram of its own XID: calls of
 * other XIDs whose fragments are still arriving between the same hosts (UDP
 * WRITEs interleaved with replies) complete and are counted whole. */
static void
test_give_up_only_that_call(void)
{
    struct ipfrag *fr = fresh(8);
    struct l4_seg s;
    uint8_t src[16] = { 10, 0, 0, 2 }, dst[16] = { 10, 0, 0, 1 };
    uint8_t other[3008];

    make_udp(dg, 3000);
    memcpy(other, dg, sizeof other);
    other[8] ^= 0xff; /* another XID */
    EQ(feed4(fr, 17, 1, dg, 0, 1480, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 2, other, 0, 1480, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 3, other, 1480, 1480, 1, 1, 0, &s), DECODE_PENDING); /* no first fragment */
    ipfrag_give_up_call(fr, FLOW_AF_INET, FLOW_PROTO_UDP, src, dst, dg_xid() ^ 1); /* no such */
    EQ(ipfrag_pending(fr), 3);
    ipfrag_give_up_call(fr, FLOW_AF_INET, FLOW_PROTO_UDP, dst, src, dg_xid()); /* other way */
    EQ(ipfrag_pending(fr), 3);
    ipfrag_give_up_call(fr, FLOW_AF_INET, FLOW_PROTO_UDP, src, dst, dg_xid());
    EQ(ipfrag_pending(fr), 2);
    EQ(an.n[ANOM_IPFRAG_EXPIRED], 1);
    EQ(lost.calls, 1);
    /* The other call's datagram still completes. */
    EQ(feed4(fr, 17, 2, other, 1480, 1480, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 2, other, 2960, 48, 0, 1, 0, &s), DECODE_OK);
    EQ(s.payload.len, 3000);
    ipfrag_free(fr);
}

/* The lost callback calls back in, as the pipeline's orphan hook does: a
 * given-up UDP reply with no call gives up the datagrams going the other way.
 * Between equal addresses (loopback) that once found the datagram being given
 * up again and recursed until the stack overflowed. */
static struct ipfrag *reentrant_fr;
static unsigned reentrant_calls, reentrant_depth;

static void
on_lost_reenter(void *ctx, const struct l4_seg *seg, const struct timespec *ts)
{
    (void)ctx;
    (void)ts;
    reentrant_calls++;
    if (reentrant_depth >= 4)
        return; /* the bug: stop before the stack does */
    reentrant_depth++;
    /* From the datagram's destination to its source, and the same way too
     * (with src == dst, the two are the same key). */
    ipfrag_give_up_call(reentrant_fr, seg->key.af, seg->key.proto, seg->key.daddr,
                        seg->key.saddr, dg_xid());
    ipfrag_give_up_call(reentrant_fr, seg->key.af, seg->key.proto, seg->key.saddr,
                        seg->key.daddr, dg_xid());
    reentrant_depth--;
}

static void
test_lost_callback_reenters(void)
{
    struct ipfrag *fr = fresh(8);
    struct l4_seg s;
    uint8_t src[16] = { 10, 0, 0, 2 }, dst[16] = { 10, 0, 0, 1 };

    reentrant_fr = fr;
    reentrant_calls = 0;
    ipfrag_set_lost_cb(fr, on_lost_reenter, NULL);
    make_udp(dg, 3000);
    /* Three first fragments, tails never sent. */
    EQ(feed4(fr, 17, 1, dg, 0, 1480, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 2, dg, 0, 1480, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 3, dg, 0, 1480, 1, 1, 0, &s), DECODE_PENDING);
    EQ(ipfrag_pending(fr), 3);
    /* Giving up the first hands it to the callback, which gives up the other
     * two from inside: each datagram reported once, no recursion. */
    ipfrag_give_up_call(fr, FLOW_AF_INET, FLOW_PROTO_UDP, src, dst, dg_xid());
    EQ(reentrant_calls, 3);
    EQ(an.n[ANOM_IPFRAG_EXPIRED], 3);
    EQ(ipfrag_pending(fr), 0);
    /* Same through expiry and the end-of-input flush. */
    reentrant_calls = 0;
    EQ(feed4(fr, 17, 4, dg, 0, 1480, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 5, dg, 0, 1480, 1, 1, 0, &s), DECODE_PENDING);
    ipfrag_expire(fr, &(struct timespec){ 100, 0 }, 0);
    EQ(reentrant_calls, 2);
    EQ(feed4(fr, 17, 6, dg, 0, 1480, 1, 200, 0, &s), DECODE_PENDING);
    ipfrag_flush(fr);
    EQ(reentrant_calls, 3);
    EQ(an.n[ANOM_IPFRAG_EXPIRED], 6);
    EQ(ipfrag_pending(fr), 0);
    /* The buffers all came back: a full table still works. */
    for (uint16_t id = 10; id < 18; id++)
        EQ(feed4(fr, 17, id, dg, 0, 1480, 1, 300, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 10, dg, 1480, 1480, 1, 300, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 10, dg, 2960, 48, 0, 300, 0, &s), DECODE_OK);
    CHECK(payload_is_pattern(&s, 3000));
    ipfrag_free(fr);
}

/* Buffers are reused: one given up with some blocks held, or finished, must
 * not lend its coverage to the next datagram that takes it (a table of one
 * slot reuses the same buffer every time). */
static void
test_buffer_reuse(void)
{
    struct ipfrag *fr = fresh(1);
    struct l4_seg s;

    make_udp(dg, 3000);
    /* The middle alone, then given up when the next datagram needs the slot. */
    EQ(feed4(fr, 17, 30, dg, 1480, 1480, 1, 1, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 31, dg, 0, 1480, 1, 1, 0, &s), DECODE_PENDING);
    EQ(an.n[ANOM_IPFRAG_EVICTED], 1);
    /* Its last fragment does not finish it: the middle it would borrow is not its own. */
    EQ(feed4(fr, 17, 31, dg, 2960, 48, 0, 1, 0, &s), DECODE_PENDING);
    EQ(ipfrag_pending(fr), 1);
    EQ(feed4(fr, 17, 31, dg, 1480, 1480, 1, 1, 0, &s), DECODE_OK);
    CHECK(payload_is_pattern(&s, 3000));
    /* After a finished datagram the same holds: id 32 needs all three. */
    EQ(feed4(fr, 17, 32, dg, 0, 1480, 1, 5, 0, &s), DECODE_PENDING);
    EQ(feed4(fr, 17, 32, dg, 2960, 48, 0, 5, 0, &s), DECODE_PENDING);
    EQ(ipfrag_pending(fr), 1);
    EQ(feed4(fr, 17, 32, dg, 1480, 1480, 1, 5, 0, &s), DECODE_OK);
    CHECK(payload_is_pattern(&s, 3000));
    EQ(an.n[ANOM_IPFRAG_BAD], 0);
    ipfrag_free(fr);
}

int
main(void)
{
    test_in_order_and_reverse();
    test_duplicates();
    test_overlap_inconsistent();
    test_word_boundaries();
    test_giant_and_zero();
    test_big_udp_reply();
    test_expiry_and_lost();
    test_budget();
    test_table_full();
    test_snaplen_cut();
    test_tcp_fragments();
    test_ipv6_fragments();
    test_random();
    test_lost_callback_reenters();
    test_give_up_only_that_call();
    test_buffer_reuse();
    return t_done();
}
