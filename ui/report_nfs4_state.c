/* SPDX-License-Identifier: BSD-3-Clause */
/* report_nfs4_state.c: NFSv4 clients, sessions, stateids and delegations
 * in the JSON report; see report_nfs4_state.h. Status maps hold errors by
 * name in status-value order, as elsewhere in the report. */
#include "report_nfs4_state.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <sys/socket.h>

#include "flow_key.h"
#include "nfs4.h"
#include "nfs4_state.h"

static void
status_map(struct json_w *w, const char *key, const struct nfs4_status_map *m)
{
    bool done[NFS4_STATE_STATUS] = { false };
    uint32_t k, i;

    json_key(w, key);
    json_obj(w);
    for (k = 0; k < m->n; k++) { /* selection by smallest status: n <= 8 */
        uint32_t best = m->n;
        const char *name;
        char buf[32];

        for (i = 0; i < m->n; i++)
            if (!done[i] && (best == m->n || m->status[i] < m->status[best]))
                best = i;
        done[best] = true;
        name = nfs4_status_name(m->status[best]);
        if (!name) {
            snprintf(buf, sizeof buf, "unknown(%lu)", (unsigned long)m->status[best]);
            name = buf;
        }
        json_kv_u64(w, name, m->count[best]);
    }
    json_close(w);
    if (m->other) {
        char okey[64];
        snprintf(okey, sizeof okey, "%s_other", key);
        json_kv_u64(w, okey, m->other);
    }
}

static void
hex(struct json_w *w, const uint8_t *p, size_t n)
{
    char buf[2 * NFS4_SESSIONID_SIZE + 1];
    size_t i;

    for (i = 0; i < n && 2 * i + 2 < sizeof buf; i++)
        snprintf(buf + 2 * i, 3, "%02x", p[i]);
    buf[2 * i] = '\0';
    json_str(w, buf);
}

/* A clientid as the 16 hex digits of its 64 bits (as tshark prints it). */
static void
clientid(struct json_w *w, uint64_t id)
{
    char buf[24];

    snprintf(buf, sizeof buf, "%016llx", (unsigned long long)id);
    json_str(w, buf);
}

static void
address(struct json_w *w, uint8_t af, const uint8_t *addr)
{
    char buf[INET6_ADDRSTRLEN] = "?";

    if (af == FLOW_AF_INET)
        inet_ntop(AF_INET, addr, buf, sizeof buf);
    else if (af == FLOW_AF_INET6)
        inet_ntop(AF_INET6, addr, buf, sizeof buf);
    json_str(w, buf);
}

static void
clients(struct json_w *w, const struct nfs4_state *st)
{
    static const char *const how[] = { "seen", "setclientid", "exchange_id" };
    const struct nfs4_state_stats *s = nfs4_state_stats(st);
    const struct nfs4_client *l[NFS4_REPORT_LIST];
    size_t n = nfs4_state_clients(st, l, NFS4_REPORT_LIST), i;

    json_key(w, "clients");
    json_obj(w);
    json_kv_u64(w, "setclientid", s->clients.setclientid);
    json_kv_u64(w, "exchange_id", s->clients.exchange_id);
    json_kv_u64(w, "confirmed", s->clients.confirmed);
    json_kv_u64(w, "destroyed", s->clients.destroyed);
    json_kv_u64(w, "tracked", nfs4_state_clients_active(st));
    json_kv_u64(w, "evicted", s->clients.evicted);
    json_key(w, "renewals");
    json_obj(w);
    json_kv_u64(w, "renew", s->renewals.renew);
    json_kv_u64(w, "sequence", s->renewals.sequence);
    json_kv_u64(w, "renew_errors", s->renewals.renew_errors);
    status_map(w, "status", &s->renewals.status);
    json_close(w);
    json_key(w, "rows");
    json_arr(w);
    for (i = 0; i < n; i++) {
        const struct nfs4_client *c = l[i];

        json_obj(w);
        json_key(w, "key"); /* the clientid */
        clientid(w, c->clientid);
        json_key(w, "address");
        address(w, c->af, c->addr);
        json_key(w, "server");
        address(w, c->af, c->server);
        json_key(w, "minor_version");
        json_obj(w);
        json_kv_u64(w, "min", c->minor);
        json_close(w);
        json_kv_str(w, "learned_by", c->how < 3 ? how[c->how] : "seen");
        json_kv_u64(w, "confirmed", c->confirmed);
        json_kv_u64(w, "destroyed", c->destroyed);
        json_kv_u64(w, "sessions", c->sessions);
        json_kv_u64(w, "renewals", c->renewals);
        json_kv_u64(w, "sequences", c->sequences);
        json_kv_u64(w, "opens", c->opens);
        json_kv_u64(w, "locks", c->locks);
        json_kv_u64(w, "delegations", c->delegations);
        json_close(w);
    }
    json_close(w);
    json_kv_u64(w, "rows_other", nfs4_state_clients_active(st) - n);
    json_close(w);
}

static void
channel(struct json_w *w, const char *key, const struct nfs4_chan *c, bool have)
{
    json_key(w, key);
    if (!have) {
        json_null(w);
        return;
    }
    json_obj(w);
    json_kv_u64(w, "headerpadsize", c->headerpadsize);
    json_kv_u64(w, "maxrequestsize", c->maxrequestsize);
    json_kv_u64(w, "maxresponsesize", c->maxresponsesize);
    json_kv_u64(w, "maxresponsesize_cached", c->maxresponsesize_cached);
    json_kv_u64(w, "maxoperations", c->maxoperations);
    json_kv_u64(w, "maxrequests", c->maxrequests);
    json_close(w);
}

/* A highest value, as {"max": N} (so that merge keeps the larger), or null. */
static void
max_or_null(struct json_w *w, const char *key, bool have, uint32_t v)
{
    json_key(w, key);
    if (!have) {
        json_null(w);
        return;
    }
    json_obj(w);
    json_kv_u64(w, "max", v);
    json_close(w);
}

static void
one_session(struct json_w *w, const struct nfs4_session *se)
{
    unsigned b;

    json_obj(w);
    json_key(w, "key"); /* the sessionid */
    hex(w, se->sessionid, NFS4_SESSIONID_SIZE);
    json_key(w, "clientid");
    if (se->has_clientid)
        clientid(w, se->clientid);
    else
        json_null(w);
    json_key(w, "server");
    address(w, se->af, se->server);
    json_kv_u64(w, "created", se->created);
    json_kv_u64(w, "destroyed", se->destroyed);
    channel(w, "fore_channel", &se->fore, se->created);
    channel(w, "back_channel", &se->back, se->created);
    json_kv_u64(w, "sequence_calls", se->calls);
    json_kv_u64(w, "replies", se->replies);
    json_kv_u64(w, "errors", se->errors);
    status_map(w, "status", &se->status);
    max_or_null(w, "slotid", se->has_slot, se->max_slot);
    max_or_null(w, "client_highest_slotid", se->has_slot, se->client_highest);
    max_or_null(w, "server_highest_slotid", se->has_target, se->highest_slotid);
    json_key(w, "target_highest_slotid");
    if (se->has_target) {
        json_obj(w);
        json_kv_u64(w, "min", se->target_min);
        json_kv_u64(w, "max", se->target_max);
        json_close(w);
    } else {
        json_null(w);
    }
    json_key(w, "in_flight");
    json_obj(w);
    json_kv_u64(w, "end", se->in_flight);
    json_kv_u64(w, "max", se->max_in_flight);
    json_close(w);
    json_kv_u64(w, "slot_busy", se->slot_busy);
    json_kv_u64(w, "slots_beyond", se->slots_beyond);
    json_key(w, "status_flags");
    json_obj(w);
    for (b = 0; b < NFS4_STATE_FLAGS; b++)
        if (se->flag_replies[b])
            json_kv_u64(w, nfs4_seq_flag_name(b), se->flag_replies[b]);
    json_close(w);
    json_close(w);
}

static void
sessions(struct json_w *w, const struct nfs4_state *st)
{
    const struct nfs4_state_stats *s = nfs4_state_stats(st);
    const struct nfs4_session *l[NFS4_REPORT_LIST];
    size_t n = nfs4_state_sessions(st, l, NFS4_REPORT_LIST), i;
    unsigned b;

    json_key(w, "sessions");
    json_obj(w);
    json_kv_u64(w, "created", s->sessions.created);
    json_kv_u64(w, "destroyed", s->sessions.destroyed);
    json_kv_u64(w, "tracked", nfs4_state_sessions_active(st));
    json_kv_u64(w, "evicted", s->sessions.evicted);
    json_key(w, "sequence");
    json_obj(w);
    json_kv_u64(w, "calls", s->sessions.calls);
    json_kv_u64(w, "replies", s->sessions.replies);
    json_kv_u64(w, "errors", s->sessions.errors);
    status_map(w, "status", &s->sessions.status);
    json_kv_u64(w, "slot_busy", s->sessions.slot_busy);
    json_kv_u64(w, "slots_beyond", s->sessions.slots_beyond);
    json_key(w, "status_flags");
    json_obj(w);
    for (b = 0; b < NFS4_STATE_FLAGS; b++)
        if (s->sessions.flags[b])
            json_kv_u64(w, nfs4_seq_flag_name(b), s->sessions.flags[b]);
    json_close(w);
    json_close(w);
    json_key(w, "rows");
    json_arr(w);
    for (i = 0; i < n; i++)
        one_session(w, l[i]);
    json_close(w);
    json_kv_u64(w, "rows_other", nfs4_state_sessions_active(st) - n);
    json_close(w);
}

static void
stateids(struct json_w *w, const struct nfs4_state *st)
{
    const struct nfs4_state_stats *s = nfs4_state_stats(st);

    json_key(w, "stateids");
    json_obj(w);
    json_kv_u64(w, "opens", s->stateids.opens);
    json_kv_u64(w, "open_confirms", s->stateids.open_confirms);
    json_kv_u64(w, "closes", s->stateids.closes);
    json_kv_u64(w, "locks", s->stateids.locks);
    json_kv_u64(w, "unlocks", s->stateids.unlocks);
    json_kv_u64(w, "freed", s->stateids.freed);
    json_key(w, "active");
    json_obj(w);
    json_kv_u64(w, "open", nfs4_state_stateids_active(st, 0));
    json_kv_u64(w, "lock", nfs4_state_stateids_active(st, 1));
    json_kv_u64(w, "delegation", nfs4_state_stateids_active(st, 2));
    json_close(w);
    json_kv_u64(w, "evicted", s->stateids.evicted);
    status_map(w, "errors", &s->stateids.errors);
    json_close(w);
}

static void
delegations(struct json_w *w, const struct nfs4_state *st)
{
    const struct nfs4_state_stats *s = nfs4_state_stats(st);
    uint64_t granted = 0;
    unsigned i;

    for (i = 0; i < NFS4_STATE_DELEG; i++)
        if (i != OPEN_DELEGATE_NONE && i != OPEN_DELEGATE_NONE_EXT)
            granted += s->delegations.granted[i];
    json_key(w, "delegations");
    json_obj(w);
    json_key(w, "by_type");
    json_obj(w);
    for (i = 0; i < NFS4_STATE_DELEG; i++)
        json_kv_u64(w, nfs4_delegation_name(i), s->delegations.granted[i]);
    json_close(w);
    json_kv_u64(w, "granted", granted);
    json_key(w, "refused");
    json_obj(w);
    for (i = 0; i < NFS4_STATE_WHY; i++)
        json_kv_u64(w, nfs4_why_no_delegation_name(i), s->delegations.why[i]);
    json_close(w);
    json_kv_u64(w, "refused_other", s->delegations.why_other);
    json_kv_u64(w, "recall_flag", s->delegations.recall);
    json_key(w, "delegreturn");
    json_obj(w);
    json_kv_u64(w, "calls", s->delegations.delegreturn);
    json_kv_u64(w, "returned", s->delegations.returned);
    json_kv_u64(w, "unknown_stateid", s->delegations.return_unknown);
    status_map(w, "errors", &s->delegations.return_errors);
    json_close(w);
    json_kv_u64(w, "outstanding", nfs4_state_stateids_active(st, 2));
    json_kv_u64(w, "evicted", s->delegations.evicted);
    json_close(w);
}

void
nfs4_state_json(struct json_w *w, const struct nfs4_state *st)
{
    if (!st)
        return;
    clients(w, st);
    sessions(w, st);
    stateids(w, st);
    delegations(w, st);
}
