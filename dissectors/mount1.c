/* SPDX-License-Identifier: BSD-3-Clause */
/* mount1.c: MOUNT version 1 (RFC 1094 Appendix A): counts, latency, MNT
 * status, and the export's root handle for the names cache. The decoding is
 * shared with version 2 (mount12_common.h). */
#include "mount12_common.h"

#define MOUNT1_NPROCS (MOUNTPROC_EXPORTALL + 1)

static const struct rpc_op mount1_procs[MOUNT1_NPROCS] = {
    { "null", OPK_NULL, 0 },
    { "mnt", OPK_MOUNT, 0 },
    { "dump", OPK_MOUNT_LIST, 0 },
    { "umnt", OPK_UNMOUNT, 0 },
    { "umntall", OPK_UNMOUNT, 0 },
    { "export", OPK_EXPORTS, 0 },
    { "exportall", OPK_EXPORTS, 0 },
};

static enum decode_rc
mount1_call(struct xdr_cur *x, struct pending_call *pc, const struct op_sink *sub)
{
    (void)sub; /* one operation per call: the message is the operation */
    return mount12_call(x, pc, false);
}

static enum decode_rc
mount1_reply(struct xdr_cur *x, const struct pending_call *pc, struct op_event *ev,
             const struct op_sink *sub)
{
    (void)sub;
    return mount12_reply(x, pc, ev);
}

const struct rpc_program mount1_program = {
    .name = "mount1",
    .title = "MOUNT v1",
    .prog = 100005,
    .vers = 1,
    .nprocs = MOUNT1_NPROCS,
    .procs = mount1_procs,
    .status_name = mount12_status_name,
    .call = mount1_call,
    .reply = mount1_reply,
};
