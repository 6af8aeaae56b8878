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
    { "null", OPK_NULL, 0 },
    { "test", OPK_LOCK_TEST, OPF_FH },
    { "lock", OPK_LOCK, OPF_FH },
    { "cancel", OPK_LOCK_CANCEL, OPF_FH },
    { "unlock", OPK_UNLOCK, OPF_FH },
    { "granted", OPK_LOCK_GRANTED, OPF_FH | OPF_CALLBACK },
    { "test_msg", OPK_LOCK_TEST, OPF_FH | OPF_MSG },
    { "lock_msg", OPK_LOCK, OPF_FH | OPF_MSG },
    { "cancel_msg", OPK_LOCK_CANCEL, OPF_FH | OPF_MSG },
    { "unlock_msg", OPK_UNLOCK, OPF_FH | OPF_MSG },
    { "granted_msg", OPK_LOCK_GRANTED, OPF_FH | OPF_MSG | OPF_CALLBACK },
    { "test_res", OPK_LOCK_RESULT, OPF_MSG | OPF_CALLBACK },
    { "lock_res", OPK_LOCK_RESULT, OPF_MSG | OPF_CALLBACK },
    { "cancel_res", OPK_LOCK_RESULT, OPF_MSG | OPF_CALLBACK },
    { "unlock_res", OPK_LOCK_RESULT, OPF_MSG | OPF_CALLBACK },
    { "granted_res", OPK_LOCK_RESULT, OPF_MSG },
    { NULL, OPK_OTHER, 0 },
    { NULL, OPK_OTHER, 0 },
    { NULL, OPK_OTHER, 0 },
    { NULL, OPK_OTHER, 0 }, /* 16-19: not assigned (reported as procN) */
    { "share", OPK_SHARE, OPF_FH },
    { "unshare", OPK_UNSHARE, OPF_FH },
    { "nm_lock", OPK_LOCK, OPF_FH },
    { "free_all", OPK_FREE_ALL, 0 },
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
