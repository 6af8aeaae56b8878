/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs4_state_test.c: the NFSv4 state rules on hand-built COMPOUNDs: client
 * ids and their confirmation, sessions and slots, SEQUENCE errors and
 * flags, stateids, delegations granted, refused and returned, bounds; two
 * states merged. */
#include "nfs4_state.h"

#include <string.h>

#include "t.h"

/* The server the calls below go to: 10.0.0.<server>. */
static const uint8_t SERVER1[16] = { 10, 0, 0, 1 }, SERVER2[16] = { 10, 0, 0, 2 };
static const uint8_t *server = SERVER1;

static struct nfs4_state_who
WHO(time_t s)
{
    struct nfs4_state_who w;

    memset(&w, 0, sizeof w);
    w.af = 4;
    w.addr[0] = 10;
    w.addr[3] = 7;
    memcpy(w.server, server, sizeof w.server);
    w.t.tv_sec = s;
    return w;
}

/* A COMPOUND: its ops' arguments, run through the decoder's digest, then
 * its results. */
struct cmp {
    struct nfs4_call c;
    struct nfs4_digest d;
    struct nfs4_resop r[8];
    uint32_t n;
};

static struct nfs4_argop *
arg(struct cmp *k, uint32_t op)
{
    struct nfs4_argop *a = &k->c.op[k->c.ndecoded++];

    memset(a, 0, sizeof *a);
    a->op = op;
    k->c.nops = k->c.ndecoded;
    return a;
}

static void
sequence(struct cmp *k, uint8_t sid, uint32_t slot)
{
    struct nfs4_argop *a = arg(k, OP_SEQUENCE);

    memset(a->u.seq.sessionid, sid, NFS4_SESSIONID_SIZE);
    a->u.seq.slotid = slot;
    a->u.seq.highest_slotid = slot;
}

/* Send the call (its ops to the state, the digest made). */
static void
call(struct nfs4_state *st, struct cmp *k, uint32_t minor, time_t t)
{
    struct nfs4_state_who w = WHO(t);
    struct nfs4_op_detail det;
    uint32_t i;

    k->c.minorversion = minor;
    nfs4_digest_make(&k->c, &k->d);
    memset(&det, 0, sizeof det);
    det.minorversion = minor;
    det.call = &k->d;
    for (i = 0; i < k->c.ndecoded; i++) {
        det.arg = &k->c.op[i];
        nfs4_state_call(st, &w, &det);
    }
}

static struct nfs4_resop *
res(struct cmp *k, uint32_t status)
{
    struct nfs4_resop *r = &k->r[k->n];

    memset(r, 0, sizeof *r);
    r->op = k->c.op[k->n].op;
    r->status = status;
    r->has_status = true;
    k->n++;
    return r;
}

static void
reply(struct nfs4_state *st, struct cmp *k, time_t t)
{
    struct nfs4_state_who w = WHO(t);
    struct nfs4_op_detail det;
    uint32_t i;

    memset(&det, 0, sizeof det);
    det.minorversion = k->c.minorversion;
    det.call = &k->d;
    for (i = 0; i < k->n; i++) {
        det.res = &k->r[i];
        nfs4_state_result(st, &w, &det, i);
    }
    memset(k, 0, sizeof *k);
}

static struct nfs4_resop *
seq_ok(struct cmp *k, uint32_t highest, uint32_t target, uint32_t flags)
{
    struct nfs4_resop *r = res(k, NFS4_OK);

    r->u.seq.highest_slotid = highest;
    r->u.seq.target_highest_slotid = target;
    r->u.seq.status_flags = flags;
    return r;
}

static struct cmp k; /* a few KiB */

/* NFSv4.0 (RFC 7530 §16.33-34): SETCLIENTID leaves the client unconfirmed;
 * SETCLIENTID_CONFIRM's OK reply (which carries no clientid: it comes from
 * the call's digest) confirms it; RENEW renews the lease. */
static void
test_v40_client(void)
{
    struct nfs4_state *st = nfs4_state_new(4, 4, 8, 1);
    const struct nfs4_state_stats *s = nfs4_state_stats(st);
    const struct nfs4_client *l[4];
    struct nfs4_resop *r;

    arg(&k, OP_SETCLIENTID);
    call(st, &k, 0, 1);
    r = res(&k, NFS4_OK);
    r->u.cid.clientid = 0x1122334455667788ull;
    reply(st, &k, 1);
    EQ(s->clients.setclientid, 1);
    EQ(s->clients.confirmed, 0);
    EQ(nfs4_state_clients(st, l, 4), 1);
    EQ(l[0]->confirmed, 0);
    EQ(l[0]->how, NFS4_CLIENT_SETCLIENTID);

    arg(&k, OP_SETCLIENTID_CONFIRM)->clientid = 0x1122334455667788ull;
    call(st, &k, 0, 2);
    res(&k, NFS4_OK);
    reply(st, &k, 2);
    EQ(s->clients.confirmed, 1);
    EQ(l[0]->confirmed, 1);

    /* A confirm that failed confirms nothing. */
    arg(&k, OP_SETCLIENTID_CONFIRM)->clientid = 0x99;
    call(st, &k, 0, 3);
    res(&k, 10022); /* NFS4ERR_STALE_CLIENTID */
    reply(st, &k, 3);
    EQ(s->clients.confirmed, 1);
    EQ(nfs4_state_clients_active(st), 1);
    EQ(s->stateids.errors.n, 1);

    arg(&k, OP_RENEW)->clientid = 0x1122334455667788ull;
    call(st, &k, 0, 4);
    res(&k, NFS4_OK);
    reply(st, &k, 4);
    arg(&k, OP_RENEW)->clientid = 0x1122334455667788ull;
    call(st, &k, 0, 5);
    res(&k, 10011); /* NFS4ERR_EXPIRED */
    reply(st, &k, 5);
    EQ(s->renewals.renew, 2);
    EQ(s->renewals.renew_errors, 1);
    EQ(s->renewals.status.n, 1);
    EQ(s->renewals.status.status[0], 10011);
    EQ(l[0]->renewals, 2);

    /* A 4.0 OPEN: the owner's clientid (in the call) names the client. */
    {
        struct nfs4_argop *a;

        arg(&k, OP_PUTFH);
        a = arg(&k, OP_OPEN);
        a->clientid = 0x1122334455667788ull;
        call(st, &k, 0, 6);
        res(&k, NFS4_OK);
        r = res(&k, NFS4_OK);
        r->has_stateid = true;
        memset(r->stateid.other, 0xa1, 12);
        r->u.open.delegation = OPEN_DELEGATE_READ;
        memset(r->u.open.deleg_stateid.other, 0xd1, 12);
        reply(st, &k, 6);
    }
    EQ(l[0]->opens, 1);
    EQ(l[0]->delegations, 1);
    EQ(s->delegations.granted[OPEN_DELEGATE_READ], 1);
    EQ(nfs4_state_stateids_active(st, 0), 1);
    EQ(nfs4_state_stateids_active(st, 2), 1);
    {
        struct nfs4_deleg_info di;
        uint8_t other[12];

        memset(other, 0xd1, 12);
        CHECK(nfs4_state_delegation(st, 4, SERVER1, other, &di));
        EQ(di.type, OPEN_DELEGATE_READ);
        EQ(di.clientid, 0x1122334455667788ull);
        EQ(di.t_granted.tv_sec, 6);
        EQ(di.addr[0], 10);
        memset(other, 0xa1, 12); /* the open stateid is not a delegation */
        CHECK(!nfs4_state_delegation(st, 4, SERVER1, other, &di));
    }
    nfs4_state_free(st);
}

/* NFSv4.1 sessions (RFC 8881 §18.35-36, §18.46): EXCHANGE_ID then
 * CREATE_SESSION (whose reply has no clientid: the call's), slots in
 * flight, errors by status even though a failed SEQUENCE result carries no
 * sessionid, flags, target slots. */
static void
test_v41_session(void)
{
    struct nfs4_state *st = nfs4_state_new(4, 4, 8, 2);
    const struct nfs4_state_stats *s = nfs4_state_stats(st);
    const struct nfs4_session *sl[4];
    const struct nfs4_client *cl[4];
    struct nfs4_resop *r;
    struct cmp k2, k3;

    arg(&k, OP_EXCHANGE_ID);
    call(st, &k, 1, 1);
    r = res(&k, NFS4_OK);
    r->u.cid.clientid = 42;
    reply(st, &k, 1);
    EQ(s->clients.exchange_id, 1);
    EQ(s->clients.confirmed, 0);

    arg(&k, OP_CREATE_SESSION)->clientid = 42;
    call(st, &k, 1, 2);
    r = res(&k, NFS4_OK);
    memset(r->u.cs.sessionid, 0x5a, NFS4_SESSIONID_SIZE);
    r->u.cs.fore.maxrequests = 8;
    r->u.cs.fore.maxrequestsize = 8192;
    r->u.cs.back.maxrequests = 1;
    reply(st, &k, 2);
    EQ(s->clients.confirmed, 1);
    EQ(s->sessions.created, 1);
    EQ(nfs4_state_sessions(st, sl, 4), 1);
    EQ(sl[0]->has_clientid, 1);
    EQ(sl[0]->clientid, 42);
    EQ(sl[0]->fore.maxrequests, 8);
    EQ(sl[0]->fore.maxrequestsize, 8192);
    EQ(sl[0]->back.maxrequests, 1);

    /* Three calls in flight on slots 0, 1, 2; slot 1 answered first. */
    memset(&k2, 0, sizeof k2);
    memset(&k3, 0, sizeof k3);
    sequence(&k, 0x5a, 0);
    call(st, &k, 1, 3);
    sequence(&k2, 0x5a, 1);
    call(st, &k2, 1, 3);
    sequence(&k3, 0x5a, 2);
    call(st, &k3, 1, 3);
    EQ(sl[0]->in_flight, 3);
    EQ(sl[0]->max_in_flight, 3);
    EQ(sl[0]->max_slot, 2);
    seq_ok(&k2, 7, 5, 0x1 | 0x40); /* CB_PATH_DOWN, RECALLABLE_STATE_REVOKED */
    reply(st, &k2, 4);
    EQ(sl[0]->in_flight, 2);
    /* A failed SEQUENCE: the error is the session's, from the call's digest. */
    res(&k3, 10053); /* NFS4ERR_BADSLOT */
    reply(st, &k3, 4);
    EQ(sl[0]->in_flight, 1);
    EQ(sl[0]->errors, 1);
    EQ(sl[0]->status.n, 1);
    EQ(sl[0]->status.status[0], 10053);
    EQ(s->sessions.errors, 1);
    /* Slot 0 sent again before its reply: a retransmission or a lost reply. */
    sequence(&k2, 0x5a, 0);
    call(st, &k2, 1, 5);
    EQ(sl[0]->slot_busy, 1);
    EQ(sl[0]->in_flight, 1);
    seq_ok(&k, 7, 3, 0);
    reply(st, &k, 6);
    EQ(sl[0]->in_flight, 0);
    EQ(sl[0]->highest_slotid, 7);
    EQ(sl[0]->target_min, 3);
    EQ(sl[0]->target_max, 5);
    EQ(sl[0]->target_last, 3);
    EQ(sl[0]->flags, 0x41);
    EQ(s->sessions.flags[0], 1);
    EQ(s->sessions.flags[6], 1);
    EQ(s->sessions.calls, 4);
    EQ(s->sessions.replies, 3);
    EQ(s->renewals.sequence, 4);
    EQ(nfs4_state_clients(st, cl, 4), 1);
    EQ(cl[0]->sequences, 4);
    /* A slot past the followed ones is counted, not followed. */
    memset(&k2, 0, sizeof k2);
    sequence(&k2, 0x5a, NFS4_STATE_SLOTS);
    call(st, &k2, 1, 7);
    EQ(sl[0]->slots_beyond, 1);
    EQ(sl[0]->max_slot, NFS4_STATE_SLOTS);
    seq_ok(&k2, 7, 3, 0);
    reply(st, &k2, 7);
    EQ(sl[0]->in_flight, 0);

    /* 4.1 OPEN: the SEQUENCE's session names the client; a refusal by
     * reason; CLOSE (whose 4.1 result stateid is a special one, RFC 8881
     * §18.2.4) ends the open stateid named in the call. */
    sequence(&k, 0x5a, 0);
    arg(&k, OP_PUTFH);
    arg(&k, OP_OPEN);
    call(st, &k, 1, 8);
    seq_ok(&k, 7, 3, 0);
    res(&k, NFS4_OK);
    r = res(&k, NFS4_OK);
    r->has_stateid = true;
    memset(r->stateid.other, 0x0e, 12);
    r->u.open.delegation = OPEN_DELEGATE_NONE_EXT;
    r->u.open.why_none = 1; /* WND4_CONTENTION */
    reply(st, &k, 8);
    EQ(s->delegations.granted[OPEN_DELEGATE_NONE_EXT], 1);
    EQ(s->delegations.why[1], 1);
    EQ(cl[0]->opens, 1);
    EQ(nfs4_state_stateids_active(st, 0), 1);
    {
        struct nfs4_argop *a;

        sequence(&k, 0x5a, 0);
        arg(&k, OP_PUTFH);
        a = arg(&k, OP_CLOSE);
        a->has_stateid = true;
        memset(a->stateid.other, 0x0e, 12);
        call(st, &k, 1, 9);
        seq_ok(&k, 7, 3, 0);
        res(&k, NFS4_OK);
        r = res(&k, NFS4_OK);
        r->has_stateid = true; /* the invalid special stateid */
        memset(r->stateid.other, 0xff, 12);
        reply(st, &k, 9);
    }
    EQ(s->stateids.closes, 1);
    EQ(nfs4_state_stateids_active(st, 0), 0);

    /* DESTROY_SESSION: its sessionid is the call's. */
    memset(arg(&k, OP_DESTROY_SESSION)->u.seq.sessionid, 0x5a, NFS4_SESSIONID_SIZE);
    call(st, &k, 1, 10);
    res(&k, NFS4_OK);
    reply(st, &k, 10);
    EQ(s->sessions.destroyed, 1);
    EQ(sl[0]->destroyed, 1);
    arg(&k, OP_DESTROY_CLIENTID)->clientid = 42;
    call(st, &k, 1, 11);
    res(&k, NFS4_OK);
    reply(st, &k, 11);
    EQ(s->clients.destroyed, 1);
    EQ(cl[0]->destroyed, 1);
    nfs4_state_free(st);
}

/* Delegations: granted, DELEGRETURN sent (time kept for the callbacks),
 * returned; a return of a delegation never seen granted; a failed return. */
static void
test_delegations(void)
{
    struct nfs4_state *st = nfs4_state_new(2, 2, 8, 3);
    const struct nfs4_state_stats *s = nfs4_state_stats(st);
    struct nfs4_deleg_info di;
    struct nfs4_resop *r;
    struct nfs4_argop *a;
    uint8_t other[12];

    arg(&k, OP_PUTFH);
    arg(&k, OP_OPEN);
    call(st, &k, 0, 1);
    res(&k, NFS4_OK);
    r = res(&k, NFS4_OK);
    r->u.open.delegation = OPEN_DELEGATE_WRITE;
    r->u.open.recall = true;
    memset(r->u.open.deleg_stateid.other, 0xd2, 12);
    reply(st, &k, 1);
    EQ(s->delegations.granted[OPEN_DELEGATE_WRITE], 1);
    EQ(s->delegations.recall, 1);

    arg(&k, OP_PUTFH);
    a = arg(&k, OP_DELEGRETURN);
    a->has_stateid = true;
    memset(a->stateid.other, 0xd2, 12);
    call(st, &k, 0, 5);
    memset(other, 0xd2, 12);
    CHECK(nfs4_state_delegation(st, 4, SERVER1, other, &di));
    EQ(di.returning, 1);
    EQ(di.t_return.tv_sec, 5);
    EQ(di.type, OPEN_DELEGATE_WRITE);
    res(&k, NFS4_OK);
    res(&k, NFS4_OK);
    reply(st, &k, 5);
    CHECK(!nfs4_state_delegation(st, 4, SERVER1, other, &di));
    EQ(s->delegations.delegreturn, 1);
    EQ(s->delegations.returned, 1);
    EQ(s->delegations.return_unknown, 0);
    EQ(nfs4_state_stateids_active(st, 2), 0);

    /* Granted before the capture began. */
    arg(&k, OP_PUTFH);
    a = arg(&k, OP_DELEGRETURN);
    a->has_stateid = true;
    memset(a->stateid.other, 0x77, 12);
    call(st, &k, 0, 6);
    res(&k, NFS4_OK);
    res(&k, NFS4_OK);
    reply(st, &k, 6);
    EQ(s->delegations.return_unknown, 1);
    /* A failed return. */
    arg(&k, OP_PUTFH);
    a = arg(&k, OP_DELEGRETURN);
    a->has_stateid = true;
    memset(a->stateid.other, 0x78, 12);
    call(st, &k, 0, 7);
    res(&k, NFS4_OK);
    res(&k, 10025); /* NFS4ERR_BAD_STATEID */
    reply(st, &k, 7);
    EQ(s->delegations.returned, 2);
    EQ(s->delegations.return_errors.n, 1);
    EQ(s->stateids.errors.count[0], 1);
    nfs4_state_free(st);
}

/* Two servers that give the same client id, sessionid and delegation
 * stateid (RFC 8881 §8.2.1: each server interprets its own): two clients,
 * two sessions whose slots do not collide, two delegations; a DELEGRETURN
 * to one server returns only its own. */
static void
test_two_servers(void)
{
    struct nfs4_state *st = nfs4_state_new(4, 4, 8, 6);
    const struct nfs4_state_stats *s = nfs4_state_stats(st);
    const struct nfs4_session *sl[4];
    const struct nfs4_client *cl[4];
    static struct cmp ko[2];
    struct nfs4_deleg_info di;
    struct nfs4_argop *a;
    struct nfs4_resop *r;
    uint8_t other[12];
    unsigned i;

    for (i = 0; i < 2; i++) {
        server = i ? SERVER2 : SERVER1;
        arg(&k, OP_EXCHANGE_ID);
        call(st, &k, 1, 1);
        res(&k, NFS4_OK)->u.cid.clientid = 42;
        reply(st, &k, 1);
        arg(&k, OP_CREATE_SESSION)->clientid = 42;
        call(st, &k, 1, 2);
        memset(res(&k, NFS4_OK)->u.cs.sessionid, 0x5a, NFS4_SESSIONID_SIZE);
        reply(st, &k, 2);
        /* Slot 0 in flight on both servers at once. */
        sequence(&ko[i], 0x5a, 0);
        arg(&ko[i], OP_PUTFH);
        arg(&ko[i], OP_OPEN);
        call(st, &ko[i], 1, 3);
    }
    for (i = 0; i < 2; i++) {
        server = i ? SERVER2 : SERVER1;
        seq_ok(&ko[i], 0, 0, 0);
        res(&ko[i], NFS4_OK);
        r = res(&ko[i], NFS4_OK);
        r->u.open.delegation = OPEN_DELEGATE_READ;
        memset(r->u.open.deleg_stateid.other, 0xd1, 12);
        reply(st, &ko[i], 4);
    }
    EQ(nfs4_state_clients_active(st), 2);
    EQ(s->clients.confirmed, 2);
    EQ(nfs4_state_sessions_active(st), 2);
    EQ(s->sessions.slot_busy, 0);
    EQ(nfs4_state_sessions(st, sl, 4), 2);
    EQ(sl[0]->calls, 1);
    EQ(sl[0]->in_flight, 0);
    EQ(sl[1]->in_flight, 0);
    EQ(nfs4_state_clients(st, cl, 4), 2);
    EQ(cl[0]->delegations, 1);
    EQ(cl[1]->delegations, 1);
    EQ(nfs4_state_stateids_active(st, 2), 2);

    server = SERVER2;
    arg(&k, OP_PUTFH);
    a = arg(&k, OP_DELEGRETURN);
    a->has_stateid = true;
    memset(a->stateid.other, 0xd1, 12);
    call(st, &k, 1, 5);
    res(&k, NFS4_OK);
    res(&k, NFS4_OK);
    reply(st, &k, 5);
    server = SERVER1;
    memset(other, 0xd1, 12);
    CHECK(nfs4_state_delegation(st, 4, SERVER1, other, &di));
    EQ(di.returning, 0);
    CHECK(!nfs4_state_delegation(st, 4, SERVER2, other, &di));
    EQ(s->delegations.return_unknown, 0);
    EQ(nfs4_state_stateids_active(st, 2), 1);
    nfs4_state_free(st);
}

/* Every table is bounded: the least recently used entry goes, counted. */
static void
test_bounds(void)
{
    struct nfs4_state *st = nfs4_state_new(2, 2, 3, 4);
    const struct nfs4_state_stats *s = nfs4_state_stats(st);
    const struct nfs4_session *sl[4];
    uint32_t i;

    CHECK(nfs4_state_new(0, 1, 1, 1) == NULL);
    CHECK(nfs4_state_new(1, 0, 1, 1) == NULL);
    CHECK(nfs4_state_new(1, 1, 0, 1) == NULL);
    for (i = 0; i < 5; i++) {
        struct nfs4_resop *r;

        sequence(&k, (uint8_t)(i + 1), 0);
        call(st, &k, 1, i);
        seq_ok(&k, 1, 1, 0);
        reply(st, &k, i);
        arg(&k, OP_SETCLIENTID);
        call(st, &k, 0, i);
        r = res(&k, NFS4_OK);
        r->u.cid.clientid = i + 100;
        reply(st, &k, i);
        arg(&k, OP_PUTFH);
        arg(&k, OP_LOCK);
        call(st, &k, 0, i);
        res(&k, NFS4_OK);
        r = res(&k, NFS4_OK);
        r->has_stateid = true;
        memset(r->stateid.other, (int)i + 1, 12);
        reply(st, &k, i);
    }
    EQ(nfs4_state_sessions_active(st), 2);
    EQ(s->sessions.evicted, 3);
    EQ(nfs4_state_clients_active(st), 2);
    EQ(s->clients.evicted, 3);
    EQ(nfs4_state_stateids_active(st, 1), 3);
    EQ(s->stateids.evicted, 2);
    EQ(s->stateids.locks, 5);
    /* The two sessions kept are the last two, busiest first then oldest. */
    EQ(nfs4_state_sessions(st, sl, 4), 2);
    EQ(sl[0]->sessionid[0], 4);
    EQ(sl[1]->sessionid[0], 5);
    EQ(nfs4_state_sessions(st, sl, 1), 1);
    nfs4_state_free(st);
    nfs4_state_free(NULL);
    STREQ(nfs4_seq_flag_name(0), "SEQ4_STATUS_CB_PATH_DOWN");
    STREQ(nfs4_seq_flag_name(12), "SEQ4_STATUS_DEVID_DELETED");
    CHECK(nfs4_seq_flag_name(13) == NULL);
}

/* A session looked up again after its slot went to another session: it is
 * found as new (the slot remembered for it now holds another key), and
 * the session in its old slot keeps its own counts. */
static void
test_slot_reused(void)
{
    struct nfs4_state *st = nfs4_state_new(2, 2, 2, 5);
    const struct nfs4_state_stats *s = nfs4_state_stats(st);
    const struct nfs4_session *sl[4];
    uint8_t sid[] = { 1, 2, 3, 1, 3, 1 };
    uint32_t i;

    for (i = 0; i < sizeof sid; i++) {
        sequence(&k, sid[i], 0);
        call(st, &k, 1, i);
        seq_ok(&k, 0, 0, 0);
        reply(st, &k, i);
    }
    /* 3 took 1's slot, 1 took 2's, 3 stayed, then 1 stayed */
    EQ(s->sessions.evicted, 2);
    EQ(s->sessions.calls, 6);
    EQ(s->sessions.replies, 6);
    EQ(nfs4_state_sessions(st, sl, 4), 2);
    EQ(sl[0]->sessionid[0], 3);
    EQ(sl[0]->calls, 2);
    EQ(sl[0]->replies, 2);
    EQ(sl[1]->sessionid[0], 1);
    EQ(sl[1]->calls, 2);
    EQ(sl[1]->replies, 2);
    EQ(sl[1]->in_flight, 0);
    nfs4_state_free(st);
}

/* A 4.0 client id made (SETCLIENTID), confirmed or not, renewed n times,
 * holding one open stateid. */
static void
client40(struct nfs4_state *st, uint64_t id, bool confirm, unsigned renewals, time_t t)
{
    struct nfs4_resop *r;
    struct nfs4_argop *a;
    unsigned i;

    arg(&k, OP_SETCLIENTID);
    call(st, &k, 0, t);
    res(&k, NFS4_OK)->u.cid.clientid = id;
    reply(st, &k, t);
    if (confirm) {
        arg(&k, OP_SETCLIENTID_CONFIRM)->clientid = id;
        call(st, &k, 0, t);
        res(&k, NFS4_OK);
        reply(st, &k, t);
    }
    for (i = 0; i < renewals; i++) {
        arg(&k, OP_RENEW)->clientid = id;
        call(st, &k, 0, t + 1);
        res(&k, i == 1 ? 10011 : NFS4_OK); /* the second one: NFS4ERR_EXPIRED */
        reply(st, &k, t + 1);
    }
    arg(&k, OP_PUTFH);
    a = arg(&k, OP_OPEN);
    a->clientid = id;
    call(st, &k, 0, t + 2);
    res(&k, NFS4_OK);
    r = res(&k, NFS4_OK);
    r->has_stateid = true;
    memset(r->stateid.other, (int)(id & 0xff), 12);
    reply(st, &k, t + 2);
}

/* nfs4_state_merge: clients split between two states, one client id in
 * both (seen from two addresses), merged: the counts, the tables and the
 * clients' rows of one state that saw everything; the shared client is
 * confirmed once and its renewals add. */
static void
test_merge(void)
{
    struct nfs4_state *all = nfs4_state_new(8, 8, 16, 5), *a = nfs4_state_new(8, 8, 16, 5),
                      *b = nfs4_state_new(8, 8, 16, 5);
    const struct nfs4_state_stats *sa = nfs4_state_stats(a), *sall = nfs4_state_stats(all);
    const struct nfs4_client *la[8], *lall[8];
    size_t n, i;

    client40(all, 0xa, true, 2, 10);
    client40(a, 0xa, true, 2, 10);
    client40(all, 0xb, false, 1, 20);
    client40(b, 0xb, false, 1, 20);
    client40(all, 0xc, true, 1, 30);
    client40(a, 0xc, true, 1, 30);
    client40(all, 0xc, true, 3, 40);
    client40(b, 0xc, true, 3, 40);
    nfs4_state_merge(a, b);
    EQ(sa->clients.setclientid, sall->clients.setclientid);
    EQ(sa->clients.confirmed, 2);
    EQ(sa->clients.confirmed, sall->clients.confirmed);
    EQ(sa->renewals.renew, sall->renewals.renew);
    EQ(sa->renewals.renew_errors, sall->renewals.renew_errors);
    EQ(sa->renewals.status.n, 1);
    EQ(sa->renewals.status.count[0], sall->renewals.status.count[0]);
    EQ(sa->stateids.opens, sall->stateids.opens);
    EQ(nfs4_state_clients_active(a), 3);
    EQ(nfs4_state_stateids_active(a, 0), nfs4_state_stateids_active(all, 0));
    n = nfs4_state_clients(all, lall, 8);
    EQ(nfs4_state_clients(a, la, 8), n);
    for (i = 0; i < n; i++) { /* busiest first: 0xc (4 renewals), 0xa, 0xb */
        EQ(la[i]->clientid, lall[i]->clientid);
        EQ(la[i]->renewals, lall[i]->renewals);
        EQ(la[i]->opens, lall[i]->opens);
        EQ(la[i]->confirmed, lall[i]->confirmed);
    }
    EQ(la[0]->clientid, 0xc);
    nfs4_state_free(all);
    nfs4_state_free(a);
    nfs4_state_free(b);
}

int
main(void)
{
    test_merge();
    test_v40_client();
    test_v41_session();
    test_delegations();
    test_two_servers();
    test_bounds();
    test_slot_reused();
    return t_done();
}
