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

/* Returns NULL on allocation failure. */
struct ipfrag *ipfrag_new(size_t max_datagrams, unsigned timeout_s, struct anomalies *an);
void ipfrag_free(struct ipfrag *fr); /* NULL is a no-op */

/* Callback for datagrams given up on (expired or evicted) whose first fragment
 * (offset 0) was captured: `seg` carries the contiguous bytes from offset 0
 * with first_frag_only set, and payload_wirelen from the UDP/TCP header where
 * known. Lets the RPC layer still count a call whose tail fragments were lost. */
typedef void ipfrag_lost_fn(void *ctx, const struct l4_seg *seg, const struct timespec *ts);

void ipfrag_set_lost_cb(struct ipfrag *fr, ipfrag_lost_fn *cb, void *ctx);

/* Expire datagrams older than the timeout at packet time `now`; at most
 * `budget` per call (0 = all). ipfrag_flush() gives up on everything (end of input). */
void ipfrag_expire(struct ipfrag *fr, const struct timespec *now, size_t budget);
void ipfrag_flush(struct ipfrag *fr);

/* Number of datagrams in progress (for tests and the report). */
size_t ipfrag_pending(const struct ipfrag *fr);

#endif
