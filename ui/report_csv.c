/* SPDX-License-Identifier: BSD-3-Clause */
/* report_csv.c: the CSV report (-o csv), RFC 4180.
 *
 * A header row, then one row per (program, procedure) for every registered
 * program, procedures in number order, zero rows included (column `row`:
 * "procedure"); NFSv4's are followed by its COMPOUND rows per minor version,
 * its kind and operation rows in total and per minor version, the numbers
 * of the JSON report's nfs4 object (report_json.c). Records end in
 * CRLF as RFC 4180 §2 says; fields are quoted by csv_field() (names from the
 * wire that would start a spreadsheet formula get a leading apostrophe).
 * Latency fields are empty when the procedure has no timed replies; the mean
 * has one decimal (written with integer arithmetic: locale-independent).
 * With --by, the breakdown table instead; each file row is followed by its
 * NFSv4 operations (the JSON row's nfs4_ops). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "csv_field.h"
#include "nfs4.h"
#include "stats.h"
#include "term_escape.h"
#include "view.h"

/* A breakdown key after term_escape, cut to fit (as in the text report). */
#define KEY_ESC_MAX 2048

static const char csv_header[] = "program,procedure,calls,replies,errors,retransmissions,"
                                 "unanswered,bytes,lat_count,lat_min_us,lat_mean_us,lat_p50_us,"
                                 "lat_p90_us,lat_p99_us,lat_max_us,row,minor_version,"
                                 "not_evaluated";

/* A field; `wire`: it came from the network (see csv_field.h). */
static void
field(FILE *out, const char *s, bool wire)
{
    char buf[CSV_FIELD_MAX(KEY_ESC_MAX)];

    csv_field(buf, sizeof buf, s, wire);
    fputs(buf, out);
}

static void
num(FILE *out, uint64_t v)
{
    fprintf(out, ",%" PRIu64, v);
}

static const char bd_header[] = "dimension,key,calls,replies,errors,unanswered,read_bytes,"
                                "write_bytes,lat_count,lat_min_us,lat_mean_us,lat_p50_us,"
                                "lat_p90_us,lat_p99_us,lat_max_us,lat_total_us,operation";

/* A breakdown row's first two cells: the dimension, and the key made
 * terminal-safe (control bytes and invalid UTF-8 as \xNN: the key may be a
 * file name from the wire), then quoted. */
static void
key_cells(FILE *out, const char *dim, const char *key)
{
    char esc[KEY_ESC_MAX];

    term_escape(esc, sizeof esc, (const uint8_t *)key, strlen(key));
    field(out, dim, false);
    fputc(',', out);
    field(out, esc, true);
}

/* A breakdown row (its operation cell empty). */
static void
bd_row(FILE *out, const char *dim, const char *key, const struct bd_row *r)
{
    const struct histo_small *h = &r->latency;

    key_cells(out, dim, key);
    num(out, r->calls);
    num(out, r->replies);
    num(out, r->errors);
    num(out, r->unanswered);
    num(out, r->read_bytes);
    num(out, r->write_bytes);
    num(out, h->count);
    if (h->count) {
        uint64_t t = (h->sum * 10 + h->count / 2) / h->count; /* tenths, rounded */

        num(out, h->min);
        fprintf(out, ",%" PRIu64 ".%" PRIu64, t / 10, t % 10);
        num(out, histo_small_percentile(h, 50));
        num(out, histo_small_percentile(h, 90));
        num(out, histo_small_percentile(h, 99));
        num(out, h->max);
    } else {
        fputs(",,,,,,", out); /* min, mean, p50, p90, p99, max */
    }
    num(out, h->sum);
    fputs(",\r\n", out);
}

/* After a file row: a row per NFSv4 operation that ran with its handle as
 * current file handle (dimension file_nfs4_op, the file's key, replies =
 * the operation's results, the other counts empty), most first, "other"
 * last: the JSON row's nfs4_ops. */
static void
file_op_rows(FILE *out, const struct stats *s, const char *key, const struct bd_row *r)
{
    struct file_op ops[BD_PROCS_PER_ROW];
    size_t n = stats_file_ops(s, r, ops), i;

    for (i = 0; i < n; i++) {
        key_cells(out, "file_nfs4_op", key);
        fputc(',', out); /* calls */
        num(out, ops[i].results);
        fputs(",,,,,,,,,,,,", out); /* errors .. lat_total_us */
        fprintf(out, ",%s\r\n", ops[i].name ? ops[i].name : "other");
    }
}

/* With --by: the top-N rows of each breakdown asked for, then its "other"
 * row, instead of the per-procedure table. */
static int
csv_breakdowns(FILE *out, const struct stats *s, const struct view_info *vi)
{
    unsigned top = vi->top_n ? vi->top_n : 10, d;
    const struct bd_row **rows = calloc(top, sizeof *rows);

    if (!rows)
        return -1;
    fputs(bd_header, out);
    fputs("\r\n", out);
    for (d = 0; d < BD__COUNT; d++) {
        const struct bd_table *t = &s->bd[d];
        const char *dim = bd_dim_name((enum bd_dim)d);
        size_t n, i;
        char label[1024];

        if (!(vi->by_mask & (1u << d)))
            continue;
        n = bd_table_top(t, (enum bd_order)vi->order, rows, top);
        for (i = 0; i < n; i++) {
            stats_row_label(s, (enum bd_dim)d, rows[i], label, sizeof label);
            bd_row(out, dim, label, rows[i]);
            if (d == BD_FILE)
                file_op_rows(out, s, label, rows[i]);
        }
        bd_row(out, dim, "(other)", &t->other);
        if (d == BD_FILE)
            file_op_rows(out, s, "(other)", &t->other);
    }
    free(rows);
    return 0;
}

/* The latency cells of h (empty when it has no replies). */
static void
lat_cells(FILE *out, const struct histo *h)
{
    num(out, h->count);
    if (h->count) {
        /* mean in tenths, rounded half up */
        uint64_t t = (uint64_t)(histo_mean(h) * 10.0 + 0.5);

        num(out, h->min);
        fprintf(out, ",%" PRIu64 ".%" PRIu64, t / 10, t % 10);
        num(out, histo_percentile(h, 50));
        num(out, histo_percentile(h, 90));
        num(out, histo_percentile(h, 99));
        num(out, h->max);
    } else {
        fputs(",,,,,,", out);
    }
}

/* The program and name cells of a row. */
static void
name_cells(FILE *out, const struct rpc_program *pg, const char *name)
{
    field(out, pg->name, false);
    fputc(',', out);
    field(out, name, false);
}

/* The last three cells: the row's type, its NFSv4 minor version (empty:
 * all), its operations not evaluated (empty: not an operation row). */
static void
tail_cells(FILE *out, const char *row, int minor, const uint64_t *not_evaluated)
{
    fprintf(out, ",%s,", row);
    if (minor >= 0)
        fprintf(out, "%d", minor);
    fputc(',', out);
    if (not_evaluated)
        fprintf(out, "%" PRIu64, *not_evaluated);
    fputs("\r\n", out);
}

/* NFSv4 COMPOUNDs of one minor version: as a procedure row. */
static void
nfs4_compound_row(FILE *out, const struct rpc_program *pg, const struct proc_stats *p,
                  unsigned minor)
{
    name_cells(out, pg, "compound");
    num(out, p->calls);
    num(out, p->replies);
    num(out, p->errors);
    num(out, p->retrans);
    num(out, p->unanswered);
    num(out, p->bytes);
    lat_cells(out, &p->latency);
    tail_cells(out, "compound", (int)minor, NULL);
}

/* COMPOUNDs by kind (calls and replies: the COMPOUNDs answered with a
 * body; no retransmissions, unanswered or bytes are kept per kind). */
static void
nfs4_kind_rows(FILE *out, const struct rpc_program *pg, const struct kind_table *t, int minor)
{
    unsigned i;

    for (i = 0; t->rows && i < t->n; i++) {
        const struct proc_stats *p = &t->rows[i].st;
        char name[96];

        name_cells(out, pg, pg->kind_name(t->rows[i].key, name, sizeof name));
        num(out, p->replies);
        num(out, p->replies);
        num(out, p->errors);
        fputs(",,,", out);
        lat_cells(out, &p->latency);
        tail_cells(out, "kind", minor, NULL);
    }
}

/* Operations seen: calls are occurrences in calls, replies results, the
 * latency that of the COMPOUNDs containing the operation. */
static void
nfs4_op_rows(FILE *out, const struct stats *s, const struct rpc_program *pg,
             const struct proc_stats *ops, int minor)
{
    uint32_t i;

    for (i = 0; i < pg->nops; i++) {
        const struct proc_stats *p = stats_row(s, &ops[i]); /* never written: not read */
        const char *name = nfs4_row_name(pg, i);

        if (!name || (!p->calls && !p->replies && !p->not_evaluated))
            continue;
        name_cells(out, pg, name);
        num(out, p->calls);
        num(out, p->replies);
        num(out, p->errors);
        fputs(",,", out);
        if (minor < 0 && nfs4_op_moves_data(i)) /* as the JSON "ops" row's bytes */
            num(out, p->bytes);
        else
            fputc(',', out);
        lat_cells(out, &p->latency);
        tail_cells(out, "operation", minor, &p->not_evaluated);
    }
}

/* After NFSv4's NULL and COMPOUND rows: COMPOUNDs per minor version seen,
 * then kinds and operations in total and per minor version, in the JSON
 * report's order. */
static void
nfs4_rows(FILE *out, const struct stats *s, const struct prog_stats *ps)
{
    const struct rpc_program *pg = ps->pg;
    unsigned k;

    for (k = 0; k < pg->nminor; k++) {
        const struct proc_stats *c = stats_row(s, &ps->minor[k].procs[NFSPROC4_COMPOUND]);

        if (c->calls || c->replies || c->unanswered)
            nfs4_compound_row(out, pg, c, k);
    }
    nfs4_kind_rows(out, pg, &ps->kinds, -1);
    nfs4_op_rows(out, s, pg, ps->ops, -1);
    for (k = 0; k < pg->nminor; k++) {
        const struct minor_stats *m = &ps->minor[k];
        const struct proc_stats *c = stats_row(s, &m->procs[NFSPROC4_COMPOUND]);

        if (!c->calls && !c->replies && !c->unanswered)
            continue;
        nfs4_kind_rows(out, pg, &m->kinds, (int)k);
        nfs4_op_rows(out, s, pg, m->ops, (int)k);
    }
}

static int
csv_report(FILE *out, const struct stats *s, const struct view_info *vi)
{
    size_t i;

    if (vi && vi->by_mask && s->bd_on) {
        if (csv_breakdowns(out, s, vi) != 0)
            return -1;
        if (fflush(out) != 0 || ferror(out))
            return -1;
        return 0;
    }
    fputs(csv_header, out);
    fputs("\r\n", out);
    for (i = 0; i < s->nprogs; i++) {
        const struct prog_stats *ps = &s->progs[i];
        const struct rpc_program *pg = ps->pg;
        uint32_t k;

        for (k = 0; k < pg->nprocs; k++) {
            const struct proc_stats *p = stats_row(s, &ps->procs[k]);
            char nb[24];
            const char *name = rpc_proc_name(pg, k);

            if (!name) {
                snprintf(nb, sizeof nb, "proc%" PRIu32, k);
                name = nb;
            }
            name_cells(out, pg, name);
            num(out, p->calls);
            num(out, p->replies);
            num(out, p->errors);
            num(out, p->retrans);
            num(out, p->unanswered);
            num(out, p->bytes);
            lat_cells(out, &p->latency);
            tail_cells(out, "procedure", -1, NULL);
        }
        if (pg->nminor && ps->minor)
            nfs4_rows(out, s, ps);
    }
    if (fflush(out) != 0 || ferror(out))
        return -1;
    return 0;
}

const struct view_ops report_csv_view = {
    .name = "csv",
    .tick = NULL, /* one table per run: periodic CSV would repeat the header */
    .report = csv_report,
};
