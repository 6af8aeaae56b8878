/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs4_res.c: NFSv4 operation results (nfs_resop4: RFC 7530 §16,
 * RFC 8881 §18, RFC 7862 §15, RFC 8276 §8.4), each decoded or skipped
 * exactly: the nfsstat4, then the union arm that status selects. */
#include <string.h>

#include "nfs4_ops.h"
#include "nfs4_xdr.h"

static void
res_stateid(struct xdr_cur *x, struct nfs4_resop *r)
{
    nfs4_stateid(x, &r->stateid);
    r->has_stateid = xdr_cur_ok(x);
}

static void
verifier(struct xdr_cur *x, struct nfs4_resop *r)
{
    uint8_t v[NFS4_VERIFIER_SIZE];

    xdr_cur_fixed(x, v, sizeof v);
    if (xdr_cur_ok(x)) {
        memcpy(r->verf, v, sizeof v);
        r->has_verf = true;
    }
}

/* LOCK4denied (RFC 8881 §18.10): offset, length, locktype, owner. */
static void
lock4denied(struct xdr_cur *x, struct nfs4_resop *r)
{
    r->offset = xdr_cur_u64(x);
    r->length = xdr_cur_u64(x);
    r->u.denied.locktype = xdr_cur_u32(x);
    nfs4_state_owner(x, &r->u.denied.clientid, &r->u.denied.owner);
}

/* SECINFO4resok (RFC 8881 §18.29): secinfo4<>. */
static void
secinfo4_array(struct xdr_cur *x, struct nfs4_resop *r)
{
    uint32_t n = nfs4_count(x, 4), i;

    r->count = n;
    for (i = 0; i < n && xdr_cur_ok(x); i++) {
        if (xdr_cur_u32(x) == 6) {            /* RPCSEC_GSS: rpcsec_gss_info */
            nfs4_skip_opaque(x, UINT32_MAX);  /* oid */
            xdr_cur_skip(x, 8);               /* qop, service */
        }
    }
}

/* dirlist4 (RFC 8881 §18.23): entry4 list (cookie, name, attrs), eof. The
 * first entry's attributes say what the listing carries (every entry has
 * the attributes the call asked for): r->attrs. */
static void
dirlist4(struct xdr_cur *x, struct nfs4_resop *r)
{
    uint32_t n = 0, start = xdr_cur_pos(x);

    while (xdr_cur_bool(x) && xdr_cur_ok(x)) {
        struct bytes name;
        xdr_cur_u64(x);          /* cookie */
        nfs4_utf8(x, &name);     /* name */
        nfs4_fattr(x, n ? NULL : &r->attrs); /* attrs */
        if (!n)
            r->has_attrs = xdr_cur_ok(x);
        if (xdr_cur_ok(x) && n < UINT32_MAX)
            n++;
    }
    r->count = n;
    r->data.p = x->base + start; /* the entries, walked again for their names */
    r->data.len = xdr_cur_pos(x) > start ? xdr_cur_pos(x) - start : 0;
    r->eof = xdr_cur_bool(x);
}

/* state_protect4_r (RFC 8881 §18.35). */
static void
state_protect4_r(struct xdr_cur *x, struct nfs4_resop *r)
{
    uint32_t how = nfs4_enum(x, 2);

    r->u.cid.state_protect = how;
    if (how >= 1) { /* state_protect_ops4 */
        nfs4_bitmap(x, NULL);
        nfs4_bitmap(x, NULL);
    }
    if (how == 2) { /* ssv_prot_info4: hash_alg, encr_alg, ssv_len, window, handles<> */
        uint32_t n, i;
        xdr_cur_skip(x, 16);
        n = nfs4_count(x, 4);
        for (i = 0; i < n && xdr_cur_ok(x); i++)
            nfs4_skip_opaque(x, UINT32_MAX);
    }
}

/* The results whose union has an arm for an error status. true: handled. */
static bool
resop_error(struct xdr_cur *x, struct nfs4_resop *r)
{
    switch (r->op) {
    case OP_SETATTR: /* SETATTR4res is a struct: attrsset even on failure */
        nfs4_bitmap(x, NULL);
        return true;
    case OP_LOCK:
    case OP_LOCKT:
        if (r->status == NFS4ERR_DENIED)
            lock4denied(x, r);
        return true;
    case OP_SETCLIENTID:
        if (r->status == NFS4ERR_CLID_INUSE) /* client_using: clientaddr4 */
            nfs4_netaddr(x, NULL, NULL);
        return true;
    case OP_GETDEVICEINFO:
        if (r->status == NFS4ERR_TOOSMALL)
            r->u.mincount = xdr_cur_u32(x);
        return true;
    case OP_LAYOUTGET:
        if (r->status == NFS4ERR_LAYOUTTRYLATER) /* will_signal_layout_avail */
            xdr_cur_bool(x);
        return true;
    case OP_COPY:
        if (r->status == NFS4ERR_OFFLOAD_NO_REQS) /* copy_requirements4 */
            xdr_cur_skip(x, 8);
        return true;
    default:
        return true; /* void */
    }
}

/* NFS4_OK results of the 4.0 ops (and later ones of the same shape). */
static bool
resok40(struct xdr_cur *x, struct nfs4_resop *r)
{
    switch (r->op) {
    case OP_ACCESS: /* supported, access */
        r->u.access.supported = xdr_cur_u32(x);
        r->u.access.access = xdr_cur_u32(x);
        return true;
    case OP_CLOSE:
    case OP_LOCK:
    case OP_LOCKU:
    case OP_OPEN_CONFIRM:
    case OP_OPEN_DOWNGRADE: /* a stateid */
        res_stateid(x, r);
        return true;
    case OP_COMMIT: /* writeverf */
        verifier(x, r);
        return true;
    case OP_CREATE: /* cinfo, attrset */
        nfs4_change_info(x);
        nfs4_bitmap(x, NULL);
        return true;
    case OP_GETATTR:
        nfs4_fattr(x, &r->attrs);
        r->has_attrs = xdr_cur_ok(x);
        return true;
    case OP_GETFH:
        nfs4_fh(x, &r->fh);
        return true;
    case OP_LINK:
    case OP_REMOVE:
    case OP_SETXATTR:
    case OP_REMOVEXATTR: /* cinfo */
        nfs4_change_info(x);
        return true;
    case OP_RENAME: /* source_cinfo, target_cinfo */
        nfs4_change_info(x);
        nfs4_change_info(x);
        return true;
    case OP_OPEN: /* stateid, cinfo, rflags, attrset, delegation */
        res_stateid(x, r);
        nfs4_change_info(x);
        r->u.open.rflags = xdr_cur_u32(x);
        nfs4_bitmap(x, NULL);
        nfs4_open_delegation(x, r);
        return true;
    case OP_READ: /* eof, data<>: a view, never copied */
        r->eof = xdr_cur_bool(x);
        xdr_cur_opaque(x, UINT32_MAX, &r->data);
        r->count = (uint32_t)r->data.len;
        return true;
    case OP_READDIR: /* cookieverf, reply */
        xdr_cur_skip(x, NFS4_VERIFIER_SIZE);
        dirlist4(x, r);
        return true;
    case OP_READLINK: /* link */
    case OP_GETXATTR: /* value */
        xdr_cur_opaque(x, UINT32_MAX, &r->data);
        return true;
    case OP_SECINFO:
    case OP_SECINFO_NO_NAME:
        secinfo4_array(x, r);
        return true;
    case OP_SETATTR: /* attrsset */
        nfs4_bitmap(x, NULL);
        return true;
    case OP_SETCLIENTID: /* clientid, setclientid_confirm */
        r->u.cid.clientid = xdr_cur_u64(x);
        xdr_cur_fixed(x, r->u.cid.confirm, NFS4_VERIFIER_SIZE);
        return true;
    case OP_WRITE: { /* count, committed, writeverf */
        uint32_t count = xdr_cur_u32(x), committed = nfs4_enum(x, FILE_SYNC4);
        if (xdr_cur_ok(x)) {
            r->count = count;
            r->committed = (uint8_t)committed;
        }
        verifier(x, r);
        return true;
    }
    case OP_DELEGPURGE: case OP_DELEGRETURN: case OP_LOCKT: case OP_LOOKUP: case OP_LOOKUPP:
    case OP_NVERIFY: case OP_OPENATTR: case OP_PUTFH: case OP_PUTPUBFH: case OP_PUTROOTFH:
    case OP_RENEW: case OP_RESTOREFH: case OP_SAVEFH: case OP_SETCLIENTID_CONFIRM:
    case OP_VERIFY: case OP_RELEASE_LOCKOWNER: case OP_ILLEGAL:
        return true; /* void */
    default:
        return false;
    }
}

/* NFS4_OK results of the 4.1 ops (RFC 8881 §18.33-18.51). */
static bool
resok41(struct xdr_cur *x, struct nfs4_resop *r)
{
    switch (r->op) {
    case OP_BIND_CONN_TO_SESSION: /* sessionid, dir, use_conn_in_rdma_mode */
        nfs4_sessionid(x, r->u.seq.sessionid);
        xdr_cur_u32(x);
        xdr_cur_bool(x);
        return true;
    case OP_EXCHANGE_ID: { /* clientid, sequenceid, flags, state_protect, server_owner,
                            * server_scope, server_impl_id<1> */
        uint32_t n;
        r->u.cid.clientid = xdr_cur_u64(x);
        r->u.cid.sequenceid = xdr_cur_u32(x);
        r->u.cid.flags = xdr_cur_u32(x);
        state_protect4_r(x, r);
        xdr_cur_u64(x); /* so_minor_id */
        nfs4_skip_opaque(x, NFS4_OPAQUE_LIMIT);
        nfs4_skip_opaque(x, NFS4_OPAQUE_LIMIT);
        n = xdr_cur_u32(x);
        if (xdr_cur_ok(x) && n > 1)
            xdr_cur_invalid(x);
        if (n == 1) { /* nfs_impl_id4 */
            nfs4_skip_opaque(x, UINT32_MAX);
            nfs4_skip_opaque(x, UINT32_MAX);
            xdr_cur_skip(x, 12);
        }
        return true;
    }
    case OP_CREATE_SESSION: /* sessionid, sequence, flags, fore, back */
        nfs4_sessionid(x, r->u.cs.sessionid);
        r->u.cs.sequence = xdr_cur_u32(x);
        r->u.cs.flags = xdr_cur_u32(x);
        nfs4_chan(x, &r->u.cs.fore);
        nfs4_chan(x, &r->u.cs.back);
        return true;
    case OP_GET_DIR_DELEGATION: /* GET_DIR_DELEGATION4res_non_fatal */
        switch (nfs4_enum(x, 1)) {
        case 0: /* GDD4_OK: cookieverf, stateid, notification, child, dir attributes */
            xdr_cur_skip(x, NFS4_VERIFIER_SIZE);
            res_stateid(x, r);
            nfs4_bitmap(x, NULL);
            nfs4_bitmap(x, NULL);
            nfs4_bitmap(x, NULL);
            break;
        default: /* GDD4_UNAVAIL: will_signal_deleg_avail */
            xdr_cur_bool(x);
            break;
        }
        return true;
    case OP_GETDEVICEINFO: /* device_addr4, notification */
        xdr_cur_u32(x);
        nfs4_skip_opaque(x, UINT32_MAX);
        nfs4_bitmap(x, NULL);
        return true;
    case OP_GETDEVICELIST: { /* cookie, cookieverf, deviceid_list<>, eof */
        uint32_t n;
        xdr_cur_skip(x, 16);
        n = nfs4_count(x, 16);
        r->count = n;
        xdr_cur_skip(x, 16 * n);
        r->eof = xdr_cur_bool(x);
        return true;
    }
    case OP_LAYOUTCOMMIT: /* newsize4 */
        if (xdr_cur_bool(x))
            r->length = xdr_cur_u64(x);
        return true;
    case OP_LAYOUTGET: /* return_on_close, stateid, layout<> */
        xdr_cur_bool(x);
        res_stateid(x, r);
        nfs4_layout_array(x);
        return true;
    case OP_LAYOUTRETURN: /* layoutreturn_stateid */
        if (xdr_cur_bool(x))
            res_stateid(x, r);
        return true;
    case OP_SEQUENCE: /* sessionid, sequenceid, slotid, highest, target_highest, status_flags */
        nfs4_sessionid(x, r->u.seq.sessionid);
        r->u.seq.sequenceid = xdr_cur_u32(x);
        r->u.seq.slotid = xdr_cur_u32(x);
        r->u.seq.highest_slotid = xdr_cur_u32(x);
        r->u.seq.target_highest_slotid = xdr_cur_u32(x);
        r->u.seq.status_flags = xdr_cur_u32(x);
        return true;
    case OP_SET_SSV: /* digest */
        nfs4_skip_opaque(x, UINT32_MAX);
        return true;
    case OP_TEST_STATEID: { /* status_codes<> */
        uint32_t n = nfs4_count(x, 4);
        r->count = n;
        xdr_cur_skip(x, 4 * n);
        return true;
    }
    case OP_WANT_DELEGATION:
        nfs4_open_delegation(x, r);
        return true;
    case OP_BACKCHANNEL_CTL: case OP_DESTROY_SESSION: case OP_FREE_STATEID:
    case OP_DESTROY_CLIENTID: case OP_RECLAIM_COMPLETE:
        return true; /* void */
    default:
        return false;
    }
}

void
nfs4_read_plus_segments(struct xdr_cur *x, struct nfs4_resop *r, uint32_t n, bool first)
{
    uint64_t data = r->count, holes = r->length;
    uint32_t i;

    for (i = 0; i < n && xdr_cur_ok(x); i++) {
        uint32_t what = nfs4_enum(x, 1);
        if (!xdr_cur_ok(x))
            break;
        if (what == 0) { /* NFS4_CONTENT_DATA: data4, a view never copied */
            struct bytes d;
            uint64_t off = xdr_cur_u64(x);
            xdr_cur_opaque(x, UINT32_MAX, &d);
            if (first && i == 0) {
                r->offset = off;
                r->data = d;
            }
            data += d.len;
        } else { /* NFS4_CONTENT_HOLE: data_info4 (offset, length) */
            xdr_cur_u64(x);
            holes += xdr_cur_u64(x);
        }
    }
    r->count = data > UINT32_MAX ? UINT32_MAX : (uint32_t)data;
    r->length = holes;
}

/* NFS4_OK results of the 4.2 ops (RFC 7862 §15) and LISTXATTRS (RFC 8276). */
static bool
resok42(struct xdr_cur *x, struct nfs4_resop *r)
{
    switch (r->op) {
    case OP_COPY: /* write_response4, copy_requirements4 */
        nfs4_write_response(x, r);
        xdr_cur_skip(x, 8);
        return true;
    case OP_COPY_NOTIFY: { /* lease_time, stateid, source_server<> */
        uint32_t n, i;
        xdr_cur_skip(x, 12);
        res_stateid(x, r);
        n = nfs4_count(x, 8);
        for (i = 0; i < n && xdr_cur_ok(x); i++)
            nfs4_netloc(x);
        return true;
    }
    case OP_IO_ADVISE: /* hints */
        nfs4_bitmap(x, NULL);
        return true;
    case OP_OFFLOAD_STATUS: { /* count, complete<1> */
        uint32_t n;
        r->length = xdr_cur_u64(x);
        n = xdr_cur_u32(x);
        if (xdr_cur_ok(x) && n > 1)
            xdr_cur_invalid(x);
        xdr_cur_skip(x, 4 * n);
        return true;
    }
    case OP_READ_PLUS: /* eof, contents<> */
        r->eof = xdr_cur_bool(x);
        nfs4_read_plus_segments(x, r, nfs4_count(x, 12), true);
        return true;
    case OP_SEEK: /* eof, offset */
        r->eof = xdr_cur_bool(x);
        r->offset = xdr_cur_u64(x);
        return true;
    case OP_WRITE_SAME:
        nfs4_write_response(x, r);
        return true;
    case OP_LISTXATTRS: { /* cookie, names<>, eof */
        uint32_t n, i;
        xdr_cur_u64(x);
        n = nfs4_count(x, 4);
        r->count = n;
        for (i = 0; i < n && xdr_cur_ok(x); i++)
            nfs4_skip_opaque(x, UINT32_MAX);
        r->eof = xdr_cur_bool(x);
        return true;
    }
    case OP_ALLOCATE: case OP_DEALLOCATE: case OP_LAYOUTERROR: case OP_LAYOUTSTATS:
    case OP_OFFLOAD_CANCEL: case OP_CLONE:
        return true; /* void */
    default:
        return false;
    }
}

bool
nfs4_resop(struct xdr_cur *x, struct nfs4_resop *r)
{
    if (!nfs4_op_known(r->op))
        return false;
    r->status = xdr_cur_u32(x);
    r->has_status = xdr_cur_ok(x);
    if (!r->has_status)
        return true;
    if (r->status != NFS4_OK)
        return resop_error(x, r);
    return resok40(x, r) || resok41(x, r) || resok42(x, r);
}
