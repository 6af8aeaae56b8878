/* SPDX-License-Identifier: BSD-3-Clause */
/* decode_link.h: link layer (DLT) to network layer.
 *
 * Supported DLTs: EN10MB (Ethernet II, 802.1Q / 802.1ad / QinQ tags, stacked),
 * LINUX_SLL (cooked v1), LINUX_SLL2 (cooked v2), RAW / IPV4 / IPV6 (raw IP),
 * NULL and LOOP (BSD loopback, either byte order of the AF word). */
#ifndef NFSSCOPE_DECODE_LINK_H
#define NFSSCOPE_DECODE_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "anomaly.h"
#include "bytes.h"

enum l3_kind { L3_NONE = 0, L3_IPV4, L3_IPV6 };

struct l3_view {
    enum l3_kind kind;
    struct bytes l3;     /* captured bytes from the IP header on */
    uint32_t l3_wirelen; /* wire length from the IP header on (pkt wirelen - link header) */
    uint16_t vlan_outer; /* first VLAN id seen, 0 if untagged */
    uint8_t vlan_depth;  /* number of 802.1Q/802.1ad tags */
};

/* True if `dlt` is one of the supported link types. */
bool link_supported(int dlt);

/* Human name of a DLT, e.g. "EN10MB"; for error messages. */
const char *link_name(int dlt);

/* Decode the link header of one frame.
 * data/caplen: captured bytes; wirelen: original length.
 * Returns DECODE_OK with out->kind set to L3_IPV4 or L3_IPV6;
 * DECODE_UNSUPPORTED for frames that carry something else (ARP, ...);
 * DECODE_TRUNCATED if the captured bytes end inside the link header;
 * DECODE_INVALID for a malformed header. */
enum decode_rc link_decode(int dlt, const uint8_t *data, uint32_t caplen, uint32_t wirelen,
                           struct l3_view *out);

/* link_decode(), with the usual frame decoded inline: untagged Ethernet II
 * (DLT_EN10MB = 1) carrying IPv4 or IPv6; anything else goes to link_decode(). */
static inline enum decode_rc
link_decode_fast(int dlt, const uint8_t *data, uint32_t caplen, uint32_t wirelen,
                 struct l3_view *out)
{
    if (dlt == 1 && data && caplen >= 14) {
        unsigned et = (unsigned)data[12] << 8 | data[13];

        if (et == 0x0800 || et == 0x86dd) {
            out->kind = et == 0x0800 ? L3_IPV4 : L3_IPV6;
            out->l3.p = data + 14;
            out->l3.len = caplen - 14;
            /* As link_decode: a caplen above wirelen is bogus; trust the bytes held. */
            out->l3_wirelen = (wirelen < caplen ? caplen : wirelen) - 14;
            out->vlan_outer = 0;
            out->vlan_depth = 0;
            return DECODE_OK;
        }
    }
    return link_decode(dlt, data, caplen, wirelen, out);
}

/* The one anomaly a caller counts for a link_decode() failure:
 * TRUNCATED -> ANOM_PKT_TRUNCATED, UNSUPPORTED -> ANOM_LINK_OTHER (ARP, 802.3
 * length frames, unknown DLT, ...), INVALID -> ANOM_LINK_MALFORMED (e.g. more
 * than 8 stacked VLAN tags, raw IP with a version other than 4 or 6). */
enum anomaly link_anomaly(enum decode_rc rc);

#endif
