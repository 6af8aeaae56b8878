/* SPDX-License-Identifier: BSD-3-Clause */
/* community_id.c: Community ID v1 (see community_id.h). The spec's hash
 * input, all in network byte order:
 *
 *   seed (2) . saddr (4 or 16) . daddr (4 or 16) . proto (1) . 0 (1)
 *   . sport (2) . dport (2)
 *
 * with the endpoints ordered so that the smaller address comes first, or,
 * when the addresses are equal, the smaller port. The result is "1:" and the
 * SHA-1 digest in base64 (RFC 4648 §4, with padding). */
#include "community_id.h"

#include <string.h>

#include "sha1.h"

static void
base64(char *out, const uint8_t *p, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t i;

    for (i = 0; i + 2 < n; i += 3) {
        *out++ = tab[p[i] >> 2];
        *out++ = tab[(p[i] & 3) << 4 | p[i + 1] >> 4];
        *out++ = tab[(p[i + 1] & 15) << 2 | p[i + 2] >> 6];
        *out++ = tab[p[i + 2] & 63];
    }
    if (n - i == 1) {
        *out++ = tab[p[i] >> 2];
        *out++ = tab[(p[i] & 3) << 4];
        *out++ = '=';
        *out++ = '=';
    } else if (n - i == 2) {
        *out++ = tab[p[i] >> 2];
        *out++ = tab[(p[i] & 3) << 4 | p[i + 1] >> 4];
        *out++ = tab[(p[i + 1] & 15) << 2];
        *out++ = '=';
    }
    *out = '\0';
}

void
community_id_v1(const struct flow_key *k, uint16_t seed, char out[COMMUNITY_ID_LEN])
{
    size_t alen = k->af == FLOW_AF_INET6 ? 16 : 4;
    const uint8_t *a = k->saddr, *b = k->daddr;
    uint16_t pa = k->sport, pb = k->dport;
    int c = memcmp(a, b, alen);
    uint8_t in[2 + 16 + 16 + 2 + 4], *q = in, digest[SHA1_DIGEST_LEN];
    struct sha1 h;

    if (c > 0 || (c == 0 && pa > pb)) { /* the smaller endpoint first */
        a = k->daddr;
        b = k->saddr;
        pa = k->dport;
        pb = k->sport;
    }
    *q++ = (uint8_t)(seed >> 8);
    *q++ = (uint8_t)seed;
    memcpy(q, a, alen);
    q += alen;
    memcpy(q, b, alen);
    q += alen;
    *q++ = k->proto;
    *q++ = 0;
    *q++ = (uint8_t)(pa >> 8);
    *q++ = (uint8_t)pa;
    *q++ = (uint8_t)(pb >> 8);
    *q++ = (uint8_t)pb;
    sha1_init(&h);
    sha1_update(&h, in, (size_t)(q - in));
    sha1_final(&h, digest);
    out[0] = '1';
    out[1] = ':';
    base64(out + 2, digest, sizeof digest);
}
