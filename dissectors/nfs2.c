/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs2.c: NFS version 2 (RFC 1094): counts, latency, nfsstat, READ/WRITE bytes.
 *
 * Every result but those of NULL, ROOT and WRITECACHE (void, both obsolete)
 * starts with nfsstat. WRITE has no stable_how in version 2 (every WRITE is
 * synchronous, RFC 1094 §2.2.9), so pc->stable stays STABLE_NONE. The handle
 * each call acts on (and, for diropargs, the name) is kept in the pending
 * call for the per-file breakdowns. */
#include <stddef.h>
#include <string.h>

#include "dissector.h"
#include "nfsstat2.h"
#include "stats.h"
#include "xdr_cur.h"
#include "xid_table.h"

#define NFS2_FHSIZE 32      /* RFC 1094 §2.3.3 fhandle: fixed size */
#define NFS2_MAXDATA 8192   /* §2.3 NFS_MAXDATA: READ/WRITE data<> bound */
#define NFS2_FATTR_SIZE 68  /* §2.3.5 fattr: 11 words + 3 timevals (2 words each) */
#define NFS2_MAXNAMLEN 255  /* §2.3.7 filename: string<MAXNAMLEN> */

_Static_assert(NFS2_FHSIZE <= PC_FH_MAX, "a v2 handle fits the pending call");
_Static_assert(NFS2_MAXNAMLEN <= PC_NAME_MAX, "a v2 name fits the pending call");

enum { /* RFC 1094 §2.2 procedure numbers */
    NFSPROC_NULL = 0, NFSPROC_GETATTR, NFSPROC_SETATTR, NFSPROC_ROOT, NFSPROC_LOOKUP,
    NFSPROC_READLINK, NFSPROC_READ, NFSPROC_WRITECACHE, NFSPROC_WRITE, NFSPROC_CREATE,
    NFSPROC_REMOVE, NFSPROC_RENAME, NFSPROC_LINK, NFSPROC_SYMLINK, NFSPROC_MKDIR,
    NFSPROC_RMDIR, NFSPROC_READDIR, NFSPROC_STATFS, NFS2_NPROCS
};

static const struct rpc_op nfs2_procs[NFS2_NPROCS] = {
    { "null", OPK_NULL, 0 },
    { "getattr", OPK_GETATTR, OPF_FH },
    { "setattr", OPK_SETATTR, OPF_FH | OPF_MOD_META },
    { "root", OPK_OTHER, 0 },
    { "lookup", OPK_LOOKUP, OPF_FH },
    { "readlink", OPK_READLINK, OPF_FH },
    { "read", OPK_READ, OPF_FH },
    { "writecache", OPK_OTHER, 0 },
    { "write", OPK_WRITE, OPF_FH | OPF_MOD_DATA | OPF_MOD_META },
    { "create", OPK_CREATE, OPF_FH | OPF_MOD_META },
    { "remove", OPK_REMOVE, OPF_FH | OPF_MOD_META },
    { "rename", OPK_RENAME, OPF_FH | OPF_MOD_META },
    { "link", OPK_LINK, OPF_FH | OPF_MOD_META },
    { "symlink", OPK_SYMLINK, OPF_FH | OPF_MOD_META },
    { "mkdir", OPK_MKDIR, OPF_FH | OPF_MOD_META },
    { "rmdir", OPK_RMDIR, OPF_FH | OPF_MOD_META },
    { "readdir", OPK_READDIR, OPF_FH },
    { "statfs", OPK_FSSTAT, OPF_FH },
};

static bool
void_results(uint32_t proc)
{
    return proc == NFSPROC_NULL || proc == NFSPROC_ROOT || proc == NFSPROC_WRITECACHE;
}

static enum decode_rc
nfs2_call(struct xdr_cur *x, struct pending_call *pc, const struct op_sink *sub)
{
    uint32_t count;
    (void)sub; /* one operation per call: the message is the operation */

    if (void_results(pc->proc)) /* NULL, ROOT, WRITECACHE: void arguments */
        return DECODE_OK;
    xdr_cur_fixed(x, pc->fh, NFS2_FHSIZE); /* every other argument starts with a handle */
    if (!xdr_cur_ok(x))
        return xdr_cur_status(x);
    pc->fh_len = NFS2_FHSIZE;
    switch (pc->proc) {
    case NFSPROC_LOOKUP:  /* §2.2.5 diropargs: dir, name */
    case NFSPROC_CREATE:  /* §2.2.10 createargs: where (diropargs), attributes */
    case NFSPROC_REMOVE:  /* §2.2.11 diropargs */
    case NFSPROC_SYMLINK: /* §2.2.14 symlinkargs: from (diropargs), ... */
    case NFSPROC_MKDIR:   /* §2.2.15 createargs */
    case NFSPROC_RMDIR: { /* §2.2.16 diropargs */
        struct bytes name;
        if (xdr_cur_opaque(x, NFS2_MAXNAMLEN, &name)) {
            pc->name_len = (uint8_t)name.len;
            memcpy(pc->name, name.p, name.len);
        }
        break;
    }
    case NFSPROC_READ: /* §2.2.7 readargs: file, offset, count, totalcount */
        xdr_cur_u32(x);
        count = xdr_cur_u32(x);
        if (xdr_cur_ok(x) && count > NFS2_MAXDATA)
            xdr_cur_invalid(x);
        break;
    case NFSPROC_WRITE: /* §2.2.9 writeargs: file, beginoffset, offset, totalcount, data */
        xdr_cur_u32(x);
        xdr_cur_u32(x);
        xdr_cur_u32(x);
        count = xdr_cur_u32(x); /* data length: the bytes written */
        if (!xdr_cur_ok(x))
            break;
        if (count <= NFS2_MAXDATA)
            pc->write_count = count;
        else
            xdr_cur_invalid(x);
        break;
    default:
        break;
    }
    return xdr_cur_status(x);
}

static enum decode_rc
nfs2_reply(struct xdr_cur *x, const struct pending_call *pc, struct op_event *ev,
           const struct op_sink *sub)
{
    uint32_t status, count;

    (void)sub;
    if (void_results(pc->proc) || pc->proc >= NFS2_NPROCS)
        return DECODE_OK;
    status = xdr_cur_u32(x);
    if (!xdr_cur_ok(x))
        return xdr_cur_status(x);
    ev->has_status = true;
    ev->status = status;
    if (status == 0 && (pc->proc == NFSPROC_LOOKUP || pc->proc == NFSPROC_CREATE ||
                        pc->proc == NFSPROC_MKDIR)) {
        /* §2.2.10 diropres OK: file (fhandle), attributes: names the child */
        xdr_cur_fixed_view(x, NFS2_FHSIZE, &ev->obj_fh);
        return xdr_cur_status(x);
    }
    if (status != 0 || pc->proc != NFSPROC_READ)
        return DECODE_OK;
    /* §2.2.7 readres OK: attributes (fattr), data<NFS_MAXDATA> */
    xdr_cur_skip(x, NFS2_FATTR_SIZE);
    count = xdr_cur_u32(x);
    if (!xdr_cur_ok(x))
        return xdr_cur_status(x);
    if (count > NFS2_MAXDATA) {
        xdr_cur_invalid(x);
        return xdr_cur_status(x);
    }
    ev->read_bytes = count;
    return DECODE_OK;
}

const struct rpc_program nfs2_program = {
    .name = "nfs2",
    .title = "NFS v2",
    .prog = 100003,
    .vers = 2,
    .nprocs = NFS2_NPROCS,
    .procs = nfs2_procs,
    .status_name = nfsstat2_name,
    .call = nfs2_call,
    .reply = nfs2_reply,
};
