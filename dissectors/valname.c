/* SPDX-License-Identifier: BSD-3-Clause */
/* valname.c: value-to-name lookup; see valname.h. */
#include "valname.h"

#include <stddef.h>

const char *
valname(const struct valname *tbl, uint32_t v)
{
    for (; tbl->name; tbl++) /* tables are short (at most ~100): a scan */
        if (tbl->v == v)
            return tbl->name;
    return NULL;
}
