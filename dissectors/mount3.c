/* SPDX-License-Identifier: BSD-3-Clause */
/* mount3.c: MOUNT version 3 (RFC 1813 Appendix I): counts, latency, MNT status.
 *
 * Only MNT has a status (mountstat3, the first word of mountres3); the other
 * procedures return void, a list or nothing that can fail. MNT also names
 * the export: its dirpath (kept in the pending call) and the root handle the
 * reply returns (ev->obj_fh, ev->obj_is_export) teach the names cache. */
#include <stddef.h>
#include <string.h>

#include "dissector.h"
#include "stats.h"
#include "valname.h"
#include "xdr_cur.h"
#include "xid_table.h"

#define MNTPATHLEN 1024 /* RFC 1813 Appendix I: dirpath */
#define FHSIZE3 64      /* fhandle3 */

enum { /* RFC 1813 Appendix I procedure numbers */
    MOUNTPROC3_NULL = 0, MOUNTPROC3_MNT, MOUNTPROC3_DUMP, MOUNTPROC3_UMNT, MOUNTPROC3_UMNTALL,
    MOUNTPROC3_EXPORT, MOUNT3_NPROCS
};

static const struct rpc_op mount3_procs[MOUNT3_NPROCS] = {
    { "null", OPK_NULL, 0 },
    { "mnt", OPK_MOUNT, 0 },
    { "dump", OPK_MOUNT_LIST, 0 },
    { "umnt", OPK_UNMOUNT, 0 },
    { "umntall", OPK_UNMOUNT, 0 },
    { "export", OPK_EXPORTS, 0 },
};

static const struct valname mount3_status_names[] = { /* RFC 1813 Appendix I mountstat3 */
    { 0, "MNT3_OK" }, { 1, "MNT3ERR_PERM" }, { 2, "MNT3ERR_NOENT" }, { 5, "MNT3ERR_IO" },
    { 13, "MNT3ERR_ACCES" }, { 20, "MNT3ERR_NOTDIR" }, { 22, "MNT3ERR_INVAL" },
    { 63, "MNT3ERR_NAMETOOLONG" }, { 10004, "MNT3ERR_NOTSUPP" }, { 10006, "MNT3ERR_SERVERFAULT" },
    { 0, NULL },
};

static const char *
mount3_status_name(uint32_t status)
{
    return valname(mount3_status_names, status);
}

static enum decode_rc
mount3_call(struct xdr_cur *x, struct pending_call *pc, const struct op_sink *sub)
{
    struct bytes path;
    (void)sub; /* one operation per call: the message is the operation */

    switch (pc->proc) {
    case MOUNTPROC3_MNT: /* dirpath: the export, kept when it fits */
        if (xdr_cur_opaque(x, MNTPATHLEN, &path) && path.len <= PC_NAME_MAX) {
            pc->name_len = (uint8_t)path.len;
            memcpy(pc->name, path.p, path.len);
        }
        break;
    case MOUNTPROC3_UMNT: /* dirpath */
        xdr_cur_opaque(x, MNTPATHLEN, &path);
        break;
    default: /* NULL, DUMP, UMNTALL, EXPORT: void */
        break;
    }
    return xdr_cur_status(x);
}

static enum decode_rc
mount3_reply(struct xdr_cur *x, const struct pending_call *pc, struct op_event *ev,
             const struct op_sink *sub)
{
    uint32_t status;

    (void)sub;
    if (pc->proc != MOUNTPROC3_MNT)
        return DECODE_OK; /* no status; lists are not decoded */
    status = xdr_cur_u32(x); /* mountres3: fhs_status */
    if (!xdr_cur_ok(x))
        return xdr_cur_status(x);
    ev->has_status = true;
    ev->status = status;
    if (status == 0) { /* mountres3_ok: fhandle3 fhandle, int auth_flavors<> */
        xdr_cur_opaque(x, FHSIZE3, &ev->obj_fh); /* the export's root */
        ev->obj_is_export = xdr_cur_ok(x);
    }
    return xdr_cur_status(x);
}

const struct rpc_program mount3_program = {
    .name = "mount3",
    .title = "MOUNT v3",
    .prog = 100005,
    .vers = 3,
    .nprocs = MOUNT3_NPROCS,
    .procs = mount3_procs,
    .status_name = mount3_status_name,
    .call = mount3_call,
    .reply = mount3_reply,
};
