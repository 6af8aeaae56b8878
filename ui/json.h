/* SPDX-License-Identifier: BSD-3-Clause */
/* json.h: a small streaming JSON writer (RFC 8259), no library.
 *
 * The caller emits values in order; the writer inserts commas, colons and,
 * in pretty mode, newlines plus 2-space indentation. Compact mode writes one
 * line with no spaces (JSON Lines). Neither mode writes a trailing newline:
 * json_end() adds one.
 *
 *     struct json_w w;
 *     json_begin(&w, stdout, true);
 *     json_obj(&w);
 *     json_key(&w, "calls"); json_u64(&w, 12);
 *     json_key(&w, "p50");   json_null(&w);
 *     json_close(&w);
 *     if (json_end(&w) < 0) ...   // write error or unbalanced nesting
 *
 * Strings (keys and values) are escaped as ncdu's exporter does, plus:
 *   - '"' and '\' as \" and \\; \b \f \n \r \t by name; other C0 controls,
 *     DEL (0x7f) and the C1 controls U+0080..U+009F as \u00XX (lower-case
 *     hex), so the output is also safe to cat to a terminal;
 *   - well-formed UTF-8 (see term_escape_utf8_len) is copied as is;
 *   - each byte that is not part of a well-formed UTF-8 sequence is replaced
 *     by \ufffd (U+FFFD REPLACEMENT CHARACTER). The output is always valid
 *     JSON and valid UTF-8; the invalid bytes themselves are lost (use
 *     json_strn on a hex rendering if they matter).
 *
 * Numbers never depend on the locale: integers are printed by hand and
 * doubles are normalised to '.' as the decimal point.
 *
 * Errors are sticky: misuse (a value where a key is needed, closing what is
 * not open, nesting deeper than JSON_MAX_DEPTH) or a write error marks the
 * writer failed; later calls do nothing and json_end() returns -1. */
#ifndef NFSSCOPE_JSON_H
#define NFSSCOPE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

#define JSON_BUF 4096

struct json_w {
    FILE *out;     /* borrowed; not closed */
    size_t len;    /* bytes in buf, not yet written to out */
    bool pretty;   /* 2-space indented, one member per line */
    bool failed;   /* sticky error */
    bool want_val; /* a key was written, its value is due */
    unsigned depth;
    char kind[JSON_MAX_DEPTH]; /* '{' or '[' per open level */
    unsigned n[JSON_MAX_DEPTH]; /* members written per open level */
    /* What is written goes to out a buffer at a time: a report is some
     * 10,000 tokens, a stdio call each would cost more than making them. */
    char buf[JSON_BUF];
};

void json_begin(struct json_w *w, FILE *out, bool pretty);
/* Finish: checks that everything opened was closed, writes a newline and
 * flushes. 0, or -1 on misuse or a write error (ferror(out)). */
int json_end(struct json_w *w);
/* What is buffered, written to out (not flushed): before writing to out
 * otherwise, as after each line of JSON Lines. */
void json_flush(struct json_w *w);

void json_obj(struct json_w *w);   /* { */
void json_arr(struct json_w *w);   /* [ */
void json_close(struct json_w *w); /* } or ], whichever is innermost */

/* Object member name (NUL-terminated; escaped like any string). */
void json_key(struct json_w *w, const char *key);

void json_str(struct json_w *w, const char *s);                /* NULL -> null */
void json_strn(struct json_w *w, const uint8_t *s, size_t n);  /* raw bytes, may hold NULs */
void json_u64(struct json_w *w, uint64_t v);
void json_i64(struct json_w *w, int64_t v);
/* A finite double in shortest round-trip form ("%.17g"-based); null if NaN
 * or infinite. */
void json_double(struct json_w *w, double v);
/* A double rounded to `decimals` (0..9) fraction digits, e.g. 12.5; null if
 * not finite or if |v| * 10^decimals does not fit in an int64. */
void json_fixed(struct json_w *w, double v, unsigned decimals);
/* The exact decimal units / 10^scale with exactly `scale` (0..18) fraction
 * digits: json_decimal(w, 1700000000123456789, 9) -> 1700000000.123456789.
 * Exact (no floating point): use it for timestamps. */
void json_decimal(struct json_w *w, int64_t units, unsigned scale);
void json_null(struct json_w *w);
void json_bool(struct json_w *w, bool v);

/* Convenience: key + value. */
void json_kv_u64(struct json_w *w, const char *key, uint64_t v);
void json_kv_str(struct json_w *w, const char *key, const char *s);

#endif
