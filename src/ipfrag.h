/* SPDX-License-Identifier: BSD-3-Clause */
/* ipfrag.h: IPv4 (RFC 791 §3.2) and IPv6 (RFC 8200 §4.5) fragment reassembly.
 *
 * Bounded: at most `max_datagrams` datagrams in progress, each at most 65,535
 * bytes, each dropped `timeout_s` seconds of packet time after its first
 * fragment. All memory is allocated in ipfrag_new(); nothing per packet. */
#ifndef NFSSCOPE_IPFRAG_H
#define NFSSCOPE_IPFRAG_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "anomaly.h"
#include "bytes.h"
#include "decode_ip.h"

struct ipfrag;

/* max_datagrams: datagrams in progress at once (0 is allowed: every fragment
 * is then dropped as evicted); each slot's 64 KiB buffer is allocated the
 * first time the slot is used and kept until ipfrag_free(). `an` receives
 * every anomaly ipfrag counts and may be NULL. Returns NULL on allocation failure. */
struct ipfrag *ipfrag_new(size_t max_datagrams, unsigned timeout_s, struct anomalies *an);
void ipfrag_free(struct ipfrag *fr); /* NULL is a no-op */

/* Callback for datagrams given up on (expired or evicted) whose first fragment
 * (offset 0) was captured: `seg` carries the contiguous bytes from offset 0
 * with first_frag_only set, and payload_wirelen from the UDP/TCP header where
 * known. Lets the RPC layer still count a call whose tail fragments were lost. */
typedef void ipfrag_lost_fn(void *ctx, const struct l4_seg *seg, const struct timespec *ts);
/* (`seg` and its payload are valid only during the callback; `ts` is the time
 * of the last fragment seen. The datagram has already left the table: the
 * callback may call ipfrag_give_up_call(), nothing else of the ipfrag.
 * Given-up datagrams count ANOM_IPFRAG_EXPIRED (expired or flushed) or
 * ANOM_IPFRAG_EVICTED whether or not the callback runs.) */

void ipfrag_set_lost_cb(struct ipfrag *fr, ipfrag_lost_fn *cb, void *ctx);

/* Expire datagrams older than the timeout at packet time `now`; at most
 * `budget` per call (0 = all). ipfrag_flush() gives up on everything (end of input). */
void ipfrag_expire(struct ipfrag *fr, const struct timespec *now, size_t budget);
void ipfrag_flush(struct ipfrag *fr);

/* Give up now on the incomplete UDP datagrams from src to dst (16-byte
 * address forms, as in struct flow_key) whose first fragment carries RPC XID
 * `xid` (the word after the 8-byte UDP header): a reply came back for a call
 * whose datagram lost fragments, so the call must be counted before the reply
 * is matched. Datagrams of other XIDs may still be arriving and are left to
 * complete. */
void ipfrag_give_up_call(struct ipfrag *fr, uint8_t af, uint8_t proto, const uint8_t *src,
                         const uint8_t *dst, uint32_t xid);

/* Number of datagrams in progress (for tests and the report). */
size_t ipfrag_pending(const struct ipfrag *fr);

/* One fragment, as ip_decode() hands it over. */
struct ipfrag_frag {
    uint8_t af;        /* FLOW_AF_INET or FLOW_AF_INET6 */
    uint8_t proto;     /* IPv4 Protocol, or the IPv6 Fragment header's Next Header */
    bool more;         /* MF (IPv4) / M (IPv6): more fragments follow */
    uint32_t id;       /* Identification: 16 bits (IPv4) or 32 bits (IPv6) */
    uint8_t saddr[16]; /* IPv4 in the first 4 bytes, rest zero */
    uint8_t daddr[16];
    uint32_t offset;       /* byte offset of this fragment's data in the datagram */
    struct bytes data;     /* captured fragment data, clipped to data_wirelen */
    uint32_t data_wirelen; /* fragment data length claimed by the IP header(s) */
};

/* Add one fragment (called by ip_decode()). Returns
 * DECODE_PENDING: held (or a duplicate of a finished datagram, absorbed);
 * DECODE_OK: the datagram is complete and decoded into *out (reassembled set;
 *   payload points into ipfrag's buffer, valid until the next call into `fr`),
 *   or all its fragments were seen but the capture cut some of them short, in
 *   which case *out holds the bytes from offset 0 with first_frag_only set;
 * DECODE_INVALID: ANOM_IPFRAG_BAD counted (overlap with different content,
 *   over 65,535 bytes, misaligned or empty fragment), or the transport header of
 *   the reassembled datagram is malformed (its anomaly counted);
 * DECODE_TRUNCATED: reassembled but the transport header was not captured.
 * Anomalies go to the `an` given to ipfrag_new(). The lost callback may run
 * from inside this call (for a datagram evicted or expired to make room). */
enum decode_rc ipfrag_add(struct ipfrag *fr, const struct ipfrag_frag *f, const struct timespec *ts,
                          struct l4_seg *out);

/* The fragment most recently given to ipfrag_add() since ipfrag_forget_last()
 * (its data borrowed from that packet): lets the -w writer (src/wpcap.h) tell
 * which datagram a packet was a fragment of. false: none. */
bool ipfrag_last(const struct ipfrag *fr, struct ipfrag_frag *out);
void ipfrag_forget_last(struct ipfrag *fr);

#endif
