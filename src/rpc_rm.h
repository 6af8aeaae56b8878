/* SPDX-License-Identifier: BSD-3-Clause */
/* rpc_rm.h: ONC RPC record marking over TCP (RFC 5531 §11).
 *
 * Splits one direction's byte stream into RPC messages (records, possibly of
 * several fragments). Only the head of each message (its first head_max bytes,
 * enough for RPC header + NFS arguments/results used by the stats) is kept,
 * and of a longer message its last bytes (at most tail_max: what follows
 * READ/WRITE data in an NFSv4 COMPOUND, e.g. a GETATTR); the payload between
 * them is skipped without copying. A message is
 * delivered when its last byte arrives, with the timestamp of that packet
 * (the Wireshark rpc.time definition). Gaps inside a message body are skipped
 * and flagged; a gap that hits a record mark or an unknown position forces a
 * resync: scan for a record mark followed by a header that `probe` accepts. */
#ifndef NFSSCOPE_RPC_RM_H
#define NFSSCOPE_RPC_RM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "anomaly.h"
#include "bytes.h"

/* Delivered per message. head is borrowed: valid only during the callback. It
 * points into the fed chunk (zero copy) when the whole message arrived in one
 * chunk and its head lies in one fragment, else into a head-pool slot. If the
 * pool was empty when a copy was needed, head is empty and head_partial set
 * (rpc_head_pool_full counted). */
struct rpc_msg_view {
    struct bytes head;      /* first min(msg_len, head_max) bytes, or fewer if head_partial */
    uint32_t msg_len;       /* full message length (all fragments, marks excluded) */
    bool head_partial;      /* a gap cut the head short: head.len < min(msg_len, head_max) */
    /* The message's last bytes after the head, when it is longer than its
     * head: the last min(msg_len - head_max, tail_max) bytes, or fewer when
     * a gap or the pool cut them (then they still end the message); empty
     * when none arrived in one piece up to the message's end. Borrowed as head. */
    struct bytes tail;
    uint32_t tail_off;      /* offset of tail.p[0] in the message */
    bool body_gap;          /* bytes after the head were lost */
    struct timespec ts_first; /* packet carrying the first byte */
    struct timespec ts_last;  /* packet carrying the last byte (delivery time) */
};

/* Called once per message. `flow` and `dir` are passed through from the feed. */
typedef void rpc_msg_fn(void *ctx, void *flow, unsigned dir, const struct rpc_msg_view *m);

/* Resync probe: do the n bytes at p (the message after its record mark) look
 * like the start of an RPC message of length msg_len? Accepts only headers that
 * validate (RFC 5531 §9: rpcvers 2 for calls, sane reply_stat for replies).
 * n may be short: return false when there are too few bytes to tell.
 * rpc_rm guarantees n >= min(msg_len, 24) (a call's xid..proc), carrying
 * bytes across chunks to do so; it only asks for 20 <= msg_len <= max_msg_len.
 * A message whose first fragment is shorter than 20 bytes is probed with its
 * first 24 bytes joined across its fragments; when its last fragment is not
 * among them, its length is not known and msg_len is max_msg_len. NULL
 * accepts any such mark. */
typedef bool rpc_probe_fn(const uint8_t *p, size_t n, uint32_t msg_len);

/* Should the reply `xid` (flow, dir as delivered) keep a wide head? */
typedef bool rpc_wide_fn(void *ctx, void *flow, unsigned dir, uint32_t xid);

struct rpc_rm_config {
    size_t head_max;       /* bytes of each message kept; 0: 1024 (max 65535) */
    size_t pool_heads;     /* head buffers shared by all directions (messages split across chunks);
                            * 0: 4096. A direction holds at most one slot at a time: while a
                            * message spans chunks, or (in probe mode) for <= 119 carried bytes */
    uint32_t max_msg_len;  /* largest plausible message; 0: 16 MiB; larger marks force resync */
    rpc_probe_fn *probe;
    /* Wide heads: a reply longer than head_max whose call asked for one (a
     * directory listing: its entries are what the findings read) keeps up
     * to wide_max bytes (<= 65535) in one of wide_slots buffers of that size.
     * `wide` is asked once per such message, with the deliver ctx, when its
     * first head_max bytes are in; all busy, or 0 slots: the normal head. */
    size_t wide_max, wide_slots;
    rpc_wide_fn *wide;
    /* Bytes kept at the end of a message longer than its head; 0: 256 (at
     * most 4096). Each head and wide slot holds a tail as well: the tail
     * costs no memory per connection, and only its bytes are copied. */
    size_t tail_max;
};

/* Per-direction state, embedded in the flow entry. Zero-initialise before
 * first use; rpc_rm_release() before reuse. A zeroed rpc_rm starts in "probe"
 * mode: the first bytes must validate as a record mark + RPC header, else it
 * scans (a capture may start mid-record). */
struct rpc_rm {
    uint32_t frag_left;  /* bytes left in the current fragment */
    uint32_t msg_len;    /* bytes of the current message so far (marks excluded) */
    uint32_t head_slot;  /* pool slot holding the head (or probe carry); valid only when flags say so */
    uint16_t head_len;   /* bytes of head in the slot */
    uint16_t tail_len;   /* bytes of tail in the slot */
    uint32_t tail_end;   /* message offset just past the tail's last byte in the slot */
    uint8_t mark[4];     /* partial record mark */
    uint8_t mark_have;
    uint8_t state;       /* internal */
    uint8_t flags;       /* internal: last fragment, partial head, body gap, ... */
    struct timespec ts_first;
};

#define RPC_RM_NONE UINT32_MAX

struct rpc_rm_pool;

/* Returns NULL on allocation failure. */
struct rpc_rm_pool *rpc_rm_pool_new(const struct rpc_rm_config *cfg, struct anomalies *an);
void rpc_rm_pool_free(struct rpc_rm_pool *pool);

/* Feed in-order stream bytes. Returns the bytes consumed: the whole chunk
 * unless rpc_rm_stop() was called, then the bytes up to the stop (the rest
 * are not RPC). Delivers 0..n messages through `deliver`, each
 * when its last byte arrives (ts_last = ts; ts_first = ts of the chunk with its
 * first byte). In sync the cost is O(records in the chunk); bodies past head_max
 * are skipped without copying. Fragments may have any length (RFC 5531 §11);
 * a bad mark (a message > max_msg_len, or a whole message < 8 bytes: no
 * room for xid and msg_type) counts rpc_bad_mark and resyncs. In probe mode bytes skipped count
 * rpc_skipped_bytes, and finding a record after loss or skipped bytes counts
 * rpc_resync (a clean start at a record boundary does not). */
size_t rpc_rm_feed(struct rpc_rm_pool *pool, struct rpc_rm *rm, void *flow, unsigned dir,
                 struct bytes chunk, const struct timespec *ts, rpc_msg_fn *deliver, void *ctx);

/* `nbytes` of the stream are missing. Inside a fragment body past the head:
 * skip them (the message is still delivered, flagged body_gap). Inside a head:
 * the head is cut (head_partial) and the rest of the fragment skipped. Inside
 * a record mark, or when the position is unknown: resync. */
void rpc_rm_gap(struct rpc_rm_pool *pool, struct rpc_rm *rm, void *flow, unsigned dir,
                uint64_t nbytes, const struct timespec *ts, rpc_msg_fn *deliver, void *ctx);

/* In step with the records: a record mark followed by a header the probe
 * accepted was found and no loss has broken the sync since (not PROBE mode). */
bool rpc_rm_synced(const struct rpc_rm *rm);

/* The stream stops carrying records, from the end of the message being
 * delivered (call it from `deliver`) or now: the connection switched to TLS
 * (RFC 9289 §4.1). Later feeds consume nothing; rpc_rm_release() resets. */
void rpc_rm_stop(struct rpc_rm *rm);

/* End of stream: a message in progress is dropped (counted as rpc_truncated;
 * carried probe bytes as rpc_skipped_bytes), its slot freed, state reset to
 * zero (probe mode). */
void rpc_rm_release(struct rpc_rm_pool *pool, struct rpc_rm *rm);

/* The stream's connection ended (FIN, reset, a new connection on the same
 * ports): a record half sent is discarded and counted (rpc_record_cut);
 * then as rpc_rm_release. */
void rpc_rm_end(struct rpc_rm_pool *pool, struct rpc_rm *rm);

#endif
