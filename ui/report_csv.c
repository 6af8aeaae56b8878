/* SPDX-License-Identifier: BSD-3-Clause */
/* report_csv.c: the CSV report (-o csv), RFC 4180.
 *
 * A header row, then one row per (program, procedure) for every registered
 * program, procedures in number order, zero rows included. Records end in
 * CRLF as RFC 4180 §2 says; fields are quoted by csv_field() (names from the
 * wire that would start a spreadsheet formula get a leading apostrophe).
 * Latency fields are empty when the procedure has no timed replies; the mean
 * has one decimal (written with integer arithmetic: locale-independent). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "csv_field.h"
#include "stats.h"
#include "term_escape.h"
#include "view.h"

/* A breakdown key after term_escape, cut to fit (as in the text report). */
#define KEY_ESC_MAX 2048

static const char csv_header[] = "program,procedure,calls,replies,errors,retransmissions,"
                                 "unanswered,bytes,lat_count,lat_min_us,lat_mean_us,lat_p50_us,"
                                 "lat_p90_us,lat_p99_us,lat_max_us";

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
                                "lat_p90_us,lat_p99_us,lat_max_us,lat_total_us";

/* A breakdown row: the key made terminal-safe (control bytes and invalid
 * UTF-8 as \xNN: the key may be a file name from the wire), then quoted. */
static void
bd_row(FILE *out, const char *dim, const char *key, const struct bd_row *r)
{
    const struct histo_small *h = &r->latency;
    char esc[KEY_ESC_MAX];

    term_escape(esc, sizeof esc, (const uint8_t *)key, strlen(key));
    field(out, dim, false);
    fputc(',', out);
    field(out, esc, true);
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
    fputs("\r\n", out);
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
        for (i = 0; i < n; i++)
            bd_row(out, dim, stats_row_label(s, (enum bd_dim)d, rows[i], label, sizeof label),
                   rows[i]);
        bd_row(out, dim, "(other)", &t->other);
    }
    free(rows);
    return 0;
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
            const struct proc_stats *p = &ps->procs[k];
            const struct histo *h = &p->latency;
            char nb[24];

            field(out, pg->name, false);
            fputc(',', out);
            if (rpc_proc_name(pg, k)) {
                field(out, rpc_proc_name(pg, k), false);
            } else {
                snprintf(nb, sizeof nb, "proc%" PRIu32, k);
                field(out, nb, false);
            }
            num(out, p->calls);
            num(out, p->replies);
            num(out, p->errors);
            num(out, p->retrans);
            num(out, p->unanswered);
            num(out, p->bytes);
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
            fputs("\r\n", out);
        }
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
