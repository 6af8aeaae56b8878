/* SPDX-License-Identifier: BSD-3-Clause */
/* csv_field.c: RFC 4180 §2 quoting, and formula neutralising for strings
 * from the wire. */
#include "csv_field.h"

#include <string.h>

static bool
formula_start(char c)
{
    return c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r';
}

size_t
csv_field(char *dst, size_t cap, const char *s, bool wire)
{
    size_t n = strlen(s), o = 0;
    bool quote = n > 0 && (s[0] == ' ' || s[n - 1] == ' ');
    bool apos = wire && n > 0 && formula_start(s[0]);
    const char *p;

    if (cap == 0)
        return 0;
    if (!quote && strpbrk(s, ",\"\r\n"))
        quote = true;
    /* Reserve room for the closing quote and the NUL. */
    if (cap < 3 + (quote ? 2u : 0u)) {
        dst[0] = '\0';
        return 0;
    }
    if (quote)
        dst[o++] = '"';
    if (apos)
        dst[o++] = '\'';
    for (p = s; *p; p++) {
        size_t need = (*p == '"' && quote) ? 2 : 1;

        if (o + need + (quote ? 1 : 0) + 1 > cap)
            break;
        if (need == 2)
            dst[o++] = '"';
        dst[o++] = *p;
    }
    if (quote)
        dst[o++] = '"';
    dst[o] = '\0';
    return o;
}
