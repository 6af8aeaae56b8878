/* SPDX-License-Identifier: BSD-3-Clause */
/* wpcap.h: -w FILE: the packets that carried ONC RPC, written to a
 * pcap file as they were captured, to shrink a big capture for sharing (as
 * nfstrace's drain mode does).
 *
 * Which packets (pipeline.c decides, after the packet went through it):
 *  - a TCP segment or UDP datagram whose connection is recognised as RPC once
 *    the packet has been processed: an RPC message was decoded on it, or (TCP)
 *    a record mark followed by a valid RPC header was found in either
 *    direction (RFC 5531 §11). So the packet carrying the start of the first
 *    RPC record is written, and every later packet of the connection (ACKs,
 *    FIN, RST) too; bytes before it (a capture that starts mid-record) are
 *    not, nor are segments held out of order before the sync;
 *  - TCP SYN and SYN-ACK to or from port 111 (sunrpc) or 2049 (nfs), so the
 *    handshake of NFS and portmap connections is kept (a SYN cannot be known
 *    to start RPC; other ports' handshakes are not written);
 *  - IP fragments (RFC 791 §3.2, RFC 8200 §4.5) of a datagram whose first
 *    fragment (offset 0) carries RPC: a UDP payload that validates as an RPC
 *    header (the strict resync test, rpc_probe), or a connection already
 *    recognised. The first fragment decides for the fragments after it;
 *    fragments that came before it are not written (counted: frags_missed).
 *    The original fragments are written, not a rebuilt datagram.
 * Every kept packet is written as it came: timestamp (nanosecond pcap), caplen,
 * wire length and bytes; link type and snapshot length are the input's.
 *
 * Bounded: the datagrams in progress sit in a fixed direct-mapped table (at
 * least 2 * frag_slots entries, seeded hash), forgotten when the datagram is
 * complete or frag_timeout_s of packet time after its first fragment; a live
 * entry overwritten by another datagram counts in frags_evicted. No
 * allocation after wpcap_open(); writing is one pcap_dump() per kept packet. */
#ifndef NFSSCOPE_WPCAP_H
#define NFSSCOPE_WPCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "ipfrag.h"

struct wpcap;

struct wpcap_counts {
    uint64_t written;       /* packets written */
    uint64_t frags_missed;  /* fragments of an RPC datagram seen before its first fragment */
    uint64_t frags_evicted; /* undecided or kept datagrams pushed out of the table */
};

/* Create/truncate `path` as a pcap (nanosecond timestamps) of link type `dlt`
 * and snapshot length `snaplen` (<= 0: 262144). seed 0: from getrandom().
 * NULL with a one-line reason in err (no "nfsscope:" prefix). */
struct wpcap *wpcap_open(const char *path, int dlt, int snaplen, size_t frag_slots,
                         unsigned frag_timeout_s, uint64_t seed, char *err, size_t errsz);

/* Write one packet as captured. ts is the capture's own (not normalised). */
void wpcap_write(struct wpcap *w, const struct timespec *ts, uint32_t caplen, uint32_t wirelen,
                 const uint8_t *data);

/* One IP fragment went through the pipeline: should it be written?
 * first_is_rpc: for the offset-0 fragment, whether it carries RPC (ignored
 * for the others, which follow what their first fragment decided).
 * finished: this fragment completed its datagram (its entry is freed). */
bool wpcap_frag(struct wpcap *w, const struct ipfrag_frag *f, bool first_is_rpc, bool finished,
                const struct timespec *ts);

/* TCP SYNs written before RPC is seen: to or from port 111 or 2049. */
bool wpcap_rpc_port(uint16_t sport, uint16_t dport);

void wpcap_counts(const struct wpcap *w, struct wpcap_counts *out);

/* Flush and close. 0, or -1 with a reason in err (a write failed). NULL: 0. */
int wpcap_close(struct wpcap *w, char *err, size_t errsz);

#endif
