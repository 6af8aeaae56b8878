/* SPDX-License-Identifier: BSD-3-Clause */
/* rpcbind4.c: RPCBIND version 4 (RFC 1833 §2): counts and latency. The
 * decoding is shared with version 3 (rpcbind_common.h). */
#include "rpcbind_common.h"

#define RPCB4_NPROCS (RPCBPROC_GETSTAT + 1)

static const struct rpc_op rpcbind4_procs[RPCB4_NPROCS] = {
    { "null", OPK_NULL, 0 },
    { "set", OPK_PORT_SET, 0 },
    { "unset", OPK_PORT_UNSET, 0 },
    { "getaddr", OPK_PORT_LOOKUP, 0 },
    { "dump", OPK_PORT_LIST, 0 },
    { "bcast", OPK_CALL_INDIRECT, 0 },
    { "gettime", OPK_OTHER, 0 },
    { "uaddr2taddr", OPK_ADDR_CONVERT, 0 },
    { "taddr2uaddr", OPK_ADDR_CONVERT, 0 },
    { "getversaddr", OPK_PORT_LOOKUP, 0 },
    { "indirect", OPK_CALL_INDIRECT, 0 },
    { "getaddrlist", OPK_PORT_LOOKUP, 0 },
    { "getstat", OPK_STATUS, 0 },
};

const struct rpc_program rpcbind4_program = {
    .name = "rpcbind4",
    .title = "RPCBIND v4",
    .prog = 100000,
    .vers = 4,
    .nprocs = RPCB4_NPROCS,
    .procs = rpcbind4_procs,
    .status_name = NULL,
    .call = rpcbind_call,
    .reply = rpcbind_reply,
};
