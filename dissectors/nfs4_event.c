/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs4_event.c: what a COMPOUND's reply tells the shared layers about its
 * main operation, in the fields an NFSv3 reply fills (struct op_event): the
 * attributes of the file it acted on, the object it named (LOOKUP, OPEN by
 * name, CREATE: its GETFH and GETATTR), ACCESS masks, the write verifier,
 * whether it changed anything; and the NFSv4 facts of struct op_nfs4
 * (delegation, SEQUENCE slots, the lock that was in the way).
 *
 * The main operation is the first op of the COMPOUND's kind (nfs4.h
 * nfs4_op_tier: the one Wireshark's nfs.main_opcode shows). A GETATTR counts
 * for it only when it ran on the same current file handle (RFC 8881
 * §16.2.3.1.1): in PUTFH LOOKUP GETFH GETATTR the GETATTR is the child's. */
#include <string.h>

#include "hashtab.h"
#include "nfs4.h"
#include "nfs4_xdr.h"
#include "stats.h"

#define OWNER_SEED 0x6e66733461776e72ULL

#define DELEG_SEED 0x6e66733464656c67ULL /* "nfs4delg" */

/* op_nfs4.deleg_sid of a delegation stateid's other (12 bytes). */
static uint64_t
nfs4_deleg_sid(const uint8_t *other)
{
    return hash_bytes(other, 12, DELEG_SEED) | 1;
}

/* An NFSv4 attribute set reduced to what tells a client its cached copy is
 * still good (RFC 8881 §5.8.1.4, §10.6): the change attribute when the reply
 * has it, else size, time_modify and time_metadata. Two replies asking for
 * different attribute lists of an unchanged file get the same digest. */
static void
attr_of(const struct nfs4_attrs *a, struct op_attr *out)
{
    uint64_t h = a->have;

    if (!(a->have & (NFS4_ATTR_CHANGE | NFS4_ATTR_SIZE | NFS4_ATTR_MTIME | NFS4_ATTR_CTIME)))
        return; /* nothing that says whether the file changed */
    if (a->have & NFS4_ATTR_CHANGE) {
        h = hash_u64x2(NFS4_ATTR_CHANGE, a->change, OWNER_SEED);
    } else {
        h = hash_u64x2(h, a->have & NFS4_ATTR_SIZE ? a->size : 0, OWNER_SEED);
        h = hash_u64x2(h, (uint64_t)a->mtime_s << 30 ^ a->mtime_ns, OWNER_SEED);
        h = hash_u64x2(h, (uint64_t)a->ctime_s << 30 ^ a->ctime_ns, OWNER_SEED);
    }
    out->valid = true;
    out->type = (uint8_t)(a->have & NFS4_ATTR_TYPE ? a->type : 0);
    out->digest = h ? h : 1;
    out->fileid = a->have & NFS4_ATTR_FILEID ? a->fileid : 0;
}

/* The index of the main operation in the call's op list, or -1. */
static int
main_index(const struct nfs4_digest *d)
{
    uint8_t want;
    uint32_t i;

    if (!d->kind.n)
        return -1;
    want = nfs4_op_pack(d->kind.op[0]);
    for (i = 0; i < d->ndecoded; i++)
        if (d->op[i] == want)
            return (int)i;
    return -1;
}

/* The generation (r->gen index) the call's op i started, 0: none. */
static uint8_t
gen_started_by(const struct nfs4_digest *d, const struct nfs4_reply *r, int i)
{
    uint8_t g;

    if (i < 0 || i >= 64 || !((d->newgen >> i) & 1))
        return 0;
    for (g = 1; g < r->ngen; g++)
        if (r->gen[g].set_by == (uint8_t)i)
            return g;
    return 0;
}

/* The main READDIR's entries (RFC 8881 §18.23.4: entry4 name and attrs):
 * each name, and its handle when the attributes carry FATTR4_FILEHANDLE,
 * into ev->dirent, from which the names cache learns them as from NFSv3
 * READDIRPLUS. Entries past dirent_cap or cut short set dir_cut. */
static void
readdir_entries(const struct nfs4_resop *res, struct op_event *ev)
{
    struct xdr_cur y;

    xdr_cur_init(&y, res->data);
    while (xdr_cur_bool(&y) && xdr_cur_ok(&y)) {
        struct op_dirent e;
        struct nfs4_attrs a;

        memset(&e, 0, sizeof e);
        memset(&a, 0, sizeof a);
        xdr_cur_u64(&y); /* cookie */
        nfs4_utf8(&y, &e.name);
        nfs4_fattr(&y, &a);
        if (!xdr_cur_ok(&y) || ev->ndirent >= ev->dirent_cap) {
            ev->dir_cut = true;
            return;
        }
        e.fh = a.fh;
        e.fileid = (a.have & NFS4_ATTR_FILEID) ? a.fileid : 0;
        ev->dirent[ev->ndirent++] = e;
    }
    ev->dir_cut = ev->dir_cut || res->count > ev->ndirent;
}

void
nfs4_event_fill(const struct nfs4_digest *d, const struct nfs4_reply *r, struct op_event *ev)
{
    int mi = main_index(d);
    uint8_t main_gen = 0, obj_gen = gen_started_by(d, r, mi);
    uint32_t i;

    if (mi >= 0 && (uint32_t)mi < r->ndecoded) {
        main_gen = r->res[mi].fh_gen;
        ev->v4.main_done = r->res[mi].has_status;
        ev->v4.main_status = r->res[mi].status;
    }
    if (r->first_error >= 0)
        ev->v4.fail_op = nfs4_op_pack(r->res[r->first_error].op);
    if (d->has_seq && !d->cb && !ev->no_attrs) /* only the findings read it */
        ev->v4.session = hash_bytes(d->sessionid, sizeof d->sessionid, OWNER_SEED) | 1;
    if (mi >= 0 && d->op[mi] == OP_READ)
        ev->v4.read_count = d->count;
    if (mi >= 0 && (d->op[mi] == OP_READDIR || d->op[mi] == OP_READ || d->op[mi] == OP_WRITE ||
                    d->op[mi] == OP_COMMIT))
        ev->offset = d->offset;
    for (i = 0; i < r->ndecoded; i++) {
        const struct nfs4_resop *res = &r->res[i];
        const struct rpc_op *t = nfs4_op(res->op);

        if (!res->has_status)
            continue;
        if (res->status == NFS4ERR_DENIED && (res->op == OP_LOCK || res->op == OP_LOCKT)) {
            ev->v4.lock_type = res->u.denied.locktype;
            ev->v4.lock_off = res->offset;
            ev->v4.lock_len = res->length;
            ev->v4.lock_owner = hash_u64x2(res->u.denied.clientid,
                                           hash_bytes(res->u.denied.owner.p,
                                                      res->u.denied.owner.len, OWNER_SEED),
                                           OWNER_SEED) | 1;
            ev->v4.lock_clientid = res->u.denied.clientid;
            ev->v4.lock_holder = res->u.denied.owner;
        }
        if (res->op == OP_DELEGRETURN && d->st_op == i) { /* the stateid it returned
                                                             * (the call's, RFC 8881 §18.6) */
            ev->v4.deleg_sid = nfs4_deleg_sid(d->st_arg);
        }
        if (res->status != NFS4_OK)
            continue;
        if (t)
            ev->opf |= t->flags & (OPF_MOD_DATA | OPF_MOD_META);
        switch (res->op) {
        case OP_GETATTR:
            if (!res->has_attrs || ev->no_attrs) /* only the findings read them */
                break;
            if (main_gen && res->fh_gen == main_gen)
                attr_of(&res->attrs, &ev->attr);
            else if (obj_gen && res->fh_gen == obj_gen)
                attr_of(&res->attrs, &ev->obj_attr);
            break;
        case OP_GETFH:
            if (obj_gen && res->fh_gen == obj_gen && res->fh.len)
                ev->obj_fh = res->fh;
            break;
        case OP_ACCESS: /* supported: the asked-for bits the server can check (§18.1.3) */
            ev->access_req = res->u.access.supported;
            ev->access_granted = res->u.access.access;
            break;
        case OP_WRITE:
        case OP_COMMIT:
            if (res->has_verf && !ev->has_verf) {
                ev->has_verf = true;
                memcpy(ev->verf, res->verf, sizeof ev->verf);
            }
            break;
        case OP_OPEN:
            if (res->u.open.delegation <= OPEN_DELEGATE_WRITE_ATTRS_DELEG)
                ev->v4.deleg = (uint8_t)(res->u.open.delegation + 1);
            ev->v4.why_none = res->u.open.why_none;
            break;
        case OP_CREATE_SESSION: /* RFC 8881 §18.36.3: the limits the server granted */
            ev->v4.session = hash_bytes(res->u.cs.sessionid, sizeof res->u.cs.sessionid,
                                        OWNER_SEED) | 1;
            ev->v4.max_resp = res->u.cs.fore.maxresponsesize;
            break;
        case OP_SEQUENCE:
            ev->v4.has_seq = true;
            ev->v4.seq_flags = (uint16_t)(res->u.seq.status_flags & 0x1fff);
            ev->v4.slot = res->u.seq.slotid;
            ev->v4.highest_slot = res->u.seq.highest_slotid;
            ev->v4.target_slot = res->u.seq.target_highest_slotid;
            break;
        case OP_READDIR:
            if ((int)i == mi)
                readdir_entries(res, ev);
            ev->dir_entries = res->count;
            ev->dir_eof = res->eof;
            ev->v4.dir_attrs = res->has_attrs &&
                               (res->attrs.have & (NFS4_ATTR_TYPE | NFS4_ATTR_CHANGE |
                                                   NFS4_ATTR_SIZE | NFS4_ATTR_MTIME |
                                                   NFS4_ATTR_CTIME)) != 0;
            break;
        default:
            break;
        }
    }
}

void
nfs4_cb_event_call(const struct nfs4_digest *d, struct op_event *ev)
{
    if (d->st_op < d->ndecoded && nfs4_digest_op(d, d->st_op) == OP_CB_RECALL)
        ev->v4.deleg_sid = nfs4_deleg_sid(d->st_arg); /* recalled (RFC 8881 §20.2) */
}

void
nfs4_cb_event_fill(const struct nfs4_digest *d, const struct nfs4_reply *r, struct op_event *ev)
{
    int mi = main_index(d);

    if (mi >= 0 && (uint32_t)mi < r->ndecoded) {
        ev->v4.main_done = r->res[mi].has_status;
        ev->v4.main_status = r->res[mi].status;
    }
    if (r->first_error >= 0)
        ev->v4.fail_op = nfs4_op_pack(r->res[r->first_error].op);
    nfs4_cb_event_call(d, ev);
}
