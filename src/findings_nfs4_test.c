/* SPDX-License-Identifier: BSD-3-Clause */
/* findings_nfs4_test.c: the findings on hand-built NFSv4 COMPOUND events,
 * as dissectors/nfs4.c and nfs4_event.c fill them (kind = the main
 * operation's, status = the first failing operation's, struct op_nfs4),
 * with the negative cases: a GETATTR riding in an OPEN or WRITE COMPOUND is
 * not a revalidation, UNSTABLE4 writes are not stable, a LOOKUP COMPOUND
 * failing in its SEQUENCE is not a failed lookup, a DELEGRETURN of a
 * delegation never recalled is no recall. */
#include "findings.h"

#include <string.h>

#include "dissector.h"
#include "nfs4.h"
#include "stats.h"
#include "t.h"

extern const struct rpc_program nfs4_program; /* its operation table: kinds and flags */
static struct flow_key key1; /* client 10.0.0.1 -> server 10.0.0.2 */
static struct flow_key key2; /* client 10.0.0.3 -> server 10.0.0.2 */

static const uint8_t FH_D[8] = "dir-D..", FH_F[8] = "file-F.";

static struct bytes
B(const uint8_t *p)
{
    struct bytes b = { p, 8 };
    return b;
}

/* An answered COMPOUND at t_ms (reply 1 ms later) whose main operation is
 * `op`, all of it NFS4_OK, on fh (PUTFH). */
static struct op_event
cpd(uint32_t op, unsigned t_ms, const uint8_t *fh)
{
    struct op_event ev;
    const struct rpc_op *t = nfs4_op(op);

    memset(&ev, 0, sizeof ev);
    ev.pg = &nfs4_program;
    ev.prog = 100003;
    ev.vers = 4;
    ev.proc = NFSPROC4_COMPOUND;
    ev.minor = 1;
    ev.kind = t->kind;
    ev.opf = t->flags & (OPF_MOD_DATA | OPF_MOD_META);
    ev.has_main_ops = true;
    ev.main_ops = nfs4_op_pack(op);
    ev.t_call.tv_sec = 1000 + t_ms / 1000;
    ev.t_call.tv_nsec = (long)(t_ms % 1000) * 1000000;
    ev.t_reply = ev.t_call;
    ev.t_reply.tv_nsec += 1000000;
    ev.outcome = OP_REPLIED;
    ev.has_status = true;
    ev.stable = ev.committed = STABLE_NONE;
    ev.key = &key1;
    ev.uid = 1000;
    ev.v4.main_done = true;
    ev.v4.has_seq = true;
    ev.v4.highest_slot = ev.v4.target_slot = 7;
    if (fh)
        ev.fh = B(fh);
    return ev;
}

/* ev names `name` in its directory (LOOKUP, OPEN by name). */
static struct op_event
named(struct op_event ev, const char *name)
{
    ev.name.p = (const uint8_t *)name;
    ev.name.len = strlen(name);
    return ev;
}

/* OPEN of "f" in D at t_ms, answered with F and no delegation. */
static struct op_event
open_f(unsigned t_ms)
{
    struct op_event ev = named(cpd(OP_OPEN, t_ms, FH_D), "f");

    ev.obj_fh = B(FH_F);
    ev.v4.deleg = OPEN_DELEGATE_NONE + 1;
    return ev;
}

/* The COMPOUND failed with status at its operation `at` (the main one, or
 * an earlier one: then the main operation has no result). */
static struct op_event
failed(struct op_event ev, uint32_t status, bool at_main)
{
    ev.status = status;
    ev.v4.fail_op = at_main ? (uint8_t)ev.main_ops : nfs4_op_pack(OP_SEQUENCE);
    ev.v4.main_done = at_main;
    ev.v4.main_status = at_main ? status : 0;
    return ev;
}

static struct op_attr
change(uint64_t digest)
{
    struct op_attr a = { true, 1, digest, 0 };
    return a;
}

static void
feed(struct findings *f, struct op_event ev)
{
    findings_record(f, &ev);
}

static struct op_event
write4(unsigned t, uint8_t stable)
{
    struct op_event ev = cpd(OP_WRITE, t, FH_F);

    ev.stable = stable;
    ev.committed = FILE_SYNC4;
    ev.write_bytes = 4096;
    ev.attr = change(0xc1); /* the WRITE COMPOUND's post-op GETATTR */
    return ev;
}

/* UNSTABLE4 is not a stable write; DATA_SYNC4 and FILE_SYNC4 are, by the
 * client's stable_how (RFC 8881 §18.32.3). */
static void
test_stable_writes(void)
{
    struct findings *f = findings_new(1024, 3, 9);

    feed(f, write4(0, UNSTABLE4));
    feed(f, write4(10, UNSTABLE4));
    feed(f, write4(20, DATA_SYNC4));
    feed(f, write4(30, FILE_SYNC4));
    feed(f, cpd(OP_COMMIT, 40, FH_F));
    EQ(f->writes, 4);
    EQ(f->n[FK_STABLE_WRITES], 2);
    EQ(f->stable[STABLE_DATA_SYNC], 1);
    EQ(f->stable[STABLE_FILE_SYNC], 1);
    EQ(f->commits, 1);
    EQ(f->nfs3_calls, 5);
    /* the NFSv3 what-if model does not see NFSv4 */
    EQ(findings_estimate(f, SC_DEFAULTS, OPK_WRITE), 0);
    findings_free(f);
}

/* Only a COMPOUND whose kind is GETATTR is a revalidation: the GETATTRs in
 * OPEN and WRITE COMPOUNDs are post-operation attributes (they are held,
 * never counted), and a WRITE from any client in between ends the window. */
static void
test_redundant_getattr(void)
{
    struct findings *f = findings_new(1024, 3, 9);
    struct op_event ev;

    /* OPEN by name in D: the file F comes back with its attributes, twice */
    ev = open_f(0);
    ev.obj_attr = change(0xa1);
    feed(f, ev);
    ev.t_call.tv_nsec += 10000000;
    ev.t_reply.tv_nsec += 10000000;
    feed(f, ev);
    EQ(f->getattr, 0);
    EQ(f->n[FK_REDUNDANT_GETATTR], 0);
    /* a GETATTR COMPOUND with the same change attribute: redundant */
    ev = cpd(OP_GETATTR, 100, FH_F);
    ev.attr = change(0xa1);
    feed(f, ev);
    ev = cpd(OP_GETATTR, 200, FH_F);
    ev.attr = change(0xa1);
    feed(f, ev);
    EQ(f->getattr, 2);
    EQ(f->n[FK_REDUNDANT_GETATTR], 2);
    /* a WRITE in between (its own GETATTR is not a GETATTR COMPOUND) */
    feed(f, write4(300, UNSTABLE4));
    EQ(f->getattr, 2);
    ev = cpd(OP_GETATTR, 400, FH_F);
    ev.attr = change(0xc1);
    feed(f, ev);
    EQ(f->n[FK_REDUNDANT_GETATTR], 3); /* held from the WRITE's reply, nothing since */
    ev = cpd(OP_GETATTR, 500, FH_F);
    ev.attr = change(0xc2); /* changed: not redundant */
    feed(f, ev);
    EQ(f->n[FK_REDUNDANT_GETATTR], 3);
    /* ACCESS COMPOUNDs: the same answer again */
    ev = cpd(OP_ACCESS, 600, FH_F);
    ev.access_req = ev.access_granted = 0x1f;
    feed(f, ev);
    ev = cpd(OP_ACCESS, 700, FH_F);
    ev.access_req = ev.access_granted = 0x1f;
    feed(f, ev);
    EQ(f->n[FK_REDUNDANT_ACCESS], 1);
    findings_free(f);
}

/* LOOKUP or OPEN answered NFS4ERR_NOENT by that operation, per directory
 * and name; a COMPOUND that failed before its LOOKUP is no failed lookup. */
static void
test_negative_lookups(void)
{
    struct findings *f = findings_new(1024, 3, 9);
    struct op_event ev;
    unsigned i;

    for (i = 0; i < 3; i++) {
        ev = named(failed(cpd(OP_LOOKUP, i * 10, FH_D), 2, true), "missing.conf");
        feed(f, ev);
    }
    ev = named(failed(cpd(OP_OPEN, 100, FH_D), 2, true), "absent.txt");
    feed(f, ev);
    /* BADSESSION in SEQUENCE */
    ev = named(failed(cpd(OP_LOOKUP, 200, FH_D), 10052, false), "other");
    feed(f, ev);
    ev = named(failed(cpd(OP_OPEN, 300, FH_D), 10013, true), "x"); /* GRACE: not a lookup */
    feed(f, ev);
    EQ(f->n[FK_NEGATIVE_LOOKUPS], 4);
    EQ(f->nneg, 2);
    EQ(f->neg[0].n, 3);
    EQ(f->neg[1].n, 1);
    EQ(f->lookups, 4);
    EQ(f->opens_by_name, 2);
    findings_free(f);
}

static struct op_event
lock4(uint32_t op, unsigned t, bool denied)
{
    struct op_event ev = cpd(op, t, FH_F);

    if (denied) {
        ev = failed(ev, NFS4ERR_DENIED, true);
        ev.v4.lock_type = 2;
        ev.v4.lock_off = 0;
        ev.v4.lock_len = 4096;
        ev.v4.lock_owner = 0xabc1;
        ev.v4.lock_clientid = 0x6b0f2fd700000002ULL;
        ev.v4.lock_holder.p = (const uint8_t *)"lock-A";
        ev.v4.lock_holder.len = 6;
    }
    return ev;
}

/* LOCK denied is the instance; LOCKT polls are evidence; the wait runs
 * from the first denied LOCK's call to the granting LOCK's reply. */
static void
test_locks(void)
{
    struct findings *f = findings_new(1024, 3, 9);

    feed(f, lock4(OP_LOCKT, 0, true));
    feed(f, lock4(OP_LOCK, 100, true));
    feed(f, lock4(OP_LOCKT, 200, true));
    feed(f, lock4(OP_LOCK, 300, false)); /* granted */
    feed(f, lock4(OP_LOCK, 400, false)); /* uncontended */
    EQ(f->n[FK_LOCK_CONTENTION], 1);
    EQ(f->v4.lock, 3);
    EQ(f->v4.lock_denied, 1);
    EQ(f->v4.lockt, 2);
    EQ(f->v4.lockt_denied, 2);
    EQ(f->v4.lock_retries, 1);
    EQ(f->v4.granted_after_wait, 1);
    EQ(f->v4.wait_us, 201000); /* 100 ms call .. 301 ms reply */
    EQ(f->v4.nlocks, 1);
    EQ(f->v4.locks[0].n, 3);
    /* the holder the server named: clientid and owner, the range */
    EQ(f->v4.locks[0].clientid, 0x6b0f2fd700000002ULL);
    EQ(f->v4.locks[0].holder_len, 6);
    CHECK(memcmp(f->v4.locks[0].holder, "lock-A", 6) == 0);
    CHECK(!f->v4.locks[0].holder_cut && !f->v4.locks[0].nlm);
    EQ(f->v4.locks[0].off, 0);
    EQ(f->v4.locks[0].len, 4096);
    EQ(f->v4.locks[0].type, 2);
    EQ(f->cost_us[FK_LOCK_CONTENTION], 3000); /* the denied calls' time, not the wait */
    findings_free(f);
}

/* Eight OPENs answered NFS4ERR_GRACE, the ninth granted: eight instances,
 * the time lost runs from the first try to the success. A DELAY loop of
 * another file is its own episode. */
static void
test_grace(void)
{
    struct findings *f = findings_new(1024, 3, 9);
    struct op_event ev;
    unsigned i;

    for (i = 0; i < 9; i++) {
        ev = named(cpd(OP_OPEN, i * 1000, FH_D), "g");
        if (i < 8)
            ev = failed(ev, 10013, true);
        feed(f, ev);
    }
    ev = failed(cpd(OP_READ, 20000, FH_F), 10008, true);
    feed(f, ev);
    EQ(f->n[FK_DELAY_GRACE], 9);
    EQ(f->v4.grace, 8);
    EQ(f->v4.delay, 1);
    EQ(f->v4.retried_ok, 1);
    EQ(f->v4.lost_us, 8001000);
    EQ(f->cost_us[FK_DELAY_GRACE], 9000); /* time in calls: the answers' latency */
    EQ(f->n[FK_NEGATIVE_LOOKUPS], 0);
    findings_free(f);
}

/* Stale state and the recovery after it; session-limit errors. */
static void
test_state_and_sessions(void)
{
    struct findings *f = findings_new(1024, 3, 9);
    struct op_event ev;

    feed(f, failed(cpd(OP_READ, 0, FH_F), 10025, true));     /* BAD_STATEID */
    feed(f, failed(cpd(OP_GETATTR, 10, FH_F), 10052, false)); /* BADSESSION */
    feed(f, cpd(OP_CREATE_SESSION, 20, NULL));                /* recovery */
    feed(f, cpd(OP_EXCHANGE_ID, 9000, NULL));                 /* too late */
    feed(f, failed(cpd(OP_READ, 9100, FH_F), 10053, false)); /* BADSLOT */
    feed(f, failed(cpd(OP_READ, 9200, FH_F), 10066, false)); /* REP_TOO_BIG */
    ev = cpd(OP_READ, 9300, FH_F);
    ev.v4.slot = 7;                                           /* the highest slot */
    feed(f, ev);
    EQ(f->n[FK_STALE_STATE], 2);
    EQ(f->v4.stale[0], 1);
    EQ(f->v4.stale[5], 1);
    EQ(f->v4.recovery, 1);
    EQ(f->n[FK_SESSION_LIMITS], 2);
    EQ(f->v4.limits[0], 1);
    EQ(f->v4.limits[5], 1);
    EQ(f->v4.at_highest, 1);
    EQ(f->n[FK_REDUNDANT_GETATTR], 0);
    findings_free(f);
}

/* REP_TOO_BIG against the session's ca_maxresponsesize: READs asking for
 * more than it by their count, the largest READ that went through; a
 * session whose CREATE_SESSION was not seen has no known maximum; other
 * session errors are not REP_TOO_BIG. */
static void
test_rep_too_big(void)
{
    struct findings *f = findings_new(1024, 3, 9);
    struct op_event ev;

    ev = cpd(OP_CREATE_SESSION, 0, NULL);
    ev.v4.has_seq = false;
    ev.v4.session = 0x5151;
    ev.v4.max_resp = 8192;
    feed(f, ev);
    ev = cpd(OP_READ, 10, FH_F);
    ev.v4.session = 0x5151;
    ev.v4.read_count = 4096;
    feed(f, ev);
    ev.t_call.tv_nsec += 10000000;
    ev.t_reply.tv_nsec += 10000000;
    ev.v4.read_count = 32768;
    feed(f, failed(ev, 10066, true));                  /* REP_TOO_BIG, over the maximum */
    ev.t_call.tv_nsec += 10000000;
    ev.t_reply.tv_nsec += 10000000;
    ev.v4.read_count = 8000;                           /* below it: the reply's overhead */
    feed(f, failed(ev, 10067, true));                  /* REP_TOO_BIG_TO_CACHE */
    ev.v4.session = 0x6262;                            /* created before the capture */
    ev.v4.read_count = 65536;
    feed(f, failed(ev, 10066, true));
    feed(f, failed(cpd(OP_READ, 100, FH_F), 10053, false)); /* BADSLOT: not too big */
    EQ(f->n[FK_SESSION_LIMITS], 4);
    EQ(f->v4.rtb, 3);
    EQ(f->v4.rtb_reads, 3);
    EQ(f->v4.rtb_unseen, 1);
    EQ(f->v4.rtb_max_resp, 8192);
    EQ(f->v4.rtb_read_max, 65536);
    EQ(f->v4.rtb_reads_over, 1);
    EQ(f->v4.read_ok_max, 4096);
    findings_free(f);
    /* no REP_TOO_BIG: nothing to compare */
    f = findings_new(1024, 3, 9);
    feed(f, failed(cpd(OP_READ, 0, FH_F), 10053, false));
    EQ(f->v4.rtb, 0);
    EQ(f->v4.rtb_max_resp, 0);
    findings_free(f);
}

/* A COMPOUND two NFSv4 findings count has its time in the first only: a
 * CREATE_SESSION answered NFS4ERR_DELAY during the recovery after a stale
 * stateid is a delay_grace_storms instance and a stale_state recovery
 * COMPOUND; a LOOKUP answered NFS4ERR_DELAY is a delay, not a negative
 * lookup (no missing name).
 * Every call takes 1 ms: the costs add up to the time in calls claimed. */
static void
test_single_claim(void)
{
    struct findings *f = findings_new(1024, 3, 9);
    uint64_t us[FC__COUNT + 1], sum = 0;
    struct op_event ev;
    unsigned k;

    feed(f, failed(cpd(OP_READ, 0, FH_F), 10025, true));           /* BAD_STATEID */
    feed(f, failed(cpd(OP_CREATE_SESSION, 10, NULL), 10008, true)); /* DELAY, recovery */
    feed(f, cpd(OP_CREATE_SESSION, 20, NULL));                      /* recovery */
    ev = named(failed(cpd(OP_LOOKUP, 30, FH_D), 10008, true), "n"); /* DELAY, no NOENT */
    feed(f, ev);
    ev.t_call.tv_nsec += 10000000;
    ev.t_reply.tv_nsec += 10000000;
    feed(f, ev);
    EQ(f->n[FK_STALE_STATE], 1);
    EQ(f->v4.recovery, 2);
    EQ(f->n[FK_DELAY_GRACE], 3);
    EQ(f->n[FK_NEGATIVE_LOOKUPS], 0);
    EQ(f->cost_us[FK_DELAY_GRACE], 3000);  /* the first to claim them */
    EQ(f->cost_us[FK_STALE_STATE], 2000);  /* BAD_STATEID, the recovery that did not wait */
    EQ(f->v4.recovery_us, 1000);
    EQ(f->cost_us[FK_NEGATIVE_LOOKUPS], 0);
    for (k = 0; k < FK__COUNT; k++)
        sum += f->cost_us[k];
    EQ(f->total_us, 5000);
    EQ(sum, 5000);
    findings_time_split(f, us);
    EQ(us[FC_CLIENT], 5000);
    EQ(us[FC__COUNT], 0);
    findings_free(f);
}

/* The short opens' OPEN and CLOSE time is the storm's, once each. */
static void
test_open_close_claim(void)
{
    struct findings *f = findings_new(1024, 3, 9);
    struct op_event ev;
    unsigned i;

    for (i = 0; i < 4; i++) {
        ev = open_f(i * 100);
        feed(f, ev);
        feed(f, cpd(OP_CLOSE, i * 100 + 20, FH_F));
    }
    EQ(f->n[FK_OPEN_CLOSE], 4);
    EQ(f->cost_us[FK_OPEN_CLOSE], 8000);
    EQ(f->total_us, 8000);
    findings_free(f);
}

/* The same client opening and closing one file again and again, with no
 * delegation: a storm from the third short open on; an open that got a
 * read delegation is not short. */
static void
test_open_close(void)
{
    struct findings *f = findings_new(1024, 3, 9);
    struct op_event ev;
    unsigned i;

    for (i = 0; i < 5; i++) {
        ev = open_f(i * 100);
        ev.v4.deleg = (uint8_t)(i == 4 ? OPEN_DELEGATE_READ + 1 : OPEN_DELEGATE_NONE_EXT + 1);
        ev.v4.why_none = 2; /* WND4_CONTENTION */
        feed(f, ev);
        feed(f, cpd(OP_READ, i * 100 + 10, FH_F));
        feed(f, cpd(OP_CLOSE, i * 100 + 20, FH_F));
    }
    EQ(f->v4.opens, 5);
    EQ(f->v4.closes, 5);
    EQ(f->v4.short_opens, 4);
    EQ(f->v4.storm_files, 1);
    EQ(f->n[FK_OPEN_CLOSE], 4);
    EQ(f->v4.deleg[OPEN_DELEGATE_NONE_EXT], 4);
    EQ(f->v4.deleg[OPEN_DELEGATE_READ], 1);
    EQ(f->v4.why_none[2], 4);
    findings_free(f);
}

/* The NFSv4 what-if: GETATTR COMPOUNDs through the client model apart
 * from NFSv3 calls (actimeo answers a repeat, noac never); read
 * delegations would remove the later OPENs, the CLOSEs but one and the
 * GETATTR COMPOUNDs of an opened file, not those of a file never opened. */
static void
test_whatif4(void)
{
    struct findings *f = findings_new(1024, 3, 9);
    struct op_event ev;
    unsigned i;

    for (i = 0; i < 3; i++) {
        ev = open_f(i * 100);
        ev.obj_attr = change(0xa1);
        feed(f, ev);
        ev = cpd(OP_GETATTR, i * 100 + 10, FH_F);
        ev.attr = change(0xa1);
        feed(f, ev);
        feed(f, cpd(OP_CLOSE, i * 100 + 20, FH_F));
    }
    ev = cpd(OP_GETATTR, 400, FH_D); /* the directory: never opened */
    ev.attr = change(0xd1);
    feed(f, ev);
    EQ(f->wi4.now[OPK_OPEN], 3);
    EQ(f->wi4.now[OPK_CLOSE], 3);
    EQ(f->wi4.now[OPK_GETATTR], 4);
    EQ(f->wi4.deleg_open, 2);
    EQ(f->wi4.deleg_close, 2);
    EQ(f->wi4.deleg_getattr, 3);
    /* the OPEN replies' attributes answer the file's GETATTRs (no READ
     * follows: close-to-open keeps none), the directory's is sent; noac
     * sends them all */
    EQ(findings_estimate4(f, SC_DEFAULTS, OPK_GETATTR), 1);
    EQ(findings_estimate4(f, SC_NOAC, OPK_GETATTR), 4);
    EQ(findings_estimate4(f, SC_DEFAULTS, OPK_OPEN), 3);
    EQ(findings_estimate4(f, SC_DEFAULTS, OPK_CLOSE), 3);
    /* the NFSv3 model saw none of it */
    EQ(f->now[OPK_GETATTR], 0);
    EQ(findings_estimate(f, SC_DEFAULTS, OPK_GETATTR), 0);
    findings_free(f);
}

extern const struct rpc_program nlm4_program;

/* NLM: a denied LOCK is an instance, a denied TEST evidence; the *_MSG
 * calls (answered in a later message) are not taken. */
static void
test_nlm(void)
{
    struct findings *f = findings_new(1024, 3, 9);
    struct op_event ev;
    uint32_t p;
    uint64_t locks = 0, tests = 0; /* LOCK and NM_LOCK; TEST */

    for (p = 0; p < nlm4_program.nprocs; p++) {
        const struct rpc_op *o = &nlm4_program.procs[p];
        if (!o->name || (o->kind != OPK_LOCK && o->kind != OPK_LOCK_TEST))
            continue;
        ev = cpd(OP_LOCK, p * 10, FH_F);
        ev.pg = &nlm4_program;
        ev.proc = p;
        ev.kind = o->kind;
        ev.opf = o->flags;
        ev.has_main_ops = false;
        ev.status = 1; /* NLM4_DENIED */
        if (o->kind == OPK_LOCK_TEST) { /* its nlm4_holder (a LOCK reply names none) */
            ev.v4.lock_type = 2;
            ev.v4.lock_off = 1024;
            ev.v4.lock_len = 4096;
            ev.v4.lock_clientid = 1002;
            ev.v4.lock_owner = 0x77;
            ev.v4.lock_holder.p = (const uint8_t *)"an owner handle longer than the forty-eight bytes kept";
            ev.v4.lock_holder.len = 54;
        }
        CHECK(findings_wants(&ev) == !(o->flags & OPF_MSG));
        if (!(o->flags & OPF_MSG)) {
            locks += o->kind == OPK_LOCK;
            tests += o->kind == OPK_LOCK_TEST;
        }
        feed(f, ev);
    }
    CHECK(locks >= 1 && tests == 1);
    EQ(f->v4.nlm_lock, locks);
    EQ(f->v4.nlm_denied, locks);
    EQ(f->v4.nlm_test, 1);
    EQ(f->v4.nlm_test_denied, 1);
    /* the denied TEST's holder is the one conflicting lock: a denied LOCK
     * names none */
    EQ(f->v4.nlocks, 1);
    CHECK(f->v4.locks[0].nlm);
    EQ(f->v4.locks[0].clientid, 1002);
    EQ(f->v4.locks[0].off, 1024);
    EQ(f->v4.locks[0].holder_len, FND_V4_HOLDER);
    CHECK(f->v4.locks[0].holder_cut);
    EQ(f->n[FK_LOCK_CONTENTION], locks);
    EQ(f->nfs3_calls, 0);
    /* the time in calls holds the denied LOCKs' and TEST's time that
     * lock_contention claims */
    EQ(f->total_us, (locks + 1) * 1000);
    EQ(f->cost_us[FK_LOCK_CONTENTION], (locks + 1) * 1000);
    findings_free(f);
}

/* A CB_COMPOUND (CB_SEQUENCE, CB_RECALL of delegation `sid`) the server
 * sent the client on its own connection at t_ms, answered 1 ms later. */
static struct op_event
cb_recall(unsigned t_ms, uint64_t sid)
{
    struct op_event ev = cpd(OP_OPEN, t_ms, FH_F);

    ev.pg = &nfs4_callback_program;
    ev.prog = NFS4_CB_PROGRAM;
    ev.vers = NFS4_CB_VERSION;
    ev.kind = nfs4_cb_op(OP_CB_RECALL)->kind;
    ev.opf = 0;
    ev.main_ops = nfs4_op_pack(OP_CB_RECALL);
    ev.from_server = true;
    ev.v4.has_seq = false;
    ev.v4.deleg_sid = sid;
    return ev;
}

static struct op_event
delegreturn(unsigned t_ms, uint64_t sid)
{
    struct op_event ev = cpd(OP_DELEGRETURN, t_ms, FH_F);

    ev.v4.deleg_sid = sid;
    return ev;
}

/* ev sent by the second client, 10.0.0.3. */
static struct op_event
by2(struct op_event ev)
{
    ev.key = &key2;
    return ev;
}

/* An OPEN of `name` in D (CLAIM_NULL; NULL: of F by handle, CLAIM_FH) at
 * t_ms answered NFS4ERR_DELAY. */
static struct op_event
open_delayed(unsigned t_ms, const char *name)
{
    struct op_event ev = name ? named(cpd(OP_OPEN, t_ms, FH_D), name) : cpd(OP_OPEN, t_ms, FH_F);

    return failed(ev, 10008, true);
}

/* delegation_recalls: CB_RECALL to the DELEGRETURN of the same
 * delegation, recalls never answered, revocations; an OPEN answered
 * NFS4ERR_DELAY while another client holds a delegation of its file (by
 * name: the (directory, name) the grant or a LOOKUP resolved; by handle)
 * is its evidence and its time, not delay_grace_storms'. Negative: a
 * DELEGRETURN without a recall, DELAYs with no delegation held, of the
 * holder itself, of another name, after the DELEGRETURN; another
 * delegation's DELEGRETURN, an unanswered callback that recalls nothing,
 * the DELEGRETURN of a delegation whose recall was never answered. */
static void
test_recalls(void)
{
    static const uint8_t FH_G[8] = "file-G.";
    struct findings *f = findings_new(1024, 3, 9);
    struct op_event ev;

    feed(f, delegreturn(0, 0x77));                          /* never recalled */
    feed(f, open_delayed(10, "f"));                         /* no delegation held */
    EQ(f->n[FK_DELEG_RECALLS], 0);
    EQ(f->n[FK_DELAY_GRACE], 1);
    ev = open_f(50);
    ev.v4.deleg = OPEN_DELEGATE_READ + 1;                   /* client 1 holds F */
    feed(f, ev);
    feed(f, by2(open_delayed(60, "f")));                    /* client 2 waits */
    feed(f, open_delayed(70, "f"));                         /* the holder itself */
    feed(f, by2(open_delayed(80, "g")));                    /* another file */
    EQ(f->v4.recall_delays, 1);
    EQ(f->cost_us[FK_DELEG_RECALLS], 1000);
    EQ(f->n[FK_DELAY_GRACE], 3);
    EQ(f->cost_us[FK_DELAY_GRACE], 3000);
    feed(f, cb_recall(100, 0x11));
    feed(f, cb_recall(150, 0x11));                          /* recalled again: one recall */
    feed(f, by2(open_delayed(200, NULL)));                  /* by handle */
    feed(f, delegreturn(300, 0x22));                        /* another delegation */
    EQ(f->v4.recall_returned, 0);
    feed(f, delegreturn(1100, 0x11));                       /* 1 s after the first recall */
    feed(f, delegreturn(1200, 0x11));                       /* already returned */
    feed(f, by2(open_delayed(1250, "f")));                  /* nothing held any more */
    EQ(f->v4.recalls, 2);
    EQ(f->v4.recall_returned, 1);
    EQ(f->v4.recall_us, 1000000);
    EQ(f->v4.recall_max_us, 1000000);
    EQ(f->v4.recall_delays, 2);
    EQ(f->cost_us[FK_DELEG_RECALLS], 2000);
    EQ(f->n[FK_DELAY_GRACE], 4);
    /* client 2's OPEN of f granted: its wait, from its first DELAYed try */
    feed(f, by2(open_f(1260)));
    EQ(f->v4.recall_waited, 1);
    EQ(f->v4.recall_wait_us, 1261000 - 60000);
    ev = failed(delegreturn(1300, 0x33), 10087, true);      /* NFS4ERR_DELEG_REVOKED */
    feed(f, ev);
    ev = cpd(OP_GETATTR, 1400, FH_F);
    ev.v4.seq_flags = 0x40;                                 /* RECALLABLE_STATE_REVOKED */
    feed(f, ev);
    EQ(f->v4.deleg_revoked, 1);
    EQ(f->v4.recallable_revoked, 1);
    EQ(f->n[FK_DELEG_RECALLS], 3);                          /* 2 recalls, 1 revocation */
    ev = cb_recall(1500, 0x44);
    ev.outcome = OP_NO_REPLY;                               /* never answered */
    feed(f, ev);
    ev = cb_recall(1600, 0);                                /* CB_SEQUENCE alone */
    ev.outcome = OP_NO_REPLY;
    feed(f, ev);
    feed(f, delegreturn(1700, 0x44));                       /* not followed */
    EQ(f->v4.recalls_unanswered, 1);
    EQ(f->v4.recalls, 2);
    EQ(f->v4.recall_returned, 1);
    EQ(f->n[FK_DELEG_RECALLS], 4);
    /* A delegation granted before the capture: its recall says who holds
     * which file; an OPEN by name waits for it once a LOOKUP of client 1
     * resolved that name to the file. */
    ev = cb_recall(1800, 0x55);
    ev.fh = B(FH_G);
    feed(f, ev);
    ev = by2(open_delayed(1810, NULL));
    ev.fh = B(FH_G);
    feed(f, ev);                                            /* by handle */
    feed(f, by2(open_delayed(1820, "gname")));              /* name not known yet */
    EQ(f->v4.recall_delays, 3);
    ev = named(cpd(OP_LOOKUP, 1830, FH_D), "gname");
    ev.obj_fh = B(FH_G);
    feed(f, ev);
    feed(f, by2(open_delayed(1840, "gname")));
    EQ(f->v4.recall_delays, 4);
    EQ(f->cost_us[FK_DELEG_RECALLS], 4000);
    EQ(f->n[FK_DELAY_GRACE], 5);
    EQ(f->cost_us[FK_DELAY_GRACE], 5000);
    EQ(f->n[FK_DELEG_RECALLS], 5);                          /* DELAYs are no instances */
    /* A callback is no time spent in calls. */
    EQ(f->nfs3_calls, 19);
    EQ(f->total_us, 19000);
    findings_free(f);
}

int
main(void)
{
    key1.af = 4;
    memcpy(key1.saddr, "\x0a\x00\x00\x01", 4);
    memcpy(key1.daddr, "\x0a\x00\x00\x02", 4);
    key2 = key1;
    key2.saddr[3] = 3;
    test_stable_writes();
    test_redundant_getattr();
    test_negative_lookups();
    test_locks();
    test_grace();
    test_state_and_sessions();
    test_open_close();
    test_single_claim();
    test_rep_too_big();
    test_whatif4();
    test_open_close_claim();
    test_nlm();
    test_recalls();
    return t_done();
}
