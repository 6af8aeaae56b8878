/* SPDX-License-Identifier: BSD-3-Clause */
/* nlm1.c: Network Lock Manager version 1 (XNFS 3W chapters 10-11; used with
 * NFSv2): counts, latency and nlm_stats of every lock operation, synchronous
 * and asynchronous (see nlm_common.h for how *_MSG / *_RES pairs are
 * counted). Procedures 0-15 only; SHARE and the others came with version 3. */
#include <stddef.h>

#include "dissector.h"
#include "nlm_common.h"
#include "valname.h"

#define NLM1_NPROCS 16

static const struct rpc_op nlm1_procs[NLM1_NPROCS] = {
    NLM_OPS_V1,
};

/* XNFS 10.1 nlm_stats; 5 (deadlock) is an extension some servers send. */
static const struct valname nlm1_status_names[] = {
    { 0, "LCK_GRANTED" }, { 1, "LCK_DENIED" }, { 2, "LCK_DENIED_NOLOCKS" }, { 3, "LCK_BLOCKED" },
    { 4, "LCK_DENIED_GRACE_PERIOD" }, { 5, "LCK_DEADLCK" }, { 0, NULL },
};

static const char *
nlm1_status_name(uint32_t status)
{
    return valname(nlm1_status_names, status);
}

static enum decode_rc
nlm1_call(struct xdr_cur *x, struct pending_call *pc, const struct op_sink *sub)
{
    (void)sub; /* one operation per call: the message is the operation */
    return nlm_common_call(x, pc);
}

static enum decode_rc
nlm1_reply(struct xdr_cur *x, const struct pending_call *pc, struct op_event *ev,
           const struct op_sink *sub)
{
    (void)sub;
    return nlm_common_reply(x, pc, ev);
}

const struct rpc_program nlm1_program = {
    .name = "nlm1",
    .title = "NLM v1",
    .prog = 100021,
    .vers = 1,
    .nprocs = NLM1_NPROCS,
    .procs = nlm1_procs,
    .status_name = nlm1_status_name,
    .status_error = nlm_status_error,
    .call = nlm1_call,
    .reply = nlm1_reply,
};
