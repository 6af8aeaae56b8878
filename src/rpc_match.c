/* SPDX-License-Identifier: BSD-3-Clause */
/* rpc_match.c: call/reply matching and dispatch to the dissectors.
 *
 * A reply answers the pending call with its XID sent the other way on the
 * same connection (RFC 5531 §9): calls are keyed by (connection, direction,
 * XID), so a server's call to the client (a callback) never takes the place
 * of a client call with the same XID. Each call is attributed by the
 * connection's role (flow_client_dir: who opened it, who serves the
 * well-known port, who called first), whichever way it travelled. */
#include "rpc_match.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "rpc.h"
#include "xdr_cur.h"

const struct rpc_program *
rpc_program_find(uint32_t prog, uint32_t vers)
{
    size_t i;

    for (i = 0; rpc_programs[i]; i++)
        if (rpc_programs[i]->prog == prog && rpc_programs[i]->vers == vers)
            return rpc_programs[i];
    return NULL;
}

#define EV_CLEAR(ev) memset((ev), 0, sizeof *(ev))
/* A reply's event: only what its dissector may set is cleared (stats.h);
 * the matcher sets every field before has_main_ops itself. */
#define EV_CLEAR_RESULTS(ev)                                                              \
    memset(&(ev)->has_main_ops, 0, sizeof *(ev) - offsetof(struct op_event, has_main_ops))

/* What the operation is: its program's table (op_kind.h) gives the flags,
 * the pending call the kind (the table's, or the dissector's main
 * operation). */
static void
event_op(struct op_event *ev, const struct pending_call *pc)
{
    const struct rpc_op *op = rpc_proc(ev->pg, ev->proc);

    ev->kind = pc->kind;
    ev->minor = pc->minor;
    ev->opf = op ? op->flags : 0;
}

/* The operations a dissector emits (dissector.h op_item): from a call, to
 * the per-operation call counts and to the consumers that take operations,
 * with an event of the call alone (consumer.h); from a reply, to the
 * consumers, with the reply's event as far as it is decoded (outcome,
 * times, who). */
struct call_sink_ctx {
    struct stats *stats;
    const struct consumers *out;
    const struct rpc_program *pg;
    const struct pending_call *pc; /* its minor version, set by the dissector */
    bool have_ev;
    struct op_event ev;            /* made at the call's first operation */
};

static inline void event_who(struct op_event *ev, const struct pending_call *pc);

static void
call_op(void *ctx, const struct op_item *op)
{
    struct call_sink_ctx *c = ctx;

    stats_op_call(c->stats, c->pg, c->pc->minor, op);
    if (!c->have_ev) {
        EV_CLEAR(&c->ev);
        c->ev.pg = c->pg;
        c->ev.prog = c->pc->prog;
        c->ev.vers = c->pc->vers;
        c->ev.proc = c->pc->proc;
        c->ev.kind = c->pc->kind;
        c->ev.t_call = c->pc->t_call;
        c->ev.call_len = c->pc->call_len;
        c->ev.outcome = OP_NO_REPLY; /* not answered yet */
        c->ev.stable = c->ev.committed = STABLE_NONE;
        event_who(&c->ev, c->pc);
        c->have_ev = true;
    }
    c->ev.minor = c->pc->minor;
    consumers_emit_op(c->out, &c->ev, op);
}

struct reply_sink_ctx {
    const struct consumers *out;
    const struct op_event *ev;
};

static void
reply_op(void *ctx, const struct op_item *op)
{
    const struct reply_sink_ctx *c = ctx;

    consumers_emit_op(c->out, c->ev, op);
}

/* Who and what an operation concerns, from its pending call. */
static inline void
event_who(struct op_event *ev, const struct pending_call *pc)
{
    ev->key = &pc->key;
    ev->xid = pc->xid;
    ev->retrans = pc->retrans;
    ev->call_frame = pc->frame;
    ev->call_dir = pc->dir;
    ev->from_server = pc->sent_dir != pc->dir;
    ev->uid = pc->uid;
    ev->gid = pc->gid;
    ev->fh.p = pc->fh;
    ev->fh.len = pc->fh_len;
    ev->name.p = pc->name;
    ev->name.len = pc->name_len;
    ev->fh2.p = pc->name + pc->name_len;
    ev->fh2.len = pc->fh2_len;
    ev->name2.p = ev->fh2.p + pc->fh2_len;
    ev->name2.len = pc->name2_len;
    ev->bd_idx = pc->bd_idx;
    ev->bd_gen = pc->bd_gen;
    ev->call_priv = pc->priv;
    ev->gss_service = pc->gss_service;
    ev->gss_proc = pc->gss_proc;
}

/* A call that will never be answered (expired, evicted, or end of input). */
static void
call_lost(void *ctx, const struct pending_call *pc, bool evicted)
{
    struct rpc_match *m = ctx;
    struct op_event ev;

    EV_CLEAR(&ev);
    ev.pg = pc->pg;
    ev.prog = pc->prog;
    ev.vers = pc->vers;
    ev.proc = pc->proc;
    event_op(&ev, pc);
    ev.t_call = pc->t_call;
    ev.call_len = pc->call_len;
    ev.outcome = OP_NO_REPLY;
    ev.stable = ev.committed = STABLE_NONE;
    event_who(&ev, pc);
    if (pc->pg && pc->pg->unanswered)
        pc->pg->unanswered(pc, &ev);
    if (evicted)
        anomaly_add(&m->stats->anom, ANOM_XID_EVICTED, 1);
    consumers_emit(m->out, &ev);
}

int
rpc_match_init(struct rpc_match *m, const struct nfsscope_config *cfg, struct stats *stats,
               uint64_t seed)
{
    memset(m, 0, sizeof *m);
    m->stats = stats;
    m->cfg = cfg;
    m->dirents = calloc(OP_DIRENT_MAX, sizeof *m->dirents);
    if (!m->dirents)
        return -1;
    if (xid_table_init(&m->xids, cfg->max_pending, seed, call_lost, m) != 0) {
        free(m->dirents);
        m->dirents = NULL;
        return -1;
    }
    return 0;
}

void
rpc_match_fini(struct rpc_match *m)
{
    xid_table_fini(&m->xids);
    free(m->dirents);
    m->dirents = NULL;
}

static void
count_auth(struct stats *s, uint32_t flavor)
{
    switch (flavor) {
    case AUTH_NONE_FLAVOR:
        s->rpc.auth_none++;
        break;
    case AUTH_SYS_FLAVOR:
        s->rpc.auth_sys++;
        break;
    case RPCSEC_GSS_FLAVOR:
        s->rpc.auth_gss++;
        break;
    case AUTH_TLS_FLAVOR:
        s->rpc.auth_tls++;
        break;
    default:
        s->rpc.auth_other++;
        break;
    }
}

/* The head holds the whole message. */
static bool
msg_whole(const struct rpc_msg_view *msg)
{
    return !msg->head_partial && msg->head.len >= msg->msg_len;
}

/* What a dissector's DECODE_TRUNCATED means: the capture cut the message
 * (the head is shorter than the message), or, when the bytes it was given
 * hold all of the arguments or results (`whole`), a length inside them runs
 * past their end: an impossible value (a 4 GB string in a 100-byte call),
 * counted as a decode error. */
static enum decode_rc
body_rc(enum decode_rc drc, bool whole)
{
    if (drc == DECODE_TRUNCATED && whole)
        return DECODE_INVALID;
    return drc;
}

/* The message's tail for the dissector, its offset counted from `body` (the
 * arguments or results the dissector reads, in the head); NULL if none was
 * kept, or `whole`: they are all in body. */
static const struct msg_tail *
body_tail(const struct rpc_msg_view *msg, struct bytes body, bool whole, struct msg_tail *t)
{
    size_t body_off = (size_t)(body.p - msg->head.p);

    if (whole || !msg->tail.len || !body.p || msg->tail_off < body_off + body.len)
        return NULL;
    t->b = msg->tail;
    t->off = msg->tail_off - (uint32_t)body_off;
    return t;
}

/* The arguments or results of a message in *out, and in *whole whether all
 * of them are there: the body, or for RPCSEC_GSS integrity the procedure's
 * data inside rpc_gss_integ_data (RFC 2203 §5.3.2.2), after its seq_num.
 * DECODE_INVALID: the integrity wrapping does not parse in a whole message
 * (counted as a decode error); DECODE_TRUNCATED: it was cut by the capture. */
static enum decode_rc msg_body_integ(const struct rpc_hdr *h, struct bytes *out, bool *whole);

static inline enum decode_rc
msg_body(const struct rpc_hdr *h, const struct rpc_msg_view *msg, uint8_t gss_service,
         struct bytes *out, bool *whole)
{
    *out = h->body;
    *whole = msg_whole(msg);
    if (gss_service != RPC_GSS_SVC_INTEGRITY)
        return DECODE_OK;
    return msg_body_integ(h, out, whole);
}

/* msg_body's RPCSEC_GSS integrity part (out of line: most calls have none). */
static enum decode_rc
msg_body_integ(const struct rpc_hdr *h, struct bytes *out, bool *whole)
{
    uint32_t seq;
    bool all;
    enum decode_rc rc;

    rc = rpc_gss_integ_body(h->body, &seq, out, &all);
    if (rc == DECODE_OK && !all && *whole) /* databody_integ runs past the message */
        rc = DECODE_INVALID;
    if (rc == DECODE_TRUNCATED && *whole)
        rc = DECODE_INVALID;
    *whole = all;
    return rc;
}

/* The answered call sent as `xid` in direction dir of f, if remembered.
 * Only UDP flows' answered calls are (handle_reply), so over TCP there is
 * none to look for. */
static const struct answered_call *
answered(struct rpc_match *m, const struct flow *f, unsigned dir, uint32_t xid)
{
    return f->key.proto == FLOW_PROTO_UDP ? xid_answered_find(&m->xids, f->id, dir, xid) : NULL;
}

/* Same procedure: the same call sent again. */
static bool
same_call(const struct pending_call *pc, const struct rpc_hdr *h)
{
    return pc->prog == h->prog && pc->vers == h->vers && pc->proc == h->proc;
}

static void
handle_call(struct rpc_match *m, struct flow *f, unsigned dir, const struct rpc_msg_view *msg,
            const struct rpc_hdr *h, enum decode_rc rc)
{
    struct pending_call *pc = xid_conn_find(&m->xids, &f->xc, f->id, dir, h->xid);
    const struct answered_call *a = pc ? NULL : answered(m, f, dir, h->xid);
    const struct rpc_program *pg;

    /* Same XID, same procedure, same connection and direction: a
     * retransmission, before or after the reply. Not a new call; the
     * original keeps its time. */
    if (pc && same_call(pc, h)) {
        pc->retrans++;
        stats_retrans(m->stats, pc->pg, pc->proc);
        return;
    }
    if (a && a->prog == h->prog && a->vers == h->vers && a->proc == h->proc) {
        stats_retrans(m->stats, a->pg, a->proc);
        return;
    }
    /* A client that reconnects on the same ports resends its pending calls
     * with their XIDs (so the server's duplicate request cache knows them):
     * the call of the previous connection, sent again, keeps its first
     * transmission's time; it is answered on the new connection. */
    if (!pc && !a && f->prev_id) {
        struct pending_call *old = xid_table_find(&m->xids, f->prev_id, dir, h->xid);

        if (old && same_call(old, h)) {
            xid_conn_rekey(&m->xids, &f->xc, old, f->id);
            old->retrans++;
            stats_retrans(m->stats, old->pg, old->proc);
            return;
        }
    }
    if (a) /* the XID was reused for another call */
        xid_answered_forget(&m->xids, a);
    if (pc) { /* the XID was reused for another call: the old one is over */
        if (pc->state == PC_PENDING)
            call_lost(m, pc, false); /* never answered: still accounted once */
        xid_conn_remove(&m->xids, &f->xc, pc);
    }

    pg = stats_program(m->stats, h->prog, h->vers);
    pc = xid_conn_add(&m->xids, &f->xc, f->id, dir, h->xid, &msg->ts_last);
    pc->prog = h->prog;
    pc->vers = h->vers;
    pc->proc = h->proc;
    pc->pg = pg;
    pc->dir = (uint8_t)flow_client_dir(f, dir);
    /* A callback's client is its callee, whoever opened the connection: the
     * NFSv4 callback program (CB_COMPOUND), and NLM's GRANTED and *_RES
     * messages that the lock server sends back (RFC 1813 Appendix II). */
    if (pg && ((pg->flags & PGF_CALLBACK) ||
               (rpc_proc(pg, h->proc) && (rpc_proc(pg, h->proc)->flags & OPF_CALLBACK))))
        pc->dir = (uint8_t)(dir ^ 1);
    pc->key = f->key;
    pc->call_len = msg->msg_len;
    pc->frame = m->frame;
    pc->uid = h->uid;
    pc->gid = h->gid;
    /* RPCSEC_GSS (RFC 2203 §5.3.2): integrity arguments are decoded inside
     * their wrapping; privacy ones are encrypted; control messages carry
     * GSS tokens, not the NULL procedure's (empty) arguments. */
    pc->gss_wrapped = h->gss_wrapped;
    if (h->gss) { /* rpc.c checked: service 1..3, gss_proc 0..3 */
        pc->gss_service = h->gss_service & 3u;
        if (h->gss_proc != RPCSEC_GSS_DATA)
            pc->gss_proc = h->gss_proc & 3u;
        else if (h->gss_service == RPC_GSS_SVC_INTEGRITY)
            pc->gss_wrapped = 0;
    }
    pc->tls_probe = h->cred_flavor == AUTH_TLS_FLAVOR && h->proc == 0;
    pc->stable = STABLE_NONE;
    pc->minor = 0xff;
    pc->kind = rpc_proc(pg, h->proc) ? rpc_proc(pg, h->proc)->kind : OPK_OTHER;
    pc->partial = rc != DECODE_OK || msg->head_partial;
    if (msg->head.len >= 32) /* the credential's flavor was captured */
        count_auth(m->stats, h->cred_flavor);
    if (pc->gss_service)
        stats_gss_call(m->stats, pg, h->proc, pc->gss_service, pc->gss_proc);
    if (pc->gss_proc) { /* a context control message: counted apart */
        stats_call_by(m->stats, pc, &f->bdc);
        return;
    }
    if (pg && pg->call && rc == DECODE_OK && !pc->gss_wrapped && h->proc < pg->nprocs) {
        struct xdr_cur x;
        struct bytes body;
        bool whole;
        enum decode_rc drc = msg_body(h, msg, pc->gss_service, &body, &whole);
        static _Thread_local struct call_sink_ctx cc; /* an event: not on the stack per call */
        struct msg_tail t;
        struct op_sink sub = { call_op, &cc, body_tail(msg, body, whole, &t), &m->stats->anom };

        cc.stats = m->stats;
        cc.out = m->out;
        cc.pg = pg;
        cc.pc = pc;
        cc.have_ev = false;

        if (drc == DECODE_OK) {
            xdr_cur_init(&x, body);
            drc = body_rc(pg->call(&x, pc, &sub), whole);
        }
        if (drc == DECODE_INVALID)
            anomaly_add(&m->stats->anom, ANOM_NFS_DECODE_ERROR, 1);
        else if (drc == DECODE_TRUNCATED)
            pc->partial = 1;
        if (pg->announces) /* e.g. an NFSv4 client's callback program */
            stats_learn_program(m->stats, pg->announced(h->proc, pc->priv), pg->announces);
    }
    stats_call(m->stats, pg, h->proc, pc->minor, pc->stable, pc->write_count);
    stats_call_by(m->stats, pc, &f->bdc);
}

/* Did the connection's TCP need a retransmission, see a segment ahead of a
 * hole, or lose bytes, either way, since the call (then the call or its
 * reply waited for the network, or queued behind what did)? */
static bool
waited_on_network(const struct flow *f, const struct timespec *t_call)
{
    int64_t t = (int64_t)t_call->tv_sec * 1000000000 + t_call->tv_nsec;

    return (f->tcp[0].trouble_ns && f->tcp[0].trouble_ns >= t) ||
           (f->tcp[1].trouble_ns && f->tcp[1].trouble_ns >= t);
}

/* What every reply's event has from the matcher and the reply message. */
static inline void
reply_event_start(const struct rpc_match *m, struct op_event *ev, const struct rpc_msg_view *msg)
{
    ev->dirent = m->dirents; /* the listing's entries, if it is one */
    ev->dirent_cap = OP_DIRENT_MAX;
    ev->no_attrs = m->cfg->findings_max == 0; /* only the findings read attributes */
    ev->committed = STABLE_NONE;
    ev->t_reply = msg->ts_last;
    ev->reply_frame = m->frame;
    ev->reply_len = msg->msg_len;
}

static void
handle_reply(struct rpc_match *m, struct flow *f, unsigned dir, const struct rpc_msg_view *msg,
             const struct rpc_hdr *h, enum decode_rc rc, bool validated)
{
    /* The call travelled the other way. */
    struct pending_call *pc = xid_conn_find(&m->xids, &f->xc, f->id, dir ^ 1, h->xid);
    const struct answered_call *a = pc ? NULL : answered(m, f, dir ^ 1, h->xid);
    struct op_event ev;

    if (!pc && !a && f->key.proto == FLOW_PROTO_UDP && m->before_orphan) {
        m->before_orphan(m->hook_ctx, f, dir, h->xid);
        pc = xid_conn_find(&m->xids, &f->xc, f->id, dir ^ 1, h->xid);
        a = pc ? NULL : answered(m, f, dir ^ 1, h->xid);
    }
    if (a) { /* a second reply to an answered call (UDP) */
        m->stats->rpc.duplicate_replies++;
        return;
    }
    if (!pc) {
        if (!validated) {
            anomaly_add(&m->stats->anom, ANOM_RPC_MALFORMED, 1);
            return;
        }
        EV_CLEAR(&ev);
        reply_event_start(m, &ev, msg);
        ev.stable = STABLE_NONE;
        ev.outcome = OP_ORPHAN_REPLY;
        ev.kind = OPK_OTHER;
        consumers_emit(m->out, &ev);
        return;
    }
    /* Every field before has_main_ops is set below (stats.h). */
    EV_CLEAR_RESULTS(&ev);
    reply_event_start(m, &ev, msg);
    ev.pg = pc->pg;
    ev.prog = pc->prog;
    ev.vers = pc->vers;
    ev.proc = pc->proc;
    event_op(&ev, pc);
    ev.net_delay = waited_on_network(f, &pc->t_call);
    ev.t_call = pc->t_call;
    ev.call_len = pc->call_len;
    ev.stable = pc->stable;
    ev.write_bytes = pc->write_count;
    ev.reply_stat = h->reply_stat;
    ev.accept_stat = h->accept_stat;
    ev.reject_stat = h->reject_stat;
    ev.partial = pc->partial || rc != DECODE_OK || msg->head_partial;
    event_who(&ev, pc);
    ev.has_fh_hash = stats_file_hash(m->stats, pc->bd_idx[BD_FILE], pc->bd_gen[BD_FILE],
                                     &ev.fh_hash); /* the findings' key */
    /* The server agreed to RPC-over-TLS (RFC 9289 §4.1): the connection's
     * next bytes are the TLS handshake. */
    if (rc == DECODE_OK && pc->tls_probe && h->starttls && h->accept_stat == RPC_SUCCESS &&
        f->key.proto == FLOW_PROTO_TCP && !f->tls) {
        f->tls = 1;
        f->tls_idx = (uint8_t)rpc_tls_start(&m->stats->tls, &f->key, pc->dir, &msg->ts_last);
    }
    if (rc == DECODE_OK && (h->reply_stat != MSG_ACCEPTED || h->accept_stat != RPC_SUCCESS)) {
        ev.outcome = OP_RPC_ERROR;
    } else {
        ev.outcome = OP_REPLIED;
        if (rc == DECODE_OK && pc->pg && pc->pg->reply && !pc->gss_wrapped &&
            pc->proc < pc->pg->nprocs) {
            struct xdr_cur x;
            struct bytes body;
            bool whole;
            enum decode_rc drc = msg_body(h, msg, pc->gss_service, &body, &whole);
            struct reply_sink_ctx rc_ = { m->out, &ev };
            struct msg_tail t;
            struct op_sink sub = { reply_op, &rc_, body_tail(msg, body, whole, &t),
                                   &m->stats->anom };

            if (drc == DECODE_OK) {
                xdr_cur_init(&x, body);
                drc = body_rc(pc->pg->reply(&x, pc, &ev, &sub), whole);
            }
            if (drc == DECODE_INVALID)
                anomaly_add(&m->stats->anom, ANOM_NFS_DECODE_ERROR, 1);
            else if (drc == DECODE_TRUNCATED)
                ev.partial = true;
        }
    }
    consumers_emit(m->out, &ev);
    /* UDP clients resend calls after a lost or slow reply, and servers may
     * answer twice: remember the answered call a while to tell those from
     * new calls and orphans. Over TCP neither happens on one connection. */
    if (f->key.proto == FLOW_PROTO_UDP)
        xid_conn_answer(&m->xids, &f->xc, pc, &msg->ts_last);
    else
        xid_conn_remove(&m->xids, &f->xc, pc);
}

void
rpc_match_message(struct rpc_match *m, struct flow *f, unsigned dir,
                  const struct rpc_msg_view *msg, bool udp)
{
    struct rpc_hdr h;
    enum decode_rc rc = rpc_hdr_parse(msg->head, &h);
    bool validated;

    if (rc == DECODE_INVALID || msg->head.len < 12) {
        if (!udp || f->rpc_seen)
            anomaly_add(&m->stats->anom, rc != DECODE_INVALID ? ANOM_RPC_TRUNCATED
                                         : h.bad_cred         ? ANOM_RPC_BAD_CRED
                                                              : ANOM_RPC_MALFORMED, 1);
        return;
    }
    /* Datagrams are not framed by record marks: only strict headers count
     * (NFS is recognised by validation, not by port). */
    validated = !udp || rpc_hdr_plausible(&h, rc, msg->head.len, msg->msg_len);
    if (h.msg_type == RPC_CALL) {
        if (msg->head.len < 24 || (udp && !validated)) {
            if (!udp || f->rpc_seen)
                anomaly_add(&m->stats->anom, ANOM_RPC_TRUNCATED, 1);
            return;
        }
        if (rc != DECODE_OK)
            anomaly_add(&m->stats->anom, ANOM_RPC_TRUNCATED, 1);
        if (h.bad_cred) /* AUTH_SYS over its limits: still a call */
            anomaly_add(&m->stats->anom, ANOM_RPC_BAD_CRED, 1);
        f->rpc_seen = 1;
        handle_call(m, f, dir, msg, &h, rc);
    } else {
        if (udp && !validated && !xid_conn_find(&m->xids, &f->xc, f->id, dir ^ 1, h.xid) &&
            !answered(m, f, dir ^ 1, h.xid))
            return; /* not RPC */
        if (rc != DECODE_OK)
            anomaly_add(&m->stats->anom, ANOM_RPC_TRUNCATED, 1);
        f->rpc_seen = 1;
        handle_reply(m, f, dir, msg, &h, rc, validated);
    }
}

bool
rpc_match_wide_reply(struct rpc_match *m, struct flow *f, unsigned reply_dir, uint32_t xid)
{
    const struct pending_call *pc = xid_conn_find(&m->xids, &f->xc, f->id, reply_dir ^ 1, xid);

    return pc && pc->state == PC_PENDING && pc->pg && !pc->gss_wrapped && pc->proc < 64 &&
           (pc->pg->wide_replies >> pc->proc & 1);
}

void
rpc_match_expire(struct rpc_match *m, const struct timespec *now)
{
    xid_table_expire(&m->xids, now, m->cfg->call_timeout_s, m->cfg->answered_keep_s, 8);
}

void
rpc_match_flush(struct rpc_match *m)
{
    xid_table_flush(&m->xids);
}
