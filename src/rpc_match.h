/* SPDX-License-Identifier: BSD-3-Clause */
/* rpc_match.h: RPC messages to finished operations: parse the header, match
 * replies to calls by (connection, direction, XID), run the program's
 * dissector, and hand each finished call to the consumers (consumer.h)
 * (RFC 5531 §9). */
#ifndef NFSSCOPE_RPC_MATCH_H
#define NFSSCOPE_RPC_MATCH_H

#include <stdbool.h>

#include "consumer.h"
#include "flow.h"
#include "rpc_rm.h"
#include "stats.h"
#include "xid_table.h"

/* Called for a UDP reply with no call, before it is counted as an orphan:
 * the call may be waiting in an incomplete IP datagram (lost fragments); the
 * hook may deliver it (re-entering rpc_match_message) so the reply matches. */
typedef void rpc_orphan_hook(void *ctx, struct flow *f, unsigned reply_dir, uint32_t xid);

struct rpc_match {
    struct xid_table xids;
    struct stats *stats; /* counted at call time; anomalies, RPC totals */
    const struct consumers *out; /* every finished call, once (set by the caller) */
    const struct nfsscope_config *cfg;
    struct op_dirent *dirents; /* OP_DIRENT_MAX: one reply's listing entries (stats.h) */
    rpc_orphan_hook *before_orphan;
    void *hook_ctx;
    uint64_t frame; /* the frame that completes the messages now delivered (0: unknown) */
};

int rpc_match_init(struct rpc_match *m, const struct nfsscope_config *cfg, struct stats *stats,
                   uint64_t seed);
void rpc_match_fini(struct rpc_match *m);

/* One complete RPC message travelling in direction `dir` of `f`.
 * `udp`: the message is a datagram (not validated by record marking), so it
 * must validate strictly before it counts. */
void rpc_match_message(struct rpc_match *m, struct flow *f, unsigned dir,
                       const struct rpc_msg_view *msg, bool udp);

/* Periodic expiry at packet time (bounded work). */
void rpc_match_expire(struct rpc_match *m, const struct timespec *now);

/* Does the reply `xid`, travelling in direction reply_dir of flow f, answer a
 * pending call whose program wants its replies kept wide
 * (rpc_program.wide_replies)? For rpc_rm. */
bool rpc_match_wide_reply(struct rpc_match *m, struct flow *f, unsigned reply_dir, uint32_t xid);

/* End of input: every call still waiting becomes unanswered. */
void rpc_match_flush(struct rpc_match *m);

/* Look a program up in the registry by (prog, vers); NULL if not decoded. */
const struct rpc_program *rpc_program_find(uint32_t prog, uint32_t vers);

#endif
