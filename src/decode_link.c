/* SPDX-License-Identifier: BSD-3-Clause */
/* decode_link.c: link-layer headers (IEEE 802.3 / 802.1Q, Linux cooked v1/v2, raw IP, BSD loopback)
 * down to the IPv4 or IPv6 header. References: IEEE 802.1Q-2018 §9.5 (tag format),
 * tcpdump.org/linktypes (LINKTYPE_LINUX_SLL, LINKTYPE_LINUX_SLL2, LINKTYPE_NULL, LINKTYPE_LOOP). */
#include "decode_link.h"

#include <pcap/pcap.h>

#include "rd.h"

_Static_assert(DLT_EN10MB == 1, "link_decode_fast() names Ethernet by its number");

/* EtherTypes (IEEE Registration Authority). */
enum {
    ETHERTYPE_MIN = 0x0600, /* values <= 1500 are 802.3 lengths; 1501..1535 undefined */
    ETHERTYPE_IPV4 = 0x0800,
    ETHERTYPE_IPV6 = 0x86dd,
    ETHERTYPE_VLAN = 0x8100,  /* 802.1Q C-tag */
    ETHERTYPE_QINQ = 0x88a8,  /* 802.1ad S-tag */
    ETHERTYPE_QINQ1 = 0x9100, /* pre-standard QinQ */
};

enum {
    ETH_HDR_LEN = 14,
    VLAN_TAG_LEN = 4,
    SLL_HDR_LEN = 16,
    SLL2_HDR_LEN = 20,
    NULL_HDR_LEN = 4,
    LINKTYPE_RAW_ = 101, /* LINKTYPE_RAW in files; libpcap maps it to DLT_RAW */
};

/* Bound on stacked VLAN tags; deeper stacks are treated as malformed. */
#define LINK_MAX_VLAN_TAGS 8

/* BSD address families seen in DLT_NULL / DLT_LOOP headers. */
enum {
    BSD_AF_INET = 2,
    BSD_AF_INET6_BSD = 24,
    BSD_AF_INET6_FREEBSD = 28,
    BSD_AF_INET6_DARWIN = 30
};

static bool
is_raw_dlt(int dlt)
{
    /* DLT_RAW is 12 on most systems and 14 on OpenBSD, where 12 is DLT_LOOP. */
    if (dlt == DLT_RAW || dlt == LINKTYPE_RAW_)
        return true;
    return (dlt == 12 || dlt == 14) && dlt != DLT_LOOP;
}

bool
link_supported(int dlt)
{
    return dlt == DLT_EN10MB || dlt == DLT_LINUX_SLL || dlt == DLT_LINUX_SLL2 || is_raw_dlt(dlt) ||
           dlt == DLT_IPV4 || dlt == DLT_IPV6 || dlt == DLT_NULL || dlt == DLT_LOOP;
}

const char *
link_name(int dlt)
{
    const char *n;

    if (dlt == LINKTYPE_RAW_ || dlt == 14)
        return "RAW";
    n = pcap_datalink_val_to_name(dlt);
    return n ? n : "unknown";
}

enum anomaly
link_anomaly(enum decode_rc rc)
{
    switch (rc) {
    case DECODE_TRUNCATED:
        return ANOM_PKT_TRUNCATED;
    case DECODE_UNSUPPORTED:
        return ANOM_LINK_OTHER;
    case DECODE_OK:
    case DECODE_INVALID:
    case DECODE_PENDING:
    default:
        return ANOM_LINK_MALFORMED;
    }
}

/* Map an EtherType to the L3 kind; anything else is not ours. */
static enum decode_rc
ethertype_kind(uint16_t et, struct l3_view *out)
{
    if (et == ETHERTYPE_IPV4)
        out->kind = L3_IPV4;
    else if (et == ETHERTYPE_IPV6)
        out->kind = L3_IPV6;
    else
        return DECODE_UNSUPPORTED;
    return DECODE_OK;
}

static bool
is_vlan_tpid(uint16_t et)
{
    return et == ETHERTYPE_VLAN || et == ETHERTYPE_QINQ || et == ETHERTYPE_QINQ1;
}

/* Walk stacked VLAN tags (IEEE 802.1Q §9.5: TPID already read, then TCI 2 + EtherType 2).
 * `*et` holds the TPID/EtherType just read and is updated to the inner EtherType. */
static enum decode_rc
skip_vlan_tags(struct rd *r, uint16_t *et, struct l3_view *out)
{
    while (is_vlan_tpid(*et)) {
        uint16_t tci;

        if (out->vlan_depth >= LINK_MAX_VLAN_TAGS)
            return DECODE_INVALID;
        tci = rd_be16(r);
        *et = rd_be16(r);
        if (!rd_ok(r))
            return DECODE_TRUNCATED;
        if (out->vlan_depth == 0)
            out->vlan_outer = tci & 0x0fff; /* VID: low 12 bits of the TCI */
        out->vlan_depth++;
    }
    if (*et < ETHERTYPE_MIN)
        return DECODE_UNSUPPORTED; /* 802.3 length field (LLC/SNAP), not Ethernet II */
    return DECODE_OK;
}

/* The EtherType just read: tags walked only when there are some (the
 * untagged frame, the usual one, costs a compare), then the L3 kind. */
static inline enum decode_rc
after_ethertype(struct rd *r, uint16_t et, struct l3_view *out)
{
    if (is_vlan_tpid(et)) {
        enum decode_rc rc = skip_vlan_tags(r, &et, out);

        if (rc != DECODE_OK)
            return rc;
    }
    return ethertype_kind(et, out);
}

/* Ethernet II: dst(6) src(6) type(2), optional tags. */
static enum decode_rc
decode_en10mb(struct rd *r, struct l3_view *out)
{
    uint16_t et;

    rd_skip(r, 12);
    et = rd_be16(r);
    if (!rd_ok(r))
        return DECODE_TRUNCATED;
    return after_ethertype(r, et, out);
}

/* Linux cooked v1: pkttype(2) hatype(2) halen(2) addr(8) protocol(2). */
static enum decode_rc
decode_sll(struct rd *r, struct l3_view *out)
{
    uint16_t et;

    rd_skip(r, 14);
    et = rd_be16(r);
    if (!rd_ok(r))
        return DECODE_TRUNCATED;
    return after_ethertype(r, et, out);
}

/* Linux cooked v2: protocol(2) reserved(2) ifindex(4) hatype(2) pkttype(1) halen(1) addr(8). */
static enum decode_rc
decode_sll2(struct rd *r, struct l3_view *out)
{
    uint16_t et;

    et = rd_be16(r);
    rd_skip(r, SLL2_HDR_LEN - 2);
    if (!rd_ok(r))
        return DECODE_TRUNCATED;
    return after_ethertype(r, et, out);
}

/* Raw IP: the version nibble says which. DLT_IPV4 / DLT_IPV6 fix it by type. */
static enum decode_rc
decode_raw(struct rd *r, int dlt, struct l3_view *out)
{
    uint8_t v;

    if (dlt == DLT_IPV4) {
        out->kind = L3_IPV4;
        return DECODE_OK;
    }
    if (dlt == DLT_IPV6) {
        out->kind = L3_IPV6;
        return DECODE_OK;
    }
    if (r->left < 1)
        return DECODE_TRUNCATED;
    v = (uint8_t)(r->p[0] >> 4);
    if (v == 4)
        out->kind = L3_IPV4;
    else if (v == 6)
        out->kind = L3_IPV6;
    else
        return DECODE_INVALID;
    return DECODE_OK;
}

static bool
af_is_inet6(uint32_t af)
{
    return af == BSD_AF_INET6_BSD || af == BSD_AF_INET6_FREEBSD || af == BSD_AF_INET6_DARWIN;
}

/* DLT_NULL (host byte order of the capturing machine) / DLT_LOOP (network order):
 * a 4-byte address family. We accept either order for both. */
static enum decode_rc
decode_null(struct rd *r, struct l3_view *out)
{
    uint32_t be, le;

    if (r->left < NULL_HDR_LEN)
        return DECODE_TRUNCATED;
    be = be32_at(r->p);
    le = rd_le32(r);
    if (be == BSD_AF_INET || le == BSD_AF_INET)
        out->kind = L3_IPV4;
    else if (af_is_inet6(be) || af_is_inet6(le))
        out->kind = L3_IPV6;
    else
        return DECODE_UNSUPPORTED;
    return DECODE_OK;
}

enum decode_rc
link_decode(int dlt, const uint8_t *data, uint32_t caplen, uint32_t wirelen, struct l3_view *out)
{
    struct bytes b = { data, data ? caplen : 0 };
    struct rd r = rd_make(b);
    enum decode_rc rc;
    size_t hdr;
    uint32_t wl;

    out->kind = L3_NONE;
    out->l3.p = NULL;
    out->l3.len = 0;
    out->l3_wirelen = 0;
    out->vlan_outer = 0;
    out->vlan_depth = 0;

    if (dlt == DLT_EN10MB)
        rc = decode_en10mb(&r, out);
    else if (dlt == DLT_LINUX_SLL)
        rc = decode_sll(&r, out);
    else if (dlt == DLT_LINUX_SLL2)
        rc = decode_sll2(&r, out);
    else if (dlt == DLT_NULL || dlt == DLT_LOOP)
        rc = decode_null(&r, out);
    else if (is_raw_dlt(dlt) || dlt == DLT_IPV4 || dlt == DLT_IPV6)
        rc = decode_raw(&r, dlt, out);
    else
        rc = DECODE_UNSUPPORTED;
    if (rc != DECODE_OK) {
        out->kind = L3_NONE;
        return rc;
    }

    /* A caplen above wirelen is bogus; trust the bytes we actually hold. */
    hdr = b.len - r.left;
    wl = wirelen < caplen ? caplen : wirelen;
    out->l3 = rd_rest(&r);
    out->l3_wirelen = wl - (uint32_t)hdr;
    return DECODE_OK;
}
