/* SPDX-License-Identifier: BSD-3-Clause */
/* rd.h: a bounds-checked big-endian reader for link, IP and transport headers.
 *
 * Every read checks the remaining captured bytes first; after the first
 * failure the cursor is "sticky": reads return 0 and do not advance, and the
 * caller checks rd_ok() once (Zeek's XDR cursor idea). Never forms p + len
 * past the end. */
#ifndef NFSSCOPE_RD_H
#define NFSSCOPE_RD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bytes.h"

struct rd {
    const uint8_t *p;
    size_t left;
    bool bad;
};

static inline struct rd
rd_make(struct bytes b)
{
    struct rd r = { b.p, b.len, false };
    return r;
}

static inline bool
rd_need(struct rd *r, size_t n)
{
    if (r->bad || r->left < n) {
        r->bad = true;
        return false;
    }
    return true;
}

static inline uint8_t
rd_u8(struct rd *r)
{
    if (!rd_need(r, 1))
        return 0;
    uint8_t v = r->p[0];
    r->p += 1;
    r->left -= 1;
    return v;
}

static inline uint16_t
rd_be16(struct rd *r)
{
    if (!rd_need(r, 2))
        return 0;
    uint16_t v = (uint16_t)((uint16_t)r->p[0] << 8 | r->p[1]);
    r->p += 2;
    r->left -= 2;
    return v;
}

static inline uint32_t
rd_be32(struct rd *r)
{
    if (!rd_need(r, 4))
        return 0;
    uint32_t v = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 | (uint32_t)r->p[2] << 8 |
                 (uint32_t)r->p[3];
    r->p += 4;
    r->left -= 4;
    return v;
}

static inline uint32_t
rd_le32(struct rd *r)
{
    if (!rd_need(r, 4))
        return 0;
    uint32_t v = (uint32_t)r->p[3] << 24 | (uint32_t)r->p[2] << 16 | (uint32_t)r->p[1] << 8 |
                 (uint32_t)r->p[0];
    r->p += 4;
    r->left -= 4;
    return v;
}

static inline void
rd_skip(struct rd *r, size_t n)
{
    if (!rd_need(r, n))
        return;
    r->p += n;
    r->left -= n;
}

static inline void
rd_copy(struct rd *r, void *dst, size_t n)
{
    if (!rd_need(r, n))
        return;
    memcpy(dst, r->p, n);
    r->p += n;
    r->left -= n;
}

static inline bool
rd_ok(const struct rd *r)
{
    return !r->bad;
}

static inline struct bytes
rd_rest(const struct rd *r)
{
    struct bytes b = { r->p, r->bad ? 0 : r->left };
    return b;
}

/* Big-endian loads from a buffer the caller has already bounds-checked. */
static inline uint32_t
be32_at(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline uint16_t
be16_at(const uint8_t *p)
{
    return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

#endif
