/* SPDX-License-Identifier: BSD-3-Clause */
/* report_prom.c: the Prometheus text exposition format, version 0.0.4
 * (prometheus.io/docs/instrumenting/exposition_formats), for --metrics.
 *
 * Names follow Prometheus conventions: base units (seconds, bytes), counters
 * end in _total, one HELP and one TYPE line per family, all samples of a
 * family together. Per-procedure series appear once the procedure has been
 * seen (a call, reply, retransmission or unanswered call), in registry and
 * procedure-number order, so the output never depends on hash order.
 * One family per concept: calls, replies, errors, retransmissions, unanswered
 * calls and latency are per {program, proc}, where program is the JSON
 * report's key ("nfs3", "mount3"); summed over every series, a family gives
 * the report's RPC total. */
#include "report_prom.h"

#include <inttypes.h>
#include <string.h>

#include "findings.h"
#include "nfs4.h"

static const char *const stable_names[3] = { "UNSTABLE", "DATA_SYNC", "FILE_SYNC" };

/* Series outside the decoded procedures (programs with no dissector,
 * procedure numbers beyond a program's table) carry these labels, so that a
 * family summed over its labels equals the report's RPC total. */
#define OTHER_LABELS "program=\"other\",proc=\"other\""

void
report_prom_label(FILE *out, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\')
            fputs("\\\\", out);
        else if (*v == '"')
            fputs("\\\"", out);
        else if (*v == '\n')
            fputs("\\n", out);
        else
            fputc(*v, out);
    }
}

static void
family(FILE *out, const char *name, const char *type, const char *help)
{
    fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Microseconds as seconds, exactly (6 decimals). */
static void
seconds(FILE *out, uint64_t us)
{
    fprintf(out, "%" PRIu64 ".%06" PRIu64, us / 1000000, us % 1000000);
}

/* A procedure's name, or "procN" where the table has none (N < nprocs:
 * still a fixed set). */
static const char *
proc_name(const struct rpc_program *pg, uint32_t k, char *buf, size_t sz)
{
    if (rpc_proc_name(pg, k))
        return rpc_proc_name(pg, k);
    snprintf(buf, sz, "proc%" PRIu32, k);
    return buf;
}

/* The program label is the JSON report's key for it ("nfs3", "mount3"). */
static void
prog_labels(FILE *out, const struct rpc_program *pg, uint32_t proc)
{
    char name[32];

    fputs("program=\"", out);
    report_prom_label(out, pg->name);
    fputc('"', out);
    if (proc != UINT32_MAX) {
        fputs(",proc=\"", out);
        report_prom_label(out, proc_name(pg, proc, name, sizeof name));
        fputc('"', out);
    }
}

static bool
seen(const struct proc_stats *p)
{
    return p->calls || p->replies || p->retrans || p->unanswered;
}

/* "NAME{program=...,proc=...": the caller adds any more labels,
 * then "} VALUE\n". */
static void
series(FILE *out, const char *name, const struct rpc_program *pg, uint32_t proc)
{
    fputs(name, out);
    fputc('{', out);
    prog_labels(out, pg, proc);
}

typedef void proc_fn(FILE *out, const struct rpc_program *pg, uint32_t proc,
                     const struct proc_stats *p, const void *arg);

/* fn for every procedure of every program that saw a call or a reply. */
static void
each_seen_proc(FILE *out, const struct stats *s, proc_fn *fn, const void *arg)
{
    size_t i;
    uint32_t k;

    for (i = 0; i < s->nprogs; i++)
        for (k = 0; k < s->progs[i].pg->nprocs; k++)
            if (seen(&s->progs[i].procs[k]))
                fn(out, s->progs[i].pg, k, &s->progs[i].procs[k], arg);
}

enum pfield { PF_CALLS, PF_REPLIES, PF_RETRANS, PF_UNANSWERED };

static uint64_t
pfield(const struct proc_stats *p, enum pfield f)
{
    switch (f) {
    case PF_CALLS:
        return p->calls;
    case PF_REPLIES:
        return p->replies;
    case PF_RETRANS:
        return p->retrans;
    case PF_UNANSWERED:
        return p->unanswered;
    }
    return 0;
}

/* The report's RPC total of a field (every program). */
static uint64_t
rpc_total(const struct rpc_totals *r, enum pfield f)
{
    switch (f) {
    case PF_CALLS:
        return r->calls;
    case PF_REPLIES:
        return r->replies;
    case PF_RETRANS:
        return r->retransmissions;
    case PF_UNANSWERED:
        return r->unanswered_calls;
    }
    return 0;
}

struct per_proc_arg {
    const char *name;
    enum pfield f;
};

static void
per_proc_one(FILE *out, const struct rpc_program *pg, uint32_t k, const struct proc_stats *p,
             const void *arg)
{
    const struct per_proc_arg *a = arg;

    series(out, a->name, pg, k);
    fprintf(out, "} %" PRIu64 "\n", pfield(p, a->f));
}

/* The part of an RPC total no decoded procedure accounts for. */
static uint64_t
rest(const struct stats *s, enum pfield f)
{
    uint64_t sum = 0;
    size_t i;
    uint32_t k;

    for (i = 0; i < s->nprogs; i++)
        for (k = 0; k < s->progs[i].pg->nprocs; k++)
            sum += pfield(&s->progs[i].procs[k], f);
    return rpc_total(&s->rpc, f) > sum ? rpc_total(&s->rpc, f) - sum : 0;
}

/* One counter per seen procedure, and the rest as program="other". */
static void
per_proc(FILE *out, const struct stats *s, const char *name, const char *help, enum pfield f)
{
    struct per_proc_arg a = { name, f };
    uint64_t r = rest(s, f);

    family(out, name, "counter", help);
    each_seen_proc(out, s, per_proc_one, &a);
    if (r)
        fprintf(out, "%s{" OTHER_LABELS "} %" PRIu64 "\n", name, r);
}

static bool
status_is_error(const struct rpc_program *pg, uint32_t st)
{
    return pg->status_error ? pg->status_error(st) : st != 0;
}

/* Errors by status name. The per-status series of a procedure add up to its
 * `errors`: RPC-level failures are status "RPC_ERROR", and statuses with no
 * name (or beyond the STATS_MAX_STATUS kept) are "other". */
static void
errors_one(FILE *out, const struct rpc_program *pg, uint32_t k, const struct proc_stats *p,
           const void *arg)
{
    uint64_t named = 0;
    unsigned j;

    (void)arg;
    for (j = 0; j < p->nstatus; j++) {
        const char *sn;

        if (!status_is_error(pg, p->status[j].status))
            continue;
        sn = pg->status_name ? pg->status_name(p->status[j].status) : NULL;
        if (!sn)
            continue;
        series(out, "nfsscope_errors_total", pg, k);
        fputs(",status=\"", out);
        report_prom_label(out, sn);
        fprintf(out, "\"} %" PRIu64 "\n", p->status[j].count);
        named += p->status[j].count;
    }
    if (p->rpc_errors) {
        series(out, "nfsscope_errors_total", pg, k);
        fprintf(out, ",status=\"RPC_ERROR\"} %" PRIu64 "\n", p->rpc_errors);
        named += p->rpc_errors;
    }
    if (p->errors > named) {
        series(out, "nfsscope_errors_total", pg, k);
        fprintf(out, ",status=\"other\"} %" PRIu64 "\n", p->errors - named);
    }
}

static void
errors(FILE *out, const struct stats *s)
{
    uint64_t decoded = 0;
    size_t i;
    uint32_t k;

    family(out, "nfsscope_errors_total", "counter",
           "Replies that failed, by status (RPC_ERROR: the RPC layer refused the call).");
    each_seen_proc(out, s, errors_one, NULL);
    for (i = 0; i < s->nprogs; i++)
        for (k = 0; k < s->progs[i].pg->nprocs; k++)
            decoded += s->progs[i].procs[k].rpc_errors;
    if (s->rpc.rpc_errors > decoded)
        fprintf(out, "nfsscope_errors_total{" OTHER_LABELS ",status=\"RPC_ERROR\"} %" PRIu64 "\n",
                s->rpc.rpc_errors - decoded);
}

/* Nanoseconds as seconds, the shortest exact decimal ("0.0000112", "10"). */
static void
le_label(FILE *out, uint64_t ns)
{
    char frac[16];
    int n = snprintf(frac, sizeof frac, "%09" PRIu64, ns % 1000000000);

    while (n > 0 && frac[n - 1] == '0')
        frac[--n] = '\0';
    fprintf(out, "%" PRIu64 "%s%s", ns / 1000000000, n ? "." : "", frac);
}

static void
latency_one(FILE *out, const struct rpc_program *pg, uint32_t k, const struct proc_stats *p,
            const void *arg)
{
    uint64_t cum = 0;
    unsigned b;

    (void)arg;
    for (b = 0; b < STATS_LAT_BOUNDS; b++) {
        cum += p->lat_le[b];
        series(out, "nfsscope_latency_seconds_bucket", pg, k);
        fputs(",le=\"", out);
        le_label(out, stats_lat_bound_ns(b));
        fprintf(out, "\"} %" PRIu64 "\n", cum);
    }
    series(out, "nfsscope_latency_seconds_bucket", pg, k);
    fprintf(out, ",le=\"+Inf\"} %" PRIu64 "\n", p->latency.count);
    series(out, "nfsscope_latency_seconds_sum", pg, k);
    fputs("} ", out);
    seconds(out, p->latency.sum);
    fputc('\n', out);
    series(out, "nfsscope_latency_seconds_count", pg, k);
    fprintf(out, "} %" PRIu64 "\n", p->latency.count);
}

static void
latency(FILE *out, const struct stats *s)
{
    family(out, "nfsscope_latency_seconds", "histogram",
           "Call to reply time of answered calls (retransmitted calls are not timed).");
    each_seen_proc(out, s, latency_one, NULL);
}

/* READ data travels to the client, WRITE data to the server. */
static void
bytes_one(FILE *out, const struct rpc_program *pg, uint32_t k, const struct proc_stats *p,
          const void *arg)
{
    char nb[32];
    const char *pn = proc_name(pg, k, nb, sizeof nb);
    const char *dir = strcmp(pn, "read") == 0    ? "to_client"
                      : strcmp(pn, "write") == 0 ? "to_server"
                                                 : NULL;

    (void)arg;
    if (!dir)
        return;
    series(out, "nfsscope_bytes_total", pg, k);
    fprintf(out, ",direction=\"%s\"} %" PRIu64 "\n", dir, p->bytes);
}

static void
bytes(FILE *out, const struct stats *s)
{
    family(out, "nfsscope_bytes_total", "counter",
           "File data moved: READ replies' count (to_client), WRITE calls' count (to_server).");
    each_seen_proc(out, s, bytes_one, NULL);
}

static void
write_stable(FILE *out, const struct stats *s)
{
    size_t i;
    unsigned k;

    family(out, "nfsscope_write_stable_total", "counter",
           "WRITE calls by stable_how (RFC 1813 section 3.3.7).");
    for (i = 0; i < s->nprogs; i++) {
        const struct prog_stats *ps = &s->progs[i];
        uint64_t any = 0;

        for (k = 0; k < 3; k++)
            any += ps->write.stable[k];
        if (!any)
            continue;
        for (k = 0; k < 3; k++) {
            series(out, "nfsscope_write_stable_total", ps->pg, UINT32_MAX);
            fprintf(out, ",stable=\"%s\"} %" PRIu64 "\n", stable_names[k], ps->write.stable[k]);
        }
    }
}

/* ---- NFSv4: COMPOUNDs per minor version, kinds, operations ----
 * Labels from fixed tables only: minor ("0", "1", "2"; "other" for a
 * higher minor version, counted in the totals only), kind (the JSON
 * report's kind names, at most STATS_MAX_KINDS, the rest "other"), op (the
 * operation table's names, ILLEGAL "illegal") and status (nfsstat4 names,
 * "RPC_ERROR", "other"). Each family summed over its labels is the JSON
 * nfs4 object's total. */

static const char *
nfs4_op_label(const struct rpc_program *pg, uint32_t i)
{
    return nfs4_row_name(pg, i);
}

static void
minor_label(FILE *out, const char *name, int minor)
{
    if (minor < 0)
        fprintf(out, "%s{minor=\"other\"", name);
    else
        fprintf(out, "%s{minor=\"%d\"", name, minor);
}

/* COMPOUND calls or replies per minor version, the rest as "other". */
static void
nfs4_compound_counts(FILE *out, const struct prog_stats *ps, const char *name, enum pfield f)
{
    const struct rpc_program *pg = ps->pg;
    uint64_t sum = 0, all = pfield(&ps->procs[NFSPROC4_COMPOUND], f);
    uint32_t k;

    for (k = 0; k < pg->nminor; k++) {
        const struct proc_stats *c = &ps->minor[k].procs[NFSPROC4_COMPOUND];

        if (!seen(c))
            continue;
        minor_label(out, name, (int)k);
        fprintf(out, "} %" PRIu64 "\n", pfield(c, f));
        sum += pfield(c, f);
    }
    if (all > sum) {
        minor_label(out, name, -1);
        fprintf(out, "} %" PRIu64 "\n", all - sum);
    }
}

/* The error statuses of a row p (COMPOUND of one minor version, or an
 * operation), labelled key="value" and status; they add up to p->errors. */
static void
nfs4_status_series(FILE *out, const struct rpc_program *pg, const struct proc_stats *p,
                   const char *name, const char *key, const char *value)
{
    uint64_t named = 0;
    unsigned j;

    for (j = 0; j < p->nstatus; j++) {
        const char *sn = pg->status_name(p->status[j].status);

        if (!status_is_error(pg, p->status[j].status) || !sn || !p->status[j].count)
            continue;
        fprintf(out, "%s{%s=\"%s\",status=\"", name, key, value);
        report_prom_label(out, sn);
        fprintf(out, "\"} %" PRIu64 "\n", p->status[j].count);
        named += p->status[j].count;
    }
    if (p->rpc_errors) {
        fprintf(out, "%s{%s=\"%s\",status=\"RPC_ERROR\"} %" PRIu64 "\n", name, key, value,
                p->rpc_errors);
        named += p->rpc_errors;
    }
    if (p->errors > named)
        fprintf(out, "%s{%s=\"%s\",status=\"other\"} %" PRIu64 "\n", name, key, value,
                p->errors - named);
}

static void
nfs4_kind_latency(FILE *out, const char *kind, const struct proc_stats *p)
{
    uint64_t cum = 0;
    unsigned b;

    for (b = 0; b < STATS_LAT_BOUNDS; b++) {
        cum += p->lat_le[b];
        fputs("nfsscope_nfs4_kind_latency_seconds_bucket{kind=\"", out);
        report_prom_label(out, kind);
        fputs("\",le=\"", out);
        le_label(out, stats_lat_bound_ns(b));
        fprintf(out, "\"} %" PRIu64 "\n", cum);
    }
    fputs("nfsscope_nfs4_kind_latency_seconds_bucket{kind=\"", out);
    report_prom_label(out, kind);
    fprintf(out, "\",le=\"+Inf\"} %" PRIu64 "\n", p->latency.count);
    fputs("nfsscope_nfs4_kind_latency_seconds_sum{kind=\"", out);
    report_prom_label(out, kind);
    fputs("\"} ", out);
    seconds(out, p->latency.sum);
    fputs("\nnfsscope_nfs4_kind_latency_seconds_count{kind=\"", out);
    report_prom_label(out, kind);
    fprintf(out, "\"} %" PRIu64 "\n", p->latency.count);
}

enum kfield { KF_COMPOUNDS, KF_ERRORS, KF_LATENCY };

static void
nfs4_kinds(FILE *out, const struct prog_stats *ps, enum kfield f)
{
    const struct kind_table *t = &ps->kinds;
    unsigned i;

    for (i = 0; t->rows && i < t->n; i++) {
        const struct proc_stats *p = &t->rows[i].st;
        char kind[96];

        ps->pg->kind_name(t->rows[i].key, kind, sizeof kind);
        if (f == KF_LATENCY) {
            nfs4_kind_latency(out, kind, p);
            continue;
        }
        fprintf(out, "%s{kind=\"", f == KF_COMPOUNDS ? "nfsscope_nfs4_kind_compounds_total"
                                                      : "nfsscope_nfs4_kind_errors_total");
        report_prom_label(out, kind);
        fprintf(out, "\"} %" PRIu64 "\n", f == KF_COMPOUNDS ? p->replies : p->errors);
    }
    if (t->other && f == KF_COMPOUNDS)
        fprintf(out, "nfsscope_nfs4_kind_compounds_total{kind=\"other\"} %" PRIu64 "\n", t->other);
}

enum ofield { OF_COUNT, OF_RESULTS, OF_NOT_EVALUATED };

static void
nfs4_ops(FILE *out, const struct prog_stats *ps, const char *name, enum ofield f)
{
    const struct rpc_program *pg = ps->pg;
    uint32_t i;

    for (i = 0; i < pg->nops; i++) {
        const struct proc_stats *p = &ps->ops[i];
        const char *op = nfs4_op_label(pg, i);

        if (!op || (!p->calls && !p->replies && !p->not_evaluated))
            continue;
        fprintf(out, "%s{op=\"%s\"} %" PRIu64 "\n", name, op,
                f == OF_COUNT ? p->calls : f == OF_RESULTS ? p->replies : p->not_evaluated);
    }
}

static void
nfs4_metrics(FILE *out, const struct prog_stats *ps)
{
    const struct rpc_program *pg = ps->pg;
    uint64_t errs = 0;
    uint32_t k;

    family(out, "nfsscope_nfs4_compounds_total", "counter",
           "NFSv4 COMPOUND calls (first transmissions) per minor version.");
    nfs4_compound_counts(out, ps, "nfsscope_nfs4_compounds_total", PF_CALLS);
    family(out, "nfsscope_nfs4_compound_replies_total", "counter",
           "NFSv4 COMPOUND replies per minor version.");
    nfs4_compound_counts(out, ps, "nfsscope_nfs4_compound_replies_total", PF_REPLIES);
    family(out, "nfsscope_nfs4_compound_errors_total", "counter",
           "NFSv4 COMPOUNDs that failed, per minor version and status (that of the last "
           "result; RPC_ERROR: the RPC layer refused the call).");
    for (k = 0; k < pg->nminor; k++) {
        char mv[12];

        snprintf(mv, sizeof mv, "%" PRIu32, k);
        nfs4_status_series(out, pg, &ps->minor[k].procs[NFSPROC4_COMPOUND],
                           "nfsscope_nfs4_compound_errors_total", "minor", mv);
        errs += ps->minor[k].procs[NFSPROC4_COMPOUND].errors;
    }
    if (ps->procs[NFSPROC4_COMPOUND].errors > errs)
        fprintf(out, "nfsscope_nfs4_compound_errors_total{minor=\"other\",status=\"other\"} %" PRIu64
                     "\n", ps->procs[NFSPROC4_COMPOUND].errors - errs);
    family(out, "nfsscope_nfs4_kind_compounds_total", "counter",
           "NFSv4 COMPOUNDs answered with a body, by kind (main operations, as Wireshark's "
           "nfs.main_opcode).");
    nfs4_kinds(out, ps, KF_COMPOUNDS);
    family(out, "nfsscope_nfs4_kind_errors_total", "counter",
           "NFSv4 COMPOUNDs of each kind that failed.");
    nfs4_kinds(out, ps, KF_ERRORS);
    family(out, "nfsscope_nfs4_kind_latency_seconds", "histogram",
           "Call to reply time of the NFSv4 COMPOUNDs of each kind.");
    nfs4_kinds(out, ps, KF_LATENCY);
    family(out, "nfsscope_nfs4_ops_total", "counter",
           "NFSv4 operations in COMPOUND calls, by operation.");
    nfs4_ops(out, ps, "nfsscope_nfs4_ops_total", OF_COUNT);
    family(out, "nfsscope_nfs4_op_results_total", "counter",
           "NFSv4 operation results in COMPOUND replies, by operation.");
    nfs4_ops(out, ps, "nfsscope_nfs4_op_results_total", OF_RESULTS);
    family(out, "nfsscope_nfs4_op_not_evaluated_total", "counter",
           "NFSv4 operations of answered COMPOUNDs with no result (an earlier one failed).");
    nfs4_ops(out, ps, "nfsscope_nfs4_op_not_evaluated_total", OF_NOT_EVALUATED);
    family(out, "nfsscope_nfs4_op_errors_total", "counter",
           "NFSv4 operation results that failed, by operation and status.");
    for (k = 0; k < pg->nops; k++) {
        const char *op = nfs4_op_label(pg, k);

        if (op)
            nfs4_status_series(out, pg, &ps->ops[k], "nfsscope_nfs4_op_errors_total", "op", op);
    }
    family(out, "nfsscope_nfs4_op_bytes_total", "counter",
           "File data of the NFSv4 data operations: READ and READ_PLUS data returned, WRITE "
           "data sent, COPY bytes copied by the server.");
    for (k = 0; k < pg->nops; k++)
        if (nfs4_op_moves_data(k) && (ps->ops[k].calls || ps->ops[k].replies))
            fprintf(out, "nfsscope_nfs4_op_bytes_total{op=\"%s\"} %" PRIu64 "\n",
                    nfs4_op_label(pg, k), ps->ops[k].bytes);
}

/* The NFSv4 families, for the first program with minor versions. */
static void
nfs4(FILE *out, const struct stats *s)
{
    size_t i;

    for (i = 0; i < s->nprogs; i++)
        if (s->progs[i].pg->nminor && s->progs[i].minor && s->progs[i].ops &&
            s->progs[i].pg->status_name && s->progs[i].pg->kind_name) {
            nfs4_metrics(out, &s->progs[i]);
            return;
        }
}

static void
counter(FILE *out, const char *name, const char *help, uint64_t v)
{
    family(out, name, "counter", help);
    fprintf(out, "%s %" PRIu64 "\n", name, v);
}

/* The findings' counts as the report gives them: directory fan-out is the
 * per-entry calls after the listings of the directories reported. */
static void
findings(FILE *out, const struct findings *f)
{
    uint64_t n[FK__COUNT], cost[FK__COUNT];
    unsigned k;
    size_t i;

    for (k = 0; k < FK__COUNT; k++) {
        n[k] = f->n[k];
        cost[k] = f->cost_us[k];
    }
    n[FK_FANOUT] = cost[FK_FANOUT] = 0;
    for (i = 0; i < f->ndirs; i++)
        if (findings_dir_reported(&f->dirs[i])) {
            const struct fnd_dir *d = &f->dirs[i];
            n[FK_FANOUT] += d->lookup + d->getattr + d->access;
            cost[FK_FANOUT] += d->cost_us;
        }
    family(out, "nfsscope_findings_total", "counter",
           "Operations behind each finding (nfsscope(1): FINDINGS AND THE WHAT-IF MODEL).");
    for (k = 0; k < FK__COUNT; k++)
        fprintf(out, "nfsscope_findings_total{kind=\"%s\"} %" PRIu64 "\n", findings_kind_key(k),
                n[k]);
    family(out, "nfsscope_findings_seconds_total", "counter",
           "Time those operations took, summed.");
    for (k = 0; k < FK__COUNT; k++) {
        fprintf(out, "nfsscope_findings_seconds_total{kind=\"%s\"} ", findings_kind_key(k));
        seconds(out, cost[k]);
        fputc('\n', out);
    }
}

/* RPCSEC_GSS calls per program by service (RFC 2203 §5.3.2: privacy
 * bodies are encrypted, never decoded) and the context control messages;
 * RPC-over-TLS connections and their bytes (RFC 9289). Labels: the
 * program's key and fixed names only. */
static void
gss_tls(FILE *out, const struct stats *s)
{
    static const char *const svc[3] = { "none", "integrity", "privacy" };
    static const char *const ctl[GSS_CTL__COUNT] = { "init", "continue_init", "destroy" };
    size_t i;
    unsigned k;

    family(out, "nfsscope_rpcsec_gss_calls_total", "counter",
           "RPCSEC_GSS calls per program by service (privacy: encrypted, operations not seen).");
    for (i = 0; i < s->nprogs; i++) {
        const struct gss_counts *g = &s->progs[i].gss;

        if (!(g->data[0] | g->data[1] | g->data[2]))
            continue;
        for (k = 0; k < 3; k++) {
            series(out, "nfsscope_rpcsec_gss_calls_total", s->progs[i].pg, UINT32_MAX);
            fprintf(out, ",service=\"%s\"} %" PRIu64 "\n", svc[k], g->data[k]);
        }
    }
    family(out, "nfsscope_rpcsec_gss_control_total", "counter",
           "RPCSEC_GSS context control messages per program (not NULL calls).");
    for (i = 0; i < s->nprogs; i++) {
        const struct gss_counts *g = &s->progs[i].gss;

        if (!(g->ctl[0] | g->ctl[1] | g->ctl[2]))
            continue;
        for (k = 0; k < GSS_CTL__COUNT; k++) {
            series(out, "nfsscope_rpcsec_gss_control_total", s->progs[i].pg, UINT32_MAX);
            fprintf(out, ",message=\"%s\"} %" PRIu64 "\n", ctl[k], g->ctl[k]);
        }
    }
    counter(out, "nfsscope_tls_connections_total",
            "Connections that switched to TLS (RPC-over-TLS): their calls are not seen.",
            s->tls.connections);
    counter(out, "nfsscope_tls_bytes_total", "Encrypted bytes those connections carried.",
            s->tls.bytes);
}

static void
evictions(FILE *out, const struct stats *s, const struct findings *f)
{
    unsigned d;

    family(out, "nfsscope_evictions_total", "counter",
           "Entries pushed out of a full table (each table's limit is an option or default).");
    fprintf(out, "nfsscope_evictions_total{table=\"flows\"} %" PRIu64 "\n",
            s->anom.n[ANOM_FLOW_EVICTED]);
    fprintf(out, "nfsscope_evictions_total{table=\"pending_calls\"} %" PRIu64 "\n",
            s->anom.n[ANOM_XID_EVICTED]);
    fprintf(out, "nfsscope_evictions_total{table=\"ip_fragments\"} %" PRIu64 "\n",
            s->anom.n[ANOM_IPFRAG_EVICTED]);
    if (s->bd_on) {
        for (d = 0; d < BD__COUNT; d++)
            fprintf(out, "nfsscope_evictions_total{table=\"breakdown_%s\"} %" PRIu64 "\n",
                    bd_dim_name((enum bd_dim)d), s->bd[d].evicted);
        fprintf(out, "nfsscope_evictions_total{table=\"names\"} %" PRIu64 "\n",
                names_evicted(s->names));
    }
    if (f)
        fprintf(out, "nfsscope_evictions_total{table=\"findings\"} %" PRIu64 "\n", f->evicted);
}

int
report_prom(FILE *out, const struct stats *s, const struct findings *f, bool input_done)
{
    const struct capture_totals *c = &s->cap;
    const struct rpc_totals *r = &s->rpc;
    unsigned a;

    family(out, "nfsscope_build_info", "gauge", "The nfsscope version serving these metrics.");
    fprintf(out, "nfsscope_build_info{version=\"%s\"} 1\n", NFSSCOPE_VERSION);
    family(out, "nfsscope_input_done", "gauge",
           "1 once the input has ended (replayed files): the counters are final.");
    fprintf(out, "nfsscope_input_done %d\n", input_done ? 1 : 0);
    counter(out, "nfsscope_packets_total", "Packets captured.", c->packets);
    counter(out, "nfsscope_wire_bytes_total", "Bytes of those packets on the wire.", c->bytes);
    counter(out, "nfsscope_truncated_packets_total",
            "Packets cut by the snapshot length (captured length < wire length).",
            c->truncated_packets);
    if (c->kernel_drops >= 0) /* live only (pcap_stats) */
        counter(out, "nfsscope_kernel_drops_total",
                "Packets the kernel dropped before nfsscope could read them.",
                (uint64_t)c->kernel_drops);
    counter(out, "nfsscope_rpc_orphan_replies_total", "RPC replies matched to no call.",
            r->orphan_replies);
    per_proc(out, s, "nfsscope_calls_total",
             "RPC calls (first transmissions) per program and procedure.", PF_CALLS);
    per_proc(out, s, "nfsscope_replies_total", "RPC replies matched to a call.", PF_REPLIES);
    errors(out, s);
    per_proc(out, s, "nfsscope_retransmissions_total",
             "RPC calls sent again with the same XID before their reply.", PF_RETRANS);
    per_proc(out, s, "nfsscope_unanswered_calls_total",
             "RPC calls given up without a reply (timeout, eviction or end of input).",
             PF_UNANSWERED);
    latency(out, s);
    bytes(out, s);
    write_stable(out, s);
    nfs4(out, s);
    gss_tls(out, s);
    if (f)
        findings(out, f);
    family(out, "nfsscope_anomalies_total", "counter",
           "Problems in the input, by kind (nfsscope(1): ANOMALY COUNTERS).");
    for (a = 0; a < ANOM__COUNT; a++)
        fprintf(out, "nfsscope_anomalies_total{kind=\"%s\"} %" PRIu64 "\n",
                anomaly_key((enum anomaly)a), s->anom.n[a]);
    evictions(out, s, f);
    return ferror(out) ? -1 : 0;
}
