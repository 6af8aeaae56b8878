/* SPDX-License-Identifier: BSD-3-Clause */
/* report_text.c: the human report (-o text), shaped like nfsstat's tables.
 *
 * Layout: a header (sources, filter, packets, bytes, duration), the
 * diagnosis, one table per program that saw calls, the NFS programs (100003)
 * first and MOUNT, portmap and the others after them (procedures in
 * procedure order; rows with no calls only with --all; NFSv4: COMPOUNDs per
 * minor version, kinds and operations seen, the numbers of the JSON
 * report's nfs4 object), the error statuses per procedure, the NFSv3 WRITE
 * stable_how breakdown and READ/WRITE volumes, an "rpc:" totals line, and a
 * capture quality footer listing every non-zero anomaly. Each procedure row
 * has, beside nfsstat's counts, the total time in its calls, ops/s over the
 * capture and kB/op as nfsiostat prints them (KiB of READ/WRITE data per
 * call). Latencies: whole
 * microseconds below 1 ms ("850us"), milliseconds with 2 decimals below
 * 10 ms ("1.25ms") and 1 decimal below 1 s ("125.4ms"), seconds with 2
 * decimals from 1 s ("2.31s"). Byte counts: IEC units with 1 decimal.
 * Numbers are formatted with integer arithmetic only, so the output does not
 * depend on the locale. Strings that may come from outside (sources, filter)
 * go through term_escape(). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lockwait.h"
#include "nfs4.h"
#include "nfs4_state.h"
#include "report_findings.h"
#include "stats.h"
#include "term_escape.h"
#include "view.h"

#define NFS_PROGRAM 100003u /* RFC 1813 §1, RFC 7530 §1 */

static const char *const stable_names[3] = { "UNSTABLE", "DATA_SYNC", "FILE_SYNC" };

/* Print s made terminal-safe. */
static void
put_esc(FILE *out, const char *s)
{
    char small[256];
    size_t n = strlen(s), need = term_escape(small, sizeof small, (const uint8_t *)s, n);

    if (need < sizeof small) {
        fputs(small, out);
    } else {
        char *big = malloc(need + 1);

        if (big) {
            term_escape(big, need + 1, (const uint8_t *)s, n);
            fputs(big, out);
            free(big);
        } else {
            fputs(small, out);
        }
    }
}

/* A latency in microseconds, in the scheme described at the top. */
static void
fmt_latency(char *buf, size_t sz, uint64_t us)
{
    if (us < 1000) {
        snprintf(buf, sz, "%" PRIu64 "us", us);
    } else if (us < 10000) {
        uint64_t h = (us + 5) / 10; /* hundredths of a millisecond */
        snprintf(buf, sz, "%" PRIu64 ".%02" PRIu64 "ms", h / 100, h % 100);
    } else if (us < 1000000) {
        uint64_t t = (us + 50) / 100; /* tenths of a millisecond */
        snprintf(buf, sz, "%" PRIu64 ".%" PRIu64 "ms", t / 10, t % 10);
    } else {
        uint64_t h = (us + 5000) / 10000; /* hundredths of a second */
        snprintf(buf, sz, "%" PRIu64 ".%02" PRIu64 "s", h / 100, h % 100);
    }
}

/* Bytes in IEC units: "512 B", "1.5 KiB", "12.3 MiB". */
static void
fmt_bytes(char *buf, size_t sz, uint64_t b)
{
    static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    unsigned u = 0;
    uint64_t div = 1024;

    if (b < 1024) {
        snprintf(buf, sz, "%" PRIu64 " B", b);
        return;
    }
    while (u < 5 && b / div >= 1024) {
        div *= 1024;
        u++;
    }
    {
        /* tenths, rounded; computed as whole + remainder to avoid overflow */
        uint64_t whole = b / div, rem = b % div;
        uint64_t tenths = whole * 10 + (uint64_t)(((double)rem * 10.0) / (double)div + 0.5);

        snprintf(buf, sz, "%" PRIu64 ".%" PRIu64 " %s", tenths / 10, tenths % 10, units[u]);
    }
}

/* part/total as a percentage with one decimal. */
static void
fmt_pct(char *buf, size_t sz, uint64_t part, uint64_t total)
{
    uint64_t t = total ? (uint64_t)((double)part * 1000.0 / (double)total + 0.5) : 0;

    snprintf(buf, sz, "%" PRIu64 ".%" PRIu64 "%%", t / 10, t % 10);
}

/* The capture's span in nanoseconds (0 without packets or when time went back). */
static uint64_t
span_ns(const struct stats *s)
{
    const struct capture_totals *c = &s->cap;
    int64_t ns;

    if (!c->packets)
        return 0;
    ns = ((int64_t)c->last_ts.tv_sec - (int64_t)c->first_ts.tv_sec) * 1000000000 +
         ((int64_t)c->last_ts.tv_nsec - (int64_t)c->first_ts.tv_nsec);
    return ns > 0 ? (uint64_t)ns : 0;
}

/* n*m/d with one decimal, rounded, in integer arithmetic ("12.5"); "-" if d is 0. */
static void
fmt_ratio(char *buf, size_t sz, uint64_t n, uint64_t m, uint64_t d)
{
    __extension__ typedef unsigned __int128 u128;
    u128 t;

    if (!d) {
        snprintf(buf, sz, "-");
        return;
    }
    t = ((u128)n * m * 10 + d / 2) / d;
    if (t > UINT64_MAX)
        t = UINT64_MAX;
    snprintf(buf, sz, "%" PRIu64 ".%" PRIu64, (uint64_t)t / 10, (uint64_t)t % 10);
}

static void
header(FILE *out, const struct stats *s, const struct view_info *vi)
{
    const struct capture_totals *c = &s->cap;
    char b[32];

    fputs("nfsscope report: ", out);
    if (vi && vi->sources && vi->sources[0]) {
        const char *const *p;

        for (p = vi->sources; *p; p++) {
            if (p != vi->sources)
                fputs(", ", out);
            put_esc(out, *p);
        }
    } else {
        fputs("(no source)", out);
    }
    if (vi && vi->filter) {
        fputs(", filter \"", out);
        put_esc(out, vi->filter);
        fputs("\"", out);
    }
    fputc('\n', out);
    fmt_bytes(b, sizeof b, c->bytes);
    fprintf(out, "capture: %" PRIu64 " packets, %s", c->packets, b);
    if (c->packets) {
        uint64_t ms = (span_ns(s) + 500000) / 1000000;

        fprintf(out, ", %" PRIu64 ".%03" PRIu64 " s", ms / 1000, ms % 1000);
    }
    if (c->truncated_packets)
        fprintf(out, ", %" PRIu64 " truncated by snaplen", c->truncated_packets);
    if (c->kernel_drops >= 0)
        fprintf(out, ", kernel drops %" PRId64, c->kernel_drops);
    fputc('\n', out);
}

/* Width of the procedure-name column. */
static int
name_width(const struct rpc_program *pg)
{
    size_t w = 4;
    uint32_t i;

    for (i = 0; i < pg->nprocs; i++)
        if (pg->procs[i].name && strlen(pg->procs[i].name) > w)
            w = strlen(pg->procs[i].name);
    return (int)(w > 32 ? 32 : w);
}

static const char *
proc_name(const struct rpc_program *pg, uint32_t i, char *buf, size_t sz)
{
    if (rpc_proc_name(pg, i))
        return rpc_proc_name(pg, i);
    snprintf(buf, sz, "proc%" PRIu32, i);
    return buf;
}

/* " NFS3ERR_NOENT 12, NFS3ERR_ACCES 1": a row's error statuses in value
 * order, then the statuses beyond the table and the RPC-level errors. */
static void
status_list(FILE *out, const struct rpc_program *pg, const struct proc_stats *p)
{
    unsigned n = p->nstatus < STATS_MAX_STATUS ? p->nstatus : STATS_MAX_STATUS;
    bool done[STATS_MAX_STATUS] = { false };
    unsigned k, j, printed = 0;

    for (k = 0; k < n; k++) {
        unsigned best = n;

        for (j = 0; j < n; j++)
            if (!done[j] && (best == n || p->status[j].status < p->status[best].status))
                best = j;
        done[best] = true;
        if (p->status[best].status == 0 || p->status[best].count == 0)
            continue;
        {
            const char *nm = pg->status_name ? pg->status_name(p->status[best].status) : NULL;

            fputs(printed++ ? ", " : " ", out);
            if (nm)
                put_esc(out, nm);
            else
                fprintf(out, "unknown(%" PRIu32 ")", p->status[best].status);
            fprintf(out, " %" PRIu64, p->status[best].count);
        }
    }
    if (p->status_other) {
        fputs(printed++ ? ", " : " ", out);
        fprintf(out, "other statuses %" PRIu64, p->status_other);
    }
    if (p->rpc_errors) {
        fputs(printed++ ? ", " : " ", out);
        fprintf(out, "rpc errors %" PRIu64, p->rpc_errors);
    }
}

/* "lookup: NFS3ERR_NOENT 12, NFS3ERR_ACCES 1" for each procedure with errors. */
static void
error_lines(FILE *out, const struct prog_stats *ps)
{
    const struct rpc_program *pg = ps->pg;
    bool any = false;
    uint32_t i;

    for (i = 0; i < pg->nprocs; i++) {
        const struct proc_stats *p = &ps->procs[i];
        char nb[24];

        if (p->errors == 0 && p->status_other == 0)
            continue;
        if (!any)
            fputs("errors by procedure:\n", out);
        any = true;
        fprintf(out, "  %s:", proc_name(pg, i, nb, sizeof nb));
        status_list(out, pg, p);
        fputc('\n', out);
    }
}

/* NLM v4 lock waits: shown when a blocking lock was seen. */
static void
lock_waits(FILE *out, const struct lockwait *lw)
{
    const struct lockwait_stats *st = lockwait_stats(lw);
    char l50[32], l99[32], lmax[32];

    if (!st || (st->blocked == 0 && st->unmatched_grants == 0))
        return;
    fprintf(out,
            "lock waits: %" PRIu64 " blocked, %" PRIu64 " granted, %" PRIu64 " cancelled, %zu still "
            "waiting",
            st->blocked, st->granted, st->cancelled, lockwait_pending(lw));
    if (st->evicted)
        fprintf(out, ", %" PRIu64 " dropped (table full)", st->evicted);
    if (st->unmatched_grants)
        fprintf(out, ", %" PRIu64 " grants of earlier waits", st->unmatched_grants);
    if (st->wait.count) {
        fmt_latency(l50, sizeof l50, histo_percentile(&st->wait, 50));
        fmt_latency(l99, sizeof l99, histo_percentile(&st->wait, 99));
        fmt_latency(lmax, sizeof lmax, st->wait.max);
        fprintf(out, "; wait p50 %s, p99 %s, max %s", l50, l99, lmax);
    }
    fputc('\n', out);
}

/* ---- NFSv4: COMPOUNDs per minor version, COMPOUNDs by kind, operations ---- */

/* Print a table line without its trailing blanks. */
static void
put_line(FILE *out, char *line)
{
    size_t len = strlen(line);

    while (len > 0 && line[len - 1] == ' ')
        line[--len] = '\0';
    fputs(line, out);
    fputc('\n', out);
}

/* p50, p90, p99 and max of h, "-" each when empty. */
struct pctls {
    char p50[32], p90[32], p99[32], max[32];
};

static void
pctls_of(struct pctls *l, const struct histo *h)
{
    strcpy(l->p50, "-");
    strcpy(l->p90, "-");
    strcpy(l->p99, "-");
    strcpy(l->max, "-");
    if (h->count) {
        fmt_latency(l->p50, sizeof l->p50, histo_percentile(h, 50));
        fmt_latency(l->p90, sizeof l->p90, histo_percentile(h, 90));
        fmt_latency(l->p99, sizeof l->p99, histo_percentile(h, 99));
        fmt_latency(l->max, sizeof l->max, h->max);
    }
}

/* One COMPOUND (or NULL) row: calls, replies, unanswered, errors, latency. */
static void
nfs4_msg_line(FILE *out, const char *label, const struct proc_stats *p)
{
    struct pctls l;
    char line[512];

    pctls_of(&l, &p->latency);
    snprintf(line, sizeof line, "%-8s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %8" PRIu64
             " %8s %8s %8s %8s", label, p->calls, p->replies, p->unanswered, p->errors, l.p50,
             l.p90, l.p99, l.max);
    put_line(out, line);
}

static bool
nfs4_minor_seen(const struct minor_stats *m)
{
    const struct proc_stats *c = &m->procs[NFSPROC4_COMPOUND];

    return c->calls || c->replies || c->unanswered;
}

/* COMPOUNDs per minor version and in total, NULL apart, and the COMPOUNDs'
 * error statuses (a COMPOUND's status is that of its last result). */
static void
nfs4_compounds(FILE *out, const struct prog_stats *ps)
{
    const struct rpc_program *pg = ps->pg;
    const struct proc_stats *all = &ps->procs[NFSPROC4_COMPOUND];
    uint64_t minor_errors = 0;
    bool any = false;
    uint32_t k;
    char label[16];

    fprintf(out, "%-8s %10s %10s %10s %8s %8s %8s %8s %8s\n", "COMPOUND", "calls", "replies",
            "unanswered", "errors", "p50", "p90", "p99", "max");
    for (k = 0; k < pg->nminor; k++)
        if (nfs4_minor_seen(&ps->minor[k])) {
            snprintf(label, sizeof label, "v4.%" PRIu32, k);
            nfs4_msg_line(out, label, &ps->minor[k].procs[NFSPROC4_COMPOUND]);
        }
    nfs4_msg_line(out, "total", all);
    nfs4_msg_line(out, "null", &ps->procs[NFSPROC4_NULL]);
    for (k = 0; k < pg->nminor; k++) {
        const struct proc_stats *p = &ps->minor[k].procs[NFSPROC4_COMPOUND];

        minor_errors += p->errors;
        if (p->errors == 0 && p->status_other == 0)
            continue;
        if (!any)
            fputs("COMPOUND errors:\n", out);
        any = true;
        fprintf(out, "  v4.%" PRIu32 ":", k);
        status_list(out, pg, p);
        fputc('\n', out);
    }
    if (all->errors > minor_errors) { /* a minor version beyond the program's */
        if (!any)
            fputs("COMPOUND errors:\n", out);
        if (minor_errors == 0) {
            fputs("  other versions:", out);
            status_list(out, pg, all);
            fputc('\n', out);
        } else {
            fprintf(out, "  other versions: %" PRIu64 "\n", all->errors - minor_errors);
        }
    }
}

/* The kinds of t, ordered by their main operations' numbers (nfsstat -4
 * lists operations in number order). */
static int
kind_cmp(const void *a, const void *b)
{
    uint32_t x = (*(const struct kind_row *const *)a)->key;
    uint32_t y = (*(const struct kind_row *const *)b)->key;
    unsigned i;

    for (i = 0; i < 4; i++) { /* one packed op per byte, first op lowest */
        unsigned bx = x >> (8 * i) & 0xff, by = y >> (8 * i) & 0xff;

        if (bx != by)
            return bx < by ? -1 : 1;
    }
    return 0;
}

/* COMPOUNDs by kind: the COMPOUND's main operations (nfsscope(1) says the
 * rule), each kind with its COMPOUNDs' whole latency. */
static void
nfs4_kinds(FILE *out, const struct rpc_program *pg, const struct kind_table *t,
           const char *title)
{
    const struct kind_row *rows[STATS_MAX_KINDS];
    uint64_t total = t->other;
    unsigned i, n = 0;
    int w = 8;

    for (i = 0; t->rows && i < t->n && n < STATS_MAX_KINDS; i++) {
        char name[96];
        int len = (int)strlen(pg->kind_name(t->rows[i].key, name, sizeof name));

        rows[n++] = &t->rows[i];
        total += t->rows[i].st.replies;
        if (len > w)
            w = len > 40 ? 40 : len;
    }
    if (n == 0 && t->other == 0)
        return;
    qsort(rows, n, sizeof rows[0], kind_cmp);
    fprintf(out, "COMPOUNDs by kind%s (main operations; sequence, putfh, getfh, savefh, restorefh"
                 " are glue):\n", title);
    fprintf(out, "%-*s %10s %6s %8s %8s %8s %8s %8s\n", w, "kind", "compounds", "%", "errors",
            "p50", "p90", "p99", "max");
    for (i = 0; i < n; i++) {
        const struct proc_stats *p = &rows[i]->st;
        char name[96], pct[32], line[512];
        struct pctls l;

        pg->kind_name(rows[i]->key, name, sizeof name);
        fmt_pct(pct, sizeof pct, p->replies, total);
        pctls_of(&l, &p->latency);
        snprintf(line, sizeof line, "%-*s %10" PRIu64 " %6s %8" PRIu64 " %8s %8s %8s %8s", w,
                 name, p->replies, pct, p->errors, l.p50, l.p90, l.p99, l.max);
        put_line(out, line);
    }
    if (t->other)
        fprintf(out, "%-*s %10" PRIu64 "\n", w, "(other kinds)", t->other);
}

static bool
nfs4_op_seen(const struct proc_stats *p)
{
    return p->calls || p->replies || p->not_evaluated;
}

/* Operations: occurrences in calls, results in replies, not evaluated (an
 * earlier operation failed), errors, and the latency of the COMPOUNDs that
 * contain them; then each one's error statuses. */
static void
nfs4_ops(FILE *out, const struct rpc_program *pg, const struct proc_stats *ops,
         const char *title)
{
    bool any = false;
    uint32_t i;
    int w = 8;

    for (i = 0; i < pg->nops; i++)
        if (nfs4_op_seen(&ops[i])) {
            const char *name = nfs4_row_name(pg, i);
            int len = name ? (int)strlen(name) : 0;

            any = true;
            if (len > w)
                w = len;
        }
    if (!any)
        return;
    fprintf(out, "operations%s (latency: of the COMPOUNDs containing the operation):\n", title);
    fprintf(out, "%-*s %10s %10s %10s %8s %8s %8s %8s %8s\n", w, "op", "count", "results",
            "not eval", "errors", "p50", "p90", "p99", "max");
    for (i = 0; i < pg->nops; i++) {
        const struct proc_stats *p = &ops[i];
        const char *name = nfs4_row_name(pg, i);
        char line[512];
        struct pctls l;

        if (!name || !nfs4_op_seen(p))
            continue;
        pctls_of(&l, &p->latency);
        snprintf(line, sizeof line, "%-*s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %8" PRIu64
                 " %8s %8s %8s %8s", w, name, p->calls, p->replies, p->not_evaluated,
                 p->errors, l.p50, l.p90, l.p99, l.max);
        put_line(out, line);
    }
    any = false;
    for (i = 0; i < pg->nops; i++) {
        const struct proc_stats *p = &ops[i];
        const char *name = nfs4_row_name(pg, i);

        if (!name || (p->errors == 0 && p->status_other == 0))
            continue;
        if (!any)
            fprintf(out, "errors by operation%s:\n", title);
        any = true;
        fprintf(out, "  %s:", name);
        status_list(out, pg, p);
        fputc('\n', out);
    }
}

/* The callbacks (CB_NULL and CB_COMPOUND from the server, on the back
 * channel or a connection it opened), when there are any: their messages,
 * operations, and the recalls of delegations with the time to their
 * DELEGRETURN. */
static void
nfs4_callbacks(FILE *out, const struct view_info *vi, const struct prog_stats *cb)
{
    const struct nfs4_state_stats *st = vi && vi->nfs4_state ? nfs4_state_stats(vi->nfs4_state)
                                                               : NULL;

    if (!cb || !cb->calls)
        return;
    fprintf(out, "callbacks (server to client): %" PRIu64 " calls, %" PRIu64 " replies\n",
            cb->calls, cb->replies);
    fprintf(out, "%-8s %10s %10s %10s %8s %8s %8s %8s %8s\n", "CB", "calls", "replies",
            "unanswered", "errors", "p50", "p90", "p99", "max");
    nfs4_msg_line(out, "compound", &cb->procs[NFSPROC4_COMPOUND]);
    nfs4_msg_line(out, "null", &cb->procs[NFSPROC4_NULL]);
    nfs4_ops(out, cb->pg, cb->ops, " of the callbacks");
    if (st && st->recalls.calls) {
        struct pctls l;

        pctls_of(&l, &st->recalls.to_return);
        fprintf(out,
                "recalls: %" PRIu64 " cb_recall, %" PRIu64 " of delegations granted in the "
                "capture, %" PRIu64 " returned (to delegreturn p50 %s, max %s), %" PRIu64
                " not returned\n",
                st->recalls.calls, st->recalls.known, st->recalls.returned, l.p50, l.max,
                st->recalls.pending);
    }
}

#define NFS4_TEXT_SESSIONS 4 /* sessions listed in the text report, busiest first */

/* " (NFS4ERR_BADSLOT 1, ...)" of a status map, or nothing. */
static void
nfs4_status_list(FILE *out, const struct nfs4_status_map *m)
{
    uint32_t i;

    if (!m->n && !m->other)
        return;
    for (i = 0; i < m->n; i++) {
        const char *n = nfs4_status_name(m->status[i]);
        fprintf(out, "%s%s %" PRIu64, i ? ", " : " (", n ? n : "?", m->count[i]);
    }
    if (m->other)
        fprintf(out, "%sother %" PRIu64, m->n ? ", " : " (", m->other);
    fputc(')', out);
}

static void
nfs4_chan_line(FILE *out, const char *label, const struct nfs4_chan *c)
{
    fprintf(out, " %s %" PRIu32 " slots, %" PRIu32 " ops, request %" PRIu32 " B, reply %" PRIu32
                 " B (cached %" PRIu32 " B);",
            label, c->maxrequests, c->maxoperations, c->maxrequestsize, c->maxresponsesize,
            c->maxresponsesize_cached);
}

/* The NFSv4.1 sessions (src/nfs4_state.h): created and destroyed, SEQUENCE
 * calls and errors, calls on a busy slot; per busiest session the channel
 * limits CREATE_SESSION granted and the highest slot used against the
 * server's highest and target slots (RFC 8881 §2.10.6, §18.36, §18.46). */
static void
nfs4_sessions(FILE *out, const struct view_info *vi)
{
    const struct nfs4_state_stats *st;
    const struct nfs4_session *l[NFS4_TEXT_SESSIONS];
    size_t n, i;

    if (!vi || !vi->nfs4_state)
        return;
    st = nfs4_state_stats(vi->nfs4_state);
    if (!st->sessions.created && !st->sessions.calls)
        return;
    fprintf(out, "sessions: %" PRIu64 " created, %" PRIu64 " destroyed; SEQUENCE %" PRIu64
                 " calls, %" PRIu64 " errors",
            st->sessions.created, st->sessions.destroyed, st->sessions.calls,
            st->sessions.errors);
    nfs4_status_list(out, &st->sessions.status);
    fprintf(out, ", %" PRIu64 " calls on a busy slot\n", st->sessions.slot_busy);
    n = nfs4_state_sessions(vi->nfs4_state, l, NFS4_TEXT_SESSIONS);
    for (i = 0; i < n; i++) {
        const struct nfs4_session *se = l[i];
        unsigned b;

        fputs("  session ", out);
        for (b = 0; b < NFS4_SESSIONID_SIZE; b++)
            fprintf(out, "%02x", se->sessionid[b]);
        fprintf(out, ": %" PRIu64 " SEQUENCE calls, highest slot used %" PRIu32, se->calls,
                se->max_slot);
        if (se->has_slot)
            fprintf(out, " (server's highest %" PRIu32, se->highest_slotid);
        if (se->has_slot && se->has_target)
            fprintf(out, ", target %" PRIu32 "-%" PRIu32, se->target_min, se->target_max);
        fprintf(out, "%s, most in flight %" PRIu32 ", on a busy slot %" PRIu64 "\n",
                se->has_slot ? ")" : "", se->max_in_flight, se->slot_busy);
        if (se->fore.maxrequests || se->back.maxrequests) {
            fputs("   ", out);
            if (se->fore.maxrequests)
                nfs4_chan_line(out, "fore channel", &se->fore);
            if (se->back.maxrequests)
                nfs4_chan_line(out, "back channel", &se->back);
            fputc('\n', out);
        }
    }
}

/* The "NFS v4.x" section: COMPOUNDs per minor version, kinds, operations
 * (with -v also per minor version when several were seen), WRITE
 * stable_how4, bytes, callbacks. */
static void
nfs4_section(FILE *out, const struct view_info *vi, const struct prog_stats *ps,
             const struct prog_stats *cb)
{
    const struct rpc_program *pg = ps->pg;
    char wb[24], rb[24];
    unsigned k, seen = 0;

    nfs4_compounds(out, ps);
    nfs4_kinds(out, pg, &ps->kinds, "");
    nfs4_ops(out, pg, ps->ops, "");
    for (k = 0; k < pg->nminor; k++)
        seen += nfs4_minor_seen(&ps->minor[k]);
    if (vi && vi->detail > 0 && seen > 1) /* -v: per minor version too */
        for (k = 0; k < pg->nminor; k++) {
            char title[24];

            if (!nfs4_minor_seen(&ps->minor[k]))
                continue;
            snprintf(title, sizeof title, " in v4.%u", k);
            nfs4_kinds(out, pg, &ps->minor[k].kinds, title);
            nfs4_ops(out, pg, ps->minor[k].ops, title);
        }
    if (ps->write.stable[0] + ps->write.stable[1] + ps->write.stable[2]) {
        fputs("write stable_how4:", out);
        for (k = 0; k < 3; k++)
            fprintf(out, "%s %s %" PRIu64, k ? "," : "", nfs4_stable_name(k),
                    ps->write.stable[k]);
        fputs("; committed:", out);
        for (k = 0; k < 3; k++)
            fprintf(out, "%s %s %" PRIu64, k ? "," : "", nfs4_stable_name(k),
                    ps->write.committed[k]);
        fputc('\n', out);
    }
    fmt_bytes(wb, sizeof wb, ps->write.bytes);
    fmt_bytes(rb, sizeof rb, ps->read_bytes);
    fprintf(out, "bytes: written %s, read %s (%" PRIu64 " read%s at eof)\n", wb, rb,
            ps->read_eof, ps->read_eof == 1 ? "" : "s");
    if (ps->ops[OP_READ_PLUS].calls) { /* RFC 7862 §15.10 */
        fmt_bytes(rb, sizeof rb, ps->io.read_plus_bytes);
        fmt_bytes(wb, sizeof wb, ps->io.read_plus_holes);
        fprintf(out, "READ_PLUS: data %s, holes %s (%" PRIu64 " at eof)\n", rb, wb,
                ps->io.read_plus_eof);
    }
    if (ps->ops[OP_COPY].calls) { /* RFC 7862 §15.2: server-side copy */
        fmt_bytes(wb, sizeof wb, ps->io.copy_bytes);
        fprintf(out, "COPY: %s copied by the server\n", wb);
    }
    nfs4_sessions(out, vi);
    nfs4_callbacks(out, vi, cb);
}

/* RPCSEC_GSS (RFC 2203): calls by service, the encrypted ones by procedure,
 * the context control messages apart from the NULL procedure. */
static void
gss_lines(FILE *out, const struct prog_stats *ps)
{
    static const char *const ctl[GSS_CTL__COUNT] = { "init", "continue_init", "destroy" };
    const struct rpc_program *pg = ps->pg;
    const struct gss_counts *g = &ps->gss;
    char nb[24];
    unsigned k, n = 0;
    uint32_t i;

    if (!(g->data[0] | g->data[1] | g->data[2] | g->ctl[0] | g->ctl[1] | g->ctl[2]))
        return;
    fprintf(out,
            "RPCSEC_GSS: %" PRIu64 " calls with no protection, %" PRIu64 " integrity, %" PRIu64
            " privacy (encrypted)\n",
            g->data[0], g->data[1], g->data[2]);
    for (i = 0; i < pg->nprocs; i++)
        if (ps->procs[i].encrypted)
            fprintf(out, "%s %s %" PRIu64, n++ ? "," : "  encrypted, operations not seen:",
                    proc_name(pg, i, nb, sizeof nb), ps->procs[i].encrypted);
    if (n)
        fputc('\n', out);
    if (!(g->ctl[0] | g->ctl[1] | g->ctl[2]))
        return;
    fputs("  context control (not in null):", out);
    for (k = 0; k < GSS_CTL__COUNT; k++) {
        const struct proc_stats *p = &ps->gss_ctl[k];
        char l50[32] = "-";

        if (p->latency.count)
            fmt_latency(l50, sizeof l50, histo_percentile(&p->latency, 50));
        fprintf(out, "%s %s %" PRIu64 " (p50 %s)", k ? "," : "", ctl[k], p->calls, l50);
    }
    fputc('\n', out);
}

/* Connections switched to TLS after the AUTH_TLS probe (RFC 9289). */
static void
tls_lines(FILE *out, const struct rpc_tls *t)
{
    char b[24], cli[64], srv[64];
    uint16_t cp, sp;
    uint32_t shown = t->n < 8 ? t->n : 8;

    fmt_bytes(b, sizeof b, t->bytes);
    fprintf(out,
            "  %12" PRIu64 "  %-20s connections switched to TLS after the AUTH_TLS probe "
            "(RFC 9289): %s in %" PRIu64 " TLS records, encrypted, not decoded\n",
            t->connections, "tls_connections", b, t->records);
    for (uint32_t i = 0; i < shown; i++) {
        const struct rpc_tls_conn *c = &t->c[i];
        char up[24], down[24];

        rpc_tls_conn_ends(c, cli, srv, sizeof cli, &cp, &sp);
        fmt_bytes(up, sizeof up, c->bytes[0]);
        fmt_bytes(down, sizeof down, c->bytes[1]);
        fprintf(out, "                %s:%u -> %s:%u: %s to the server, %s to the client\n", cli,
                (unsigned)cp, srv, (unsigned)sp, up, down);
    }
    if (t->connections > shown)
        fprintf(out, "                and %" PRIu64 " more connections\n",
                t->connections - shown);
}

/* A procedure row is shown when something happened on it (or with --all). */
static bool
row_used(const struct proc_stats *p)
{
    return p->calls || p->replies || p->errors || p->retrans || p->unanswered ||
           p->latency.count;
}

/* Some version of the NFS program (100003) had calls. */
static bool
nfs_called(const struct stats *s)
{
    for (size_t i = 0; i < s->nprogs; i++)
        if (s->progs[i].pg->prog == NFS_PROGRAM && s->progs[i].calls)
            return true;
    return false;
}

static void
program(FILE *out, const struct stats *s, const struct view_info *vi, const struct prog_stats *ps,
        uint64_t span)
{
    const struct rpc_program *pg = ps->pg;
    bool all = vi && vi->all;
    int nw = name_width(pg);
    uint32_t i, hidden = 0;

    if (pg->flags & PGF_ANNOUNCED) /* inside the program that announces it */
        return;
    /* A program without calls is left out; the main one (NFSv3) says so
     * when no NFS version had any, so a report never lacks an NFS line. */
    if (ps->calls == 0 && (!(pg->flags & PGF_PRIMARY) || nfs_called(s)))
        return;
    fputc('\n', out);
    put_esc(out, pg->title ? pg->title : pg->name);
    fputs(" (", out);
    put_esc(out, pg->name);
    if (ps->calls == 0) {
        fputs("): no calls\n", out);
        return;
    }
    fprintf(out, "): %" PRIu64 " calls, %" PRIu64 " replies", ps->calls, ps->replies);
    if (ps->bad_proc)
        fprintf(out, ", %" PRIu64 " to unknown procedures", ps->bad_proc);
    fputs("\nlatency: us below 1 ms, ms below 1 s, then s; - = no replies\n", out);
    if (pg->nminor && ps->minor) { /* NFSv4: COMPOUNDs, kinds, operations */
        nfs4_section(out, vi, ps,
                     pg->announces ? stats_prog_by_name(s, pg->announces->name) : NULL);
        gss_lines(out, ps);
        return;
    }
    fprintf(out, "%-*s %9s %6s %7s %7s %8s %8s %8s %8s %8s %6s %10s\n", nw, "proc", "calls", "%",
            "ops/s", "errors", "p50", "p90", "p99", "max", "time", "kB/op", "bytes");
    for (i = 0; i < pg->nprocs; i++) {
        const struct proc_stats *p = &ps->procs[i];
        char nb[24], pct[32], l50[32] = "-", l90[32] = "-", l99[32] = "-", lmax[32] = "-";
        char tot[32] = "-", rate[32], kbop[32] = "", bytes[24] = "", line[512];
        size_t len;

        if (!all && !row_used(p)) {
            hidden++;
            continue;
        }
        fmt_pct(pct, sizeof pct, p->calls, ps->calls);
        /* ops/s over the capture's span: calls * 1e9 / ns */
        fmt_ratio(rate, sizeof rate, p->calls, 1000000000u, span);
        if (p->latency.count) {
            fmt_latency(l50, sizeof l50, histo_percentile(&p->latency, 50));
            fmt_latency(l90, sizeof l90, histo_percentile(&p->latency, 90));
            fmt_latency(l99, sizeof l99, histo_percentile(&p->latency, 99));
            fmt_latency(lmax, sizeof lmax, p->latency.max);
            fmt_latency(tot, sizeof tot, p->latency.sum);
        }
        if (p->bytes) {
            fmt_bytes(bytes, sizeof bytes, p->bytes);
            fmt_ratio(kbop, sizeof kbop, p->bytes, 1, (uint64_t)p->calls * 1024);
        }
        snprintf(line, sizeof line,
                 "%-*s %9" PRIu64 " %6s %7s %7" PRIu64 " %8s %8s %8s %8s %8s %6s %10s", nw,
                 proc_name(pg, i, nb, sizeof nb), p->calls, pct, rate, p->errors, l50, l90, l99,
                 lmax, tot, kbop, bytes);
        len = strlen(line);
        while (len > 0 && line[len - 1] == ' ') /* no trailing blanks */
            line[--len] = '\0';
        fputs(line, out);
        fputc('\n', out);
    }
    if (hidden)
        fprintf(out, "(%" PRIu32 " procedure%s without calls not shown: --all shows them)\n",
                hidden, hidden == 1 ? "" : "s");
    error_lines(out, ps);
    if (pg->flags & PGF_IO_DETAIL) {
        char wb[24], rb[24];
        unsigned k;

        fmt_bytes(wb, sizeof wb, ps->write.bytes);
        fmt_bytes(rb, sizeof rb, ps->read_bytes);
        fputs("write stable_how:", out);
        for (k = 0; k < 3; k++)
            fprintf(out, "%s %s %" PRIu64, k ? "," : "", stable_names[k], ps->write.stable[k]);
        fputs("; committed:", out);
        for (k = 0; k < 3; k++)
            fprintf(out, "%s %s %" PRIu64, k ? "," : "", stable_names[k], ps->write.committed[k]);
        fputc('\n', out);
        fprintf(out, "bytes: written %s, read %s (%" PRIu64 " read%s at eof)\n", wb, rb,
                ps->read_eof, ps->read_eof == 1 ? "" : "s");
    }
    gss_lines(out, ps);
    if (pg->flags & PGF_LOCK_WAITS)
        lock_waits(out, vi ? vi->lockwait : NULL);
}

static void
footer(FILE *out, const struct stats *s)
{
    const struct rpc_totals *r = &s->rpc;
    unsigned a, nz = 0;

    fprintf(out,
            "\nrpc: %" PRIu64 " calls, %" PRIu64 " replies, %" PRIu64 " retransmissions, %" PRIu64
            " unanswered, %" PRIu64 " orphan replies, %" PRIu64 " rpc errors",
            r->calls, r->replies, r->retransmissions, r->unanswered_calls, r->orphan_replies,
            r->rpc_errors);
    if (r->duplicate_replies)
        fprintf(out, ", %" PRIu64 " duplicate replies", r->duplicate_replies);
    if (r->unknown_program_calls)
        fprintf(out, ", %" PRIu64 " calls to other programs", r->unknown_program_calls);
    fputc('\n', out);
    if (s->reconnects.total) {
        const struct reconnect_client *top[RECONNECT_CLIENTS];
        size_t n = reconnects_top(&s->reconnects, top, 8);
        char who[64];

        fprintf(out, "reconnects: %" PRIu64 " (", s->reconnects.total);
        for (size_t i = 0; i < n; i++) {
            reconnect_client_addr(top[i], who, sizeof who);
            fprintf(out, "%s%s %" PRIu64, i ? ", " : "", who, top[i]->count);
        }
        if (s->reconnects.n > n)
            fprintf(out, ", %u more clients", (unsigned)(s->reconnects.n - n));
        if (s->reconnects.other)
            fprintf(out, ", %" PRIu64 " by other clients", s->reconnects.other);
        fputs(")\n", out);
    }

    for (a = 0; a < ANOM__COUNT; a++)
        if (s->anom.n[a])
            nz++;
    if (s->cap.kernel_drops > 0)
        nz++;
    if (s->tls.connections)
        nz++;
    if (nz == 0) {
        fputs("capture quality: no anomalies\n", out);
        return;
    }
    fputs("capture quality:\n", out);
    if (s->cap.kernel_drops > 0)
        fprintf(out, "  %12" PRId64 "  %-20s packets dropped by the kernel (not captured)\n",
                s->cap.kernel_drops, "kernel_drops");
    for (a = 0; a < ANOM__COUNT; a++)
        if (s->anom.n[a])
            fprintf(out, "  %12" PRIu64 "  %-20s %s\n", s->anom.n[a],
                    anomaly_key((enum anomaly)a), anomaly_desc((enum anomaly)a));
    if (s->tls.connections)
        tls_lines(out, &s->tls);
}

/* One breakdown row: label (escaped, cut to the column), calls, share,
 * errors, p50, p99, total time spent, bytes read and written. */
static void
bd_line(FILE *out, const char *label, const struct bd_row *r, uint64_t total_calls)
{
    char pct[32], p50[32] = "-", p99[32] = "-", tot[32] = "-", rd[24] = "-", wr[24] = "-";
    char esc[2048];
    size_t n;

    term_escape(esc, sizeof esc, (const uint8_t *)label, strlen(label));
    n = strlen(esc);
    if (n > 40) { /* keep the tail of long paths: it names the file */
        size_t from = n - 37;

        /* ... from a character boundary: a cut UTF-8 sequence would leave
         * bare continuation bytes (0x9b is CSI to an 8-bit terminal). */
        while (from < n && ((unsigned char)esc[from] & 0xc0) == 0x80)
            from++;
        memmove(esc + 3, esc + from, n - from + 1);
        memcpy(esc, "...", 3);
    }
    fmt_pct(pct, sizeof pct, r->calls, total_calls);
    if (r->latency.count) {
        fmt_latency(p50, sizeof p50, histo_small_percentile(&r->latency, 50));
        fmt_latency(p99, sizeof p99, histo_small_percentile(&r->latency, 99));
        fmt_latency(tot, sizeof tot, r->latency.sum);
    }
    if (r->read_bytes)
        fmt_bytes(rd, sizeof rd, r->read_bytes);
    if (r->write_bytes)
        fmt_bytes(wr, sizeof wr, r->write_bytes);
    fprintf(out, "%-40s %10" PRIu64 " %6s %8" PRIu64 " %8s %8s %9s %10s %10s\n", esc, r->calls,
            pct, r->errors, p50, p99, tot, rd, wr);
}

/* Under a file row: the NFSv4 operations that ran with its handle as
 * current file handle, with their results, most first, wrapped at 100
 * columns. Returns how many operations. */
static size_t
file_ops_line(FILE *out, const struct stats *s, const struct bd_row *r)
{
    struct file_op ops[BD_PROCS_PER_ROW];
    size_t n = stats_file_ops(s, r, ops), i;
    int col = 0;

    for (i = 0; i < n; i++) {
        char item[64];
        int len = snprintf(item, sizeof item, " %s %" PRIu64 "%s",
                           ops[i].name ? ops[i].name : "other", ops[i].results,
                           i + 1 < n ? "," : "");

        if (i == 0) {
            fputs("  nfs4 ops:", out);
            col = 11;
        } else if (col + len > 100) {
            fputs("\n           ", out);
            col = 11;
        }
        fputs(item, out);
        col += len;
    }
    if (n)
        fputc('\n', out);
    return n;
}

/* Top-N tables for the dimensions asked for with --by. */
static void
breakdowns(FILE *out, const struct stats *s, const struct view_info *vi)
{
    unsigned top = vi && vi->top_n ? vi->top_n : 10, d;
    enum bd_order order = vi ? (enum bd_order)vi->order : BD_BY_CALLS;
    const struct bd_row **rows;

    if (!s->bd_on || !vi || !vi->by_mask)
        return;
    rows = calloc(top, sizeof *rows);
    if (!rows)
        return;
    for (d = 0; d < BD__COUNT; d++) {
        const struct bd_table *t = &s->bd[d];
        size_t n, i;
        char label[1024];

        if (!(vi->by_mask & (1u << d)))
            continue;
        n = bd_table_top(t, order, rows, top);
        fprintf(out, "\ntop %zu of %zu by %s: %s\n", n, t->count, bd_order_name(order),
                bd_dim_name((enum bd_dim)d));
        fprintf(out, "%-40s %10s %6s %8s %8s %8s %9s %10s %10s\n", bd_dim_name((enum bd_dim)d),
                "calls", "%", "errors", "p50", "p99", "time", "read", "written");
        for (i = 0; i < n; i++) {
            bd_line(out, stats_row_label(s, (enum bd_dim)d, rows[i], label, sizeof label),
                    rows[i], s->rpc.calls);
            if (d == BD_FILE)
                file_ops_line(out, s, rows[i]);
        }
        if (t->other.calls || t->other.replies || t->other.unanswered ||
            (d == BD_FILE && t->evicted)) { /* its operations, if any */
            snprintf(label, sizeof label, "(other: %" PRIu64 " evicted)", t->evicted);
            bd_line(out, label, &t->other, s->rpc.calls);
            if (d == BD_FILE)
                file_ops_line(out, s, &t->other);
        }
    }
    free(rows);
}

/* The busiest interval of the timeline, and the READ/WRITE size spread. */
static void
throughput(FILE *out, const struct stats *s)
{
    const struct timeline *t = &s->tl;
    const struct prog_stats *ps = NULL;
    uint32_t k, best = 0;
    size_t i;

    for (i = 0; i < s->nprogs && !ps; i++) /* the first program with READ/WRITE detail */
        if (s->progs[i].pg->flags & PGF_IO_DETAIL)
            ps = &s->progs[i];
    if (!t->b || t->used == 0 || !ps || (ps->read_bytes == 0 && ps->write.bytes == 0))
        return;
    for (k = 1; k < t->used; k++)
        if (t->b[k].read_bytes + t->b[k].write_bytes > t->b[best].read_bytes + t->b[best].write_bytes)
            best = k;
    {
        char rd[24], wr[24];
        const struct tl_bucket *b = &t->b[best];

        fmt_bytes(rd, sizeof rd, b->read_bytes / t->interval_s);
        fmt_bytes(wr, sizeof wr, b->write_bytes / t->interval_s);
        fprintf(out, "busiest %" PRIu32 " s: read %s/s, written %s/s, %" PRIu64 " calls"
                     " (at +%" PRIu32 " s)\n",
                t->interval_s, rd, wr, b->calls, best * t->interval_s);
    }
    if (ps->write.bytes) {
        uint64_t n = 0;
        for (k = 0; k < IOSZ_BUCKETS; k++)
            n += ps->write_size[k];
        fprintf(out, "writes smaller than an earlier write on their connection: %" PRIu64
                     " of %" PRIu64 "\n", ps->writes_below_max, n);
    }
}

static int
text_report(FILE *out, const struct stats *s, const struct view_info *vi)
{
    uint64_t span = span_ns(s);
    size_t i;
    int pass;

    header(out, s, vi);
    findings_diagnosis(out, s, vi ? vi->findings : NULL); /* ui/report_findings.c */
    for (pass = 0; pass < 2; pass++) /* NFS (program 100003) first, then the others */
        for (i = 0; i < s->nprogs; i++)
            if ((s->progs[i].pg->prog == NFS_PROGRAM) == (pass == 0))
                program(out, s, vi, &s->progs[i], span);
    if (!vi || vi->detail >= 0) { /* -q: the short form, without these */
        throughput(out, s);
        breakdowns(out, s, vi);
        /* ui/report_findings.c; the model's assumptions with -v only */
        findings_text(out, s, vi ? vi->findings : NULL, vi && vi->detail > 0);
    }
    footer(out, s);
    if (fflush(out) != 0 || ferror(out))
        return -1;
    return 0;
}

static void
text_tick(FILE *out, const struct stats *s, const struct view_info *vi, const struct timespec *now)
{
    if (now) {
        struct tm tm;
        char tb[32];
        time_t t = now->tv_sec;

        if (localtime_r(&t, &tm) && strftime(tb, sizeof tb, "%Y-%m-%d %H:%M:%S", &tm))
            fprintf(out, "--- %s\n", tb);
    }
    (void)text_report(out, s, vi);
    fputc('\n', out);
    fflush(out);
}

const struct view_ops report_text_view = {
    .name = "text",
    .tick = text_tick,
    .report = text_report,
};
