/* SPDX-License-Identifier: BSD-3-Clause */
/* view.c: the table of views selectable with -o. */
#include "view.h"

#include <stddef.h>
#include <string.h>

static const struct view_ops *const views[] = {
    &report_text_view,
    &report_json_view,
    &report_csv_view,
    NULL,
};

const struct view_ops *
view_find(const char *name)
{
    size_t i;

    if (!name)
        return NULL;
    for (i = 0; views[i]; i++)
        if (strcmp(views[i]->name, name) == 0)
            return views[i];
    return NULL;
}
