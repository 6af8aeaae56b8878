/* SPDX-License-Identifier: BSD-3-Clause */
/* nlm3.c: Network Lock Manager version 3 (XNFS 3W chapters 10-11: version 1
 * plus SHARE, UNSHARE, NM_LOCK and FREE_ALL; used with NFSv2): counts,
 * latency and nlm_stats of every lock operation, synchronous and
 * asynchronous (see nlm_common.h for how *_MSG / *_RES pairs are counted). */
#include <stddef.h>

#include "dissector.h"
#include "nlm_common.h"
#include "valname.h"

#define NLM3_NPROCS 24

static const struct rpc_op nlm3_procs[NLM3_NPROCS] = {
    NLM_OPS_V1,
    NLM_OPS_V3,
};

/* XNFS 10.1 nlm_stats; 5 (deadlock) is an extension some servers send. */
static const struct valname nlm3_status_names[] = {
    { 0, "LCK_GRANTED" }, { 1, "LCK_DENIED" }, { 2, "LCK_DENIED_NOLOCKS" }, { 3, "LCK_BLOCKED" },
    { 4, "LCK_DENIED_GRACE_PERIOD" }, { 5, "LCK_DEADLCK" }, { 0, NULL },
};

static const char *
nlm3_status_name(uint32_t status)
{
    return valname(nlm3_status_names, status);
}

static enum decode_rc
nlm3_call(struct xdr_cur *x, struct pending_call *pc, const struct op_sink *sub)
{
    (void)sub; /* one operation per call: the message is the operation */
    return nlm_common_call(x, pc);
}

static enum decode_rc
nlm3_reply(struct xdr_cur *x, const struct pending_call *pc, struct op_event *ev,
           const struct op_sink *sub)
{
    (void)sub;
    return nlm_common_reply(x, pc, ev);
}

const struct rpc_program nlm3_program = {
    .name = "nlm3",
    .title = "NLM v3",
    .prog = 100021,
    .vers = 3,
    .nprocs = NLM3_NPROCS,
    .procs = nlm3_procs,
    .status_name = nlm3_status_name,
    .status_error = nlm_status_error,
    .call = nlm3_call,
    .reply = nlm3_reply,
};
