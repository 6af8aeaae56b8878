/* SPDX-License-Identifier: BSD-3-Clause */
/* tui_state.c: what the view keeps beside the stats: per-second samples for
 * the sparklines (calls, bytes, latency p99 from the timeline), the rates of
 * the procedure table, and the reset baselines.
 *
 * A reset takes a baseline of every counter the view shows (procedures,
 * capture and RPC totals, anomalies, breakdown rows with their latency
 * histograms, per-procedure counts and files' NFSv4 operations), starts a
 * findings engine of its own (fed as the pipeline's view findings,
 * pipeline.h) and clears the sparklines. The analysis
 * itself (the final report, the pending-call table) is not touched: calls in
 * flight at the reset are still matched, their replies and latencies count
 * after it. Memory: the baselines are allocated at the first reset, bounded
 * by the tables they copy (--max-rows rows per table). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "tui_int.h"

static const enum bd_dim base_dims[] = { BD_CLIENT, BD_SERVER, BD_FILE };

static int
bdbase_alloc(struct tui_bdbase *b, size_t cap, bool procs, bool ops)
{
    size_t n = cap + 1;

    b->cap = cap;
    b->gen = calloc(n, sizeof *b->gen);
    b->calls = calloc(n, sizeof *b->calls);
    b->errors = calloc(n, sizeof *b->errors);
    b->bytes = calloc(n, sizeof *b->bytes);
    b->lat_sum = calloc(n, sizeof *b->lat_sum);
    b->lat = calloc(n, sizeof *b->lat);
    if (procs)
        b->procs = calloc(n, sizeof *b->procs);
    if (ops)
        b->ops = calloc(n, sizeof *b->ops);
    return b->gen && b->calls && b->errors && b->bytes && b->lat_sum && b->lat &&
                   (!procs || b->procs) && (!ops || b->ops)
               ? 0
               : -1;
}

static void
bdbase_free(struct tui_bdbase *b)
{
    free(b->gen);
    free(b->calls);
    free(b->errors);
    free(b->bytes);
    free(b->lat_sum);
    free(b->lat);
    free(b->procs);
    free(b->ops);
    memset(b, 0, sizeof *b);
}

int
tui_state_init(struct tui_state *t, struct stats *s, const struct nfsscope_config *cfg,
               const struct view_info *vi, bool live)
{
    size_t i, n = 0;

    memset(t, 0, sizeof *t);
    t->s = s;
    t->ws = s;
    t->cfg = cfg;
    t->vi = vi;
    t->live = live;
    t->speed = cfg->speed;
    t->sample_sec = -1;
    t->hide_zero = !cfg->all_rows; /* like the text report */
    for (i = 0; i < tui_panel_count; i++)
        t->sort_col[i] = tui_panels[i]->default_sort;
    /* Per-procedure counts of client, server and file rows, for Enter on
     * their panels. Without the memory the view still runs; Enter says so. */
    if (s->bd_on)
        (void)stats_by_proc_init(s);
    t->proc_off = calloc(s->nprogs + 1, sizeof *t->proc_off);
    if (!t->proc_off)
        return -1;
    for (i = 0; i < s->nprogs; i++) {
        t->proc_off[i] = n;
        n += s->progs[i].pg->nprocs;
    }
    t->proc_off[s->nprogs] = n;
    t->nflat = n;
    t->prev_calls = calloc(n ? n : 1, sizeof *t->prev_calls);
    t->rate = calloc(n ? n : 1, sizeof *t->rate);
    return t->prev_calls && t->rate ? 0 : -1;
}

void
tui_state_fini(struct tui_state *t)
{
    unsigned d;

    if (t->view_findings && *t->view_findings == t->fview)
        *t->view_findings = NULL;
    findings_free(t->fview);
    free(t->proc_off);
    free(t->prev_calls);
    free(t->rate);
    free(t->base_procs);
    for (d = 0; d < BD__COUNT; d++)
        bdbase_free(&t->bdbase[d]);
    free(t->bdrows);
    memset(t, 0, sizeof *t);
}

/* Totals over every program: calls. */
static uint64_t
total_calls(const struct stats *s)
{
    uint64_t calls = 0;
    size_t i;

    for (i = 0; i < s->nprogs; i++)
        calls += s->progs[i].calls;
    return calls;
}

static void
ring_push(struct tui_state *t, uint64_t calls, uint64_t bytes, uint64_t lat)
{
    t->ring_calls[t->ring_head] = calls;
    t->ring_bytes[t->ring_head] = bytes;
    t->ring_lat[t->ring_head] = lat;
    t->ring_head = (t->ring_head + 1) % TUI_RING;
    if (t->ring_n < TUI_RING)
        t->ring_n++;
}

void
tui_sample(struct tui_state *t, int64_t sec)
{
    const struct stats *s = t->s;
    uint64_t calls, gap, p99 = 0;
    size_t i;
    uint32_t p;

    if (t->sample_sec < 0) { /* the first second: counted from zero (last_* are 0) */
        t->sample_sec = sec;
        return;
    }
    if (sec <= t->sample_sec)
        return;
    /* What happened since the last sample is put in the second of that
     * sample (a replay samples before it feeds a new second's packets); the
     * seconds between (nothing seen) are zeros. */
    gap = (uint64_t)(sec - t->sample_sec);
    calls = total_calls(s);
    /* Latency: p99 of the replies of those seconds, from the timeline's
     * per-bucket histograms (by reply time; 0 when none). */
    if (s->bd_on && sec > t->p99_from)
        (void)timeline_percentile(&s->tl,
                                  (time_t)(t->sample_sec > t->p99_from ? t->sample_sec
                                                                       : t->p99_from),
                                  (time_t)sec, 99, &p99);
    ring_push(t, calls - t->last_calls, s->cap.bytes - t->last_bytes, p99);
    for (; gap > 1 && gap <= TUI_RING; gap--)
        ring_push(t, 0, 0, 0);
    t->last_calls = calls;
    t->last_bytes = s->cap.bytes;
    for (i = 0; i < s->nprogs; i++)
        for (p = 0; p < s->progs[i].pg->nprocs; p++) {
            size_t k = t->proc_off[i] + p;
            uint64_t c = s->progs[i].procs[p].calls;
            t->rate[k] = sec - t->sample_sec == 1 ? c - t->prev_calls[k] : 0;
            t->prev_calls[k] = c;
        }
    t->sample_sec = sec;
}

/* Baseline of one breakdown table: every slot, and "other" at [cap]. */
static void
bd_baseline(struct tui_bdbase *b, const struct bd_table *bt)
{
    size_t k;

    for (k = 0; k <= bt->count && k <= b->cap; k++) {
        const struct bd_row *r = k < bt->count ? &bt->rows[k] : &bt->other;
        size_t i = k < bt->count ? k : b->cap;

        b->gen[i] = r->gen;
        b->calls[i] = r->calls;
        b->errors[i] = r->errors;
        b->bytes[i] = r->read_bytes + r->write_bytes;
        b->lat_sum[i] = r->latency.sum;
        b->lat[i] = r->latency;
    }
    if (b->procs && bt->procs)
        memcpy(b->procs, bt->procs->rows, (b->cap + 1) * sizeof *b->procs);
    if (b->ops && bt->ops)
        memcpy(b->ops, bt->ops->rows, (b->cap + 1) * sizeof *b->ops);
}

void
tui_reset(struct tui_state *t, time_t now)
{
    const struct stats *s = t->s;
    size_t i;
    unsigned d;

    if (!t->base_procs) {
        t->base_procs = calloc(t->nflat ? t->nflat : 1, sizeof *t->base_procs);
        if (!t->base_procs) {
            snprintf(t->status, sizeof t->status, "reset: out of memory");
            return;
        }
    }
    for (i = 0; i < s->nprogs; i++)
        memcpy(&t->base_procs[t->proc_off[i]], s->progs[i].procs,
               s->progs[i].pg->nprocs * sizeof *s->progs[i].procs);
    t->base_cap = s->cap;
    t->base_rpc = s->rpc;
    t->base_anom = s->anom;
    if (s->bd_on) {
        for (d = 0; d < sizeof base_dims / sizeof *base_dims; d++) {
            const struct bd_table *bt = &s->bd[base_dims[d]];
            struct tui_bdbase *b = &t->bdbase[base_dims[d]];

            if (!b->gen && bdbase_alloc(b, bt->cap, bt->procs != NULL, bt->ops != NULL) != 0) {
                bdbase_free(b);
                continue;
            }
            bd_baseline(b, bt);
        }
    }
    /* Findings: a new engine, fed from now on (the final report's keeps all). */
    if (t->vi->findings && t->view_findings) {
        struct findings *f = findings_new(t->cfg->findings_max, t->cfg->window_s,
                                          t->vi->findings->seed ^ (uint64_t)now);
        *t->view_findings = f; /* NULL (no memory): the panel says "since the start" */
        findings_free(t->fview);
        t->fview = f;
    }
    /* Sparklines start again, from what comes after the reset: the running
     * totals are taken now, and the reset's own second (its timeline bucket
     * holds replies from before) gives no p99. */
    t->ring_n = t->ring_head = 0;
    t->last_calls = total_calls(s);
    t->last_bytes = s->cap.bytes;
    if (t->sample_sec >= 0 && (int64_t)now > t->sample_sec)
        t->sample_sec = (int64_t)now;
    t->p99_from = (int64_t)now + 1;
    t->reset_at = now;
    t->have_base = true;
    snprintf(t->status, sizeof t->status, "counters reset (the final report still counts all)");
}
