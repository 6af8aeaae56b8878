/* SPDX-License-Identifier: BSD-3-Clause */
/* decode_floor: the least decoding that still yields per-procedure counts
 * and latencies, for comparison with nfsscope (bench/README.md).
 *
 * It reads the file with nfsscope's own reader (src/capfile.c), decodes
 * Ethernet (one VLAN tag), IPv4 and IPv6 without extension headers, TCP and
 * UDP; finds the connection in an open-addressing table; follows each TCP
 * direction's sequence numbers in order (a retransmitted range is skipped,
 * a gap restarts the direction's record marking); splits RPC records (RFC
 * 5531 §11) with the message head gathered across segments; reads the RPC
 * call header (RFC 5531 §9) or the reply's xid; matches replies to calls by
 * (connection, direction, xid) in a bounded table; and counts calls,
 * replies and a log2 latency histogram per (program, version, procedure).
 *
 * What it leaves out, and nfsscope does not: IP fragments (counted,
 * skipped), checksums, out-of-order TCP data, authentication flavours, the
 * reply's status, every program's dissector, the breakdowns, the findings,
 * the anomalies and any report but a summary line. So it is a floor for a
 * decoder, not a rival: its counts are checked against nfsscope's on the
 * bench captures by bench/run.
 *
 * usage: decode_floor FILE
 * Built by bench/run with the reader's source and its libraries. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "capfile.h"

#define FLOW_BITS 16
#define XID_BITS 18
#define XID_PROBE 16 /* probes before a call is dropped (counted) */
#define PROCS 4096   /* (program, version, procedure) slots */
#define HEAD 24      /* xid, type, rpcvers, prog, vers, proc */

struct half {
    uint32_t next_seq, left; /* left: bytes still in the current fragment */
    uint8_t have_seq, mark_n, in_msg, last, want, head_n;
    uint8_t mark[4], head[HEAD];
};

struct flow {
    uint8_t key[37]; /* address A, address B (16 each), port A, port B, proto */
    uint8_t used;
    struct half h[2];
};

struct xid_ent {
    uint32_t xid, flow; /* flow: index + 1 (0: empty) */
    uint16_t proc;
    uint8_t dir;
    int64_t t;
};

struct proc_stat {
    uint32_t prog, vers, proc;
    uint64_t calls, replies, lat[40];
};

static struct flow flows[1u << FLOW_BITS];
static struct xid_ent xids[1u << XID_BITS];
static struct proc_stat procs[PROCS];
static uint64_t n_calls, n_replies, n_orphans, n_frags, n_other, n_gaps, n_xid_full, n_flow_full;

static inline uint32_t
be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint16_t
be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint64_t
mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

static uint32_t
proc_slot(uint32_t prog, uint32_t vers, uint32_t proc)
{
    uint32_t i = (uint32_t)mix((uint64_t)prog << 32 ^ vers << 16 ^ proc) & (PROCS - 1), k;

    for (k = 0; k < PROCS; k++, i = (i + 1) & (PROCS - 1)) {
        struct proc_stat *s = &procs[i];

        if (s->calls && s->prog == prog && s->vers == vers && s->proc == proc)
            return i;
        if (!s->calls) {
            s->prog = prog, s->vers = vers, s->proc = proc;
            return i;
        }
    }
    return 0; /* full: shared with whatever sits in slot 0 */
}

static inline uint32_t
xid_home(uint32_t flow, uint8_t dir, uint32_t xid)
{
    return (uint32_t)mix((uint64_t)flow << 33 ^ (uint64_t)dir << 32 ^ xid) & ((1u << XID_BITS) - 1);
}

static void
xid_put(uint32_t flow, uint8_t dir, uint32_t xid, uint16_t proc, int64_t t)
{
    uint32_t i = xid_home(flow, dir, xid), k;

    for (k = 0; k < XID_PROBE; k++, i = (i + 1) & ((1u << XID_BITS) - 1))
        if (!xids[i].flow || (xids[i].flow == flow && xids[i].dir == dir && xids[i].xid == xid)) {
            xids[i] = (struct xid_ent){ xid, flow, proc, dir, t };
            return;
        }
    n_xid_full++;
}

/* The call's entry, removed, with the run after it shifted back (linear
 * probing without tombstones). */
static int
xid_take(uint32_t flow, uint8_t dir, uint32_t xid, struct xid_ent *out)
{
    const uint32_t mask = (1u << XID_BITS) - 1;
    uint32_t i = xid_home(flow, dir, xid), k, j;

    for (k = 0; k < XID_PROBE; k++, i = (i + 1) & mask) {
        if (!xids[i].flow)
            return 0;
        if (xids[i].flow == flow && xids[i].dir == dir && xids[i].xid == xid)
            break;
    }
    if (k == XID_PROBE)
        return 0;
    *out = xids[i];
    for (j = (i + 1) & mask; xids[j].flow; j = (j + 1) & mask) {
        uint32_t home = xid_home(xids[j].flow, xids[j].dir, xids[j].xid);

        /* j's entry may move to the hole at i if its home is not in (i, j] */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            xids[i] = xids[j];
            i = j;
        }
    }
    xids[i].flow = 0;
    return 1;
}

static void
message_head(uint32_t fi, uint8_t dir, const uint8_t *h, uint32_t n, int64_t t)
{
    uint32_t xid, type;
    struct xid_ent e;

    if (n < 8)
        return;
    xid = be32(h);
    type = be32(h + 4);
    if (type == 0 && n >= HEAD && be32(h + 8) == 2) {
        uint32_t s = proc_slot(be32(h + 12), be32(h + 16), be32(h + 20));

        procs[s].calls++;
        n_calls++;
        xid_put(fi + 1, dir, xid, (uint16_t)s, t);
    } else if (type == 1) {
        if (xid_take(fi + 1, dir ^ 1, xid, &e)) {
            int64_t d = t - e.t;
            unsigned b = 0;

            while (d > 1 && b < 39)
                d >>= 1, b++;
            procs[e.proc].replies++;
            procs[e.proc].lat[b]++;
            n_replies++;
        } else {
            n_orphans++;
        }
    }
}

/* RFC 5531 §11: a 4-byte mark (last-fragment bit, length), then the
 * fragment; the message head is the first HEAD bytes of its first one. */
static void
stream(uint32_t fi, uint8_t dir, struct half *s, const uint8_t *p, uint32_t n, int64_t t)
{
    while (n) {
        uint32_t take;

        if (s->mark_n < 4) {
            s->mark[s->mark_n++] = *p++;
            n--;
            if (s->mark_n == 4) {
                uint32_t m = be32(s->mark);

                s->left = m & 0x7fffffffu;
                s->last = (uint8_t)(m >> 31);
                if (!s->in_msg)
                    s->in_msg = 1, s->want = 1, s->head_n = 0;
            }
            continue;
        }
        take = n < s->left ? n : s->left;
        if (s->want) {
            uint32_t room = (uint32_t)(HEAD - s->head_n), c = room < take ? room : take;

            memcpy(s->head + s->head_n, p, c);
            s->head_n = (uint8_t)(s->head_n + c);
            if (s->head_n == HEAD || (take == s->left && s->last)) {
                message_head(fi, dir, s->head, s->head_n, t);
                s->want = 0;
            }
        }
        p += take;
        n -= take;
        s->left -= take;
        if (s->left == 0) {
            s->mark_n = 0;
            if (s->last)
                s->in_msg = 0;
        }
    }
}

static uint32_t
flow_of(const uint8_t *a, const uint8_t *b, uint16_t pa, uint16_t pb, uint8_t proto, uint8_t *dir)
{
    uint8_t k[37];
    int c = memcmp(a, b, 16);
    int swap = c ? c > 0 : pa > pb; /* the key's first end is the lower one */
    const uint8_t *lo = swap ? b : a, *hi = swap ? a : b;
    uint16_t plo = swap ? pb : pa, phi = swap ? pa : pb;
    uint64_t h;
    uint32_t i, n;

    *dir = (uint8_t)swap;
    memcpy(k, lo, 16);
    memcpy(k + 16, hi, 16);
    k[32] = (uint8_t)(plo >> 8), k[33] = (uint8_t)plo;
    k[34] = (uint8_t)(phi >> 8), k[35] = (uint8_t)phi;
    k[36] = proto;
    {
        uint64_t w[4];

        memcpy(w, k, 32);
        h = mix(w[0] ^ mix(w[1] ^ mix(w[2] ^ mix(w[3] ^ ((uint64_t)be32(k + 32) << 8 | proto)))));
    }
    i = (uint32_t)h & ((1u << FLOW_BITS) - 1);
    for (n = 0; n < (1u << FLOW_BITS); n++, i = (i + 1) & ((1u << FLOW_BITS) - 1)) {
        struct flow *f = &flows[i];

        if (f->used && memcmp(f->key, k, sizeof k) == 0)
            return i;
        if (!f->used) {
            memcpy(f->key, k, sizeof k);
            f->used = 1;
            return i;
        }
    }
    n_flow_full++;
    return UINT32_MAX;
}

static void
tcp(uint32_t fi, uint8_t dir, const uint8_t *th, uint32_t len, int64_t t)
{
    struct half *s = &flows[fi].h[dir];
    uint32_t off = (uint32_t)(th[12] >> 4) * 4, seq, data;
    uint8_t fl = th[13];

    if (off < 20 || off > len)
        return;
    seq = be32(th + 4);
    data = len - off;
    th += off;
    if (fl & 0x02) { /* SYN: the stream starts at seq + 1 */
        memset(s, 0, sizeof *s);
        s->have_seq = 1;
        s->next_seq = seq + 1;
        return;
    }
    if (!data)
        return;
    if (!s->have_seq) {
        s->have_seq = 1;
        s->next_seq = seq;
    }
    if (seq != s->next_seq) {
        uint32_t behind = s->next_seq - seq;

        if (behind < 0x80000000u) { /* data already seen, maybe partly */
            if (behind >= data)
                return;
            th += behind;
            data -= behind;
        } else { /* a gap: the records are lost until the next mark */
            n_gaps++;
            memset(s, 0, sizeof *s);
            s->have_seq = 1;
            s->next_seq = seq + data;
            return;
        }
    }
    s->next_seq += data;
    stream(fi, dir, s, th, data, t);
}

static void
packet(const struct capfile_pkt *p)
{
    const uint8_t *d = p->data, *l4;
    uint32_t n = p->caplen, type, l4len;
    uint8_t a[16] = { 0 }, b[16] = { 0 }, proto, dir;
    int64_t t = (int64_t)p->ts.tv_sec * 1000000000 + p->ts.tv_nsec;
    uint32_t fi;

    if (p->dlt != 1 || n < 14) { /* DLT_EN10MB */
        n_other++;
        return;
    }
    type = be16(d + 12);
    d += 14, n -= 14;
    if (type == 0x8100 && n >= 4)
        type = be16(d + 2), d += 4, n -= 4;
    if (type == 0x0800 && n >= 20 && (d[0] >> 4) == 4) {
        uint32_t hl = (uint32_t)(d[0] & 15) * 4, tot = be16(d + 2);

        if (be16(d + 6) & 0x3fff) {
            n_frags++;
            return;
        }
        if (hl < 20 || tot < hl || tot > n) {
            n_other++;
            return;
        }
        proto = d[9];
        memcpy(a + 12, d + 12, 4);
        memcpy(b + 12, d + 16, 4);
        l4 = d + hl;
        l4len = tot - hl;
    } else if (type == 0x86dd && n >= 40 && (d[0] >> 4) == 6) {
        uint32_t pl = be16(d + 4);

        if (pl + 40 > n) {
            n_other++;
            return;
        }
        proto = d[6];
        memcpy(a, d + 8, 16);
        memcpy(b, d + 24, 16);
        l4 = d + 40;
        l4len = pl;
    } else {
        n_other++;
        return;
    }
    if (proto == 6 && l4len >= 20) {
        fi = flow_of(a, b, be16(l4), be16(l4 + 2), proto, &dir);
        if (fi != UINT32_MAX)
            tcp(fi, dir, l4, l4len, t);
    } else if (proto == 17 && l4len >= 8) {
        fi = flow_of(a, b, be16(l4), be16(l4 + 2), proto, &dir);
        if (fi != UINT32_MAX && l4len > 8)
            message_head(fi, dir, l4 + 8, l4len - 8 < HEAD ? l4len - 8 : HEAD, t);
    } else {
        n_other++;
    }
}

int
main(int argc, char **argv)
{
    struct capfile *f;
    struct capfile_pkt p;
    char err[256];
    uint64_t pkts = 0, nfs3 = 0, lat_sum = 0;
    enum capfile_rc rc;
    unsigned i, b;

    if (argc != 2) {
        fprintf(stderr, "usage: decode_floor FILE\n");
        return 2;
    }
    if (capfile_open(&f, argv[1], err, sizeof err) != 0) {
        fprintf(stderr, "decode_floor: %s: %s\n", argv[1], err);
        capfile_close(f);
        return 1;
    }
    while ((rc = capfile_next(f, &p)) == CAPFILE_PKT) {
        pkts++;
        packet(&p);
    }
    for (i = 0; i < PROCS; i++) {
        if (procs[i].prog == 100003 && procs[i].vers == 3)
            nfs3 += procs[i].calls;
        for (b = 0; b < 40; b++)
            lat_sum += procs[i].lat[b] * b;
    }
    printf("%llu packets%s: %llu calls (%llu nfs3), %llu replies matched, %llu orphan replies; "
           "skipped: %llu IP fragments, %llu other, %llu gaps, %llu calls (xid table), "
           "%llu flows (table); latency sum %llx\n",
           (unsigned long long)pkts, rc == CAPFILE_CUT ? " (cut short)" : "",
           (unsigned long long)n_calls, (unsigned long long)nfs3, (unsigned long long)n_replies,
           (unsigned long long)n_orphans, (unsigned long long)n_frags, (unsigned long long)n_other,
           (unsigned long long)n_gaps, (unsigned long long)n_xid_full,
           (unsigned long long)n_flow_full, (unsigned long long)lat_sum);
    capfile_close(f);
    return 0;
}
