/* SPDX-License-Identifier: BSD-3-Clause */
/* decode_ip_test.c: unit tests for decode_ip.c (IPv4, IPv6, TCP, UDP) on annotated packets. */
#include "decode_ip.h"

#include <pcap/dlt.h>
#include <stdlib.h>

#include "t.h"

static const struct timespec T0 = { 1000, 0 };

/* IPv4 (IHL 6: one option word) + TCP (data offset 8: 12 option bytes) + 5 bytes. */
static const uint8_t v4_tcp_opts[] = {
    0x46, 0x00, 0x00, 0x3d,             /* v4, IHL 6; TOS; total length 61 */
    0x12, 0x34, 0x40, 0x00,             /* id 0x1234; DF, offset 0 */
    0x40, 0x06, 0x00, 0x00,             /* TTL 64; proto TCP; checksum (filled in) */
    0x0a, 0x00, 0x00, 0x01,             /* src 10.0.0.1 */
    0x0a, 0x00, 0x00, 0x02,             /* dst 10.0.0.2 */
    0x94, 0x04, 0x00, 0x00,             /* option: router alert (RFC 2113) */
    0x03, 0x20, 0x08, 0x01,             /* TCP sport 800, dport 2049 */
    0x11, 0x22, 0x33, 0x44,             /* seq */
    0x55, 0x66, 0x77, 0x88,             /* ack */
    0x80, 0x18, 0x01, 0xf5,             /* data offset 8; flags PSH|ACK; window */
    0x00, 0x00, 0x00, 0x00,             /* checksum; urgent pointer */
    0x01, 0x01, 0x08, 0x0a,             /* NOP NOP timestamp(10) */
    0x00, 0x00, 0x00, 0x01,             /*   TSval */
    0x00, 0x00, 0x00, 0x02,             /*   TSecr */
    0x80, 0x00, 0x00, 0x01, 0xaa,       /* payload: 5 bytes */
};

/* IPv4 + UDP with 2 payload bytes, then Ethernet padding up to 46 bytes. */
static const uint8_t v4_udp_padded[46] = {
    0x45, 0x00, 0x00, 0x1e,             /* v4, IHL 5; total length 30 */
    0x00, 0x01, 0x00, 0x00,             /* id 1; no flags */
    0x40, 0x11, 0x00, 0x00,             /* TTL; proto UDP; checksum (filled in) */
    0xc0, 0xa8, 0x01, 0x01,             /* src 192.168.1.1 */
    0xc0, 0xa8, 0x01, 0x02,             /* dst 192.168.1.2 */
    0x08, 0x01, 0x03, 0x20,             /* UDP sport 2049, dport 800 */
    0x00, 0x0a, 0x00, 0x00,             /* UDP length 10; checksum 0 */
    0xde, 0xad,                         /* payload */
    /* 16 bytes of zero padding follow */
};

/* IPv6 + Hop-by-Hop (8) + Destination Options (16) + UDP + 4 bytes. */
static const uint8_t v6_ext_udp[] = {
    0x60, 0x00, 0x00, 0x00,             /* v6, TC, flow label */
    0x00, 0x24, 0x00, 0x40,             /* payload length 36; next HBH; hop limit */
    0xfd, 0x00, 0, 0, 0, 0, 0, 0,       /* src fd00::1 */
    0, 0, 0, 0, 0, 0, 0, 0x01,
    0xfd, 0x00, 0, 0, 0, 0, 0, 0,       /* dst fd00::2 */
    0, 0, 0, 0, 0, 0, 0, 0x02,
    0x3c, 0x00, 0x01, 0x04,             /* HBH: next DSTOPTS, len 0 (8 bytes); PadN(4) */
    0x00, 0x00, 0x00, 0x00,
    0x11, 0x01, 0x01, 0x0c,             /* DSTOPTS: next UDP, len 1 (16 bytes); PadN(12) */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0x08, 0x01, 0x03, 0x20,             /* UDP sport 2049, dport 800 */
    0x00, 0x0c, 0x00, 0x00,             /* UDP length 12; checksum */
    0x01, 0x02, 0x03, 0x04,             /* payload */
};

/* IPv6 + TCP (SYN, no payload). */
static const uint8_t v6_tcp_syn[] = {
    0x60, 0x00, 0x00, 0x00,             /* v6 */
    0x00, 0x14, 0x06, 0x40,             /* payload length 20; next TCP */
    0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, /* src 2001:db8::10 */
    0, 0, 0, 0, 0, 0, 0, 0x10,
    0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, /* dst 2001:db8::20 */
    0, 0, 0, 0, 0, 0, 0, 0x20,
    0xc0, 0x00, 0x08, 0x01,             /* sport 49152, dport 2049 */
    0x00, 0x00, 0x00, 0x64,             /* seq 100 */
    0x00, 0x00, 0x00, 0x00,             /* ack 0 */
    0x50, 0x02, 0xff, 0xff,             /* data offset 5; SYN; window */
    0x00, 0x00, 0x00, 0x00,             /* checksum; urgent */
};

static void
set_ipv4_checksum(uint8_t *h)
{
    uint32_t sum = 0;
    size_t hlen = (size_t)(h[0] & 0x0f) * 4;

    h[10] = h[11] = 0;
    for (size_t i = 0; i + 1 < hlen; i += 2)
        sum += (uint32_t)h[i] << 8 | h[i + 1];
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    sum = ~sum & 0xffff;
    h[10] = (uint8_t)(sum >> 8);
    h[11] = (uint8_t)sum;
}

static uint64_t
anom_total(const struct anomalies *an)
{
    uint64_t n = 0;

    for (size_t i = 0; i < ANOM__COUNT; i++)
        n += an->n[i];
    return n;
}

/* Decode `len` bytes copied into an exactly-sized heap buffer (ASan sees over-reads). */
static enum decode_rc
dec(enum l3_kind kind, const uint8_t *pkt, size_t len, uint32_t wirelen, struct anomalies *an,
    struct l4_seg *out, uint8_t **keep)
{
    struct l3_view v;
    uint8_t *buf = malloc(len ? len : 1);
    enum decode_rc rc;

    if (!buf)
        return DECODE_INVALID;
    if (len)
        memcpy(buf, pkt, len);
    memset(&v, 0, sizeof v);
    v.kind = kind;
    v.l3.p = buf;
    v.l3.len = len;
    v.l3_wirelen = wirelen;
    rc = ip_decode(NULL, &v, &T0, an, out);
    if (out->payload.len)
        CHECK(out->payload.p >= buf && out->payload.p + out->payload.len <= buf + len);
    if (keep)
        *keep = buf;
    else
        free(buf);
    return rc;
}

static void
test_ipv4_tcp_options(void)
{
    uint8_t p[sizeof v4_tcp_opts];
    struct anomalies an = { { 0 } };
    struct l4_seg s;
    uint8_t *buf;
    const uint8_t zero12[12] = { 0 };

    memcpy(p, v4_tcp_opts, sizeof p);
    set_ipv4_checksum(p);
    EQ(dec(L3_IPV4, p, sizeof p, sizeof p, &an, &s, &buf), DECODE_OK);
    EQ(anom_total(&an), 0);
    EQ(s.key.af, FLOW_AF_INET);
    EQ(s.key.proto, FLOW_PROTO_TCP);
    EQ(s.key.saddr[0], 10);
    EQ(s.key.saddr[3], 1);
    EQ(s.key.daddr[3], 2);
    CHECK(memcmp(s.key.saddr + 4, zero12, 12) == 0);
    CHECK(memcmp(s.key.daddr + 4, zero12, 12) == 0);
    EQ(s.key.sport, 800);
    EQ(s.key.dport, 2049);
    EQ(s.seq, 0x11223344);
    EQ(s.ack, 0x55667788);
    EQ(s.tcp_flags, TCPF_PSH | TCPF_ACK);
    EQ(s.payload.len, 5);
    EQ(s.payload_wirelen, 5);
    CHECK(s.payload.p == buf + sizeof p - 5);
    EQ(s.payload.p[0], 0x80);
    CHECK(!s.reassembled && !s.first_frag_only);
    free(buf);

    /* Bad header checksum: counted, still decoded. */
    p[11] ^= 0xff;
    EQ(dec(L3_IPV4, p, sizeof p, sizeof p, &an, &s, NULL), DECODE_OK);
    EQ(an.n[ANOM_IP_CHECKSUM], 1);
    EQ(s.payload.len, 5);
}

/* The header checksum over every header length (IHL 5..15), with option
 * bytes that carry on every add (0xff) and pseudo-random ones, against the
 * 16-bit big-endian sum written by set_ipv4_checksum(): a right checksum is
 * not counted, one bit flipped in any header word is. */
static void
test_ipv4_checksum_lengths(void)
{
    uint32_t x = 12345;

    for (unsigned ihl = 5; ihl <= 15; ihl++) {
        for (unsigned k = 0; k < 50; k++) {
            uint8_t p[60 + 20];
            size_t hlen = ihl * 4u, n = hlen + 20;
            struct anomalies an = { { 0 } };
            struct l4_seg s;

            memset(p, 0, sizeof p);
            for (size_t i = 20; i < hlen; i++) {
                x = x * 1103515245u + 12345u;
                p[i] = k == 0 ? 0xff : (uint8_t)(x >> 16);
            }
            p[0] = (uint8_t)(0x40 | ihl);
            p[2] = 0;
            p[3] = (uint8_t)n;
            p[8] = 0xff; /* TTL */
            p[9] = 17;   /* UDP */
            memset(p + 12, k == 0 ? 0xff : (int)(x >> 8 & 0xff), 8); /* addresses */
            p[hlen + 5] = 20; /* UDP length: 8 + 12 */
            set_ipv4_checksum(p);
            EQ(dec(L3_IPV4, p, n, (uint32_t)n, &an, &s, NULL), DECODE_OK);
            EQ(an.n[ANOM_IP_CHECKSUM], 0);
            if ((k * 7) % hlen < 4 && (k * 7) % hlen != 1)
                continue; /* version, IHL, total length: another anomaly first */
            p[(k * 7) % hlen] ^= (uint8_t)(1u << (k % 8));
            dec(L3_IPV4, p, n, (uint32_t)n, &an, &s, NULL);
            EQ(an.n[ANOM_IP_CHECKSUM], 1);
        }
    }
}

static void
test_ipv4_udp_padding(void)
{
    uint8_t p[sizeof v4_udp_padded];
    struct anomalies an = { { 0 } };
    struct l4_seg s;

    memcpy(p, v4_udp_padded, sizeof p);
    set_ipv4_checksum(p);
    EQ(dec(L3_IPV4, p, sizeof p, sizeof p, &an, &s, NULL), DECODE_OK);
    EQ(anom_total(&an), 0);
    EQ(s.key.proto, FLOW_PROTO_UDP);
    EQ(s.key.sport, 2049);
    EQ(s.key.dport, 800);
    EQ(s.payload.len, 2); /* the 16 padding bytes are dropped */
    EQ(s.payload_wirelen, 2);

    /* UDP length shorter than the IP payload: trailing bytes ignored. */
    p[25] = 0x09; /* UDP length 9 */
    EQ(dec(L3_IPV4, p, sizeof p, sizeof p, &an, &s, NULL), DECODE_OK);
    EQ(s.payload.len, 1);
    /* UDP length past the IP payload, and below 8. */
    p[25] = 0x0b;
    EQ(dec(L3_IPV4, p, sizeof p, sizeof p, &an, &s, NULL), DECODE_INVALID);
    EQ(an.n[ANOM_UDP_MALFORMED], 1);
    p[25] = 0x07;
    EQ(dec(L3_IPV4, p, sizeof p, sizeof p, &an, &s, NULL), DECODE_INVALID);
    EQ(an.n[ANOM_UDP_MALFORMED], 2);
    EQ(anom_total(&an), 2);
}

static void
test_ipv4_malformed(void)
{
    uint8_t p[sizeof v4_udp_padded];
    struct anomalies an = { { 0 } };
    struct l4_seg s;

    memcpy(p, v4_udp_padded, 30);

    p[0] = 0x44; /* IHL 4 */
    set_ipv4_checksum(p);
    EQ(dec(L3_IPV4, p, 30, 30, &an, &s, NULL), DECODE_INVALID);
    EQ(an.n[ANOM_IP_MALFORMED], 1);

    p[0] = 0x65; /* version 6 in an IPv4 frame */
    EQ(dec(L3_IPV4, p, 30, 30, &an, &s, NULL), DECODE_INVALID);
    EQ(an.n[ANOM_IP_MALFORMED], 2);

    p[0] = 0x45;
    p[2] = 0xff; /* giant: total length 65310 in a 30-byte frame */
    set_ipv4_checksum(p);
    EQ(dec(L3_IPV4, p, 30, 30, &an, &s, NULL), DECODE_INVALID);
    EQ(an.n[ANOM_IP_MALFORMED], 3);

    p[2] = 0x00;
    p[3] = 0x10; /* total length 16 < header */
    set_ipv4_checksum(p);
    EQ(dec(L3_IPV4, p, 30, 30, &an, &s, NULL), DECODE_INVALID);
    EQ(an.n[ANOM_IP_MALFORMED], 4);
    EQ(anom_total(&an), 4);

    /* Total length 0 (TSO on the sending host): the frame length is used. */
    p[3] = 0x00;
    set_ipv4_checksum(p);
    EQ(dec(L3_IPV4, p, 30, 30, &an, &s, NULL), DECODE_OK);
    EQ(s.payload.len, 2);

    /* A short snapshot of a long packet: payload clipped to captured bytes. */
    p[2] = 0x05;
    p[3] = 0xdc; /* total length 1500 */
    p[24] = 0x05;
    p[25] = 0xc8; /* UDP length 1480 */
    set_ipv4_checksum(p);
    EQ(dec(L3_IPV4, p, 30, 1500, &an, &s, NULL), DECODE_OK);
    EQ(s.payload.len, 2);
    EQ(s.payload_wirelen, 1472);

    /* ICMP: not ours. */
    p[9] = 1;
    set_ipv4_checksum(p);
    EQ(dec(L3_IPV4, p, 30, 1500, &an, &s, NULL), DECODE_UNSUPPORTED);
    EQ(an.n[ANOM_L4_OTHER], 1);
    EQ(anom_total(&an), 5);
}

static void
test_tcp_malformed(void)
{
    uint8_t p[sizeof v4_tcp_opts];
    struct anomalies an = { { 0 } };
    struct l4_seg s;

    memcpy(p, v4_tcp_opts, sizeof p);
    p[36] = 0x40; /* data offset 4 */
    set_ipv4_checksum(p);
    EQ(dec(L3_IPV4, p, sizeof p, sizeof p, &an, &s, NULL), DECODE_INVALID);
    EQ(an.n[ANOM_TCP_MALFORMED], 1);
    p[36] = 0xf0; /* data offset 15: 60 bytes > 37 in the IP payload */
    EQ(dec(L3_IPV4, p, sizeof p, sizeof p, &an, &s, NULL), DECODE_INVALID);
    EQ(an.n[ANOM_TCP_MALFORMED], 2);
    p[36] = 0x80;
    p[3] = 0x26; /* total length 38: TCP segment of 14 bytes */
    set_ipv4_checksum(p);
    EQ(dec(L3_IPV4, p, sizeof p, sizeof p, &an, &s, NULL), DECODE_INVALID);
    EQ(an.n[ANOM_TCP_MALFORMED], 3);
    EQ(anom_total(&an), 3);
}

/* Every caplen below the headers is TRUNCATED (one PKT_TRUNCATED each);
 * from there on, the payload grows with caplen. */
static void
check_truncation(enum l3_kind kind, const uint8_t *p, size_t full, size_t hdrs)
{
    for (size_t n = 0; n <= full; n++) {
        struct anomalies an = { { 0 } };
        struct l4_seg s;
        enum decode_rc rc = dec(kind, p, n, (uint32_t)full, &an, &s, NULL);

        if (n < hdrs) {
            EQ(rc, DECODE_TRUNCATED);
            EQ(an.n[ANOM_PKT_TRUNCATED], 1);
        } else {
            EQ(rc, DECODE_OK);
            EQ(s.payload.len, n - hdrs);
            EQ(s.payload_wirelen, full - hdrs);
        }
        EQ(anom_total(&an), n < hdrs ? 1 : 0);
    }
}

static void
test_truncation(void)
{
    uint8_t p4[sizeof v4_tcp_opts], pu[30];

    memcpy(p4, v4_tcp_opts, sizeof p4);
    set_ipv4_checksum(p4);
    check_truncation(L3_IPV4, p4, sizeof p4, 24 + 32);
    memcpy(pu, v4_udp_padded, sizeof pu);
    set_ipv4_checksum(pu);
    check_truncation(L3_IPV4, pu, sizeof pu, 28);
    check_truncation(L3_IPV6, v6_ext_udp, sizeof v6_ext_udp, 40 + 24 + 8);
    check_truncation(L3_IPV6, v6_tcp_syn, sizeof v6_tcp_syn, 60);
}

static void
test_ipv6(void)
{
    struct anomalies an = { { 0 } };
    struct l4_seg s;
    uint8_t p[sizeof v6_ext_udp + 8];
    uint8_t *buf;

    EQ(dec(L3_IPV6, v6_ext_udp, sizeof v6_ext_udp, sizeof v6_ext_udp, &an, &s, &buf), DECODE_OK);
    EQ(s.key.af, FLOW_AF_INET6);
    EQ(s.key.proto, FLOW_PROTO_UDP);
    EQ(s.key.saddr[0], 0xfd);
    EQ(s.key.saddr[15], 1);
    EQ(s.key.daddr[15], 2);
    EQ(s.key.sport, 2049);
    EQ(s.payload.len, 4);
    EQ(s.payload.p[3], 4);
    free(buf);
    EQ(anom_total(&an), 0);

    EQ(dec(L3_IPV6, v6_tcp_syn, sizeof v6_tcp_syn, sizeof v6_tcp_syn, &an, &s, NULL), DECODE_OK);
    EQ(s.key.proto, FLOW_PROTO_TCP);
    EQ(s.tcp_flags, TCPF_SYN);
    EQ(s.seq, 100);
    EQ(s.payload.len, 0);
    EQ(s.payload_wirelen, 0);

    /* Trailing link padding after the IPv6 payload is dropped. */
    memset(p, 0xee, sizeof p);
    memcpy(p, v6_ext_udp, sizeof v6_ext_udp);
    EQ(dec(L3_IPV6, p, sizeof p, sizeof p, &an, &s, NULL), DECODE_OK);
    EQ(s.payload.len, 4);

    /* Payload length 0 (jumbogram/TSO): the frame length is used. */
    memcpy(p, v6_ext_udp, sizeof v6_ext_udp);
    p[5] = 0;
    EQ(dec(L3_IPV6, p, sizeof v6_ext_udp, sizeof v6_ext_udp, &an, &s, NULL), DECODE_OK);
    EQ(s.payload.len, 4);

    /* Payload length beyond the frame. */
    p[5] = 0x30;
    EQ(dec(L3_IPV6, p, sizeof v6_ext_udp, sizeof v6_ext_udp, &an, &s, NULL), DECODE_INVALID);
    EQ(an.n[ANOM_IP_MALFORMED], 1);

    /* Hop-by-Hop after Destination Options is not allowed (RFC 8200 §4.1). */
    memcpy(p, v6_ext_udp, sizeof v6_ext_udp);
    p[6] = 60;  /* IPv6 next: DSTOPTS */
    p[40] = 0;  /* that header's next: HBH */
    EQ(dec(L3_IPV6, p, sizeof v6_ext_udp, sizeof v6_ext_udp, &an, &s, NULL), DECODE_INVALID);
    EQ(an.n[ANOM_IPV6_EXT_BAD], 1);

    /* Extension header longer than the payload. */
    memcpy(p, v6_ext_udp, sizeof v6_ext_udp);
    p[49] = 0x10; /* DSTOPTS len 16: 136 bytes */
    EQ(dec(L3_IPV6, p, sizeof v6_ext_udp, sizeof v6_ext_udp, &an, &s, NULL), DECODE_INVALID);
    EQ(an.n[ANOM_IPV6_EXT_BAD], 2);

    /* No Next Header (59) and ICMPv6 (58). */
    memcpy(p, v6_ext_udp, sizeof v6_ext_udp);
    p[48] = 59;
    EQ(dec(L3_IPV6, p, sizeof v6_ext_udp, sizeof v6_ext_udp, &an, &s, NULL), DECODE_UNSUPPORTED);
    p[48] = 58;
    EQ(dec(L3_IPV6, p, sizeof v6_ext_udp, sizeof v6_ext_udp, &an, &s, NULL), DECODE_UNSUPPORTED);
    EQ(an.n[ANOM_L4_OTHER], 2);

    /* Version 4 in an IPv6 frame. */
    memcpy(p, v6_ext_udp, sizeof v6_ext_udp);
    p[0] = 0x45;
    EQ(dec(L3_IPV6, p, sizeof v6_ext_udp, sizeof v6_ext_udp, &an, &s, NULL), DECODE_INVALID);
    EQ(an.n[ANOM_IP_MALFORMED], 2);
    EQ(anom_total(&an), 6);
}

static void
test_ipv6_chain_bound(void)
{
    /* IPv6 + 9 Destination Options headers (8 bytes each) + UDP: too long a chain. */
    uint8_t p[40 + 9 * 8 + 8];
    struct anomalies an = { { 0 } };
    struct l4_seg s;

    memset(p, 0, sizeof p);
    p[0] = 0x60;
    p[5] = (uint8_t)(sizeof p - 40); /* payload length */
    p[6] = 60;                       /* next: DSTOPTS */
    for (unsigned i = 0; i < 9; i++)
        p[40 + i * 8] = i == 8 ? 17 : 60; /* next header; len 0 */
    p[40 + 72 + 5] = 8;                   /* UDP length 8 */
    EQ(dec(L3_IPV6, p, sizeof p, sizeof p, &an, &s, NULL), DECODE_INVALID);
    EQ(an.n[ANOM_IPV6_EXT_BAD], 1);

    /* Eight are accepted: drop one by pointing the IPv6 header past the first. */
    memmove(p + 40, p + 48, sizeof p - 48);
    p[5] = (uint8_t)(sizeof p - 48);
    EQ(dec(L3_IPV6, p, sizeof p - 8, sizeof p - 8, &an, &s, NULL), DECODE_OK);
    EQ(s.key.proto, FLOW_PROTO_UDP);
    EQ(anom_total(&an), 1);
}

static void
test_fragments_without_table(void)
{
    /* IPv6 atomic fragment (offset 0, M 0; RFC 6946): decoded as a whole packet. */
    static const uint8_t v6_atomic[] = {
        0x60, 0x00, 0x00, 0x00,         /* v6 */
        0x00, 0x12, 0x2c, 0x40,         /* payload length 18; next FRAGMENT */
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, /* src ::1 */
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, /* dst ::1 */
        0x11, 0x00, 0x00, 0x00,         /* FRAG: next UDP; reserved; offset 0, M 0 */
        0x00, 0x00, 0x00, 0x07,         /* identification */
        0x03, 0x20, 0x08, 0x01,         /* UDP 800 -> 2049 */
        0x00, 0x0a, 0x00, 0x00,         /* length 10 */
        0xab, 0xcd,
    };
    uint8_t p[48];
    struct anomalies an = { { 0 } };
    struct l4_seg s;

    EQ(dec(L3_IPV6, v6_atomic, sizeof v6_atomic, sizeof v6_atomic, &an, &s, NULL), DECODE_OK);
    EQ(s.payload.len, 2);
    CHECK(!s.first_frag_only);

    /* IPv4 first fragment of a bigger UDP datagram, with no reassembly table:
     * decoded alone, payload_wirelen from the UDP length. */
    memset(p, 0x5a, sizeof p);
    memcpy(p, v4_udp_padded, 28);
    p[3] = 48;   /* total length 48: 20 IP + 8 UDP + 20 data */
    p[6] = 0x20; /* MF, offset 0 */
    p[24] = 0x10;
    p[25] = 0x08; /* UDP length 4104 */
    set_ipv4_checksum(p);
    EQ(dec(L3_IPV4, p, sizeof p, sizeof p, &an, &s, NULL), DECODE_OK);
    CHECK(s.first_frag_only);
    CHECK(!s.reassembled);
    EQ(s.payload.len, 20);
    EQ(s.payload_wirelen, 4096);
    EQ(anom_total(&an), 0);

    /* A later fragment cannot be used. */
    p[6] = 0x20;
    p[7] = 0x03; /* offset 24 */
    set_ipv4_checksum(p);
    EQ(dec(L3_IPV4, p, sizeof p, sizeof p, &an, &s, NULL), DECODE_UNSUPPORTED);
    EQ(an.n[ANOM_IPFRAG_EVICTED], 1);
    EQ(anom_total(&an), 1);
}

static void
test_no_l3(void)
{
    struct anomalies an = { { 0 } };
    struct l4_seg s;
    struct l3_view v;

    memset(&v, 0, sizeof v);
    EQ(ip_decode(NULL, &v, &T0, &an, &s), DECODE_UNSUPPORTED);
    EQ(anom_total(&an), 1);
    v.kind = L3_IPV4; /* no bytes at all */
    EQ(ip_decode(NULL, &v, &T0, &an, &s), DECODE_TRUNCATED);
    EQ(an.n[ANOM_PKT_TRUNCATED], 1);
}

/* End to end with decode_link: a minimum-size Ethernet frame (60 bytes captured,
 * 64 on the wire with the FCS) whose IPv4/UDP packet is 30 bytes. */
static void
test_ethernet_padding(void)
{
    uint8_t f[60];
    struct l3_view v;
    struct l4_seg s;
    struct anomalies an = { { 0 } };

    memset(f, 0, sizeof f);
    f[12] = 0x08; /* EtherType IPv4 */
    memcpy(f + 14, v4_udp_padded, 30);
    set_ipv4_checksum(f + 14);
    EQ(link_decode(DLT_EN10MB, f, sizeof f, 64, &v), DECODE_OK);
    EQ(v.l3.len, 46);
    EQ(ip_decode(NULL, &v, &T0, &an, &s), DECODE_OK);
    EQ(s.payload.len, 2);
    EQ(s.payload_wirelen, 2);
    CHECK(s.payload.p == f + 14 + 28);
    EQ(anom_total(&an), 0);
}

int
main(void)
{
    test_ipv4_tcp_options();
    test_ipv4_checksum_lengths();
    test_ipv4_udp_padding();
    test_ipv4_malformed();
    test_tcp_malformed();
    test_truncation();
    test_ipv6();
    test_ipv6_chain_bound();
    test_fragments_without_table();
    test_no_l3();
    test_ethernet_padding();
    return t_done();
}
