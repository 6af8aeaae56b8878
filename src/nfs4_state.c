/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs4_state.c: NFSv4 client ids, sessions, stateids and delegations
 * (RFC 7530, RFC 8881); see nfs4_state.h. */
#include "nfs4_state.h"

#include <stdlib.h>
#include <string.h>

#include "flow_key.h"
#include "hashtab.h"
#include "stats.h"

/* Client ids, sessionids and stateids are the server's own (RFC 8881
 * §2.4, §2.10.3, §8.2.1: only the server that made one interprets it), so
 * two servers may use the same values: a table's key is the server's
 * address family (1 byte) and address (16), then the identifier (skey()). */
#define KEY_SERVER 17
#define KEY_MAX (KEY_SERVER + NFS4_SESSIONID_SIZE)

#define LRU_MEMO_BITS 8

/* A fixed set of slots with a hash index on a key of up to KEY_MAX bytes
 * and a recency list: the least recently used slot is the one a new key
 * takes when all are in use (names.c does the same for handles). */
struct lru {
    struct hashtab idx;
    uint8_t (*key)[KEY_MAX];
    uint64_t *hash;          /* 0: the slot is free */
    uint32_t *prev, *next;   /* recency: head most recent */
    uint32_t head, tail, free_head;
    size_t cap, count, fresh, klen;
    uint64_t seed;
    uint32_t memo[1u << LRU_MEMO_BITS]; /* slots found last, by lru_memo_ix */
};

static int
lru_init(struct lru *t, size_t cap, size_t klen, uint64_t seed)
{
    memset(t, 0, sizeof *t);
    if (cap == 0 || cap >= HT_NONE || klen > KEY_MAX)
        return -1;
    t->key = calloc(cap, sizeof *t->key);
    t->hash = calloc(cap, sizeof *t->hash);
    t->prev = calloc(cap, sizeof *t->prev);
    t->next = calloc(cap, sizeof *t->next);
    if (!t->key || !t->hash || !t->prev || !t->next || hashtab_init(&t->idx, cap) != 0) {
        free(t->key);
        free(t->hash);
        free(t->prev);
        free(t->next);
        return -1;
    }
    t->cap = cap;
    t->klen = klen;
    t->seed = seed;
    t->head = t->tail = t->free_head = HT_NONE;
    return 0;
}

static void
lru_fini(struct lru *t)
{
    if (!t->cap)
        return;
    hashtab_fini(&t->idx);
    free(t->key);
    free(t->hash);
    free(t->prev);
    free(t->next);
    memset(t, 0, sizeof *t);
}

static uint64_t
lru_hash(const struct lru *t, const void *k)
{
    uint64_t h = hash_bytes(k, t->klen, t->seed);
    return h ? h : 1;
}

static uint32_t
lru_lookup(const struct lru *t, const void *k)
{
    uint64_t h = lru_hash(t, k);
    uint32_t pos, s;

    for (s = hashtab_first(&t->idx, h, &pos); s != HT_NONE; s = hashtab_next(&t->idx, h, &pos))
        if (t->hash[s] == h && memcmp(t->key[s], k, t->klen) == 0)
            return s;
    return HT_NONE;
}

/* The memo entry of key k: a fold of its server's address and its
 * identifier's first and last 8 bytes (not a hash: a memo entry is only a
 * guess, checked against the slot's whole key). */
static unsigned
lru_memo_ix(const struct lru *t, const uint8_t *k)
{
    uint64_t a, b, c, d;

    memcpy(&a, k + 1, 8);
    memcpy(&b, k + 9, 8);
    memcpy(&c, k + KEY_SERVER, 8);
    memcpy(&d, k + t->klen - 8, 8);
    a = (a ^ (b << 1) ^ (c << 2) ^ (d << 3)) * 0x9e3779b97f4a7c15ULL;
    return (unsigned)(a >> (64 - LRU_MEMO_BITS));
}

/* The slot of key k, or HT_NONE: first the slot the memo remembers for
 * keys like it, if it holds k (a key is in one slot at most), else
 * through the index (and then remembered). */
static uint32_t
lru_find(struct lru *t, const void *k)
{
    unsigned m = lru_memo_ix(t, k);
    uint32_t s = t->memo[m];

    if (s < t->fresh && t->hash[s] && memcmp(t->key[s], k, t->klen) == 0)
        return s;
    s = lru_lookup(t, k);
    if (s != HT_NONE)
        t->memo[m] = s;
    return s;
}

static void
lru_unlink(struct lru *t, uint32_t s)
{
    if (t->prev[s] != HT_NONE)
        t->next[t->prev[s]] = t->next[s];
    else
        t->head = t->next[s];
    if (t->next[s] != HT_NONE)
        t->prev[t->next[s]] = t->prev[s];
    else
        t->tail = t->prev[s];
}

static void
lru_push(struct lru *t, uint32_t s)
{
    t->prev[s] = HT_NONE;
    t->next[s] = t->head;
    if (t->head != HT_NONE)
        t->prev[t->head] = s;
    t->head = s;
    if (t->tail == HT_NONE)
        t->tail = s;
}

static void
lru_touch(struct lru *t, uint32_t s)
{
    lru_unlink(t, s);
    lru_push(t, s);
}

static void
lru_remove(struct lru *t, uint32_t s)
{
    hashtab_remove(&t->idx, t->hash[s], s);
    lru_unlink(t, s);
    t->hash[s] = 0;
    t->next[s] = t->free_head;
    t->free_head = s;
    t->count--;
}

/* The slot of key k, most recent; a new one when absent (*created), taking
 * the least recently used slot when all are in use (*evicted: the caller
 * accounts for the entry it held, then clears it). */
static uint32_t
lru_get(struct lru *t, const void *k, bool *created, bool *evicted)
{
    uint32_t s = lru_find(t, k);
    uint64_t h;

    *created = *evicted = false;
    if (s != HT_NONE) {
        lru_touch(t, s);
        return s;
    }
    if (t->free_head == HT_NONE && t->fresh < t->cap) {
        t->next[t->fresh] = HT_NONE;
        t->free_head = (uint32_t)t->fresh++;
    }
    if (t->free_head == HT_NONE) {
        lru_remove(t, t->tail);
        *evicted = true;
    }
    s = t->free_head;
    t->free_head = t->next[s];
    h = lru_hash(t, k);
    t->hash[s] = h;
    memcpy(t->key[s], k, t->klen);
    hashtab_insert(&t->idx, h, s);
    t->count++;
    lru_push(t, s);
    t->memo[lru_memo_ix(t, k)] = s;
    *created = true;
    return s;
}

/* ---- the state ---- */

struct skey {
    uint8_t b[KEY_MAX];
};

/* The table key of identifier id (len bytes) of server (af, server). */
static const uint8_t *
skey(struct skey *k, uint8_t af, const uint8_t server[16], const void *id, size_t len)
{
    k->b[0] = af;
    memcpy(k->b + 1, server, 16);
    memcpy(k->b + KEY_SERVER, id, len);
    return k->b;
}

/* The same, of who's server. */
static const uint8_t *
who_key(struct skey *k, const struct nfs4_state_who *who, const void *id, size_t len)
{
    return skey(k, who->af, who->server, id, len);
}

enum sid_kind { SID_OPEN, SID_LOCK, SID_DELEG, SID__COUNT };

struct sid {
    uint8_t kind;     /* enum sid_kind */
    struct nfs4_deleg_info d; /* who and when (type: delegations only) */
};

struct nfs4_state {
    struct lru cl, se, si;
    struct nfs4_client *clients;
    struct nfs4_session *sessions;
    struct sid *sids;
    /* First sight: the latest frame of the messages recorded (frames count
     * the whole input, so shards of one run compare), then a counter within
     * that frame (next_order). */
    uint64_t frame, sub;
    uint64_t *cl_order, *se_order;
    size_t sid_active[SID__COUNT];
    struct nfs4_state_stats st;
};

struct nfs4_state *
nfs4_state_new(size_t clients, size_t sessions, size_t stateids, uint64_t seed)
{
    struct nfs4_state *st = calloc(1, sizeof *st);

    if (!st)
        return NULL;
    if (lru_init(&st->cl, clients, KEY_SERVER + 8, seed ^ 0x636c) != 0 ||
        lru_init(&st->se, sessions, KEY_SERVER + NFS4_SESSIONID_SIZE, seed ^ 0x7365) != 0 ||
        lru_init(&st->si, stateids, KEY_SERVER + 12, seed ^ 0x7369) != 0)
        goto fail;
    st->clients = calloc(clients, sizeof *st->clients);
    st->sessions = calloc(sessions, sizeof *st->sessions);
    st->sids = calloc(stateids, sizeof *st->sids);
    histo_init(&st->st.recalls.to_return);
    st->cl_order = calloc(clients, sizeof *st->cl_order);
    st->se_order = calloc(sessions, sizeof *st->se_order);
    if (!st->clients || !st->sessions || !st->sids || !st->cl_order || !st->se_order)
        goto fail;
    return st;
fail:
    nfs4_state_free(st);
    return NULL;
}

void
nfs4_state_free(struct nfs4_state *st)
{
    if (!st)
        return;
    lru_fini(&st->cl);
    lru_fini(&st->se);
    lru_fini(&st->si);
    free(st->clients);
    free(st->sessions);
    free(st->sids);
    free(st->cl_order);
    free(st->se_order);
    free(st);
}

static void
status_add(struct nfs4_status_map *m, uint32_t status)
{
    uint32_t i;

    for (i = 0; i < m->n; i++)
        if (m->status[i] == status) {
            m->count[i]++;
            return;
        }
    if (m->n < NFS4_STATE_STATUS) {
        m->status[m->n] = status;
        m->count[m->n++] = 1;
        return;
    }
    m->other++;
}

/* The errors that say state was lost, ended or never granted (RFC 8881
 * §15.1.5, §15.1.16: stateid, seqid, clientid, session and lease errors). */
static bool
state_error(uint32_t status)
{
    switch (status) {
    case 10011: /* NFS4ERR_EXPIRED */
    case 10022: /* NFS4ERR_STALE_CLIENTID */
    case 10023: /* NFS4ERR_STALE_STATEID */
    case 10024: /* NFS4ERR_OLD_STATEID */
    case 10025: /* NFS4ERR_BAD_STATEID */
    case 10026: /* NFS4ERR_BAD_SEQID */
    case 10047: /* NFS4ERR_ADMIN_REVOKED */
    case 10052: /* NFS4ERR_BADSESSION */
    case 10078: /* NFS4ERR_DEADSESSION */
    case 10087: /* NFS4ERR_DELEG_REVOKED */
        return true;
    default:
        return false;
    }
}

/* An entry's place in order of first sight (see struct nfs4_state). */
static uint64_t
next_order(struct nfs4_state *st)
{
    return st->frame << 16 | (st->sub < 0xffff ? st->sub++ : 0xffff);
}

static struct nfs4_client *
client_get(struct nfs4_state *st, uint64_t clientid, const struct nfs4_state_who *who,
           uint32_t minor)
{
    struct skey k;
    bool created, evicted;
    uint32_t s = lru_get(&st->cl, who_key(&k, who, &clientid, 8), &created, &evicted);
    struct nfs4_client *c = &st->clients[s];

    if (evicted)
        st->st.clients.evicted++;
    if (created) {
        memset(c, 0, sizeof *c);
        c->clientid = clientid;
        c->af = who->af;
        memcpy(c->addr, who->addr, sizeof c->addr);
        memcpy(c->server, who->server, sizeof c->server);
        c->minor = minor <= 0xfe ? (uint8_t)minor : 0xfe;
        c->t_first = who->t;
        st->cl_order[s] = next_order(st);
    }
    c->t_last = who->t;
    return c;
}

static struct nfs4_client *
client_find(struct nfs4_state *st, const struct nfs4_state_who *who, uint64_t clientid)
{
    struct skey k;
    uint32_t s = lru_find(&st->cl, who_key(&k, who, &clientid, 8));

    return s == HT_NONE ? NULL : &st->clients[s];
}

static struct nfs4_session *
session_get(struct nfs4_state *st, const uint8_t *sessionid, const struct nfs4_state_who *who)
{
    struct skey k;
    bool created, evicted;
    uint32_t s = lru_get(&st->se, who_key(&k, who, sessionid, NFS4_SESSIONID_SIZE), &created,
                         &evicted);
    struct nfs4_session *se = &st->sessions[s];

    if (evicted)
        st->st.sessions.evicted++;
    if (created) {
        memset(se, 0, sizeof *se);
        memcpy(se->sessionid, sessionid, NFS4_SESSIONID_SIZE);
        se->af = who->af;
        memcpy(se->server, who->server, sizeof se->server);
        se->t_first = who->t;
        se->target_min = UINT32_MAX;
        st->se_order[s] = next_order(st);
    }
    se->t_last = who->t;
    return se;
}

static struct nfs4_session *
session_find(struct nfs4_state *st, const struct nfs4_state_who *who, const uint8_t *sessionid)
{
    struct skey k;
    uint32_t s = lru_find(&st->se, who_key(&k, who, sessionid, NFS4_SESSIONID_SIZE));

    return s == HT_NONE ? NULL : &st->sessions[s];
}

/* A delegation leaves the table: if it was recalled and not given back,
 * it no longer counts as pending. */
static void
recall_drop(struct nfs4_state *st, const struct sid *e)
{
    if (e->kind == SID_DELEG && e->d.recalled && !e->d.returning)
        st->st.recalls.pending--;
}

static void
sid_forget(struct nfs4_state *st, uint32_t s)
{
    recall_drop(st, &st->sids[s]);
    st->sid_active[st->sids[s].kind]--;
    lru_remove(&st->si, s);
}

static struct sid *
sid_put(struct nfs4_state *st, const uint8_t other[12], enum sid_kind kind,
        const struct nfs4_state_who *who, uint64_t clientid)
{
    struct skey k;
    const uint8_t *key = who_key(&k, who, other, 12);
    bool created, evicted;
    uint32_t s;
    struct sid *e;

    s = lru_find(&st->si, key);
    if (s != HT_NONE && st->sids[s].kind != kind) { /* reused for another kind: hostile */
        sid_forget(st, s);
    }
    s = lru_get(&st->si, key, &created, &evicted);
    e = &st->sids[s];
    if (evicted) {
        recall_drop(st, e);
        if (e->kind == SID_DELEG)
            st->st.delegations.evicted++;
        else
            st->st.stateids.evicted++;
        st->sid_active[e->kind]--;
    }
    if (created) {
        memset(e, 0, sizeof *e);
        e->kind = (uint8_t)kind;
        st->sid_active[kind]++;
    }
    e->d.t_granted = who->t;
    e->d.af = who->af;
    memcpy(e->d.addr, who->addr, sizeof e->d.addr);
    e->d.clientid = clientid;
    return e;
}

/* The clientid a COMPOUND acts for: its SEQUENCE's session's (4.1), or the
 * one its 4.0 OPEN or LOCK owner gave; 0 when not known. */
static uint64_t
compound_clientid(struct nfs4_state *st, const struct nfs4_state_who *who,
                  const struct nfs4_digest *d)
{
    uint64_t id = 0;

    if (d->has_seq) {
        const struct nfs4_session *se = session_find(st, who, d->sessionid);
        return se && se->has_clientid ? se->clientid : 0;
    }
    if (d->st_op < d->ndecoded) {
        uint32_t op = nfs4_digest_op(d, d->st_op);
        if (op == OP_OPEN || op == OP_LOCK)
            memcpy(&id, d->st_arg, sizeof id);
    }
    return id;
}

static void
slot_call(struct nfs4_session *se, uint32_t slot)
{
    uint64_t bit;

    if (slot >= NFS4_STATE_SLOTS) {
        se->slots_beyond++;
        return;
    }
    bit = 1ull << (slot & 63);
    if (se->busy[slot >> 6] & bit) {
        se->slot_busy++;
        return;
    }
    se->busy[slot >> 6] |= bit;
    se->in_flight++;
    if (se->in_flight > se->max_in_flight)
        se->max_in_flight = se->in_flight;
}

static void
slot_reply(struct nfs4_session *se, uint32_t slot)
{
    uint64_t bit = 1ull << (slot & 63);

    if (slot < NFS4_STATE_SLOTS && (se->busy[slot >> 6] & bit)) {
        se->busy[slot >> 6] &= ~bit;
        se->in_flight--;
    }
}

void
nfs4_state_call(struct nfs4_state *st, const struct nfs4_state_who *who,
                const struct nfs4_op_detail *d)
{
    const struct nfs4_argop *a = d->arg;

    if (!st || !a)
        return;
    switch (a->op) {
    case OP_SEQUENCE: { /* RFC 8881 §18.46 */
        struct nfs4_session *se = session_get(st, a->u.seq.sessionid, who);
        uint64_t slots_beyond = se->slots_beyond, slot_busy = se->slot_busy;

        st->st.sessions.calls++;
        st->st.renewals.sequence++; /* §8.1.3: a SEQUENCE renews the client's lease */
        se->calls++;
        if (!se->has_slot || a->u.seq.slotid > se->max_slot)
            se->max_slot = a->u.seq.slotid;
        if (!se->has_slot || a->u.seq.highest_slotid > se->client_highest)
            se->client_highest = a->u.seq.highest_slotid;
        se->has_slot = true;
        slot_call(se, a->u.seq.slotid);
        st->st.sessions.slots_beyond += se->slots_beyond - slots_beyond;
        st->st.sessions.slot_busy += se->slot_busy - slot_busy;
        if (se->has_clientid) {
            struct nfs4_client *c = client_find(st, who, se->clientid);
            if (c) {
                c->sequences++;
                c->t_last = who->t;
            }
        }
        break;
    }
    case OP_RENEW: { /* RFC 7530 §16.29 */
        struct nfs4_client *c = client_get(st, a->clientid, who, 0);

        st->st.renewals.renew++;
        c->renewals++;
        break;
    }
    case OP_DELEGRETURN: { /* RFC 8881 §18.6 */
        struct skey k;
        uint32_t s = a->has_stateid ? lru_find(&st->si, who_key(&k, who, a->stateid.other, 12))
                                    : HT_NONE;

        st->st.delegations.delegreturn++;
        if (s != HT_NONE && st->sids[s].kind == SID_DELEG && !st->sids[s].d.returning) {
            struct nfs4_deleg_info *dl = &st->sids[s].d;

            dl->returning = true;
            dl->t_return = who->t;
            if (dl->recalled) {
                st->st.recalls.returned++;
                st->st.recalls.pending--;
                histo_record(&st->st.recalls.to_return, stats_latency_us(&dl->t_recall, &who->t));
            }
        }
        break;
    }
    default:
        break;
    }
}

/* A result that ends or changes state, with the call's argument (digest
 * st_arg) when the result does not repeat it. */
static void
result_ok(struct nfs4_state *st, const struct nfs4_state_who *who, const struct nfs4_op_detail *d,
          uint32_t index)
{
    const struct nfs4_resop *r = d->res;
    const struct nfs4_digest *cd = d->call;
    bool have_arg = cd && cd->st_op == index;
    uint64_t arg_id = 0;

    if (have_arg)
        memcpy(&arg_id, cd->st_arg, sizeof arg_id);
    switch (r->op) {
    case OP_SETCLIENTID: { /* RFC 7530 §16.33: unconfirmed until SETCLIENTID_CONFIRM */
        struct nfs4_client *c = client_get(st, r->u.cid.clientid, who, d->minorversion);

        st->st.clients.setclientid++;
        c->how = NFS4_CLIENT_SETCLIENTID;
        break;
    }
    case OP_EXCHANGE_ID: { /* RFC 8881 §18.35: confirmed by its first CREATE_SESSION */
        struct nfs4_client *c = client_get(st, r->u.cid.clientid, who, d->minorversion);

        st->st.clients.exchange_id++;
        c->how = NFS4_CLIENT_EXCHANGE_ID;
        break;
    }
    case OP_SETCLIENTID_CONFIRM: /* RFC 7530 §16.34 */
    case OP_CREATE_SESSION: {    /* RFC 8881 §18.36.4: confirms the client id */
        struct nfs4_client *c;

        if (!have_arg)
            break;
        c = client_get(st, arg_id, who, d->minorversion);
        if (!c->confirmed)
            st->st.clients.confirmed++;
        c->confirmed = true;
        if (r->op == OP_CREATE_SESSION) {
            struct nfs4_session *se = session_get(st, r->u.cs.sessionid, who);

            st->st.sessions.created++;
            se->created = true;
            se->has_clientid = true;
            se->clientid = arg_id;
            se->fore = r->u.cs.fore;
            se->back = r->u.cs.back;
            c->sessions++;
        }
        break;
    }
    case OP_DESTROY_CLIENTID: { /* RFC 8881 §18.50 */
        struct nfs4_client *c = have_arg ? client_find(st, who, arg_id) : NULL;

        st->st.clients.destroyed++;
        if (c)
            c->destroyed = true;
        break;
    }
    case OP_DESTROY_SESSION: { /* RFC 8881 §18.37 */
        struct nfs4_session *se = have_arg ? session_find(st, who, cd->st_arg) : NULL;

        st->st.sessions.destroyed++;
        if (se)
            se->destroyed = true;
        break;
    }
    case OP_OPEN: { /* RFC 8881 §18.16 */
        uint64_t cid = compound_clientid(st, who, cd);
        struct nfs4_client *c = cid ? client_find(st, who, cid) : NULL;
        uint32_t type = r->u.open.delegation;

        st->st.stateids.opens++;
        if (r->has_stateid)
            sid_put(st, r->stateid.other, SID_OPEN, who, cid);
        if (c)
            c->opens++;
        if (type < NFS4_STATE_DELEG)
            st->st.delegations.granted[type]++;
        if (type == OPEN_DELEGATE_NONE_EXT) {
            if (r->u.open.why_none < NFS4_STATE_WHY)
                st->st.delegations.why[r->u.open.why_none]++;
            else
                st->st.delegations.why_other++;
        } else if (type != OPEN_DELEGATE_NONE && type < NFS4_STATE_DELEG) {
            struct sid *e = sid_put(st, r->u.open.deleg_stateid.other, SID_DELEG, who, cid);

            e->d.type = type;
            e->d.returning = false;
            st->st.delegations.recall += r->u.open.recall;
            if (c)
                c->delegations++;
        }
        break;
    }
    case OP_OPEN_CONFIRM:
        st->st.stateids.open_confirms++;
        break;
    case OP_LOCK: { /* RFC 8881 §18.10 */
        uint64_t cid = compound_clientid(st, who, cd);
        struct nfs4_client *c = cid ? client_find(st, who, cid) : NULL;
        struct skey k;

        st->st.stateids.locks++;
        if (r->has_stateid && lru_find(&st->si, who_key(&k, who, r->stateid.other, 12)) == HT_NONE)
            sid_put(st, r->stateid.other, SID_LOCK, who, cid);
        if (c)
            c->locks++;
        break;
    }
    case OP_LOCKU:
        st->st.stateids.unlocks++;
        break;
    case OP_CLOSE:        /* RFC 8881 §18.2 */
    case OP_FREE_STATEID: /* §18.38 */
    case OP_DELEGRETURN: { /* §18.6 */
        struct skey k;
        uint32_t s = have_arg ? lru_find(&st->si, who_key(&k, who, cd->st_arg, 12)) : HT_NONE;

        if (r->op == OP_CLOSE)
            st->st.stateids.closes++;
        else if (r->op == OP_FREE_STATEID)
            st->st.stateids.freed++;
        else
            st->st.delegations.returned++;
        if (s != HT_NONE)
            sid_forget(st, s);
        else if (r->op == OP_DELEGRETURN)
            st->st.delegations.return_unknown++;
        break;
    }
    default:
        break;
    }
}

void
nfs4_state_result(struct nfs4_state *st, const struct nfs4_state_who *who,
                  const struct nfs4_op_detail *d, uint32_t index)
{
    const struct nfs4_resop *r = d->res;
    const struct nfs4_digest *cd = d->call;

    if (!st || !r || !cd || !r->has_status)
        return;
    if (r->status != NFS4_OK && state_error(r->status))
        status_add(&st->st.stateids.errors, r->status);
    switch (r->op) {
    case OP_SEQUENCE: { /* RFC 8881 §18.46.3 */
        struct nfs4_session *se;
        unsigned b;

        if (!cd->has_seq)
            break;
        se = session_get(st, cd->sessionid, who);
        st->st.sessions.replies++;
        se->replies++;
        slot_reply(se, cd->slotid);
        if (r->status != NFS4_OK) {
            st->st.sessions.errors++;
            se->errors++;
            status_add(&st->st.sessions.status, r->status);
            status_add(&se->status, r->status);
            break;
        }
        if (r->u.seq.highest_slotid > se->highest_slotid)
            se->highest_slotid = r->u.seq.highest_slotid;
        se->target_last = r->u.seq.target_highest_slotid;
        if (se->target_last < se->target_min)
            se->target_min = se->target_last;
        if (!se->has_target || se->target_last > se->target_max)
            se->target_max = se->target_last;
        se->has_target = true;
        se->flags |= r->u.seq.status_flags;
        for (b = 0; r->u.seq.status_flags && b < NFS4_STATE_FLAGS; b++)
            if (r->u.seq.status_flags >> b & 1) {
                st->st.sessions.flags[b]++;
                se->flag_replies[b]++;
            }
        return;
    }
    case OP_RENEW:
        if (r->status != NFS4_OK) {
            st->st.renewals.renew_errors++;
            status_add(&st->st.renewals.status, r->status);
        }
        return;
    case OP_DELEGRETURN:
        if (r->status != NFS4_OK)
            status_add(&st->st.delegations.return_errors, r->status);
        break;
    default:
        break;
    }
    if (r->status == NFS4_OK)
        result_ok(st, who, d, index);
}

/* A callback operation as the server (who->server, its sender) sends it: a
 * CB_RECALL of a delegation granted in the capture starts its recall (the
 * first one counts). */
static void
callback_call(struct nfs4_state *st, const struct nfs4_state_who *who, const struct nfs4_argop *a)
{
    struct skey k;
    uint32_t s;
    struct nfs4_deleg_info *dl;

    if (a->op != OP_CB_RECALL)
        return;
    st->st.recalls.calls++;
    s = a->has_stateid ? lru_find(&st->si, who_key(&k, who, a->stateid.other, 12)) : HT_NONE;
    if (s == HT_NONE || st->sids[s].kind != SID_DELEG)
        return;
    dl = &st->sids[s].d;
    if (dl->recalled || dl->returning)
        return;
    dl->recalled = true;
    dl->t_recall = who->t;
    st->st.recalls.known++;
    st->st.recalls.pending++;
}

/* Does the operation change or look up state: a call that nfs4_state_call
 * acts on, a result that nfs4_state_result (a state error, or result_ok's
 * operations) acts on? Most of a COMPOUND's operations do not (PUTFH,
 * GETATTR, READ...): they are told apart before anything is prepared. */
static bool
call_acts(uint32_t op)
{
    return op == OP_SEQUENCE || op == OP_RENEW || op == OP_DELEGRETURN;
}

static bool
result_acts(const struct nfs4_resop *r)
{
    if (!r || !r->has_status)
        return false;
    switch (r->op) {
    case OP_SEQUENCE:
    case OP_RENEW:
    case OP_DELEGRETURN:
        return true;
    case OP_SETCLIENTID:
    case OP_EXCHANGE_ID:
    case OP_SETCLIENTID_CONFIRM:
    case OP_CREATE_SESSION:
    case OP_DESTROY_CLIENTID:
    case OP_DESTROY_SESSION:
    case OP_OPEN:
    case OP_OPEN_CONFIRM:
    case OP_LOCK:
    case OP_LOCKU:
    case OP_CLOSE:
    case OP_FREE_STATEID:
        if (r->status == NFS4_OK)
            return true;
        break;
    default:
        break;
    }
    return r->status != NFS4_OK && state_error(r->status);
}

void
nfs4_state_record_op(struct nfs4_state *st, const struct op_event *msg, const struct op_item *op)
{
    const struct nfs4_op_detail *d = op->detail;
    struct nfs4_state_who who;

    uint64_t frame;

    if (!st || !d || !d->call || !msg->pg || !msg->key)
        return;
    frame = op->phase == OPI_CALL ? msg->call_frame : msg->reply_frame;
    if (frame > st->frame) { /* 0 (not known) and older frames keep the latest */
        st->frame = frame;
        st->sub = 0;
    }
    if (msg->pg == &nfs4_callback_program ? op->phase != OPI_CALL || !d->arg ||
                                                d->arg->op != OP_CB_RECALL
        : op->phase == OPI_CALL             ? !d->arg || !call_acts(d->arg->op)
                                            : !result_acts(d->res))
        return;
    /* The client and the server; a callback's client is its callee, its
     * server the sender (rpc_match.c), on either channel. */
    memset(&who, 0, sizeof who);
    who.af = msg->key->af;
    memcpy(who.addr, msg->call_dir == 0 ? msg->key->saddr : msg->key->daddr, sizeof who.addr);
    memcpy(who.server, msg->call_dir == 0 ? msg->key->daddr : msg->key->saddr, sizeof who.server);
    if (msg->pg == &nfs4_callback_program) {
        if (op->phase == OPI_CALL && d->arg) {
            who.t = msg->t_call;
            callback_call(st, &who, d->arg);
        }
        return;
    }
    if (msg->prog != NFS4_PROGRAM || msg->vers != NFS4_VERSION || msg->from_server)
        return;
    if (op->phase == OPI_CALL) {
        who.t = msg->t_call;
        nfs4_state_call(st, &who, d);
    } else if (op->phase == OPI_RESULT && msg->outcome == OP_REPLIED) {
        who.t = msg->t_reply;
        nfs4_state_result(st, &who, d, op->index);
    }
}

const struct nfs4_state_stats *
nfs4_state_stats(const struct nfs4_state *st)
{
    return &st->st;
}

size_t
nfs4_state_clients_active(const struct nfs4_state *st)
{
    return st ? st->cl.count : 0;
}

size_t
nfs4_state_sessions_active(const struct nfs4_state *st)
{
    return st ? st->se.count : 0;
}

size_t
nfs4_state_stateids_active(const struct nfs4_state *st, unsigned kind)
{
    return st && kind < SID__COUNT ? st->sid_active[kind] : 0;
}

/* The top `max` of the used slots by weight, ties by first sight: an
 * insertion into the sorted out[] (max is small). */
static size_t
top_slots(const struct lru *t, const uint64_t *order, uint64_t (*weight)(const void *, uint32_t),
          const void *ctx, uint32_t *out, size_t max)
{
    size_t n = 0, s;

    for (s = 0; s < t->fresh; s++) {
        size_t i, j;
        uint64_t w;

        if (!t->hash[s])
            continue;
        w = weight(ctx, (uint32_t)s);
        for (i = 0; i < n; i++) {
            uint64_t ow = weight(ctx, out[i]);
            if (w > ow || (w == ow && order[s] < order[out[i]]))
                break;
        }
        if (i >= max)
            continue;
        if (n < max)
            n++;
        for (j = n - 1; j > i; j--)
            out[j] = out[j - 1];
        out[i] = (uint32_t)s;
    }
    return n;
}

static uint64_t
session_weight(const void *ctx, uint32_t s)
{
    return ((const struct nfs4_state *)ctx)->sessions[s].calls;
}

static uint64_t
client_weight(const void *ctx, uint32_t s)
{
    const struct nfs4_client *c = &((const struct nfs4_state *)ctx)->clients[s];
    return c->sequences + c->renewals;
}

#define TOP_MAX 64

size_t
nfs4_state_sessions(const struct nfs4_state *st, const struct nfs4_session **out, size_t max)
{
    uint32_t slots[TOP_MAX];
    size_t n, i;

    if (!st)
        return 0;
    n = top_slots(&st->se, st->se_order, session_weight, st, slots, max < TOP_MAX ? max : TOP_MAX);
    for (i = 0; i < n; i++)
        out[i] = &st->sessions[slots[i]];
    return n;
}

size_t
nfs4_state_clients(const struct nfs4_state *st, const struct nfs4_client **out, size_t max)
{
    uint32_t slots[TOP_MAX];
    size_t n, i;

    if (!st)
        return 0;
    n = top_slots(&st->cl, st->cl_order, client_weight, st, slots, max < TOP_MAX ? max : TOP_MAX);
    for (i = 0; i < n; i++)
        out[i] = &st->clients[slots[i]];
    return n;
}

bool
nfs4_state_delegation(const struct nfs4_state *st, uint8_t af, const uint8_t server[16],
                      const uint8_t other[12], struct nfs4_deleg_info *out)
{
    struct skey k;
    uint32_t s = st ? lru_lookup(&st->si, skey(&k, af, server, other, 12)) : HT_NONE;

    if (s == HT_NONE || st->sids[s].kind != SID_DELEG)
        return false;
    *out = st->sids[s].d;
    return true;
}

const char *
nfs4_seq_flag_name(unsigned bit)
{
    static const char *const n[NFS4_STATE_FLAGS] = {
        "SEQ4_STATUS_CB_PATH_DOWN",
        "SEQ4_STATUS_CB_GSS_CONTEXTS_EXPIRING",
        "SEQ4_STATUS_CB_GSS_CONTEXTS_EXPIRED",
        "SEQ4_STATUS_EXPIRED_ALL_STATE_REVOKED",
        "SEQ4_STATUS_EXPIRED_SOME_STATE_REVOKED",
        "SEQ4_STATUS_ADMIN_STATE_REVOKED",
        "SEQ4_STATUS_RECALLABLE_STATE_REVOKED",
        "SEQ4_STATUS_LEASE_MOVED",
        "SEQ4_STATUS_RESTART_RECLAIM_NEEDED",
        "SEQ4_STATUS_CB_PATH_DOWN_SESSION",
        "SEQ4_STATUS_BACKCHANNEL_FAULT",
        "SEQ4_STATUS_DEVID_CHANGED",
        "SEQ4_STATUS_DEVID_DELETED",
    };
    return bit < NFS4_STATE_FLAGS ? n[bit] : NULL;
}

/* ---- the shards of one run (pipeline.h) ---- */

static void
status_merge(struct nfs4_status_map *dst, const struct nfs4_status_map *src)
{
    uint32_t i, j;

    dst->other += src->other;
    for (i = 0; i < src->n; i++) {
        for (j = 0; j < dst->n && dst->status[j] != src->status[i]; j++)
            ;
        if (j == dst->n && dst->n == NFS4_STATE_STATUS) {
            dst->other += src->count[i];
            continue;
        }
        if (j == dst->n) {
            dst->status[j] = src->status[i];
            dst->count[j] = 0;
            dst->n++;
        }
        dst->count[j] += src->count[i];
    }
}

#define ADD(f) (d->f += s->f)

static void
counts_merge(struct nfs4_state_stats *d, const struct nfs4_state_stats *s)
{
    unsigned i;

    ADD(clients.setclientid), ADD(clients.exchange_id), ADD(clients.confirmed);
    ADD(clients.destroyed), ADD(clients.evicted);
    ADD(renewals.renew), ADD(renewals.renew_errors), ADD(renewals.sequence);
    status_merge(&d->renewals.status, &s->renewals.status);
    ADD(sessions.created), ADD(sessions.destroyed), ADD(sessions.evicted), ADD(sessions.calls);
    ADD(sessions.replies), ADD(sessions.errors), ADD(sessions.slot_busy);
    ADD(sessions.slots_beyond);
    status_merge(&d->sessions.status, &s->sessions.status);
    for (i = 0; i < NFS4_STATE_FLAGS; i++)
        ADD(sessions.flags[i]);
    ADD(stateids.opens), ADD(stateids.open_confirms), ADD(stateids.closes), ADD(stateids.locks);
    ADD(stateids.unlocks), ADD(stateids.freed), ADD(stateids.evicted);
    status_merge(&d->stateids.errors, &s->stateids.errors);
    for (i = 0; i < NFS4_STATE_DELEG; i++)
        ADD(delegations.granted[i]);
    for (i = 0; i < NFS4_STATE_WHY; i++)
        ADD(delegations.why[i]);
    ADD(delegations.why_other), ADD(delegations.recall), ADD(delegations.delegreturn);
    ADD(delegations.returned), ADD(delegations.return_unknown), ADD(delegations.evicted);
    status_merge(&d->delegations.return_errors, &s->delegations.return_errors);
    ADD(recalls.calls), ADD(recalls.known), ADD(recalls.returned), ADD(recalls.pending);
    histo_merge(&d->recalls.to_return, &s->recalls.to_return);
}

/* A client both shards saw (one client id from two addresses): counts add,
 * who it is stays the first-seen one's. */
static void
client_merge(struct nfs4_client *d, const struct nfs4_client *s, bool s_first)
{
    struct nfs4_client m = s_first ? *s : *d;
    const struct nfs4_client *o = s_first ? d : s;

    m.confirmed |= o->confirmed;
    m.destroyed |= o->destroyed;
    m.sessions += o->sessions;
    m.renewals += o->renewals;
    m.sequences += o->sequences;
    m.opens += o->opens;
    m.locks += o->locks;
    m.delegations += o->delegations;
    if (o->t_last.tv_sec > m.t_last.tv_sec ||
        (o->t_last.tv_sec == m.t_last.tv_sec && o->t_last.tv_nsec > m.t_last.tv_nsec))
        m.t_last = o->t_last;
    *d = m;
}

/* A session both shards saw (trunked over two addresses): the first-seen
 * one's detail, the SEQUENCE counts of both. */
static void
session_merge(struct nfs4_session *d, const struct nfs4_session *s, bool s_first)
{
    struct nfs4_session m = s_first ? *s : *d;
    const struct nfs4_session *o = s_first ? d : s;

    m.calls += o->calls;
    m.replies += o->replies;
    m.errors += o->errors;
    m.slot_busy += o->slot_busy;
    m.slots_beyond += o->slots_beyond;
    status_merge(&m.status, &o->status);
    *d = m;
}

void
nfs4_state_merge(struct nfs4_state *dst, const struct nfs4_state *src)
{
    uint32_t s;

    if (!dst || !src)
        return;
    counts_merge(&dst->st, &src->st);
    for (s = src->cl.tail; s != HT_NONE; s = src->cl.prev[s]) { /* least recent first */
        bool created, evicted;
        uint32_t d = lru_get(&dst->cl, src->cl.key[s], &created, &evicted);

        if (evicted)
            dst->st.clients.evicted++;
        if (created) {
            dst->clients[d] = src->clients[s];
            dst->cl_order[d] = src->cl_order[s];
        } else {
            if (dst->clients[d].confirmed && src->clients[s].confirmed)
                dst->st.clients.confirmed--; /* one client id, confirmed once */
            client_merge(&dst->clients[d], &src->clients[s], src->cl_order[s] < dst->cl_order[d]);
            if (src->cl_order[s] < dst->cl_order[d])
                dst->cl_order[d] = src->cl_order[s];
        }
    }
    for (s = src->se.tail; s != HT_NONE; s = src->se.prev[s]) {
        bool created, evicted;
        uint32_t d = lru_get(&dst->se, src->se.key[s], &created, &evicted);

        if (evicted)
            dst->st.sessions.evicted++;
        if (created) {
            dst->sessions[d] = src->sessions[s];
            dst->se_order[d] = src->se_order[s];
        } else {
            session_merge(&dst->sessions[d], &src->sessions[s], src->se_order[s] < dst->se_order[d]);
            if (src->se_order[s] < dst->se_order[d])
                dst->se_order[d] = src->se_order[s];
        }
    }
    for (s = src->si.tail; s != HT_NONE; s = src->si.prev[s]) {
        bool created, evicted;
        uint32_t d;

        if (lru_find(&dst->si, src->si.key[s]) != HT_NONE)
            continue; /* the stateid dst holds stands */
        d = lru_get(&dst->si, src->si.key[s], &created, &evicted);
        if (evicted) {
            recall_drop(dst, &dst->sids[d]);
            if (dst->sids[d].kind == SID_DELEG)
                dst->st.delegations.evicted++;
            else
                dst->st.stateids.evicted++;
            dst->sid_active[dst->sids[d].kind]--;
        }
        dst->sids[d] = src->sids[s];
        dst->sid_active[dst->sids[d].kind]++;
    }
}
