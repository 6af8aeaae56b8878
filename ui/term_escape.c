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

static const char hexdig[] = "0123456789abcdef";

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
        char buf[8];
        size_t k;

        if (c == '\\') {
            buf[0] = '\\';
            buf[1] = '\\';
            k = 2;
            len = 1;
        } else if (len == 1 && c >= 0x20 && c < 0x7f) {
            buf[0] = (char)c;
            k = 1;
        } else if (len == 2 && c == 0xc2 && src[i + 1] < 0xa0) { /* C1 control */
            buf[0] = '\\';
            buf[1] = 'x';
            buf[2] = 'c';
            buf[3] = '2';
            buf[4] = '\\';
            buf[5] = 'x';
            buf[6] = hexdig[src[i + 1] >> 4];
            buf[7] = hexdig[src[i + 1] & 0xf];
            k = 8;
        } else if (len >= 2) {
            memcpy(buf, src + i, len);
            k = len;
        } else { /* C0 control, DEL, or a byte that starts no valid character */
            buf[0] = '\\';
            buf[1] = 'x';
            buf[2] = hexdig[c >> 4];
            buf[3] = hexdig[c & 0xf];
            k = 4;
            len = 1;
        }
        put(dst, dstsz, &used, &full, buf, k);
        need += k;
        i += len;
    }
    if (dstsz > 0)
        dst[used] = '\0';
    return need;
}
