/* SPDX-License-Identifier: BSD-3-Clause */
/* rpcbind3.c: RPCBIND version 3 (RFC 1833 §2): counts and latency. The
 * decoding is shared with version 4 (rpcbind_common.h). */
#include "rpcbind_common.h"

#define RPCB3_NPROCS (RPCBPROC_TADDR2UADDR + 1)

static const char *const rpcbind3_proc_names[RPCB3_NPROCS] = {
    "null", "set", "unset", "getaddr", "dump", "callit", "gettime", "uaddr2taddr",
    "taddr2uaddr",
};

const struct rpc_program rpcbind3_program = {
    .name = "rpcbind3",
    .title = "RPCBIND v3",
    .prog = 100000,
    .vers = 3,
    .nprocs = RPCB3_NPROCS,
    .proc_names = rpcbind3_proc_names,
    .status_name = NULL,
    .call = rpcbind_call,
    .reply = rpcbind_reply,
};
