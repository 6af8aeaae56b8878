/* SPDX-License-Identifier: BSD-3-Clause */
/* tui_panels.c: what the view shows, drawn from `const struct stats *` and
 * the view's own samples and baselines (tui_state.c): the header, two
 * sparklines, the nfsstat-style procedure table (whole, or for one client,
 * server or file), the client/server/file panels, findings and the help
 * screen generated from the key table.
 *
 * Every string that may come from the wire (breakdown labels: addresses,
 * paths, export names) or from the command line goes through term_escape()
 * and is clipped to its column, so no byte can move the cursor. */
/* wcwidth: _XOPEN_SOURCE comes from ncursesw's pkg-config flags */
#define NCURSES_WIDECHAR 1

#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "anomaly.h"
#include "report_findings.h"
#include "term_escape.h"
#include "tui_int.h"


static const enum bd_dim panel_dim[TP__COUNT] = {
    [TP_CLIENTS] = BD_CLIENT, [TP_SERVERS] = BD_SERVER, [TP_FILES] = BD_FILE,
};

/* ---------------------------------------------------------------- formats */

static void
fmt_lat(char *b, size_t n, uint64_t us, bool have)
{
    if (!have)
        snprintf(b, n, "-");
    else if (us < 1000)
        snprintf(b, n, "%" PRIu64 "us", us);
    else if (us < 1000000)
        snprintf(b, n, "%.1fms", (double)us / 1e3);
    else
        snprintf(b, n, "%.2fs", (double)us / 1e6);
}

static void
fmt_bytes(char *b, size_t n, uint64_t v)
{
    static const char unit[] = "KMGTPE";
    double x = (double)v;
    int u = -1;

    if (v < 1024) {
        snprintf(b, n, "%" PRIu64 "B", v);
        return;
    }
    while (x >= 1024 && u < 5) {
        x /= 1024;
        u++;
    }
    snprintf(b, n, "%.1f%c", x, unit[u]);
}

/* Text at (y, x), at most `cols` columns; the rest of the text is dropped.
 * `str` is already escaped (printable ASCII and valid UTF-8 only). */
static void
put_clip(int y, int x, const char *str, int cols)
{
    const char *p;
    mbstate_t ms;
    wchar_t wbuf[256];
    int w = 0, nw = 0;

    if (cols <= 0)
        return;
    for (p = str; *p && !(*p & 0x80); p++)
        ;
    if (!*p) { /* ASCII: one byte, one column */
        mvaddnstr(y, x, str, cols);
        return;
    }
    memset(&ms, 0, sizeof ms);
    for (p = str; *p && nw < (int)(sizeof wbuf / sizeof *wbuf);) {
        wchar_t wc;
        size_t k = mbrtowc(&wc, p, strlen(p), &ms);
        int cw;

        if (k == 0 || k == (size_t)-1 || k == (size_t)-2)
            break;
        cw = wcwidth(wc);
        if (cw < 0)
            cw = 1;
        if (w + cw > cols)
            break;
        wbuf[nw++] = wc;
        w += cw;
        p += k;
    }
    mvaddnwstr(y, x, wbuf, nw);
}

/* Escape untrusted bytes for the screen. */
static const char *
esc(char *dst, size_t dstsz, const char *src)
{
    term_escape(dst, dstsz, (const uint8_t *)src, strlen(src));
    return dst;
}

static bool
contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle), i;

    if (!n)
        return true;
    for (; *hay; hay++) {
        for (i = 0; i < n && hay[i]; i++) {
            char a = hay[i], b = needle[i];
            if (a >= 'A' && a <= 'Z')
                a = (char)(a - 'A' + 'a');
            if (b >= 'A' && b <= 'Z')
                b = (char)(b - 'A' + 'a');
            if (a != b)
                break;
        }
        if (i == n)
            return true;
    }
    return false;
}

/* ---------------------------------------------------------------- header */

static void
sparkline(struct tui_state *t, int y, int x, int width, const uint64_t *ring)
{
    static const wchar_t blocks[] = L" \u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588";
    static const char ascii[] = " _.-:=+*#";
    uint64_t max = 0;
    int n = width < (int)t->ring_n ? width : (int)t->ring_n, i;

    for (i = 0; i < n; i++) {
        uint64_t v = ring[(t->ring_head + TUI_RING - n + i) % TUI_RING];
        if (v > max)
            max = v;
    }
    for (i = 0; i < n; i++) {
        uint64_t v = ring[(t->ring_head + TUI_RING - n + i) % TUI_RING];
        int lvl = v == 0 || max == 0 ? 0 : 1 + (int)((v * 7 + max / 2) / max);

        if (lvl > 8)
            lvl = 8;
        if (t->utf8)
            mvaddnwstr(y, x + (width - n) + i, &blocks[lvl], 1);
        else
            mvaddch(y, x + (width - n) + i, (chtype)(unsigned char)ascii[lvl]);
    }
}

static uint64_t
ring_last(const struct tui_state *t, const uint64_t *ring)
{
    return t->ring_n ? ring[(t->ring_head + TUI_RING - 1) % TUI_RING] : 0;
}

static uint64_t
ring_max(const struct tui_state *t, const uint64_t *ring, int width)
{
    uint64_t m = 0;
    int n = width < (int)t->ring_n ? width : (int)t->ring_n, i;

    for (i = 0; i < n; i++)
        if (ring[(t->ring_head + TUI_RING - n + i) % TUI_RING] > m)
            m = ring[(t->ring_head + TUI_RING - n + i) % TUI_RING];
    return m;
}

/* Kernel drops since the reset (-1: not known). */
static int64_t
drops(const struct tui_state *t)
{
    int64_t d = t->s->cap.kernel_drops;

    if (d >= 0 && t->have_base && t->base_cap.kernel_drops >= 0)
        d -= t->base_cap.kernel_drops < d ? t->base_cap.kernel_drops : d;
    return d;
}

static void
draw_header(struct tui_state *t)
{
    const struct stats *s = t->s;
    char line[512], right[160], src[264], e[256], b1[32], b2[32];
    unsigned long el = (unsigned long)(t->elapsed_s >= 0 ? t->elapsed_s : 0);
    int x, w, a, nq = 0;

    src[0] = '\0';
    if (t->vi->sources && t->vi->sources[0]) {
        esc(e, sizeof e, t->vi->sources[0]);
        snprintf(src, sizeof src, "%s%s", e, t->vi->sources[1] ? " +" : "");
    }
    /* the numbers first: the source name gets what is left of the line */
    snprintf(right, sizeof right, "  %02lu:%02lu:%02lu  packets %" PRIu64 "  calls %" PRIu64,
             el / 3600, el / 60 % 60, el % 60,
             s->cap.packets - (t->have_base ? t->base_cap.packets : 0),
             s->rpc.calls - (t->have_base ? t->base_rpc.calls : 0));
    if (s->cap.kernel_drops >= 0)
        snprintf(right + strlen(right), sizeof right - strlen(right), "  drops %" PRId64,
                 drops(t));
    if (t->have_base) {
        struct tm tm;
        if (localtime_r(&t->reset_at, &tm))
            snprintf(right + strlen(right), sizeof right - strlen(right),
                     "  since reset at %02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
    }
    attron(A_BOLD);
    mvaddstr(0, 0, "nfsscope ");
    attroff(A_BOLD);
    if (t->live)
        snprintf(line, sizeof line, "%s (live)", src);
    else if (t->speed > 0)
        snprintf(line, sizeof line, "%s (replay x%g)", src, t->speed);
    else
        snprintf(line, sizeof line, "%s (replay, fastest)", src);
    w = COLS - 9 - (int)strlen(right) - (t->paused || t->ended ? 18 : 0);
    put_clip(0, 9, line, w > 12 ? w : 12);
    x = getcurx(stdscr);
    if (drops(t) > 0)
        attron(A_BOLD); /* drops: the numbers above are missing something */
    put_clip(0, x, right, COLS - x);
    attroff(A_BOLD);
    x = getcurx(stdscr);
    if (t->paused || t->ended) {
        attron(A_REVERSE);
        put_clip(0, x + 2, t->paused ? " PAUSED " : " END OF CAPTURE ", COLS - x - 2);
        attroff(A_REVERSE);
    }

    /* capture quality: anything lost or odd, in a few words */
    mvaddstr(1, 0, "quality: ");
    x = 9;
    line[0] = '\0';
    if (drops(t) > 0)
        nq += snprintf(line + strlen(line), sizeof line - strlen(line), "%" PRId64 " kernel drops, ",
                       drops(t)) > 0;
    if (s->cap.truncated_packets > (t->have_base ? t->base_cap.truncated_packets : 0))
        nq += snprintf(line + strlen(line), sizeof line - strlen(line),
                       "%" PRIu64 " cut by snaplen, ",
                       s->cap.truncated_packets -
                           (t->have_base ? t->base_cap.truncated_packets : 0)) > 0;
    for (a = 0; a < ANOM__COUNT && strlen(line) < sizeof line - 64; a++)
        if (s->anom.n[a] > (t->have_base ? t->base_anom.n[a] : 0))
            nq += snprintf(line + strlen(line), sizeof line - strlen(line), "%" PRIu64 " %s, ",
                           s->anom.n[a] - (t->have_base ? t->base_anom.n[a] : 0),
                           anomaly_key((enum anomaly)a)) > 0;
    if (nq) {
        line[strlen(line) - 2] = '\0';
        attron(A_BOLD);
        put_clip(1, x, line, COLS - x);
        attroff(A_BOLD);
    } else {
        put_clip(1, x, "ok (no drops, no gaps, nothing malformed)", COLS - x);
    }

    /* sparklines: one column per second, newest on the right */
    w = COLS - 42;
    if (w > TUI_RING)
        w = TUI_RING;
    if (w >= 8) {
        snprintf(line, sizeof line, "calls/s %7" PRIu64, ring_last(t, t->ring_calls));
        mvaddstr(2, 0, line);
        sparkline(t, 2, 16, w, t->ring_calls);
        fmt_bytes(b1, sizeof b1, ring_last(t, t->ring_bytes));
        snprintf(line, sizeof line, " max %-6" PRIu64 " %8s/s", ring_max(t, t->ring_calls, w), b1);
        put_clip(2, 16 + w, line, COLS - 16 - w);
        fmt_lat(b1, sizeof b1, ring_last(t, t->ring_lat), true);
        snprintf(line, sizeof line, "lat p99 %7s", b1);
        mvaddstr(3, 0, line);
        sparkline(t, 3, 16, w, t->ring_lat);
        fmt_lat(b2, sizeof b2, ring_max(t, t->ring_lat, w), true);
        /* timeline buckets grow past a second in long runs (timeline.h) */
        if (s->tl.interval_s > 1)
            snprintf(line, sizeof line, " max %-6s (p99 of %" PRIu32 "s buckets)", b2,
                     s->tl.interval_s);
        else
            snprintf(line, sizeof line, " max %-6s (p99/s)", b2);
        put_clip(3, 16 + w, line, COLS - 16 - w);
    }
}

static const char *const panel_names[TP__COUNT] = { "procedures", "clients", "servers", "files",
                                                    "findings" };
static const char *const ops_cols[OC__COUNT] = { "name", "calls", "calls/s", "errors", "p50",
                                                 "p90",  "p99",   "max",     "bytes" };
static const char *const bd_cols[BC__COUNT] = { "calls", "errors", "p50",  "p99",
                                                "latency", "bytes", "name" };

static void
draw_tabs(struct tui_state *t, int y)
{
    char b[TUI_FILTER_MAX * 4 + 64];
    int i, x = 0;

    move(y, 0);
    for (i = 0; i < TP__COUNT && x < COLS; i++) {
        snprintf(b, sizeof b, " %d %s ", i + 1, panel_names[i]);
        if (i == (int)t->panel)
            attron(A_REVERSE);
        put_clip(y, x, b, COLS - x);
        if (i == (int)t->panel)
            attroff(A_REVERSE);
        x += (int)strlen(b) + 1;
    }
    if (t->panel != TP_FINDINGS && x < COLS) {
        const char *col = t->panel == TP_OPS ? ops_cols[t->sort_col[TP_OPS]]
                                             : bd_cols[t->sort_col[t->panel]];
        snprintf(b, sizeof b, " sort: %s %s", col, t->sort_asc[t->panel] ? "(asc)" : "(desc)");
        put_clip(y, x, b, COLS - x);
        x = getcurx(stdscr);
        if (t->filter[t->panel][0]) {
            char e[TUI_FILTER_MAX * 4];
            snprintf(b, sizeof b, "  filter: \"%s\"",
                     esc(e, sizeof e, t->filter[t->panel]));
            attron(A_BOLD);
            put_clip(y, x, b, COLS - x);
            attroff(A_BOLD);
            x = getcurx(stdscr);
        }
        if (t->panel == TP_OPS && t->scope_on) {
            snprintf(b, sizeof b, "  %s: %s", bd_dim_name(t->scope_dim), t->scope_text);
            attron(A_BOLD);
            put_clip(y, x, b, COLS - x);
            attroff(A_BOLD);
            x = getcurx(stdscr);
        }
        if (t->hide_zero)
            put_clip(y, x, "  zero rows hidden", COLS - x);
    }
}

/* ---------------------------------------------------------------- procedures */

struct oprow {
    const struct prog_stats *ps;
    uint32_t proc;
    char name[48];
    uint64_t calls, rate, errors, bytes, p50, p90, p99, max;
    bool have_lat, have_max;
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
    return contains(label, t->scope_filter);
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

/* Sum the per-procedure counts of the scope's rows into acc[] (nflat + 1
 * entries: [nflat] holds what rows counted beyond their room), baselines
 * taken off. lat_max is 0 where not known since the reset (a maximum cannot
 * be subtracted): acc_max_known[k] says so. Returns the rows that matched. */
static size_t
scope_sum(struct tui_state *t, struct bd_proc *acc, bool *max_known)
{
    const struct bd_table *bt = &t->s->bd[t->scope_dim];
    const struct tui_bdbase *b = &t->bdbase[t->scope_dim];
    size_t k, f, matched = 0;

    memset(acc, 0, (t->nflat + 1) * sizeof *acc);
    for (f = 0; f <= t->nflat; f++)
        max_known[f] = true;
    if (!bt->procs)
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
        e = bd_procs_row(bt->procs, slot, gen, &n);
        if (t->have_base && b->procs && b->procs[slot].gen == gen)
            base = &b->procs[slot];
        for (i = 0; e && i < n; i++) {
            const struct bd_proc *be = base_entry(base, e[i].key);
            uint32_t pi = e[i].key >> 16, pr = e[i].key & 0xffffu;
            struct bd_proc *a;

            if (e[i].key == BD_PROCS_OTHER)
                f = t->nflat;
            else if (pi < t->s->nprogs && pr < t->s->progs[pi].pg->nprocs)
                f = t->proc_off[pi] + pr;
            else
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

static void
oprow_fill(struct tui_state *t, struct oprow *o, size_t pi, uint32_t p, struct histo *tmp)
{
    const struct prog_stats *ps = &t->s->progs[pi];
    const struct proc_stats *cur = &ps->procs[p];
    const struct proc_stats *base = t->have_base ? &t->base_procs[t->proc_off[pi] + p] : NULL;
    const struct histo *h = &cur->latency;

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
    if (base && base->latency.count) { /* since the reset: bucket-wise difference */
        unsigned i, lo = HISTO_BUCKETS, hi = 0;

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
        h = tmp;
    }
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

/* The rows shown: every NFS v3 procedure (nfsstat shows zeros too) and the
 * procedures of other programs that had calls; then the filter. */
static size_t
ops_rows(struct tui_state *t, struct oprow *rows, size_t cap, uint64_t *total)
{
    const struct stats *s = t->s;
    struct histo *tmp = malloc(sizeof *tmp);
    struct bd_proc *acc = NULL;
    bool *max_known = NULL;
    size_t i, n = 0;
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
        scope_sum(t, acc, max_known);
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
            if (!contains(o->name, t->filter[TP_OPS]))
                continue;
            n++;
        }
    }
    free(tmp);
    free(acc);
    free(max_known);
    ops_sort_col = t->sort_col[TP_OPS];
    ops_sort_asc = t->sort_asc[TP_OPS];
    qsort(rows, n, sizeof *rows, oprow_cmp);
    return n;
}

static int
draw_ops(struct tui_state *t, int y0, int height, bool draw)
{
    struct oprow *rows;
    uint64_t total;
    size_t n, i, cap = t->nflat + 1;
    char line[256], l50[16], l90[16], l99[16], lmax[16], by[16], rate[24];
    int y;

    rows = calloc(cap, sizeof *rows);
    if (!rows)
        return 0;
    n = ops_rows(t, rows, cap, &total);
    if (!draw) {
        free(rows);
        return (int)n;
    }
    /* For one client, server or file: no histogram per row and procedure
     * (bd_procs.h), so the mean stands in the p50 column and p90/p99 are
     * blank; no calls/s. */
    snprintf(line, sizeof line, "%-22s %10s %6s %8s %8s %8s %8s %8s %8s %9s", "procedure", "calls",
             "share", "calls/s", "errors", t->scope_on ? "mean" : "p50", t->scope_on ? "" : "p90",
             t->scope_on ? "" : "p99", "max", "bytes");
    attron(A_REVERSE);
    mvhline(y0, 0, ' ', COLS);
    put_clip(y0, 0, line, COLS);
    attroff(A_REVERSE);
    if (t->scroll[TP_OPS] > (int)n - 1)
        t->scroll[TP_OPS] = n ? (int)n - 1 : 0;
    for (i = (size_t)t->scroll[TP_OPS], y = y0 + 1; i < n && y < y0 + height; i++, y++) {
        const struct oprow *o = &rows[i];

        fmt_lat(l50, sizeof l50, o->p50, o->have_lat);
        fmt_lat(l90, sizeof l90, o->p90, o->have_lat);
        fmt_lat(l99, sizeof l99, o->p99, o->have_lat);
        fmt_lat(lmax, sizeof lmax, o->max, o->have_max);
        if (t->scope_on)
            l90[0] = l99[0] = '\0';
        if (o->bytes)
            fmt_bytes(by, sizeof by, o->bytes);
        else
            snprintf(by, sizeof by, "-");
        if (t->scope_on)
            snprintf(rate, sizeof rate, "-");
        else
            snprintf(rate, sizeof rate, "%" PRIu64, o->rate);
        snprintf(line, sizeof line,
                 "%-22s %10" PRIu64 " %5.1f%% %8s %8" PRIu64 " %8s %8s %8s %8s %9s",
                 o->name, o->calls, total ? 100.0 * (double)o->calls / (double)total : 0.0,
                 rate, o->errors, l50, l90, l99, lmax, by);
        if (o->errors)
            attron(A_BOLD);
        put_clip(y, 0, line, COLS);
        attroff(A_BOLD);
    }
    free(rows);
    return (int)n;
}

/* ---------------------------------------------------------------- breakdowns */

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
            if (!contains(label, t->filter[t->panel]))
                continue;
        }
        n++;
    }
    bd_sort_col = t->sort_col[t->panel];
    bd_sort_asc = t->sort_asc[t->panel];
    qsort(t->bdrows, n, sizeof *t->bdrows, bdrow_cmp);
    return n;
}

void
tui_scope(struct tui_state *t)
{
    enum bd_dim d;
    const struct bd_table *bt;
    char label[1024], e[TUI_FILTER_MAX * 4];
    size_t n;

    if (t->panel != TP_CLIENTS && t->panel != TP_SERVERS && t->panel != TP_FILES)
        return;
    d = panel_dim[t->panel];
    bt = &t->s->bd[d];
    if (!t->s->bd_on || !bt->procs) {
        snprintf(t->status, sizeof t->status,
                 "no per-procedure counts for %ss (breakdowns off, or no memory)", bd_dim_name(d));
        return;
    }
    if (t->filter[t->panel][0]) { /* the rows this panel's filter keeps */
        t->scope_exact = false;
        memcpy(t->scope_filter, t->filter[t->panel], sizeof t->scope_filter);
        snprintf(t->scope_text, sizeof t->scope_text, "\"%s\"",
                 esc(e, sizeof e, t->filter[t->panel]));
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
    t->panel = TP_OPS;
    t->scroll[TP_OPS] = 0;
    snprintf(t->status, sizeof t->status,
             "procedures of this %s only (\\ shows all again); latency: mean and max",
             bd_dim_name(d));
}

static int
draw_bd(struct tui_state *t, int y0, int height, bool draw)
{
    enum bd_dim d = panel_dim[t->panel];
    size_t n = bd_collect(t, d), i;
    uint64_t total = 0;
    char line[256], label[1024], e[4096], l50[16], l99[16], lt[16], by[16];
    int y;

    if (!draw)
        return (int)n;
    for (i = 0; i < n; i++)
        total += t->bdrows[i].calls;
    snprintf(line, sizeof line, "%10s %6s %8s %8s %8s %10s %9s  %s", "calls", "share", "errors",
             "p50", "p99", "latency", "bytes", bd_dim_name(d));
    attron(A_REVERSE);
    mvhline(y0, 0, ' ', COLS);
    put_clip(y0, 0, line, COLS);
    attroff(A_REVERSE);
    if (!t->s->bd_on) {
        put_clip(y0 + 1, 0, "(breakdowns are off)", COLS);
        return 0;
    }
    if (t->scroll[t->panel] > (int)n - 1)
        t->scroll[t->panel] = n ? (int)n - 1 : 0;
    for (i = (size_t)t->scroll[t->panel], y = y0 + 1; i < n && y < y0 + height; i++, y++) {
        const struct tui_bdrow *o = &t->bdrows[i];
        bool have = o->lat_count > 0;

        fmt_lat(l50, sizeof l50, o->p50, have);
        fmt_lat(l99, sizeof l99, o->p99, have);
        fmt_lat(lt, sizeof lt, o->lat_sum, o->lat_sum > 0);
        fmt_bytes(by, sizeof by, o->bytes);
        snprintf(line, sizeof line, "%10" PRIu64 " %5.1f%% %8" PRIu64 " %8s %8s %10s %9s  ",
                 o->calls, total ? 100.0 * (double)o->calls / (double)total : 0.0, o->errors,
                 l50, l99, lt, by);
        if (o->errors)
            attron(A_BOLD);
        put_clip(y, 0, line, COLS);
        attroff(A_BOLD);
        if (o->r == &t->s->bd[d].other)
            snprintf(label, sizeof label, "(other)");
        else
            stats_row_label(t->s, d, o->r, label, sizeof label);
        esc(e, sizeof e, label); /* from the wire: names, paths */
        put_clip(y, (int)strlen(line), e, COLS - (int)strlen(line));
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
        findings_text(f, s, fnd);
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
        put_clip(y0, 0, head, COLS);
        attroff(A_REVERSE);
        if (t->scroll[TP_FINDINGS] > n - 1)
            t->scroll[TP_FINDINGS] = n > 0 ? n - 1 : 0;
        for (i = t->scroll[TP_FINDINGS]; i < n && y0 + 1 + i - t->scroll[TP_FINDINGS] < y0 + height;
             i++)
            put_clip(y0 + 1 + i - t->scroll[TP_FINDINGS], 1, lines[i], COLS - 1);
    }
    free(buf);
    return n;
}

/* ---------------------------------------------------------------- help */

/* Text at (y, x) in lines of at most `cols` columns, broken at spaces;
 * returns the next free line. ASCII only (the help is ours). */
static int
put_wrapped(int y, int x, const char *text, int cols, int ymax)
{
    const char *p = text;

    if (cols < 8)
        cols = 8;
    while (*p && y < ymax) {
        int n = (int)strlen(p), cut = n;

        if (n > cols) {
            for (cut = cols; cut > 0 && p[cut] != ' '; cut--)
                ;
            if (cut == 0)
                cut = cols;
        }
        mvaddnstr(y++, x, p, cut);
        p += cut;
        while (*p == ' ')
            p++;
    }
    return y;
}

static void
draw_help(void)
{
    const struct tui_key *k;
    int y = 2;

    attron(A_BOLD);
    put_clip(0, 0, "nfsscope keys (any key closes this help)", COLS);
    attroff(A_BOLD);
    for (k = tui_keys; k->action != A_NONE && y < LINES - 1; k++) {
        if (!k->help)
            continue; /* an alias: its label is on the line of the key it follows */
        put_clip(y, 2, k->label, 10);
        y = put_wrapped(y, 14, k->help, COLS - 14, LINES - 1);
    }
    if (y < LINES - 1)
        put_wrapped(y + 1, 2,
                    "Columns: calls (first transmissions), share of calls, calls/s in the last"
                    " second, errors (status not OK or RPC-level), latency p50/p90/p99/max, bytes"
                    " (READ returned, WRITE sent). For one client, server or file (Enter) the"
                    " counts are kept per row and procedure without a histogram: latency is the"
                    " mean (in the p50 column) and the max. The latency sparkline is the p99 of"
                    " each second's replies.",
                    COLS - 2, LINES - 1);
}

/* ---------------------------------------------------------------- screen */

static int
panel_draw(struct tui_state *t, int y0, int height, bool draw)
{
    switch (t->panel) {
    case TP_OPS: return draw_ops(t, y0, height, draw);
    case TP_FINDINGS: return draw_findings(t, y0, height, draw);
    default: return draw_bd(t, y0, height, draw);
    }
}

int
tui_panel_rows(struct tui_state *t)
{
    return panel_draw(t, 0, 0, false);
}

void
tui_draw(struct tui_state *t)
{
    char b[256];

    erase(); /* curses sends only what changed: no flicker */
    if (t->help) {
        draw_help();
        return;
    }
    if (LINES < 8 || COLS < 40) {
        put_clip(0, 0, "nfsscope: terminal too small", COLS);
        return;
    }
    draw_header(t);
    draw_tabs(t, 4);
    panel_draw(t, 5, LINES - 6, true);
    /* bottom line: the prompt, a message, or the key hints */
    if (t->prompting) {
        snprintf(b, sizeof b, "filter %s: %s", panel_names[t->panel], t->prompt);
        attron(A_REVERSE);
        mvhline(LINES - 1, 0, ' ', COLS);
        put_clip(LINES - 1, 0, b, COLS);
        attroff(A_REVERSE);
        move(LINES - 1, (int)strlen(b) < COLS ? (int)strlen(b) : COLS - 1);
    } else if (t->status[0]) {
        put_clip(LINES - 1, 0, t->status, COLS);
    } else if (t->panel == TP_CLIENTS || t->panel == TP_SERVERS || t->panel == TP_FILES) {
        put_clip(LINES - 1, 0,
                 "h help  q quit  Tab panel  s/< sort  / filter  Enter their procedures"
                 "  r reset  p pause",
                 COLS);
    } else {
        put_clip(LINES - 1, 0,
                 "h help  q quit  Tab panel  s/< sort  i invert  / filter  z zeros  r reset"
                 "  p pause",
                 COLS);
    }
}
