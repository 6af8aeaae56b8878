/* SPDX-License-Identifier: BSD-3-Clause */
/* tui_panels_test.c: the view's panel table is well formed: every panel
 * named, drawn, counted and hinted; sort columns NULL-terminated with the
 * default among them; names unique; no more panels than digit keys; and the
 * key table gives each digit a panel. No terminal needed: nothing is drawn. */
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
    return t_done();
}
