/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs3.c: NFS version 3 (RFC 1813): the arguments and results the stats need. */
#include <stddef.h>
#include <string.h>

#include "dissector.h"
#include "hashtab.h"
#include "nfsstat3.h"
#include "stats.h"
#include "xdr_cur.h"
#include "xid_table.h"

#define NFS3_FHSIZE 64 /* RFC 1813 §2.4 */

enum { /* RFC 1813 §3.3 procedure numbers */
    NFSPROC3_NULL = 0, NFSPROC3_GETATTR, NFSPROC3_SETATTR, NFSPROC3_LOOKUP, NFSPROC3_ACCESS,
    NFSPROC3_READLINK, NFSPROC3_READ, NFSPROC3_WRITE, NFSPROC3_CREATE, NFSPROC3_MKDIR,
    NFSPROC3_SYMLINK, NFSPROC3_MKNOD, NFSPROC3_REMOVE, NFSPROC3_RMDIR, NFSPROC3_RENAME,
    NFSPROC3_LINK, NFSPROC3_READDIR, NFSPROC3_READDIRPLUS, NFSPROC3_FSSTAT, NFSPROC3_FSINFO,
    NFSPROC3_PATHCONF, NFSPROC3_COMMIT, NFS3_NPROCS
};

static const struct rpc_op nfs3_procs[NFS3_NPROCS] = {
    { "null", OPK_NULL, 0 },
    { "getattr", OPK_GETATTR, OPF_FH },
    { "setattr", OPK_SETATTR, OPF_FH | OPF_MOD_META },
    { "lookup", OPK_LOOKUP, OPF_FH },
    { "access", OPK_ACCESS, OPF_FH },
    { "readlink", OPK_READLINK, OPF_FH },
    { "read", OPK_READ, OPF_FH | OPF_RANGE },
    { "write", OPK_WRITE, OPF_FH | OPF_MOD_DATA | OPF_MOD_META | OPF_RANGE },
    { "create", OPK_CREATE, OPF_FH | OPF_MOD_META },
    { "mkdir", OPK_MKDIR, OPF_FH | OPF_MOD_META },
    { "symlink", OPK_SYMLINK, OPF_FH | OPF_MOD_META },
    { "mknod", OPK_MKNOD, OPF_FH | OPF_MOD_META },
    { "remove", OPK_REMOVE, OPF_FH | OPF_MOD_META },
    { "rmdir", OPK_RMDIR, OPF_FH | OPF_MOD_META },
    { "rename", OPK_RENAME, OPF_FH | OPF_MOD_META },
    { "link", OPK_LINK, OPF_FH | OPF_MOD_META },
    { "readdir", OPK_READDIR, OPF_FH },
    { "readdirplus", OPK_READDIRPLUS, OPF_FH },
    { "fsstat", OPK_FSSTAT, OPF_FH },
    { "fsinfo", OPK_FSINFO, OPF_FH },
    { "pathconf", OPK_PATHCONF, OPF_FH },
    { "commit", OPK_COMMIT, OPF_FH | OPF_MOD_META | OPF_RANGE },
};


/* What a call leaves for its reply and for later analysis (in pc->priv). */
struct nfs3_priv {
    uint64_t offset; /* READ/WRITE/COMMIT offset, READDIR(PLUS) cookie */
    uint32_t count;
    uint32_t access; /* ACCESS3args access mask */
};

_Static_assert(sizeof(struct nfs3_priv) <= PC_PRIV_SIZE, "nfs3_priv fits the pending call");

static struct nfs3_priv *
priv(struct pending_call *pc)
{
    return (struct nfs3_priv *)(void *)pc->priv;
}

static const struct nfs3_priv *
cpriv(const struct pending_call *pc)
{
    return (const struct nfs3_priv *)(const void *)pc->priv;
}

/* nfs_fh3 (RFC 1813 §2.5): opaque<NFS3_FHSIZE>, kept in the pending call. */
static void
nfs_fh3(struct xdr_cur *x, struct pending_call *pc)
{
    struct bytes fh;

    if (xdr_cur_opaque(x, NFS3_FHSIZE, &fh)) {
        pc->fh_len = (uint8_t)fh.len;
        memcpy(pc->fh, fh.p, fh.len);
    }
}

/* filename3 (§2.5): string<>, unbounded; its first PC_NAME_MAX bytes are
 * kept, for learning paths (names.h keeps no more of any name). */
static void
filename3(struct xdr_cur *x, struct pending_call *pc)
{
    struct bytes name;

    if (xdr_cur_opaque(x, UINT32_MAX, &name)) {
        size_t len = name.len < PC_NAME_MAX ? name.len : PC_NAME_MAX;

        pc->name_len = (uint8_t)len;
        memcpy(pc->name, name.p, len);
    }
}

/* A second diropargs3 (§3.3.3: dir, name): RENAME's to, LINK's link. Kept in
 * pc->name after the first name when both fit (see xid_table.h). */
static void
diropargs3_second(struct xdr_cur *x, struct pending_call *pc)
{
    struct bytes fh, name;

    if (!xdr_cur_opaque(x, NFS3_FHSIZE, &fh) || !xdr_cur_opaque(x, UINT32_MAX, &name))
        return;
    if (!fh.len || !name.len || name.len > PC_NAME_MAX ||
        fh.len + name.len > (size_t)(PC_NAME_MAX - pc->name_len))
        return;
    memcpy(pc->name + pc->name_len, fh.p, fh.len);
    memcpy(pc->name + pc->name_len + fh.len, name.p, name.len);
    pc->fh2_len = (uint8_t)fh.len;
    pc->name2_len = (uint8_t)name.len;
}

/* post_op_fh3 (§2.6): bool handle_follows, nfs_fh3. */
static void
post_op_fh3(struct xdr_cur *x, struct op_event *ev)
{
    if (xdr_cur_bool(x))
        xdr_cur_opaque(x, NFS3_FHSIZE, &ev->obj_fh);
}

static enum decode_rc
nfs3_call(struct xdr_cur *x, struct pending_call *pc, const struct op_sink *sub)
{
    struct nfs3_priv *pv = priv(pc);
    (void)sub; /* one operation per call: the message is the operation */

    if (pc->proc == NFSPROC3_NULL)
        return DECODE_OK;
    nfs_fh3(x, pc); /* every other procedure's arguments start with a handle */
    switch (pc->proc) {
    case NFSPROC3_LOOKUP: /* §3.3.3 diropargs3: dir, name */
    case NFSPROC3_CREATE: /* §3.3.8 where: diropargs3, ... */
    case NFSPROC3_MKDIR:  /* §3.3.9 */
    case NFSPROC3_SYMLINK: /* §3.3.10 */
    case NFSPROC3_MKNOD:  /* §3.3.11 */
    case NFSPROC3_REMOVE: /* §3.3.12 */
    case NFSPROC3_RMDIR:  /* §3.3.13 */
        filename3(x, pc);
        break;
    case NFSPROC3_RENAME: /* §3.3.14 RENAME3args: from (diropargs3), to (diropargs3) */
        filename3(x, pc);
        diropargs3_second(x, pc);
        break;
    case NFSPROC3_LINK: /* §3.3.15 LINK3args: file, link (diropargs3) */
        diropargs3_second(x, pc);
        break;
    case NFSPROC3_READ: /* §3.3.6 READ3args: file, offset, count */
    case NFSPROC3_COMMIT: /* §3.3.21 COMMIT3args: file, offset, count */
        pv->offset = xdr_cur_u64(x);
        pv->count = xdr_cur_u32(x);
        break;
    case NFSPROC3_ACCESS: /* §3.3.4 ACCESS3args: object, access */
        pv->access = xdr_cur_u32(x);
        break;
    case NFSPROC3_READDIR:     /* §3.3.16 READDIR3args: dir, cookie, cookieverf, count */
    case NFSPROC3_READDIRPLUS: /* §3.3.17 READDIRPLUS3args: dir, cookie, ... */
        pv->offset = xdr_cur_u64(x);
        break;
    case NFSPROC3_WRITE: { /* §3.3.7 WRITE3args: file, offset, count, stable, data */
        uint32_t stable;
        struct xdr_cur y;
        pv->offset = xdr_cur_u64(x);
        pv->count = xdr_cur_u32(x);
        stable = xdr_cur_u32(x);
        if (!xdr_cur_ok(x))
            break;
        /* The data travels in this message: a count larger than the whole
         * message is impossible (and would be summed as bytes written).
         * call_len 0: unknown (unit tests). */
        if (pc->call_len && pv->count > pc->call_len) {
            xdr_cur_invalid(x);
            break;
        }
        pc->write_count = pv->count;
        if (stable <= STABLE_FILE_SYNC)
            pc->stable = (uint8_t)stable;
        else
            xdr_cur_invalid(x); /* counted as a decode error, the call still is */
        y = *x; /* data<>: as long as count, when captured */
        if (xdr_cur_u32(&y) != pv->count && xdr_cur_ok(&y))
            xdr_cur_invalid(x);
        break;
    }
    default:
        break;
    }
    return xdr_cur_status(x);
}

/* post_op_attr (RFC 1813 §2.6): bool + fattr3 (84 bytes). */
static void
post_op_attr(struct xdr_cur *x)
{
    if (xdr_cur_bool(x))
        xdr_cur_skip(x, 84);
}

/* wcc_data (§2.6): pre_op_attr (bool + wcc_attr, 24 bytes), post_op_attr. */
static void
wcc_data(struct xdr_cur *x)
{
    if (xdr_cur_bool(x))
        xdr_cur_skip(x, 24);
    post_op_attr(x);
}

/* fattr3 (RFC 1813 §2.6): type, mode, nlink, uid, gid (4 bytes each), size,
 * used, rdev, fsid, fileid, atime, mtime, ctime (8 each) = 84 bytes. The
 * digest covers everything but atime (bytes 60..67): reading a file changes
 * its atime, not what a client caches about it. Only two attribute sets of
 * one handle are ever compared (the findings; it never indexes a table), so
 * it is the attribute words read in place, two per 64x128-bit multiply as in
 * hashtab.c's hash_bytes, with fixed constants; never 0 (the findings' "no
 * digest"). It is made on the decoding thread for every attribute set the
 * findings see, so it reads ten words and copies nothing. */
static uint64_t
word_at(const uint8_t *p)
{
    uint64_t w;

    memcpy(&w, p, 8);
    return w;
}

static uint64_t
fattr3_digest(const uint8_t *p)
{
    const uint64_t k1 = 0xa0761d6478bd642fULL, k2 = 0x8ebc6af09c88c6e3ULL;
    uint64_t h = 0xcbf29ce484222325ULL;

    h = hash_mum(word_at(p) ^ h ^ k1, word_at(p + 8) ^ k2);
    h = hash_mum(word_at(p + 16) ^ h ^ k1, word_at(p + 24) ^ k2);
    h = hash_mum(word_at(p + 32) ^ h ^ k1, word_at(p + 40) ^ k2);
    h = hash_mum(word_at(p + 48) ^ h ^ k1, word_at(p + 52) ^ k2); /* 52: fileid's end */
    h = hash_mum(word_at(p + 68) ^ h ^ k1, word_at(p + 76) ^ k2); /* mtime, ctime */
    return h ? h : 1;
}

static void
fattr3(struct xdr_cur *x, struct op_attr *a)
{
    uint32_t at = xdr_cur_pos(x);
    const uint8_t *p;

    xdr_cur_skip(x, 84);
    if (!a || !xdr_cur_ok(x)) /* a NULL: skipped (attr_out) */
        return;
    p = x->base + at;
    a->valid = true;
    a->type = p[0] | p[1] | p[2] ? 0 : p[3];
    a->digest = fattr3_digest(p);
    a->fileid = (uint64_t)p[52] << 56 | (uint64_t)p[53] << 48 | (uint64_t)p[54] << 40 |
                (uint64_t)p[55] << 32 | (uint64_t)p[56] << 24 | (uint64_t)p[57] << 16 |
                (uint64_t)p[58] << 8 | p[59];
}

/* Where a reply's attribute set goes: nowhere, skipped, when nothing
 * reads it (op_event.no_attrs). */
static struct op_attr *
attr_out(const struct op_event *ev, struct op_attr *a)
{
    return ev->no_attrs ? NULL : a;
}

/* post_op_attr into a (when present; a NULL: skipped). */
static void
post_op_attr_d(struct xdr_cur *x, struct op_attr *a)
{
    if (xdr_cur_bool(x))
        fattr3(x, a);
}

/* wcc_data: pre_op_attr skipped, post_op_attr into a. */
static void
wcc_data_d(struct xdr_cur *x, struct op_attr *a)
{
    if (xdr_cur_bool(x))
        xdr_cur_skip(x, 24);
    post_op_attr_d(x, a);
}

/* dirlist3 / dirlistplus3 (§3.3.16, §3.3.17): the entries that fit in the
 * kept head; a cut inside an entry just ends the list (eof unknown) and sets
 * dir_cut, as do entries beyond dirent[]. */
static void
dirlist(struct xdr_cur *x, struct op_event *ev, bool plus)
{
    uint32_t n = 0;

    while (xdr_cur_bool(x)) {
        struct op_dirent e;

        memset(&e, 0, sizeof e);
        e.fileid = xdr_cur_u64(x);
        xdr_cur_opaque(x, UINT32_MAX, &e.name); /* filename3 */
        xdr_cur_u64(x);                         /* cookie */
        if (plus) {
            post_op_attr_d(x, attr_out(ev, &e.attr));
            if (xdr_cur_bool(x))
                xdr_cur_opaque(x, NFS3_FHSIZE, &e.fh);
        }
        if (!xdr_cur_ok(x) || n == UINT32_MAX) {
            ev->dir_cut = true;
            return;
        }
        if (ev->ndirent < ev->dirent_cap)
            ev->dirent[ev->ndirent++] = e;
        else
            ev->dir_cut = true;
        ev->dir_entries = ++n;
    }
    if (xdr_cur_ok(x))
        ev->dir_eof = xdr_cur_bool(x) && xdr_cur_ok(x);
    if (!xdr_cur_ok(x))
        ev->dir_cut = true;
}

/* The detail the findings need, decoded on a copy of the cursor
 * after an NFS3_OK status: best effort, never changes the decode result (a
 * head cut short by rpc_head_max or the snaplen just leaves fields unset). */
static void
nfs3_reply_detail(struct xdr_cur x, const struct pending_call *pc, struct op_event *ev)
{
    switch (pc->proc) {
    case NFSPROC3_GETATTR: /* §3.3.1 GETATTR3resok: obj_attributes (fattr3) */
        fattr3(&x, attr_out(ev, &ev->attr));
        break;
    case NFSPROC3_SETATTR: /* §3.3.2 SETATTR3resok: obj_wcc */
    case NFSPROC3_REMOVE:  /* §3.3.12 REMOVE3resok: dir_wcc */
    case NFSPROC3_RMDIR:   /* §3.3.13 */
    case NFSPROC3_RENAME:  /* §3.3.14 RENAME3resok: fromdir_wcc, todir_wcc */
        wcc_data_d(&x, attr_out(ev, &ev->attr));
        break;
    case NFSPROC3_LOOKUP: { /* §3.3.3 LOOKUP3resok: object, obj_attributes, dir_attributes */
        struct bytes fh;
        xdr_cur_opaque(&x, NFS3_FHSIZE, &fh);
        post_op_attr_d(&x, attr_out(ev, &ev->obj_attr));
        post_op_attr_d(&x, attr_out(ev, &ev->attr));
        break;
    }
    case NFSPROC3_ACCESS: { /* §3.3.4 ACCESS3resok: obj_attributes, access */
        uint32_t granted;
        post_op_attr_d(&x, attr_out(ev, &ev->attr));
        granted = xdr_cur_u32(&x);
        if (xdr_cur_ok(&x))
            ev->access_granted = granted;
        break;
    }
    case NFSPROC3_FSINFO: { /* §3.3.19 FSINFO3resok: obj_attributes, rtmax, rtpref,
                             * rtmult, wtmax, ... */
        uint32_t rtmax, wtmax;
        post_op_attr_d(&x, attr_out(ev, &ev->attr));
        rtmax = xdr_cur_u32(&x);
        xdr_cur_skip(&x, 8); /* rtpref, rtmult */
        wtmax = xdr_cur_u32(&x);
        if (xdr_cur_ok(&x)) {
            ev->rtmax = rtmax;
            ev->wtmax = wtmax;
        }
        break;
    }
    case NFSPROC3_READLINK: /* §3.3.5 READLINK3resok: symlink_attributes, data */
    case NFSPROC3_READ:     /* §3.3.6 READ3resok: file_attributes, ... */
    case NFSPROC3_LINK:     /* §3.3.15 LINK3resok: file_attributes, linkdir_wcc */
    case NFSPROC3_FSSTAT:   /* §3.3.18-20: obj_attributes, ... */
    case NFSPROC3_PATHCONF:
        post_op_attr_d(&x, attr_out(ev, &ev->attr));
        break;
    case NFSPROC3_WRITE: /* §3.3.7 WRITE3resok: file_wcc, count, committed, verf */
    case NFSPROC3_COMMIT: { /* §3.3.21 COMMIT3resok: file_wcc, verf */
        uint8_t verf[8];
        wcc_data_d(&x, attr_out(ev, &ev->attr));
        if (pc->proc == NFSPROC3_WRITE) {
            xdr_cur_u32(&x);
            xdr_cur_u32(&x);
        }
        xdr_cur_fixed(&x, verf, 8);
        if (xdr_cur_ok(&x)) {
            ev->has_verf = true;
            memcpy(ev->verf, verf, 8);
        }
        break;
    }
    case NFSPROC3_CREATE: /* §3.3.8 CREATE3resok: obj, obj_attributes, dir_wcc */
    case NFSPROC3_MKDIR:
    case NFSPROC3_SYMLINK:
    case NFSPROC3_MKNOD: {
        struct bytes fh;
        if (xdr_cur_bool(&x))
            xdr_cur_opaque(&x, NFS3_FHSIZE, &fh);
        post_op_attr_d(&x, attr_out(ev, &ev->obj_attr));
        wcc_data_d(&x, attr_out(ev, &ev->attr));
        break;
    }
    case NFSPROC3_READDIR:     /* §3.3.16 READDIR3resok: dir_attributes, cookieverf, reply */
    case NFSPROC3_READDIRPLUS: /* §3.3.17 */
        post_op_attr_d(&x, attr_out(ev, &ev->attr));
        xdr_cur_skip(&x, 8);
        dirlist(&x, ev, pc->proc == NFSPROC3_READDIRPLUS);
        break;
    default:
        break;
    }
}

static enum decode_rc
nfs3_reply(struct xdr_cur *x, const struct pending_call *pc, struct op_event *ev,
           const struct op_sink *sub)
{
    uint32_t status;

    (void)sub;
    if (pc->proc == NFSPROC3_NULL || pc->proc >= NFS3_NPROCS)
        return DECODE_OK;
    status = xdr_cur_u32(x); /* every v3 result starts with nfsstat3 */
    if (!xdr_cur_ok(x))
        return xdr_cur_status(x);
    ev->has_status = true;
    ev->status = status;
    ev->offset = cpriv(pc)->offset;
    ev->access_req = cpriv(pc)->access;
    if (pc->proc == NFSPROC3_READ)
        ev->read_req = cpriv(pc)->count;
    if (status != 0) {
        if (pc->proc == NFSPROC3_LOOKUP) { /* LOOKUP3resfail: dir_attributes */
            struct xdr_cur y = *x;
            post_op_attr_d(&y, attr_out(ev, &ev->attr));
        }
        return DECODE_OK;
    }
    nfs3_reply_detail(*x, pc, ev);
    switch (pc->proc) {
    case NFSPROC3_RENAME: /* §3.3.14: from's object is now to.name */
        ev->names_op = NAMES_OP_RENAME;
        break;
    case NFSPROC3_LINK: /* §3.3.15: the file is also link.name */
        ev->names_op = NAMES_OP_LINK;
        break;
    case NFSPROC3_REMOVE: /* §3.3.12, §3.3.13: the name is gone */
    case NFSPROC3_RMDIR:
        ev->names_op = NAMES_OP_REMOVE;
        break;
    case NFSPROC3_LOOKUP: /* §3.3.3 LOOKUP3resok: object, ... */
        xdr_cur_opaque(x, NFS3_FHSIZE, &ev->obj_fh);
        break;
    case NFSPROC3_CREATE: /* §3.3.8 CREATE3resok: obj (post_op_fh3), ... */
    case NFSPROC3_MKDIR:
    case NFSPROC3_SYMLINK:
    case NFSPROC3_MKNOD:
        post_op_fh3(x, ev);
        break;
    case NFSPROC3_READ: { /* §3.3.6 READ3resok: file_attributes, count, eof, data */
        uint32_t count;
        bool eof;
        post_op_attr(x);
        count = xdr_cur_u32(x);
        eof = xdr_cur_bool(x);
        if (xdr_cur_ok(x) && ev->reply_len && count > ev->reply_len) { /* data is in it */
            xdr_cur_invalid(x);
            break;
        }
        if (xdr_cur_ok(x)) {
            struct xdr_cur y = *x; /* data<>: count bytes, when captured */

            if (xdr_cur_u32(&y) != count && xdr_cur_ok(&y)) {
                xdr_cur_invalid(x);
                break;
            }
            ev->read_bytes = count;
            ev->eof = eof;
        }
        break;
    }
    case NFSPROC3_WRITE: { /* §3.3.7 WRITE3resok: file_wcc, count, committed, verf */
        uint32_t committed;
        wcc_data(x);
        xdr_cur_u32(x); /* count */
        committed = xdr_cur_u32(x);
        if (!xdr_cur_ok(x))
            break;
        if (committed <= STABLE_FILE_SYNC)
            ev->committed = (uint8_t)committed;
        else
            xdr_cur_invalid(x);
        break;
    }
    default:
        break;
    }
    return xdr_cur_status(x);
}

const struct rpc_program nfs3_program = {
    .name = "nfs3",
    .title = "NFS v3",
    .prog = 100003,
    .vers = 3,
    .nprocs = NFS3_NPROCS,
    .procs = nfs3_procs,
    .flags = PGF_PRIMARY | PGF_IO_DETAIL | PGF_FINDINGS,
    .status_name = nfsstat3_name,
    .call = nfs3_call,
    .reply = nfs3_reply,
    .wide_replies = (uint64_t)1 << NFSPROC3_READDIR | (uint64_t)1 << NFSPROC3_READDIRPLUS,
};
