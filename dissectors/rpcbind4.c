/* SPDX-License-Identifier: BSD-3-Clause */
/* rpcbind4.c: RPCBIND version 4 (RFC 1833 §2): counts and latency. The
 * decoding is shared with version 3 (rpcbind_common.h). */
#include "rpcbind_common.h"

#define RPCB4_NPROCS (RPCBPROC_GETSTAT + 1)

static const char *const rpcbind4_proc_names[RPCB4_NPROCS] = {
    "null", "set", "unset", "getaddr", "dump", "bcast", "gettime", "uaddr2taddr",
    "taddr2uaddr", "getversaddr", "indirect", "getaddrlist", "getstat",
};

const struct rpc_program rpcbind4_program = {
    .name = "rpcbind4",
    .title = "RPCBIND v4",
    .prog = 100000,
    .vers = 4,
    .nprocs = RPCB4_NPROCS,
    .proc_names = rpcbind4_proc_names,
    .status_name = NULL,
    .call = rpcbind_call,
    .reply = rpcbind_reply,
};
