/* SPDX-License-Identifier: BSD-3-Clause */
/* json.c: streaming JSON writer (RFC 8259) with ncdu-grade string escaping. */
#include "json.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "term_escape.h"

/* Level 0 is the top level (at most one value); levels 1..depth are the
 * open containers. */

void
json_flush(struct json_w *w)
{
    if (w->len && fwrite(w->buf, 1, w->len, w->out) != w->len)
        w->failed = true;
    w->len = 0;
}

static void
wr(struct json_w *w, const char *s, size_t n)
{
    if (w->failed)
        return;
    if (n > sizeof w->buf - w->len) {
        json_flush(w);
        if (n > sizeof w->buf) {
            if (fwrite(s, 1, n, w->out) != n)
                w->failed = true;
            return;
        }
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

static void
wrs(struct json_w *w, const char *s)
{
    wr(w, s, strlen(s));
}

static void
newline_indent(struct json_w *w, unsigned level)
{
    static const char spaces[] = "                                ";
    unsigned k = level * 2;

    if (!w->pretty)
        return;
    wr(w, "\n", 1);
    while (k > 0) {
        unsigned c = k < sizeof spaces - 1 ? k : (unsigned)(sizeof spaces - 1);
        wr(w, spaces, c);
        k -= c;
    }
}

/* Called before every value: separators, and checks that a value is allowed. */
static bool
pre_value(struct json_w *w)
{
    if (w->failed)
        return false;
    if (w->want_val) {
        w->want_val = false;
        return true;
    }
    if (w->kind[w->depth] == '{') { /* a value where a member name is due */
        w->failed = true;
        return false;
    }
    if (w->depth == 0) {
        if (w->n[0] > 0) { /* a second top-level value */
            w->failed = true;
            return false;
        }
        w->n[0]++;
        return true;
    }
    if (w->n[w->depth] > 0)
        wr(w, ",", 1);
    newline_indent(w, w->depth);
    w->n[w->depth]++;
    return !w->failed;
}

void
json_begin(struct json_w *w, FILE *out, bool pretty)
{
    memset(w, 0, offsetof(struct json_w, buf)); /* the buffer needs no clearing */
    w->out = out;
    w->pretty = pretty;
}

int
json_end(struct json_w *w)
{
    if (w->depth != 0 || w->want_val || w->n[0] == 0)
        w->failed = true;
    wr(w, "\n", 1);
    json_flush(w);
    if (fflush(w->out) != 0 || ferror(w->out))
        w->failed = true;
    return w->failed ? -1 : 0;
}

static void
open_container(struct json_w *w, char kind)
{
    if (!pre_value(w))
        return;
    if (w->depth + 1 >= JSON_MAX_DEPTH) {
        w->failed = true;
        return;
    }
    wr(w, &kind, 1);
    w->depth++;
    w->kind[w->depth] = kind;
    w->n[w->depth] = 0;
}

void
json_obj(struct json_w *w)
{
    open_container(w, '{');
}

void
json_arr(struct json_w *w)
{
    open_container(w, '[');
}

void
json_close(struct json_w *w)
{
    if (w->failed)
        return;
    if (w->depth == 0 || w->want_val) {
        w->failed = true;
        return;
    }
    if (w->n[w->depth] > 0)
        newline_indent(w, w->depth - 1);
    wr(w, w->kind[w->depth] == '{' ? "}" : "]", 1);
    w->depth--;
}

static const char hexdig[] = "0123456789abcdef";

static void
write_string(struct json_w *w, const uint8_t *s, size_t n)
{
    size_t i = 0;

    wr(w, "\"", 1);
    while (i < n && !w->failed) {
        uint8_t c = s[i];
        size_t len, run = i;
        char esc[7] = { '\\', 'u', '0', '0', 0, 0, 0 };

        /* printable ASCII other than '"' and '\\' is copied as is: a run of
         * it in one write (keys and most names are nothing else) */
        while (run < n && s[run] >= 0x20 && s[run] < 0x7f && s[run] != '"' && s[run] != '\\')
            run++;
        if (run > i) {
            wr(w, (const char *)s + i, run - i);
            i = run;
            continue;
        }
        len = term_escape_utf8_len(s + i, n - i);

        if (term_escape_is_nul2(s + i, n - i)) { /* a NUL inside a name (names.h) */
            wrs(w, "\\u0000");
            i += 2;
            continue;
        }
        if (len == 0) { /* not part of a well-formed sequence */
            wrs(w, "\\ufffd");
            i++;
            continue;
        }
        if (len == 2 && c == 0xc2 && s[i + 1] < 0xa0) { /* C1 control */
            esc[4] = hexdig[s[i + 1] >> 4];
            esc[5] = hexdig[s[i + 1] & 0xf];
            wr(w, esc, 6);
        } else if (len == 3 && term_escape_is_bidi(s + i, 3)) { /* U+202A.., U+2066.. */
            unsigned cp = (s[i] & 0x0fu) << 12 | (s[i + 1] & 0x3fu) << 6 | (s[i + 2] & 0x3fu);
            char u[6] = { '\\', 'u', hexdig[cp >> 12], hexdig[(cp >> 8) & 0xf],
                          hexdig[(cp >> 4) & 0xf], hexdig[cp & 0xf] };

            wr(w, u, 6);
        } else if (len > 1) {
            wr(w, (const char *)s + i, len);
        } else if (c == '"') {
            wr(w, "\\\"", 2);
        } else if (c == '\\') {
            wr(w, "\\\\", 2);
        } else if (c == '\n') {
            wr(w, "\\n", 2);
        } else if (c == '\r') {
            wr(w, "\\r", 2);
        } else if (c == '\t') {
            wr(w, "\\t", 2);
        } else if (c == '\b') {
            wr(w, "\\b", 2);
        } else if (c == '\f') {
            wr(w, "\\f", 2);
        } else if (c < 0x20 || c == 0x7f) {
            esc[4] = hexdig[c >> 4];
            esc[5] = hexdig[c & 0xf];
            wr(w, esc, 6);
        } else {
            wr(w, (const char *)s + i, 1);
        }
        i += len;
    }
    wr(w, "\"", 1);
}

void
json_key(struct json_w *w, const char *key)
{
    if (w->failed)
        return;
    if (w->depth == 0 || w->kind[w->depth] != '{' || w->want_val || !key) {
        w->failed = true;
        return;
    }
    if (w->n[w->depth] > 0)
        wr(w, ",", 1);
    newline_indent(w, w->depth);
    w->n[w->depth]++;
    write_string(w, (const uint8_t *)key, strlen(key));
    wrs(w, w->pretty ? ": " : ":");
    w->want_val = true;
}

void
json_str(struct json_w *w, const char *s)
{
    if (!s) {
        json_null(w);
        return;
    }
    if (pre_value(w))
        write_string(w, (const uint8_t *)s, strlen(s));
}

void
json_strn(struct json_w *w, const uint8_t *s, size_t n)
{
    if (pre_value(w))
        write_string(w, n ? s : (const uint8_t *)"", n);
}

/* Decimal digits of v, right-aligned in buf (>= 21 bytes); returns the start. */
static char *
fmt_u64(char *end, uint64_t v)
{
    *--end = '\0';
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

void
json_u64(struct json_w *w, uint64_t v)
{
    char buf[24];

    if (pre_value(w))
        wrs(w, fmt_u64(buf + sizeof buf, v));
}

static uint64_t
magnitude(int64_t v)
{
    return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

void
json_i64(struct json_w *w, int64_t v)
{
    char buf[24];

    if (!pre_value(w))
        return;
    if (v < 0)
        wr(w, "-", 1);
    wrs(w, fmt_u64(buf + sizeof buf, magnitude(v)));
}

void
json_decimal(struct json_w *w, int64_t units, unsigned scale)
{
    char buf[24], frac[24];
    uint64_t mag = magnitude(units), p = 1;
    unsigned i;

    if (scale > 18) {
        w->failed = true;
        return;
    }
    if (!pre_value(w))
        return;
    for (i = 0; i < scale; i++)
        p *= 10;
    if (units < 0)
        wr(w, "-", 1);
    wrs(w, fmt_u64(buf + sizeof buf, mag / p));
    if (scale == 0)
        return;
    /* fraction, zero-padded to exactly `scale` digits */
    {
        uint64_t f = mag % p;

        frac[scale + 1] = '\0';
        for (i = scale; i > 0; i--) {
            frac[i] = (char)('0' + f % 10);
            f /= 10;
        }
        frac[0] = '.';
        wr(w, frac, scale + 1);
    }
}

void
json_fixed(struct json_w *w, double v, unsigned decimals)
{
    double scaled;
    unsigned i;

    if (decimals > 9) {
        w->failed = true;
        return;
    }
    scaled = v;
    for (i = 0; i < decimals; i++)
        scaled *= 10;
    if (!isfinite(scaled) || fabs(scaled) >= 9.2e18) {
        json_null(w);
        return;
    }
    json_decimal(w, llround(scaled), decimals);
}

void
json_double(struct json_w *w, double v)
{
    char buf[40], out[40];
    size_t i, o = 0;
    int prec;
    bool in_point = false;

    if (!isfinite(v)) {
        json_null(w);
        return;
    }
    if (!pre_value(w))
        return;
    /* shortest precision that reads back exactly (snprintf and strtod share
     * the locale, so the round trip check is valid in any locale) */
    for (prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    /* normalise the locale's decimal point (possibly multi-byte) to '.' */
    for (i = 0; buf[i] && o < sizeof out - 1; i++) {
        char c = buf[i];

        if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'e') {
            out[o++] = c;
            in_point = false;
        } else if (!in_point) {
            out[o++] = '.';
            in_point = true;
        }
    }
    out[o] = '\0';
    wrs(w, out);
}

void
json_null(struct json_w *w)
{
    if (pre_value(w))
        wr(w, "null", 4);
}

void
json_bool(struct json_w *w, bool v)
{
    if (pre_value(w))
        wrs(w, v ? "true" : "false");
}

void
json_kv_u64(struct json_w *w, const char *key, uint64_t v)
{
    json_key(w, key);
    json_u64(w, v);
}

void
json_kv_str(struct json_w *w, const char *key, const char *s)
{
    json_key(w, key);
    json_str(w, s);
}
