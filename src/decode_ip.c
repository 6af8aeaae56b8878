/* SPDX-License-Identifier: BSD-3-Clause */
/* decode_ip.c: IPv4 (RFC 791) and IPv6 (RFC 8200) down to TCP (RFC 9293) or UDP (RFC 768).
 *
 * Length rule everywhere: a cursor covers min(captured, claimed) bytes, and a
 * separate `wl` carries the claimed (wire) length. A claimed length beyond the
 * enclosing one is INVALID (the receiving stack would drop the packet); running
 * out of captured bytes inside a header is TRUNCATED. */
#include "decode_ip.h"

#include <string.h>

#include "ipfrag.h"
#include "rd.h"

enum {
    IPV4_HDR_MIN = 20,
    IPV6_HDR_LEN = 40,
    TCP_HDR_MIN = 20,
    UDP_HDR_LEN = 8,
    IPV6_FRAG_HDR_LEN = 8,
};

/* IANA protocol numbers used here. */
enum {
    IPPROTO_HOPOPTS_ = 0,
    IPPROTO_TCP_ = 6,
    IPPROTO_UDP_ = 17,
    IPPROTO_ROUTING_ = 43,
    IPPROTO_FRAGMENT_ = 44,
    IPPROTO_ESP_ = 50,
    IPPROTO_AH_ = 51,
    IPPROTO_NONE_ = 59,
    IPPROTO_DSTOPTS_ = 60,
    IPPROTO_MH_ = 135,
    IPPROTO_HIP_ = 139,
    IPPROTO_SHIM6_ = 140,
};

/* Bound on IPv6 extension headers in one chain (RFC 8200 §4.1 lists at most
 * ~8 in the recommended order; anything longer is an attack or garbage). */
#define IPV6_MAX_EXT_HDRS 8

/* RFC 791 §3.1 / RFC 1071: the one's complement sum over the header is 0xffff.
 * hlen is the IHL's: whole 32-bit words. Summed a word at a time in the
 * host's byte order and folded (RFC 1071 §2(B): the sum is independent of
 * byte order, swapped as the words are, and 0xffff reads the same swapped;
 * §2(C): 2^16 = 1 mod 0xffff, so the fold gives the 16-bit sum). */
static bool
ipv4_checksum_ok(const uint8_t *h, size_t hlen)
{
    uint32_t fixed[IPV4_HDR_MIN / 4];
    uint64_t sum;
    size_t i;

    memcpy(fixed, h, sizeof fixed);
    sum = (uint64_t)fixed[0] + fixed[1] + fixed[2] + fixed[3] + fixed[4];
    for (i = IPV4_HDR_MIN; i < hlen; i += 4) { /* options */
        uint32_t w;

        memcpy(&w, h + i, 4);
        sum += w;
    }
    sum = (sum & 0xffffffffu) + (sum >> 32); /* 15 words at most: < 2^36 */
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return sum == 0xffff;
}

static enum decode_rc
fail(struct anomalies *an, enum anomaly k, enum decode_rc rc)
{
    anomaly_add(an, k, 1);
    return rc;
}

/* Headers RFC 8200 §4 (and RFC 4302 for AH) lets us skip generically. */
static bool
is_ipv6_ext(uint8_t nh)
{
    return nh == IPPROTO_HOPOPTS_ || nh == IPPROTO_ROUTING_ || nh == IPPROTO_DSTOPTS_ ||
           nh == IPPROTO_AH_ || nh == IPPROTO_MH_ || nh == IPPROTO_HIP_ || nh == IPPROTO_SHIM6_ ||
           nh == IPPROTO_FRAGMENT_;
}

struct v6_frag {
    bool present;
    bool more;
    uint32_t offset, id;
};

/* RFC 8200 §4: walk extension headers starting with *nh. Stops at the first
 * non-extension header, or just after a (non-atomic) Fragment header (§4.5),
 * filling *fh; then *nh is that header's Next Header. `first` says whether
 * Hop-by-Hop is allowed (only directly after the IPv6 header, §4.3). */
static enum decode_rc
v6_walk(struct rd *r, uint32_t *wl, uint8_t *nh, bool first, struct v6_frag *fh,
        struct anomalies *an)
{
    unsigned n = 0;

    fh->present = false;
    while (is_ipv6_ext(*nh)) {
        uint8_t next, hl;
        uint32_t len;

        if (++n > IPV6_MAX_EXT_HDRS || (*nh == IPPROTO_HOPOPTS_ && !(first && n == 1)))
            return fail(an, ANOM_IPV6_EXT_BAD, DECODE_INVALID);
        if (*wl < 2)
            return fail(an, ANOM_IPV6_EXT_BAD, DECODE_INVALID);
        if (r->left < 2)
            return fail(an, ANOM_PKT_TRUNCATED, DECODE_TRUNCATED);
        next = r->p[0];
        hl = r->p[1];
        if (*nh == IPPROTO_FRAGMENT_)
            len = IPV6_FRAG_HDR_LEN; /* §4.5: fixed 8 bytes, second byte reserved */
        else if (*nh == IPPROTO_AH_)
            len = ((uint32_t)hl + 2) * 4; /* RFC 4302 §2.2: 4-octet units, minus 2 */
        else
            len = ((uint32_t)hl + 1) * 8; /* §4.3-4.6: 8-octet units, not counting the first 8 */
        if (len > *wl)
            return fail(an, ANOM_IPV6_EXT_BAD, DECODE_INVALID);
        if (len > r->left)
            return fail(an, ANOM_PKT_TRUNCATED, DECODE_TRUNCATED);
        if (*nh == IPPROTO_FRAGMENT_) {
            uint16_t offm = be16_at(r->p + 2); /* offset(13) res(2) M(1) */
            uint32_t off = (uint32_t)(offm >> 3) * 8;
            bool more = (offm & 1) != 0;
            uint32_t id = be32_at(r->p + 4);

            if (fh->present)
                return fail(an, ANOM_IPV6_EXT_BAD, DECODE_INVALID); /* nested fragmentation */
            rd_skip(r, len);
            *wl -= len;
            *nh = next;
            if (off == 0 && !more)
                continue; /* RFC 6946 atomic fragment: process as unfragmented */
            fh->present = true;
            fh->more = more;
            fh->offset = off;
            fh->id = id;
            return DECODE_OK;
        }
        rd_skip(r, len);
        *wl -= len;
        *nh = next;
    }
    return DECODE_OK;
}

/* RFC 9293 §3.1 TCP header. */
static inline enum decode_rc
decode_tcp(struct rd *r, uint32_t wl, struct anomalies *an, struct l4_seg *out)
{
    uint8_t doff;
    uint32_t thl;

    if (wl < TCP_HDR_MIN)
        return fail(an, ANOM_TCP_MALFORMED, DECODE_INVALID);
    if (r->left < TCP_HDR_MIN)
        return fail(an, ANOM_PKT_TRUNCATED, DECODE_TRUNCATED);
    /* The fixed header's 20 bytes are there: read in place. */
    out->key.sport = be16_at(r->p);
    out->key.dport = be16_at(r->p + 2);
    out->seq = be32_at(r->p + 4);
    out->ack = be32_at(r->p + 8);
    doff = (uint8_t)(r->p[12] >> 4);
    out->tcp_flags = r->p[13];
    rd_skip(r, TCP_HDR_MIN); /* then window, checksum, urgent pointer */
    thl = (uint32_t)doff * 4;
    if (doff < 5 || thl > wl)
        return fail(an, ANOM_TCP_MALFORMED, DECODE_INVALID);
    if (thl - TCP_HDR_MIN > r->left)
        return fail(an, ANOM_PKT_TRUNCATED, DECODE_TRUNCATED);
    rd_skip(r, thl - TCP_HDR_MIN); /* options */
    out->payload_wirelen = wl - thl;
    out->payload = rd_rest(r);
    if (out->payload.len > out->payload_wirelen)
        out->payload.len = out->payload_wirelen;
    return DECODE_OK;
}

/* RFC 768 UDP header; the Length field covers header and data. */
static enum decode_rc
decode_udp(struct rd *r, uint32_t wl, bool partial, struct anomalies *an, struct l4_seg *out)
{
    uint16_t ulen;

    if (wl < UDP_HDR_LEN)
        return fail(an, ANOM_UDP_MALFORMED, DECODE_INVALID);
    if (r->left < UDP_HDR_LEN)
        return fail(an, ANOM_PKT_TRUNCATED, DECODE_TRUNCATED);
    out->key.sport = rd_be16(r);
    out->key.dport = rd_be16(r);
    ulen = rd_be16(r);
    rd_skip(r, 2); /* checksum */
    if (ulen < UDP_HDR_LEN || (!partial && ulen > wl))
        return fail(an, ANOM_UDP_MALFORMED, DECODE_INVALID);
    out->payload_wirelen = (uint32_t)ulen - UDP_HDR_LEN; /* bytes past ulen are padding */
    out->payload = rd_rest(r);
    if (out->payload.len > out->payload_wirelen)
        out->payload.len = out->payload_wirelen;
    return DECODE_OK;
}

enum decode_rc
ip_decode_transport(uint8_t af, uint8_t proto, struct bytes data, uint32_t wirelen, bool partial,
                    struct anomalies *an, struct l4_seg *out)
{
    struct rd r;
    uint32_t wl = wirelen;

    if (data.len > wl)
        data.len = wl;
    r = rd_make(data);
    out->key.af = af;
    if (af == FLOW_AF_INET6) {
        struct v6_frag fh;
        enum decode_rc rc = v6_walk(&r, &wl, &proto, false, &fh, an);

        if (rc != DECODE_OK)
            return rc;
        if (fh.present)
            return fail(an, ANOM_IPV6_EXT_BAD, DECODE_INVALID); /* fragment inside a fragment */
    }
    out->key.proto = proto;
    if (proto == IPPROTO_TCP_)
        return decode_tcp(&r, wl, an, out);
    if (proto == IPPROTO_UDP_)
        return decode_udp(&r, wl, partial, an, out);
    return fail(an, ANOM_L4_OTHER, DECODE_UNSUPPORTED);
}

/* Hand a fragment to the reassembler, or without one decode an offset-0
 * fragment on its own (nfstrace's "first fragment" fallback). */
static enum decode_rc
to_ipfrag(struct ipfrag *fr, struct ipfrag_frag *f, const struct timespec *ts, struct anomalies *an,
          struct l4_seg *out)
{
    enum decode_rc rc;

    if (fr)
        return ipfrag_add(fr, f, ts, out);
    if (f->offset != 0)
        return fail(an, ANOM_IPFRAG_EVICTED, DECODE_UNSUPPORTED);
    rc = ip_decode_transport(f->af, f->proto, f->data, f->data_wirelen, true, an, out);
    out->first_frag_only = true;
    return rc;
}

/* RFC 791 §3.1 Internet Header Format. */
static enum decode_rc
decode_ipv4(struct ipfrag *fr, struct bytes b, uint32_t l3wl, const struct timespec *ts,
            struct anomalies *an, struct l4_seg *out)
{
    struct rd r = rd_make(b);
    const uint8_t *h = b.p;
    uint8_t vihl, proto;
    uint16_t totlen, id, fl;
    uint32_t hlen, off;
    bool more;
    struct bytes pay;

    if (r.left < 1)
        return fail(an, ANOM_PKT_TRUNCATED, DECODE_TRUNCATED);
    vihl = h[0];
    if ((vihl >> 4) != 4)
        return fail(an, ANOM_IP_MALFORMED, DECODE_INVALID);
    hlen = (uint32_t)(vihl & 0x0f) * 4;
    if (hlen < IPV4_HDR_MIN)
        return fail(an, ANOM_IP_MALFORMED, DECODE_INVALID);
    if (r.left < IPV4_HDR_MIN)
        return fail(an, ANOM_PKT_TRUNCATED, DECODE_TRUNCATED);
    /* The fixed header's 20 bytes are there: read in place. */
    totlen = be16_at(h + 2);
    id = be16_at(h + 4);
    fl = be16_at(h + 6);
    proto = h[9]; /* after the TTL; then the header checksum */
    memcpy(out->key.saddr, h + 12, 4);
    memcpy(out->key.daddr, h + 16, 4);
    rd_skip(&r, IPV4_HDR_MIN);

    /* Total Length 0 is what TSO/GSO-offloaded packets show on the sending host
     * (Wireshark does the same): take the frame's length instead. */
    if (totlen == 0)
        totlen = l3wl > 0xffff ? 0xffff : (uint16_t)l3wl;
    if (totlen < hlen || totlen > l3wl)
        return fail(an, ANOM_IP_MALFORMED, DECODE_INVALID);
    if (r.left < hlen - IPV4_HDR_MIN)
        return fail(an, ANOM_PKT_TRUNCATED, DECODE_TRUNCATED);
    rd_skip(&r, hlen - IPV4_HDR_MIN); /* options (§3.1), not interpreted */
    if (!ipv4_checksum_ok(h, hlen))
        anomaly_add(an, ANOM_IP_CHECKSUM, 1); /* counted, still decoded */

    pay = rd_rest(&r);
    if (pay.len > totlen - hlen)
        pay.len = totlen - hlen; /* drop link padding */

    /* §3.2 fragmentation: flags are 3 bits (reserved, DF, MF), offset in 8-byte units. */
    more = (fl & 0x2000) != 0;
    off = (uint32_t)(fl & 0x1fff) * 8;
    if (more || off) {
        struct ipfrag_frag f;

        if (proto != IPPROTO_TCP_ && proto != IPPROTO_UDP_)
            return fail(an, ANOM_L4_OTHER, DECODE_UNSUPPORTED);
        memset(&f, 0, sizeof f);
        f.af = FLOW_AF_INET;
        f.proto = proto;
        f.more = more;
        f.id = id;
        memcpy(f.saddr, out->key.saddr, 4);
        memcpy(f.daddr, out->key.daddr, 4);
        f.offset = off;
        f.data = pay;
        f.data_wirelen = totlen - hlen;
        return to_ipfrag(fr, &f, ts, an, out);
    }
    if (proto == IPPROTO_TCP_) { /* ip_decode_transport's first case, inline */
        struct rd t = rd_make(pay);

        out->key.af = FLOW_AF_INET;
        out->key.proto = proto;
        return decode_tcp(&t, totlen - hlen, an, out);
    }
    return ip_decode_transport(FLOW_AF_INET, proto, pay, totlen - hlen, false, an, out);
}

/* RFC 8200 §3 IPv6 Header Format, then §4 extension headers. */
static enum decode_rc
decode_ipv6(struct ipfrag *fr, struct bytes b, uint32_t l3wl, const struct timespec *ts,
            struct anomalies *an, struct l4_seg *out)
{
    struct rd r = rd_make(b);
    uint32_t plen, wl;
    uint8_t nh;
    struct v6_frag fh;
    enum decode_rc rc;
    struct bytes pay;

    if (r.left < 1)
        return fail(an, ANOM_PKT_TRUNCATED, DECODE_TRUNCATED);
    if ((b.p[0] >> 4) != 6)
        return fail(an, ANOM_IP_MALFORMED, DECODE_INVALID);
    if (r.left < IPV6_HDR_LEN)
        return fail(an, ANOM_PKT_TRUNCATED, DECODE_TRUNCATED);
    rd_skip(&r, 4); /* version, traffic class, flow label */
    plen = rd_be16(&r);
    nh = rd_u8(&r);
    rd_skip(&r, 1); /* hop limit */
    rd_copy(&r, out->key.saddr, 16);
    rd_copy(&r, out->key.daddr, 16);
    if (l3wl < IPV6_HDR_LEN)
        return fail(an, ANOM_IP_MALFORMED, DECODE_INVALID);
    /* Payload Length 0: a Jumbo Payload (RFC 2675) or a TSO/BIG TCP packet; use the frame. */
    if (plen == 0)
        plen = l3wl - IPV6_HDR_LEN;
    if (plen > l3wl - IPV6_HDR_LEN)
        return fail(an, ANOM_IP_MALFORMED, DECODE_INVALID);
    if (r.left > plen)
        r.left = plen; /* drop link padding */
    wl = plen;

    rc = v6_walk(&r, &wl, &nh, true, &fh, an);
    if (rc != DECODE_OK)
        return rc;
    pay = rd_rest(&r);
    if (fh.present) {
        struct ipfrag_frag f;

        /* The fragmentable part may start with more extension headers (§4.5). */
        if (nh != IPPROTO_TCP_ && nh != IPPROTO_UDP_ && !is_ipv6_ext(nh))
            return fail(an, ANOM_L4_OTHER, DECODE_UNSUPPORTED);
        memset(&f, 0, sizeof f);
        f.af = FLOW_AF_INET6;
        f.proto = nh;
        f.more = fh.more;
        f.id = fh.id;
        memcpy(f.saddr, out->key.saddr, 16);
        memcpy(f.daddr, out->key.daddr, 16);
        f.offset = fh.offset;
        f.data = pay;
        f.data_wirelen = wl;
        return to_ipfrag(fr, &f, ts, an, out);
    }
    out->key.af = FLOW_AF_INET6;
    out->key.proto = nh;
    if (nh == IPPROTO_TCP_)
        return decode_tcp(&r, wl, an, out);
    if (nh == IPPROTO_UDP_)
        return decode_udp(&r, wl, false, an, out);
    return fail(an, ANOM_L4_OTHER, DECODE_UNSUPPORTED); /* ESP, No Next Header, ICMPv6, ... */
}

enum decode_rc
ip_decode(struct ipfrag *fr, const struct l3_view *l3, const struct timespec *ts,
          struct anomalies *an, struct l4_seg *out)
{
    struct bytes b = l3->l3;
    uint32_t wl = l3->l3_wirelen;

    memset(out, 0, sizeof *out);
    if (!b.p)
        b.len = 0;
    if (wl < b.len)
        wl = (uint32_t)b.len; /* caplen > wirelen: trust the captured bytes */
    if (l3->kind == L3_IPV4)
        return decode_ipv4(fr, b, wl, ts, an, out);
    if (l3->kind == L3_IPV6)
        return decode_ipv6(fr, b, wl, ts, an, out);
    return fail(an, ANOM_LINK_OTHER, DECODE_UNSUPPORTED);
}
