/* SPDX-License-Identifier: BSD-3-Clause */
/* sha1.h: SHA-1 (FIPS 180-4 §6.1), for the Community ID flow hash of
 * --records only: not for anything that needs collision resistance. */
#ifndef NFSSCOPE_SHA1_H
#define NFSSCOPE_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define SHA1_DIGEST_LEN 20

struct sha1 {
    uint32_t h[5];
    uint64_t len;     /* bytes hashed so far */
    uint8_t buf[64];  /* the block being filled */
    size_t nbuf;
};

void sha1_init(struct sha1 *c);
void sha1_update(struct sha1 *c, const void *data, size_t n);
void sha1_final(struct sha1 *c, uint8_t out[SHA1_DIGEST_LEN]);

#endif
