/* SPDX-License-Identifier: BSD-3-Clause */
/* nfsacl_common.h: what NFS_ACL versions 2 and 3 share (program 100227,
 * Solaris nfs_acl.x; Linux fs/nfsd/nfs2acl.c, nfs3acl.c): every result but
 * NULL's starts with the NFS version's status word (RFC 1094 §2.3.1 stat,
 * RFC 1813 §2.6 nfsstat3); the ACL entries after it are not decoded.
 * Included by nfsacl2.c and nfsacl3.c only; defines nothing with external
 * linkage. */
#ifndef NFSSCOPE_NFSACL_COMMON_H
#define NFSSCOPE_NFSACL_COMMON_H

#include "dissector.h"
#include "stats.h"
#include "xdr_cur.h"
#include "xid_table.h"

#define ACLPROC_NULL 0 /* both versions */

static inline enum decode_rc
nfsacl_reply(struct xdr_cur *x, const struct pending_call *pc, struct op_event *ev,
             const struct op_sink *sub)
{
    uint32_t status;

    (void)sub;
    if (pc->proc == ACLPROC_NULL)
        return DECODE_OK;
    status = xdr_cur_u32(x);
    if (xdr_cur_ok(x)) {
        ev->has_status = true;
        ev->status = status;
    }
    return xdr_cur_status(x);
}

#endif
