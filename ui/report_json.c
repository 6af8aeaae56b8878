/* SPDX-License-Identifier: BSD-3-Clause */
/* report_json.c: the JSON report (-o json), schema "nfsscope/1".
 *
 * The promised keys are listed in /work/shared/design/contract.md; extras
 * follow the promised keys of each object. Keys come in a fixed order;
 * procedures in procedure-number order, zero rows included; status maps in
 * status-value order. Counts are integers; latencies are microseconds
 * (integers, except "mean": one decimal); timestamps are seconds with 9
 * decimals. The final report is pretty-printed; periodic reports (tick) are
 * one compact object per line (JSON Lines) with an extra "time" key. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "lockwait.h"
#include "nfs4.h"
#include "nfs4_state.h"
#include "report_findings.h"
#include "report_nfs4_state.h"
#include "stats.h"
#include "view.h"

#define JSON_SCHEMA "nfsscope/1"

static const char *const stable_names[3] = { "UNSTABLE", "DATA_SYNC", "FILE_SYNC" };

static void
ts(struct json_w *w, const struct timespec *t)
{
    json_decimal(w, (int64_t)t->tv_sec * 1000000000 + (int64_t)t->tv_nsec, 9);
}

static void
capture(struct json_w *w, const struct stats *s, const struct view_info *vi)
{
    const struct capture_totals *c = &s->cap;

    json_key(w, "capture");
    json_obj(w);
    json_kv_u64(w, "packets", c->packets);
    json_kv_u64(w, "bytes", c->bytes);
    json_key(w, "first_ts");
    if (c->packets)
        ts(w, &c->first_ts);
    else
        json_null(w);
    json_key(w, "last_ts");
    if (c->packets)
        ts(w, &c->last_ts);
    else
        json_null(w);
    json_kv_u64(w, "truncated_packets", c->truncated_packets);
    json_key(w, "kernel_drops");
    if (c->kernel_drops < 0)
        json_null(w);
    else
        json_i64(w, c->kernel_drops);
    /* extras */
    json_kv_u64(w, "ts_backwards", c->ts_backwards);
    json_key(w, "sources");
    json_arr(w);
    if (vi && vi->sources) {
        const char *const *p;

        for (p = vi->sources; *p; p++)
            json_str(w, *p);
    }
    json_close(w);
    json_kv_str(w, "filter", vi ? vi->filter : NULL);
    json_close(w);
}

/* RPCSEC_GSS calls (RFC 2203 §5): data calls by service, then the context
 * control messages. */
static void
gss_counts(struct json_w *w, const struct gss_counts *g)
{
    json_kv_u64(w, "none", g->data[0]);
    json_kv_u64(w, "integrity", g->data[1]);
    json_kv_u64(w, "privacy", g->data[2]);
    json_kv_u64(w, "init", g->ctl[GSS_CTL_INIT]);
    json_kv_u64(w, "continue_init", g->ctl[GSS_CTL_CONTINUE_INIT]);
    json_kv_u64(w, "destroy", g->ctl[GSS_CTL_DESTROY]);
}

/* Connections that switched to TLS after the AUTH_TLS probe (RFC 9289). */
static void
tls_conns(struct json_w *w, const struct rpc_tls *t)
{
    json_key(w, "tls");
    json_obj(w);
    json_kv_u64(w, "connections", t->connections);
    json_kv_u64(w, "bytes", t->bytes);
    json_kv_u64(w, "records", t->records);
    json_kv_u64(w, "lost_bytes", t->lost_bytes);
    json_key(w, "listed");
    json_arr(w);
    for (uint32_t i = 0; i < t->n; i++) {
        const struct rpc_tls_conn *c = &t->c[i];
        char cli[64], srv[64];
        uint16_t cp, sp;

        rpc_tls_conn_ends(c, cli, srv, sizeof cli, &cp, &sp);
        json_obj(w);
        json_kv_str(w, "client", cli);
        json_kv_str(w, "server", srv);
        json_kv_u64(w, "client_port", cp);
        json_kv_u64(w, "server_port", sp);
        json_key(w, "start_ts");
        ts(w, &c->t_start);
        json_kv_u64(w, "bytes_to_server", c->bytes[0]);
        json_kv_u64(w, "bytes_to_client", c->bytes[1]);
        json_kv_u64(w, "records_to_server", c->records[0]);
        json_kv_u64(w, "records_to_client", c->records[1]);
        json_kv_u64(w, "lost_bytes", c->lost_bytes[0] + c->lost_bytes[1]);
        json_close(w);
    }
    json_close(w);
    json_kv_u64(w, "other_connections", t->connections - t->n);
    json_close(w);
}

static void
rpc(struct json_w *w, const struct stats *s)
{
    const struct rpc_totals *r = &s->rpc;

    json_key(w, "rpc");
    json_obj(w);
    json_kv_u64(w, "calls", r->calls);
    json_kv_u64(w, "replies", r->replies);
    json_kv_u64(w, "retransmissions", r->retransmissions);
    json_kv_u64(w, "unanswered_calls", r->unanswered_calls);
    json_kv_u64(w, "orphan_replies", r->orphan_replies);
    json_kv_u64(w, "rpc_errors", r->rpc_errors);
    /* extras */
    json_kv_u64(w, "duplicate_replies", r->duplicate_replies);
    json_kv_u64(w, "unknown_program_calls", r->unknown_program_calls);
    json_key(w, "auth");
    json_obj(w);
    json_kv_u64(w, "none", r->auth_none);
    json_kv_u64(w, "sys", r->auth_sys);
    json_kv_u64(w, "gss", r->auth_gss);
    if (r->auth_tls)
        json_kv_u64(w, "tls", r->auth_tls);
    json_kv_u64(w, "other", r->auth_other);
    json_close(w);
    if (r->auth_gss) { /* present when RPCSEC_GSS was seen */
        json_key(w, "gss");
        json_obj(w);
        gss_counts(w, &r->gss);
        json_close(w);
    }
    if (s->tls.connections) /* present when RPC-over-TLS was seen */
        tls_conns(w, &s->tls);
    json_close(w);
}

/* Error statuses (!= 0) of one procedure, by status value. */
static void
status_map(struct json_w *w, const struct rpc_program *pg, const struct proc_stats *p)
{
    bool done[STATS_MAX_STATUS] = { false };
    unsigned k, i, n = p->nstatus < STATS_MAX_STATUS ? p->nstatus : STATS_MAX_STATUS;

    json_key(w, "status");
    json_obj(w);
    for (k = 0; k < n; k++) { /* selection by smallest status: n <= 24 */
        unsigned best = n;

        for (i = 0; i < n; i++)
            if (!done[i] && (best == n || p->status[i].status < p->status[best].status))
                best = i;
        done[best] = true;
        if (p->status[best].status != 0 && p->status[best].count) {
            const char *name = pg->status_name ? pg->status_name(p->status[best].status) : NULL;
            char buf[32];

            if (!name) {
                snprintf(buf, sizeof buf, "unknown(%lu)", (unsigned long)p->status[best].status);
                name = buf;
            }
            json_kv_u64(w, name, p->status[best].count);
        }
    }
    json_close(w);
}

/* "latency_us": count, min, mean, p50, p90, p99, max; all null when empty.
 * pctl reads a percentile from whichever histogram h is. */
static void
latency_obj(struct json_w *w, uint64_t count, uint64_t min, uint64_t sum, uint64_t max,
            const void *h, uint64_t (*pctl)(const void *h, double pct))
{
    static const char *const keys[] = { "min", "mean", "p50", "p90", "p99", "max" };
    size_t i;

    json_key(w, "latency_us");
    json_obj(w);
    json_kv_u64(w, "count", count);
    if (count == 0) {
        for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
            json_key(w, keys[i]);
            json_null(w);
        }
    } else {
        json_kv_u64(w, "min", min);
        json_key(w, "mean");
        json_fixed(w, (double)sum / (double)count, 1);
        json_kv_u64(w, "p50", pctl(h, 50));
        json_kv_u64(w, "p90", pctl(h, 90));
        json_kv_u64(w, "p99", pctl(h, 99));
        json_kv_u64(w, "max", max);
    }
    json_close(w);
}

static uint64_t
pctl_full(const void *h, double pct)
{
    return histo_percentile(h, pct);
}

static uint64_t
pctl_small(const void *h, double pct)
{
    return histo_small_percentile(h, pct);
}

static void
latency(struct json_w *w, const struct histo *h)
{
    latency_obj(w, h->count, h->min, h->sum, h->max, h, pctl_full);
}

/* The same object for a breakdown row's compact histogram. */
static void
latency_small(struct json_w *w, const struct histo_small *h)
{
    latency_obj(w, h->count, h->min, h->sum, h->max, h, pctl_small);
}

/* The latency histogram itself, [[bucket_lo_us, count], ...] for non-empty
 * buckets (histo.h layout), with its exact sum: enough to merge reports
 * from several capture points exactly (nfsscope merge). */
static void
histogram(struct json_w *w, const struct histo *h)
{
    unsigned i, end = histo_span(h, &i);

    json_key(w, "histogram");
    json_arr(w);
    /* every value lies in [min, max]: the buckets outside are empty, unread */
    for (; i < end; i++) {
        if (!h->bucket[i])
            continue;
        json_arr(w);
        json_u64(w, histo_bucket_lo(i));
        json_u64(w, h->bucket[i]);
        json_close(w);
    }
    json_close(w);
    json_kv_u64(w, "latency_sum_us", h->sum);
}

static void
stable3(struct json_w *w, const char *key, const uint64_t v[3])
{
    unsigned i;

    json_key(w, key);
    json_obj(w);
    for (i = 0; i < 3; i++)
        json_kv_u64(w, stable_names[i], v[i]);
    json_close(w);
}

/* READ and WRITE sizes: non-empty power-of-two buckets as {lo, hi, count}. */
static void
size_hist(struct json_w *w, const char *key, const uint64_t *h)
{
    unsigned k;

    json_key(w, key);
    json_arr(w);
    for (k = 0; k < IOSZ_BUCKETS; k++) {
        if (!h[k])
            continue;
        json_obj(w);
        json_kv_u64(w, "lo", k == 0 ? 0 : (uint64_t)1 << (k - 1));
        json_key(w, "hi");
        if (k == IOSZ_BUCKETS - 1)
            json_null(w);
        else
            json_u64(w, k == 0 ? 0 : ((uint64_t)1 << k) - 1);
        json_kv_u64(w, "count", h[k]);
        json_close(w);
    }
    json_close(w);
}

static void
io_sizes(struct json_w *w, const struct prog_stats *ps)
{
    json_key(w, "io_sizes");
    json_obj(w);
    size_hist(w, "read", ps->read_size);
    size_hist(w, "write", ps->write_size);
    json_kv_u64(w, "writes_below_max", ps->writes_below_max);
    if (ps->ops) { /* NFSv4.2's other data operations, by the same buckets */
        size_hist(w, "read_plus", ps->io.read_plus_size);
        size_hist(w, "copy", ps->io.copy_size);
    }
    json_close(w);
}

/* NLM v4 lock waits (src/lockwait.h): blocked locks, how they
 * ended, and the wait of the granted ones. */
static void
lock_waits(struct json_w *w, const struct lockwait *lw)
{
    const struct lockwait_stats *st = lockwait_stats(lw);

    json_key(w, "lock_waits");
    json_obj(w);
    json_kv_u64(w, "blocked", st->blocked);
    json_kv_u64(w, "granted", st->granted);
    json_kv_u64(w, "cancelled", st->cancelled);
    json_kv_u64(w, "pending", lockwait_pending(lw));
    json_kv_u64(w, "evicted", st->evicted);
    json_kv_u64(w, "unmatched_grants", st->unmatched_grants);
    /* The granted waits, in the shape of a procedure's latency (so that
     * nfsscope merge adds them exactly). */
    json_key(w, "wait");
    json_obj(w);
    latency(w, &st->wait);
    histogram(w, &st->wait);
    json_close(w);
    json_close(w);
}

/* The members every row has beyond calls, replies, errors and latency. */
static void
row_extras(struct json_w *w, const struct proc_stats *p)
{
    json_kv_u64(w, "retransmissions", p->retrans);
    json_kv_u64(w, "unanswered", p->unanswered);
    json_kv_u64(w, "bytes", p->bytes);
    json_kv_u64(w, "rpc_errors", p->rpc_errors);
    json_kv_u64(w, "partial", p->partial);
    if (p->encrypted)
        json_kv_u64(w, "encrypted", p->encrypted);
}

/* A program's RPCSEC_GSS calls, when it had any: by service (privacy calls
 * are encrypted: counted and timed, never decoded), and the control
 * messages' own rows (not in the NULL procedure's). */
static void
program_gss(struct json_w *w, const struct stats *s, const struct prog_stats *ps)
{
    static const char *const ctl[GSS_CTL__COUNT] = { "init", "continue_init", "destroy" };
    const struct gss_counts *g = &ps->gss;
    unsigned k;

    if (!(g->data[0] | g->data[1] | g->data[2] | g->ctl[0] | g->ctl[1] | g->ctl[2]))
        return;
    json_key(w, "gss");
    json_obj(w);
    gss_counts(w, g);
    json_kv_u64(w, "encrypted_calls", g->data[2]);
    json_key(w, "control");
    json_obj(w);
    for (k = 0; k < GSS_CTL__COUNT; k++) {
        const struct proc_stats *p = stats_row(s, &ps->gss_ctl[k]);

        json_key(w, ctl[k]);
        json_obj(w);
        json_kv_u64(w, "calls", p->calls);
        json_kv_u64(w, "replies", p->replies);
        json_kv_u64(w, "rpc_errors", p->rpc_errors);
        json_kv_u64(w, "unanswered", p->unanswered);
        latency(w, &p->latency);
        histogram(w, &p->latency); /* so that merge adds them exactly */
        json_close(w);
    }
    json_close(w);
    json_close(w);
}

/* One procedure's or operation's row (name already written). */
static void
op_row(struct json_w *w, const struct rpc_program *pg, const struct proc_stats *p)
{
    json_obj(w);
    json_kv_u64(w, "calls", p->calls);
    json_kv_u64(w, "replies", p->replies);
    json_kv_u64(w, "errors", p->errors);
    status_map(w, pg, p);
    latency(w, &p->latency);
    histogram(w, &p->latency);
    row_extras(w, p);
    if (p->status_other)
        json_kv_u64(w, "status_other", p->status_other);
    json_close(w);
}

/* ---- NFSv4: COMPOUNDs, operations and kinds, per minor version ---- */

/* stable_how4 (RFC 8881 §18.32): UNSTABLE4, DATA_SYNC4, FILE_SYNC4. */
static void
stable4(struct json_w *w, const char *key, const uint64_t v[3])
{
    unsigned i;

    json_key(w, key);
    json_obj(w);
    for (i = 0; i < 3; i++)
        json_kv_u64(w, nfs4_stable_name(i), v[i]);
    json_close(w);
}

/* A message row in the shape of the nfs4 object's "compound" and "null",
 * with a procedure row's members besides (merge's table reads them). */
static void
nfs4_msg_row(struct json_w *w, const struct rpc_program *pg, const struct proc_stats *p,
             bool compound)
{
    json_obj(w);
    json_kv_u64(w, "calls", p->calls);
    json_kv_u64(w, "replies", p->replies);
    if (compound)
        json_kv_u64(w, "unanswered_calls", p->unanswered);
    json_kv_u64(w, "errors", p->errors);
    if (compound)
        status_map(w, pg, p);
    latency(w, &p->latency);
    histogram(w, &p->latency);
    row_extras(w, p);
    json_close(w);
}

/* Every operation seen: occurrences in calls, results, not evaluated; in
 * total (`total`), the data operations' bytes. */
static void
nfs4_ops(struct json_w *w, const struct stats *s, const struct rpc_program *pg,
         const struct proc_stats *ops, bool total)
{
    uint32_t i;

    json_key(w, "ops");
    json_obj(w);
    for (i = 0; i < pg->nops; i++) {
        const struct proc_stats *p = stats_row(s, &ops[i]); /* never written: not read */
        const char *name = nfs4_row_name(pg, i);

        if (!name || (!p->calls && !p->replies && !p->not_evaluated))
            continue;
        json_key(w, name);
        json_obj(w);
        json_kv_u64(w, "count", p->calls);
        json_kv_u64(w, "replies", p->replies);
        json_kv_u64(w, "not_evaluated", p->not_evaluated);
        if (total && nfs4_op_moves_data(i))
            json_kv_u64(w, "bytes", p->bytes);
        json_kv_u64(w, "errors", p->errors);
        status_map(w, pg, p);
        latency(w, &p->latency); /* of the COMPOUNDs containing it */
        histogram(w, &p->latency);
        if (p->status_other)
            json_kv_u64(w, "status_other", p->status_other);
        json_close(w);
    }
    json_close(w);
}

/* COMPOUNDs by kind (main operations), in order of first reply. */
static void
nfs4_kinds(struct json_w *w, const struct rpc_program *pg, const struct kind_table *t)
{
    unsigned i;

    json_key(w, "kinds");
    json_obj(w);
    for (i = 0; t->rows && i < t->n; i++) {
        const struct proc_stats *p = &t->rows[i].st;
        char name[96];

        json_key(w, pg->kind_name(t->rows[i].key, name, sizeof name));
        json_obj(w);
        json_kv_u64(w, "compounds", p->replies);
        json_kv_u64(w, "errors", p->errors);
        latency(w, &p->latency);
        histogram(w, &p->latency);
        json_close(w);
    }
    json_close(w);
    if (t->other) /* extras */
        json_kv_u64(w, "kinds_other", t->other);
}

/* The messages of an NFSv4 program (the forward channel's or the
 * callbacks'): calls, replies, NULL and COMPOUND rows, per minor version,
 * operations and kinds. */
static void
nfs4_messages(struct json_w *w, const struct stats *s, const struct prog_stats *ps)
{
    const struct rpc_program *pg = ps->pg;
    uint32_t k;

    json_kv_u64(w, "calls", ps->calls);
    json_kv_u64(w, "replies", ps->replies);
    json_key(w, "null");
    nfs4_msg_row(w, pg, stats_row(s, &ps->procs[NFSPROC4_NULL]), false);
    json_key(w, "compound");
    nfs4_msg_row(w, pg, stats_row(s, &ps->procs[NFSPROC4_COMPOUND]), true);
    json_key(w, "minor_versions");
    json_obj(w);
    for (k = 0; k < pg->nminor; k++) {
        const struct minor_stats *m = &ps->minor[k];
        const struct proc_stats *c = stats_row(s, &m->procs[NFSPROC4_COMPOUND]);
        char key[12];

        if (!c->calls && !c->replies && !c->unanswered)
            continue;
        snprintf(key, sizeof key, "%u", (unsigned)k);
        json_key(w, key);
        json_obj(w);
        json_key(w, "compound");
        nfs4_msg_row(w, pg, c, true);
        nfs4_ops(w, s, pg, m->ops, false);
        nfs4_kinds(w, pg, &m->kinds);
        json_close(w);
    }
    json_close(w);
    nfs4_ops(w, s, pg, ps->ops, true);
    nfs4_kinds(w, pg, &ps->kinds);
}

/* "callbacks": the callback program's messages and operations (both
 * channels), the program numbers learned, and the recalls of delegations
 * with the time to their DELEGRETURN (src/nfs4_state.h). */
static void
nfs4_callbacks(struct json_w *w, const struct stats *s, const struct view_info *vi,
               const struct prog_stats *cb)
{
    const struct nfs4_state_stats *st = vi && vi->nfs4_state ? nfs4_state_stats(vi->nfs4_state)
                                                               : NULL;

    json_key(w, "callbacks");
    json_obj(w);
    nfs4_messages(w, s, cb);
    json_key(w, "programs");
    json_obj(w);
    json_kv_u64(w, "learned", s->learned.learned);
    json_kv_u64(w, "evicted", s->learned.evicted);
    json_close(w);
    if (st) {
        json_key(w, "recalls");
        json_obj(w);
        json_kv_u64(w, "cb_recall", st->recalls.calls);
        json_kv_u64(w, "known", st->recalls.known);
        json_kv_u64(w, "returned", st->recalls.returned);
        json_kv_u64(w, "pending", st->recalls.pending);
        latency(w, &st->recalls.to_return); /* first CB_RECALL to DELEGRETURN */
        histogram(w, &st->recalls.to_return);
        json_close(w);
    }
    json_close(w);
}

static void
nfs4_object(struct json_w *w, const struct stats *s, const struct view_info *vi,
            const struct prog_stats *ps)
{
    const struct rpc_program *pg = ps->pg;
    const struct prog_stats *cb = pg->announces ? stats_prog_by_name(s, pg->announces->name)
                                                : NULL;

    json_key(w, pg->name);
    json_obj(w);
    nfs4_messages(w, s, ps);
    json_key(w, "write");
    json_obj(w);
    stable4(w, "stable", ps->write.stable);
    stable4(w, "committed", ps->write.committed);
    json_kv_u64(w, "bytes", ps->write.bytes);
    json_close(w);
    json_key(w, "read");
    json_obj(w);
    json_kv_u64(w, "bytes", ps->read_bytes);
    json_kv_u64(w, "eof", ps->read_eof);
    json_close(w);
    json_key(w, "read_plus"); /* RFC 7862 §15.10: data returned, holes described */
    json_obj(w);
    json_kv_u64(w, "bytes", ps->io.read_plus_bytes);
    json_kv_u64(w, "hole_bytes", ps->io.read_plus_holes);
    json_kv_u64(w, "eof", ps->io.read_plus_eof);
    json_close(w);
    json_key(w, "copy"); /* RFC 7862 §15.2: bytes the server copied */
    json_obj(w);
    json_kv_u64(w, "bytes", ps->io.copy_bytes);
    json_close(w);
    io_sizes(w, ps);
    nfs4_state_json(w, vi ? vi->nfs4_state : NULL); /* clients, sessions, stateids, delegations */
    if (cb && cb->minor)
        nfs4_callbacks(w, s, vi, cb);
    /* extras */
    json_kv_u64(w, "unknown_procedure_calls", ps->bad_proc);
    program_gss(w, s, ps);
    json_close(w);
}

static void
program(struct json_w *w, const struct stats *s, const struct view_info *vi,
        const struct prog_stats *ps)
{
    const struct rpc_program *pg = ps->pg;
    uint32_t i;

    if (pg->flags & PGF_ANNOUNCED) /* inside the program that announces it */
        return;
    if (pg->nminor && ps->minor) { /* NFSv4: the contract's nfs4 object */
        nfs4_object(w, s, vi, ps);
        return;
    }
    json_key(w, pg->name);
    json_obj(w);
    json_key(w, "ops");
    json_obj(w);
    for (i = 0; i < pg->nprocs; i++) {
        char unnamed[24];
        const char *name = rpc_proc_name(pg, i);

        if (!name) {
            snprintf(unnamed, sizeof unnamed, "proc%lu", (unsigned long)i);
            name = unnamed;
        }
        json_key(w, name);
        op_row(w, pg, stats_row(s, &ps->procs[i]));
    }
    json_close(w);
    /* A program with an operation table: "ops" above are its messages
     * (COMPOUND), "operations" the operations inside them, every named one
     * in operation-number order. */
    if (ps->ops) {
        json_key(w, "operations");
        json_obj(w);
        for (i = 0; i < pg->nops; i++)
            if (pg->ops[i].name) {
                json_key(w, pg->ops[i].name);
                op_row(w, pg, stats_row(s, &ps->ops[i]));
            }
        json_close(w);
    }
    if (pg->flags & PGF_IO_DETAIL) {
        json_key(w, "write");
        json_obj(w);
        stable3(w, "stable", ps->write.stable);
        stable3(w, "committed", ps->write.committed);
        json_kv_u64(w, "bytes", ps->write.bytes);
        json_close(w);
        json_key(w, "read");
        json_obj(w);
        json_kv_u64(w, "bytes", ps->read_bytes);
        json_kv_u64(w, "eof", ps->read_eof);
        json_close(w);
        io_sizes(w, ps);
    }
    if ((pg->flags & PGF_LOCK_WAITS) && vi && vi->lockwait)
        lock_waits(w, vi->lockwait);
    /* extras */
    json_kv_u64(w, "calls", ps->calls);
    json_kv_u64(w, "replies", ps->replies);
    json_kv_u64(w, "unknown_procedure_calls", ps->bad_proc);
    program_gss(w, s, ps);
    json_close(w);
}

/* A file row's "nfs4_ops": per NFSv4 operation, the results that ran with
 * the row's handle as current file handle ("other": past the row's bound). */
static void
file_ops(struct json_w *w, const struct stats *s, const struct bd_row *r)
{
    struct file_op ops[BD_PROCS_PER_ROW];
    size_t n = stats_file_ops(s, r, ops), i;

    if (!s->bd[BD_FILE].ops)
        return;
    json_key(w, "nfs4_ops");
    json_obj(w);
    for (i = 0; i < n; i++)
        json_kv_u64(w, ops[i].name ? ops[i].name : "other", ops[i].results);
    json_close(w);
}

/* One breakdown row: its label (and handle, for files) and its statistics. */
static void
bd_row(struct json_w *w, const struct stats *s, enum bd_dim d, const struct bd_row *r,
       bool with_key)
{
    json_obj(w);
    if (with_key) {
        char label[1024];

        stats_row_label(s, d, r, label, sizeof label);
        json_key(w, "key");
        json_strn(w, (const uint8_t *)label, strlen(label));
        if (d == BD_FILE) {
            char hex[2 * BD_KEY_MAX + 1];
            unsigned i;

            for (i = 0; i < r->key_len; i++)
                snprintf(hex + 2 * i, 3, "%02x", r->key[i]);
            hex[2 * r->key_len] = '\0';
            json_kv_str(w, "fh", hex);
        }
    }
    json_kv_u64(w, "calls", r->calls);
    json_kv_u64(w, "replies", r->replies);
    json_kv_u64(w, "errors", r->errors);
    json_kv_u64(w, "unanswered", r->unanswered);
    json_kv_u64(w, "nfs3_calls", r->nfs3_calls);
    latency_small(w, &r->latency);
    json_kv_u64(w, "latency_total_us", r->latency.sum);
    json_kv_u64(w, "read_bytes", r->read_bytes);
    json_kv_u64(w, "write_bytes", r->write_bytes);
    stable3(w, "write_stable", r->stable);
    if (d == BD_FILE)
        file_ops(w, s, r);
    json_close(w);
}

/* "breakdowns": per dimension the top-N rows, the "other" row (what was
 * evicted from a full table), and how many distinct keys are held. */
static void
breakdowns(struct json_w *w, const struct stats *s, const struct view_info *vi)
{
    unsigned top = vi && vi->top_n ? vi->top_n : 10;
    enum bd_order order = vi ? (enum bd_order)vi->order : BD_BY_CALLS;
    const struct bd_row **rows;
    unsigned d;

    if (!s->bd_on)
        return;
    rows = calloc(top, sizeof *rows);
    if (!rows)
        return;
    json_key(w, "breakdowns");
    json_obj(w);
    json_kv_str(w, "order", bd_order_name(order));
    json_kv_u64(w, "top", top);
    for (d = 0; d < BD__COUNT; d++) {
        const struct bd_table *t = &s->bd[d];
        size_t n = bd_table_top(t, order, rows, top), i;

        json_key(w, bd_dim_name((enum bd_dim)d));
        json_obj(w);
        json_kv_u64(w, "distinct", t->count);
        json_kv_u64(w, "evicted", t->evicted);
        json_key(w, "rows");
        json_arr(w);
        for (i = 0; i < n; i++)
            bd_row(w, s, (enum bd_dim)d, rows[i], true);
        json_close(w);
        json_key(w, "other");
        bd_row(w, s, (enum bd_dim)d, &t->other, false);
        json_close(w);
    }
    json_kv_u64(w, "names_known", names_count(s->names));
    json_kv_u64(w, "names_evicted", names_evicted(s->names));
    json_close(w);
    free(rows);
}

/* "timeline": calls, replies, bytes and p99 per interval over the capture. */
static void
timeline(struct json_w *w, const struct stats *s)
{
    const struct timeline *t = &s->tl;
    uint32_t k;

    if (!t->b)
        return;
    json_key(w, "timeline");
    json_obj(w);
    json_kv_u64(w, "interval_s", t->interval_s);
    json_key(w, "start");
    json_i64(w, (int64_t)t->start);
    json_key(w, "buckets");
    json_arr(w);
    for (k = 0; k < t->used; k++) {
        const struct tl_bucket *b = &t->b[k];

        json_obj(w);
        json_key(w, "t");
        json_i64(w, (int64_t)t->start + (int64_t)k * t->interval_s);
        json_kv_u64(w, "calls", b->calls);
        json_kv_u64(w, "replies", b->replies);
        json_kv_u64(w, "errors", b->errors);
        json_kv_u64(w, "read_bytes", b->read_bytes);
        json_kv_u64(w, "write_bytes", b->write_bytes);
        json_key(w, "p99_us");
        if (b->latency.count)
            json_u64(w, histo_small_percentile(&b->latency, 99));
        else
            json_null(w);
        json_close(w);
    }
    json_close(w);
    json_close(w);
}

/* TCP connections opened again on the same ports, per client (the opener). */
static void
reconnects(struct json_w *w, const struct reconnects *r)
{
    const struct reconnect_client *top[RECONNECT_CLIENTS];
    size_t n = reconnects_top(r, top, RECONNECT_CLIENTS);
    char a[64];

    json_key(w, "reconnects");
    json_obj(w);
    json_kv_u64(w, "total", r->total);
    json_key(w, "clients");
    json_obj(w);
    for (size_t i = 0; i < n; i++) {
        reconnect_client_addr(top[i], a, sizeof a);
        json_kv_u64(w, a, top[i]->count);
    }
    json_close(w);
    json_kv_u64(w, "other_clients", r->other);
    json_close(w);
}

static int
write_report(FILE *out, const struct stats *s, const struct view_info *vi,
             const struct timespec *now, bool pretty)
{
    struct json_w w;
    size_t i;
    unsigned a;

    json_begin(&w, out, pretty);
    json_obj(&w);
    json_kv_str(&w, "schema", JSON_SCHEMA);
    if (now) {
        json_key(&w, "time");
        ts(&w, now);
    }
    capture(&w, s, vi);
    rpc(&w, s);
    for (i = 0; i < s->nprogs; i++)
        program(&w, s, vi, &s->progs[i]);
    breakdowns(&w, s, vi);
    if (pretty) /* the per-line live output stays small */
        timeline(&w, s);
    reconnects(&w, &s->reconnects);
    json_key(&w, "anomalies");
    json_obj(&w);
    for (a = 0; a < ANOM__COUNT; a++)
        json_kv_u64(&w, anomaly_key((enum anomaly)a), s->anom.n[a]);
    json_close(&w);
    if (vi && vi->findings) { /* ui/report_findings.c */
        json_key(&w, "time_by_cause");
        findings_time_json(&w, vi->findings);
    }
    json_key(&w, "findings");
    findings_json(&w, s, vi ? vi->findings : NULL);
    json_close(&w);
    return json_end(&w);
}

static void
json_tick(FILE *out, const struct stats *s, const struct view_info *vi, const struct timespec *now)
{
    (void)write_report(out, s, vi, now, false);
}

static int
json_report(FILE *out, const struct stats *s, const struct view_info *vi)
{
    return write_report(out, s, vi, NULL, true);
}

const struct view_ops report_json_view = {
    .name = "json",
    .tick = json_tick,
    .report = json_report,
};
