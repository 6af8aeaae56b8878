/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs4_test.c: unit tests for the NFSv4 decoder (RFC 7530, RFC 8881,
 * RFC 7862, RFC 8276): every operation's arguments and results in a
 * COMPOUND, callbacks, the framing's limits, file handle tracking, the
 * kind, truncation at every byte and hostile lengths. Every decode runs on
 * a heap copy of exactly the bytes given, so ASan catches a read past the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4.h"
#include "nfs4_test.h"
#include "stats.h"
#include "t.h"
#include "xdr_cur.h"
#include "xid_table.h"

extern const struct rpc_program nfs4_program;

static struct nfs4_call call;
static struct nfs4_reply reply;
static struct nfs4_digest dig;
static uint8_t *call_buf, *reply_buf; /* the last decoded bytes: the views borrow them */

/* A heap copy of exactly n bytes, replacing (and freeing) *keep. */
static uint8_t *
exact_copy(uint8_t **keep, const uint8_t *p, size_t n)
{
    free(*keep);
    *keep = malloc(n ? n : 1);
    if (n)
        memcpy(*keep, p, n);
    return *keep;
}

static const uint32_t fwd_ops[] = {
    3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
    26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48,
    49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71,
    72, 73, 74, 75, OP_ILLEGAL,
};
#define NFWD (sizeof fwd_ops / sizeof fwd_ops[0])

/* COMPOUND4args header. */
static void
call_head(struct enc *e, const char *tag, uint32_t minor, uint32_t nops)
{
    e->n = 0;
    estr(e, tag);
    e32(e, minor);
    e32(e, nops);
}

/* COMPOUND4res header. */
static void
reply_head(struct enc *e, uint32_t status, const char *tag, uint32_t nres)
{
    e->n = 0;
    e32(e, status);
    estr(e, tag);
    e32(e, nres);
}

static enum decode_rc
dec_call(const uint8_t *p, size_t n, const struct nfs4_tail *tail, bool cb)
{
    struct xdr_cur x;
    struct bytes b;
    enum decode_rc rc;

    b.p = exact_copy(&call_buf, p, n);
    b.len = n;
    xdr_cur_init(&x, b);
    rc = cb ? nfs4_cb_compound_call(&x, &call) : nfs4_compound_call(&x, tail, &call);
    if (rc == DECODE_OK && !tail && xdr_cur_left(&x) != 0 && call.stop == NFS4_STOP_NONE)
        rc = DECODE_UNSUPPORTED; /* bytes left over: an op was not skipped exactly */
    nfs4_digest_make(&call, &dig);
    return rc;
}

static enum decode_rc
dec_reply(const uint8_t *p, size_t n, const struct nfs4_tail *tail, const struct nfs4_digest *d,
          bool cb)
{
    struct xdr_cur x;
    struct bytes b;
    enum decode_rc rc;

    b.p = exact_copy(&reply_buf, p, n);
    b.len = n;
    xdr_cur_init(&x, b);
    rc = cb ? nfs4_cb_compound_reply(&x, d, &reply) : nfs4_compound_reply(&x, tail, d, &reply);
    if (rc == DECODE_OK && !tail && xdr_cur_left(&x) != 0 && reply.stop == NFS4_STOP_NONE)
        rc = DECODE_UNSUPPORTED;
    return rc;
}

static void
test_names(void)
{
    char b[16];
    size_t i;
    unsigned named = 0;

    STREQ(nfs4_op_name(OP_PUTFH, b, sizeof b), "putfh");
    STREQ(nfs4_op_name(OP_SEQUENCE, b, sizeof b), "sequence");
    STREQ(nfs4_op_name(OP_READ_PLUS, b, sizeof b), "read_plus");
    STREQ(nfs4_op_name(OP_REMOVEXATTR, b, sizeof b), "removexattr");
    STREQ(nfs4_op_name(OP_ILLEGAL, b, sizeof b), "illegal");
    STREQ(nfs4_op_name(2, b, sizeof b), "op2");
    STREQ(nfs4_op_name(76, b, sizeof b), "op76");
    STREQ(nfs4_op_name(4000000000u, b, sizeof b), "op4000000000");
    STREQ(nfs4_cb_op_name(OP_CB_RECALL, b, sizeof b), "cb_recall");
    STREQ(nfs4_cb_op_name(OP_CB_OFFLOAD, b, sizeof b), "cb_offload");
    STREQ(nfs4_cb_op_name(OP_CB_ILLEGAL, b, sizeof b), "cb_illegal");
    STREQ(nfs4_cb_op_name(16, b, sizeof b), "op16");
    for (i = 0; i < NFWD; i++)
        named += nfs4_op_known(fwd_ops[i]);
    EQ(named, NFWD);
    CHECK(!nfs4_op_known(0) && !nfs4_op_known(1) && !nfs4_op_known(2) && !nfs4_op_known(76));
    for (i = 3; i <= 15; i++)
        CHECK(nfs4_cb_op_known((uint32_t)i));
    CHECK(!nfs4_cb_op_known(2) && !nfs4_cb_op_known(16));
    STREQ(nfs4_status_name(0), "NFS4_OK");
    STREQ(nfs4_status_name(2), "NFS4ERR_NOENT");
    STREQ(nfs4_status_name(13), "NFS4ERR_ACCESS");
    STREQ(nfs4_status_name(10021), "NFS4ERR_MINOR_VERS_MISMATCH");
    STREQ(nfs4_status_name(10087), "NFS4ERR_DELEG_REVOKED");
    STREQ(nfs4_status_name(10094), "NFS4ERR_OFFLOAD_NO_REQS");
    STREQ(nfs4_status_name(10096), "NFS4ERR_XATTR2BIG");
    CHECK(nfs4_status_name(10073) == NULL); /* unassigned */
    CHECK(nfs4_status_name(3) == NULL && nfs4_status_name(10097) == NULL);
    STREQ(nfs4_stable_name(FILE_SYNC4), "FILE_SYNC4");
    CHECK(nfs4_stable_name(3) == NULL);
    STREQ(nfs4_delegation_name(OPEN_DELEGATE_NONE_EXT), "OPEN_DELEGATE_NONE_EXT");
    STREQ(nfs4_why_no_delegation_name(3), "WND4_NOT_SUPP_FTYPE");
    CHECK(nfs4_why_no_delegation_name(9) == NULL);
    /* kinds and flags for the shared layers (op_kind.h) */
    EQ(nfs4_op(OP_WRITE)->kind, OPK_WRITE);
    EQ(nfs4_op(OP_WRITE)->flags, OPF_FH | OPF_MOD_DATA | OPF_RANGE);
    EQ(nfs4_op(OP_READ)->kind, OPK_READ);
    EQ(nfs4_op(OP_READ_PLUS)->kind, OPK_READ);
    EQ(nfs4_op(OP_COMMIT)->kind, OPK_COMMIT);
    EQ(nfs4_op(OP_GETATTR)->kind, OPK_GETATTR);
    EQ(nfs4_op(OP_SEQUENCE)->kind, OPK_SESSION);
    EQ(nfs4_op(OP_PUTROOTFH)->kind, OPK_PUTFH);
    EQ(nfs4_op(OP_OPEN)->kind, OPK_OPEN);
    EQ(nfs4_op(OP_LOCKU)->kind, OPK_UNLOCK);
    EQ(nfs4_op(OP_ILLEGAL)->kind, OPK_OTHER);
    CHECK(nfs4_op(76) == NULL && nfs4_op(2) == NULL && nfs4_cb_op(2) == NULL);
    for (i = 3; i <= NFS4_CB_OP_LAST; i++)
        CHECK(nfs4_cb_op((uint32_t)i)->flags & OPF_CALLBACK);
    for (i = 0; i < NFWD; i++) {
        const struct rpc_op *o = nfs4_op(fwd_ops[i]);
        CHECK(o && o->kind < OPK__COUNT && !(o->flags & OPF_CALLBACK));
    }
    EQ(nfs4_op_pack(OP_ILLEGAL), 255);
    EQ(nfs4_op_unpack(nfs4_op_pack(OP_ILLEGAL), 0), OP_ILLEGAL);
    EQ(nfs4_op_unpack(nfs4_op_pack(99999), 99999), 99999);
    EQ(nfs4_op_unpack(nfs4_op_pack(OP_WRITE), 0), OP_WRITE);
}

/* Wireshark's tiers, as tshark 4.0.17 orders every pair of ops (derived on
 * synthetic replies; see nfs4_names.c). */
static void
test_tiers(void)
{
    static const uint32_t t2[] = { OP_ACCESS, OP_NVERIFY };
    static const uint32_t t3[] = { OP_GETATTR, OP_PUTPUBFH, OP_PUTROOTFH };
    static const uint32_t t4[] = { OP_GETFH, OP_PUTFH, OP_RESTOREFH, OP_SAVEFH, OP_SEQUENCE };
    size_t i;
    unsigned ones = 0;

    for (i = 0; i < sizeof t2 / sizeof t2[0]; i++)
        EQ(nfs4_op_tier(t2[i]), 2);
    for (i = 0; i < sizeof t3 / sizeof t3[0]; i++)
        EQ(nfs4_op_tier(t3[i]), 3);
    for (i = 0; i < sizeof t4 / sizeof t4[0]; i++)
        EQ(nfs4_op_tier(t4[i]), 4);
    EQ(nfs4_op_tier(OP_ILLEGAL), 0);
    for (i = 0; i < NFWD; i++)
        ones += nfs4_op_tier(fwd_ops[i]) == 1;
    EQ(ones, NFWD - 2 - 3 - 5 - 1);
}

/* A COMPOUND [op, PUTROOTFH] with valid args: op decodes exactly (the
 * sentinel after it decodes, nothing is left), and cut at every byte it
 * decodes as TRUNCATED with no op past the cut. */
static unsigned
one_call(uint32_t op)
{
    struct enc e;
    unsigned bad = 0;
    size_t cut;
    enum decode_rc rc;

    call_head(&e, "tag", 2, 2);
    e32(&e, op);
    enc_args(&e, op);
    e32(&e, OP_PUTROOTFH);
    rc = dec_call(e.b, e.n, NULL, false);
    if (rc != DECODE_OK || call.ndecoded != 2 || call.op[0].op != op ||
        call.op[1].op != OP_PUTROOTFH || call.stop != NFS4_STOP_NONE) {
        fprintf(stderr, "op %u: call rc %d ndecoded %u stop %d\n", op, rc, call.ndecoded,
                call.stop);
        bad++;
    }
    for (cut = 0; cut < e.n; cut++) {
        rc = dec_call(e.b, cut, NULL, false);
        if (rc != DECODE_TRUNCATED || call.ndecoded > 2 ||
            (call.ndecoded == 2 && cut < e.n - 4)) {
            fprintf(stderr, "op %u: call cut at %zu: rc %d ndecoded %u\n", op, cut, rc,
                    call.ndecoded);
            bad++;
        }
    }
    return bad;
}

/* A reply [op OK + results, PUTROOTFH OK], the same way. */
static unsigned
one_reply(uint32_t op)
{
    struct enc e;
    unsigned bad = 0;
    size_t cut;
    enum decode_rc rc;

    reply_head(&e, 0, "tag", 2);
    e32(&e, op);
    e32(&e, 0);
    enc_resok(&e, op);
    e32(&e, OP_PUTROOTFH);
    e32(&e, 0);
    rc = dec_reply(e.b, e.n, NULL, NULL, false);
    if (rc != DECODE_OK || reply.ndecoded != 2 || reply.res[0].op != op ||
        reply.res[1].op != OP_PUTROOTFH || !reply.res[1].has_status || reply.first_error != -1) {
        fprintf(stderr, "op %u: reply rc %d ndecoded %u\n", op, rc, reply.ndecoded);
        bad++;
    }
    for (cut = 0; cut < e.n; cut++) {
        rc = dec_reply(e.b, cut, NULL, NULL, false);
        if (rc != DECODE_TRUNCATED || reply.ndecoded > 2 ||
            (reply.ndecoded == 2 && reply.res[1].has_status)) {
            fprintf(stderr, "op %u: reply cut at %zu: rc %d\n", op, cut, rc);
            bad++;
        }
    }
    /* A failed result: the status alone (or the arm it selects), then nothing. */
    reply_head(&e, 5, "", 1);
    e32(&e, op);
    e32(&e, 5); /* NFS4ERR_IO */
    if (op == OP_SETATTR)
        ebitmap2(&e, 0, 0); /* SETATTR4res: attrsset always */
    rc = dec_reply(e.b, e.n, NULL, NULL, false);
    if (rc != DECODE_OK || reply.ndecoded != 1 || reply.res[0].status != 5 ||
        reply.first_error != 0) {
        fprintf(stderr, "op %u: failed reply rc %d\n", op, rc);
        bad++;
    }
    return bad;
}

static void
test_every_op(void)
{
    unsigned bad = 0;
    size_t i;

    for (i = 0; i < NFWD; i++) {
        bad += one_call(fwd_ops[i]);
        bad += one_reply(fwd_ops[i]);
    }
    EQ(bad, 0);
}

static void
test_cb_every_op(void)
{
    unsigned bad = 0;
    uint32_t op;

    for (op = 3; op <= 16; op++) {
        uint32_t o = op == 16 ? OP_CB_ILLEGAL : op;
        struct enc e;
        size_t cut;
        enum decode_rc rc;

        e.n = 0;
        estr(&e, "cb");
        e32(&e, 1);
        e32(&e, 77); /* callback_ident */
        e32(&e, 2);
        e32(&e, o);
        enc_cb_args(&e, o);
        e32(&e, OP_CB_RECALL_SLOT);
        e32(&e, 3);
        rc = dec_call(e.b, e.n, NULL, true);
        if (rc != DECODE_OK || call.ndecoded != 2 || call.op[0].op != o || !call.cb ||
            call.callback_ident != 77 || call.op[1].u.seq.target_highest_slotid != 3) {
            fprintf(stderr, "cb op %u: call rc %d\n", o, rc);
            bad++;
        }
        for (cut = 0; cut < e.n; cut++)
            if (dec_call(e.b, cut, NULL, true) != DECODE_TRUNCATED) {
                fprintf(stderr, "cb op %u: cut at %zu\n", o, cut);
                bad++;
            }
        reply_head(&e, 0, "cb", 2);
        e32(&e, o);
        e32(&e, 0);
        enc_cb_resok(&e, o);
        e32(&e, OP_CB_RECALL_SLOT);
        e32(&e, 0);
        rc = dec_reply(e.b, e.n, NULL, &dig, true);
        if (rc != DECODE_OK || reply.ndecoded != 2 || reply.res[0].op != o) {
            fprintf(stderr, "cb op %u: reply rc %d\n", o, rc);
            bad++;
        }
        for (cut = 0; cut < e.n; cut++)
            if (dec_reply(e.b, cut, NULL, &dig, true) != DECODE_TRUNCATED) {
                fprintf(stderr, "cb op %u: reply cut at %zu\n", o, cut);
                bad++;
            }
    }
    EQ(bad, 0);
}

/* The fields the stats and findings use, op by op. */
static void
test_fields(void)
{
    struct enc e;
    const struct nfs4_argop *a;
    const struct nfs4_resop *r;

    /* SEQUENCE PUTFH WRITE GETATTR */
    call_head(&e, "", 1, 4);
    e32(&e, OP_SEQUENCE);
    enc_args(&e, OP_SEQUENCE);
    e32(&e, OP_PUTFH);
    enc_args(&e, OP_PUTFH);
    e32(&e, OP_WRITE);
    enc_args(&e, OP_WRITE);
    e32(&e, OP_GETATTR);
    enc_args(&e, OP_GETATTR);
    EQ(dec_call(e.b, e.n, NULL, false), DECODE_OK);
    EQ(call.minorversion, 1);
    EQ(call.nops, 4);
    a = &call.op[0];
    EQ(a->u.seq.sequenceid, 42);
    EQ(a->u.seq.slotid, 3);
    EQ(a->u.seq.highest_slotid, 7);
    CHECK(a->u.seq.cachethis);
    EQ(a->u.seq.sessionid[0], 0xa0);
    a = &call.op[2];
    EQ(a->offset, 8192);
    EQ(a->stable, DATA_SYNC4);
    EQ(a->count, 12);
    CHECK(a->data.len == 12);
    CHECK(a->has_stateid && a->stateid.other[0] == 0x66);
    EQ(call.op[3].bitmap[0], 0x0010011a);
    EQ(call.kind.n, 1);
    EQ(call.kind.op[0], OP_WRITE);
    CHECK(nfs4_call_main_op(&call) == &call.op[2]);
    EQ(call.gen[nfs4_call_main_op(&call)->fh_gen].fh.len, 28); /* the WRITE's file: PUTFH's */
    EQ(nfs4_call_cb_program(&call), 0);
    EQ(dig.stable, DATA_SYNC4);
    EQ(dig.offset, 8192);
    EQ(dig.count, 12);
    EQ(dig.putfh_own, 0); /* no pending call yet: nfs4_putfh_keep sets it */
    /* its reply */
    reply_head(&e, 0, "", 4);
    e32(&e, OP_SEQUENCE);
    e32(&e, 0);
    enc_resok(&e, OP_SEQUENCE);
    e32(&e, OP_PUTFH);
    e32(&e, 0);
    e32(&e, OP_WRITE);
    e32(&e, 0);
    enc_resok(&e, OP_WRITE);
    e32(&e, OP_GETATTR);
    e32(&e, 0);
    enc_resok(&e, OP_GETATTR);
    EQ(dec_reply(e.b, e.n, NULL, &dig, false), DECODE_OK);
    r = &reply.res[0];
    EQ(r->u.seq.highest_slotid, 63);
    EQ(r->u.seq.target_highest_slotid, 31);
    EQ(r->u.seq.status_flags, 0x20);
    r = &reply.res[2];
    EQ(r->count, 12);
    EQ(r->committed, FILE_SYNC4);
    CHECK(r->has_verf && r->verf[7] == 8);
    r = &reply.res[3];
    CHECK(r->has_attrs && r->attrs.walked);
    EQ(r->attrs.have, NFS4_ATTR_TYPE | NFS4_ATTR_CHANGE | NFS4_ATTR_SIZE | NFS4_ATTR_FILEID |
                          NFS4_ATTR_MTIME | NFS4_ATTR_CTIME);
    EQ(r->attrs.size, 4096);
    EQ(r->attrs.fileid, 0xabcdef);
    EQ(r->attrs.mtime_s, 200);
    EQ(r->attrs.mtime_ns, 9);
    EQ(r->attrs.ctime_s, 1700000000);
    EQ(reply.not_evaluated, 0);
    CHECK(!reply.ops_mismatch);
    /* the WRITE and GETATTR acted on the PUTFH handle */
    EQ(reply.res[2].fh_gen, reply.res[3].fh_gen);
    EQ(reply.gen[reply.res[2].fh_gen].set_by, 1); /* the PUTFH's */
    EQ(call.gen[call.op[2].fh_gen].fh.len, 28);

    /* OPEN: claim, share, owner; reply: write delegation */
    call_head(&e, "", 0, 1);
    e32(&e, OP_OPEN);
    enc_args(&e, OP_OPEN);
    EQ(dec_call(e.b, e.n, NULL, false), DECODE_OK);
    a = &call.op[0];
    EQ(a->u.open.share_access, 3);
    EQ(a->u.open.opentype, 1);
    EQ(a->u.open.createmode, 3);
    EQ(a->u.open.claim, CLAIM_NULL);
    CHECK(a->name.len == 7 && memcmp(a->name.p, "new.dat", 7) == 0);
    CHECK(a->owner.len == 10 && a->clientid == 0x99);
    reply_head(&e, 0, "", 1);
    e32(&e, OP_OPEN);
    e32(&e, 0);
    enc_resok(&e, OP_OPEN);
    EQ(dec_reply(e.b, e.n, NULL, &dig, false), DECODE_OK);
    r = &reply.res[0];
    EQ(r->u.open.delegation, OPEN_DELEGATE_WRITE);
    EQ(r->u.open.deleg_stateid.other[0], 0x71);
    EQ(r->u.open.rflags, 4);
    CHECK(r->has_stateid && r->stateid.other[0] == 0x70);
    /* OPEN_DELEGATE_NONE_EXT with why_no_delegation */
    reply_head(&e, 0, "", 1);
    e32(&e, OP_WANT_DELEGATION);
    e32(&e, 0);
    enc_resok(&e, OP_WANT_DELEGATION);
    EQ(dec_reply(e.b, e.n, NULL, NULL, false), DECODE_OK);
    EQ(reply.res[0].u.open.delegation, OPEN_DELEGATE_NONE_EXT);
    EQ(reply.res[0].u.open.why_none, 1);
    reply_head(&e, 0, "", 1);
    e32(&e, OP_OPEN);
    e32(&e, 0);
    estateid(&e, 1, 0x70);
    e32(&e, 1);
    e64(&e, 1);
    e64(&e, 2);
    e32(&e, 0);
    ebitmap2(&e, 0, 0);
    e32(&e, OPEN_DELEGATE_NONE_EXT);
    e32(&e, 3); /* WND4_NOT_SUPP_FTYPE: no bool */
    EQ(dec_reply(e.b, e.n, NULL, NULL, false), DECODE_OK);
    EQ(reply.res[0].u.open.why_none, 3);

    /* LOCK denied: owner, offset, length */
    reply_head(&e, NFS4ERR_DENIED, "", 1);
    e32(&e, OP_LOCK);
    e32(&e, NFS4ERR_DENIED);
    e64(&e, 100);
    e64(&e, 50);
    e32(&e, 2);
    eowner(&e, 0x1234, "other");
    EQ(dec_reply(e.b, e.n, NULL, NULL, false), DECODE_OK);
    r = &reply.res[0];
    EQ(r->offset, 100);
    EQ(r->length, 50);
    EQ(r->u.denied.locktype, 2);
    EQ(r->u.denied.clientid, 0x1234);
    CHECK(r->u.denied.owner.len == 5);
    EQ(reply.first_error, 0);

    /* SETCLIENTID: cb program; CLID_INUSE carries an address */
    call_head(&e, "", 0, 1);
    e32(&e, OP_SETCLIENTID);
    enc_args(&e, OP_SETCLIENTID);
    EQ(dec_call(e.b, e.n, NULL, false), DECODE_OK);
    EQ(call.op[0].u.cid.cb_program, 0x40000000);
    EQ(nfs4_call_cb_program(&call), 0x40000000);
    EQ(call.op[0].u.cid.callback_ident, 1);
    CHECK(call.op[0].name.len == 3 && call.op[0].name2.len == 15);
    reply_head(&e, NFS4ERR_CLID_INUSE, "", 1);
    e32(&e, OP_SETCLIENTID);
    e32(&e, NFS4ERR_CLID_INUSE);
    estr(&e, "tcp");
    estr(&e, "10.1.1.1.8.1");
    EQ(dec_reply(e.b, e.n, NULL, NULL, false), DECODE_OK);
    reply_head(&e, 0, "", 1);
    e32(&e, OP_SETCLIENTID);
    e32(&e, 0);
    enc_resok(&e, OP_SETCLIENTID);
    EQ(dec_reply(e.b, e.n, NULL, NULL, false), DECODE_OK);
    EQ(reply.res[0].u.cid.clientid, 0xc1d);

    /* EXCHANGE_ID and CREATE_SESSION */
    call_head(&e, "", 1, 2);
    e32(&e, OP_EXCHANGE_ID);
    enc_args(&e, OP_EXCHANGE_ID);
    e32(&e, OP_CREATE_SESSION);
    enc_args(&e, OP_CREATE_SESSION);
    EQ(dec_call(e.b, e.n, NULL, false), DECODE_OK);
    EQ(call.op[0].u.cid.flags, 0x101);
    EQ(call.op[0].u.cid.state_protect, 2);
    EQ(call.op[1].clientid, 0x1122);
    EQ(call.op[1].u.cs.fore.maxrequestsize, 1049620);
    EQ(call.op[1].u.cs.back.maxrequestsize, 4096);
    EQ(call.op[1].u.cs.fore.maxrequests, 64);
    EQ(call.op[1].u.cs.cb_program, 0x40000000);
    EQ(nfs4_call_cb_program(&call), 0x40000000);
    EQ(call.kind.n, 2);
    CHECK(nfs4_call_main_op(&call) == &call.op[0]);
    reply_head(&e, 0, "", 2);
    e32(&e, OP_EXCHANGE_ID);
    e32(&e, 0);
    enc_resok(&e, OP_EXCHANGE_ID);
    e32(&e, OP_CREATE_SESSION);
    e32(&e, 0);
    enc_resok(&e, OP_CREATE_SESSION);
    EQ(dec_reply(e.b, e.n, NULL, &dig, false), DECODE_OK);
    EQ(reply.res[0].u.cid.clientid, 0xc11e);
    EQ(reply.res[0].u.cid.flags, 0x10001);
    EQ(reply.res[1].u.cs.fore.maxresponsesize_cached, 3428);

    /* READ, READ_PLUS, COPY byte counts */
    reply_head(&e, 0, "", 3);
    e32(&e, OP_READ);
    e32(&e, 0);
    enc_resok(&e, OP_READ);
    e32(&e, OP_READ_PLUS);
    e32(&e, 0);
    enc_resok(&e, OP_READ_PLUS);
    e32(&e, OP_COPY);
    e32(&e, 0);
    enc_resok(&e, OP_COPY);
    EQ(dec_reply(e.b, e.n, NULL, NULL, false), DECODE_OK);
    EQ(reply.res[0].count, 9);
    CHECK(reply.res[0].eof);
    EQ(reply.res[1].count, 5);
    CHECK(reply.res[1].eof);
    EQ(reply.res[2].length, 1 << 20);
    EQ(reply.res[2].committed, FILE_SYNC4);
}

/* PUTFH/LOOKUP/GETFH/SAVEFH/RESTOREFH: which handle each op acted on. */
static void
test_fh_tracking(void)
{
    struct enc e;
    uint8_t g_dir, g_file;

    /* PUTFH dir; SAVEFH; LOOKUP a; GETFH; RESTOREFH; RENAME x y; GETATTR */
    call_head(&e, "", 0, 7);
    e32(&e, OP_PUTFH);
    efh(&e, 0x41, 20);
    e32(&e, OP_SAVEFH);
    e32(&e, OP_LOOKUP);
    estr(&e, "a");
    e32(&e, OP_GETFH);
    e32(&e, OP_RESTOREFH);
    e32(&e, OP_RENAME);
    estr(&e, "x");
    estr(&e, "y");
    e32(&e, OP_GETATTR);
    ebitmap2(&e, 0, 0);
    EQ(dec_call(e.b, e.n, NULL, false), DECODE_OK);
    g_dir = call.op[1].fh_gen;
    g_file = call.op[3].fh_gen;
    CHECK(g_dir != 0 && g_file != 0 && g_dir != g_file);
    EQ(call.op[5].fh_gen, g_dir);    /* RENAME target dir: restored */
    EQ(call.op[5].saved_gen, g_dir); /* source dir: saved */
    EQ(call.gen[g_dir].fh.len, 20);
    EQ(call.gen[g_file].fh.len, 0); /* only the reply's GETFH tells */
    EQ(call.gen[g_file].set_by, 2);
    EQ(call.kind.n, 2); /* LOOKUP and RENAME: tier 1 */
    EQ(call.kind.op[0], OP_LOOKUP);
    EQ(call.kind.op[1], OP_RENAME);
    reply_head(&e, 0, "", 7);
    e32(&e, OP_PUTFH);
    e32(&e, 0);
    e32(&e, OP_SAVEFH);
    e32(&e, 0);
    e32(&e, OP_LOOKUP);
    e32(&e, 0);
    e32(&e, OP_GETFH);
    e32(&e, 0);
    efh(&e, 0x42, 24);
    e32(&e, OP_RESTOREFH);
    e32(&e, 0);
    e32(&e, OP_RENAME);
    e32(&e, 0);
    enc_resok(&e, OP_RENAME);
    e32(&e, OP_GETATTR);
    e32(&e, 0);
    enc_resok(&e, OP_GETATTR);
    EQ(dec_reply(e.b, e.n, NULL, &dig, false), DECODE_OK);
    CHECK(reply.res[3].fh_gen != reply.res[2].fh_gen); /* GETFH: in the generation LOOKUP started */
    EQ(reply.gen[reply.res[3].fh_gen].set_by, 2);
    CHECK(reply.gen[reply.res[3].fh_gen].fh.len == 24);
    EQ(reply.gen[reply.res[6].fh_gen].set_by, 0); /* GETATTR: the restored dir, PUTFH's */
    EQ(reply.res[5].saved_gen, reply.res[6].fh_gen);

    /* PUTROOTFH GETFH GETATTR: kind is both tier-3 ops, as tshark's
     * "PUTROOTFH+GETATTR". */
    call_head(&e, "", 1, 4);
    e32(&e, OP_SEQUENCE);
    enc_args(&e, OP_SEQUENCE);
    e32(&e, OP_PUTROOTFH);
    e32(&e, OP_GETFH);
    e32(&e, OP_GETATTR);
    ebitmap2(&e, 0, 0);
    EQ(dec_call(e.b, e.n, NULL, false), DECODE_OK);
    {
        char b[64];
        STREQ(nfs4_kind_name(&call.kind, false, b, sizeof b), "putrootfh+getattr");
    }
}

/* The framing's edges: unknown op, ILLEGAL, minor version, not evaluated,
 * the bound, hostile lengths, the tail after WRITE data. */
static void
test_framing(void)
{
    struct enc e;
    uint32_t i;
    char b[64];

    /* unknown op ends the COMPOUND: named, counted, not fatal */
    call_head(&e, "", 0, 3);
    e32(&e, OP_PUTROOTFH);
    e32(&e, 999);
    e32(&e, OP_GETFH);
    EQ(dec_call(e.b, e.n, NULL, false), DECODE_OK);
    EQ(call.stop, NFS4_STOP_UNKNOWN);
    EQ(call.stop_op, 999);
    EQ(call.ndecoded, 2);
    EQ(call.kind.n, 1);
    EQ(call.kind.op[0], OP_PUTROOTFH);
    EQ(nfs4_digest_op(&dig, 1), 999);
    reply_head(&e, 10044, "", 2);
    e32(&e, OP_PUTROOTFH);
    e32(&e, 0);
    e32(&e, OP_ILLEGAL); /* the server answers an unknown op with OP_ILLEGAL */
    e32(&e, NFS4ERR_OP_ILLEGAL);
    EQ(dec_reply(e.b, e.n, NULL, &dig, false), DECODE_OK);
    EQ(reply.ndecoded, 2);
    CHECK(reply.ops_mismatch);
    EQ(reply.first_error, 1);
    EQ(reply.not_evaluated, 1);
    /* unknown op in a reply */
    reply_head(&e, 0, "", 2);
    e32(&e, 80);
    e32(&e, 0);
    e32(&e, OP_GETFH);
    EQ(dec_reply(e.b, e.n, NULL, NULL, false), DECODE_OK);
    EQ(reply.stop, NFS4_STOP_UNKNOWN);
    EQ(reply.stop_op, 80);

    /* ILLEGAL in a call: kind "illegal" (tier 0) */
    call_head(&e, "", 0, 2);
    e32(&e, OP_ILLEGAL);
    e32(&e, OP_WRITE);
    enc_args(&e, OP_WRITE);
    EQ(dec_call(e.b, e.n, NULL, false), DECODE_OK);
    STREQ(nfs4_kind_name(&call.kind, false, b, sizeof b), "illegal");

    /* minor version 7: MINOR_VERS_MISMATCH, no results, every op not evaluated */
    call_head(&e, "", 7, 2);
    e32(&e, OP_PUTROOTFH);
    e32(&e, OP_GETFH);
    EQ(dec_call(e.b, e.n, NULL, false), DECODE_OK);
    CHECK(call.minor_unknown);
    reply_head(&e, NFS4ERR_MINOR_VERS_MISMATCH, "", 0);
    EQ(dec_reply(e.b, e.n, NULL, &dig, false), DECODE_OK);
    EQ(reply.status, NFS4ERR_MINOR_VERS_MISMATCH);
    EQ(reply.not_evaluated, 2);
    EQ(reply.ndecoded, 0);

    /* ops not evaluated after the first failure */
    call_head(&e, "", 1, 5);
    e32(&e, OP_SEQUENCE);
    enc_args(&e, OP_SEQUENCE);
    e32(&e, OP_PUTFH);
    enc_args(&e, OP_PUTFH);
    e32(&e, OP_LOOKUP);
    enc_args(&e, OP_LOOKUP);
    e32(&e, OP_GETFH);
    e32(&e, OP_GETATTR);
    enc_args(&e, OP_GETATTR);
    EQ(dec_call(e.b, e.n, NULL, false), DECODE_OK);
    reply_head(&e, 2, "", 3);
    e32(&e, OP_SEQUENCE);
    e32(&e, 0);
    enc_resok(&e, OP_SEQUENCE);
    e32(&e, OP_PUTFH);
    e32(&e, 0);
    e32(&e, OP_LOOKUP);
    e32(&e, 2);
    EQ(dec_reply(e.b, e.n, NULL, &dig, false), DECODE_OK);
    EQ(reply.status, 2);
    EQ(reply.first_error, 2);
    EQ(reply.not_evaluated, 2);
    CHECK(!reply.ops_mismatch);
    EQ(nfs4_digest_op(&dig, 3), OP_GETFH);
    EQ(nfs4_digest_op(&dig, 4), OP_GETATTR);

    /* more ops than the bound: the rest counted */
    call_head(&e, "", 0, NFS4_OPS_MAX + 10);
    for (i = 0; i < NFS4_OPS_MAX + 10; i++)
        e32(&e, OP_GETFH);
    EQ(dec_call(e.b, e.n, NULL, false), DECODE_OK);
    EQ(call.stop, NFS4_STOP_BOUND);
    EQ(call.ndecoded, NFS4_OPS_MAX);
    EQ(call.ops_beyond, 10);
    EQ(dig.ops_beyond, 10);
    reply_head(&e, 0, "", NFS4_OPS_MAX + 10);
    for (i = 0; i < NFS4_OPS_MAX + 10; i++) {
        e32(&e, OP_GETFH);
        e32(&e, 10020); /* NOFILEHANDLE */
    }
    EQ(dec_reply(e.b, e.n, NULL, &dig, false), DECODE_OK);
    EQ(reply.stop, NFS4_STOP_BOUND);
    EQ(reply.res_beyond, 10);

    /* hostile counts: never a long loop, never a read past the end */
    call_head(&e, "", 0, 0xffffffffu);
    e32(&e, OP_GETFH);
    EQ(dec_call(e.b, e.n, NULL, false), DECODE_TRUNCATED);
    EQ(call.ndecoded, 1);
    call_head(&e, "", 0, 1);
    e32(&e, OP_GETATTR);
    e32(&e, 0x7fffffff); /* bitmap4 count */
    EQ(dec_call(e.b, e.n, NULL, false), DECODE_INVALID);
    call_head(&e, "", 0, 1);
    e32(&e, OP_PUTFH);
    e32(&e, 129); /* nfs_fh4 over NFS4_FHSIZE */
    for (i = 0; i < 33; i++)
        e32(&e, 0);
    EQ(dec_call(e.b, e.n, NULL, false), DECODE_INVALID);
    call_head(&e, "", 0, 1);
    e32(&e, OP_TEST_STATEID);
    e32(&e, 0x10000000); /* stateids<> */
    EQ(dec_call(e.b, e.n, NULL, false), DECODE_TRUNCATED);
    call_head(&e, "", 0, 1);
    e32(&e, OP_LOOKUP);
    e32(&e, 0xfffffffdu); /* component4 length */
    EQ(dec_call(e.b, e.n, NULL, false), DECODE_TRUNCATED);
    e.n = 0;
    e32(&e, 0xfffffff0u); /* tag length */
    EQ(dec_call(e.b, e.n, NULL, false), DECODE_TRUNCATED);
    EQ(call.stop, NFS4_STOP_MALFORMED);
    reply_head(&e, 0, "", 1);
    e32(&e, OP_READDIR);
    e32(&e, 0);
    enc_resok(&e, OP_GETATTR); /* garbage for READDIR: must stop, not loop */
    CHECK(dec_reply(e.b, e.n, NULL, NULL, false) != DECODE_OK);
    reply_head(&e, 0, "", 1);
    e32(&e, OP_OPEN);
    e32(&e, 0);
    estateid(&e, 1, 1);
    e32(&e, 1);
    e64(&e, 1);
    e64(&e, 2);
    e32(&e, 0);
    ebitmap2(&e, 0, 0);
    e32(&e, 9); /* no such open_delegation_type4 */
    EQ(dec_reply(e.b, e.n, NULL, NULL, false), DECODE_INVALID);
    /* a tag with hostile bytes is only a view */
    call_head(&e, "\x1b[2J\n", 0, 0);
    EQ(dec_call(e.b, e.n, NULL, false), DECODE_OK);
    EQ(call.tag.len, 5);

    /* WRITE data past the head: resume in the tail after the data */
    {
        struct enc full;
        struct nfs4_tail t;
        size_t head, data_at;
        call_head(&full, "", 0, 3);
        e32(&full, OP_PUTFH);
        enc_args(&full, OP_PUTFH);
        e32(&full, OP_WRITE);
        estateid(&full, 0, 0x66);
        e64(&full, 4096);
        e32(&full, UNSTABLE4);
        e32(&full, 4000);
        data_at = full.n;
        memset(full.b + full.n, 0x5a, 4000);
        full.n += 4000;
        e32(&full, OP_GETATTR);
        enc_args(&full, OP_GETATTR);
        head = data_at + 100; /* the head keeps 100 bytes of data */
        t.off = (uint32_t)(full.n - 40);
        t.b.p = full.b + t.off;
        t.b.len = 40;
        EQ(dec_call(full.b, head, &t, false), DECODE_OK);
        EQ(call.ndecoded, 3);
        CHECK(call.data_cut);
        EQ(call.op[1].count, 4000);
        EQ(call.op[1].data.len, 100);
        EQ(call.op[2].op, OP_GETATTR);
        EQ(call.op[2].bitmap[0], 0x0010011a);
        /* without a tail, or with one that starts after the data's end: TRUNCATED */
        EQ(dec_call(full.b, head, NULL, false), DECODE_TRUNCATED);
        t.off = (uint32_t)(full.n - 8);
        t.b.p = full.b + t.off;
        t.b.len = 8;
        EQ(dec_call(full.b, head, &t, false), DECODE_TRUNCATED);
        /* READ result data past the head, GETATTR after it */
        reply_head(&full, 0, "", 2);
        e32(&full, OP_READ);
        e32(&full, 0);
        e32(&full, 1);
        e32(&full, 3000);
        memset(full.b + full.n, 0x5a, 3000);
        full.n += 3000;
        e32(&full, OP_GETATTR);
        e32(&full, 0);
        enc_resok(&full, OP_GETATTR);
        t.off = (uint32_t)(full.n - 120);
        t.b.p = full.b + t.off;
        t.b.len = 120;
        EQ(dec_reply(full.b, 200, &t, NULL, false), DECODE_OK);
        CHECK(reply.data_cut);
        EQ(reply.res[0].count, 3000);
        CHECK(reply.res[0].eof);
        EQ(reply.res[1].attrs.size, 4096);
    }
}

/* GETATTR: the values the findings' digest is made of (nfs4_event.c),
 * each where efattr put it, time_access (47) walked past. */
static void
test_attr_values(void)
{
    struct enc e;
    const struct nfs4_attrs *a = &reply.res[0].attrs;

    reply_head(&e, 0, "", 1);
    e32(&e, OP_GETATTR);
    e32(&e, 0);
    efattr(&e, 10, 100, 200);
    EQ(dec_reply(e.b, e.n, NULL, NULL, false), DECODE_OK);
    CHECK(reply.res[0].has_attrs && a->walked);
    EQ(a->have, NFS4_ATTR_TYPE | NFS4_ATTR_CHANGE | NFS4_ATTR_SIZE | NFS4_ATTR_FILEID |
                    NFS4_ATTR_MTIME | NFS4_ATTR_CTIME);
    EQ(a->type, 1);
    EQ(a->change, 0x1234);
    EQ(a->size, 10);
    EQ(a->fileid, 0xabcdef);
    EQ(a->ctime_s, 1700000000);
    EQ(a->ctime_ns, 7);
    EQ(a->mtime_s, 200);
    EQ(a->mtime_ns, 9);
    /* an attribute this decoder does not know (bit 90): skipped exactly, not walked */
    reply_head(&e, 0, "", 2);
    e32(&e, OP_GETATTR);
    e32(&e, 0);
    e32(&e, 3);
    e32(&e, 1u << 1);
    e32(&e, 0);
    e32(&e, 1u << (90 - 64));
    e32(&e, 12);
    e32(&e, 2); /* type NF4DIR */
    e64(&e, 0);
    e32(&e, OP_GETFH);
    e32(&e, 0);
    efh(&e, 1, 8);
    EQ(dec_reply(e.b, e.n, NULL, NULL, false), DECODE_OK);
    CHECK(!reply.res[0].attrs.walked);
    EQ(reply.res[0].attrs.type, 2);
    EQ(reply.ndecoded, 2);
}

/* Structure sizes: growth must be deliberate. */
static void
test_sizes(void)
{
    printf("sizeof nfs4_digest %zu, nfs4_call %zu, nfs4_reply %zu, nfs4_argop %zu, "
           "nfs4_resop %zu\n",
           sizeof(struct nfs4_digest), sizeof(struct nfs4_call), sizeof(struct nfs4_reply),
           sizeof(struct nfs4_argop), sizeof(struct nfs4_resop));
    CHECK(sizeof(struct nfs4_digest) <= NFS4_DIGEST_BYTES);
}

/* --pcap FILE: write every op's call and reply (as test_every_op and
 * test_cb_every_op build them) into a capture, for tshark to decode
 * independently (tests/nfs4_tshark_test.py). One TCP connection to port
 * 2049 for COMPOUND, one from it for CB_COMPOUND (program 0x40000000). */
static FILE *pcap_out;
static uint32_t pcap_seq[2][2];

static void
put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void
pcap_rpc(unsigned conn, unsigned dir, const uint8_t *msg, size_t n)
{
    static uint32_t t;
    uint8_t f[20000], *ip = f + 14, *tcp = ip + 20;
    size_t len = 14 + 20 + 20 + 4 + n;
    uint32_t sum = 0, i, rm = 0x80000000u | (uint32_t)n;
    uint16_t client = (uint16_t)(800 + conn), server = conn ? 1023 : 2049;
    uint8_t rec[16];

    if (len > sizeof f)
        return;
    memset(f, 0, 54);
    f[12] = 0x08; /* IPv4 */
    ip[0] = 0x45;
    ip[2] = (uint8_t)((len - 14) >> 8);
    ip[3] = (uint8_t)(len - 14);
    ip[8] = 64;
    ip[9] = 6;
    ip[12] = 10, ip[15] = (uint8_t)(dir ? 2 : 1);
    ip[16] = 10, ip[19] = (uint8_t)(dir ? 1 : 2);
    for (i = 0; i < 20; i += 2)
        sum += (uint32_t)ip[i] << 8 | ip[i + 1];
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    ip[10] = (uint8_t)(~sum >> 8);
    ip[11] = (uint8_t)~sum;
    tcp[0] = (uint8_t)((dir ? server : client) >> 8);
    tcp[1] = (uint8_t)(dir ? server : client);
    tcp[2] = (uint8_t)((dir ? client : server) >> 8);
    tcp[3] = (uint8_t)(dir ? client : server);
    for (i = 0; i < 4; i++) {
        tcp[4 + i] = (uint8_t)(pcap_seq[conn][dir] >> (24 - 8 * i));
        tcp[8 + i] = (uint8_t)(pcap_seq[conn][!dir] >> (24 - 8 * i));
    }
    tcp[12] = 0x50;
    tcp[13] = 0x18;
    tcp[14] = 0xff;
    tcp[15] = 0xff;
    for (i = 0; i < 4; i++)
        f[54 + i] = (uint8_t)(rm >> (24 - 8 * i));
    memcpy(f + 58, msg, n);
    pcap_seq[conn][dir] += (uint32_t)(4 + n);
    put_le32(rec, 1700000000 + t / 1000);
    put_le32(rec + 4, (t % 1000) * 1000);
    put_le32(rec + 8, (uint32_t)len);
    put_le32(rec + 12, (uint32_t)len);
    t++;
    fwrite(rec, 1, 16, pcap_out);
    fwrite(f, 1, len, pcap_out);
}

/* RPC call header (AUTH_NONE) or accepted reply header, then the body. */
static void
pcap_msg(unsigned conn, bool is_reply, uint32_t xid, uint32_t prog, uint32_t vers,
         const struct enc *body)
{
    struct enc m;

    m.n = 0;
    e32(&m, xid);
    e32(&m, is_reply);
    if (!is_reply) {
        e32(&m, 2);
        e32(&m, prog);
        e32(&m, vers);
        e32(&m, 1); /* COMPOUND, CB_COMPOUND */
        e64(&m, 0); /* cred AUTH_NONE */
        e64(&m, 0); /* verf */
    } else {
        e32(&m, 0); /* MSG_ACCEPTED */
        e64(&m, 0); /* verf */
        e32(&m, 0); /* SUCCESS */
    }
    efixed(&m, body->b, body->n);
    pcap_rpc(conn, conn ? !is_reply : is_reply, m.b, m.n);
}

static int
write_pcap(const char *path)
{
    uint8_t gh[24] = { 0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0 };
    size_t i;
    uint32_t op;

    pcap_out = fopen(path, "wb");
    if (!pcap_out)
        return 1;
    put_le32(gh + 16, 65535);
    put_le32(gh + 20, 1);
    fwrite(gh, 1, sizeof gh, pcap_out);
    pcap_seq[0][0] = pcap_seq[1][0] = 1000;
    pcap_seq[0][1] = pcap_seq[1][1] = 9000;
    for (i = 0; i < NFWD; i++) {
        struct enc e;
        uint32_t o = fwd_ops[i];
        call_head(&e, "tag", 2, 2);
        e32(&e, o);
        enc_args(&e, o);
        e32(&e, OP_PUTROOTFH);
        pcap_msg(0, false, 0x1000 + (uint32_t)i, NFS4_PROGRAM, 4, &e);
        reply_head(&e, 0, "tag", 2);
        e32(&e, o);
        e32(&e, 0);
        enc_resok(&e, o);
        e32(&e, OP_PUTROOTFH);
        e32(&e, 0);
        pcap_msg(0, true, 0x1000 + (uint32_t)i, NFS4_PROGRAM, 4, &e);
    }
    for (op = 3; op <= 16; op++) {
        struct enc e;
        uint32_t o = op == 16 ? OP_CB_ILLEGAL : op;
        e.n = 0;
        estr(&e, "cb");
        e32(&e, 1);
        e32(&e, 77);
        e32(&e, 2);
        e32(&e, o);
        enc_cb_args(&e, o);
        e32(&e, OP_CB_RECALL_SLOT);
        e32(&e, 3);
        pcap_msg(1, false, 0x2000 + op, NFS4_CB_PROGRAM, 1, &e);
        reply_head(&e, 0, "cb", 2);
        e32(&e, o);
        e32(&e, 0);
        enc_cb_resok(&e, o);
        e32(&e, OP_CB_RECALL_SLOT);
        e32(&e, 0);
        pcap_msg(1, true, 0x2000 + op, NFS4_CB_PROGRAM, 1, &e);
    }
    return fclose(pcap_out) != 0;
}

/* A COMPOUND of more operations than NFS4_OPS_MAX through the program's
 * call and reply: the operations and results past the bound reach the
 * anomaly counters, as many as the hand-built message holds. */
static void
test_beyond_bound(void)
{
    static struct pending_call pc;
    static struct enc e;
    struct anomalies anom;
    struct op_sink sub = { NULL, NULL, NULL, &anom };
    struct op_event ev;
    struct xdr_cur x;
    uint32_t n, i;

    for (n = NFS4_OPS_MAX - 1; n <= NFS4_OPS_MAX + 7; n += 8) {
        memset(&anom, 0, sizeof anom);
        memset(&pc, 0, sizeof pc);
        pc.proc = NFSPROC4_COMPOUND;
        pc.stable = STABLE_NONE;
        call_head(&e, "beyond", 1, n); /* PUTROOTFH, then GETFHs */
        e32(&e, OP_PUTROOTFH);
        for (i = 1; i < n; i++)
            e32(&e, OP_GETFH);
        xdr_cur_init(&x, (struct bytes){ exact_copy(&call_buf, e.b, e.n), e.n });
        EQ(nfs4_program.call(&x, &pc, &sub), DECODE_OK);
        EQ(anom.n[ANOM_NFS4_OPS_BEYOND_BOUND], n > NFS4_OPS_MAX ? 7 : 0);
        reply_head(&e, 0, "beyond", n);
        e32(&e, OP_PUTROOTFH);
        e32(&e, 0);
        for (i = 1; i < n; i++) {
            e32(&e, OP_GETFH);
            e32(&e, 0);
            e32(&e, 4); /* nfs_fh4 of 4 bytes */
            e32(&e, 0x01020304);
        }
        memset(&ev, 0, sizeof ev);
        ev.stable = ev.committed = STABLE_NONE;
        xdr_cur_init(&x, (struct bytes){ exact_copy(&reply_buf, e.b, e.n), e.n });
        EQ(nfs4_program.reply(&x, &pc, &ev, &sub), DECODE_OK);
        EQ(anom.n[ANOM_NFS4_OPS_BEYOND_BOUND], n > NFS4_OPS_MAX ? 14 : 0);
    }
}

/* The handles a COMPOUND's PUTFHs set, kept from its call for its reply
 * (nfs4_putfh.c), through the program's call and reply: each result is
 * emitted with the handle current when it ran. An op of the list below is
 * its number, and for PUTFH the handle's fill byte and length (a LOOKUP:
 * its name's length); every result is NFS4_OK. */
struct kop {
    uint32_t op;
    uint8_t fill, len;
};

#define KOPS_MAX 24
static struct {
    unsigned n;
    uint8_t fill[KOPS_MAX], len[KOPS_MAX]; /* each result's handle: fill byte, length (0: none) */
} seen_fh;

static void
keep_emit(void *ctx, const struct op_item *it)
{
    size_t k;

    (void)ctx;
    if (it->phase != OPI_RESULT || it->index >= KOPS_MAX)
        return;
    for (k = 1; k < it->fh.len; k++)
        CHECK(it->fh.p[k] == it->fh.p[0]); /* one fill byte: the handle whole */
    seen_fh.fill[it->index] = it->fh.len ? it->fh.p[0] : 0;
    seen_fh.len[it->index] = (uint8_t)it->fh.len;
    seen_fh.n++;
}

/* Run ops through call and reply; *lost: the nfs4_fh_not_kept anomalies. */
static void
keep_run(const struct kop *ops, unsigned n, struct pending_call *pc, uint64_t *lost)
{
    static struct enc e;
    static char name[256];
    struct anomalies anom;
    struct op_sink sub = { keep_emit, NULL, NULL, &anom };
    struct op_event ev;
    struct xdr_cur x;
    unsigned i;

    memset(&anom, 0, sizeof anom);
    memset(&seen_fh, 0, sizeof seen_fh);
    memset(pc, 0, sizeof *pc);
    pc->proc = NFSPROC4_COMPOUND;
    pc->stable = STABLE_NONE;
    call_head(&e, "keep", 1, n);
    for (i = 0; i < n; i++) {
        e32(&e, ops[i].op);
        if (ops[i].op == OP_PUTFH)
            efh(&e, ops[i].fill, ops[i].len);
        else if (ops[i].op == OP_LOOKUP) {
            memset(name, 'n', ops[i].len);
            name[ops[i].len] = 0;
            estr(&e, name);
        } else if (ops[i].op != OP_SAVEFH && ops[i].op != OP_RESTOREFH)
            enc_args(&e, ops[i].op);
    }
    xdr_cur_init(&x, (struct bytes){ exact_copy(&call_buf, e.b, e.n), e.n });
    EQ(nfs4_program.call(&x, pc, &sub), DECODE_OK);
    *lost = anom.n[ANOM_NFS4_FH_NOT_KEPT];
    free(call_buf); /* the call's bytes are gone when its reply comes */
    call_buf = NULL;
    reply_head(&e, 0, "keep", n);
    for (i = 0; i < n; i++) {
        e32(&e, ops[i].op);
        e32(&e, 0);
        enc_resok(&e, ops[i].op);
    }
    memset(&ev, 0, sizeof ev);
    ev.stable = ev.committed = STABLE_NONE;
    xdr_cur_init(&x, (struct bytes){ exact_copy(&reply_buf, e.b, e.n), e.n });
    EQ(nfs4_program.reply(&x, pc, &ev, &sub), DECODE_OK);
    EQ(seen_fh.n, n);
    EQ(anom.n[ANOM_NFS4_FH_NOT_KEPT], *lost); /* the reply loses nothing more */
}

/* Each result's handle: want[i] is the fill byte of the handle op i ran
 * with (0: none), of length len[want] (the fills' lengths). */
static void
keep_expect(const uint8_t *want, unsigned n, const uint8_t *len_of_fill)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        EQ(seen_fh.fill[i], want[i]);
        EQ(seen_fh.len[i], want[i] ? len_of_fill[want[i]] : 0);
    }
}

static void
test_putfh_keep(void)
{
    static struct pending_call pc;
    static uint8_t len[256];
    uint64_t lost;
    unsigned i;

    for (i = 0; i < 256; i++)
        len[i] = (uint8_t)(16 + (i & 7) * 4);
    {   /* six distinct handles, SEQUENCE first; READ on the last (the call's own) */
        static const struct kop ops[] = {
            { OP_SEQUENCE, 0, 0 }, { OP_PUTFH, 0xa1, 20 }, { OP_GETATTR, 0, 0 },
            { OP_PUTFH, 0xa2, 24 }, { OP_GETATTR, 0, 0 }, { OP_PUTFH, 0xa3, 28 },
            { OP_GETATTR, 0, 0 }, { OP_PUTFH, 0xa4, 32 }, { OP_GETATTR, 0, 0 },
            { OP_PUTFH, 0xa5, 36 }, { OP_GETATTR, 0, 0 }, { OP_PUTFH, 0xa6, 40 },
            { OP_READ, 0, 0 },
        };
        static const uint8_t want[] = { 0, 0, 0xa1, 0xa1, 0xa2, 0xa2, 0xa3, 0xa3, 0xa4, 0xa4,
                                        0xa5, 0xa5, 0xa6 };
        keep_run(ops, 13, &pc, &lost);
        keep_expect(want, 13, len);
        EQ(lost, 0);
        EQ(dig.putfh_own, 0); /* (dig is the decode tests'; the program's is pc.priv) */
        EQ(((struct nfs4_digest *)pc.priv)->putfh_own, 1u << 11);
        EQ(((struct nfs4_digest *)pc.priv)->fh_pool, 5 * 3 + 20 + 24 + 28 + 32 + 36);
    }
    {   /* SAVEFH/RESTOREFH among them; a handle named twice is kept once */
        static const struct kop ops[] = {
            { OP_PUTFH, 0xb1, 20 }, { OP_SAVEFH, 0, 0 }, { OP_PUTFH, 0xb2, 24 },
            { OP_GETATTR, 0, 0 }, { OP_RESTOREFH, 0, 0 }, { OP_GETATTR, 0, 0 },
            { OP_PUTFH, 0xb2, 24 }, { OP_SAVEFH, 0, 0 }, { OP_PUTFH, 0xb3, 28 },
            { OP_WRITE, 0, 0 }, { OP_RESTOREFH, 0, 0 }, { OP_GETATTR, 0, 0 },
        };
        static const uint8_t want[] = { 0, 0xb1, 0xb1, 0xb2, 0xb2, 0xb1, 0xb1, 0xb2, 0xb2,
                                        0xb3, 0xb3, 0xb2 };
        keep_run(ops, 12, &pc, &lost);
        keep_expect(want, 12, len);
        EQ(lost, 0);
        /* WRITE ran with a saved handle (b2): kept as the second handle,
         * both PUTFHs of b2 point at it */
        EQ(pc.fh2_len, 24);
        EQ(((struct nfs4_digest *)pc.priv)->fh_pool, 3 + 20 + 3 + 3);
    }
    {   /* a handle named again points at its first copy */
        static const struct kop ops[] = {
            { OP_PUTFH, 0xa1, 20 }, { OP_GETATTR, 0, 0 }, { OP_PUTFH, 0xa2, 24 },
            { OP_GETATTR, 0, 0 }, { OP_PUTFH, 0xa1, 20 }, { OP_GETATTR, 0, 0 },
            { OP_PUTFH, 0xa3, 28 }, { OP_READ, 0, 0 },
        };
        static const uint8_t want[] = { 0, 0xa1, 0xa1, 0xa2, 0xa2, 0xa1, 0xa1, 0xa3 };
        keep_run(ops, 8, &pc, &lost);
        keep_expect(want, 8, len);
        EQ(((struct nfs4_digest *)pc.priv)->fh_pool, 3 + 20 + 3 + 24 + 3);
    }
    {   /* RENAME: the saved source directory is the call's own handle, the
         * target directory its second one: nothing more to copy */
        static const struct kop ops[] = {
            { OP_PUTFH, 0xc1, 20 }, { OP_SAVEFH, 0, 0 }, { OP_PUTFH, 0xc2, 24 },
            { OP_RENAME, 0, 0 }, { OP_GETATTR, 0, 0 }, { OP_RESTOREFH, 0, 0 },
            { OP_GETATTR, 0, 0 },
        };
        static const uint8_t want[] = { 0, 0xc1, 0xc1, 0xc2, 0xc2, 0xc2, 0xc1 };
        keep_run(ops, 7, &pc, &lost);
        keep_expect(want, 7, len);
        EQ(pc.fh_len, 20);
        EQ(pc.fh2_len, 24);
        EQ(((struct nfs4_digest *)pc.priv)->fh_pool, 3); /* an entry pointing at fh2 */
    }
    {   /* LOOKUP and OPEN start handles the call does not carry: their
         * GETATTRs ran with no known handle */
        static const struct kop ops[] = {
            { OP_PUTFH, 0xd1, 20 }, { OP_LOOKUP, 0, 1 }, { OP_GETATTR, 0, 0 },
            { OP_PUTFH, 0xd2, 24 }, { OP_OPEN, 0, 0 }, { OP_GETATTR, 0, 0 },
            { OP_PUTFH, 0xd3, 28 }, { OP_GETATTR, 0, 0 },
        };
        static const uint8_t want[] = { 0, 0xd1, 0, 0, 0xd2, 0, 0, 0xd3 };
        keep_run(ops, 8, &pc, &lost);
        keep_expect(want, 8, len);
        EQ(lost, 0);
    }
    for (i = 0; i < 256; i++)
        len[i] = NFS4_FHSIZE;
    {   /* handles of 128 bytes: after the first (3 + 128 of the 255
         * bytes), those not the call's own find no room, each counted */
        static const struct kop ops[] = {
            { OP_PUTFH, 0xe1, 128 }, { OP_GETATTR, 0, 0 }, { OP_PUTFH, 0xe2, 128 },
            { OP_GETATTR, 0, 0 }, { OP_PUTFH, 0xe3, 128 }, { OP_GETATTR, 0, 0 },
            { OP_PUTFH, 0xe4, 128 }, { OP_READ, 0, 0 }, { OP_PUTFH, 0xe2, 128 },
            { OP_GETATTR, 0, 0 },
        };
        static const uint8_t want[] = { 0, 0xe1, 0xe1, 0, 0, 0, 0, 0xe4, 0xe4, 0 };
        keep_run(ops, 10, &pc, &lost);
        keep_expect(want, 10, len);
        EQ(lost, 3); /* e2, e3, e2 again */
        EQ(((struct nfs4_digest *)pc.priv)->fh_pool, 3 + 128);
    }
    {   /* a name of 255 bytes leaves no room at all */
        static const struct kop ops[] = {
            { OP_PUTFH, 0xf1, 128 }, { OP_LOOKUP, 0, 255 }, { OP_PUTFH, 0xf2, 128 },
            { OP_GETATTR, 0, 0 },
        };
        static const uint8_t want[] = { 0, 0xf1, 0, 0 };
        keep_run(ops, 4, &pc, &lost);
        keep_expect(want, 4, len);
        EQ(pc.name_len, 255);
        EQ(lost, 1);
    }
}

int
main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--pcap") == 0)
        return write_pcap(argv[2]);
    test_names();
    test_tiers();
    test_every_op();
    test_cb_every_op();
    test_fields();
    test_fh_tracking();
    test_framing();
    test_attr_values();
    test_sizes();
    test_beyond_bound();
    test_putfh_keep();
    free(call_buf);
    free(reply_buf);
    return t_done();
}
