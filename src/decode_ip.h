/* SPDX-License-Identifier: BSD-3-Clause */
/* decode_ip.h: IPv4 (RFC 791) and IPv6 (RFC 8200) to a TCP segment or UDP datagram. */
#ifndef NFSSCOPE_DECODE_IP_H
#define NFSSCOPE_DECODE_IP_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "anomaly.h"
#include "bytes.h"
#include "decode_link.h"
#include "flow_key.h"

struct ipfrag;

/* TCP flag bits (RFC 9293 §3.1). */
enum { TCPF_FIN = 0x01, TCPF_SYN = 0x02, TCPF_RST = 0x04, TCPF_PSH = 0x08, TCPF_ACK = 0x10 };

struct l4_seg {
    struct flow_key key;      /* as seen on the wire: src -> dst */
    struct bytes payload;     /* captured transport payload; may point into ipfrag's buffer */
    uint32_t payload_wirelen; /* payload length claimed by the IP/UDP/TCP headers; >= payload.len */
    uint32_t seq, ack;        /* TCP only */
    uint8_t tcp_flags;        /* TCP only */
    bool reassembled;         /* built from IP fragments */
    bool first_frag_only;     /* ipfrag gave up on the datagram; payload is its first fragment(s) */
};

/* Decode one IP packet down to TCP or UDP.
 * l3: captured bytes from the IP header; l3_wirelen its wire length.
 * Fragments are handed to `fr` through ipfrag_add() and DECODE_PENDING is
 * returned until the datagram is complete; the completed datagram's payload
 * lives in ipfrag's buffer until the next call into `fr` (out->reassembled).
 * Anomalies met while reassembling are counted in the `an` given to
 * ipfrag_new(). With `fr` NULL there is no reassembly: an offset-0 fragment is
 * decoded on its own (out->first_frag_only, payload_wirelen from the UDP
 * length), any other fragment is dropped and counted as ANOM_IPFRAG_EVICTED
 * (as by a table of capacity zero).
 * A TCP/UDP payload may be empty (pure ACK): still DECODE_OK.
 * Returns DECODE_OK with *out filled; DECODE_UNSUPPORTED for other protocols
 * (ICMP, ...); DECODE_TRUNCATED / DECODE_INVALID with one anomaly counted in `an`.
 * Length rule: the payload is clipped to the length the IP header claims
 * (Ethernet padding is dropped) and to the captured bytes. */
enum decode_rc ip_decode(struct ipfrag *fr, const struct l3_view *l3, const struct timespec *ts,
                         struct anomalies *an, struct l4_seg *out);

/* Decode the transport part of a datagram: for IPv6, first any remaining
 * extension headers (`proto` may be one), then TCP (RFC 9293 §3.1) or UDP
 * (RFC 768). Used by ip_decode() and by ipfrag on reassembled datagrams.
 * data: captured bytes from the transport (or extension) header, already
 * clipped to the IP-claimed length; wirelen: that claimed length.
 * partial: `data` is only the first fragment(s) of a bigger datagram, so the
 * UDP length may exceed `wirelen` (payload_wirelen is then taken from it).
 * Sets out->key.af/proto/sport/dport, payload, payload_wirelen, seq, ack,
 * tcp_flags; leaves the addresses and the reassembled/first_frag_only flags
 * alone. On failure counts exactly one anomaly in `an` (NULL: none). */
enum decode_rc ip_decode_transport(uint8_t af, uint8_t proto, struct bytes data, uint32_t wirelen,
                                   bool partial, struct anomalies *an, struct l4_seg *out);

#endif
