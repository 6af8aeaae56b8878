/* SPDX-License-Identifier: BSD-3-Clause */
/* nfsacl3.c: NFS_ACL version 3 (program 100227, the Solaris/Linux side
 * protocol for POSIX draft ACLs over NFSv3; Linux fs/nfsd/nfs3acl.c):
 * counts, latency and status.
 *
 * Every result but NULL's starts with an nfsstat3 (RFC 1813 §2.6); the ACL
 * entries after it are not decoded. */
#include <stddef.h>

#include "nfsacl_common.h"
#include "nfsstat3.h"

#define NFS3_FHSIZE 64 /* RFC 1813 §2.4 */

enum { /* Solaris nfs_acl.x, version 3 */
    ACLPROC3_NULL = 0, ACLPROC3_GETACL, ACLPROC3_SETACL, ACLPROC3_GETXATTRDIR, NFSACL3_NPROCS
};

static const struct rpc_op nfsacl3_procs[NFSACL3_NPROCS] = {
    { "null", OPK_NULL, 0 },
    { "getacl", OPK_GETACL, OPF_FH },
    { "setacl", OPK_SETACL, OPF_FH | OPF_MOD_META },
    { "getxattrdir", OPK_LOOKUP, OPF_FH },
};

static enum decode_rc
nfsacl3_call(struct xdr_cur *x, struct pending_call *pc, const struct op_sink *sub)
{
    struct bytes fh;
    (void)sub; /* one operation per call: the message is the operation */

    if (pc->proc != ACLPROC3_NULL)
        xdr_cur_opaque(x, NFS3_FHSIZE, &fh); /* every argument starts with nfs_fh3 */
    return xdr_cur_status(x);
}

const struct rpc_program nfsacl3_program = {
    .name = "nfsacl3",
    .title = "NFS_ACL v3",
    .prog = 100227,
    .vers = 3,
    .nprocs = NFSACL3_NPROCS,
    .procs = nfsacl3_procs,
    .status_name = nfsstat3_name,
    .call = nfsacl3_call,
    .reply = nfsacl_reply,
};
