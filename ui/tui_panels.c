/* tui_panels.c: what the view shows, drawn from `const struct stats *` and
 * the view's own samples and baselines: the header, two sparklines, the
 * nfsstat-style procedure table, the client/server/file panels, findings and
 * the help screen generated from the key table.
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
#include <wchar.h>

#include "anomaly.h"
#include "report_findings.h"
#include "term_escape.h"
#include "tui_int.h"

/* ---------------------------------------------------------------- state */

static int
bdbase_alloc(struct tui_bdbase *b, size_t cap)
{
    b->cap = cap;
    b->gen = calloc(cap ? cap : 1, sizeof *b->gen);
    b->calls = calloc(cap ? cap : 1, sizeof *b->calls);
    b->errors = calloc(cap ? cap : 1, sizeof *b->errors);
    b->bytes = calloc(cap ? cap : 1, sizeof *b->bytes);
    b->lat_sum = calloc(cap ? cap : 1, sizeof *b->lat_sum);
    return b->gen && b->calls && b->errors && b->bytes && b->lat_sum ? 0 : -1;
}

static void
bdbase_free(struct tui_bdbase *b)
{
    free(b->gen);
    free(b->calls);
    free(b->errors);
    free(b->bytes);
    free(b->lat_sum);
    memset(b, 0, sizeof *b);
}

int
tui_state_init(struct tui_state *t, const struct stats *s, const struct nfsscope_config *cfg,
               const struct view_info *vi, bool live)
{
    size_t i, n = 0;

    memset(t, 0, sizeof *t);
    t->s = s;
    t->cfg = cfg;
    t->vi = vi;
    t->live = live;
    t->speed = cfg->speed;
    t->sample_sec = -1;
    t->sort_col[TP_OPS] = OC_CALLS;
    t->sort_col[TP_CLIENTS] = t->sort_col[TP_SERVERS] = t->sort_col[TP_FILES] = BC_CALLS;
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

    free(t->proc_off);
    free(t->prev_calls);
    free(t->rate);
    free(t->base_procs);
    for (d = 0; d < BD__COUNT; d++)
        bdbase_free(&t->bdbase[d]);
    free(t->bdrows);
    memset(t, 0, sizeof *t);
}

/* Totals over every program: calls, latency sum and count. */
static void
totals(const struct stats *s, uint64_t *calls, uint64_t *lat_sum, uint64_t *lat_count)
{
    size_t i;
    uint32_t p;

    *calls = *lat_sum = *lat_count = 0;
    for (i = 0; i < s->nprogs; i++) {
        const struct prog_stats *ps = &s->progs[i];
        *calls += ps->calls;
        for (p = 0; p < ps->pg->nprocs; p++) {
            *lat_sum += ps->procs[p].latency.sum;
            *lat_count += ps->procs[p].latency.count;
        }
    }
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
    uint64_t calls, lat_sum, lat_count, gap;
    size_t i;
    uint32_t p;

    if (t->sample_sec < 0) { /* the first second: counted from zero (last_* are 0) */
        t->sample_sec = sec;
        return;
    }
    if (sec <= t->sample_sec)
        return;
    /* What happened since the last sample is put in the latest second; the
     * seconds between (nothing seen) are zeros. */
    gap = (uint64_t)(sec - t->sample_sec);
    for (; gap > 1 && gap <= TUI_RING; gap--)
        ring_push(t, 0, 0, 0);
    totals(s, &calls, &lat_sum, &lat_count);
    ring_push(t, calls - t->last_calls, s->cap.bytes - t->last_bytes,
              lat_count > t->last_lat_count
                  ? (lat_sum - t->last_lat_sum) / (lat_count - t->last_lat_count)
                  : 0);
    t->last_calls = calls;
    t->last_bytes = s->cap.bytes;
    t->last_lat_sum = lat_sum;
    t->last_lat_count = lat_count;
    for (i = 0; i < s->nprogs; i++)
        for (p = 0; p < s->progs[i].pg->nprocs; p++) {
            size_t k = t->proc_off[i] + p;
            uint64_t c = s->progs[i].procs[p].calls;
            t->rate[k] = sec - t->sample_sec == 1 ? c - t->prev_calls[k] : 0;
            t->prev_calls[k] = c;
        }
    t->sample_sec = sec;
}

static const enum bd_dim panel_dim[TP__COUNT] = {
    [TP_CLIENTS] = BD_CLIENT, [TP_SERVERS] = BD_SERVER, [TP_FILES] = BD_FILE,
};

void
tui_reset(struct tui_state *t)
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
        for (d = 0; d < BD__COUNT; d++) {
            const struct bd_table *bt = &s->bd[d];
            struct tui_bdbase *b = &t->bdbase[d];
            size_t k;

            if (d != BD_CLIENT && d != BD_SERVER && d != BD_FILE)
                continue;
            if (!b->gen && bdbase_alloc(b, bt->cap) != 0) {
                bdbase_free(b);
                continue;
            }
            for (k = 0; k < bt->count && k < b->cap; k++) {
                const struct bd_row *r = &bt->rows[k];
                b->gen[k] = r->gen;
                b->calls[k] = r->calls;
                b->errors[k] = r->errors;
                b->bytes[k] = r->read_bytes + r->write_bytes;
                b->lat_sum[k] = r->latency.sum;
            }
        }
    }
    t->have_base = true;
    snprintf(t->status, sizeof t->status, "counters reset (the final report still counts all)");
}

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
                 s->cap.kernel_drops);
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
    if (s->cap.kernel_drops > 0)
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
    if (s->cap.kernel_drops > 0)
        nq += snprintf(line + strlen(line), sizeof line - strlen(line), "%" PRId64 " kernel drops, ",
                       s->cap.kernel_drops) > 0;
    if (s->cap.truncated_packets)
        nq += snprintf(line + strlen(line), sizeof line - strlen(line),
                       "%" PRIu64 " cut by snaplen, ", s->cap.truncated_packets) > 0;
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
        snprintf(line, sizeof line, "latency %7s", b1);
        mvaddstr(3, 0, line);
        sparkline(t, 3, 16, w, t->ring_lat);
        fmt_lat(b2, sizeof b2, ring_max(t, t->ring_lat, w), true);
        snprintf(line, sizeof line, " max %-6s (mean/s)", b2);
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
    char b[TUI_FILTER_MAX * 4 + 32];
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
    bool have_lat;
};

static void
oprow_fill(struct tui_state *t, struct oprow *o, size_t pi, uint32_t p, struct histo *tmp)
{
    const struct prog_stats *ps = &t->s->progs[pi];
    const struct proc_stats *cur = &ps->procs[p];
    const struct proc_stats *base = t->have_base ? &t->base_procs[t->proc_off[pi] + p] : NULL;
    const struct histo *h = &cur->latency;

    o->ps = ps;
    o->proc = p;
    if (ps->pg->proc_names && ps->pg->proc_names[p])
        snprintf(o->name, sizeof o->name, "%s %s", ps->pg->name, ps->pg->proc_names[p]);
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
    o->have_lat = h->count > 0;
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
    size_t i, n = 0;
    uint32_t p;

    *total = 0;
    if (!tmp)
        return 0;
    for (i = 0; i < s->nprogs; i++) {
        const struct prog_stats *ps = &s->progs[i];
        bool main_prog = ps->pg->prog == 100003 && ps->pg->vers == 3;

        for (p = 0; p < ps->pg->nprocs && n < cap; p++) {
            struct oprow *o = &rows[n];

            if (!main_prog && ps->procs[p].calls == 0 && ps->procs[p].replies == 0)
                continue;
            oprow_fill(t, o, i, p, tmp);
            *total += o->calls;
            if (t->hide_zero && o->calls == 0)
                continue;
            if (!contains(o->name, t->filter[TP_OPS]))
                continue;
            n++;
        }
    }
    free(tmp);
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
    size_t n, i, cap = t->nflat ? t->nflat : 1;
    char line[256], l50[16], l90[16], l99[16], lmax[16], by[16];
    int y;

    rows = calloc(cap, sizeof *rows);
    if (!rows)
        return 0;
    n = ops_rows(t, rows, cap, &total);
    if (!draw) {
        free(rows);
        return (int)n;
    }
    snprintf(line, sizeof line, "%-22s %10s %6s %8s %8s %8s %8s %8s %8s %9s", "procedure", "calls",
             "share", "calls/s", "errors", "p50", "p90", "p99", "max", "bytes");
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
        fmt_lat(lmax, sizeof lmax, o->max, o->have_lat);
        if (o->bytes)
            fmt_bytes(by, sizeof by, o->bytes);
        else
            snprintf(by, sizeof by, "-");
        snprintf(line, sizeof line,
                 "%-22s %10" PRIu64 " %5.1f%% %8" PRIu64 " %8" PRIu64 " %8s %8s %8s %8s %9s",
                 o->name, o->calls, total ? 100.0 * (double)o->calls / (double)total : 0.0,
                 o->rate, o->errors, l50, l90, l99, lmax, by);
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
    case BC_P50:
        x = histo_small_percentile(&a->r->latency, 50);
        y = histo_small_percentile(&b->r->latency, 50);
        break;
    case BC_P99:
        x = histo_small_percentile(&a->r->latency, 99);
        y = histo_small_percentile(&b->r->latency, 99);
        break;
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

static size_t
bd_collect(struct tui_state *t, enum bd_dim d)
{
    const struct stats *s = t->s;
    const struct bd_table *bt = &s->bd[d];
    const struct tui_bdbase *b = &t->bdbase[d];
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
        const struct bd_row *r = k < bt->count ? &bt->rows[k] : &bt->other;
        struct tui_bdrow *o = &t->bdrows[n];
        /* a slot given to another key since the reset (or new) counts whole */
        bool based = t->have_base && b->gen && k < bt->count && k < b->cap && b->gen[k] == r->gen;

        if (k == bt->count && r->calls == 0)
            continue; /* no "other" row until something was evicted */
        if (k < bt->count && !r->used)
            continue;
        o->r = r;
        o->calls = r->calls - (based ? b->calls[k] : 0);
        o->errors = r->errors - (based ? b->errors[k] : 0);
        o->bytes = r->read_bytes + r->write_bytes - (based ? b->bytes[k] : 0);
        o->lat_sum = r->latency.sum - (based ? b->lat_sum[k] : 0);
        if (t->hide_zero && o->calls == 0)
            continue;
        if (t->filter[t->panel][0]) {
            if (k == bt->count)
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
        bool have = o->r->latency.count > 0;

        fmt_lat(l50, sizeof l50, histo_small_percentile(&o->r->latency, 50), have);
        fmt_lat(l99, sizeof l99, histo_small_percentile(&o->r->latency, 99), have);
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
 * issue 5, through ui/report_findings.c's text, which escapes wire strings),
 * then what the RPC totals say. Lines are pointers into `buf` (freed by the
 * caller). */
#define FINDINGS_MAX_LINES 512

static int
findings_lines(struct tui_state *t, char **buf, const char *lines[], int max)
{
    static char extra[6][256];
    const struct stats *s = t->s;
    size_t len = 0;
    FILE *f;
    int n = 0, k = 0, i;
    char *p;

    *buf = NULL;
    if (s->findings && (f = open_memstream(buf, &len)) != NULL) {
        findings_text(f, s);
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
    if (!s->findings) {
        const struct prog_stats *ps = stats_prog_by_name(s, "nfs3");
        uint64_t st = ps ? ps->write.stable[1] + ps->write.stable[2] : 0;
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
    char *buf;
    int n = findings_lines(t, &buf, lines, FINDINGS_MAX_LINES), i;

    if (draw) {
        attron(A_REVERSE);
        mvhline(y0, 0, ' ', COLS);
        put_clip(y0, 0, "findings (since the start; r does not reset them)", COLS);
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
        put_clip(y, 14, k->help, COLS - 14);
        y++;
    }
    if (y < LINES - 1)
        put_clip(y + 1, 2,
                 "Columns: calls (first transmissions), share of calls, calls/s in the last"
                 " second, errors (status not OK or RPC-level), latency p50/p90/p99/max, bytes"
                 " (READ returned, WRITE sent).",
                 COLS - 2);
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
    } else {
        put_clip(LINES - 1, 0,
                 "h help  q quit  Tab panel  s/< sort  i invert  / filter  z zeros  r reset"
                 "  p pause",
                 COLS);
    }
}
