/* SPDX-License-Identifier: BSD-3-Clause */
/* floodgen.c: write a resource-flood capture (classic pcap, Ethernet) to stdout.
 *
 *   floodgen KIND N [STEP_US] | nfsscope -r - ...
 *
 * Used by tests/e2e_flood.py: each KIND fills one bounded table of nfsscope
 * far past its limit, so the test can check that memory stays flat and that
 * the report counts what was evicted. Captures are generated at test time
 * (never committed) and streamed, so nothing touches the disk. Packets are
 * STEP_US microseconds apart (default 1: a million packets span one second
 * of packet time, so tables fill by eviction rather than by expiry).
 *
 * KIND (N = the unit flooded):
 *   syn      N SYNs, each a new connection (distinct client address/port)
 *   calls    N NFSv3 GETATTR calls over UDP, distinct XIDs from 256 client
 *            ports, never answered
 *   frags    N first IPv4 fragments (MF set, offset 0) of UDP NFS calls, each
 *            a different datagram whose other fragments never come
 *   record   one TCP connection whose client sends one call, then a record
 *            mark claiming a 2 GB last fragment, then N segments of 1448
 *            bytes of data
 *   recfrag  one TCP connection: a call header in a first fragment, then N
 *            non-last fragments of 64 KiB each: a record that never ends
 *   conns    N TCP connections: handshake, one NFSv3 call, no reply, no FIN
 *   ooo      N 1000-byte TCP segments over 64 connections, each 1000 bytes
 *            past the previous one: nothing is ever in order
 *   names    N LOOKUP call/reply pairs (distinct names and handles, from
 *            65,536 client addresses) plus a GETATTR of each new handle
 *
 * Deterministic; no libpcap needed. Addresses: clients in 10.0.0.0/8, the
 * server 192.168.0.1 port 2049. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SNAPLEN 262144
#define SRV_ADDR 0xc0a80001u /* 192.168.0.1 */

static uint64_t t_us = (uint64_t)1700000000 * 1000000; /* packet time */
static uint64_t step_us = 1;
static uint8_t frame[70000];

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

static void
le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void
write_all(const void *p, size_t n)
{
    if (fwrite(p, 1, n, stdout) != n) {
        perror("floodgen: write");
        exit(1);
    }
}

static void
pcap_header(void)
{
    uint8_t h[24];

    le32(h, 0xa1b2c3d4);
    h[4] = 2, h[5] = 0, h[6] = 4, h[7] = 0; /* version 2.4 */
    le32(h + 8, 0);
    le32(h + 12, 0);
    le32(h + 16, SNAPLEN);
    le32(h + 20, 1); /* DLT_EN10MB */
    write_all(h, sizeof h);
}

/* One record: frame[0..len) (the Ethernet frame), stamped t_us. */
static void
emit(size_t len)
{
    uint8_t r[16];

    le32(r, (uint32_t)(t_us / 1000000));
    le32(r + 4, (uint32_t)(t_us % 1000000));
    le32(r + 8, (uint32_t)len);
    le32(r + 12, (uint32_t)len);
    write_all(r, sizeof r);
    write_all(frame, len);
    t_us += step_us;
}

static uint16_t
ip_csum(const uint8_t *h)
{
    uint32_t s = 0;

    for (int i = 0; i < 20; i += 2)
        s += (uint32_t)h[i] << 8 | h[i + 1];
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)~s;
}

/* Ethernet + IPv4 header for `l4len` bytes of transport; returns 34. */
static size_t
eth_ip(uint32_t src, uint32_t dst, uint8_t proto, size_t l4len, uint16_t id, uint16_t frag)
{
    uint8_t *e = frame, *ip = frame + 14;

    memcpy(e, "\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00", 14);
    memset(ip, 0, 20);
    ip[0] = 0x45;
    put16(ip + 2, (uint32_t)(20 + l4len));
    put16(ip + 4, id);
    put16(ip + 6, frag);
    ip[8] = 64;
    ip[9] = proto;
    put32(ip + 12, src);
    put32(ip + 16, dst);
    put16(ip + 10, ip_csum(ip));
    return 34;
}

enum { SYN = 0x02, ACK = 0x10, PSH = 0x08 };

/* A TCP segment carrying data[0..n); returns the frame length. */
static size_t
tcp_seg(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport, uint32_t seq, uint32_t ack,
        uint8_t flags, const uint8_t *data, size_t n)
{
    size_t off = eth_ip(src, dst, 6, 20 + n, 0, 0x4000);
    uint8_t *t = frame + off;

    memset(t, 0, 20);
    put16(t, sport);
    put16(t + 2, dport);
    put32(t + 4, seq);
    put32(t + 8, ack);
    t[12] = 5 << 4;
    t[13] = flags;
    put16(t + 14, 65535);
    if (n)
        memcpy(t + 20, data, n);
    return off + 20 + n;
}

/* An RPC call header (RFC 5531 §9) with AUTH_SYS, NFSv3 `proc`; returns its length. */
static size_t
rpc_call(uint8_t *p, uint32_t xid, uint32_t proc, uint32_t uid)
{
    static const char machine[] = "flood";
    size_t o = 0;

    put32(p + o, xid), o += 4;
    put32(p + o, 0), o += 4;      /* CALL */
    put32(p + o, 2), o += 4;      /* rpcvers */
    put32(p + o, 100003), o += 4; /* NFS */
    put32(p + o, 3), o += 4;
    put32(p + o, proc), o += 4;
    put32(p + o, 1), o += 4;      /* AUTH_SYS */
    put32(p + o, 32), o += 4;     /* body: stamp, name<5+3>, uid, gid, gids<1> */
    put32(p + o, 0), o += 4;
    put32(p + o, 5), o += 4;
    memcpy(p + o, machine, 5), memset(p + o + 5, 0, 3), o += 8;
    put32(p + o, uid), o += 4;
    put32(p + o, uid), o += 4;
    put32(p + o, 1), o += 4;
    put32(p + o, uid), o += 4;
    put32(p + o, 0), o += 4; /* verifier AUTH_NONE */
    put32(p + o, 0), o += 4;
    return o;
}

/* nfs_fh3 of 32 bytes derived from n. */
static size_t
fh3(uint8_t *p, uint32_t n)
{
    put32(p, 32);
    for (int i = 0; i < 32; i += 4)
        put32(p + 4 + i, n * 2654435761u + (uint32_t)i);
    return 36;
}

/* A UDP datagram src:sport -> dst:dport with payload[0..n). */
static size_t
udp_dgram(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport, const uint8_t *pl, size_t n)
{
    size_t off = eth_ip(src, dst, 17, 8 + n, 0, 0x4000);
    uint8_t *u = frame + off;

    put16(u, sport);
    put16(u + 2, dport);
    put16(u + 4, (uint32_t)(8 + n));
    put16(u + 6, 0);
    memcpy(u + 8, pl, n);
    return off + 8 + n;
}

static uint32_t
client(uint64_t i)
{
    return 0x0a000000u | (uint32_t)(i & 0xffffff);
}

static void
flood_syn(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        emit(tcp_seg(client(i >> 4), (uint16_t)(1024 + (i & 15)), SRV_ADDR, 2049,
                     (uint32_t)(i * 7919), 0, SYN, NULL, 0));
}

static void
flood_calls(uint64_t n)
{
    uint8_t pl[256];

    for (uint64_t i = 0; i < n; i++) {
        size_t k = rpc_call(pl, (uint32_t)i, 1 /* GETATTR */, 1000);
        k += fh3(pl + k, (uint32_t)i);
        emit(udp_dgram(client(1), (uint16_t)(700 + (i & 255)), SRV_ADDR, 2049, pl, k));
    }
}

static void
flood_frags(uint64_t n)
{
    uint8_t pl[1480];

    for (uint64_t i = 0; i < n; i++) {
        /* UDP header claiming a 4,008-byte datagram, then a GETATTR call
         * (trailing bytes: the rest of a would-be WRITE). */
        size_t k = 8 + rpc_call(pl + 8, (uint32_t)i, 1, 1000);
        size_t off;

        k += fh3(pl + k, (uint32_t)i);

        memset(pl + k, 0xab, sizeof pl - k);
        put16(pl, 800);
        put16(pl + 2, 2049);
        put16(pl + 4, 4008);
        put16(pl + 6, 0);
        off = eth_ip(client(i >> 8), SRV_ADDR, 17, sizeof pl, (uint16_t)i, 0x2000 /* MF */);
        memcpy(frame + off, pl, sizeof pl);
        emit(off + sizeof pl);
    }
}

/* Handshake of connection (c, cport) -> server; returns the client's next seq. */
static uint32_t
handshake(uint32_t c, uint16_t cport, uint32_t isn_c, uint32_t isn_s)
{
    emit(tcp_seg(c, cport, SRV_ADDR, 2049, isn_c, 0, SYN, NULL, 0));
    emit(tcp_seg(SRV_ADDR, 2049, c, cport, isn_s, isn_c + 1, SYN | ACK, NULL, 0));
    emit(tcp_seg(c, cport, SRV_ADDR, 2049, isn_c + 1, isn_s + 1, ACK, NULL, 0));
    return isn_c + 1;
}

static void
flood_record(uint64_t n)
{
    uint8_t d[1448];
    uint32_t seq = handshake(client(1), 900, 1000, 5000), x = 12345;
    size_t k = 4 + rpc_call(d + 4, 1, 1 /* GETATTR */, 1000);

    /* One good call (the stream is in sync), then a mark claiming a last
     * fragment of 2^31 - 1 bytes. */
    k += fh3(d + k, 1);
    put32(d, 0x80000000u | (uint32_t)(k - 4));
    put32(d + k, 0xffffffffu);
    emit(tcp_seg(client(1), 900, SRV_ADDR, 2049, seq, 5001, ACK | PSH, d, k + 4));
    seq += (uint32_t)(k + 4);
    for (uint64_t i = 0; i < n; i++) {
        for (size_t j = 0; j < sizeof d; j++) {
            x = x * 1103515245u + 12345u;
            d[j] = (uint8_t)(x >> 24);
        }
        emit(tcp_seg(client(1), 900, SRV_ADDR, 2049, seq, 5001, ACK, d, sizeof d));
        seq += (uint32_t)sizeof d;
    }
}

static void
flood_recfrag(uint64_t n)
{
    static uint8_t d[1448];
    uint32_t seq = handshake(client(2), 901, 1000, 5000);
    const uint32_t frag = 65536;
    size_t k;

    /* First fragment: mark + a WRITE call header, then its body. */
    put32(d, frag); /* not last */
    k = 4 + rpc_call(d + 4, 1, 7, 1000);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t left = frag - (uint32_t)(k - 4);

        while (left > 0) {
            size_t m = sizeof d - k < left ? sizeof d - k : left;

            memset(d + k, 0, m);
            emit(tcp_seg(client(2), 901, SRV_ADDR, 2049, seq, 5001, ACK, d, k + m));
            seq += (uint32_t)(k + m);
            left -= (uint32_t)m;
            k = 0;
        }
        put32(d, frag); /* the next fragment, never the last */
        k = 4;
    }
}

static void
flood_conns(uint64_t n)
{
    uint8_t d[256];

    for (uint64_t i = 0; i < n; i++) {
        uint32_t c = client(i), seq = handshake(c, 800, (uint32_t)i * 1000u, 7000);
        size_t k = 4 + rpc_call(d + 4, (uint32_t)i, 1, 1000);

        k += fh3(d + k, (uint32_t)i);
        put32(d, 0x80000000u | (uint32_t)(k - 4));
        emit(tcp_seg(c, 800, SRV_ADDR, 2049, seq, 7001, ACK | PSH, d, k));
    }
}

static void
flood_ooo(uint64_t n)
{
    static uint8_t d[1000];
    uint32_t seq[64];

    for (uint32_t c = 0; c < 64; c++)
        seq[c] = handshake(client(100 + c), 800, 1000, 5000) + 1000; /* first hole */
    for (uint64_t i = 0; i < n; i++) {
        uint32_t c = (uint32_t)(i & 63);

        memset(d, (int)(i & 0xff), sizeof d);
        emit(tcp_seg(client(100 + c), 800, SRV_ADDR, 2049, seq[c], 5001, ACK, d, sizeof d));
        seq[c] += 2000; /* leave another 1000-byte hole */
    }
}

static void
flood_names(uint64_t n)
{
    uint8_t pl[512];

    for (uint64_t i = 0; i < n; i++) {
        uint32_t c = client(i & 0xffff), xid = (uint32_t)(2 * i);
        uint16_t port = 800;
        size_t k;
        char name[32];
        int nl = snprintf(name, sizeof name, "file-%llu", (unsigned long long)i);

        /* LOOKUP(root, name) */
        k = rpc_call(pl, xid, 3, (uint32_t)(i & 0xffff));
        k += fh3(pl + k, 0);
        put32(pl + k, (uint32_t)nl), k += 4;
        memset(pl + k, 0, 4 + (size_t)nl);
        memcpy(pl + k, name, (size_t)nl), k += ((size_t)nl + 3) & ~(size_t)3;
        emit(udp_dgram(c, port, SRV_ADDR, 2049, pl, k));
        /* reply: NFS3_OK, object handle, no attributes */
        k = 0;
        put32(pl + k, xid), k += 4;
        put32(pl + k, 1), k += 4;
        memset(pl + k, 0, 16), k += 16; /* accepted, verf AUTH_NONE, SUCCESS */
        put32(pl + k, 0), k += 4;
        k += fh3(pl + k, (uint32_t)i + 1);
        memset(pl + k, 0, 8), k += 8;
        emit(udp_dgram(SRV_ADDR, 2049, c, port, pl, k));
        /* GETATTR(new handle), answered NFS3ERR_STALE */
        k = rpc_call(pl, xid + 1, 1, (uint32_t)(i & 0xffff));
        k += fh3(pl + k, (uint32_t)i + 1);
        emit(udp_dgram(c, port, SRV_ADDR, 2049, pl, k));
        k = 0;
        put32(pl + k, xid + 1), k += 4;
        put32(pl + k, 1), k += 4;
        memset(pl + k, 0, 16), k += 16;
        put32(pl + k, 70), k += 4; /* NFS3ERR_STALE (GETATTR3resfail is void) */
        emit(udp_dgram(SRV_ADDR, 2049, c, port, pl, k));
    }
}

static const struct {
    const char *name;
    void (*fn)(uint64_t);
} kinds[] = {
    { "syn", flood_syn },     { "calls", flood_calls }, { "frags", flood_frags },
    { "record", flood_record }, { "recfrag", flood_recfrag }, { "conns", flood_conns },
    { "ooo", flood_ooo },     { "names", flood_names },
};

int
main(int argc, char **argv)
{
    static char buf[1 << 20];
    char *end;
    unsigned long long n;

    if (argc < 3 || argc > 4)
        goto usage;
    n = strtoull(argv[2], &end, 10);
    if (*end || n == 0)
        goto usage;
    if (argc == 4)
        step_us = strtoull(argv[3], NULL, 10);
    setvbuf(stdout, buf, _IOFBF, sizeof buf);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (strcmp(argv[1], kinds[i].name) == 0) {
            pcap_header();
            kinds[i].fn(n);
            if (fflush(stdout) != 0) {
                perror("floodgen: write");
                return 1;
            }
            return 0;
        }
    }
usage:
    fputs("usage: floodgen syn|calls|frags|record|recfrag|conns|ooo|names N [STEP_US]\n", stderr);
    return 2;
}
