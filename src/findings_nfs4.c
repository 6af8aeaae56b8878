/* SPDX-License-Identifier: BSD-3-Clause */
/* findings_nfs4.c: the NFSv4 findings (findings_nfs4.h).
 *
 * RFC 8881 gives the meaning of every status used: NFS4ERR_DENIED for a
 * lock in the way (§18.10.4), NFS4ERR_DELAY and NFS4ERR_GRACE asking the
 * client to try again later (§15.1.1.3, §15.1.9.2, §8.4.2), the stale
 * stateid / client id / session errors that send a client into state
 * recovery (§8.4, §15.1.5, §15.1.16), the slot and size limits of a session
 * (§2.10.6, §15.1.10-11, §18.46). One COMPOUND is one instance: its status
 * is that of the operation that stopped it (§16.2.3). */
#include "findings_nfs4.h"

#include <string.h>

#include "findings.h"
#include "hashtab.h"
#include "nfs4.h"
#include "stats.h"

#define SEC 1000000000LL

enum { /* nfsstat4 (RFC 8881 §15.1) */
    ERR_DELAY = 10008, ERR_GRACE = 10013,
    ERR_EXPIRED = 10011, ERR_STALE_CLIENTID = 10022, ERR_STALE_STATEID = 10023,
    ERR_OLD_STATEID = 10024, ERR_BAD_STATEID = 10025, ERR_BAD_SEQID = 10026,
    ERR_ADMIN_REVOKED = 10047, ERR_BADSESSION = 10052, ERR_DEADSESSION = 10078,
    ERR_DELEG_REVOKED = 10087,
    ERR_BADSLOT = 10053, ERR_SEQ_MISORDERED = 10063, ERR_REQ_TOO_BIG = 10065,
    ERR_REP_TOO_BIG = 10066, ERR_REP_TOO_BIG_TO_CACHE = 10067, ERR_RETRY_UNCACHED_REP = 10068,
    ERR_TOO_MANY_OPS = 10070, ERR_SEQ_FALSE_RETRY = 10076, ERR_BAD_HIGH_SLOT = 10077,
};

const uint32_t findings_nfs4_stale_codes[FND_V4_STALE] = {
    ERR_BAD_STATEID, ERR_OLD_STATEID, ERR_STALE_STATEID, ERR_STALE_CLIENTID, ERR_EXPIRED,
    ERR_BADSESSION, ERR_DEADSESSION, ERR_BAD_SEQID, ERR_ADMIN_REVOKED, ERR_DELEG_REVOKED,
};

const uint32_t findings_nfs4_limit_codes[FND_V4_LIMITS] = {
    ERR_BADSLOT, ERR_SEQ_MISORDERED, ERR_RETRY_UNCACHED_REP, ERR_SEQ_FALSE_RETRY,
    ERR_BAD_HIGH_SLOT, ERR_REP_TOO_BIG, ERR_REP_TOO_BIG_TO_CACHE, ERR_REQ_TOO_BIG,
    ERR_TOO_MANY_OPS,
};

enum { SEQ4_STATUS_RECALLABLE_STATE_REVOKED = 0x40 }; /* RFC 8881 §18.46.3 */

/* Episode kinds, mixed into the keys. */
enum { W_LOCK = 1, W_RETRY, W_STALE, W_RECALL };

static int
code_index(const uint32_t *codes, unsigned n, uint32_t status)
{
    unsigned i;

    for (i = 0; i < n; i++)
        if (codes[i] == status)
            return (int)i;
    return -1;
}

static int64_t
ns_of(const struct timespec *t)
{
    return (int64_t)t->tv_sec * SEC + t->tv_nsec;
}

static uint64_t
us_between(int64_t from, int64_t to)
{
    return to > from ? (uint64_t)(to - from + 500) / 1000 : 0;
}

static uint64_t
client_key(const struct findings *f, const struct op_event *ev)
{
    const uint8_t *a = ev->call_dir == 0 ? ev->key->saddr : ev->key->daddr;

    return hash_bytes(a, ev->key->af == 6 ? 16 : 4, f->seed ^ 0x7634636cULL ^ ev->key->af);
}

static uint64_t
key_of(const struct findings *f, uint64_t ck, unsigned what, uint64_t x)
{
    uint64_t k = hash_u64x2(ck, x, f->seed + 0x763400 + what);

    return k ? k : 1;
}

/* The episode of key: found, or (create) started in its slot. NULL: none. */
static struct fnd_v4_wait *
wait_slot(struct findings *f, uint64_t key, bool create)
{
    struct fnd_v4_wait *w = &f->v4.waits[key & (FND_V4_WAITS - 1)];

    if (w->key == key)
        return w;
    if (!create)
        return NULL;
    if (w->key)
        f->evicted++;
    memset(w, 0, sizeof *w);
    w->key = key;
    return w;
}

/* Take the call's time no finding has claimed yet (findings.h: time by
 * cause): the first v4 rule to credit the COMPOUND has it, a later one
 * counts the COMPOUND without its time. */
static uint64_t
claim(uint64_t *unclaimed)
{
    uint64_t us = *unclaimed;

    *unclaimed = 0;
    return us;
}

static bool
main_failed_with(const struct op_event *ev, uint32_t status)
{
    return ev->v4.main_done && ev->v4.main_status == status && ev->status == status;
}

/* ---- lock_contention ------------------------------------------------------ */

static void
lock_denied_by(struct findings *f, const struct op_event *ev, bool nlm)
{
    struct fnd_v4 *v = &f->v4;
    size_t fl = ev->fh.len <= sizeof v->locks[0].fh ? ev->fh.len : 0;

    size_t hl = ev->v4.lock_holder.len < FND_V4_HOLDER ? ev->v4.lock_holder.len : FND_V4_HOLDER;
    struct fnd_v4_lock *l;
    unsigned i;

    for (i = 0; i < v->nlocks; i++) {
        l = &v->locks[i];
        if (l->owner == ev->v4.lock_owner && l->off == ev->v4.lock_off &&
            l->len == ev->v4.lock_len && l->type == ev->v4.lock_type && l->nlm == nlm &&
            l->fh_len == fl && (!fl || memcmp(l->fh, ev->fh.p, fl) == 0)) {
            l->n++;
            return;
        }
    }
    if (v->nlocks == FND_V4_LOCKS) {
        v->locks_other++;
        return;
    }
    l = &v->locks[v->nlocks++];
    l->owner = ev->v4.lock_owner;
    l->clientid = ev->v4.lock_clientid;
    l->off = ev->v4.lock_off;
    l->len = ev->v4.lock_len;
    l->type = ev->v4.lock_type;
    l->nlm = nlm;
    l->holder_len = (uint8_t)hl;
    l->holder_cut = ev->v4.lock_holder.len > hl;
    if (hl)
        memcpy(l->holder, ev->v4.lock_holder.p, hl);
    l->fh_len = (uint8_t)fl;
    if (fl)
        memcpy(l->fh, ev->fh.p, fl);
    l->n = 1;
}

/* LOCK answered NFS4ERR_DENIED is the finding's instance; LOCKT polls and
 * their denials are evidence (their latency counts in its cost); a LOCK
 * granted after denials of the same client and file ends the wait, first
 * denied try to grant (evidence: the cost is time in calls only). */
static void
locks(struct findings *f, const struct op_event *ev, uint64_t ck, uint64_t *cost)
{
    struct fnd_v4 *v = &f->v4;
    uint64_t key = key_of(f, ck, W_LOCK, hash_bytes(ev->fh.p, ev->fh.len, f->seed));
    bool test = ev->kind == OPK_LOCK_TEST;
    struct fnd_v4_wait *w;

    if (test)
        v->lockt++;
    else
        v->lock++;
    w = wait_slot(f, key, false);
    if (!test && w && w->tries)
        v->lock_retries++;
    if (main_failed_with(ev, NFS4ERR_DENIED)) {
        lock_denied_by(f, ev, false);
        if (test) {
            v->lockt_denied++;
            findings_credit(f, FK_LOCK_CONTENTION, ev, 0, claim(cost));
            return;
        }
        v->lock_denied++;
        findings_credit(f, FK_LOCK_CONTENTION, ev, 1, claim(cost));
        w = wait_slot(f, key, true);
        if (!w->tries++)
            w->t_first = ns_of(&ev->t_call);
        return;
    }
    if (!test && ev->status == 0 && w && w->tries) {
        uint64_t us = us_between(w->t_first, ns_of(&ev->t_reply));

        v->granted_after_wait++;
        v->wait_us += us;
        if (us > v->wait_max_us)
            v->wait_max_us = us;
        w->key = 0;
    }
}

/* ---- delay_grace_storms ------------------------------------------------------ */

/* The same client asking the same thing again: kind, file and name
 * (what: the episode's kind, W_RETRY or W_RECALL). */
static uint64_t
retry_key(const struct findings *f, const struct op_event *ev, uint64_t ck, unsigned what)
{
    uint64_t x = hash_bytes(ev->fh.p, ev->fh.len, f->seed ^ ev->main_ops);

    return key_of(f, ck, what, hash_bytes(ev->name.p, ev->name.len, x));
}

/* Each DELAY or GRACE answer is an instance costing its latency; the time
 * from the first try to the success is evidence. */
static void
retries(struct findings *f, const struct op_event *ev, uint64_t ck, uint64_t *cost)
{
    struct fnd_v4 *v = &f->v4;
    uint64_t key;
    struct fnd_v4_wait *w;

    if (ev->status == ERR_DELAY || ev->status == ERR_GRACE) {
        if (ev->status == ERR_DELAY)
            v->delay++;
        else
            v->grace++;
        findings_credit(f, FK_DELAY_GRACE, ev, 1, claim(cost));
        w = wait_slot(f, retry_key(f, ev, ck, W_RETRY), true);
        if (!w->tries++)
            w->t_first = ns_of(&ev->t_call);
        return;
    }
    if (ev->status != 0)
        return;
    key = retry_key(f, ev, ck, W_RETRY);
    w = wait_slot(f, key, false);
    if (w && w->tries) {
        uint64_t us = us_between(w->t_first, ns_of(&ev->t_reply));

        v->retried_ok++;
        v->lost_us += us;
        if (us > v->lost_max_us)
            v->lost_max_us = us;
        w->key = 0;
    }
}

/* ---- stale_state ---------------------------------------------------------------- */

/* A COMPOUND that rebuilds state: a new client id or session, stateids
 * tested or freed, reclaims done (RFC 8881 §8.4.2, §18.35-18.38, §18.48,
 * §18.51; RFC 7530 §16.33-16.34). */
static bool
recovery_kind(uint32_t main_ops)
{
    switch (nfs4_op_unpack((uint8_t)main_ops, 0)) {
    case OP_SETCLIENTID:
    case OP_SETCLIENTID_CONFIRM:
    case OP_EXCHANGE_ID:
    case OP_CREATE_SESSION:
    case OP_DESTROY_SESSION:
    case OP_BIND_CONN_TO_SESSION:
    case OP_TEST_STATEID:
    case OP_FREE_STATEID:
    case OP_RECLAIM_COMPLETE:
        return true;
    default:
        return false;
    }
}

static void
stale(struct findings *f, const struct op_event *ev, uint64_t ck, uint64_t *cost)
{
    struct fnd_v4 *v = &f->v4;
    int i = code_index(findings_nfs4_stale_codes, FND_V4_STALE, ev->status);
    uint64_t key = key_of(f, ck, W_STALE, 0);
    struct fnd_v4_wait *w;

    if (i >= 0) {
        v->stale[i]++;
        findings_credit(f, FK_STALE_STATE, ev, 1, claim(cost));
        w = wait_slot(f, key, true);
        w->t_first = ns_of(&ev->t_reply);
        w->tries++;
        return;
    }
    w = recovery_kind(ev->main_ops) ? wait_slot(f, key, false) : NULL;
    if (w && ns_of(&ev->t_call) - w->t_first <= f->window_ns) {
        uint64_t us = claim(cost);

        v->recovery++;
        v->recovery_us += us;
        findings_credit(f, FK_STALE_STATE, ev, 0, us);
    }
}

/* ---- session_limits ----------------------------------------------------------------- */

/* A reply too big for the session (NFS4ERR_REP_TOO_BIG, or too big for its
 * reply cache): compared with the ca_maxresponsesize the server granted in
 * the session's CREATE_SESSION (RFC 8881 §2.10.6.4, §18.36.3). A READ whose
 * count alone is above it can never succeed on this session: the client's
 * rsize is larger than the session allows. */
static void
rep_too_big(struct fnd_v4 *v, const struct op_event *ev)
{
    const struct fnd_v4_session *s = &v->sess[ev->v4.session & (FND_V4_SESSIONS - 1)];

    v->rtb++;
    if (ev->v4.read_count) {
        v->rtb_reads++;
        if (ev->v4.read_count > v->rtb_read_max)
            v->rtb_read_max = ev->v4.read_count;
    }
    if (!ev->v4.session || s->key != ev->v4.session) {
        v->rtb_unseen++;
        return;
    }
    if (!v->rtb_max_resp || s->max_resp < v->rtb_max_resp)
        v->rtb_max_resp = s->max_resp;
    if (ev->v4.read_count > s->max_resp)
        v->rtb_reads_over++;
}

/* Each session-limit error is an instance; the calls sent on the server's
 * highest slot and the replies asking for fewer slots are evidence. */
static void
sessions(struct findings *f, const struct op_event *ev, uint64_t *cost)
{
    struct fnd_v4 *v = &f->v4;
    int i = code_index(findings_nfs4_limit_codes, FND_V4_LIMITS, ev->status);

    if (ev->v4.max_resp && ev->status == 0) { /* a session created: its limit */
        struct fnd_v4_session *s = &v->sess[ev->v4.session & (FND_V4_SESSIONS - 1)];

        if (s->key && s->key != ev->v4.session)
            f->evicted++;
        s->key = ev->v4.session;
        s->max_resp = ev->v4.max_resp;
    }
    if (i >= 0) {
        v->limits[i]++;
        if (ev->status == ERR_REP_TOO_BIG || ev->status == ERR_REP_TOO_BIG_TO_CACHE)
            rep_too_big(v, ev);
        findings_credit(f, FK_SESSION_LIMITS, ev, 1, claim(cost));
    } else if (ev->status == 0 && ev->v4.read_count > v->read_ok_max) {
        v->read_ok_max = ev->v4.read_count;
    }
    if (!ev->v4.has_seq)
        return;
    v->seq_replies++;
    if (ev->v4.highest_slot > v->max_highest)
        v->max_highest = ev->v4.highest_slot;
    if (ev->v4.slot > v->max_slot)
        v->max_slot = ev->v4.slot;
    if (ev->v4.target_slot < ev->v4.highest_slot)
        v->target_below++;
    if (ev->v4.highest_slot > 0 && ev->v4.slot == ev->v4.highest_slot)
        v->at_highest++;
}

/* ---- open_close_storm ---------------------------------------------------------------- */

static struct fnd_v4_open *
open_slot(struct findings *f, uint64_t key, bool create)
{
    struct fnd_v4_open *o = &f->v4.open_t[key & (FND_V4_OPENS - 1)];

    if (o->key == key)
        return o;
    if (!create)
        return NULL;
    if (o->key)
        f->evicted++;
    memset(o, 0, sizeof *o);
    o->key = key;
    return o;
}

/* The file an OPEN granted opened: by name, its GETFH's handle (none
 * without one); by handle (CLAIM_FH), the current one. */
static struct bytes
open_file(const struct op_event *ev)
{
    struct bytes none = { NULL, 0 };

    return ev->obj_fh.len ? ev->obj_fh : ev->name.len ? none : ev->fh;
}

/* The OPEN granted a delegation (RFC 8881 §18.16.3: open_delegation_type4). */
static bool
granted_deleg(const struct op_event *ev)
{
    return ev->v4.deleg > OPEN_DELEGATE_NONE + 1 && ev->v4.deleg != OPEN_DELEGATE_NONE_EXT + 1;
}

/* OPEN (by name: the file is its GETFH; by handle: the current FH) to
 * CLOSE of the same client and file within the window, with no delegation,
 * is a short open; FND_V4_OPEN_MIN of them on one file make a storm, whose
 * instances are those short opens (RFC 8881 §10.4: a read delegation lets
 * the client open and close locally).
 *
 * The what-if of read delegations (an estimate, struct fnd_whatif4): had
 * the server granted one at a client's first OPEN of a file and never
 * recalled it, that client's later OPENs of the file, its CLOSEs but the
 * last one (approximated as all but the first), and its GETATTR COMPOUNDs
 * of the file after the first OPEN (attributes under a delegation need no
 * revalidation, §10.4.2) would not have been sent. */
static void
opens(struct findings *f, const struct op_event *ev, uint64_t ck, uint64_t *cost)
{
    struct fnd_v4 *v = &f->v4;
    uint8_t mop = (uint8_t)ev->main_ops;
    struct fnd_v4_open *o;

    if (mop == OP_GETATTR && ev->status == 0) {
        o = open_slot(f, key_of(f, ck, 0, hash_bytes(ev->fh.p, ev->fh.len, f->seed)), false);
        if (o && o->opens)
            f->wi4.deleg_getattr++;
        return;
    }

    if (mop == OP_OPEN && ev->status == 0) {
        struct bytes file = open_file(ev);

        v->opens++;
        if (ev->v4.deleg && ev->v4.deleg <= FND_V4_DELEG)
            v->deleg[ev->v4.deleg - 1]++;
        if (ev->v4.deleg == OPEN_DELEGATE_NONE_EXT + 1 && ev->v4.why_none < FND_V4_WHY)
            v->why_none[ev->v4.why_none]++;
        if (!file.len)
            return;
        o = open_slot(f, key_of(f, ck, 0, hash_bytes(file.p, file.len, f->seed)), true);
        if (o->opens++)
            f->wi4.deleg_open++;
        o->t_open = ns_of(&ev->t_call);
        o->open_us = *cost; /* claimed if its CLOSE makes it a storm's short open */
        o->deleg = granted_deleg(ev);
        return;
    }
    if (mop != OP_CLOSE || ev->status != 0)
        return;
    v->closes++;
    o = open_slot(f, key_of(f, ck, 0, hash_bytes(ev->fh.p, ev->fh.len, f->seed)), false);
    if (o && o->closes++)
        f->wi4.deleg_close++;
    if (!o || !o->t_open || o->deleg || ns_of(&ev->t_reply) - o->t_open > f->window_ns)
        return;
    o->t_open = 0;
    o->short_opens++;
    o->storm_us += o->open_us + *cost;
    v->short_opens++;
    if (o->short_opens == FND_V4_OPEN_MIN) {
        v->storm_files++;
        *cost = 0;
        findings_credit(f, FK_OPEN_CLOSE, ev, FND_V4_OPEN_MIN, o->storm_us);
    } else if (o->short_opens > FND_V4_OPEN_MIN) {
        findings_credit(f, FK_OPEN_CLOSE, ev, 1, o->open_us + claim(cost));
    }
}

#define NLM_DENIED 1 /* nlm4_stats NLM4_DENIED, nlm_stats LCK_DENIED */

void
findings_nlm_record(struct findings *f, const struct op_event *ev)
{
    struct fnd_v4 *v = &f->v4;
    bool test = ev->kind == OPK_LOCK_TEST, denied;
    uint64_t cost;

    if (ev->outcome != OP_REPLIED || !ev->has_status)
        return;
    denied = ev->status == NLM_DENIED;
    cost = us_between(ns_of(&ev->t_call), ns_of(&ev->t_reply));
    f->total_us += cost;
    if (ev->net_delay) /* the network's, unclaimed here: no network finding sees NLM */
        cost = 0;
    if (test) {
        v->nlm_test++;
        v->nlm_test_denied += denied;
        if (denied && ev->v4.lock_owner) /* its nlm4_holder: the lock in the way */
            lock_denied_by(f, ev, true);
    } else {
        v->nlm_lock++;
        v->nlm_denied += denied;
    }
    if (denied)
        findings_credit(f, FK_LOCK_CONTENTION, ev, !test, cost);
}

/* ---- delegation_recalls ------------------------------------------------------------ */

/* The recall of delegation sid (op_nfs4.deleg_sid): found, or (create)
 * started in its slot, replacing an older one (counted in evicted). */
static struct fnd_v4_recall *
recall_slot(struct findings *f, uint64_t sid, bool create)
{
    struct fnd_v4_recall *r = &f->v4.recall_t[sid & (FND_V4_RECALLS - 1)];

    if (r->sid == sid)
        return r;
    if (!create)
        return NULL;
    if (r->sid)
        f->evicted++;
    r->sid = sid;
    r->t_recall = 0;
    return r;
}

static uint64_t
file_key(const struct findings *f, struct bytes fh)
{
    uint64_t k = hash_bytes(fh.p, fh.len, f->seed ^ 0x64656c67ULL);

    return k ? k : 1;
}

/* The (directory, name) an OPEN or LOOKUP by name gave. */
static uint64_t
name_key(const struct findings *f, const struct op_event *ev)
{
    uint64_t k = hash_bytes(ev->name.p, ev->name.len,
                            hash_bytes(ev->fh.p, ev->fh.len, f->seed ^ 0x6e616d65ULL));

    return k ? k : 1;
}

/* The delegated file of key `file`: found, or (create) started in its
 * slot, replacing an older one (counted in evicted). */
static struct fnd_v4_deleg *
deleg_slot(struct findings *f, uint64_t file, bool create)
{
    struct fnd_v4_deleg *d = &f->v4.deleg_t[file & (FND_V4_DELEGS - 1)];

    if (d->file == file)
        return d;
    if (!create)
        return NULL;
    if (d->file)
        f->evicted++;
    memset(d, 0, sizeof *d);
    d->file = file;
    return d;
}

/* Client ck holds a delegation of the file fh (one per client and file,
 * RFC 8881 §10.4). */
static void
deleg_hold(struct findings *f, struct bytes fh, uint64_t ck)
{
    struct fnd_v4_deleg *d = deleg_slot(f, file_key(f, fh), true);
    unsigned i, empty = FND_V4_HOLDERS;

    for (i = 0; i < FND_V4_HOLDERS; i++) {
        if (d->holder[i] == (ck | 1))
            return;
        if (!d->holder[i] && empty == FND_V4_HOLDERS)
            empty = i;
    }
    if (empty < FND_V4_HOLDERS)
        d->holder[empty] = ck | 1;
}

/* Client ck gave its delegation of the file fh back (DELEGRETURN). */
static void
deleg_return(struct findings *f, struct bytes fh, uint64_t ck)
{
    struct fnd_v4_deleg *d = deleg_slot(f, file_key(f, fh), false);
    unsigned i, left = 0;

    if (!d)
        return;
    for (i = 0; i < FND_V4_HOLDERS; i++) {
        if (d->holder[i] == (ck | 1))
            d->holder[i] = 0;
        left += d->holder[i] != 0;
    }
    if (!left)
        d->file = 0;
}

/* An OPEN answered NFS4ERR_DELAY waits for a recall when a client other
 * than the opener holds a delegation of the file it opens: the server
 * recalls it and answers conflicting OPENs NFS4ERR_DELAY until it is
 * returned (RFC 8881 §10.4.4, §15.1.1.3). The file: CLAIM_FH's current
 * handle, or the (directory, name) an OPEN or LOOKUP by name resolved to
 * it. */
static bool
waits_for_recall(struct findings *f, const struct op_event *ev, uint64_t ck)
{
    const struct fnd_v4_deleg *d = NULL;
    uint64_t nk;
    unsigned i;

    if (!ev->name.len) {
        d = ev->fh.len ? deleg_slot(f, file_key(f, ev->fh), false) : NULL;
    } else {
        nk = name_key(f, ev);
        for (i = 0; i < FND_V4_DELEGS && !d; i++)
            if (f->v4.deleg_t[i].file && f->v4.deleg_t[i].name == nk)
                d = &f->v4.deleg_t[i];
    }
    for (i = 0; d && i < FND_V4_HOLDERS; i++)
        if (d->holder[i] && d->holder[i] != (ck | 1))
            return true;
    return false;
}

/* A CB_RECALL (RFC 8881 §20.2, RFC 7530 §16.2.2) the client answered: an
 * instance; its delegation's recall starts at the call, and the client
 * holds a delegation of the file. One never answered is an instance too,
 * counted apart and not followed to a DELEGRETURN: it is known at the call
 * timeout or the capture's end, out of time order. It costs no call time:
 * a callback is the server's call; the wait is that of the OPENs it
 * delays (recalls()). */
void
findings_nfs4_callback(struct findings *f, const struct op_event *ev)
{
    struct fnd_v4_recall *r;

    if (!ev->v4.deleg_sid || (ev->outcome != OP_REPLIED && ev->outcome != OP_NO_REPLY))
        return;
    /* The event's client is the one the callback was sent to (PGF_CALLBACK). */
    findings_credit(f, FK_DELEG_RECALLS, ev, 1, 0);
    if (ev->outcome == OP_NO_REPLY) {
        f->v4.recalls_unanswered++;
        return;
    }
    f->v4.recalls++;
    if (ev->fh.len)
        deleg_hold(f, ev->fh, client_key(f, ev));
    r = recall_slot(f, ev->v4.deleg_sid, true);
    if (!r->t_recall) /* the first recall of the delegation */
        r->t_recall = ns_of(&ev->t_call);
}

/* A COMPOUND's share, before delay_grace_storms: an OPEN answered
 * NFS4ERR_DELAY while another client holds a delegation of the file
 * (evidence, claiming its time; the opener's first such try to its OPEN
 * granted is evidence too), the DELEGRETURN of a recalled delegation (the
 * time since its recall), delegations revoked (NFS4ERR_DELEG_REVOKED,
 * §15.1.5.2, an instance each; the SEQUENCE flag
 * SEQ4_STATUS_RECALLABLE_STATE_REVOKED, §18.46.3: a recall not answered
 * in time). The OPENs and CB_RECALLs granted and answered tell who holds
 * which file's delegations. Returns true if it claimed a DELAY. */
static bool
recalls(struct findings *f, const struct op_event *ev, uint64_t ck, uint64_t *cost)
{
    struct fnd_v4 *v = &f->v4;
    uint8_t mop = nfs4_op_unpack((uint8_t)ev->main_ops, 0);
    struct fnd_v4_recall *r;
    struct fnd_v4_wait *w;

    if (ev->v4.has_seq && (ev->v4.seq_flags & SEQ4_STATUS_RECALLABLE_STATE_REVOKED))
        v->recallable_revoked++;
    if (ev->status == ERR_DELEG_REVOKED) {
        v->deleg_revoked++;
        findings_credit(f, FK_DELEG_RECALLS, ev, 1, 0);
    }
    if (mop == OP_OPEN && ev->status == ERR_DELAY && waits_for_recall(f, ev, ck)) {
        v->recall_delays++;
        findings_credit(f, FK_DELEG_RECALLS, ev, 0, claim(cost));
        w = wait_slot(f, retry_key(f, ev, ck, W_RECALL), true);
        if (!w->tries++)
            w->t_first = ns_of(&ev->t_call);
        return true;
    }
    if (ev->status == 0 && ev->name.len && ev->obj_fh.len) { /* a name resolved */
        struct fnd_v4_deleg *d = deleg_slot(f, file_key(f, ev->obj_fh), false);

        if (d)
            d->name = name_key(f, ev);
    }
    if (mop == OP_OPEN && ev->status == 0) {
        struct bytes file = open_file(ev);

        if (granted_deleg(ev) && file.len) {
            deleg_hold(f, file, ck);
            if (ev->name.len)
                deleg_slot(f, file_key(f, file), false)->name = name_key(f, ev);
        }
        w = wait_slot(f, retry_key(f, ev, ck, W_RECALL), false);
        if (w && w->tries) {
            uint64_t us = us_between(w->t_first, ns_of(&ev->t_reply));

            v->recall_waited++;
            v->recall_wait_us += us;
            if (us > v->recall_wait_max_us)
                v->recall_wait_max_us = us;
            w->key = 0;
        }
    }
    if (mop != OP_DELEGRETURN)
        return false;
    if (ev->v4.main_done && ev->fh.len)
        deleg_return(f, ev->fh, ck);
    r = ev->v4.deleg_sid ? recall_slot(f, ev->v4.deleg_sid, false) : NULL;
    if (r) { /* a DELEGRETURN of a recalled delegation */
        uint64_t us = us_between(r->t_recall, ns_of(&ev->t_call));

        v->recall_returned++;
        v->recall_us += us;
        if (us > v->recall_max_us)
            v->recall_max_us = us;
        r->sid = 0;
    }
    return false;
}

void
findings_nfs4_record(struct findings *f, const struct op_event *ev, uint64_t *unclaimed)
{
    uint64_t ck;

    if (ev->outcome == OP_REPLIED && ev->proc == NFSPROC4_COMPOUND && !ev->has_main_ops)
        f->v4.undecoded++;
    if (ev->outcome != OP_REPLIED || !ev->has_status || !ev->has_main_ops)
        return;
    ck = client_key(f, ev);
    if (ev->kind == OPK_LOCK || ev->kind == OPK_LOCK_TEST)
        locks(f, ev, ck, unclaimed);
    if (!recalls(f, ev, ck, unclaimed))
        retries(f, ev, ck, unclaimed);
    stale(f, ev, ck, unclaimed);
    sessions(f, ev, unclaimed);
    opens(f, ev, ck, unclaimed);
}
