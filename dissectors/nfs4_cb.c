/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs4_cb.c: NFSv4 callback operations (nfs_cb_argop4, nfs_cb_resop4:
 * RFC 8881 §20, RFC 7530 §16.2, RFC 7862 §16), each decoded or skipped
 * exactly. */
#include <string.h>

#include "nfs4_ops.h"
#include "nfs4_xdr.h"

static void
cb_stateid(struct xdr_cur *x, struct nfs4_argop *a)
{
    nfs4_stateid(x, &a->stateid);
    a->has_stateid = xdr_cur_ok(x);
}

/* layoutrecall4 (RFC 8881 §20.3): file (fh, offset, length, stateid), fsid or all. */
static void
layoutrecall4(struct xdr_cur *x, struct nfs4_argop *a)
{
    uint32_t type = xdr_cur_u32(x);

    a->u.layout.returntype = type;
    switch (type) {
    case 1: /* LAYOUTRECALL4_FILE */
        nfs4_fh(x, &a->fh);
        a->offset = xdr_cur_u64(x);
        a->length = xdr_cur_u64(x);
        cb_stateid(x, a);
        break;
    case 2: /* LAYOUTRECALL4_FSID: fsid4 */
        xdr_cur_skip(x, 16);
        break;
    case 3: /* LAYOUTRECALL4_ALL */
        break;
    default:
        xdr_cur_invalid(x);
        break;
    }
}

/* referring_call_list4<> (RFC 8881 §20.9): sessionid, referring_call4<>. */
static uint32_t
referring_call_lists(struct xdr_cur *x)
{
    uint32_t n = nfs4_count(x, 20), i, calls = 0;

    for (i = 0; i < n && xdr_cur_ok(x); i++) {
        uint32_t m;
        xdr_cur_skip(x, NFS4_SESSIONID_SIZE);
        m = nfs4_count(x, 8);
        xdr_cur_skip(x, 8 * m); /* sequenceid, slotid */
        calls += m;
    }
    return calls;
}

bool
nfs4_cb_argop(struct xdr_cur *x, struct nfs4_argop *a)
{
    switch (a->op) {
    case OP_CB_GETATTR: /* fh, attr_request */
        nfs4_fh(x, &a->fh);
        nfs4_bitmap(x, a->bitmap);
        return true;
    case OP_CB_RECALL: /* stateid, truncate, fh */
        cb_stateid(x, a);
        a->u.recall.truncate = xdr_cur_bool(x);
        nfs4_fh(x, &a->fh);
        return true;
    case OP_CB_LAYOUTRECALL: /* type, iomode, changed, recall */
        a->u.layout.type = xdr_cur_u32(x);
        a->u.layout.iomode = xdr_cur_u32(x);
        xdr_cur_bool(x);
        layoutrecall4(x, a);
        return true;
    case OP_CB_NOTIFY: /* stateid, fh, changes<> */
        cb_stateid(x, a);
        nfs4_fh(x, &a->fh);
        nfs4_notify_array(x);
        return true;
    case OP_CB_PUSH_DELEG: { /* fh, delegation */
        struct nfs4_resop d;
        memset(&d, 0, sizeof d);
        nfs4_fh(x, &a->fh);
        nfs4_open_delegation(x, &d);
        a->u.open.delegate_type = d.u.open.delegation;
        a->stateid = d.u.open.deleg_stateid;
        a->has_stateid = xdr_cur_ok(x) && d.u.open.delegation != OPEN_DELEGATE_NONE &&
                         d.u.open.delegation != OPEN_DELEGATE_NONE_EXT;
        return true;
    }
    case OP_CB_RECALL_ANY:
    case OP_CB_RECALLABLE_OBJ_AVAIL: /* objects_to_keep, type_mask */
        a->u.recall.objects_to_keep = xdr_cur_u32(x);
        nfs4_bitmap(x, a->bitmap);
        return true;
    case OP_CB_RECALL_SLOT: /* target_highest_slotid */
        a->u.seq.target_highest_slotid = xdr_cur_u32(x);
        return true;
    case OP_CB_SEQUENCE: /* sessionid, sequenceid, slotid, highest_slotid, cachethis,
                          * referring_call_lists<> */
        nfs4_sessionid(x, a->u.seq.sessionid);
        a->u.seq.sequenceid = xdr_cur_u32(x);
        a->u.seq.slotid = xdr_cur_u32(x);
        a->u.seq.highest_slotid = xdr_cur_u32(x);
        a->u.seq.cachethis = xdr_cur_bool(x);
        a->u.seq.nreferring = referring_call_lists(x);
        return true;
    case OP_CB_WANTS_CANCELLED: /* contended, resourced */
        xdr_cur_bool(x);
        xdr_cur_bool(x);
        return true;
    case OP_CB_NOTIFY_LOCK: /* fh, lock_owner */
        nfs4_fh(x, &a->fh);
        nfs4_state_owner(x, &a->clientid, &a->owner);
        return true;
    case OP_CB_NOTIFY_DEVICEID: /* changes<> */
        nfs4_notify_array(x);
        return true;
    case OP_CB_OFFLOAD: { /* fh, stateid, offload_info4 */
        struct nfs4_resop w;
        nfs4_fh(x, &a->fh);
        cb_stateid(x, a);
        memset(&w, 0, sizeof w);
        if (xdr_cur_u32(x) == NFS4_OK && xdr_cur_ok(x)) { /* write_response4 */
            nfs4_write_response(x, &w);
            a->length = w.length;
            a->stable = w.committed;
        } else { /* bytes copied */
            a->length = xdr_cur_u64(x);
        }
        return true;
    }
    case OP_CB_ILLEGAL:
        return true;
    default:
        return false;
    }
}

bool
nfs4_cb_resop(struct xdr_cur *x, struct nfs4_resop *r)
{
    if (!nfs4_cb_op_known(r->op))
        return false;
    r->status = xdr_cur_u32(x);
    r->has_status = xdr_cur_ok(x);
    if (!r->has_status || r->status != NFS4_OK)
        return true;
    switch (r->op) {
    case OP_CB_GETATTR: /* obj_attributes */
        nfs4_fattr(x, &r->attrs);
        r->has_attrs = xdr_cur_ok(x);
        break;
    case OP_CB_SEQUENCE: /* sessionid, sequenceid, slotid, highest, target_highest */
        nfs4_sessionid(x, r->u.seq.sessionid);
        r->u.seq.sequenceid = xdr_cur_u32(x);
        r->u.seq.slotid = xdr_cur_u32(x);
        r->u.seq.highest_slotid = xdr_cur_u32(x);
        r->u.seq.target_highest_slotid = xdr_cur_u32(x);
        break;
    default: /* status only */
        break;
    }
    return true;
}
