/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs4_compound.c: NFSv4 COMPOUND and CB_COMPOUND framing (RFC 8881
 * §16.2, §20.2; RFC 7530 §15.2, §16.2): tag, minor version, the op list
 * and the per-op results, the current/saved file handle through the ops,
 * the COMPOUND's kind, and the digest a reply needs from its call. */
#include <string.h>

#include "nfs4.h"
#include "nfs4_ops.h"
#include "nfs4_xdr.h"

uint8_t
nfs4_op_pack(uint32_t op)
{
    if (op == OP_ILLEGAL)
        return 255;
    return op <= 253 ? (uint8_t)op : 254;
}

uint32_t
nfs4_op_unpack(uint8_t b, uint32_t unknown_op)
{
    if (b == 255)
        return OP_ILLEGAL;
    return b == 254 ? unknown_op : b;
}

uint32_t
nfs4_digest_op(const struct nfs4_digest *d, uint32_t i)
{
    return i < d->ndecoded ? nfs4_op_unpack(d->op[i], d->stop_op) : 0;
}

/* Does op a set a new current FH (RFC 8881 §16.2.3.1.1)? OPEN does when it
 * opens by name; with CLAIM_PREVIOUS or a *_FH claim the current FH is
 * already the file. */
static bool
starts_gen(const struct nfs4_argop *a)
{
    switch (a->op) {
    case OP_PUTFH:
    case OP_PUTPUBFH:
    case OP_PUTROOTFH:
    case OP_LOOKUP:
    case OP_LOOKUPP:
    case OP_CREATE:
    case OP_OPENATTR:
        return true;
    case OP_OPEN:
        return a->u.open.claim == CLAIM_NULL || a->u.open.claim == CLAIM_DELEGATE_CUR ||
               a->u.open.claim == CLAIM_DELEGATE_PREV;
    default:
        return false;
    }
}

/* The op's effect on the current and saved FH generations. SECINFO and
 * SECINFO_NO_NAME consume the current FH (RFC 8881 §2.6.3.1.1.8). */
static void
fh_step(uint32_t op, bool newgen, uint8_t *cur, uint8_t *saved, uint8_t *ngen,
        struct nfs4_fhgen *gen, uint8_t set_by)
{
    if (newgen) {
        struct nfs4_fhgen *g = &gen[*ngen];
        memset(g, 0, sizeof *g);
        g->set_by = set_by;
        *cur = (*ngen)++;
        return;
    }
    switch (op) {
    case OP_SAVEFH:
        *saved = *cur;
        break;
    case OP_RESTOREFH:
        *cur = *saved;
        break;
    case OP_SECINFO:
    case OP_SECINFO_NO_NAME:
        *cur = 0;
        break;
    default:
        break;
    }
}

static void
gens_init(struct nfs4_fhgen *gen, uint8_t *ngen)
{
    memset(&gen[0], 0, sizeof gen[0]);
    gen[0].set_by = 0xff;
    *ngen = 1;
}

/* Wireshark's tiers for the forward channel; on the back channel
 * CB_SEQUENCE is the glue and CB_ILLEGAL stands out, as there. */
static unsigned
tier(uint32_t op, bool cb)
{
    if (!cb)
        return nfs4_op_tier(op);
    return op == OP_CB_ILLEGAL ? 0 : op == OP_CB_SEQUENCE ? 4 : 1;
}

static void
kind_of(struct nfs4_call *c)
{
    uint32_t i, n = c->ndecoded;
    unsigned best = 5;

    if (c->stop == NFS4_STOP_UNKNOWN && n)
        n--; /* the unknown op has no tier: tshark leaves it out too */
    c->kind.n = 0;
    for (i = 0; i < n; i++) {
        unsigned t = tier(c->op[i].op, c->cb);
        if (t < best)
            best = t;
    }
    for (i = 0; i < n; i++) {
        uint8_t k;
        bool seen = false;
        if (tier(c->op[i].op, c->cb) != best)
            continue;
        for (k = 0; k < c->kind.n; k++)
            seen = seen || c->kind.op[k] == c->op[i].op;
        if (!seen && c->kind.n < NFS4_KIND_MAX)
            c->kind.op[c->kind.n++] = c->op[i].op;
    }
}

static uint32_t
be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The data opaque whose length word is at lenpos of `at`'s buffer ran past
 * it: continue x in the tail just after the data (XDR-padded). data gets
 * the captured prefix, *count the length on the wire. */
static bool
resume_after_data(struct xdr_cur *x, const struct xdr_cur *at, uint32_t lenpos,
                  const struct nfs4_tail *t, struct bytes *data, uint32_t *count)
{
    struct bytes rest;
    uint64_t after;
    uint32_t n;

    if (!t || !t->b.p || xdr_cur_status(x) != DECODE_TRUNCATED || lenpos > at->len ||
        at->len - lenpos < 4)
        return false;
    n = be32(at->base + lenpos);
    after = (uint64_t)lenpos + 4 + (((uint64_t)n + 3) & ~(uint64_t)3);
    if (after <= at->len || after < t->off || after - t->off > t->b.len)
        return false;
    data->p = at->base + lenpos + 4;
    data->len = at->len - lenpos - 4;
    *count = n;
    rest.p = t->b.p + (after - t->off);
    rest.len = t->b.len - (size_t)(after - t->off);
    xdr_cur_init(x, rest);
    return true;
}

/* Where the data length word of a call op sits, from the op's start. */
static bool
call_data_lenpos(const struct xdr_cur *at, uint32_t op, uint32_t *lenpos)
{
    uint32_t p = xdr_cur_pos(at);

    switch (op) {
    case OP_WRITE: /* stateid, offset, stable, data<> */
        *lenpos = p + 28;
        return true;
    case OP_WRITE_SAME: /* stateid, stable, app_data_block4 up to adb_pattern<> */
        *lenpos = p + 64;
        return true;
    case OP_SETXATTR: { /* option, key<>, value<> */
        uint32_t k;
        if (at->len - p < 8)
            return false;
        k = be32(at->base + p + 4);
        if (k > at->len - p - 8)
            return false;
        *lenpos = p + 8 + ((k + 3) & ~3u);
        return true;
    }
    default:
        return false;
    }
}

static void
call_init(struct nfs4_call *c, bool cb)
{
    c->cb = cb;
    c->tag.p = NULL;
    c->tag.len = 0;
    c->minorversion = 0;
    c->minor_unknown = false;
    c->callback_ident = 0;
    c->nops = c->ndecoded = c->ops_beyond = c->stop_op = 0;
    c->stop = NFS4_STOP_NONE;
    c->kind.n = 0;
    c->newgen = 0;
    c->data_cut = false;
    gens_init(c->gen, &c->ngen);
}

static enum decode_rc
compound_call(struct xdr_cur *x, const struct nfs4_tail *tail, struct nfs4_call *c, bool cb)
{
    uint8_t cur = 0, saved = 0;
    uint32_t i;

    call_init(c, cb);
    nfs4_utf8(x, &c->tag);
    c->minorversion = xdr_cur_u32(x);
    if (cb)
        c->callback_ident = xdr_cur_u32(x);
    c->nops = xdr_cur_u32(x);
    if (!xdr_cur_ok(x)) {
        c->stop = NFS4_STOP_MALFORMED;
        return xdr_cur_status(x);
    }
    c->minor_unknown = c->minorversion > 2;
    for (i = 0; i < c->nops; i++) {
        struct nfs4_argop *a;
        struct xdr_cur at;
        uint32_t op, lenpos;
        bool known;

        if (i == NFS4_OPS_MAX) {
            c->ops_beyond = c->nops - i;
            c->stop = NFS4_STOP_BOUND;
            break;
        }
        op = xdr_cur_u32(x);
        if (!xdr_cur_ok(x)) {
            c->stop = NFS4_STOP_MALFORMED;
            break;
        }
        a = &c->op[i];
        memset(a, 0, sizeof *a);
        a->op = op;
        a->fh_gen = cur;
        a->saved_gen = saved;
        c->ndecoded = i + 1;
        at = *x;
        known = cb ? nfs4_cb_argop(x, a) : nfs4_argop(x, a);
        if (!known) {
            c->stop = NFS4_STOP_UNKNOWN;
            c->stop_op = op;
            break;
        }
        if (!xdr_cur_ok(x) && !cb && call_data_lenpos(&at, op, &lenpos) &&
            resume_after_data(x, &at, lenpos, tail, &a->data, &a->count))
            c->data_cut = true;
        if (!xdr_cur_ok(x)) {
            c->stop = NFS4_STOP_MALFORMED;
            break;
        }
        if (cb)
            continue; /* callbacks name their files in their arguments */
        if (starts_gen(a))
            c->newgen |= (uint64_t)1 << i;
        fh_step(op, starts_gen(a), &cur, &saved, &c->ngen, c->gen, (uint8_t)i);
        if (op == OP_PUTFH)
            c->gen[cur].fh = a->fh;
    }
    kind_of(c);
    return xdr_cur_status(x);
}

enum decode_rc
nfs4_compound_call(struct xdr_cur *x, const struct nfs4_tail *tail, struct nfs4_call *c)
{
    return compound_call(x, tail, c, false);
}

enum decode_rc
nfs4_cb_compound_call(struct xdr_cur *x, struct nfs4_call *c)
{
    return compound_call(x, NULL, c, true);
}

uint32_t
nfs4_call_cb_program(const struct nfs4_call *c)
{
    uint32_t i, prog = 0;

    for (i = 0; i < c->ndecoded && !c->cb; i++) {
        const struct nfs4_argop *a = &c->op[i];
        if (a->op == OP_SETCLIENTID)
            prog = a->u.cid.cb_program;
        else if (a->op == OP_CREATE_SESSION)
            prog = a->u.cs.cb_program;
        else if (a->op == OP_BACKCHANNEL_CTL)
            prog = a->u.callback_program;
    }
    return prog;
}

const struct nfs4_argop *
nfs4_call_main_op(const struct nfs4_call *c)
{
    uint32_t i;

    for (i = 0; c->kind.n && i < c->ndecoded; i++)
        if (c->op[i].op == c->kind.op[0])
            return &c->op[i];
    return NULL;
}

/* The argument a result needs to change state (struct nfs4_digest st_op). */
static void
digest_state_arg(const struct nfs4_call *c, const struct nfs4_argop *a, uint32_t i,
                 struct nfs4_digest *d)
{
    switch (a->op) {
    case OP_OPEN:
    case OP_LOCK:
        if (c->minorversion != 0 || (a->op == OP_LOCK && !a->u.lock.new_lock_owner))
            return; /* 4.1: the session names the client (RFC 8881 §18.16.3) */
        /* fall through */
    case OP_SETCLIENTID_CONFIRM:
    case OP_RENEW:
    case OP_DESTROY_CLIENTID:
    case OP_CREATE_SESSION:
        memcpy(d->st_arg, &a->clientid, sizeof a->clientid);
        break;
    case OP_CLOSE:
    case OP_DELEGRETURN:
    case OP_FREE_STATEID:
        if (!a->has_stateid)
            return;
        memcpy(d->st_arg, a->stateid.other, sizeof a->stateid.other);
        break;
    case OP_DESTROY_SESSION:
        memcpy(d->st_arg, a->u.seq.sessionid, NFS4_SESSIONID_SIZE);
        break;
    default:
        return;
    }
    d->st_op = (uint8_t)i;
}

void
nfs4_digest_make(const struct nfs4_call *c, struct nfs4_digest *d)
{
    uint32_t i;
    bool io = false;

    memset(d, 0, sizeof *d);
    d->minorversion = c->minorversion;
    d->nops = c->nops;
    d->ops_beyond = c->ops_beyond;
    d->stop_op = c->stop_op;
    d->ndecoded = (uint8_t)c->ndecoded;
    d->stop = (uint8_t)c->stop;
    d->cb = c->cb;
    d->kind = c->kind;
    d->newgen = c->newgen;
    d->stable = 0xff;
    d->st_op = 0xff;
    d->cb_program = nfs4_call_cb_program(c);
    for (i = 0; i < c->ndecoded; i++) {
        const struct nfs4_argop *a = &c->op[i];
        d->op[i] = nfs4_op_pack(a->op);
        if (!d->has_seq && a->op == (c->cb ? (uint32_t)OP_CB_SEQUENCE : (uint32_t)OP_SEQUENCE)) {
            d->has_seq = true;
            memcpy(d->sessionid, a->u.seq.sessionid, sizeof d->sessionid);
            d->slotid = a->u.seq.slotid;
            d->sequenceid = a->u.seq.sequenceid;
        }
        if (c->cb) { /* the first CB_RECALL's stateid (RFC 8881 §20.2) */
            if (d->st_op == 0xff && a->op == OP_CB_RECALL && a->has_stateid) {
                memcpy(d->st_arg, a->stateid.other, sizeof a->stateid.other);
                d->st_op = (uint8_t)i;
            }
            continue;
        }
        if (d->st_op == 0xff)
            digest_state_arg(c, a, i, d);
        if (!io && (a->op == OP_READ || a->op == OP_WRITE || a->op == OP_COMMIT ||
                    a->op == OP_READ_PLUS || a->op == OP_COPY || a->op == OP_WRITE_SAME ||
                    a->op == OP_READDIR)) {
            io = true;
            d->offset = a->op == OP_READDIR ? a->u.readdir.cookie : a->offset;
            d->count = a->op == OP_COPY ? (a->length > UINT32_MAX ? UINT32_MAX
                                                                  : (uint32_t)a->length)
                                        : a->count;
        }
        if (d->stable == 0xff && (a->op == OP_WRITE || a->op == OP_WRITE_SAME))
            d->stable = a->stable;
    }
}

_Static_assert(sizeof(struct nfs4_digest) <= NFS4_DIGEST_BYTES, "the digest fits its budget");

/* Where the data length word of a result sits, from the op's start (its
 * status), when the status is NFS4_OK. */
static bool
res_data_lenpos(const struct xdr_cur *at, uint32_t op, uint32_t *lenpos)
{
    uint32_t p = xdr_cur_pos(at);

    if (at->len - p < 4 || be32(at->base + p) != NFS4_OK)
        return false;
    switch (op) {
    case OP_READ: /* status, eof, data<> */
        *lenpos = p + 8;
        return true;
    case OP_READ_PLUS: /* status, eof, contents<>: first a data segment (type, offset, data<>) */
        if (at->len - p < 16 || be32(at->base + p + 8) == 0 || be32(at->base + p + 12) != 0)
            return false;
        *lenpos = p + 24;
        return true;
    case OP_READLINK: /* status, link<> */
    case OP_GETXATTR: /* status, value<> */
        *lenpos = p + 4;
        return true;
    default:
        return false;
    }
}

static void
reply_init(struct nfs4_reply *r, bool cb)
{
    r->cb = cb;
    r->status = 0;
    r->tag.p = NULL;
    r->tag.len = 0;
    r->nres = r->ndecoded = r->res_beyond = r->stop_op = r->not_evaluated = 0;
    r->stop = NFS4_STOP_NONE;
    r->ops_mismatch = r->data_cut = false;
    r->first_error = -1;
    gens_init(r->gen, &r->ngen);
}

/* The reply's op i sets the current FH: from the call's record when there
 * is one, else from the op alone (an OPEN is taken to open by name). */
static bool
reply_starts_gen(const struct nfs4_digest *d, uint32_t i, uint32_t op)
{
    struct nfs4_argop a;

    if (d && i < d->ndecoded)
        return (d->newgen >> i) & 1;
    a.op = op;
    a.u.open.claim = CLAIM_NULL;
    return starts_gen(&a);
}

static enum decode_rc
compound_reply(struct xdr_cur *x, const struct nfs4_tail *tail, const struct nfs4_digest *d,
               struct nfs4_reply *r, bool cb)
{
    uint8_t cur = 0, saved = 0;
    uint32_t i;

    reply_init(r, cb);
    r->status = xdr_cur_u32(x);
    nfs4_utf8(x, &r->tag);
    r->nres = xdr_cur_u32(x);
    if (!xdr_cur_ok(x)) {
        r->stop = NFS4_STOP_MALFORMED;
        return xdr_cur_status(x);
    }
    if (d && d->nops > r->nres)
        r->not_evaluated = d->nops - r->nres;
    for (i = 0; i < r->nres; i++) {
        struct nfs4_resop *res;
        struct xdr_cur at;
        uint32_t op, lenpos, cut;
        bool known;

        if (i == NFS4_OPS_MAX) {
            r->res_beyond = r->nres - i;
            r->stop = NFS4_STOP_BOUND;
            break;
        }
        op = xdr_cur_u32(x);
        if (!xdr_cur_ok(x)) {
            r->stop = NFS4_STOP_MALFORMED;
            break;
        }
        res = &r->res[i];
        memset(res, 0, sizeof *res);
        res->op = op;
        res->committed = 0xff;
        res->fh_gen = cur;
        res->saved_gen = saved;
        r->ndecoded = i + 1;
        if (d && i < d->ndecoded && nfs4_digest_op(d, i) != op)
            r->ops_mismatch = true;
        at = *x;
        known = cb ? nfs4_cb_resop(x, res) : nfs4_resop(x, res);
        if (!known) {
            r->stop = NFS4_STOP_UNKNOWN;
            r->stop_op = op;
            break;
        }
        if (res->has_status && res->status != NFS4_OK && r->first_error < 0)
            r->first_error = (int32_t)i;
        if (!xdr_cur_ok(x) && !cb && res_data_lenpos(&at, op, &lenpos) &&
            resume_after_data(x, &at, lenpos, tail, &res->data, &cut)) {
            r->data_cut = true;
            if (op == OP_READ || op == OP_READ_PLUS) {
                const uint8_t *p = at.base + xdr_cur_pos(&at);
                res->count = cut;
                res->eof = be32(p + 4) != 0;
                if (op == OP_READ_PLUS) { /* the segments after the first, from the tail */
                    res->length = 0;
                    nfs4_read_plus_segments(x, res, be32(p + 8) - 1, false);
                }
            }
        }
        if (!xdr_cur_ok(x)) {
            r->stop = NFS4_STOP_MALFORMED;
            break;
        }
        if (cb)
            continue;
        fh_step(op, reply_starts_gen(d, i, op), &cur, &saved, &r->ngen, r->gen, (uint8_t)i);
        if (op == OP_GETFH && res->status == NFS4_OK && cur)
            r->gen[cur].fh = res->fh;
    }
    return xdr_cur_status(x);
}

enum decode_rc
nfs4_compound_reply(struct xdr_cur *x, const struct nfs4_tail *tail, const struct nfs4_digest *d,
                    struct nfs4_reply *r)
{
    return compound_reply(x, tail, d, r, false);
}

enum decode_rc
nfs4_cb_compound_reply(struct xdr_cur *x, const struct nfs4_digest *d, struct nfs4_reply *r)
{
    return compound_reply(x, NULL, d, r, true);
}
