/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs4_args.c: NFSv4 operation arguments (nfs_argop4: RFC 7530 §16,
 * RFC 8881 §18, RFC 7862 §15, RFC 8276 §8.4), each decoded or skipped
 * exactly. */
#include <string.h>

#include "nfs4_ops.h"
#include "nfs4_xdr.h"

/* createhow4 (RFC 8881 §18.16.1) */
static void
createhow4(struct xdr_cur *x, struct nfs4_argop *a)
{
    uint32_t mode = nfs4_enum(x, 3);

    a->u.open.createmode = mode;
    switch (mode) {
    case 0: /* UNCHECKED4 */
    case 1: /* GUARDED4: createattrs */
        nfs4_fattr(x, NULL);
        break;
    case 2: /* EXCLUSIVE4: createverf */
        xdr_cur_skip(x, NFS4_VERIFIER_SIZE);
        break;
    default: /* EXCLUSIVE4_1: creatverfattr */
        xdr_cur_skip(x, NFS4_VERIFIER_SIZE);
        nfs4_fattr(x, NULL);
        break;
    }
}

/* open_claim4 (RFC 8881 §18.16.1) */
static void
open_claim4(struct xdr_cur *x, struct nfs4_argop *a)
{
    uint32_t claim = nfs4_enum(x, CLAIM_DELEG_PREV_FH);

    a->u.open.claim = claim;
    switch (claim) {
    case CLAIM_NULL:
    case CLAIM_DELEGATE_PREV:
        nfs4_utf8(x, &a->name); /* file */
        break;
    case CLAIM_PREVIOUS:
        a->u.open.delegate_type = xdr_cur_u32(x);
        break;
    case CLAIM_DELEGATE_CUR: /* open_claim_delegate_cur4 */
        nfs4_stateid(x, &a->stateid);
        a->has_stateid = xdr_cur_ok(x);
        nfs4_utf8(x, &a->name);
        break;
    case CLAIM_DELEG_CUR_FH:
        nfs4_stateid(x, &a->stateid);
        a->has_stateid = xdr_cur_ok(x);
        break;
    default: /* CLAIM_FH, CLAIM_DELEG_PREV_FH */
        break;
    }
}

/* A stateid as the op's own. */
static void
op_stateid(struct xdr_cur *x, struct nfs4_argop *a)
{
    nfs4_stateid(x, &a->stateid);
    a->has_stateid = xdr_cur_ok(x);
}

/* The 4.0 operations (RFC 7530 §16; the same XDR in RFC 8881 §18), and the
 * 4.1/4.2 ones of the same shape (a clientid, a stateid). */
static bool
argop40(struct xdr_cur *x, struct nfs4_argop *a)
{
    switch (a->op) {
    case OP_ACCESS:
        a->u.access = xdr_cur_u32(x);
        return true;
    case OP_CLOSE: /* seqid, open_stateid */
        xdr_cur_u32(x);
        op_stateid(x, a);
        return true;
    case OP_COMMIT: /* offset, count */
        a->offset = xdr_cur_u64(x);
        a->count = xdr_cur_u32(x);
        return true;
    case OP_CREATE: { /* createtype4 objtype, component4 objname, fattr4 createattrs */
        uint32_t type = xdr_cur_u32(x);
        a->u.create.type = type;
        if (type == 5) { /* NF4LNK: linkdata */
            nfs4_utf8(x, &a->name2);
        } else if (type == 3 || type == 4) { /* NF4BLK, NF4CHR: specdata4 */
            a->u.create.specdata1 = xdr_cur_u32(x);
            a->u.create.specdata2 = xdr_cur_u32(x);
        }
        nfs4_utf8(x, &a->name);
        nfs4_fattr(x, NULL);
        return true;
    }
    case OP_DELEGPURGE:
    case OP_RENEW:
    case OP_DESTROY_CLIENTID:
        a->clientid = xdr_cur_u64(x);
        return true;
    case OP_DELEGRETURN:
    case OP_FREE_STATEID:
    case OP_OFFLOAD_CANCEL:
    case OP_OFFLOAD_STATUS:
        op_stateid(x, a);
        return true;
    case OP_GETATTR:
        nfs4_bitmap(x, a->bitmap);
        return true;
    case OP_GETFH:
    case OP_LOOKUPP:
    case OP_PUTPUBFH:
    case OP_PUTROOTFH:
    case OP_READLINK:
    case OP_RESTOREFH:
    case OP_SAVEFH:
    case OP_ILLEGAL:
        return true; /* void */
    case OP_LINK: /* newname */
    case OP_LOOKUP: /* objname */
    case OP_REMOVE: /* target */
    case OP_SECINFO: /* name */
        nfs4_utf8(x, &a->name);
        return true;
    case OP_LOCK: /* locktype, reclaim, offset, length, locker4 */
        a->u.lock.locktype = xdr_cur_u32(x);
        a->u.lock.reclaim = xdr_cur_bool(x);
        a->offset = xdr_cur_u64(x);
        a->length = xdr_cur_u64(x);
        a->u.lock.new_lock_owner = xdr_cur_bool(x);
        if (a->u.lock.new_lock_owner) { /* open_to_lock_owner4 */
            a->u.lock.seqid = xdr_cur_u32(x); /* open_seqid */
            op_stateid(x, a);                 /* open_stateid */
            xdr_cur_u32(x);                   /* lock_seqid */
            nfs4_state_owner(x, &a->clientid, &a->owner);
        } else { /* exist_lock_owner4 */
            op_stateid(x, a);
            a->u.lock.seqid = xdr_cur_u32(x);
        }
        return true;
    case OP_LOCKT: /* locktype, offset, length, owner */
        a->u.lock.locktype = xdr_cur_u32(x);
        a->offset = xdr_cur_u64(x);
        a->length = xdr_cur_u64(x);
        nfs4_state_owner(x, &a->clientid, &a->owner);
        return true;
    case OP_LOCKU: /* locktype, seqid, lock_stateid, offset, length */
        a->u.lock.locktype = xdr_cur_u32(x);
        a->u.lock.seqid = xdr_cur_u32(x);
        op_stateid(x, a);
        a->offset = xdr_cur_u64(x);
        a->length = xdr_cur_u64(x);
        return true;
    case OP_NVERIFY:
    case OP_VERIFY:
        nfs4_fattr(x, NULL);
        return true;
    case OP_OPEN: /* seqid, share_access, share_deny, owner, openflag4, open_claim4 */
        a->u.open.seqid = xdr_cur_u32(x);
        a->u.open.share_access = xdr_cur_u32(x);
        a->u.open.share_deny = xdr_cur_u32(x);
        nfs4_state_owner(x, &a->clientid, &a->owner);
        a->u.open.opentype = nfs4_enum(x, 1);
        if (a->u.open.opentype == 1) /* OPEN4_CREATE */
            createhow4(x, a);
        open_claim4(x, a);
        return true;
    case OP_OPENATTR: /* createdir */
        xdr_cur_bool(x);
        return true;
    case OP_OPEN_CONFIRM: /* open_stateid, seqid */
        op_stateid(x, a);
        a->u.open.seqid = xdr_cur_u32(x);
        return true;
    case OP_OPEN_DOWNGRADE: /* open_stateid, seqid, share_access, share_deny */
        op_stateid(x, a);
        a->u.open.seqid = xdr_cur_u32(x);
        a->u.open.share_access = xdr_cur_u32(x);
        a->u.open.share_deny = xdr_cur_u32(x);
        return true;
    case OP_PUTFH:
        nfs4_fh(x, &a->fh);
        return true;
    case OP_READ: /* stateid, offset, count */
        op_stateid(x, a);
        a->offset = xdr_cur_u64(x);
        a->count = xdr_cur_u32(x);
        return true;
    case OP_READDIR: /* cookie, cookieverf, dircount, maxcount, attr_request */
        a->u.readdir.cookie = xdr_cur_u64(x);
        xdr_cur_skip(x, NFS4_VERIFIER_SIZE);
        a->u.readdir.dircount = xdr_cur_u32(x);
        a->count = xdr_cur_u32(x);
        nfs4_bitmap(x, a->bitmap);
        return true;
    case OP_RENAME: /* oldname, newname */
        nfs4_utf8(x, &a->name);
        nfs4_utf8(x, &a->name2);
        return true;
    case OP_SETATTR: /* stateid, obj_attributes */
        op_stateid(x, a);
        nfs4_fattr(x, NULL);
        return true;
    case OP_SETCLIENTID: /* nfs_client_id4, cb_client4, callback_ident */
        xdr_cur_fixed(x, a->u.cid.verifier, NFS4_VERIFIER_SIZE);
        xdr_cur_opaque(x, NFS4_OPAQUE_LIMIT, &a->owner);
        a->u.cid.cb_program = xdr_cur_u32(x);
        nfs4_netaddr(x, &a->name, &a->name2);
        a->u.cid.callback_ident = xdr_cur_u32(x);
        return true;
    case OP_SETCLIENTID_CONFIRM: /* clientid, setclientid_confirm */
        a->clientid = xdr_cur_u64(x);
        xdr_cur_fixed(x, a->u.cid.verifier, NFS4_VERIFIER_SIZE);
        return true;
    case OP_WRITE: { /* stateid, offset, stable, data<> */
        op_stateid(x, a);
        a->offset = xdr_cur_u64(x);
        a->stable = (uint8_t)nfs4_enum(x, FILE_SYNC4);
        xdr_cur_opaque(x, UINT32_MAX, &a->data); /* a view: never copied */
        a->count = (uint32_t)a->data.len;
        return true;
    }
    case OP_RELEASE_LOCKOWNER:
        nfs4_state_owner(x, &a->clientid, &a->owner);
        return true;
    default:
        return false;
    }
}

/* The 4.1 operations (RFC 8881 §18.33-18.51). */
static bool
argop41(struct xdr_cur *x, struct nfs4_argop *a)
{
    switch (a->op) {
    case OP_BACKCHANNEL_CTL: /* bca_cb_program, bca_sec_parms<> */
        a->u.callback_program = xdr_cur_u32(x);
        nfs4_cb_sec_parms(x);
        return true;
    case OP_BIND_CONN_TO_SESSION: /* sessionid, dir, use_conn_in_rdma_mode */
        nfs4_sessionid(x, a->u.seq.sessionid);
        xdr_cur_u32(x);
        xdr_cur_bool(x);
        return true;
    case OP_EXCHANGE_ID: { /* client_owner4, flags, state_protect4_a, impl_id<1> */
        uint32_t how, n;
        xdr_cur_fixed(x, a->u.cid.verifier, NFS4_VERIFIER_SIZE);
        xdr_cur_opaque(x, NFS4_OPAQUE_LIMIT, &a->owner);
        a->u.cid.flags = xdr_cur_u32(x);
        how = nfs4_enum(x, 2);
        a->u.cid.state_protect = how;
        if (how >= 1) { /* SP4_MACH_CRED, SP4_SSV: state_protect_ops4 */
            nfs4_bitmap(x, NULL);
            nfs4_bitmap(x, NULL);
        }
        if (how == 2) { /* ssv_sp_parms4 */
            uint32_t k, i;
            for (k = 0; k < 2; k++) { /* hash algs, encr algs: sec_oid4<> */
                uint32_t m = nfs4_count(x, 4);
                for (i = 0; i < m && xdr_cur_ok(x); i++)
                    nfs4_skip_opaque(x, UINT32_MAX);
            }
            xdr_cur_skip(x, 8); /* window, num_gss_handles */
        }
        n = xdr_cur_u32(x); /* eia_client_impl_id<1> */
        if (xdr_cur_ok(x) && n > 1)
            xdr_cur_invalid(x);
        if (n == 1) { /* nfs_impl_id4: domain, name, date */
            nfs4_skip_opaque(x, UINT32_MAX);
            nfs4_skip_opaque(x, UINT32_MAX);
            xdr_cur_skip(x, 12);
        }
        return true;
    }
    case OP_CREATE_SESSION: /* clientid, sequence, flags, fore, back, cb_program, sec_parms<> */
        a->clientid = xdr_cur_u64(x);
        a->u.cs.sequence = xdr_cur_u32(x);
        a->u.cs.flags = xdr_cur_u32(x);
        nfs4_chan(x, &a->u.cs.fore);
        nfs4_chan(x, &a->u.cs.back);
        a->u.cs.cb_program = xdr_cur_u32(x);
        nfs4_cb_sec_parms(x);
        return true;
    case OP_DESTROY_SESSION:
        nfs4_sessionid(x, a->u.seq.sessionid);
        return true;
    case OP_GET_DIR_DELEGATION:
        /* signal_deleg_avail, notification_types, child/dir attr delay,
         * child/dir attributes */
        xdr_cur_bool(x);
        nfs4_bitmap(x, NULL);
        xdr_cur_skip(x, 24);
        nfs4_bitmap(x, NULL);
        nfs4_bitmap(x, NULL);
        return true;
    case OP_GETDEVICEINFO: /* device_id, layout_type, maxcount, notify_types */
        xdr_cur_skip(x, 16);
        a->u.layout.type = xdr_cur_u32(x);
        a->count = xdr_cur_u32(x);
        nfs4_bitmap(x, NULL);
        return true;
    case OP_GETDEVICELIST: /* layout_type, maxdevices, cookie, cookieverf */
        a->u.layout.type = xdr_cur_u32(x);
        a->count = xdr_cur_u32(x);
        xdr_cur_skip(x, 16);
        return true;
    case OP_LAYOUTCOMMIT: /* offset, length, reclaim, stateid, newoffset4, newtime4, layoutupdate4 */
        a->offset = xdr_cur_u64(x);
        a->length = xdr_cur_u64(x);
        xdr_cur_bool(x);
        op_stateid(x, a);
        if (xdr_cur_bool(x))
            xdr_cur_skip(x, 8);
        if (xdr_cur_bool(x))
            xdr_cur_skip(x, 12);
        nfs4_layoutupdate(x);
        return true;
    case OP_LAYOUTGET:
        /* signal_layout_avail, layout_type, iomode, offset, length, minlength,
         * stateid, maxcount */
        xdr_cur_bool(x);
        a->u.layout.type = xdr_cur_u32(x);
        a->u.layout.iomode = xdr_cur_u32(x);
        a->offset = xdr_cur_u64(x);
        a->length = xdr_cur_u64(x);
        xdr_cur_u64(x);
        op_stateid(x, a);
        a->count = xdr_cur_u32(x);
        return true;
    case OP_LAYOUTRETURN: /* reclaim, layout_type, iomode, layoutreturn4 */
        xdr_cur_bool(x);
        a->u.layout.type = xdr_cur_u32(x);
        a->u.layout.iomode = xdr_cur_u32(x);
        a->u.layout.returntype = xdr_cur_u32(x);
        if (xdr_cur_ok(x) && (a->u.layout.returntype < 1 || a->u.layout.returntype > 3))
            xdr_cur_invalid(x);
        if (a->u.layout.returntype == 1) { /* LAYOUTRETURN4_FILE: layoutreturn_file4 */
            a->offset = xdr_cur_u64(x);
            a->length = xdr_cur_u64(x);
            op_stateid(x, a);
            nfs4_skip_opaque(x, UINT32_MAX);
        }
        return true;
    case OP_SECINFO_NO_NAME:
        a->u.style = nfs4_enum(x, 1);
        return true;
    case OP_SEQUENCE: /* sessionid, sequenceid, slotid, highest_slotid, cachethis */
        nfs4_sessionid(x, a->u.seq.sessionid);
        a->u.seq.sequenceid = xdr_cur_u32(x);
        a->u.seq.slotid = xdr_cur_u32(x);
        a->u.seq.highest_slotid = xdr_cur_u32(x);
        a->u.seq.cachethis = xdr_cur_bool(x);
        return true;
    case OP_SET_SSV: /* ssv<>, digest<> */
        nfs4_skip_opaque(x, UINT32_MAX);
        nfs4_skip_opaque(x, UINT32_MAX);
        return true;
    case OP_TEST_STATEID: { /* stateids<> */
        uint32_t n = nfs4_count(x, 16);
        a->count = n;
        xdr_cur_skip(x, 16 * n);
        return true;
    }
    case OP_WANT_DELEGATION: /* want, deleg_claim4 */
        a->u.open.share_access = xdr_cur_u32(x);
        a->u.open.claim = xdr_cur_u32(x);
        if (!xdr_cur_ok(x))
            return true;
        if (a->u.open.claim == CLAIM_PREVIOUS)
            a->u.open.delegate_type = xdr_cur_u32(x);
        else if (a->u.open.claim != CLAIM_FH && a->u.open.claim != CLAIM_DELEG_PREV_FH)
            xdr_cur_invalid(x);
        return true;
    case OP_RECLAIM_COMPLETE: /* one_fs */
        xdr_cur_bool(x);
        return true;
    default:
        return false;
    }
}

/* The 4.2 operations (RFC 7862 §15) and the xattr ones (RFC 8276 §8.4). */
static bool
argop42(struct xdr_cur *x, struct nfs4_argop *a)
{
    switch (a->op) {
    case OP_ALLOCATE:
    case OP_DEALLOCATE: /* stateid, offset, length */
        op_stateid(x, a);
        a->offset = xdr_cur_u64(x);
        a->length = xdr_cur_u64(x);
        return true;
    case OP_COPY: { /* src/dst stateid, src/dst offset, count, consecutive, synchronous, source_server<> */
        struct nfs4_stateid dst;
        uint32_t n, i;
        op_stateid(x, a);
        nfs4_stateid(x, &dst);
        a->offset = xdr_cur_u64(x);
        a->offset2 = xdr_cur_u64(x);
        a->length = xdr_cur_u64(x);
        a->u.copy.consecutive = xdr_cur_bool(x);
        a->u.copy.synchronous = xdr_cur_bool(x);
        n = nfs4_count(x, 8);
        a->u.copy.nsource_servers = n;
        for (i = 0; i < n && xdr_cur_ok(x); i++)
            nfs4_netloc(x);
        return true;
    }
    case OP_COPY_NOTIFY: /* src_stateid, destination_server */
        op_stateid(x, a);
        nfs4_netloc(x);
        return true;
    case OP_IO_ADVISE: /* stateid, offset, count, hints */
        op_stateid(x, a);
        a->offset = xdr_cur_u64(x);
        a->length = xdr_cur_u64(x);
        nfs4_bitmap(x, a->bitmap);
        return true;
    case OP_LAYOUTERROR: { /* offset, length, stateid, errors<> device_error4 */
        uint32_t n;
        a->offset = xdr_cur_u64(x);
        a->length = xdr_cur_u64(x);
        op_stateid(x, a);
        n = nfs4_count(x, 24);
        xdr_cur_skip(x, 24 * n); /* deviceid4, status, opnum */
        return true;
    }
    case OP_LAYOUTSTATS: /* offset, length, stateid, read, write io_info4, deviceid, layoutupdate4 */
        a->offset = xdr_cur_u64(x);
        a->length = xdr_cur_u64(x);
        op_stateid(x, a);
        xdr_cur_skip(x, 32 + 16);
        nfs4_layoutupdate(x);
        return true;
    case OP_READ_PLUS: /* stateid, offset, count */
        op_stateid(x, a);
        a->offset = xdr_cur_u64(x);
        a->count = xdr_cur_u32(x);
        return true;
    case OP_SEEK: /* stateid, offset, what */
        op_stateid(x, a);
        a->offset = xdr_cur_u64(x);
        a->u.style = nfs4_enum(x, 1); /* what: data_content4 */
        return true;
    case OP_WRITE_SAME: /* stateid, stable, app_data_block4 */
        op_stateid(x, a);
        a->stable = (uint8_t)nfs4_enum(x, FILE_SYNC4);
        a->offset = xdr_cur_u64(x); /* adb_offset */
        a->length = xdr_cur_u64(x); /* adb_block_size */
        xdr_cur_skip(x, 8 + 8 + 4 + 8); /* block_count, reloff_blocknum, block_num, reloff_pattern */
        xdr_cur_opaque(x, UINT32_MAX, &a->data); /* adb_pattern */
        a->count = (uint32_t)a->data.len;
        return true;
    case OP_CLONE: { /* src/dst stateid, src/dst offset, count */
        struct nfs4_stateid dst;
        op_stateid(x, a);
        nfs4_stateid(x, &dst);
        a->offset = xdr_cur_u64(x);
        a->offset2 = xdr_cur_u64(x);
        a->length = xdr_cur_u64(x);
        return true;
    }
    case OP_GETXATTR:
    case OP_REMOVEXATTR: /* name */
        nfs4_utf8(x, &a->name);
        return true;
    case OP_SETXATTR: /* option, key, value */
        nfs4_enum(x, 2);
        nfs4_utf8(x, &a->name);
        xdr_cur_opaque(x, UINT32_MAX, &a->data);
        a->count = (uint32_t)a->data.len;
        return true;
    case OP_LISTXATTRS: /* cookie, maxcount */
        a->u.readdir.cookie = xdr_cur_u64(x);
        a->count = xdr_cur_u32(x);
        return true;
    default:
        return false;
    }
}

bool
nfs4_argop(struct xdr_cur *x, struct nfs4_argop *a)
{
    return argop40(x, a) || argop41(x, a) || argop42(x, a);
}
