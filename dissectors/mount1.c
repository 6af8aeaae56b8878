/* mount1.c: MOUNT version 1 (RFC 1094 Appendix A): counts, latency, MNT status.
 *
 * MNT returns fhstatus, whose status "is a UNIX error number" (Appendix A.1):
 * 0 is "OK", the values shared with nfsstat/mountstat3 are named as errno
 * (EPERM, EACCES, ... in the BSD numbering NFS uses, so 63 is ENAMETOOLONG),
 * anything else is reported as unknown(N). */
#include <stddef.h>

#include <string.h>

#include "dissector.h"
#include "stats.h"
#include "xdr_cur.h"
#include "xid_table.h"

#define MNTPATHLEN 1024 /* RFC 1094 Appendix A.2: dirpath */
#define FHSIZE 32       /* A.2: fhandle, fixed size */

enum { /* RFC 1094 Appendix A.5; EXPORTALL from Sun's mount.x (same as EXPORT) */
    MOUNTPROC_NULL = 0, MOUNTPROC_MNT, MOUNTPROC_DUMP, MOUNTPROC_UMNT, MOUNTPROC_UMNTALL,
    MOUNTPROC_EXPORT, MOUNTPROC_EXPORTALL, MOUNT1_NPROCS
};

static const char *const mount1_proc_names[MOUNT1_NPROCS] = {
    "null", "mnt", "dump", "umnt", "umntall", "export", "exportall",
};

static const struct {
    uint32_t v;
    const char *name;
} mount1_status_names[] = { /* fhstatus: 0 or a UNIX errno */
    { 0, "OK" }, { 1, "EPERM" }, { 2, "ENOENT" }, { 5, "EIO" }, { 6, "ENXIO" },
    { 13, "EACCES" }, { 19, "ENODEV" }, { 20, "ENOTDIR" }, { 22, "EINVAL" },
    { 63, "ENAMETOOLONG" },
};

static const char *
mount1_status_name(uint32_t status)
{
    size_t i;

    for (i = 0; i < sizeof mount1_status_names / sizeof mount1_status_names[0]; i++)
        if (mount1_status_names[i].v == status)
            return mount1_status_names[i].name;
    return NULL;
}

static enum decode_rc
mount1_call(struct xdr_cur *x, struct pending_call *pc)
{
    struct bytes path;

    if (pc->proc == MOUNTPROC_MNT || pc->proc == MOUNTPROC_UMNT)
        xdr_cur_opaque(x, MNTPATHLEN, &path); /* dirpath */
    if (pc->proc == MOUNTPROC_MNT && xdr_cur_ok(x) && path.len <= PC_NAME_MAX) {
        pc->name_len = (uint8_t)path.len; /* the export, for the names cache */
        memcpy(pc->name, path.p, path.len);
    }
    return xdr_cur_status(x);
}

static enum decode_rc
mount1_reply(struct xdr_cur *x, const struct pending_call *pc, struct op_event *ev,
             const struct op_sink *sub)
{
    uint32_t status;

    (void)sub;
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

const struct rpc_program mount1_program = {
    .name = "mount1",
    .title = "MOUNT v1",
    .prog = 100005,
    .vers = 1,
    .nprocs = MOUNT1_NPROCS,
    .proc_names = mount1_proc_names,
    .status_name = mount1_status_name,
    .call = mount1_call,
    .reply = mount1_reply,
};
