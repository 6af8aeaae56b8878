/* SPDX-License-Identifier: BSD-3-Clause */
/* nfsacl2.c: NFS_ACL version 2 (program 100227, POSIX draft ACLs over
 * NFSv2; Solaris nfs_acl.x, Linux fs/nfsd/nfs2acl.c): counts, latency and
 * status.
 *
 * Every result but NULL's starts with an NFSv2 nfsstat (RFC 1094 §2.3.1);
 * what follows it is not decoded. */
#include <stddef.h>

#include "nfsacl_common.h"
#include "nfsstat2.h"

#define NFS2_FHSIZE 32 /* RFC 1094 §2.3.3 fhandle: fixed size */

enum { /* Solaris nfs_acl.x, version 2 */
    ACLPROC2_NULL = 0, ACLPROC2_GETACL, ACLPROC2_SETACL, ACLPROC2_GETATTR, ACLPROC2_ACCESS,
    ACLPROC2_GETXATTRDIR, NFSACL2_NPROCS
};

static const struct rpc_op nfsacl2_procs[NFSACL2_NPROCS] = {
    { "null", OPK_NULL, 0 },
    { "getacl", OPK_GETACL, OPF_FH },
    { "setacl", OPK_SETACL, OPF_FH | OPF_MOD_META },
    { "getattr", OPK_GETATTR, OPF_FH },
    { "access", OPK_ACCESS, OPF_FH },
    { "getxattrdir", OPK_LOOKUP, OPF_FH },
};

static enum decode_rc
nfsacl2_call(struct xdr_cur *x, struct pending_call *pc, const struct op_sink *sub)
{
    (void)sub; /* one operation per call: the message is the operation */
    if (pc->proc != ACLPROC2_NULL)
        xdr_cur_skip(x, NFS2_FHSIZE); /* every argument starts with an fhandle */
    return xdr_cur_status(x);
}

const struct rpc_program nfsacl2_program = {
    .name = "nfsacl2",
    .title = "NFS_ACL v2",
    .prog = 100227,
    .vers = 2,
    .nprocs = NFSACL2_NPROCS,
    .procs = nfsacl2_procs,
    .status_name = nfsstat2_name,
    .call = nfsacl2_call,
    .reply = nfsacl_reply,
};
