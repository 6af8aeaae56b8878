/* SPDX-License-Identifier: BSD-3-Clause */
/* bytes.h: borrowed byte slices and the decode result shared by every stage. */
#ifndef NFSSCOPE_BYTES_H
#define NFSSCOPE_BYTES_H

#include <stddef.h>
#include <stdint.h>

/* A non-owning view of captured bytes. `len` counts bytes actually captured,
 * never the length claimed on the wire. Valid only for the duration of the
 * call that received it unless the producer says otherwise. */
struct bytes {
    const uint8_t *p;
    size_t len;
};

enum decode_rc {
    DECODE_OK = 0,
    DECODE_TRUNCATED,   /* the captured bytes ended inside a field */
    DECODE_INVALID,     /* a value is impossible (bad length, bad discriminant) */
    DECODE_UNSUPPORTED, /* well-formed but not something we decode */
    DECODE_PENDING,     /* held for later (an IP fragment waiting for the rest) */
};

#endif
