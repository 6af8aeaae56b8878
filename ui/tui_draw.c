/* SPDX-License-Identifier: BSD-3-Clause */
/* tui_draw.c: the parts of the screen every panel shares, drawn from
 * `const struct stats *` and the view's own samples and baselines
 * (tui_state.c): the header, two sparklines, the panel tabs, the bottom
 * line, and the help screen generated from the key table and the panels'
 * own help; plus the formats and the clipped, escaped text output the
 * panels (tui_panels.c) draw with.
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
#include "term_escape.h"
#include "tui_int.h"

/* ---------------------------------------------------------------- formats */

void
tui_fmt_lat(char *b, size_t n, uint64_t us, bool have)
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

void
tui_fmt_bytes(char *b, size_t n, uint64_t v)
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

void
tui_put_clip(int y, int x, const char *str, int cols)
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

static bool colour_on;

void
tui_colour_init(void)
{
    const char *nc = getenv("NO_COLOR");

    colour_on = false;
    if ((nc && *nc) || !has_colors() || start_color() == ERR)
        return;
    use_default_colors();
    init_pair(TC_HEAD, COLOR_CYAN, -1);
    init_pair(TC_ERROR, COLOR_RED, -1);
    init_pair(TC_GRAPH, COLOR_GREEN, -1);
    init_pair(TC_TITLE, COLOR_YELLOW, -1);
    colour_on = true;
}

int
tui_color(enum tui_colour c)
{
    return colour_on ? (int)COLOR_PAIR(c) : 0;
}

/* Columns of the valid UTF-8 string s (escaped text), and the byte offset
 * where the last `cols` columns start (*tail). */
static int
text_cols(const char *s, int cols, size_t *tail)
{
    size_t i, n = strlen(s), starts[4096];
    int w = 0;

    for (i = 0; i < n && w < 4096; i++)
        if (((unsigned char)s[i] & 0xc0) != 0x80)
            starts[w++] = i; /* one column per character: the escaped text's */
    if (tail)
        *tail = cols <= 0 ? n : w > cols ? starts[w - cols] : 0;
    return w;
}

const char *
tui_shorten(char *dst, size_t dstsz, const char *src, int cols)
{
    const char *name = strrchr(src, '/');
    size_t tail, head;
    int w = text_cols(src, cols, NULL), nw;

    if (w <= cols || cols < 5) {
        snprintf(dst, dstsz, "%s", src);
        return dst;
    }
    name = name && name[1] ? name : src;
    nw = text_cols(name, 0, NULL);
    if (nw + 2 > cols) { /* the name alone is too long: keep its end */
        text_cols(src, cols - 2, &tail);
        snprintf(dst, dstsz, "..%s", src + tail);
        return dst;
    }
    text_cols(src, w - (cols - 2 - nw), &head); /* the first cols - 2 - nw columns */
    snprintf(dst, dstsz, "%.*s..%s", (int)head, src, name);
    return dst;
}

const char *
tui_esc(char *dst, size_t dstsz, const char *src)
{
    term_escape(dst, dstsz, (const uint8_t *)src, strlen(src));
    return dst;
}

bool
tui_contains(const char *hay, const char *needle)
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
        tui_esc(e, sizeof e, t->vi->sources[0]);
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
    tui_put_clip(0, 9, line, w > 12 ? w : 12);
    x = getcurx(stdscr);
    if (drops(t) > 0)
        attron(A_BOLD); /* drops: the numbers above are missing something */
    tui_put_clip(0, x, right, COLS - x);
    attroff(A_BOLD);
    x = getcurx(stdscr);
    if (t->paused || t->ended) {
        attron(A_REVERSE);
        tui_put_clip(0, x + 2, t->paused ? " PAUSED " : " END OF CAPTURE ", COLS - x - 2);
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
    /* what the capture cannot see into: RPCSEC_GSS privacy (krb5p) bodies,
     * RPC-over-TLS connections */
    if (s->rpc.gss.data[2] > (t->have_base ? t->base_rpc.gss.data[2] : 0))
        nq += snprintf(line + strlen(line), sizeof line - strlen(line),
                       "%" PRIu64 " encrypted calls (krb5p), ",
                       s->rpc.gss.data[2] - (t->have_base ? t->base_rpc.gss.data[2] : 0)) > 0;
    if (s->tls.connections) {
        tui_fmt_bytes(b1, sizeof b1, s->tls.bytes);
        nq += snprintf(line + strlen(line), sizeof line - strlen(line),
                       "%" PRIu64 " TLS connections (%s encrypted), ", s->tls.connections,
                       b1) > 0;
    }
    if (nq) {
        line[strlen(line) - 2] = '\0';
        attron(A_BOLD);
        tui_put_clip(1, x, line, COLS - x);
        attroff(A_BOLD);
    } else {
        tui_put_clip(1, x, "ok (no drops, no gaps, nothing malformed)", COLS - x);
    }

    /* sparklines: one column per second, newest on the right */
    w = COLS - 42;
    if (w > TUI_RING)
        w = TUI_RING;
    if (w >= 8) {
        snprintf(line, sizeof line, "calls/s %7" PRIu64, ring_last(t, t->ring_calls));
        mvaddstr(2, 0, line);
        sparkline(t, 2, 16, w, t->ring_calls);
        tui_fmt_bytes(b1, sizeof b1, ring_last(t, t->ring_bytes));
        snprintf(line, sizeof line, " max %-6" PRIu64 " %8s/s", ring_max(t, t->ring_calls, w), b1);
        tui_put_clip(2, 16 + w, line, COLS - 16 - w);
        tui_fmt_lat(b1, sizeof b1, ring_last(t, t->ring_lat), true);
        snprintf(line, sizeof line, "lat p99 %7s", b1);
        mvaddstr(3, 0, line);
        sparkline(t, 3, 16, w, t->ring_lat);
        tui_fmt_lat(b2, sizeof b2, ring_max(t, t->ring_lat, w), true);
        /* timeline buckets grow past a second in long runs (timeline.h) */
        if (s->tl.interval_s > 1)
            snprintf(line, sizeof line, " max %-6s (p99 of %" PRIu32 "s buckets)", b2,
                     s->tl.interval_s);
        else
            snprintf(line, sizeof line, " max %-6s (p99/s)", b2);
        tui_put_clip(3, 16 + w, line, COLS - 16 - w);
    }
}

/* ---------------------------------------------------------------- tabs */

/* Whether panel i has a tab now (an optional one only with rows, or current). */
static bool
tab_shown(struct tui_state *t, size_t i)
{
    return !tui_panels[i]->optional || i == t->panel || tui_panels[i]->rows(t, tui_panels[i]) != 0;
}

/* One tab per panel, then how the panel is sorted and filtered. When that
 * would not fit, the other tabs show their digits only, so that the sort,
 * filter and scope (which file the table is for) stay on the screen. */
static void
draw_tabs(struct tui_state *t, int y)
{
    const struct tui_panel *p = tui_panels[t->panel];
    char b[TUI_FILTER_MAX * 4 + 64], sort[64] = "", filt[TUI_FILTER_MAX * 4 + 16] = "";
    char scope[sizeof t->scope_text + 32] = "";
    size_t i, want = 0;
    bool compact;
    int x = 0;

    if (p->sort_cols) {
        int col = t->sort_col[t->panel];
        const char *name = p->sort_name ? p->sort_name(t, col) : p->sort_cols[col];

        if (!name) /* not shown now: the table sorts by calls */
            name = p->sort_name(t, 1);
        snprintf(sort, sizeof sort, " sort: %s %s", name ? name : p->sort_cols[col],
                 t->sort_asc[t->panel] ? "(asc)" : "(desc)");
        if (t->filter[t->panel][0]) {
            char e[TUI_FILTER_MAX * 4];
            snprintf(filt, sizeof filt, "  filter: \"%s\"",
                     tui_esc(e, sizeof e, t->filter[t->panel]));
        }
        if (p->scoped && t->scope_on)
            snprintf(scope, sizeof scope, "  %s: %s", bd_dim_name(t->scope_dim), t->scope_text);
    }
    for (i = 0; i < tui_panel_count; i++)
        if (tab_shown(t, i))
            want += (size_t)snprintf(b, sizeof b, COLS < 100 ? "%zu %s" : " %zu %s ", i + 1,
                                     tui_panels[i]->name) + 1;
    compact = want + strlen(sort) + strlen(filt) + strlen(scope) > (size_t)COLS;
    move(y, 0);
    for (i = 0; i < tui_panel_count && x < COLS; i++) {
        if (!tab_shown(t, i))
            continue;
        /* narrow: no padding, so that the sort and filter fit beside the tabs */
        if (compact && i != t->panel)
            snprintf(b, sizeof b, "%zu", i + 1);
        else
            snprintf(b, sizeof b, COLS < 100 ? "%zu %s" : " %zu %s ", i + 1,
                     tui_panels[i]->name);
        if (i == t->panel)
            attron(A_REVERSE);
        tui_put_clip(y, x, b, COLS - x);
        if (i == t->panel)
            attroff(A_REVERSE);
        x += (int)strlen(b) + 1;
    }
    if (p->sort_cols && x < COLS) {
        tui_put_clip(y, x, sort, COLS - x);
        x += (int)strlen(sort); /* not getcurx(): at the last column the cursor is on the next line */
        attron(A_BOLD);
        if (filt[0] && x < COLS)
            tui_put_clip(y, x, filt, COLS - x);
        x += (int)strlen(filt);
        if (scope[0] && x < COLS)
            tui_put_clip(y, x, scope, COLS - x);
        x += (int)strlen(scope);
        attroff(A_BOLD);
        if (t->hide_zero && x < COLS)
            tui_put_clip(y, x, "  zero rows hidden", COLS - x);
    }
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

/* The keys (tui_keys.c; the digits name the panels), then each panel's
 * own help. */
static void
draw_help(void)
{
    const struct tui_key *k;
    char label[24], help[96];
    size_t i;
    int y = 2;

    attron(A_BOLD);
    tui_put_clip(0, 0, "nfsscope keys (any key closes this help)", COLS);
    attroff(A_BOLD);
    for (k = tui_keys; k->action != A_NONE && y < LINES - 1; k++) {
        if (k->action == A_PANEL) {
            if (k->key != '1')
                continue;
            for (i = 0; i < tui_panel_count && y < LINES - 1; i++) {
                snprintf(label, sizeof label, "%zu", i + 1);
                snprintf(help, sizeof help, "panel: %s", tui_panels[i]->title);
                tui_put_clip(y, 2, label, 10);
                y = put_wrapped(y, 14, help, COLS - 14, LINES - 1);
            }
            continue;
        }
        if (!k->help)
            continue; /* an alias: its label is on the line of the key it follows */
        tui_put_clip(y, 2, k->label, 10);
        y = put_wrapped(y, 14, k->help, COLS - 14, LINES - 1);
    }
    for (i = 0; i < tui_panel_count && y < LINES - 1; i++)
        if (tui_panels[i]->help)
            y = put_wrapped(y + 1, 2, tui_panels[i]->help, COLS - 2, LINES - 1);
}

/* ---------------------------------------------------------------- screen */

int
tui_panel_rows(struct tui_state *t)
{
    return tui_panels[t->panel]->rows(t, tui_panels[t->panel]);
}

void
tui_draw(struct tui_state *t)
{
    const struct tui_panel *p = tui_panels[t->panel];
    char b[256];

    erase(); /* curses sends only what changed: no flicker */
    if (t->help) {
        draw_help();
        return;
    }
    if (LINES < 8 || COLS < 40) {
        tui_put_clip(0, 0, "nfsscope: terminal too small", COLS);
        return;
    }
    draw_header(t);
    draw_tabs(t, 4);
    p->draw(t, p, 5, LINES - 6);
    /* bottom line: the prompt, a message, or the panel's key hints */
    if (t->prompting) {
        snprintf(b, sizeof b, "filter %s: %s", p->name, t->prompt);
        attron(A_REVERSE);
        mvhline(LINES - 1, 0, ' ', COLS);
        tui_put_clip(LINES - 1, 0, b, COLS);
        attroff(A_REVERSE);
        move(LINES - 1, (int)strlen(b) < COLS ? (int)strlen(b) : COLS - 1);
    } else if (t->status[0]) {
        tui_put_clip(LINES - 1, 0, t->status, COLS);
    } else {
        tui_put_clip(LINES - 1, 0, p->hints, COLS);
    }
}
