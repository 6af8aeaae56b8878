/* SPDX-License-Identifier: BSD-3-Clause */
/* mount2.c: MOUNT version 2 (Sun's mount.x: version 1 plus PATHCONF):
 * counts, latency, MNT status, and the export's root handle for the names
 * cache. The decoding is shared with version 1 (mount12_common.h). */
#include "mount12_common.h"

#define MOUNT2_NPROCS (MOUNTPROC_PATHCONF + 1)

static const struct rpc_op mount2_procs[MOUNT2_NPROCS] = {
    { "null", OPK_NULL, 0 },
    { "mnt", OPK_MOUNT, 0 },
    { "dump", OPK_MOUNT_LIST, 0 },
    { "umnt", OPK_UNMOUNT, 0 },
    { "umntall", OPK_UNMOUNT, 0 },
    { "export", OPK_EXPORTS, 0 },
    { "exportall", OPK_EXPORTS, 0 },
    { "pathconf", OPK_PATHCONF, 0 },
};

static enum decode_rc
mount2_call(struct xdr_cur *x, struct pending_call *pc, const struct op_sink *sub)
{
    (void)sub; /* one operation per call: the message is the operation */
    return mount12_call(x, pc, true);
}

static enum decode_rc
mount2_reply(struct xdr_cur *x, const struct pending_call *pc, struct op_event *ev,
             const struct op_sink *sub)
{
    (void)sub;
    return mount12_reply(x, pc, ev);
}

const struct rpc_program mount2_program = {
    .name = "mount2",
    .title = "MOUNT v2",
    .prog = 100005,
    .vers = 2,
    .nprocs = MOUNT2_NPROCS,
    .procs = mount2_procs,
    .status_name = mount12_status_name,
    .call = mount2_call,
    .reply = mount2_reply,
};
