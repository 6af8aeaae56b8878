/* nfsacl2.c: NFS_ACL version 2 (program 100227, POSIX draft ACLs over
 * NFSv2; Solaris nfs_acl.x, Linux fs/nfsd/nfs2acl.c): counts, latency and
 * status.
 *
 * Every result but NULL's starts with an NFSv2 nfsstat (RFC 1094 §2.3.1);
 * what follows it is not decoded. */
#include <stddef.h>

#include "dissector.h"
#include "stats.h"
#include "xdr_cur.h"
#include "xid_table.h"

#define NFS2_FHSIZE 32 /* RFC 1094 §2.3.3 fhandle: fixed size */

enum { /* Solaris nfs_acl.x, version 2 */
    ACLPROC2_NULL = 0, ACLPROC2_GETACL, ACLPROC2_SETACL, ACLPROC2_GETATTR, ACLPROC2_ACCESS,
    ACLPROC2_GETXATTRDIR, NFSACL2_NPROCS
};

static const char *const nfsacl2_proc_names[NFSACL2_NPROCS] = {
    "null", "getacl", "setacl", "getattr", "access", "getxattrdir",
};

static const struct {
    uint32_t v;
    const char *name;
} nfsacl2_status_names[] = { /* RFC 1094 §2.3.1 stat */
    { 0, "NFS_OK" }, { 1, "NFSERR_PERM" }, { 2, "NFSERR_NOENT" }, { 5, "NFSERR_IO" },
    { 6, "NFSERR_NXIO" }, { 13, "NFSERR_ACCES" }, { 17, "NFSERR_EXIST" },
    { 19, "NFSERR_NODEV" }, { 20, "NFSERR_NOTDIR" }, { 21, "NFSERR_ISDIR" },
    { 27, "NFSERR_FBIG" }, { 28, "NFSERR_NOSPC" }, { 30, "NFSERR_ROFS" },
    { 63, "NFSERR_NAMETOOLONG" }, { 66, "NFSERR_NOTEMPTY" }, { 69, "NFSERR_DQUOT" },
    { 70, "NFSERR_STALE" }, { 99, "NFSERR_WFLUSH" },
};

static const char *
nfsacl2_status_name(uint32_t status)
{
    size_t i;

    for (i = 0; i < sizeof nfsacl2_status_names / sizeof nfsacl2_status_names[0]; i++)
        if (nfsacl2_status_names[i].v == status)
            return nfsacl2_status_names[i].name;
    return NULL;
}

static enum decode_rc
nfsacl2_call(struct xdr_cur *x, struct pending_call *pc)
{
    if (pc->proc != ACLPROC2_NULL)
        xdr_cur_skip(x, NFS2_FHSIZE); /* every argument starts with an fhandle */
    return xdr_cur_status(x);
}

static enum decode_rc
nfsacl2_reply(struct xdr_cur *x, const struct pending_call *pc, struct op_event *ev,
              const struct op_sink *sub)
{
    uint32_t status;

    (void)sub;
    if (pc->proc == ACLPROC2_NULL || pc->proc >= NFSACL2_NPROCS)
        return DECODE_OK;
    status = xdr_cur_u32(x);
    if (xdr_cur_ok(x)) {
        ev->has_status = true;
        ev->status = status;
    }
    return xdr_cur_status(x);
}

const struct rpc_program nfsacl2_program = {
    .name = "nfsacl2",
    .title = "NFS_ACL v2",
    .prog = 100227,
    .vers = 2,
    .nprocs = NFSACL2_NPROCS,
    .proc_names = nfsacl2_proc_names,
    .status_name = nfsacl2_status_name,
    .call = nfsacl2_call,
    .reply = nfsacl2_reply,
};
