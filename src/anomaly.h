/* SPDX-License-Identifier: BSD-3-Clause */
/* anomaly.h: named counters for everything wrong or lost in the input.
 *
 * Problems inside packets are never printed per packet and never fatal: each
 * early exit bumps exactly one counter here, and the reports list the
 * non-zero ones (Zeek "weirds", Suricata events). Declared once, as an
 * X-macro, so the enum, the JSON keys and the text labels cannot drift. */
#ifndef NFSSCOPE_ANOMALY_H
#define NFSSCOPE_ANOMALY_H

#include <stdint.h>

/* X(ENUM_SUFFIX, json_key, human description) */
#define NFSSCOPE_ANOMALIES(X)                                                                      \
    X(PKT_TRUNCATED, "pkt_truncated", "packets cut by the snapshot length inside a header")       \
    X(PKT_CAPLEN_BAD, "pkt_caplen_bad", "packets whose captured length exceeds the wire length")  \
    X(LINK_MALFORMED, "link_malformed", "link-layer headers malformed or too short")             \
    X(LINK_OTHER, "link_other", "frames that carry neither IPv4 nor IPv6")                        \
    X(IP_MALFORMED, "ip_malformed", "IP headers with impossible lengths or versions")             \
    X(IP_CHECKSUM, "ip_checksum", "IPv4 headers with a bad checksum (still decoded)")             \
    X(IPFRAG_EXPIRED, "ipfrag_expired", "IP datagrams whose fragments never all arrived")          \
    X(IPFRAG_EVICTED, "ipfrag_evicted", "IP datagrams dropped because the fragment table was full") \
    X(IPFRAG_BAD, "ipfrag_bad", "IP fragments that overlap inconsistently or exceed 64 KiB")      \
    X(IPV6_EXT_BAD, "ipv6_ext_bad", "IPv6 extension header chains that are malformed or too long") \
    X(L4_OTHER, "l4_other", "IP packets that are neither TCP nor UDP")                              \
    X(TCP_MALFORMED, "tcp_malformed", "TCP headers malformed")                                      \
    X(UDP_MALFORMED, "udp_malformed", "UDP headers malformed")                                      \
    X(TCP_GAP, "tcp_gap", "holes in a TCP stream (segments lost or not captured)")                  \
    X(TCP_OOO_OVERFLOW, "tcp_ooo_overflow", "out-of-order data dropped: buffer limit reached")       \
    X(TCP_RETRANSMIT, "tcp_retransmit", "TCP segments whose bytes were already seen")               \
    X(TCP_RECONNECT, "tcp_reconnect", "TCP connections opened again on the same addresses and ports") \
    X(FLOW_EVICTED, "flow_evicted", "connections evicted from a full flow table")                   \
    X(RPC_BAD_MARK, "rpc_bad_mark", "RPC record marks with an impossible length")                   \
    X(RPC_RESYNC, "rpc_resync", "times the RPC record stream was re-synchronised")                  \
    X(RPC_SKIPPED_BYTES, "rpc_skipped_bytes", "TCP bytes skipped while searching for a record")    \
    X(RPC_HEAD_POOL_FULL, "rpc_head_pool_full", "RPC heads cut short: head buffer pool exhausted") \
    X(RPC_MALFORMED, "rpc_malformed", "RPC messages with an invalid header")                        \
    X(RPC_TRUNCATED, "rpc_truncated", "RPC messages whose header was cut short")                    \
    X(RPC_RECORD_CUT, "rpc_record_cut", "RPC records cut off by their connection's end (FIN, reset, reconnect)") \
    X(RPC_BAD_CRED, "rpc_bad_cred", "RPC credentials or verifiers over their limits")               \
    X(XID_EVICTED, "xid_evicted", "pending calls evicted from a full table")                        \
    X(NFS_DECODE_ERROR, "nfs_decode_error", "NFS arguments or results that could not be decoded") \
    X(NFS4_OPS_BEYOND_BOUND, "nfs4_ops_beyond_bound", "NFSv4 operations and results past the 64 decoded per COMPOUND (counted, not decoded)") \
    X(NFS4_FH_NOT_KEPT, "nfs4_fh_not_kept", "NFSv4 PUTFH handles a COMPOUND's reply could not be given (no room left in its pending call)") \
    X(FILE_TRUNCATED, "file_truncated", "capture files that end inside a packet record")

enum anomaly {
#define ANOMALY_ENUM(e, k, d) ANOM_##e,
    NFSSCOPE_ANOMALIES(ANOMALY_ENUM)
#undef ANOMALY_ENUM
        ANOM__COUNT
};

struct anomalies {
    uint64_t n[ANOM__COUNT];
};

static inline void
anomaly_add(struct anomalies *a, enum anomaly k, uint64_t by)
{
    if (a)
        a->n[k] += by;
}

const char *anomaly_key(enum anomaly k);  /* JSON key, e.g. "tcp_gap" */
const char *anomaly_desc(enum anomaly k); /* human description */

#endif
