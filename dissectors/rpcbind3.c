/* SPDX-License-Identifier: BSD-3-Clause */
/* rpcbind3.c: RPCBIND version 3 (RFC 1833 §2): counts and latency. The
 * decoding is shared with version 4 (rpcbind_common.h). */
#include "rpcbind_common.h"

#define RPCB3_NPROCS (RPCBPROC_TADDR2UADDR + 1)

static const struct rpc_op rpcbind3_procs[RPCB3_NPROCS] = {
    { "null", OPK_NULL, 0 },
    { "set", OPK_PORT_SET, 0 },
    { "unset", OPK_PORT_UNSET, 0 },
    { "getaddr", OPK_PORT_LOOKUP, 0 },
    { "dump", OPK_PORT_LIST, 0 },
    { "callit", OPK_CALL_INDIRECT, 0 },
    { "gettime", OPK_OTHER, 0 },
    { "uaddr2taddr", OPK_ADDR_CONVERT, 0 },
    { "taddr2uaddr", OPK_ADDR_CONVERT, 0 },
};

const struct rpc_program rpcbind3_program = {
    .name = "rpcbind3",
    .title = "RPCBIND v3",
    .prog = 100000,
    .vers = 3,
    .nprocs = RPCB3_NPROCS,
    .procs = rpcbind3_procs,
    .status_name = NULL,
    .call = rpcbind_call,
    .reply = rpcbind_reply,
};
