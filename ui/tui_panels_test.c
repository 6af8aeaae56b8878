/* SPDX-License-Identifier: BSD-3-Clause */
/* tui_panels_test.c: the view's panel table is well formed: every panel
 * named, drawn, counted and hinted; sort columns NULL-terminated with the
 * default among them; names unique; no more panels than digit keys; and the
 * key table gives each digit a panel; paths shortened from the middle keep
 * their start and file name (tui_shorten). No terminal needed: nothing is
 * drawn. */
#include <string.h>

#include "t.h"
#include "tui_int.h"

int
main(void)
{
    size_t i, j;
    int d;

    CHECK(tui_panel_count >= 1 && tui_panel_count <= TUI_PANELS_MAX);
    for (i = 0; i < tui_panel_count; i++) {
        const struct tui_panel *p = tui_panels[i];
        int n = 0;

        CHECK(p && p->name && p->name[0] && p->title && p->title[0]);
        CHECK(p->draw && p->rows && p->hints && p->hints[0]);
        if (p->sort_cols) {
            while (p->sort_cols[n])
                n++;
            CHECK(n > 0 && p->default_sort >= 0 && p->default_sort < n);
        } else {
            EQ(p->default_sort, 0);
        }
        for (j = 0; j < i; j++)
            CHECK(strcmp(tui_panels[j]->name, p->name) != 0);
    }
    /* the tabs as the README shows them */
    STREQ(tui_panels[0]->name, "procedures");
    STREQ(tui_panels[0]->sort_cols[tui_panels[0]->default_sort], "calls");
    for (d = '1'; d <= '9'; d++)
        EQ(tui_key_action(d), A_PANEL);
    EQ(tui_key_action('0'), A_NONE);

    {
        char b[256];

        STREQ(tui_shorten(b, sizeof b, "/short/path.txt", 20), "/short/path.txt");
        /* 20 columns: 8 of the start, "..", the 10 of "/file4.dat" */
        STREQ(tui_shorten(b, sizeof b, "/var/tmp/nfsscope-samples/export/file4.dat", 20),
              "/var/tmp../file4.dat");
        EQ(strlen(b), 20);
        /* a name longer than the room: its end stays */
        STREQ(tui_shorten(b, sizeof b, "/d/a-very-long-file-name.dat", 12), "..e-name.dat");
        /* UTF-8: columns, not bytes (\u00e9 is one column, two bytes) */
        STREQ(tui_shorten(b, sizeof b, "/\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9/x.c", 9),
              "/\u00e9\u00e9../x.c");
        STREQ(tui_shorten(b, sizeof b, "abc", 2), "abc"); /* too narrow to shorten */
    }
    return t_done();
}
