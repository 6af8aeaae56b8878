/* SPDX-License-Identifier: BSD-3-Clause */
/* mount12_common.h: what MOUNT versions 1 and 2 share (RFC 1094 Appendix A;
 * version 2 is Sun's mount.x: version 1 plus PATHCONF). Included by
 * mount1.c and mount2.c only; defines nothing with external linkage.
 *
 * MNT returns fhstatus, whose status "is a UNIX error number" (Appendix A.1):
 * 0 is "OK", the values shared with nfsstat/mountstat3 are named as errno
 * (EPERM, EACCES, ... in the BSD numbering NFS uses, so 63 is ENAMETOOLONG),
 * anything else is reported as unknown(N). */
#ifndef NFSSCOPE_MOUNT12_COMMON_H
#define NFSSCOPE_MOUNT12_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "dissector.h"
#include "stats.h"
#include "valname.h"
#include "xdr_cur.h"
#include "xid_table.h"

#define MNTPATHLEN 1024 /* RFC 1094 Appendix A.2: dirpath */
#define FHSIZE 32       /* A.2: fhandle, fixed size */

enum { /* RFC 1094 Appendix A.5, plus Sun's mount.x EXPORTALL and (v2) PATHCONF */
    MOUNTPROC_NULL = 0, MOUNTPROC_MNT, MOUNTPROC_DUMP, MOUNTPROC_UMNT, MOUNTPROC_UMNTALL,
    MOUNTPROC_EXPORT, MOUNTPROC_EXPORTALL, MOUNTPROC_PATHCONF
};

static const struct valname mount12_status_names[] = { /* fhstatus: 0 or a UNIX errno */
    { 0, "OK" }, { 1, "EPERM" }, { 2, "ENOENT" }, { 5, "EIO" }, { 6, "ENXIO" },
    { 13, "EACCES" }, { 19, "ENODEV" }, { 20, "ENOTDIR" }, { 22, "EINVAL" },
    { 63, "ENAMETOOLONG" }, { 0, NULL },
};

static inline const char *
mount12_status_name(uint32_t status)
{
    return valname(mount12_status_names, status);
}

/* Arguments: MNT, UMNT (and v2's PATHCONF) take a dirpath; MNT's is kept as
 * the export's name for the names cache. The others are void. */
static inline enum decode_rc
mount12_call(struct xdr_cur *x, struct pending_call *pc, bool has_pathconf)
{
    struct bytes path;

    if (pc->proc == MOUNTPROC_MNT || pc->proc == MOUNTPROC_UMNT ||
        (has_pathconf && pc->proc == MOUNTPROC_PATHCONF))
        xdr_cur_opaque(x, MNTPATHLEN, &path); /* dirpath */
    if (pc->proc == MOUNTPROC_MNT && xdr_cur_ok(x) && path.len <= PC_NAME_MAX) {
        pc->name_len = (uint8_t)path.len;
        memcpy(pc->name, path.p, path.len);
    }
    return xdr_cur_status(x);
}

/* Results: only MNT has a status (fhstatus); its handle is the export's root. */
static inline enum decode_rc
mount12_reply(struct xdr_cur *x, const struct pending_call *pc, struct op_event *ev)
{
    uint32_t status;

    if (pc->proc != MOUNTPROC_MNT)
        return DECODE_OK; /* no status; lists are not decoded */
    status = xdr_cur_u32(x); /* fhstatus: status */
    if (!xdr_cur_ok(x))
        return xdr_cur_status(x);
    ev->has_status = true;
    ev->status = status;
    if (status == 0) { /* directory: fhandle, the export's root */
        xdr_cur_fixed_view(x, FHSIZE, &ev->obj_fh);
        ev->obj_is_export = true;
    }
    return xdr_cur_status(x);
}

#endif
