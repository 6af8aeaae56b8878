/* SPDX-License-Identifier: BSD-3-Clause */
/* tui_keys.c: every key of the view, in one table. The loop looks actions up
 * here and the help screen is printed from it, so the two cannot disagree
 * (htop's Action_setBindings, as data). */
#include <curses.h>

#include "tui_int.h"

#define CTRL(c) ((c) & 0x1f)

const struct tui_key tui_keys[] = {
    { 'h', A_HELP, "h ?", "help (this screen); any key closes it" },
    { '?', A_HELP, NULL, NULL },
    { KEY_F(1), A_HELP, NULL, NULL },
    { 'q', A_QUIT, "q F10", "quit (the final report follows on standard output)" },
    { KEY_F(10), A_QUIT, NULL, NULL },
    { '\t', A_NEXT_PANEL, "Tab", "next panel" },
    { KEY_BTAB, A_PREV_PANEL, "S-Tab", "previous panel" },
    /* the digits: a panel each (tui_panels[]); the help names them */
    { '1', A_PANEL, NULL, NULL },
    { '2', A_PANEL, NULL, NULL },
    { '3', A_PANEL, NULL, NULL },
    { '4', A_PANEL, NULL, NULL },
    { '5', A_PANEL, NULL, NULL },
    { '6', A_PANEL, NULL, NULL },
    { '7', A_PANEL, NULL, NULL },
    { '8', A_PANEL, NULL, NULL },
    { '9', A_PANEL, NULL, NULL },
    { '>', A_SORT_NEXT, "> s", "sort by the next column" },
    { 's', A_SORT_NEXT, NULL, NULL },
    { KEY_F(6), A_SORT_NEXT, NULL, NULL },
    { '<', A_SORT_PREV, "<", "sort by the previous column" },
    { 'i', A_SORT_INVERT, "i", "invert the sort order" },
    { '/', A_FILTER, "/ F4", "filter this panel: procedure, client, server or file name contains" },
    { KEY_F(4), A_FILTER, NULL, NULL },
    { '\r', A_SCOPE, "Enter", "clients/servers/files: the procedure table for the rows this"
                               " panel's filter keeps, or else for the top row shown"
                               " (calls, errors, bytes, latency mean and max)" },
    { '\n', A_SCOPE, NULL, NULL },
    { KEY_ENTER, A_SCOPE, NULL, NULL },
    { '\\', A_CLEAR_FILTER, "\\", "clear this panel's filter (procedures: and the"
                                 " client/server/file)" },
    { 'z', A_HIDE_ZERO, "z", "show or hide rows with no calls (hidden at the start, unless"
                             " --all)" },
    { 'H', A_HISTO, "H", "procedures: the latency histogram of the top row shown (Up/Down"
                         " choose the row)" },
    { 'r', A_RESET, "r", "reset: every count shown (procedures, clients, servers, files,"
                         " findings, sparklines) from zero again; calls in flight still get"
                         " their replies; the final report keeps everything" },
    { 'p', A_PAUSE, "p Space", "pause (replay: stop the clock; live: freeze the screen)" },
    { ' ', A_PAUSE, NULL, NULL },
    { '+', A_FASTER, "+", "replay twice as fast" },
    { '-', A_SLOWER, "-", "replay half as fast" },
    { KEY_UP, A_UP, "Up k", "scroll up" },
    { 'k', A_UP, NULL, NULL },
    { KEY_DOWN, A_DOWN, "Down j", "scroll down" },
    { 'j', A_DOWN, NULL, NULL },
    { KEY_PPAGE, A_PGUP, "PgUp", "scroll a page up" },
    { KEY_NPAGE, A_PGDN, "PgDn", "scroll a page down" },
    { KEY_HOME, A_HOME, "Home", "to the top" },
    { KEY_END, A_END, "End", "to the bottom" },
    { CTRL('l'), A_REDRAW, "C-l", "redraw the screen" },
    { 0, A_NONE, NULL, NULL },
};

enum tui_action
tui_key_action(int key)
{
    const struct tui_key *k;

    for (k = tui_keys; k->action != A_NONE; k++)
        if (k->key == key)
            return k->action;
    return A_NONE;
}
