/* SPDX-License-Identifier: BSD-3-Clause */
/* term_escape.c: terminal-safe rendering of untrusted bytes (UTF-8, RFC 3629). */
#include "term_escape.h"

#include <string.h>

size_t
term_escape_utf8_len(const uint8_t *s, size_t n)
{
    uint8_t c, lo = 0x80, hi = 0xbf;
    size_t len, i;

    if (n == 0)
        return 0;
    c = s[0];
    if (c < 0x80)
        return 1;
    if (c < 0xc2) /* continuation byte, or overlong 2-byte lead C0/C1 */
        return 0;
    if (c < 0xe0) {
        len = 2;
    } else if (c < 0xf0) {
        len = 3;
        if (c == 0xe0)
            lo = 0xa0; /* overlong */
        else if (c == 0xed)
            hi = 0x9f; /* UTF-16 surrogates D800..DFFF */
    } else if (c < 0xf5) {
        len = 4;
        if (c == 0xf0)
            lo = 0x90; /* overlong */
        else if (c == 0xf4)
            hi = 0x8f; /* above U+10FFFF */
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return len;
}

bool
term_escape_is_bidi(const uint8_t *s, size_t n)
{
    /* U+202A..U+202E: E2 80 AA..AE; U+2066..U+2069: E2 81 A6..A9 */
    return n >= 3 && s[0] == 0xe2 &&
           ((s[1] == 0x80 && s[2] >= 0xaa && s[2] <= 0xae) ||
            (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9));
}

bool
term_escape_is_nul2(const uint8_t *s, size_t n)
{
    return n >= 2 && s[0] == 0xc0 && s[1] == 0x80;
}

static const char hexdig[] = "0123456789abcdef";

/* "\xNN" for each of the k bytes at s, into buf. */
static size_t
hex_escape(char *buf, const uint8_t *s, size_t k)
{
    size_t i;

    for (i = 0; i < k; i++) {
        buf[4 * i] = '\\';
        buf[4 * i + 1] = 'x';
        buf[4 * i + 2] = hexdig[s[i] >> 4];
        buf[4 * i + 3] = hexdig[s[i] & 0xf];
    }
    return 4 * k;
}

/* Append piece (k bytes) if it fits whole, leaving room for the NUL. Once a
 * piece does not fit, nothing later is written (`full` is sticky), so the
 * output is always a prefix made of whole pieces. */
static void
put(char *dst, size_t dstsz, size_t *used, int *full, const char *piece, size_t k)
{
    if (!*full && dstsz > 0 && *used + k < dstsz) {
        memcpy(dst + *used, piece, k);
        *used += k;
    } else {
        *full = 1;
    }
}

size_t
term_escape(char *dst, size_t dstsz, const uint8_t *src, size_t n)
{
    size_t i = 0, need = 0, used = 0;
    int full = 0;

    while (i < n) {
        uint8_t c = src[i];
        size_t len = term_escape_utf8_len(src + i, n - i);
        char buf[16];
        size_t k;

        if (c == '\\') {
            buf[0] = '\\';
            buf[1] = '\\';
            k = 2;
            len = 1;
        } else if (len == 1 && c >= 0x20 && c < 0x7f) {
            buf[0] = (char)c;
            k = 1;
        } else if (term_escape_is_nul2(src + i, n - i)) {
            k = hex_escape(buf, (const uint8_t *)"", 1);
            len = 2;
        } else if ((len == 2 && c == 0xc2 && src[i + 1] < 0xa0) || /* C1 control */
                   (len == 3 && term_escape_is_bidi(src + i, 3))) {
            k = hex_escape(buf, src + i, len);
        } else if (len >= 2) {
            memcpy(buf, src + i, len);
            k = len;
        } else { /* C0 control, DEL, or a byte that starts no valid character */
            len = 1;
            k = hex_escape(buf, src + i, 1);
        }
        put(dst, dstsz, &used, &full, buf, k);
        need += k;
        i += len;
    }
    if (dstsz > 0)
        dst[used] = '\0';
    return need;
}
