/* SPDX-License-Identifier: BSD-3-Clause */
/* nlm4.c: Network Lock Manager version 4 (XNFS 3W chapter 14, for NFSv3):
 * counts, latency and nlm4_stats of every lock operation, synchronous and
 * asynchronous (see nlm_common.h for how *_MSG / *_RES pairs are counted). */
#include <stddef.h>

#include "dissector.h"
#include "nlm_common.h"
#include "valname.h"

#define NLM4_NPROCS 24

static const struct rpc_op nlm4_procs[NLM4_NPROCS] = {
    NLM_OPS_V1,
    NLM_OPS_V3,
};

static const struct valname nlm4_status_names[] = {
    { 0, "NLM4_GRANTED" }, { 1, "NLM4_DENIED" }, { 2, "NLM4_DENIED_NOLOCKS" },
    { 3, "NLM4_BLOCKED" }, { 4, "NLM4_DENIED_GRACE_PERIOD" }, { 5, "NLM4_DEADLCK" },
    { 6, "NLM4_ROFS" }, { 7, "NLM4_STALE_FH" }, { 8, "NLM4_FBIG" }, { 9, "NLM4_FAILED" },
    { 0, NULL },
};

static const char *
nlm4_status_name(uint32_t status)
{
    return valname(nlm4_status_names, status);
}

static enum decode_rc
nlm4_call(struct xdr_cur *x, struct pending_call *pc, const struct op_sink *sub)
{
    (void)sub; /* one operation per call: the message is the operation */
    return nlm_common_call(x, pc);
}

static enum decode_rc
nlm4_reply(struct xdr_cur *x, const struct pending_call *pc, struct op_event *ev,
           const struct op_sink *sub)
{
    (void)sub;
    return nlm_common_reply(x, pc, ev);
}

const struct rpc_program nlm4_program = {
    .name = "nlm4",
    .title = "NLM v4",
    .prog = 100021,
    .vers = 4,
    .nprocs = NLM4_NPROCS,
    .procs = nlm4_procs,
    .flags = PGF_LOCK_WAITS,
    .status_name = nlm4_status_name,
    .status_error = nlm_status_error,
    .call = nlm4_call,
    .reply = nlm4_reply,
};
