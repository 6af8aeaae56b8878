/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs4_event_test.c: nfs4_event_fill on COMPOUNDs encoded from the RFC
 * 8881 XDR (nfs4_test.h): whose attributes a GETATTR gives (the main
 * operation's file, or the object an OPEN or LOOKUP named), the GETFH
 * handle of that object, ACCESS masks, verifiers, the modifying flags of the
 * operations that succeeded, the main operation's own status, SEQUENCE
 * slots, the conflicting lock of a denied LOCK, the delegation of an OPEN. */
#include <stdlib.h>
#include <string.h>

#include "nfs4.h"
#include "nfs4_test.h"
#include "stats.h"
#include "t.h"
#include "xdr_cur.h"

static struct nfs4_call call;
static struct nfs4_reply reply;
static struct nfs4_digest dig;
static struct enc ce, re;

/* Decode ce as the call and re as its reply, and fill ev. */
static void
run(struct op_event *ev)
{
    struct xdr_cur x;
    struct bytes b;

    b.p = ce.b;
    b.len = ce.n;
    xdr_cur_init(&x, b);
    EQ(nfs4_compound_call(&x, NULL, &call), DECODE_OK);
    nfs4_digest_make(&call, &dig);
    b.p = re.b;
    b.len = re.n;
    xdr_cur_init(&x, b);
    EQ(nfs4_compound_reply(&x, NULL, &dig, &reply), DECODE_OK);
    memset(ev, 0, sizeof *ev);
    nfs4_event_fill(&dig, &reply, ev);
}

static void
call_ops(const uint32_t *ops, unsigned n)
{
    unsigned i;

    ce.n = 0;
    estr(&ce, "t");
    e32(&ce, 1);
    e32(&ce, n);
    for (i = 0; i < n; i++) {
        e32(&ce, ops[i]);
        enc_args(&ce, ops[i]);
    }
}

/* The reply: every op NFS4_OK up to `fail` (its status `st`), nothing after. */
static void
reply_ops(const uint32_t *ops, unsigned n, unsigned fail, uint32_t st)
{
    unsigned i, nres = fail < n ? fail + 1 : n;

    re.n = 0;
    e32(&re, fail < n ? st : 0);
    estr(&re, "t");
    e32(&re, nres);
    for (i = 0; i < nres; i++) {
        e32(&re, ops[i]);
        if (i == fail) {
            e32(&re, st);
            if (st == NFS4ERR_DENIED) { /* LOCK4denied */
                e64(&re, 4096);
                e64(&re, 512);
                e32(&re, 2); /* WRITE_LT */
                eowner(&re, 0x42, "holder");
            }
        } else {
            e32(&re, 0);
            enc_resok(&re, ops[i]);
        }
    }
}

static void
test_open_by_name(void)
{
    static const uint32_t ops[] = { OP_SEQUENCE, OP_PUTFH, OP_OPEN, OP_GETFH, OP_GETATTR };
    struct op_event ev;

    call_ops(ops, 5);
    reply_ops(ops, 5, 99, 0);
    run(&ev);
    CHECK(ev.v4.main_done);
    EQ(ev.v4.main_status, 0);
    EQ(ev.v4.fail_op, 0);
    /* the GETATTR after OPEN is the opened file's: the object, not the directory */
    CHECK(!ev.attr.valid);
    CHECK(ev.obj_attr.valid);
    EQ(ev.obj_attr.type, 1);
    EQ(ev.obj_fh.len, 36); /* enc_resok's GETFH handle */
    EQ(ev.obj_fh.p[0], 0x62);
    EQ(ev.v4.deleg, OPEN_DELEGATE_WRITE + 1);
    CHECK(ev.v4.has_seq);
    EQ(ev.v4.slot, 3);
    EQ(ev.v4.highest_slot, 63);
    EQ(ev.v4.target_slot, 31);
}

static void
test_getattr_and_write(void)
{
    static const uint32_t ga[] = { OP_SEQUENCE, OP_PUTFH, OP_GETATTR };
    static const uint32_t wr[] = { OP_SEQUENCE, OP_PUTFH, OP_WRITE, OP_GETATTR };
    struct op_event ev, ev2;

    call_ops(ga, 3);
    reply_ops(ga, 3, 99, 0);
    run(&ev);
    CHECK(ev.attr.valid); /* the main operation's own file */
    CHECK(!ev.obj_attr.valid);
    EQ(ev.opf, 0);
    call_ops(wr, 4);
    reply_ops(wr, 4, 99, 0);
    run(&ev2);
    CHECK(ev2.attr.valid); /* post-op attributes of the written file */
    /* the same change attribute, whatever else the two GETATTRs carried */
    EQ(ev2.attr.digest, ev.attr.digest);
    CHECK(ev2.opf & OPF_MOD_DATA);
    CHECK(ev2.has_verf);
    EQ(ev2.offset, 8192); /* the WRITE's offset (enc_args) */
}

/* Nothing reads the attributes (the findings are off: op_event.no_attrs):
 * the event carries none, nor the session's digest; the rest as before. */
static void
test_no_attrs(void)
{
    static const uint32_t ga[] = { OP_SEQUENCE, OP_PUTFH, OP_GETATTR };
    struct op_event ev;

    call_ops(ga, 3);
    reply_ops(ga, 3, 99, 0);
    run(&ev);
    CHECK(ev.attr.valid);
    CHECK(ev.v4.session != 0);
    memset(&ev, 0, sizeof ev);
    ev.no_attrs = true;
    nfs4_event_fill(&dig, &reply, &ev);
    CHECK(!ev.attr.valid && !ev.obj_attr.valid);
    EQ(ev.v4.session, 0); /* the findings' digest of the session */
    CHECK(ev.v4.main_done && ev.v4.has_seq);
}

static void
test_failures(void)
{
    static const uint32_t lk[] = { OP_SEQUENCE, OP_PUTFH, OP_LOOKUP, OP_GETFH, OP_GETATTR };
    static const uint32_t lock[] = { OP_SEQUENCE, OP_PUTFH, OP_LOCK };
    static const uint32_t wr[] = { OP_SEQUENCE, OP_PUTFH, OP_WRITE };
    struct op_event ev;

    call_ops(lk, 5);
    reply_ops(lk, 5, 2, 2); /* LOOKUP: NFS4ERR_NOENT */
    run(&ev);
    CHECK(ev.v4.main_done);
    EQ(ev.v4.main_status, 2);
    EQ(ev.v4.fail_op, OP_LOOKUP);
    CHECK(!ev.obj_fh.len);
    reply_ops(lk, 5, 0, 10052); /* SEQUENCE: NFS4ERR_BADSESSION, LOOKUP not evaluated */
    run(&ev);
    CHECK(!ev.v4.main_done);
    EQ(ev.v4.fail_op, OP_SEQUENCE);
    CHECK(!ev.v4.has_seq);
    call_ops(lock, 3);
    reply_ops(lock, 3, 2, NFS4ERR_DENIED);
    run(&ev);
    EQ(ev.v4.main_status, NFS4ERR_DENIED);
    EQ(ev.v4.lock_off, 4096);
    EQ(ev.v4.lock_len, 512);
    EQ(ev.v4.lock_type, 2);
    CHECK(ev.v4.lock_owner != 0);
    call_ops(wr, 3);
    reply_ops(wr, 3, 2, 10013); /* WRITE: NFS4ERR_GRACE: nothing changed */
    run(&ev);
    EQ(ev.opf, 0);
    CHECK(!ev.has_verf);
}

static void
test_readdir_access(void)
{
    static const uint32_t rd[] = { OP_SEQUENCE, OP_PUTFH, OP_READDIR };
    static const uint32_t ac[] = { OP_SEQUENCE, OP_PUTFH, OP_ACCESS, OP_GETATTR };
    struct op_event ev;

    call_ops(rd, 3);
    reply_ops(rd, 3, 99, 0);
    run(&ev);
    EQ(ev.dir_entries, 2);
    CHECK(ev.dir_eof);
    CHECK(ev.v4.dir_attrs); /* the first entry carries type, change, size, times */
    call_ops(ac, 4);
    reply_ops(ac, 4, 99, 0);
    run(&ev);
    EQ(ev.access_req, 0x1f);
    EQ(ev.access_granted, 0x0f);
    CHECK(ev.attr.valid);
}

int
main(void)
{
    test_open_by_name();
    test_getattr_and_write();
    test_no_attrs();
    test_failures();
    test_readdir_access();
    return t_done();
}
