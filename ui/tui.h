/* SPDX-License-Identifier: BSD-3-Clause */
/* tui.h: the interactive ncurses view, like top for NFS.
 *
 * It owns the loop while it is up: live, it polls the capture descriptor and
 * the keyboard; with -r it replays the files at their own pace (--speed) or
 * as fast as possible. It reads `const struct stats *` for drawing, keeps its
 * own per-second samples and reset baselines, and never changes the
 * analysis. The terminal is restored on every way out: quit, end of a
 * signal-stopped run, exit(), fatal signals and sanitizer deaths. */
#ifndef NFSSCOPE_TUI_H
#define NFSSCOPE_TUI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "capture.h"
#include "config.h"
#include "pipeline.h"
#include "view.h"

/* Whether the view can run here (standard input and output are terminals);
 * if not, `err` says why, in words for the user. */
bool tui_usable(char *err, size_t errlen);

/* Run the view until the user quits or *stop is set (SIGINT, SIGTERM).
 * Sets *finished when it already called pipeline_finish() (the replay
 * reached the end). Returns 0; 1 with `err` set when the capture failed
 * (e.g. the interface went away) or the terminal could not be set up. */
int tui_run(struct capture *cap, struct nfsscope_ctx *ctx, const struct nfsscope_config *cfg,
            const struct view_info *vi, volatile sig_atomic_t *stop, int *finished, char *err,
            size_t errlen);

#endif
