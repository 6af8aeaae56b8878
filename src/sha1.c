/* SPDX-License-Identifier: BSD-3-Clause */
/* sha1.c: SHA-1 as FIPS 180-4 specifies it (§5.1.1 padding, §6.1.2 the
 * computation), 64-byte blocks, big-endian words. */
#include "sha1.h"

#include <string.h>

static uint32_t
rol(uint32_t x, unsigned n)
{
    return x << n | x >> (32 - n);
}

/* §6.1.2: one 512-bit block into the hash value. */
static void
block(uint32_t h[5], const uint8_t *p)
{
    uint32_t w[80], a, b, c, d, e;
    unsigned t;

    for (t = 0; t < 16; t++)
        w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
               (uint32_t)p[4 * t + 2] << 8 | p[4 * t + 3];
    for (t = 16; t < 80; t++)
        w[t] = rol(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (t = 0; t < 80; t++) {
        uint32_t f, k, tmp;

        if (t < 20) { /* §4.1.1: Ch, Parity, Maj, Parity */
            f = (b & c) | (~b & d);
            k = 0x5a827999;
        } else if (t < 40) {
            f = b ^ c ^ d;
            k = 0x6ed9eba1;
        } else if (t < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8f1bbcdc;
        } else {
            f = b ^ c ^ d;
            k = 0xca62c1d6;
        }
        tmp = rol(a, 5) + f + e + k + w[t];
        e = d;
        d = c;
        c = rol(b, 30);
        b = a;
        a = tmp;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

void
sha1_init(struct sha1 *c)
{
    static const uint32_t h0[5] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476,
                                    0xc3d2e1f0 }; /* §5.3.1 */

    memcpy(c->h, h0, sizeof h0);
    c->len = 0;
    c->nbuf = 0;
}

void
sha1_update(struct sha1 *c, const void *data, size_t n)
{
    const uint8_t *p = data;

    c->len += n;
    while (n) {
        size_t k = sizeof c->buf - c->nbuf;

        if (k > n)
            k = n;
        memcpy(c->buf + c->nbuf, p, k);
        c->nbuf += k;
        p += k;
        n -= k;
        if (c->nbuf == sizeof c->buf) {
            block(c->h, c->buf);
            c->nbuf = 0;
        }
    }
}

void
sha1_final(struct sha1 *c, uint8_t out[SHA1_DIGEST_LEN])
{
    uint64_t bits = c->len * 8;
    uint8_t pad[72] = { 0x80 };
    size_t npad = (c->nbuf < 56 ? 56 : 120) - c->nbuf; /* §5.1.1: to 448 mod 512 */
    unsigned i;

    for (i = 0; i < 8; i++)
        pad[npad + i] = (uint8_t)(bits >> (56 - 8 * i));
    sha1_update(c, pad, npad + 8);
    for (i = 0; i < 5; i++) {
        out[4 * i] = (uint8_t)(c->h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
        out[4 * i + 3] = (uint8_t)c->h[i];
    }
}
