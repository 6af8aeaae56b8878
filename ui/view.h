/* SPDX-License-Identifier: BSD-3-Clause */
/* view.h: how results leave the program. One interface, several views
 * (text, JSON, CSV reports; the ncurses view), each reading
 * `const struct stats *` and what view_info carries (ncdu's dir_output
 * split). */
#ifndef NFSSCOPE_VIEW_H
#define NFSSCOPE_VIEW_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "stats.h"

struct findings;
struct lockwait;
struct nfs4_state;

struct view_info {           /* what the report says about its input */
    const char *const *sources; /* file names or interface, NULL-terminated */
    const char *filter;         /* BPF expression or NULL */
    unsigned top_n;             /* rows per breakdown (0: the default, 10) */
    unsigned by_mask;           /* breakdowns in the text report: 1 << enum bd_dim */
    int order;                  /* enum bd_order of the top-N lists */
    int detail;                 /* text: -1 the short form (-q), 0 default, 1 -v */
    bool all;                   /* text and view: procedure rows without calls too (--all) */
    /* The analyses run beside the stats (pipeline.h); NULL: off. */
    const struct findings *findings; /* findings.h */
    const struct lockwait *lockwait; /* lockwait.h: NLM v4 lock waits */
    const struct nfs4_state *nfs4_state; /* nfs4_state.h: NFSv4 clients, sessions, stateids */
};

struct view_ops {
    const char *name; /* "text", "json", "csv" */
    /* Periodic output (live mode); may be NULL. */
    void (*tick)(FILE *out, const struct stats *s, const struct view_info *vi,
                 const struct timespec *now);
    /* Final report. Returns 0, or -1 if writing failed. */
    int (*report)(FILE *out, const struct stats *s, const struct view_info *vi);
};

extern const struct view_ops report_text_view;
extern const struct view_ops report_json_view;
extern const struct view_ops report_csv_view;

/* The view named `name`, or NULL. */
const struct view_ops *view_find(const char *name);

#endif
