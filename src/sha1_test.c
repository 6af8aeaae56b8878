/* SPDX-License-Identifier: BSD-3-Clause */
/* sha1_test.c: the FIPS 180-4 examples (NIST's "SHA1.pdf" example values:
 * "abc", the 448-bit message, a million 'a'), the empty message, and the
 * same digests when the input arrives in pieces across block boundaries. */
#include "sha1.h"

#include <stdio.h>
#include <string.h>

#include "t.h"

static void
hex(char *out, const uint8_t d[SHA1_DIGEST_LEN])
{
    unsigned i;

    for (i = 0; i < SHA1_DIGEST_LEN; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void
digest_of(const void *p, size_t n, size_t piece, char out[41])
{
    struct sha1 c;
    uint8_t d[SHA1_DIGEST_LEN];
    size_t i;

    sha1_init(&c);
    for (i = 0; i < n; i += piece)
        sha1_update(&c, (const char *)p + i, n - i < piece ? n - i : piece);
    sha1_final(&c, d);
    hex(out, d);
}

int
main(void)
{
    static char million[1000000];
    static const char m448[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    char out[41];
    size_t piece;

    digest_of("", 0, 1, out);
    STREQ(out, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    digest_of("abc", 3, 3, out);
    STREQ(out, "a9993e364706816aba3e25717850c26c9cd0d89d");
    for (piece = 1; piece <= 64; piece++) { /* 56 bytes: the padding takes a second block */
        digest_of(m448, strlen(m448), piece, out);
        STREQ(out, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
    }
    memset(million, 'a', sizeof million);
    digest_of(million, sizeof million, sizeof million, out);
    STREQ(out, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
    digest_of(million, sizeof million, 997, out);
    STREQ(out, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
    /* 55, 56 and 64 bytes: the edges of the one-block padding */
    digest_of(million, 55, 55, out);
    STREQ(out, "c1c8bbdc22796e28c0e15163d20899b65621d65a");
    digest_of(million, 56, 56, out);
    STREQ(out, "c2db330f6083854c99d4b5bfb6e8f29f201be699");
    digest_of(million, 64, 64, out);
    STREQ(out, "0098ba824b5c16427bd7a1122a5a442a25ec644d");
    return t_done();
}
