/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs4.c: NFSv4 (program 100003 version 4: NULL and COMPOUND, RFC 7530 §16,
 * RFC 8881 §16) for the RPC layer: each COMPOUND's operations emitted one by
 * one (dissector.h op_item) from the call and from the reply, the
 * COMPOUND's minor version and kind (its main operations, Wireshark's
 * nfs.main_opcode tiers: nfs4_op_tier()) for the per-minor-version and
 * per-kind rows. The decoding itself is nfs4_compound.c's; what the reply
 * needs from its call travels in the pending call's scratch as a
 * struct nfs4_digest. */
#include <stdio.h>
#include <string.h>

#include "nfs4.h"
#include "stats.h"
#include "xid_table.h"

_Static_assert(sizeof(struct nfs4_digest) <= PC_PRIV_SIZE, "the call's digest fits its scratch");
_Static_assert(NFS4_FHSIZE <= PC_FH_MAX, "an NFSv4 handle fits the pending call");
_Static_assert(sizeof(((struct msg_detail *)0)->sessionid) == NFS4_SESSIONID_SIZE,
               "a record holds a whole session id");

static const struct rpc_op nfs4_procs[2] = {
    [NFSPROC4_NULL] = { "null", OPK_NULL, 0 },
    [NFSPROC4_COMPOUND] = { "compound", OPK_OTHER, 0 },
};

/* The row of an operation in the table: its number; ILLEGAL and CB_ILLEGAL
 * (10044, past the table) in row 0, which no operation uses. */
static uint32_t
op_row(uint32_t op, bool cb)
{
    return op <= (cb ? (uint32_t)NFS4_CB_OP_LAST : (uint32_t)NFS4_OP_LAST) ? op : 0;
}

/* The table entry of an operation, forward or callback. */
static const struct rpc_op *
op_entry(uint32_t op, bool cb)
{
    return cb ? nfs4_cb_op(op) : nfs4_op(op);
}

/* Bit `row` of a 128-bit set: was the operation already in this message? */
static bool
seen_before(uint64_t seen[2], uint32_t row)
{
    uint64_t bit = 1ull << (row & 63);
    bool was = seen[row >> 6 & 1] & bit;

    seen[row >> 6 & 1] |= bit;
    return was;
}

/* The file data a call's operation moves (op_item.io): WRITE data. */
static void
call_io(const struct nfs4_argop *a, struct op_item *it)
{
    if (a->op != OP_WRITE || a->stable > FILE_SYNC4)
        return;
    it->io = OPIO_WRITE;
    it->stable = a->stable;
    it->bytes = a->count;
}

/* The file data a successful result moved: READ and READ_PLUS data (RFC
 * 7862 §15.10: holes apart), WRITE's count and committed, COPY's bytes
 * copied (its write_response4, §15.2). */
static void
res_io(const struct nfs4_resop *r, struct op_item *it)
{
    if (!r->has_status || r->status != NFS4_OK)
        return;
    switch (r->op) {
    case OP_READ:
    case OP_READ_PLUS:
        it->io = r->op == OP_READ ? OPIO_READ : OPIO_READ_PLUS;
        it->bytes = r->count;
        it->holes = r->op == OP_READ_PLUS ? r->length : 0;
        it->eof = r->eof;
        break;
    case OP_WRITE:
        if (r->committed > FILE_SYNC4)
            return;
        it->io = OPIO_WRITE;
        it->stable = r->committed;
        it->bytes = r->count;
        break;
    case OP_COPY:
        if (r->committed > FILE_SYNC4)
            return; /* no write_response4 decoded */
        it->io = OPIO_COPY;
        it->bytes = r->length;
        break;
    default:
        break;
    }
}

static void
emit(const struct op_sink *sub, uint32_t op, uint32_t index, enum op_phase ph,
     const struct nfs4_resop *r, struct bytes fh, uint64_t seen[2],
     const struct nfs4_op_detail *detail)
{
    bool cb = detail->call->cb;
    const struct rpc_op *t = op_entry(op, cb);
    struct op_item it;

    memset(&it, 0, sizeof it);
    it.op = op_row(op, cb);
    it.index = index;
    it.kind = t ? t->kind : OPK_OTHER;
    it.flags = t ? t->flags : 0;
    it.phase = (uint8_t)ph;
    it.repeat = seen ? seen_before(seen, it.op) : false;
    if (r) {
        it.has_status = r->has_status;
        it.status = r->status;
        if (!cb) /* callbacks move no file data */
            res_io(r, &it);
    } else if (ph == OPI_CALL && !cb && detail->arg) {
        call_io(detail->arg, &it);
    }
    it.fh = fh;
    it.detail = detail;
    op_sink_emit(sub, &it);
}

/* The kind packed in a word, one nfs4_op_pack() byte per main operation. */
static uint32_t
kind_pack(const struct nfs4_kind *k)
{
    uint32_t key = 0;
    uint8_t i;

    for (i = 0; i < k->n && i < NFS4_KIND_MAX; i++)
        key |= (uint32_t)nfs4_op_pack(k->op[i]) << (8 * i);
    return key;
}

const char *
nfs4_kind_key_name(uint32_t key, bool cb, char *buf, size_t size)
{
    struct nfs4_kind k;

    memset(&k, 0, sizeof k);
    while (k.n < NFS4_KIND_MAX && (key >> (8 * k.n) & 0xff)) {
        k.op[k.n] = nfs4_op_unpack((uint8_t)(key >> (8 * k.n)), 0);
        k.n++;
    }
    return nfs4_kind_name(&k, cb, buf, size);
}

static const char *
kind_key_name(uint32_t key, char *buf, size_t size)
{
    return nfs4_kind_key_name(key, false, buf, size);
}

/* The message's tail, if the RPC layer kept one: decoding resumes there
 * after READ/WRITE data that ran past the head. */
static const struct nfs4_tail *
tail_of(const struct op_sink *sub, struct nfs4_tail *t)
{
    if (!sub || !sub->tail)
        return NULL;
    t->b = sub->tail->b;
    t->off = sub->tail->off;
    return t;
}

enum decode_rc
nfs4_msg_call(struct xdr_cur *x, struct pending_call *pc, const struct op_sink *sub, bool cb)
{
    static _Thread_local struct nfs4_call c; /* a few KiB: not on the stack per message */
    struct nfs4_digest *d = (struct nfs4_digest *)pc->priv;
    const struct nfs4_argop *main_op;
    struct nfs4_op_detail det;
    struct nfs4_tail t;
    enum decode_rc rc;
    uint32_t i, lost;

    if (pc->proc != NFSPROC4_COMPOUND)
        return DECODE_OK;
    rc = cb ? nfs4_cb_compound_call(x, &c) : nfs4_compound_call(x, tail_of(sub, &t), &c);
    if (sub) /* past NFS4_OPS_MAX: counted as the COMPOUND's count says, never decoded */
        anomaly_add(sub->anom, ANOM_NFS4_OPS_BEYOND_BOUND, c.ops_beyond);
    nfs4_digest_make(&c, d);
    memset(&det, 0, sizeof det);
    det.minorversion = c.minorversion;
    det.call = d;
    pc->minor = c.minorversion <= 0xfe ? (uint8_t)c.minorversion : 0xfe;
    main_op = nfs4_call_main_op(&c);
    if (main_op && cb) { /* a callback names its file in its arguments (RFC 8881 §20) */
        if (main_op->fh.len && main_op->fh.len <= PC_FH_MAX) {
            memcpy(pc->fh, main_op->fh.p, main_op->fh.len);
            pc->fh_len = (uint8_t)main_op->fh.len;
        }
        pc->kind = nfs4_cb_op(main_op->op) ? nfs4_cb_op(main_op->op)->kind : OPK_OTHER;
    } else if (main_op) {
        /* RENAME (RFC 8881 §18.26) acts on the saved FH (the source
         * directory) and the current FH (the target), as NFSv3's from and
         * to (the names learn the move from them). */
        bool rename = main_op->op == OP_RENAME;
        uint8_t gi = rename ? main_op->saved_gen : main_op->fh_gen;
        const struct nfs4_fhgen *g = gi < c.ngen ? &c.gen[gi] : NULL;

        if (g && g->fh.len && g->fh.len <= PC_FH_MAX) {
            memcpy(pc->fh, g->fh.p, g->fh.len);
            pc->fh_len = (uint8_t)g->fh.len;
        }
        if (main_op->name.len && main_op->name.len <= PC_NAME_MAX) {
            memcpy(pc->name, main_op->name.p, main_op->name.len);
            pc->name_len = (uint8_t)main_op->name.len;
        }
        if (rename && pc->name_len && main_op->fh_gen < c.ngen) {
            struct bytes to = c.gen[main_op->fh_gen].fh, nm = main_op->name2;

            if (to.len && nm.len && to.len + nm.len <= (size_t)(PC_NAME_MAX - pc->name_len)) {
                memcpy(pc->name + pc->name_len, to.p, to.len);
                memcpy(pc->name + pc->name_len + to.len, nm.p, nm.len);
                pc->fh2_len = (uint8_t)to.len;
                pc->name2_len = (uint8_t)nm.len;
            }
        }
        if (!rename && main_op->saved_gen && main_op->saved_gen < c.ngen) {
            /* LINK (RFC 8881 §18.9), COPY and CLONE (RFC 7862 §15.2, §15.13):
             * the saved FH is the source, kept as the second handle (no
             * second name) for the reply's results that ran with it. */
            struct bytes src = c.gen[main_op->saved_gen].fh;

            if (src.len && src.len <= (size_t)(PC_NAME_MAX - pc->name_len)) {
                memcpy(pc->name + pc->name_len, src.p, src.len);
                pc->fh2_len = (uint8_t)src.len;
            }
        }
        pc->kind = nfs4_op(main_op->op) ? nfs4_op(main_op->op)->kind : OPK_OTHER;
    }
    /* After the names: the handle list goes after them in pc->name[]. */
    lost = nfs4_putfh_keep(&c, d, pc);
    if (sub)
        anomaly_add(sub->anom, ANOM_NFS4_FH_NOT_KEPT, lost);
    for (i = 0; i < c.ndecoded; i++) {
        const struct nfs4_argop *a = &c.op[i];

        if (c.stop == NFS4_STOP_UNKNOWN && i + 1 == c.ndecoded)
            break; /* op<N>: no row, and nothing after it was decodable */
        if (!cb && a->op == OP_WRITE) { /* the message's: its first stable_how, all its data */
            if (pc->stable == STABLE_NONE)
                pc->stable = a->stable <= FILE_SYNC4 ? a->stable : STABLE_NONE;
            pc->write_count += a->count;
        }
        det.arg = a;
        emit(sub, a->op, i, OPI_CALL, NULL,
             cb || a->op == OP_PUTFH ? a->fh : (struct bytes){ 0 }, NULL, &det);
    }
    return rc;
}

/* What a successful main operation teaches the names (src/names.h), as
 * NFSv3 replies do: LOOKUP, OPEN by name and CREATE (RFC 8881 §18.15,
 * §18.16, §18.4) name the handle of the generation they start, when a
 * GETFH of the COMPOUND returned it, in the directory the call's handle
 * (pending_call.fh) and name are of; REMOVE (§18.25) unlinks that name,
 * RENAME (§18.26) moves it; PUTROOTFH (§18.21) followed by GETFH names the
 * server's root "/" (an export root, as a MOUNT reply's). */
static void
reply_names(const struct nfs4_reply *r, const struct nfs4_digest *d, struct op_event *ev)
{
    uint32_t i, main_op;
    uint8_t g;

    if (!d->kind.n)
        return;
    main_op = d->kind.op[0];
    for (i = 0; i < r->ndecoded && r->res[i].op != main_op; i++)
        continue;
    if (i >= r->ndecoded || !r->res[i].has_status || r->res[i].status != NFS4_OK)
        return;
    if (main_op == OP_REMOVE || main_op == OP_RENAME) {
        ev->names_op = main_op == OP_REMOVE ? NAMES_OP_REMOVE : NAMES_OP_RENAME;
        return;
    }
    if (main_op != OP_LOOKUP && main_op != OP_OPEN && main_op != OP_CREATE &&
        main_op != OP_PUTROOTFH)
        return;
    for (g = 1; g < r->ngen; g++)
        if (r->gen[g].set_by == i && r->gen[g].fh.len) {
            ev->obj_fh = r->gen[g].fh;
            break;
        }
    if (main_op == OP_PUTROOTFH && ev->obj_fh.len) { /* the server's root: the path "/" */
        ev->obj_is_export = true;
        ev->name = (struct bytes){ (const uint8_t *)"/", 1 };
    }
}

enum decode_rc
nfs4_msg_reply(struct xdr_cur *x, const struct pending_call *pc, struct op_event *ev,
               const struct op_sink *sub)
{
    static _Thread_local struct nfs4_reply r;
    const struct nfs4_digest *d = (const struct nfs4_digest *)pc->priv;
    uint64_t seen[2] = { 0, 0 };
    struct nfs4_op_detail det;
    struct nfs4_tail t;
    enum decode_rc rc;
    uint32_t i;

    if (pc->proc != NFSPROC4_COMPOUND)
        return DECODE_OK;
    rc = d->cb ? nfs4_cb_compound_reply(x, d, &r) : nfs4_compound_reply(x, tail_of(sub, &t), d, &r);
    if (sub)
        anomaly_add(sub->anom, ANOM_NFS4_OPS_BEYOND_BOUND, r.res_beyond);
    if (!d->cb)
        nfs4_putfh_restore(d, pc, &r);
    memset(&det, 0, sizeof det);
    det.minorversion = d->minorversion;
    det.call = d;
    if (rc != DECODE_OK && r.ndecoded == 0 && !xdr_cur_ok(x))
        return rc; /* not even the COMPOUND's status */
    ev->status = r.status;
    ev->has_status = true;
    ev->has_main_ops = true;
    ev->main_ops = kind_pack(&d->kind);
    if (!d->cb)
        reply_names(&r, d, ev);
    for (i = 0; i < r.ndecoded; i++) {
        const struct nfs4_resop *res = &r.res[i];
        struct bytes fh = res->fh_gen < r.ngen ? r.gen[res->fh_gen].fh : (struct bytes){ 0 };

        if (!res->has_status)
            continue;
        if (d->cb) {
            det.res = res;
            emit(sub, res->op, i, OPI_RESULT, res, (struct bytes){ 0 }, seen, &det);
            continue;
        }
        if (res->op == OP_WRITE && res->status == NFS4_OK && ev->committed == STABLE_NONE &&
            res->committed <= FILE_SYNC4)
            ev->committed = res->committed;
        if (res->op == OP_READ && res->status == NFS4_OK) { /* as nfs4.read (READ_PLUS apart) */
            ev->read_bytes += res->count;
            ev->eof = ev->eof || res->eof;
        }
        det.res = res;
        emit(sub, res->op, i, OPI_RESULT, res, fh, seen, &det);
    }
    if (d->cb)
        nfs4_cb_event_fill(d, &r, ev);
    else
        nfs4_event_fill(d, &r, ev);
    /* The call's operations after the last result were not evaluated. */
    for (i = r.ndecoded; i < d->ndecoded; i++) {
        uint32_t op = nfs4_digest_op(d, i);

        if (d->stop == NFS4_STOP_UNKNOWN && i + 1 == d->ndecoded)
            break;
        det.res = NULL;
        emit(sub, op, i, OPI_NOT_EVALUATED, NULL, (struct bytes){ 0 }, seen, &det);
    }
    return rc;
}

/* A COMPOUND's record detail from its call's digest: the operations as
 * decoded (an unknown one as op<N>, the rest counted), its kind, and the
 * session slot of its SEQUENCE. */
bool
nfs4_msg_detail(uint32_t proc, const uint8_t *priv, struct msg_detail *out)
{
    const struct nfs4_digest *d = (const struct nfs4_digest *)priv;
    size_t used = 0;
    uint32_t i;

    if (proc != NFSPROC4_COMPOUND || !d)
        return false;
    memset(out, 0, sizeof *out);
    for (i = 0; i < d->ndecoded; i++) {
        char nb[24];
        uint32_t op = nfs4_digest_op(d, i);
        const char *n = d->cb ? nfs4_cb_op_name(op, nb, sizeof nb) : nfs4_op_name(op, nb, sizeof nb);
        int w = snprintf(out->ops + used, sizeof out->ops - used, "%s%s", i ? " " : "", n);

        if (w < 0 || (size_t)w >= sizeof out->ops - used)
            break;
        used += (size_t)w;
    }
    if (d->nops > d->ndecoded && used < sizeof out->ops)
        snprintf(out->ops + used, sizeof out->ops - used, "%s+%lu more", used ? " " : "",
                 (unsigned long)(d->nops - d->ndecoded));
    nfs4_kind_name(&d->kind, d->cb, out->kind, sizeof out->kind);
    if (d->has_seq) {
        out->has_session = true;
        memcpy(out->sessionid, d->sessionid, sizeof out->sessionid);
        out->slotid = d->slotid;
        out->sequenceid = d->sequenceid;
    }
    return true;
}

static const char *
nfs4_status(uint32_t status)
{
    return nfs4_status_name(status);
}

/* The callback program a COMPOUND announced (its digest's cb_program). */
static uint32_t
nfs4_announced(uint32_t proc, const uint8_t *priv)
{
    return proc == NFSPROC4_COMPOUND ? ((const struct nfs4_digest *)priv)->cb_program : 0;
}

static enum decode_rc
nfs4_call(struct xdr_cur *x, struct pending_call *pc, const struct op_sink *sub)
{
    return nfs4_msg_call(x, pc, sub, false);
}

const struct rpc_program nfs4_program = {
    .name = "nfs4",
    .title = "NFS v4.x",
    .prog = NFS4_PROGRAM,
    .vers = NFS4_VERSION,
    .nprocs = 2,
    .procs = nfs4_procs,
    .nops = NFS4_OP_LAST + 1,
    .ops = nfs4_op_table,
    .nminor = 3,
    .flags = PGF_FINDINGS,
    .kind_name = kind_key_name,
    .status_name = nfs4_status,
    .detail = nfs4_msg_detail,
    .call = nfs4_call,
    .reply = nfs4_msg_reply,
    .announces = &nfs4_callback_program,
    .announced = nfs4_announced,
};
