/* SPDX-License-Identifier: BSD-3-Clause */
/* nlm4_test.c: unit tests for the NLM v4 dissector (XNFS chapter 14). */
#include "dissector_test.h"
#include "lockwait.h"

enum {
    P_NULL = 0, P_TEST = 1, P_LOCK = 2, P_CANCEL = 3, P_UNLOCK = 4, P_GRANTED = 5,
    P_LOCK_MSG = 7, P_TEST_RES = 11, P_LOCK_RES = 12, P_GRANTED_RES = 15,
    P_SHARE = 20, P_UNSHARE = 21, P_NM_LOCK = 22, P_FREE_ALL = 23
};

static const struct rpc_program *pg;

/* nlm4_lockargs (LOCK, LOCK_MSG, NM_LOCK) */
static const uint8_t lock_args[] = {
    0x00, 0x00, 0x00, 0x04,                         /* cookie length 4 */
    0x00, 0x00, 0x00, 0x07,                         /* cookie data */
    0x00, 0x00, 0x00, 0x01,                         /* block TRUE */
    0x00, 0x00, 0x00, 0x01,                         /* exclusive TRUE */
    0x00, 0x00, 0x00, 0x06,                         /* alock.caller_name length 6 */
    0x63, 0x6c, 0x69, 0x65, 0x6e, 0x74, 0x00, 0x00, /* "client" + 2 pad bytes */
    0x00, 0x00, 0x00, 0x08,                         /* alock.fh length 8 */
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* fh data */
    0x00, 0x00, 0x00, 0x04,                         /* alock.oh length 4 */
    0x6f, 0x77, 0x6e, 0x31,                         /* "own1" */
    0x00, 0x00, 0x04, 0xd2,                         /* alock.svid 1234 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* alock.l_offset 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, /* alock.l_len 4096 */
    0x00, 0x00, 0x00, 0x00,                         /* reclaim FALSE */
    0x00, 0x00, 0x00, 0x03,                         /* state 3 */
};
#define COOKIE_END 8 /* the decoder reads the cookie only */

/* nlm4_res (LOCK, CANCEL, UNLOCK, GRANTED, NM_LOCK results; *_RES arguments) */
static const uint8_t res_blocked[] = {
    0x00, 0x00, 0x00, 0x04, /* cookie length 4 */
    0x00, 0x00, 0x00, 0x07, /* cookie data */
    0x00, 0x00, 0x00, 0x03, /* stat NLM4_BLOCKED */
};

static void
test_registry(void)
{
    static const char *const names[] = {
        "null", "test", "lock", "cancel", "unlock", "granted", "test_msg", "lock_msg",
        "cancel_msg", "unlock_msg", "granted_msg", "test_res", "lock_res", "cancel_res",
        "unlock_res", "granted_res", NULL, NULL, NULL, NULL, "share", "unshare", "nm_lock",
        "free_all",
    };
    static const char *const stats[] = {
        "NLM4_GRANTED", "NLM4_DENIED", "NLM4_DENIED_NOLOCKS", "NLM4_BLOCKED",
        "NLM4_DENIED_GRACE_PERIOD", "NLM4_DEADLCK", "NLM4_ROFS", "NLM4_STALE_FH",
        "NLM4_FBIG", "NLM4_FAILED",
    };
    uint32_t i;

    pg = dt_program("nlm4", 100021, 4, 24);
    if (!pg)
        return;
    STREQ(pg->title, "NLM v4");
    dt_proc_names(pg, names, 24);
    CHECK(pg->status_name != NULL);
    for (i = 0; i < 10; i++)
        STREQ(pg->status_name(i), stats[i]);
    CHECK(pg->status_name(10) == NULL);
    CHECK(pg->status_name(0xffffffffu) == NULL);
}

static void
test_sync(void)
{
    /* nlm4_testres, NLM4_DENIED with the conflicting holder */
    static const uint8_t test_denied[] = {
        0x00, 0x00, 0x00, 0x00,                         /* cookie length 0 */
        0x00, 0x00, 0x00, 0x01,                         /* test_stat.stat NLM4_DENIED */
        0x00, 0x00, 0x00, 0x01,                         /* holder.exclusive TRUE */
        0x00, 0x00, 0x00, 0x2a,                         /* holder.svid 42 */
        0x00, 0x00, 0x00, 0x02, 'o', 'h', 0x00, 0x00,   /* holder.oh "oh" + pad */
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, /* holder.l_offset 2^32 */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* holder.l_len 0: to EOF */
    };
    /* nlm4_shareres */
    static const uint8_t share_res[] = {
        0x00, 0x00, 0x00, 0x01, /* cookie length 1 */
        0x09, 0x00, 0x00, 0x00, /* cookie data + 3 pad bytes */
        0x00, 0x00, 0x00, 0x00, /* stat NLM4_GRANTED */
        0x00, 0x00, 0x00, 0x05, /* sequence */
    };
    static const uint8_t big_cookie[] = {
        0x00, 0x00, 0x04, 0x01, /* cookie length 1025: over MAXNETOBJ_SZ */
    };
    static const uint32_t with_res[] = { P_LOCK, P_CANCEL, P_UNLOCK, P_GRANTED, P_NM_LOCK };
    struct pending_call pc;
    struct op_event ev;
    unsigned i;

    dt_pc(&pc, pg, P_LOCK);
    EQ(dt_call(pg, lock_args, sizeof lock_args, &pc), DECODE_OK);
    EQ(pc.stable, STABLE_NONE);
    EQ(dt_call_cuts(pg, P_LOCK, lock_args, 0, COOKIE_END), 0);
    dt_pc(&pc, pg, P_LOCK);
    EQ(dt_call(pg, big_cookie, sizeof big_cookie, &pc), DECODE_INVALID);

    for (i = 0; i < sizeof with_res / sizeof with_res[0]; i++) {
        dt_pc(&pc, pg, with_res[i]);
        dt_ev(&ev);
        EQ(dt_reply(pg, res_blocked, sizeof res_blocked, &pc, &ev), DECODE_OK);
        CHECK(ev.has_status);
        EQ(ev.status, 3);
        EQ(dt_reply_cuts(pg, &pc, res_blocked, 0, sizeof res_blocked, sizeof res_blocked, 0), 0);
    }
    dt_pc(&pc, pg, P_LOCK);
    dt_ev(&ev);
    EQ(dt_reply(pg, big_cookie, sizeof big_cookie, &pc, &ev), DECODE_INVALID);
    CHECK(!ev.has_status);

    dt_pc(&pc, pg, P_TEST);
    dt_ev(&ev);
    EQ(dt_reply(pg, test_denied, sizeof test_denied, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 1);
    /* the holder: the lock in the way (WRITE_LT: exclusive) */
    EQ(ev.v4.lock_type, 2);
    EQ(ev.v4.lock_clientid, 42);
    EQ(ev.v4.lock_off, 0x100000000ULL);
    EQ(ev.v4.lock_len, 0);
    EQ(ev.v4.lock_holder.len, 2); /* its bytes are the harness's freed copy: e2e checks them */
    CHECK(ev.v4.lock_owner != 0);
    EQ(dt_reply_cuts(pg, &pc, test_denied, 0, 8, 8, 0), 0);
    /* cut inside the holder: the status stands, no holder */
    dt_pc(&pc, pg, P_TEST);
    dt_ev(&ev);
    dt_reply(pg, test_denied, 20, &pc, &ev);
    CHECK(ev.has_status);
    EQ(ev.status, 1);
    EQ(ev.v4.lock_owner, 0);

    dt_pc(&pc, pg, P_SHARE);
    dt_ev(&ev);
    EQ(dt_reply(pg, share_res, sizeof share_res, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 0);
    dt_pc(&pc, pg, P_UNSHARE);
    EQ(dt_reply_cuts(pg, &pc, share_res, 0, 12, 12, 0), 0);

    dt_pc(&pc, pg, P_NULL);
    dt_ev(&ev);
    EQ(dt_call(pg, lock_args, 0, &pc), DECODE_OK);
    EQ(dt_reply(pg, lock_args, 0, &pc, &ev), DECODE_OK);
    CHECK(!ev.has_status);
}

static void
test_async(void)
{
    static const uint8_t res_granted[] = {
        0x00, 0x00, 0x00, 0x04, /* cookie length 4 */
        0x00, 0x00, 0x00, 0x07, /* cookie data */
        0x00, 0x00, 0x00, 0x00, /* stat NLM4_GRANTED */
    };
    static const uint8_t free_all_args[] = {
        0x00, 0x00, 0x00, 0x05,                         /* nlm4_notify name length 5 */
        0x68, 0x6f, 0x73, 0x74, 0x31, 0x00, 0x00, 0x00, /* "host1" + 3 pad bytes */
        0x00, 0x00, 0x00, 0x09,                         /* state 9 */
    };
    struct pending_call pc;
    struct op_event ev;

    /* LOCK_MSG: the request; its reply is void and carries no status */
    dt_pc(&pc, pg, P_LOCK_MSG);
    EQ(dt_call(pg, lock_args, sizeof lock_args, &pc), DECODE_OK);
    dt_ev(&ev);
    EQ(dt_reply(pg, res_blocked, 0, &pc, &ev), DECODE_OK);
    CHECK(!ev.has_status);

    /* LOCK_RES: the result travels in the call; reported with the void reply */
    dt_pc(&pc, pg, P_LOCK_RES);
    EQ(dt_call(pg, res_blocked, sizeof res_blocked, &pc), DECODE_OK);
    dt_ev(&ev);
    EQ(dt_reply(pg, res_blocked, 0, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 3);
    dt_pc(&pc, pg, P_GRANTED_RES);
    EQ(dt_call(pg, res_granted, sizeof res_granted, &pc), DECODE_OK);
    dt_ev(&ev);
    EQ(dt_reply(pg, res_granted, 0, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 0);
    /* a TEST_RES call cut short: TRUNCATED, and its reply has no status */
    EQ(dt_call_cuts(pg, P_TEST_RES, res_blocked, 0, sizeof res_blocked), 0);
    dt_pc(&pc, pg, P_TEST_RES);
    EQ(dt_call(pg, res_blocked, sizeof res_blocked - 1, &pc), DECODE_TRUNCATED);
    dt_ev(&ev);
    EQ(dt_reply(pg, res_blocked, 0, &pc, &ev), DECODE_OK);
    CHECK(!ev.has_status);

    dt_pc(&pc, pg, P_FREE_ALL);
    EQ(dt_call(pg, free_all_args, sizeof free_all_args, &pc), DECODE_OK);
    EQ(dt_call_cuts(pg, P_FREE_ALL, free_all_args, 0, sizeof free_all_args), 0);
    dt_ev(&ev);
    EQ(dt_reply(pg, free_all_args, 0, &pc, &ev), DECODE_OK);
    CHECK(!ev.has_status);
}

/* nlm4_testargs of a GRANTED callback for lock_args' lock: the server
 * names itself in caller_name. */
static const uint8_t granted_args[] = {
    0x00, 0x00, 0x00, 0x04,                         /* cookie length 4 */
    0x00, 0x00, 0x00, 0x63,                         /* cookie data (the server's own) */
    0x00, 0x00, 0x00, 0x01,                         /* exclusive TRUE */
    0x00, 0x00, 0x00, 0x03,                         /* alock.caller_name length 3 */
    0x73, 0x72, 0x76, 0x00,                         /* "srv" + 1 pad byte */
    0x00, 0x00, 0x00, 0x08,                         /* alock.fh length 8 */
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* fh data */
    0x00, 0x00, 0x00, 0x04,                         /* alock.oh length 4 */
    0x6f, 0x77, 0x6e, 0x31,                         /* "own1" */
    0x00, 0x00, 0x04, 0xd2,                         /* alock.svid 1234 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* alock.l_offset 0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, /* alock.l_len 4096 */
};
#define GRANTED_SVID_LAST 43 /* last byte of alock.svid */

/* One NLM v4 operation through the dissector into the lock waits: `args`
 * from the call, `res` (n_res bytes) from the reply, at time t_call, on a
 * connection whose source is `caller`. */
static void
lw_op(struct lockwait *lw, uint32_t proc, const uint8_t *args, size_t n_args, const uint8_t *res,
      size_t n_res, uint8_t caller, uint8_t callee, double t_call)
{
    struct pending_call pc;
    struct op_event ev;
    struct flow_key key;

    memset(&key, 0, sizeof key);
    key.af = FLOW_AF_INET;
    key.proto = FLOW_PROTO_TCP;
    key.saddr[0] = 10, key.saddr[3] = caller;
    key.daddr[0] = 10, key.daddr[3] = callee;
    dt_pc(&pc, pg, proc);
    EQ(dt_call(pg, args, n_args, &pc), DECODE_OK);
    dt_ev(&ev);
    EQ(dt_reply(pg, res, n_res, &pc, &ev), DECODE_OK);
    ev.pg = pg;
    ev.prog = 100021;
    ev.vers = 4;
    ev.proc = proc;
    ev.kind = pg->procs[proc].kind; /* as the matcher sets them */
    ev.opf = pg->procs[proc].flags;
    ev.outcome = OP_REPLIED;
    ev.key = &key;
    ev.call_dir = 0;
    ev.t_call.tv_sec = (time_t)t_call;
    ev.t_call.tv_nsec = (long)((t_call - (double)(time_t)t_call) * 1e9 + 0.5);
    ev.t_reply = ev.t_call;
    lockwait_record(lw, &ev);
}

/* Lock waits from a hand-built call stream: client 10.0.0.2's
 * blocking LOCK is answered NLM4_BLOCKED; the server 10.0.0.1 calls back
 * GRANTED_MSG 2.5 s later on its own connection. */
static void
test_lock_waits(void)
{
    static const uint8_t res_denied[] = {
        0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x07, /* cookie */
        0x00, 0x00, 0x00, 0x01,                         /* stat NLM4_DENIED */
    };
    static const uint8_t res_granted[] = {
        0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x07, /* cookie */
        0x00, 0x00, 0x00, 0x00,                         /* stat NLM4_GRANTED */
    };
    uint8_t other[sizeof granted_args], noblock[sizeof lock_args];
    struct lockwait *lw = lockwait_new(4, 11);
    const struct lockwait_stats *st = lockwait_stats(lw);
    struct pending_call pc;

    CHECK(lw != NULL);
    if (!lw)
        return;
    /* The lock is digested from the call; a cut inside it loses only that. */
    dt_pc(&pc, pg, P_LOCK);
    EQ(dt_call(pg, lock_args, sizeof lock_args, &pc), DECODE_OK);
    dt_pc(&pc, pg, P_LOCK);
    EQ(dt_call(pg, lock_args, COOKIE_END + 20, &pc), DECODE_OK);

    lw_op(lw, P_LOCK, lock_args, sizeof lock_args, res_blocked, sizeof res_blocked, 2, 1, 100.0);
    EQ(st->blocked, 1);
    EQ(lockwait_pending(lw), 1);
    /* Asked again while waiting (lockd polls): still one wait, from the first. */
    lw_op(lw, P_LOCK, lock_args, sizeof lock_args, res_blocked, sizeof res_blocked, 2, 1, 101.0);
    EQ(st->blocked, 1);
    /* Another client's GRANTED for the same lock ends nothing. */
    lw_op(lw, 10, granted_args, sizeof granted_args, res_blocked, 0, 1, 3, 101.5);
    EQ(st->granted, 0);
    EQ(st->unmatched_grants, 1);
    /* GRANTED_MSG from the server to 10.0.0.2 (void reply): the wait ends. */
    lw_op(lw, 10, granted_args, sizeof granted_args, res_blocked, 0, 1, 2, 102.5);
    EQ(st->granted, 1);
    EQ(lockwait_pending(lw), 0);
    EQ(st->wait.count, 1);
    EQ(st->wait.max, 2500000);
    /* A second GRANTED: no wait left. */
    lw_op(lw, 5, granted_args, sizeof granted_args, res_granted, sizeof res_granted, 1, 2, 103.0);
    EQ(st->granted, 1);
    EQ(st->unmatched_grants, 2);

    /* Blocked again, then GRANTED (sync) for another svid: no match; CANCEL
     * of the right lock ends the wait as cancelled. */
    lw_op(lw, P_LOCK, lock_args, sizeof lock_args, res_blocked, sizeof res_blocked, 2, 1, 200.0);
    memcpy(other, granted_args, sizeof other);
    other[GRANTED_SVID_LAST] ^= 1;
    lw_op(lw, P_GRANTED, other, sizeof other, res_granted, sizeof res_granted, 1, 2, 201.0);
    EQ(st->granted, 1);
    EQ(st->unmatched_grants, 3);
    lw_op(lw, P_CANCEL, lock_args, sizeof lock_args - 8, res_granted, sizeof res_granted, 2, 1,
          202.0);
    EQ(st->cancelled, 1);
    EQ(lockwait_pending(lw), 0);

    /* Not blocking (block FALSE), or not BLOCKED: no wait. */
    memcpy(noblock, lock_args, sizeof noblock);
    noblock[11] = 0; /* block FALSE */
    lw_op(lw, P_LOCK, noblock, sizeof noblock, res_blocked, sizeof res_blocked, 2, 1, 300.0);
    lw_op(lw, P_LOCK, lock_args, sizeof lock_args, res_denied, sizeof res_denied, 2, 1, 300.0);
    EQ(st->blocked, 2);
    /* Blocked, then the client's own LOCK answered NLM4_GRANTED ends it. */
    lw_op(lw, P_LOCK, lock_args, sizeof lock_args, res_blocked, sizeof res_blocked, 2, 1, 400.0);
    lw_op(lw, P_LOCK, lock_args, sizeof lock_args, res_granted, sizeof res_granted, 2, 1, 430.0);
    EQ(st->granted, 2);
    EQ(st->wait.max, 30000000);
    EQ(lockwait_pending(lw), 0);
    /* Still blocked at the end of the capture: pending. */
    lw_op(lw, P_LOCK, lock_args, sizeof lock_args, res_blocked, sizeof res_blocked, 5, 1, 500.0);
    EQ(lockwait_pending(lw), 1);
    EQ(st->blocked, 4);
    lockwait_free(lw);
}

int
main(void)
{
    test_registry();
    if (!pg)
        return t_done();
    test_sync();
    test_async();
    test_lock_waits();
    return t_done();
}
