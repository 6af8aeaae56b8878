/* SPDX-License-Identifier: BSD-3-Clause */
/* tui_int.h: state shared by the view's files (not for the rest of nfsscope).
 *
 *   tui.c         terminal setup and teardown, stderr parking, signals
 *   tui_loop.c    the loop: capture, replay clock, samples, keys, redraws
 *   tui_keys.c    the one key table (actions and help text)
 *   tui_draw.c    what every panel shares: header, sparklines, tabs, help
 *   tui_panels.c  the panels (procedures, clients, servers, files,
 *                 findings): one descriptor each, in one table */
#ifndef NFSSCOPE_TUI_INT_H
#define NFSSCOPE_TUI_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "bd_procs.h"
#include "breakdown.h"
#include "config.h"
#include "stats.h"
#include "view.h"

#define TUI_RING 256     /* per-second samples kept for the sparklines */
#define TUI_FILTER_MAX 64
#define TUI_PANELS_MAX 9 /* keys 1 to 9 */

enum tui_action {
    A_NONE,
    A_HELP,
    A_QUIT,
    A_NEXT_PANEL,
    A_PREV_PANEL,
    A_PANEL, /* the digit names the panel: 1 the first */
    A_SORT_NEXT,
    A_SORT_PREV,
    A_SORT_INVERT,
    A_FILTER,
    A_SCOPE,
    A_CLEAR_FILTER,
    A_HIDE_ZERO,
    A_RESET,
    A_PAUSE,
    A_FASTER,
    A_SLOWER,
    A_UP,
    A_DOWN,
    A_PGUP,
    A_PGDN,
    A_HOME,
    A_END,
    A_REDRAW,
    A_HISTO,
};

struct tui_key {
    int key;               /* a character or a KEY_* code */
    enum tui_action action;
    const char *label;     /* how the help screen names the key */
    const char *help;      /* NULL: an alias, shown on the line of the key before it */
};

extern const struct tui_key tui_keys[]; /* ends with { 0, A_NONE, NULL, NULL } */
enum tui_action tui_key_action(int key);

struct tui_state;

/* A panel of the view, as data (htop's Panel class): its tab, how it draws
 * and counts its rows, the columns it sorts by, the keys it reads itself and
 * its help. The panels are tui_panels[], in tab order: adding one is a
 * descriptor and its functions in tui_panels.c. */
struct tui_panel {
    const char *name;             /* the tab: "procedures" */
    const char *title;            /* the help's line for its digit: "procedures (nfsstat-style)" */
    const char *const *sort_cols; /* the columns it sorts by, NULL-terminated; NULL: none */
    int default_sort;             /* index into sort_cols */
    bool filter;                  /* '/' filters its rows by name */
    bool scoped;                  /* shows the scope (Enter on a breakdown panel) */
    enum bd_dim dim;              /* breakdown panels: their table */
    bool optional;                /* its tab shows only while it has rows or is the current
                                   * panel (NFSv4's, on a network without NFSv4) */
    /* Draw into rows [y0, y0 + height) of the screen. */
    void (*draw)(struct tui_state *t, const struct tui_panel *p, int y0, int height);
    /* Rows it has now, after filters (for scrolling). */
    int (*rows)(struct tui_state *t, const struct tui_panel *p);
    /* Its own reading of a key, before the view's: true if taken. NULL: none. */
    bool (*key)(struct tui_state *t, const struct tui_panel *p, enum tui_action a);
    /* What sort column `col` is called now, or NULL while it is not shown
     * (sorting skips it). NULL: sort_cols[col], always shown. */
    const char *(*sort_name)(const struct tui_state *t, int col);
    const char *hints; /* the bottom line's key hints */
    const char *help;  /* a paragraph for the help screen, or NULL */
};

extern const struct tui_panel *const tui_panels[];
extern const size_t tui_panel_count; /* at most TUI_PANELS_MAX */

/* tui.c: take the terminal (curses, stderr parked, restore hooks), give it
 * back. tui_done() is idempotent. */
int tui_init(bool *utf8, char *err, size_t errlen);
void tui_done(void);

/* One row of a breakdown panel, reset baseline already taken off. */
struct tui_bdrow {
    const struct bd_row *r;
    size_t slot; /* in the table; cap: the "other" row */
    uint64_t calls, errors, bytes, lat_sum, p50, p99, lat_count;
};

/* Baseline of one breakdown table (reset): per slot, what it held; entry
 * [cap] is the table's "other" row. */
struct tui_bdbase {
    uint32_t *gen;
    uint64_t *calls, *errors, *bytes, *lat_sum; /* cap + 1 entries each */
    struct histo_small *lat;                    /* cap + 1 */
    struct bd_procs_row *procs;                 /* cap + 1, when per-procedure counts are on */
    struct bd_procs_row *ops;                   /* cap + 1: the file table's NFSv4 operations */
    size_t cap;
};

struct tui_state {
    const struct stats *s;
    struct stats *ws;               /* the same, for the view's own tap only: the
                                     * per-procedure row counts */
    struct findings **view_findings; /* the pipeline's view findings (pipeline.h), fed
                                      * with fview; NULL: no findings since a reset */
    const struct nfsscope_config *cfg;
    const struct view_info *vi;
    bool live, utf8;
    /* what is shown */
    size_t panel; /* index into tui_panels[] */
    int sort_col[TUI_PANELS_MAX];
    bool sort_asc[TUI_PANELS_MAX];
    int scroll[TUI_PANELS_MAX];
    char filter[TUI_PANELS_MAX][TUI_FILTER_MAX];
    /* The procedure table for one client, server or file (Enter on its
     * panel): the rows whose label contains scope_text, or one row (by key,
     * or the "other" row). From the per-procedure row counts (bd_procs.h). */
    bool scope_on, scope_exact, scope_other;
    enum bd_dim scope_dim;
    uint8_t scope_key[BD_KEY_MAX];
    size_t scope_key_len;
    char scope_filter[TUI_FILTER_MAX];       /* substring (scope_exact false) */
    char scope_text[TUI_FILTER_MAX * 4 + 8]; /* escaped, for the screen */
    bool hide_zero, help, paused, ended;
    bool histo;                     /* the procedures panel shows the top row's latency
                                     * histogram */
    bool prompting;                 /* reading a filter on the bottom line */
    char prompt[TUI_FILTER_MAX];
    size_t prompt_len;
    char status[160];               /* a one-off message on the bottom line */
    double speed;                   /* replay */
    double elapsed_s;               /* shown in the header */
    /* per-second samples (ring), by view time: wall clock live, packet time in a replay */
    int64_t sample_sec;             /* second of the last sample, -1 before the first */
    uint64_t last_calls, last_bytes;
    int64_t p99_from;               /* first second the p99 may use (after a reset) */
    uint64_t ring_calls[TUI_RING], ring_bytes[TUI_RING], ring_lat[TUI_RING]; /* lat: p99 us */
    unsigned ring_n, ring_head;     /* samples held; index of the next one */
    /* per (program, procedure): flat index = proc_off[program] + proc */
    size_t *proc_off, nflat;
    uint64_t *prev_calls;           /* at the last sample */
    uint64_t *rate;                 /* calls in the last whole second */
    /* reset baselines (NULL before the first reset) */
    struct proc_stats *base_procs;  /* nflat entries */
    struct capture_totals base_cap;
    struct rpc_totals base_rpc;
    struct anomalies base_anom;
    bool have_base;
    time_t reset_at;                /* view time of the last reset */
    struct tui_bdbase bdbase[BD__COUNT];
    struct findings *fview;         /* findings since the reset (*view_findings) */
    /* scratch for drawing */
    struct tui_bdrow *bdrows;
    size_t bdrows_cap;
};

/* `s` gets the view's taps (per-procedure row counts; findings since a
 * reset); tui_state_fini() takes them off again. */
int tui_state_init(struct tui_state *t, struct stats *s, const struct nfsscope_config *cfg,
                   const struct view_info *vi, bool live);
void tui_state_fini(struct tui_state *t);
/* Take per-second samples up to second `sec` (view time). */
void tui_sample(struct tui_state *t, int64_t sec);
/* Counters start again from zero (a baseline taken off everything shown;
 * findings from a new engine; sparklines cleared). `now` is view time. */
void tui_reset(struct tui_state *t, time_t now);
/* Draw the whole screen (into curses' buffer; the caller refreshes). */
void tui_draw(struct tui_state *t);
/* Rows the current panel has (for scrolling), after filters. */
int tui_panel_rows(struct tui_state *t);

/* tui_draw.c, for the panels. A latency ("-" unless `have`) and a byte
 * count, as the columns show them. */
void tui_fmt_lat(char *b, size_t n, uint64_t us, bool have);
void tui_fmt_bytes(char *b, size_t n, uint64_t v);
/* Text at (y, x), at most `cols` columns; the rest of the text is dropped.
 * `str` is already escaped (printable ASCII and valid UTF-8 only). */
void tui_put_clip(int y, int x, const char *str, int cols);
/* Untrusted bytes escaped for the screen (term_escape), into dst. */
const char *tui_esc(char *dst, size_t dstsz, const char *src);
/* Whether `hay` contains `needle`, ASCII case ignored (the filters). */
bool tui_contains(const char *hay, const char *needle);
/* An escaped path or name in at most `cols` columns: when longer, its middle
 * gives way to "..", so its start and its last component (the file name)
 * stay; a last component longer than that keeps its end. */
const char *tui_shorten(char *dst, size_t dstsz, const char *src, int cols);

/* Colour, where the terminal has it and NO_COLOR (no-color.org) is unset
 * or empty; tui_color() is 0 (no attribute) otherwise. */
enum tui_colour { TC_HEAD = 1, TC_ERROR, TC_GRAPH, TC_TITLE };
void tui_colour_init(void);
int tui_color(enum tui_colour c);

#endif
