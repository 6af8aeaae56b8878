/* SPDX-License-Identifier: BSD-3-Clause */
/* tui_panels.c: the panels of the view, one descriptor each (struct
 * tui_panel) in tui_panels[], in tab order: the nfsstat-style procedure
 * table (whole, or for one client, server or file), the client, server and
 * file breakdowns, the findings, and NFSv4's COMPOUNDs by kind and
 * operations. Each reads `const struct stats *` and
 * the view's own baselines (tui_state.c) and draws with tui_draw.c's clipped,
 * escaped output: every label from the wire (addresses, paths, export names)
 * goes through term_escape() before the screen. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "anomaly.h"
#include "nfs4.h"
#include "report_findings.h"
#include "term_escape.h"
#include "tui_int.h"

/* ---------------------------------------------------------------- procedures */

/* The columns the procedure table sorts by (procedures_cols[]). */
enum ops_col { OC_NAME, OC_CALLS, OC_RATE, OC_ERRORS, OC_P50, OC_P90, OC_P99, OC_MAX, OC_BYTES };

struct oprow {
    const struct prog_stats *ps;
    uint32_t proc;
    char name[48];
    uint64_t calls, rate, errors, bytes, p50, p90, p99, max;
    bool have_lat, have_max;
    bool op; /* an NFSv4 operation of the file shown (results only) */
};

/* ------------------------------------------- the table for one client/server/file */

/* Does row r of bt (other: the table's "other" row) belong to the scope? */
static bool
scope_has(struct tui_state *t, const struct bd_table *bt, const struct bd_row *r, bool other)
{
    char label[1024];

    if (t->scope_exact)
        return other ? t->scope_other
                     : !t->scope_other && r->key_len == t->scope_key_len &&
                           memcmp(r->key, t->scope_key, r->key_len) == 0;
    if (other)
        snprintf(label, sizeof label, "(other)");
    else
        stats_row_label(t->s, bt->dim, r, label, sizeof label);
    return tui_contains(label, t->scope_filter);
}

/* The entry of `key` in a baseline row, or NULL. */
static const struct bd_proc *
base_entry(const struct bd_procs_row *b, uint32_t key)
{
    uint32_t i;

    for (i = 0; b && i < b->n && i < BD_PROCS_PER_ROW; i++)
        if (b->e[i].key == key)
            return &b->e[i];
    return NULL;
}

/* Where an entry of a row's per-procedure counts goes in acc[]: its flat
 * (program, procedure) index, [nflat] for what the row counted beyond its
 * room; SIZE_MAX: nowhere. */
static size_t
proc_slot(const struct tui_state *t, uint32_t key)
{
    uint32_t pi = key >> 16, pr = key & 0xffffu;

    if (key == BD_PROCS_OTHER)
        return t->nflat;
    if (pi < t->s->nprogs && pr < t->s->progs[pi].pg->nprocs)
        return t->proc_off[pi] + pr;
    return SIZE_MAX;
}

static const struct prog_stats *nfs4_stats(const struct tui_state *t);

/* Where an entry of a file row's NFSv4 operations goes: its operation
 * number, [nops] for the rest (beyond the row's room, unnamed), as the
 * reports' "other". */
static size_t
op_slot(const struct tui_state *t, uint32_t key)
{
    const struct prog_stats *ps = nfs4_stats(t);
    uint32_t pi = key >> 16, op = key & 0xffffu;

    if (!ps)
        return SIZE_MAX;
    if (key != BD_PROCS_OTHER && &t->s->progs[pi] == ps && op < ps->pg->nops &&
        ps->pg->ops[op].name)
        return op;
    return ps->pg->nops;
}

/* Sum the scope's rows' entries of bp (per-procedure counts, or a file's
 * NFSv4 operations) into acc[] (nacc entries, placed by slot()), baselines
 * (bases, cap + 1 rows, or NULL) taken off. lat_max is 0 where not known
 * since the reset (a maximum cannot be subtracted): max_known[k] says so.
 * Returns the rows that matched. */
static size_t
scope_sum(struct tui_state *t, const struct bd_procs *bp, const struct bd_procs_row *bases,
          size_t (*slot_of)(const struct tui_state *, uint32_t), size_t nacc,
          struct bd_proc *acc, bool *max_known)
{
    const struct bd_table *bt = &t->s->bd[t->scope_dim];
    size_t k, f, matched = 0;

    memset(acc, 0, nacc * sizeof *acc);
    for (f = 0; f < nacc; f++)
        max_known[f] = true;
    if (!bp)
        return 0;
    for (k = 0; k <= bt->count; k++) {
        bool other = k == bt->count;
        const struct bd_row *r = other ? &bt->other : &bt->rows[k];
        size_t slot = other ? bt->cap : k;
        uint32_t gen = other ? 0 : r->gen, n, i;
        const struct bd_proc *e;
        const struct bd_procs_row *base = NULL;

        if (!other && !r->used)
            continue;
        if (!scope_has(t, bt, r, other))
            continue;
        matched++;
        e = bd_procs_row(bp, slot, gen, &n);
        if (t->have_base && bases && bases[slot].gen == gen)
            base = &bases[slot];
        for (i = 0; e && i < n; i++) {
            const struct bd_proc *be = base_entry(base, e[i].key);
            struct bd_proc *a;

            f = slot_of(t, e[i].key);
            if (f >= nacc)
                continue;
            a = &acc[f];
            a->calls += e[i].calls - (be ? be->calls : 0);
            a->errors += e[i].errors - (be ? be->errors : 0);
            a->bytes += e[i].bytes - (be ? be->bytes : 0);
            a->lat_count += e[i].lat_count - (be ? be->lat_count : 0);
            a->lat_sum += e[i].lat_sum - (be ? be->lat_sum : 0);
            if (be && be->lat_count && e[i].lat_max <= be->lat_max) {
                if (e[i].lat_count > be->lat_count)
                    max_known[f] = false; /* timed since, but below the old maximum */
            } else if (e[i].lat_max > a->lat_max) {
                a->lat_max = e[i].lat_max;
            }
        }
    }
    return matched;
}

static void
oprow_scoped(struct tui_state *t, struct oprow *o, size_t pi, uint32_t p, const struct bd_proc *a,
             bool max_known)
{
    const struct prog_stats *ps = pi < t->s->nprogs ? &t->s->progs[pi] : NULL;

    memset(o, 0, sizeof *o);
    o->ps = ps;
    o->proc = p;
    if (!ps)
        snprintf(o->name, sizeof o->name, "(other procedures)");
    else if (rpc_proc_name(ps->pg, p))
        snprintf(o->name, sizeof o->name, "%s %s", ps->pg->name, rpc_proc_name(ps->pg, p));
    else
        snprintf(o->name, sizeof o->name, "%s proc%" PRIu32, ps->pg->name, p);
    o->calls = a->calls;
    o->errors = a->errors;
    o->bytes = a->bytes;
    o->have_lat = a->lat_count > 0;
    o->p50 = a->lat_count ? (a->lat_sum + a->lat_count / 2) / a->lat_count : 0; /* the mean */
    o->max = a->lat_max;
    o->have_max = o->have_lat && max_known;
}

/* A procedure's latency histogram since the reset: the bucket-wise
 * difference from the baseline, built in tmp, or the whole one. */
static const struct histo *
proc_histo(const struct tui_state *t, size_t pi, uint32_t p, struct histo *tmp)
{
    const struct histo *h = &t->s->progs[pi].procs[p].latency;
    const struct proc_stats *base = t->have_base ? &t->base_procs[t->proc_off[pi] + p] : NULL;
    unsigned i, lo = HISTO_BUCKETS, hi = 0;

    if (!base || !base->latency.count)
        return h;
    memset(tmp, 0, sizeof *tmp);
    for (i = 0; i < HISTO_BUCKETS; i++) {
        tmp->bucket[i] = h->bucket[i] - base->latency.bucket[i];
        tmp->count += tmp->bucket[i];
        if (tmp->bucket[i]) {
            if (lo == HISTO_BUCKETS)
                lo = i;
            hi = i;
        }
    }
    if (tmp->count) {
        tmp->min = histo_bucket_lo(lo) > h->min ? histo_bucket_lo(lo) : h->min;
        tmp->max = histo_bucket_hi(hi) < h->max ? histo_bucket_hi(hi) : h->max;
    }
    return tmp;
}

static void
oprow_fill(struct tui_state *t, struct oprow *o, size_t pi, uint32_t p, struct histo *tmp)
{
    const struct prog_stats *ps = &t->s->progs[pi];
    const struct proc_stats *cur = &ps->procs[p];
    const struct proc_stats *base = t->have_base ? &t->base_procs[t->proc_off[pi] + p] : NULL;
    const struct histo *h = proc_histo(t, pi, p, tmp);

    o->ps = ps;
    o->proc = p;
    if (rpc_proc_name(ps->pg, p))
        snprintf(o->name, sizeof o->name, "%s %s", ps->pg->name, rpc_proc_name(ps->pg, p));
    else
        snprintf(o->name, sizeof o->name, "%s proc%" PRIu32, ps->pg->name, p);
    o->calls = cur->calls - (base ? base->calls : 0);
    o->errors = cur->errors - (base ? base->errors : 0);
    o->bytes = cur->bytes - (base ? base->bytes : 0);
    o->rate = t->rate[t->proc_off[pi] + p];
    o->have_lat = o->have_max = h->count > 0;
    o->p50 = histo_percentile(h, 50);
    o->p90 = histo_percentile(h, 90);
    o->p99 = histo_percentile(h, 99);
    o->max = h->count ? h->max : 0;
}

static int ops_sort_col;
static bool ops_sort_asc;

static int
oprow_cmp(const void *va, const void *vb)
{
    const struct oprow *a = va, *b = vb;
    uint64_t x = 0, y = 0;
    int c;

    switch (ops_sort_col) {
    case OC_NAME:
        c = strcmp(a->name, b->name);
        return ops_sort_asc ? c : -c;
    case OC_CALLS: x = a->calls; y = b->calls; break;
    case OC_RATE: x = a->rate; y = b->rate; break;
    case OC_ERRORS: x = a->errors; y = b->errors; break;
    case OC_P50: x = a->p50; y = b->p50; break;
    case OC_P90: x = a->p90; y = b->p90; break;
    case OC_P99: x = a->p99; y = b->p99; break;
    case OC_MAX: x = a->max; y = b->max; break;
    default: x = a->bytes; y = b->bytes; break;
    }
    if (x != y)
        return (x < y) == ops_sort_asc ? -1 : 1;
    return strcmp(a->name, b->name); /* ties: stable, by name */
}

/* The table's width: every column from OPS_WIDE columns on; below, calls/s
 * and bytes give way so that the latencies (p50, p90, p99, max) stay. */
#define OPS_WIDE 105

/* What a sort column is called now, or NULL when it is not shown: for one
 * client, server or file the p50 column holds the mean and there is no
 * calls/s, p90 or p99; a narrow screen has no calls/s or bytes. */
static const char *
procedures_sort_name(const struct tui_state *t, int col)
{
    static const char *const names[] = { "name", "calls", "calls/s", "errors", "p50",
                                         "p90",  "p99",   "max",     "bytes" };

    if (col < 0 || col > OC_BYTES)
        return NULL;
    if (t->scope_on && (col == OC_RATE || col == OC_P90 || col == OC_P99))
        return NULL;
    if (COLS < OPS_WIDE && (col == OC_RATE || col == OC_BYTES))
        return NULL;
    if (t->scope_on && col == OC_P50)
        return "mean";
    return names[col];
}

/* The column the table sorts by: the one chosen, or calls while that one
 * is not shown. */
static int
ops_sort_shown(const struct tui_state *t, int col)
{
    return procedures_sort_name(t, col) ? col : OC_CALLS;
}

/* The NFSv4 operation rows a file's table may have: one per operation and
 * one for the rest; 0 unless the table is for files and they are kept. */
static size_t
scope_op_rows(const struct tui_state *t)
{
    const struct prog_stats *ps = nfs4_stats(t);

    if (!t->scope_on || t->scope_dim != BD_FILE || !t->s->bd[BD_FILE].ops || !ps)
        return 0;
    return ps->pg->nops + 1;
}

/* For a file: after its procedures, a row per NFSv4 operation that ran with
 * its handle as the current file handle (results only: no errors or
 * latency are kept per file and operation), as the reports' nfs4_ops. */
static size_t
scope_op_fill(struct tui_state *t, struct oprow *rows, size_t cap)
{
    const struct prog_stats *ps = nfs4_stats(t);
    size_t nacc = scope_op_rows(t), n = 0, k;
    struct bd_proc *acc = nacc ? malloc(nacc * sizeof *acc) : NULL;
    bool *max_known = nacc ? malloc(nacc * sizeof *max_known) : NULL;

    if (acc && max_known) {
        scope_sum(t, t->s->bd[BD_FILE].ops, t->bdbase[BD_FILE].ops, op_slot, nacc, acc,
                  max_known);
        for (k = 0; k < nacc && n < cap; k++) {
            struct oprow *o = &rows[n];

            if (!acc[k].calls)
                continue;
            memset(o, 0, sizeof *o);
            o->op = true;
            snprintf(o->name, sizeof o->name, "op %s",
                     k + 1 < nacc ? ps->pg->ops[k].name : "(other)");
            o->calls = acc[k].calls;
            if (!tui_contains(o->name, t->filter[t->panel]))
                continue;
            n++;
        }
    }
    free(acc);
    free(max_known);
    return n;
}

/* The rows shown: every NFS v3 procedure (nfsstat shows zeros too) and the
 * procedures of other programs that had calls; for a file its NFSv4
 * operations after them; then the filter. */
static size_t
ops_rows(struct tui_state *t, struct oprow *rows, size_t cap, uint64_t *total)
{
    const struct stats *s = t->s;
    struct histo *tmp = malloc(sizeof *tmp);
    struct bd_proc *acc = NULL;
    bool *max_known = NULL;
    size_t i, n = 0, nops;
    uint32_t p;

    *total = 0;
    if (t->scope_on) {
        acc = malloc((t->nflat + 1) * sizeof *acc);
        max_known = malloc((t->nflat + 1) * sizeof *max_known);
    }
    if (!tmp || (t->scope_on && (!acc || !max_known))) {
        free(tmp);
        free(acc);
        free(max_known);
        return 0;
    }
    if (t->scope_on)
        scope_sum(t, s->bd[t->scope_dim].procs, t->bdbase[t->scope_dim].procs, proc_slot,
                  t->nflat + 1, acc, max_known);
    for (i = 0; i <= s->nprogs; i++) {
        const struct prog_stats *ps = i < s->nprogs ? &s->progs[i] : NULL;
        bool main_prog = ps && (ps->pg->flags & PGF_PRIMARY);
        uint32_t np = ps ? ps->pg->nprocs : 1;

        if (!ps && !t->scope_on)
            break; /* the "(other procedures)" row is the scoped table's */
        for (p = 0; p < np && n < cap; p++) {
            struct oprow *o = &rows[n];
            size_t f = ps ? t->proc_off[i] + p : t->nflat;

            if (t->scope_on) {
                if (!main_prog && acc[f].calls == 0 && acc[f].lat_count == 0)
                    continue;
                oprow_scoped(t, o, i, p, &acc[f], max_known[f]);
            } else {
                if (!main_prog && ps->procs[p].calls == 0 && ps->procs[p].replies == 0)
                    continue;
                oprow_fill(t, o, i, p, tmp);
            }
            *total += o->calls;
            if (t->hide_zero && o->calls == 0)
                continue;
            if (!tui_contains(o->name, t->filter[t->panel]))
                continue;
            n++;
        }
    }
    free(tmp);
    free(acc);
    free(max_known);
    nops = scope_op_fill(t, rows + n, cap - n);
    ops_sort_col = ops_sort_shown(t, t->sort_col[t->panel]);
    ops_sort_asc = t->sort_asc[t->panel];
    qsort(rows, n, sizeof *rows, oprow_cmp); /* procedures, then operations */
    qsort(rows + n, nops, sizeof *rows, oprow_cmp);
    return n + nops;
}

/* The top row's latency histogram (H): the buckets grouped by powers of 4
 * microseconds, from the first group with replies to the last, each with
 * its count and a bar. Takes the last lines of the panel; returns how many. */
static int
draw_histo(struct tui_state *t, const struct oprow *o, int y0, int height)
{
    struct histo *tmp;
    const struct histo *h;
    uint64_t g[20] = { 0 }, most = 0;
    char line[160], lo[16], hi[16], bars[3 * 256 + 4];
    unsigned i, first = 20, last = 0, k;
    int y = y0, lines;

    if (!o || t->scope_on || !o->ps) {
        tui_put_clip(y0, 0, t->scope_on ? "latency histogram: none for one client, server or"
                                          " file (mean and max only)"
                                        : "latency histogram: no row",
                     COLS);
        return 1;
    }
    tmp = malloc(sizeof *tmp);
    if (!tmp)
        return 0;
    h = proc_histo(t, (size_t)(o->ps - t->s->progs), o->proc, tmp);
    for (i = 0; i < HISTO_BUCKETS; i++) {
        uint64_t b = histo_bucket_lo(i);
        unsigned bits = 0;

        while (b >> bits)
            bits++;
        k = (bits + 1) / 2; /* [4^(k-1), 4^k) us; 0: 0 us */
        if (k > 19)
            k = 19;
        g[k] += h->bucket[i];
    }
    for (k = 0; k < 20; k++)
        if (g[k]) {
            if (first == 20)
                first = k;
            last = k;
            if (g[k] > most)
                most = g[k];
        }
    attron(A_REVERSE | tui_color(TC_HEAD));
    mvhline(y, 0, ' ', COLS);
    snprintf(line, sizeof line, "latency of %s (top row): %" PRIu64 " replies", o->name,
             h->count);
    tui_put_clip(y++, 0, line, COLS);
    attroff(A_REVERSE | tui_color(TC_HEAD));
    if (first == 20) {
        tui_put_clip(y++, 0, " (no replies)", COLS);
        free(tmp);
        return y - y0;
    }
    lines = height - 1;
    if ((int)(last - first + 1) > lines) /* too many groups: the slowest stay */
        first = last + 1 - (unsigned)lines;
    for (k = first; k <= last && y < y0 + height; k++) {
        int bar, j, w = COLS - 30;
        size_t bl;

        tui_fmt_lat(lo, sizeof lo, k ? (uint64_t)1 << (2 * (k - 1)) : 0, true);
        if (k == 19)
            snprintf(hi, sizeof hi, "...");
        else
            tui_fmt_lat(hi, sizeof hi, (uint64_t)1 << (2 * k), true);
        snprintf(line, sizeof line, " %7s - %-7s %10" PRIu64 " ", lo, hi, g[k]);
        tui_put_clip(y, 0, line, COLS);
        bar = w > 0 && most ? (int)((uint64_t)w * g[k] / most) : 0;
        if (g[k] && bar == 0 && w > 0)
            bar = 1;
        for (j = 0, bl = 0; j < bar && bl + 4 < sizeof bars; j++) {
            const char *c = t->utf8 ? "\u2588" : "#";

            memcpy(bars + bl, c, strlen(c));
            bl += strlen(c);
        }
        bars[bl] = '\0';
        attron(tui_color(TC_GRAPH));
        tui_put_clip(y, (int)strlen(line), bars, COLS - (int)strlen(line));
        attroff(tui_color(TC_GRAPH));
        y++;
    }
    free(tmp);
    return y - y0;
}

static int
draw_ops(struct tui_state *t, int y0, int height, bool draw)
{
    struct oprow *rows;
    uint64_t total;
    size_t n, i, cap = t->nflat + 1 + scope_op_rows(t);
    char line[256], l50[16], l90[16], l99[16], lmax[16], by[16], rate[24];
    bool wide = COLS >= OPS_WIDE;
    int y;

    rows = calloc(cap, sizeof *rows);
    if (!rows)
        return 0;
    n = ops_rows(t, rows, cap, &total);
    if (!draw) {
        free(rows);
        return (int)n;
    }
    if (t->scroll[t->panel] > (int)n - 1)
        t->scroll[t->panel] = n ? (int)n - 1 : 0;
    if (t->histo && height > 4) { /* the histogram below the table, at most half of it */
        int want = height / 2 < 12 ? height / 2 : 12;

        draw_histo(t, n ? &rows[t->scroll[t->panel]] : NULL, y0 + height - want, want);
        height -= want;
    }
    /* For one client, server or file: no histogram per row and procedure
     * (bd_procs.h), so the mean stands in the p50 column and p90/p99 are
     * blank; no calls/s. */
    if (wide)
        snprintf(line, sizeof line, "%-22s %10s %6s %8s %8s %8s %8s %8s %8s %9s", "procedure",
                 "calls", "share", "calls/s", "errors", t->scope_on ? "mean" : "p50",
                 t->scope_on ? "" : "p90", t->scope_on ? "" : "p99", "max", "bytes");
    else
        snprintf(line, sizeof line, "%-18s %8s %6s %6s %8s %8s %8s %8s", "procedure", "calls",
                 "share", "errors", t->scope_on ? "mean" : "p50", t->scope_on ? "" : "p90",
                 t->scope_on ? "" : "p99", "max");
    attron(A_REVERSE | tui_color(TC_HEAD));
    mvhline(y0, 0, ' ', COLS);
    tui_put_clip(y0, 0, line, COLS);
    attroff(A_REVERSE | tui_color(TC_HEAD));
    for (i = (size_t)t->scroll[t->panel], y = y0 + 1; i < n && y < y0 + height; i++, y++) {
        const struct oprow *o = &rows[i];
        char share[16], err[24];

        /* an operation's results are no calls: no share, no errors kept */
        if (o->op)
            snprintf(share, sizeof share, "-");
        else
            snprintf(share, sizeof share, "%.1f%%",
                     total ? 100.0 * (double)o->calls / (double)total : 0.0);
        if (o->op)
            snprintf(err, sizeof err, "-");
        else
            snprintf(err, sizeof err, "%" PRIu64, o->errors);

        tui_fmt_lat(l50, sizeof l50, o->p50, o->have_lat);
        tui_fmt_lat(l90, sizeof l90, o->p90, o->have_lat);
        tui_fmt_lat(l99, sizeof l99, o->p99, o->have_lat);
        tui_fmt_lat(lmax, sizeof lmax, o->max, o->have_max);
        if (t->scope_on)
            l90[0] = l99[0] = '\0';
        if (o->bytes)
            tui_fmt_bytes(by, sizeof by, o->bytes);
        else
            snprintf(by, sizeof by, "-");
        if (t->scope_on)
            snprintf(rate, sizeof rate, "-");
        else
            snprintf(rate, sizeof rate, "%" PRIu64, o->rate);
        if (wide)
            snprintf(line, sizeof line,
                     "%-22s %10" PRIu64 " %6s %8s %8s %8s %8s %8s %8s %9s", o->name, o->calls,
                     share, rate, err, l50, l90, l99, lmax, by);
        else
            snprintf(line, sizeof line, "%-18.18s %8" PRIu64 " %6s %6s %8s %8s %8s %8s",
                     o->name, o->calls, share, err, l50, l90, l99, lmax);
        if (o->errors)
            attron(A_BOLD | tui_color(TC_ERROR));
        tui_put_clip(y, 0, line, COLS);
        attroff(A_BOLD | tui_color(TC_ERROR));
    }
    free(rows);
    return (int)n;
}

/* ---------------------------------------------------------------- breakdowns */

/* The columns a breakdown table sorts by (breakdown_cols[]). */
enum bd_col { BC_CALLS, BC_ERRORS, BC_P50, BC_P99, BC_LAT, BC_BYTES, BC_NAME };

static int bd_sort_col;
static bool bd_sort_asc;

static int
bdrow_cmp(const void *va, const void *vb)
{
    const struct tui_bdrow *a = va, *b = vb;
    uint64_t x, y;
    size_t n;
    int c;

    switch (bd_sort_col) {
    case BC_ERRORS: x = a->errors; y = b->errors; break;
    case BC_P50: x = a->p50; y = b->p50; break;
    case BC_P99: x = a->p99; y = b->p99; break;
    case BC_LAT: x = a->lat_sum; y = b->lat_sum; break;
    case BC_BYTES: x = a->bytes; y = b->bytes; break;
    case BC_NAME: x = y = 0; break;
    default: x = a->calls; y = b->calls; break;
    }
    if (x != y)
        return (x < y) == bd_sort_asc ? -1 : 1;
    n = a->r->key_len < b->r->key_len ? a->r->key_len : b->r->key_len;
    c = memcmp(a->r->key, b->r->key, n);
    if (!c)
        c = (int)a->r->key_len - (int)b->r->key_len;
    return bd_sort_col == BC_NAME && !bd_sort_asc ? -c : c;
}

/* A row's latency histogram since the reset: the bucket-wise difference
 * (min and max are not known since then: 0 and the whole maximum). */
static const struct histo_small *
small_since(struct histo_small *tmp, const struct histo_small *cur, const struct histo_small *base)
{
    unsigned i;

    if (!base || base->count == 0)
        return cur;
    memset(tmp, 0, sizeof *tmp);
    for (i = 0; i < HISTO_SMALL_BUCKETS; i++) {
        tmp->bucket[i] = cur->bucket[i] >= base->bucket[i] ? cur->bucket[i] - base->bucket[i] : 0;
        tmp->count += tmp->bucket[i];
    }
    tmp->sum = cur->sum - base->sum;
    tmp->max = tmp->count ? cur->max : 0;
    return tmp;
}

static size_t
bd_collect(struct tui_state *t, enum bd_dim d)
{
    const struct stats *s = t->s;
    const struct bd_table *bt = &s->bd[d];
    const struct tui_bdbase *b = &t->bdbase[d];
    struct histo_small tmp;
    size_t k, n = 0;
    char label[1024];

    if (!s->bd_on)
        return 0;
    if (t->bdrows_cap < bt->count + 1) {
        struct tui_bdrow *nr = realloc(t->bdrows, (bt->count + 1) * sizeof *nr);
        if (!nr)
            return 0;
        t->bdrows = nr;
        t->bdrows_cap = bt->count + 1;
    }
    for (k = 0; k <= bt->count; k++) {
        bool other = k == bt->count;
        const struct bd_row *r = other ? &bt->other : &bt->rows[k];
        size_t slot = other ? bt->cap : k;
        struct tui_bdrow *o = &t->bdrows[n];
        const struct histo_small *h;
        /* a slot given to another key since the reset (or new) counts whole;
         * "other" only grows */
        bool based = t->have_base && b->gen && slot <= b->cap && b->gen[slot] == r->gen;

        if (other && r->calls == 0)
            continue; /* no "other" row until something was evicted */
        if (!other && !r->used)
            continue;
        o->r = r;
        o->slot = slot;
        o->calls = r->calls - (based ? b->calls[slot] : 0);
        o->errors = r->errors - (based ? b->errors[slot] : 0);
        o->bytes = r->read_bytes + r->write_bytes - (based ? b->bytes[slot] : 0);
        o->lat_sum = r->latency.sum - (based ? b->lat_sum[slot] : 0);
        h = small_since(&tmp, &r->latency, based ? &b->lat[slot] : NULL);
        o->lat_count = h->count;
        o->p50 = histo_small_percentile(h, 50);
        o->p99 = histo_small_percentile(h, 99);
        if (t->hide_zero && o->calls == 0)
            continue;
        if (t->filter[t->panel][0]) {
            if (other)
                snprintf(label, sizeof label, "(other)");
            else
                stats_row_label(s, d, r, label, sizeof label);
            if (!tui_contains(label, t->filter[t->panel]))
                continue;
        }
        n++;
    }
    bd_sort_col = t->sort_col[t->panel];
    bd_sort_asc = t->sort_asc[t->panel];
    qsort(t->bdrows, n, sizeof *t->bdrows, bdrow_cmp);
    return n;
}

static size_t procedures_index(void);

/* Enter on a client, server or file panel: the procedure table for the rows
 * this panel's filter keeps, or for the first row shown. */
static void
scope_to(struct tui_state *t, const struct tui_panel *p)
{
    enum bd_dim d = p->dim;
    const struct bd_table *bt = &t->s->bd[d];
    char label[1024], e[TUI_FILTER_MAX * 4];
    size_t n;

    if (!t->s->bd_on || !bt->procs) {
        snprintf(t->status, sizeof t->status,
                 "no per-procedure counts for %ss (breakdowns off, or no memory)", bd_dim_name(d));
        return;
    }
    if (t->filter[t->panel][0]) { /* the rows this panel's filter keeps */
        t->scope_exact = false;
        memcpy(t->scope_filter, t->filter[t->panel], sizeof t->scope_filter);
        snprintf(t->scope_text, sizeof t->scope_text, "\"%s\"",
                 tui_esc(e, sizeof e, t->filter[t->panel]));
    } else { /* the first row shown */
        const struct tui_bdrow *o;

        n = bd_collect(t, d);
        if (n == 0) {
            snprintf(t->status, sizeof t->status, "no %s to choose", bd_dim_name(d));
            return;
        }
        o = &t->bdrows[(size_t)t->scroll[t->panel] < n ? (size_t)t->scroll[t->panel] : 0];
        t->scope_exact = true;
        t->scope_other = o->r == &bt->other;
        t->scope_key_len = o->r->key_len;
        memcpy(t->scope_key, o->r->key, o->r->key_len);
        if (t->scope_other)
            snprintf(label, sizeof label, "(other)");
        else
            stats_row_label(t->s, d, o->r, label, sizeof label);
        term_escape(t->scope_text, sizeof t->scope_text, (const uint8_t *)label, strlen(label));
    }
    t->scope_dim = d;
    t->scope_on = true;
    t->panel = procedures_index();
    t->scroll[t->panel] = 0;
    if (d == BD_FILE && scope_op_rows(t) && nfs4_stats(t)->calls)
        snprintf(t->status, sizeof t->status,
                 "procedures, then NFSv4 operations (op: results) of this file (\\ shows all)");
    else
        snprintf(t->status, sizeof t->status,
                 "procedures of this %s only (\\ shows all again); latency: mean and max",
                 bd_dim_name(d));
}

static int
draw_bd(struct tui_state *t, const struct tui_panel *p, int y0, int height, bool draw)
{
    enum bd_dim d = p->dim;
    size_t n = bd_collect(t, d), i;
    uint64_t total = 0;
    char line[256], label[1024], e[4096], sh[4096], l50[16], l99[16], lt[16], by[16];
    bool wide = COLS >= OPS_WIDE;
    int y;

    if (!draw)
        return (int)n;
    for (i = 0; i < n; i++)
        total += t->bdrows[i].calls;
    if (wide)
        snprintf(line, sizeof line, "%10s %6s %8s %8s %8s %10s %9s  %s", "calls", "share",
                 "errors", "p50", "p99", "latency", "bytes", bd_dim_name(d));
    else
        snprintf(line, sizeof line, "%8s %6s %6s %8s %8s %8s %8s  %s", "calls", "share",
                 "errors", "p50", "p99", "latency", "bytes", bd_dim_name(d));
    attron(A_REVERSE | tui_color(TC_HEAD));
    mvhline(y0, 0, ' ', COLS);
    tui_put_clip(y0, 0, line, COLS);
    attroff(A_REVERSE | tui_color(TC_HEAD));
    if (!t->s->bd_on) {
        tui_put_clip(y0 + 1, 0, "(breakdowns are off)", COLS);
        return 0;
    }
    if (t->scroll[t->panel] > (int)n - 1)
        t->scroll[t->panel] = n ? (int)n - 1 : 0;
    for (i = (size_t)t->scroll[t->panel], y = y0 + 1; i < n && y < y0 + height; i++, y++) {
        const struct tui_bdrow *o = &t->bdrows[i];
        bool have = o->lat_count > 0;

        tui_fmt_lat(l50, sizeof l50, o->p50, have);
        tui_fmt_lat(l99, sizeof l99, o->p99, have);
        tui_fmt_lat(lt, sizeof lt, o->lat_sum, o->lat_sum > 0);
        tui_fmt_bytes(by, sizeof by, o->bytes);
        snprintf(line, sizeof line,
                 wide ? "%10" PRIu64 " %5.1f%% %8" PRIu64 " %8s %8s %10s %9s  "
                      : "%8" PRIu64 " %5.1f%% %6" PRIu64 " %8s %8s %8s %8s  ",
                 o->calls, total ? 100.0 * (double)o->calls / (double)total : 0.0, o->errors,
                 l50, l99, lt, by);
        if (o->errors)
            attron(A_BOLD | tui_color(TC_ERROR));
        tui_put_clip(y, 0, line, COLS);
        attroff(A_BOLD | tui_color(TC_ERROR));
        if (o->r == &t->s->bd[d].other)
            snprintf(label, sizeof label, "(other)");
        else
            stats_row_label(t->s, d, o->r, label, sizeof label);
        tui_esc(e, sizeof e, label); /* from the wire: names, paths */
        tui_put_clip(y, (int)strlen(line),
                     tui_shorten(sh, sizeof sh, e, COLS - (int)strlen(line)),
                     COLS - (int)strlen(line));
    }
    return (int)n;
}

/* ---------------------------------------------------------------- findings */

/* The findings panel: the findings engine's own sentences (src/findings.c,
 * through ui/report_findings.c's text, which escapes wire strings),
 * then what the RPC totals say. Lines are pointers into `buf` (freed by the
 * caller). */
#define FINDINGS_MAX_LINES 512

static int
findings_lines(struct tui_state *t, char **buf, const char *lines[], int max)
{
    static char extra[6][256];
    static struct stats view; /* a shallow copy: the counts since the reset */
    const struct stats *s = t->s;
    const struct findings *fnd = t->vi->findings;
    size_t len = 0;
    FILE *f;
    int n = 0, k = 0, i;
    char *p;

    *buf = NULL;
    if (t->have_base) { /* since the reset: the view's own engine and totals */
        unsigned a;

        view = *s;
        if (t->fview) /* else (no memory at the reset): the whole run's */
            fnd = t->fview;
        view.rpc.calls -= t->base_rpc.calls;
        view.rpc.replies -= t->base_rpc.replies;
        view.rpc.retransmissions -= t->base_rpc.retransmissions;
        view.rpc.unanswered_calls -= t->base_rpc.unanswered_calls;
        view.rpc.orphan_replies -= t->base_rpc.orphan_replies;
        view.rpc.rpc_errors -= t->base_rpc.rpc_errors;
        view.cap.truncated_packets -= t->base_cap.truncated_packets;
        if (view.cap.kernel_drops >= 0 && t->base_cap.kernel_drops >= 0)
            view.cap.kernel_drops -= t->base_cap.kernel_drops;
        for (a = 0; a < ANOM__COUNT; a++)
            view.anom.n[a] -= t->base_anom.n[a];
        s = &view;
    }
    if (fnd && (f = open_memstream(buf, &len)) != NULL) {
        findings_text(f, s, fnd, false);
        fclose(f);
    }
    for (p = *buf; p && *p && n < max;) {
        char *nl = strchr(p, '\n'), *q;

        if (nl)
            *nl = '\0';
        for (q = p; *q; q++)
            if ((unsigned char)*q < 0x20 || *q == 0x7f)
                *q = ' '; /* already escaped; tabs would move the cursor */
        if (!(n == 0 && (strcmp(p, "Findings") == 0 || !*p)))
            lines[n++] = p; /* the heading is the panel's own */
        if (!nl)
            break;
        p = nl + 1;
    }
    if (!fnd && !t->have_base) {
        uint64_t st = 0;
        size_t pi;

        for (pi = 0; pi < s->nprogs; pi++) /* WRITEs of the programs with stable_how */
            if (s->progs[pi].pg->flags & PGF_IO_DETAIL)
                st += s->progs[pi].write.stable[1] + s->progs[pi].write.stable[2];
        if (st && k < 6)
            snprintf(extra[k++], 256, "stable writes: %" PRIu64 " WRITEs asked for DATA_SYNC or"
                                      " FILE_SYNC", st);
    }
    if (s->rpc.retransmissions && k < 6)
        snprintf(extra[k++], 256, "retransmissions: %" PRIu64 " calls were sent again",
                 s->rpc.retransmissions);
    if (s->rpc.unanswered_calls && k < 6)
        snprintf(extra[k++], 256, "unanswered: %" PRIu64 " calls got no reply (so far)",
                 s->rpc.unanswered_calls);
    if (s->rpc.orphan_replies && k < 6)
        snprintf(extra[k++], 256,
                 "orphan replies: %" PRIu64 " replies to calls not seen (capture started"
                 " mid-way, or calls lost)", s->rpc.orphan_replies);
    if (s->rpc.rpc_errors && k < 6)
        snprintf(extra[k++], 256, "RPC errors: %" PRIu64 " calls refused at the RPC level",
                 s->rpc.rpc_errors);
    if (k && n && n < max)
        lines[n++] = "";
    for (i = 0; i < k && n < max; i++)
        lines[n++] = extra[i];
    if (n == 0 && max > 0)
        lines[n++] = "(nothing yet)";
    return n;
}

static int
draw_findings(struct tui_state *t, int y0, int height, bool draw)
{
    const char *lines[FINDINGS_MAX_LINES];
    char *buf, head[96];
    struct tm tm;
    int n = findings_lines(t, &buf, lines, FINDINGS_MAX_LINES), i;

    if (draw) {
        attron(A_REVERSE);
        mvhline(y0, 0, ' ', COLS);
        if (t->have_base && t->fview && localtime_r(&t->reset_at, &tm))
            snprintf(head, sizeof head, "findings (since reset at %02d:%02d:%02d)", tm.tm_hour,
                     tm.tm_min, tm.tm_sec);
        else
            snprintf(head, sizeof head, "findings (since the start)");
        tui_put_clip(y0, 0, head, COLS);
        attroff(A_REVERSE);
        if (t->scroll[t->panel] > n - 1)
            t->scroll[t->panel] = n > 0 ? n - 1 : 0;
        for (i = t->scroll[t->panel]; i < n && y0 + 1 + i - t->scroll[t->panel] < y0 + height;
             i++)
            tui_put_clip(y0 + 1 + i - t->scroll[t->panel], 1, lines[i], COLS - 1);
    }
    free(buf);
    return n;
}

/* ---------------------------------------------------------------- NFSv4 */

/* The program with minor versions, operations and kinds (NFSv4), or NULL. */
static const struct prog_stats *
nfs4_stats(const struct tui_state *t)
{
    size_t i;

    for (i = 0; i < t->s->nprogs; i++)
        if (t->s->progs[i].pg->nminor && t->s->progs[i].minor && t->s->progs[i].ops &&
            t->s->progs[i].pg->kind_name)
            return &t->s->progs[i];
    return NULL;
}

struct v4row {
    char name[96];
    uint64_t count, results, not_evaluated, errors;
    const struct histo *lat;
};

static int
v4row_cmp(const void *va, const void *vb)
{
    const struct v4row *a = va, *b = vb;

    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* Draw rows (most first) under a header; the same for both panels. */
static int
draw_v4(struct tui_state *t, int y0, int height, bool draw, struct v4row *rows, size_t n,
        bool ops, uint64_t total)
{
    char line[256], l50[16], l90[16], l99[16], lmax[16];
    size_t i;
    int y;

    if (n)
        qsort(rows, n, sizeof *rows, v4row_cmp);
    if (!draw)
        return (int)n;
    if (ops)
        snprintf(line, sizeof line, "%-22s %10s %10s %9s %8s %8s %8s %8s %8s  (since the start;"
                 " latency: of the COMPOUNDs containing it)", "operation", "count", "results",
                 "not eval", "errors", "p50", "p90", "p99", "max");
    else
        snprintf(line, sizeof line, "%-22s %10s %6s %8s %8s %8s %8s %8s  (since the start)",
                 "kind", "compounds", "share", "errors", "p50", "p90", "p99", "max");
    attron(A_REVERSE);
    mvhline(y0, 0, ' ', COLS);
    tui_put_clip(y0, 0, line, COLS);
    attroff(A_REVERSE);
    if (n == 0) {
        tui_put_clip(y0 + 1, 1, "(no NFSv4 COMPOUND yet)", COLS - 1);
        return 0;
    }
    if (t->scroll[t->panel] > (int)n - 1)
        t->scroll[t->panel] = (int)n - 1;
    for (i = (size_t)t->scroll[t->panel], y = y0 + 1; i < n && y < y0 + height; i++, y++) {
        const struct v4row *r = &rows[i];
        bool have = r->lat->count > 0;

        tui_fmt_lat(l50, sizeof l50, have ? histo_percentile(r->lat, 50) : 0, have);
        tui_fmt_lat(l90, sizeof l90, have ? histo_percentile(r->lat, 90) : 0, have);
        tui_fmt_lat(l99, sizeof l99, have ? histo_percentile(r->lat, 99) : 0, have);
        tui_fmt_lat(lmax, sizeof lmax, r->lat->max, have);
        if (ops)
            snprintf(line, sizeof line,
                     "%-22s %10" PRIu64 " %10" PRIu64 " %9" PRIu64 " %8" PRIu64 " %8s %8s %8s %8s",
                     r->name, r->count, r->results, r->not_evaluated, r->errors, l50, l90, l99,
                     lmax);
        else
            snprintf(line, sizeof line, "%-22s %10" PRIu64 " %5.1f%% %8" PRIu64 " %8s %8s %8s %8s",
                     r->name, r->count,
                     total ? 100.0 * (double)r->count / (double)total : 0.0, r->errors, l50, l90,
                     l99, lmax);
        if (r->errors)
            attron(A_BOLD);
        tui_put_clip(y, 0, line, COLS);
        attroff(A_BOLD);
    }
    return (int)n;
}

/* COMPOUNDs by kind (their main operations, as in the report). */
static int
draw_v4_kinds(struct tui_state *t, int y0, int height, bool draw)
{
    const struct prog_stats *ps = nfs4_stats(t);
    struct v4row rows[STATS_MAX_KINDS];
    uint64_t total = 0;
    size_t n = 0, i;

    for (i = 0; ps && ps->kinds.rows && i < ps->kinds.n && n < STATS_MAX_KINDS; i++) {
        const struct proc_stats *p = &ps->kinds.rows[i].st;

        ps->pg->kind_name(ps->kinds.rows[i].key, rows[n].name, sizeof rows[n].name);
        rows[n].count = p->replies;
        rows[n].results = rows[n].not_evaluated = 0;
        rows[n].errors = p->errors;
        rows[n].lat = &p->latency;
        total += p->replies;
        n++;
    }
    return draw_v4(t, y0, height, draw, rows, n, false, total + (ps ? ps->kinds.other : 0));
}

/* The operations seen inside the COMPOUNDs. */
static int
draw_v4_ops(struct tui_state *t, int y0, int height, bool draw)
{
    const struct prog_stats *ps = nfs4_stats(t);
    struct v4row *rows;
    size_t n = 0;
    uint32_t i;
    int ret;

    if (!ps)
        return draw_v4(t, y0, height, draw, NULL, 0, true, 0);
    rows = calloc(ps->pg->nops, sizeof *rows);
    if (!rows)
        return 0;
    for (i = 0; i < ps->pg->nops; i++) {
        const struct proc_stats *p = &ps->ops[i];
        const char *name = nfs4_row_name(ps->pg, i);

        if (!name || (!p->calls && !p->replies && !p->not_evaluated))
            continue;
        snprintf(rows[n].name, sizeof rows[n].name, "%s", name);
        rows[n].count = p->calls;
        rows[n].results = p->replies;
        rows[n].not_evaluated = p->not_evaluated;
        rows[n].errors = p->errors;
        rows[n].lat = &p->latency;
        n++;
    }
    ret = draw_v4(t, y0, height, draw, rows, n, true, 0);
    free(rows);
    return ret;
}


/* ---------------------------------------------------------------- the panels */

static void
procedures_draw(struct tui_state *t, const struct tui_panel *p, int y0, int height)
{
    (void)p;
    draw_ops(t, y0, height, true);
}

static int
procedures_rows(struct tui_state *t, const struct tui_panel *p)
{
    (void)p;
    return draw_ops(t, 0, 0, false);
}

/* \ clears the filter and the scope: every procedure of every client. */
static bool
procedures_key(struct tui_state *t, const struct tui_panel *p, enum tui_action a)
{
    (void)p;
    if (a != A_CLEAR_FILTER)
        return false;
    t->filter[t->panel][0] = '\0';
    t->scope_on = false;
    return true;
}

static void
breakdown_draw(struct tui_state *t, const struct tui_panel *p, int y0, int height)
{
    draw_bd(t, p, y0, height, true);
}

static int
breakdown_rows(struct tui_state *t, const struct tui_panel *p)
{
    return draw_bd(t, p, 0, 0, false);
}

static bool
breakdown_key(struct tui_state *t, const struct tui_panel *p, enum tui_action a)
{
    if (a != A_SCOPE)
        return false;
    scope_to(t, p);
    return true;
}

static void
findings_draw(struct tui_state *t, const struct tui_panel *p, int y0, int height)
{
    (void)p;
    draw_findings(t, y0, height, true);
}

static int
findings_rows(struct tui_state *t, const struct tui_panel *p)
{
    (void)p;
    return draw_findings(t, 0, 0, false);
}

static void
v4kinds_draw(struct tui_state *t, const struct tui_panel *p, int y0, int height)
{
    (void)p;
    draw_v4_kinds(t, y0, height, true);
}

static int
v4kinds_rows(struct tui_state *t, const struct tui_panel *p)
{
    (void)p;
    return draw_v4_kinds(t, 0, 0, false);
}

static void
v4ops_draw(struct tui_state *t, const struct tui_panel *p, int y0, int height)
{
    (void)p;
    draw_v4_ops(t, y0, height, true);
}

static int
v4ops_rows(struct tui_state *t, const struct tui_panel *p)
{
    (void)p;
    return draw_v4_ops(t, 0, 0, false);
}

static const char *const procedures_cols[] = { "name", "calls", "calls/s", "errors", "p50",
                                               "p90",  "p99",   "max",     "bytes", NULL };
static const char *const breakdown_cols[] = { "calls",   "errors", "p50",  "p99",
                                              "latency", "bytes",  "name", NULL };

static const char hints[] = "h help  q quit  Tab panel  s/< sort  i invert  / filter  z zeros"
                            "  r reset  p pause";
static const char breakdown_hints[] = "h help  q quit  Tab panel  s/< sort  / filter  Enter their"
                                      " procedures  r reset  p pause";

static const struct tui_panel procedures_panel = {
    .name = "procedures",
    .title = "procedures (nfsstat-style)",
    .sort_cols = procedures_cols,
    .default_sort = OC_CALLS,
    .filter = true,
    .scoped = true,
    .draw = procedures_draw,
    .rows = procedures_rows,
    .key = procedures_key,
    .sort_name = procedures_sort_name,
    .hints = hints,
    .help = "Columns: calls (first transmissions), share of calls, calls/s in the last"
            " second, errors (status not OK or RPC-level), latency p50/p90/p99/max, bytes"
            " (READ returned, WRITE sent). For one client, server or file (Enter) the"
            " counts are kept per row and procedure without a histogram: latency is the"
            " mean (in the p50 column) and the max; for a file, its procedures are"
            " followed by the NFSv4 operations that ran with it as current file handle"
            " (op ...: their results; no share, errors or latency per file). The latency"
            " sparkline is the p99 of each second's replies.",
};

static const struct tui_panel clients_panel = {
    .name = "clients",
    .title = "clients",
    .sort_cols = breakdown_cols,
    .default_sort = BC_CALLS,
    .filter = true,
    .dim = BD_CLIENT,
    .draw = breakdown_draw,
    .rows = breakdown_rows,
    .key = breakdown_key,
    .hints = breakdown_hints,
};

static const struct tui_panel servers_panel = {
    .name = "servers",
    .title = "servers",
    .sort_cols = breakdown_cols,
    .default_sort = BC_CALLS,
    .filter = true,
    .dim = BD_SERVER,
    .draw = breakdown_draw,
    .rows = breakdown_rows,
    .key = breakdown_key,
    .hints = breakdown_hints,
};

static const struct tui_panel files_panel = {
    .name = "files",
    .title = "files",
    .sort_cols = breakdown_cols,
    .default_sort = BC_CALLS,
    .filter = true,
    .dim = BD_FILE,
    .draw = breakdown_draw,
    .rows = breakdown_rows,
    .key = breakdown_key,
    .hints = breakdown_hints,
};

static const struct tui_panel findings_panel = {
    .name = "findings",
    .title = "findings",
    .draw = findings_draw,
    .rows = findings_rows,
    .hints = hints,
};

static const char v4_hints[] = "h help  q quit  Tab panel  p pause";

static const struct tui_panel nfs4_kinds_panel = {
    .name = "v4 kinds",
    .title = "NFSv4 COMPOUNDs by kind",
    .optional = true,
    .draw = v4kinds_draw,
    .rows = v4kinds_rows,
    .hints = v4_hints,
    .help = "NFSv4 COMPOUNDs answered with a body, by kind: their main operations, as"
            " Wireshark's nfs.main_opcode (sequence, putfh, getfh, savefh and restorefh are"
            " glue), most first, with errors and the COMPOUNDs' latency; since the start.",
};

static const struct tui_panel nfs4_ops_panel = {
    .name = "v4 ops",
    .title = "NFSv4 operations",
    .optional = true,
    .draw = v4ops_draw,
    .rows = v4ops_rows,
    .hints = v4_hints,
    .help = "NFSv4 operations inside the COMPOUNDs, most first: count (in calls), results"
            " (in replies), not evaluated (after an earlier failure), errors, and the"
            " latency of the COMPOUNDs containing the operation; since the start.",
};

/* The tabs, in order: key 1 is the first. */
const struct tui_panel *const tui_panels[] = {
    &procedures_panel, &clients_panel, &servers_panel, &files_panel, &findings_panel,
    &nfs4_kinds_panel, &nfs4_ops_panel,
};
const size_t tui_panel_count = sizeof tui_panels / sizeof tui_panels[0];
_Static_assert(sizeof tui_panels / sizeof tui_panels[0] <= TUI_PANELS_MAX,
               "a panel per digit key");

static size_t
procedures_index(void)
{
    size_t i;

    for (i = 0; i < tui_panel_count; i++)
        if (tui_panels[i] == &procedures_panel)
            return i;
    return 0;
}
