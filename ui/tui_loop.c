/* SPDX-License-Identifier: BSD-3-Clause */
/* tui_loop.c: the view's loop. One thread, one poll():
 *
 *   live    poll(capture descriptor, stdin) until the next redraw is due;
 *           read what the kernel holds without blocking (pcap_dispatch on a
 *           non-blocking handle); kernel drops refreshed every second;
 *   replay  packets are fed when the replay clock (wall clock x --speed from
 *           the first packet) reaches their time, or in batches as fast as
 *           possible (--speed 0), with the keyboard read between batches.
 *
 * The screen is redrawn when something asked for it (a key, a resize), at
 * most four times a second while packets come, and once a second for the
 * clock; an idle view sleeps in poll(). */
#define NCURSES_WIDECHAR 1

#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "term_escape.h"
#include "tui.h"
#include "tui_int.h"

#define BATCH 4096 /* packets between looks at the keyboard */

static double
mono(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double
ts_d(const struct timespec *t)
{
    return (double)t->tv_sec + (double)t->tv_nsec / 1e9;
}

static struct timespec
ts_plus(const struct timespec *t, double s)
{
    struct timespec r = *t;
    long long ns;

    if (s < 0)
        s = 0;
    if (s > 1e9)
        s = 1e9;
    r.tv_sec += (time_t)s;
    ns = (long long)r.tv_nsec + (long long)((s - (double)(time_t)s) * 1e9);
    if (ns >= 1000000000) {
        r.tv_sec++;
        ns -= 1000000000;
    }
    r.tv_nsec = (long)ns;
    return r;
}

struct loop {
    struct tui_state t;
    struct capture *cap;
    struct nfsscope_ctx *ctx;
    const struct nfsscope_config *cfg;
    bool quit, dirty;
    /* replay clock: packet time = origin + (now - wall0) * speed */
    struct timespec origin;
    double wall0, pause_start;
};

static void
page_scroll(struct loop *l, int delta)
{
    struct tui_state *t = &l->t;
    int rows = tui_panel_rows(t), page = LINES - 7;

    if (page < 1)
        page = 1;
    if (delta == -2) /* End */
        t->scroll[t->panel] = rows - page;
    else if (delta == 2) /* Home */
        t->scroll[t->panel] = 0;
    else
        t->scroll[t->panel] += delta == 1 || delta == -1 ? delta : (delta > 0 ? page : -page);
    if (t->scroll[t->panel] > rows - page)
        t->scroll[t->panel] = rows - page;
    if (t->scroll[t->panel] < 0)
        t->scroll[t->panel] = 0;
}

static void
set_speed(struct loop *l, double speed)
{
    struct tui_state *t = &l->t;
    double now = mono();

    if (t->live || t->speed <= 0 || speed < 1.0 / 64 || speed > 1024)
        return;
    if (!t->paused) { /* re-anchor the clock where the replay is now */
        l->origin = ts_plus(&l->origin, (now - l->wall0) * t->speed);
        l->wall0 = now;
    }
    t->speed = speed;
    snprintf(t->status, sizeof t->status, "replay speed x%g", speed);
}

static void
on_prompt_key(struct loop *l, int ch)
{
    struct tui_state *t = &l->t;

    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        memcpy(t->filter[t->panel], t->prompt, sizeof t->prompt);
        t->scroll[t->panel] = 0;
        t->prompting = false;
        curs_set(0);
    } else if (ch == 27) { /* Esc */
        t->prompting = false;
        curs_set(0);
    } else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        if (t->prompt_len)
            t->prompt[--t->prompt_len] = '\0';
    } else if (ch >= 0x20 && ch < 0x7f && t->prompt_len + 1 < sizeof t->prompt) {
        t->prompt[t->prompt_len++] = (char)ch; /* printable ASCII only */
        t->prompt[t->prompt_len] = '\0';
    }
}

/* Now, as the view counts time: the wall clock live, packet time in a replay. */
static time_t
view_time(const struct loop *l)
{
    if (l->t.live || l->ctx->stats.cap.packets == 0)
        return time(NULL);
    if (l->t.speed > 0 && !l->t.paused && !l->t.ended) /* the replay clock */
        return ts_plus(&l->origin, (mono() - l->wall0) * l->t.speed).tv_sec;
    return l->ctx->now.tv_sec;
}

static void
on_key(struct loop *l, int ch)
{
    struct tui_state *t = &l->t;
    const struct tui_panel *p = tui_panels[t->panel];
    enum tui_action a;
    int ncols = 0, k;

    pipeline_settle(l->ctx); /* a panel's rows may be the findings' */
    while (p->sort_cols && p->sort_cols[ncols])
        ncols++;
    l->dirty = true;
    if (ch == KEY_RESIZE)
        return; /* curses has the new LINES and COLS; the redraw does the rest */
    if (t->help) {
        t->help = false;
        return;
    }
    if (t->prompting) {
        on_prompt_key(l, ch);
        return;
    }
    t->status[0] = '\0';
    a = tui_key_action(ch);
    if (p->key && p->key(t, p, a))
        return; /* the panel's own */
    switch (a) {
    case A_HELP: t->help = true; break;
    case A_QUIT: l->quit = true; break;
    case A_NEXT_PANEL: t->panel = (t->panel + 1) % tui_panel_count; break;
    case A_PREV_PANEL: t->panel = (t->panel + tui_panel_count - 1) % tui_panel_count; break;
    case A_PANEL:
        if ((size_t)(ch - '1') < tui_panel_count)
            t->panel = (size_t)(ch - '1');
        break;
    case A_SORT_NEXT:
    case A_SORT_PREV:
        for (k = 0; k < ncols; k++) { /* the next column shown */
            t->sort_col[t->panel] = (t->sort_col[t->panel] + (a == A_SORT_NEXT ? 1 : ncols - 1)) %
                                    ncols;
            if (!p->sort_name || p->sort_name(t, t->sort_col[t->panel]))
                break;
        }
        break;
    case A_SORT_INVERT: t->sort_asc[t->panel] = !t->sort_asc[t->panel]; break;
    case A_FILTER:
        if (!p->filter)
            break;
        t->prompting = true;
        memcpy(t->prompt, t->filter[t->panel], sizeof t->prompt);
        t->prompt_len = strlen(t->prompt);
        curs_set(1);
        break;
    case A_SCOPE: break; /* the breakdown panels' */
    case A_CLEAR_FILTER: t->filter[t->panel][0] = '\0'; break;
    case A_HIDE_ZERO: t->hide_zero = !t->hide_zero; break;
    case A_HISTO: t->histo = !t->histo; break;
    case A_RESET: tui_reset(t, view_time(l)); break;
    case A_PAUSE:
        t->paused = !t->paused;
        if (!t->live) {
            if (t->paused)
                l->pause_start = mono();
            else
                l->wall0 += mono() - l->pause_start;
        }
        break;
    case A_FASTER: set_speed(l, t->speed * 2); break;
    case A_SLOWER: set_speed(l, t->speed / 2); break;
    case A_UP: page_scroll(l, -1); break;
    case A_DOWN: page_scroll(l, 1); break;
    case A_PGUP: page_scroll(l, -3); break;
    case A_PGDN: page_scroll(l, 3); break;
    case A_HOME: page_scroll(l, 2); break;
    case A_END: page_scroll(l, -2); break;
    case A_REDRAW: clearok(curscr, TRUE); break;
    case A_NONE: break;
    }
}

/* The input is over (end of the files, -c or --duration). */
static void
input_ended(struct loop *l, int *finished)
{
    struct tui_state *t = &l->t;

    if (t->ended)
        return;
    t->ended = true;
    pipeline_finish(l->ctx); /* unanswered calls now count as such */
    if (!t->live && l->ctx->stats.cap.packets) /* the last, partial second */
        tui_sample(t, (int64_t)l->ctx->now.tv_sec + 1);
    *finished = 1;
    snprintf(t->status, sizeof t->status,
             "end of the capture: q quits and prints the report (h: keys)");
    l->dirty = true;
}

int
tui_run(struct capture *cap, struct nfsscope_ctx *ctx, const struct nfsscope_config *cfg,
        const struct view_info *vi, volatile sig_atomic_t *stop, int *finished, char *err,
        size_t errlen)
{
    struct loop l;
    struct tui_state *t = &l.t;
    bool live = capture_is_live(cap), data = false;
    int fd = live ? capture_selectable_fd(cap) : -1, rc = 0;
    double start, last_draw = 0, last_drops = 0;
    uint64_t fed = 0;
    char desc[512];

    memset(&l, 0, sizeof l);
    l.cap = cap;
    l.ctx = ctx;
    l.cfg = cfg;
    l.dirty = true;
    if (tui_state_init(t, &ctx->stats, cfg, vi, live) != 0) {
        tui_state_fini(t);
        snprintf(err, errlen, "out of memory for the view");
        return 1;
    }
    t->view_findings = &ctx->findings_view;
    if (tui_init(&t->utf8, err, errlen) != 0) {
        tui_state_fini(t);
        return 1;
    }
    if (live) {
        capture_describe(cap, desc, sizeof desc);
        term_escape(t->status, sizeof t->status, (const uint8_t *)desc, strlen(desc));
    } else if (!capture_next_ts(cap, ctx, &l.origin)) {
        input_ended(&l, finished);
    }
    start = l.wall0 = mono();

    while (!l.quit && !*stop) {
        double now = mono(), wait;
        struct pollfd pfd[2];
        int r = 0, nfd = 0, ch, max = BATCH;

        /* 1. packets */
        if (cfg->max_packets && cfg->max_packets - fed < (uint64_t)max)
            max = (int)(cfg->max_packets - fed);
        if (!t->ended && !(t->paused && !live)) {
            struct timespec next;
            if (live) {
                r = capture_poll(cap, ctx, max, NULL, err, errlen);
            } else if (t->speed <= 0) { /* fastest: a packet-time second at most, so the
                                         * per-second samples stay per second */
                bool more = capture_next_ts(cap, ctx, &next);
                if (more) /* what was fed so far is all from earlier seconds */
                    tui_sample(t, (int64_t)next.tv_sec);
                next.tv_nsec = 999999999;
                r = capture_poll(cap, ctx, max, more ? &next : NULL, err, errlen);
            } else {
                struct timespec until = ts_plus(&l.origin, (now - l.wall0) * t->speed);
                tui_sample(t, (int64_t)until.tv_sec); /* the seconds before the clock's */
                r = capture_poll(cap, ctx, max, &until, err, errlen);
            }
            if (r == CAPTURE_ERR) {
                rc = 1; /* e.g. the interface went away: leave, say why, report */
                break;
            }
            if (r == CAPTURE_EOF)
                input_ended(&l, finished);
            if (r > 0) {
                fed += (uint64_t)r;
                data = true;
            }
            if ((cfg->max_packets && fed >= cfg->max_packets) ||
                (cfg->duration_s > 0 && live && now - start >= cfg->duration_s) ||
                (cfg->duration_s > 0 && !live && ctx->stats.cap.packets &&
                 ts_d(&ctx->now) - ts_d(&ctx->stats.cap.first_ts) >= cfg->duration_s)) {
                if (live)
                    break; /* as without the view: the run is over, the report follows */
                input_ended(&l, finished);
            }
        }

        /* 2. clocks, samples, kernel drops */
        if (live) {
            struct timespec wall;
            clock_gettime(CLOCK_REALTIME, &wall);
            t->elapsed_s = now - start;
            tui_sample(t, (int64_t)wall.tv_sec);
            if (now - last_drops >= 1.0) {
                ctx->stats.cap.kernel_drops = capture_kernel_drops(cap);
                last_drops = now;
            }
        } else if (ctx->stats.cap.packets) { /* replay: sampled before feeding (step 1) */
            t->elapsed_s = ts_d(&ctx->now) - ts_d(&ctx->stats.cap.first_ts);
        }

        /* 3. the screen: on request, while data comes (4/s), every second */
        if (l.dirty || (!(t->paused && live) &&
                        ((data && now - last_draw >= 0.25) || now - last_draw >= 1.0))) {
            pipeline_settle(ctx); /* the findings thread caught up */
            tui_draw(t);
            refresh();
            last_draw = now;
            l.dirty = data = false;
        }

        /* 4. sleep until something happens or the next redraw is due */
        wait = 1.0 - (now - last_draw);
        if (data && 0.25 - (now - last_draw) < wait)
            wait = 0.25 - (now - last_draw);
        if (!live && !t->ended && !t->paused) {
            struct timespec next;
            if (t->speed <= 0 || r == max)
                wait = 0; /* fastest, or more is due right now */
            else if (capture_next_ts(cap, ctx, &next)) {
                double due = l.wall0 + (ts_d(&next) - ts_d(&l.origin)) / t->speed - now;
                if (due < wait)
                    wait = due;
            } else {
                wait = 0; /* the end: noticed on the next round */
            }
        }
        if (live && r == max)
            wait = 0;
        if (cfg->duration_s > 0 && live && start + cfg->duration_s - now < wait)
            wait = start + cfg->duration_s - now;
        if (wait < 0)
            wait = 0;
        pfd[nfd].fd = STDIN_FILENO;
        pfd[nfd++].events = POLLIN;
        if (live && fd >= 0 && !t->ended) {
            pfd[nfd].fd = fd;
            pfd[nfd++].events = POLLIN;
        }
        if (poll(pfd, (nfds_t)nfd, (int)(wait * 1000) + (wait > 0)) < 0 && errno != EINTR) {
            snprintf(err, errlen, "poll: %s", strerror(errno));
            rc = 1;
            break;
        }

        /* 5. keys (a resize arrives as KEY_RESIZE) */
        while ((ch = getch()) != ERR)
            on_key(&l, ch);
    }
    tui_done();
    tui_state_fini(t);
    return rc;
}
