/* SPDX-License-Identifier: BSD-3-Clause */
/* xdr_cur.h: a bounded XDR (RFC 4506) decoding cursor over captured bytes.
 *
 * The hot path of every RPC message, so every read is an inline bounds check
 * plus a big-endian load: no function pointers, no allocation. (libtirpc's
 * memory stream does the same work through an indirect call per word, and
 * its xdr_string/xdr_bytes/xdr_array allocate from untrusted counts; it is
 * kept as the reference this cursor is checked against in xdr_cur_test.c.)
 *
 * Errors are sticky: after the first failure reads return 0 and do not
 * advance, and xdr_cur_status() says whether the bytes ran out
 * (DECODE_TRUNCATED) or a bound was broken (DECODE_INVALID). Every length is
 * checked against its protocol maximum and against the bytes left, compared
 * as "n <= left", never by forming p + n. */
#ifndef NFSSCOPE_XDR_CUR_H
#define NFSSCOPE_XDR_CUR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bytes.h"

struct xdr_cur {
    const uint8_t *base;   /* start of the buffer (borrowed) */
    uint32_t pos, len;     /* read position and buffer length */
    enum decode_rc status; /* DECODE_OK until the first failure */
};

static inline void
xdr_cur_fail(struct xdr_cur *x, enum decode_rc rc)
{
    if (x->status == DECODE_OK)
        x->status = rc;
}

/* The buffer is borrowed and must outlive the cursor. At most 4 GiB - 1. */
static inline void
xdr_cur_init(struct xdr_cur *x, struct bytes b)
{
    x->base = b.p;
    x->pos = 0;
    x->len = !b.p ? 0 : b.len > UINT32_MAX - 4 ? UINT32_MAX - 4 : (uint32_t)b.len;
    x->status = DECODE_OK;
}

static inline uint32_t
xdr_cur_pos(const struct xdr_cur *x)
{
    return x->pos;
}

static inline uint32_t
xdr_cur_left(const struct xdr_cur *x)
{
    return x->len - x->pos;
}

static inline uint32_t
xdr_cur_u32(struct xdr_cur *x)
{
    const uint8_t *p;

    if (x->status != DECODE_OK)
        return 0;
    if (x->len - x->pos < 4) {
        xdr_cur_fail(x, DECODE_TRUNCATED);
        return 0;
    }
    p = x->base + x->pos;
    x->pos += 4;
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* hyper (RFC 4506 §4.5): eight bytes, high word first. */
static inline uint64_t
xdr_cur_u64(struct xdr_cur *x)
{
    uint64_t hi, lo;

    if (x->status == DECODE_OK && x->len - x->pos < 8) {
        xdr_cur_fail(x, DECODE_TRUNCATED);
        return 0;
    }
    hi = xdr_cur_u32(x);
    lo = xdr_cur_u32(x);
    return hi << 32 | lo;
}

/* A u32 that must be <= max (enum or bool discriminant); else INVALID. */
static inline uint32_t
xdr_cur_enum(struct xdr_cur *x, uint32_t max)
{
    uint32_t v = xdr_cur_u32(x);

    if (x->status == DECODE_OK && v > max) {
        xdr_cur_fail(x, DECODE_INVALID);
        return 0;
    }
    return v;
}

static inline bool
xdr_cur_bool(struct xdr_cur *x)
{
    return xdr_cur_enum(x, 1) != 0;
}

/* Skip n bytes plus XDR padding (RFC 4506 §3: multiples of four). */
static inline void
xdr_cur_skip(struct xdr_cur *x, uint32_t n)
{
    uint64_t padded = ((uint64_t)n + 3) & ~(uint64_t)3;

    if (x->status != DECODE_OK)
        return;
    if (padded > x->len - x->pos) {
        xdr_cur_fail(x, DECODE_TRUNCATED);
        return;
    }
    x->pos += (uint32_t)padded;
}

/* Fixed-length opaque of n bytes (plus padding) into dst. */
static inline void
xdr_cur_fixed(struct xdr_cur *x, void *dst, uint32_t n)
{
    uint32_t at = x->pos;

    xdr_cur_skip(x, n);
    if (x->status == DECODE_OK && n)
        memcpy(dst, x->base + at, n);
}

/* Fixed-length opaque[n] as a view (borrowed from the buffer), skipping
 * padding: e.g. an NFSv2 fhandle (RFC 1094 §2.3.3, 32 bytes). */
static inline void
xdr_cur_fixed_view(struct xdr_cur *x, uint32_t n, struct bytes *out)
{
    uint32_t at = x->pos;

    out->p = NULL;
    out->len = 0;
    xdr_cur_skip(x, n);
    if (x->status == DECODE_OK) {
        out->p = x->base + at;
        out->len = n;
    }
}

/* Variable-length opaque<max>: returns the length and a view of the bytes
 * (borrowed from the buffer), skipping padding. INVALID if len > max. */
static inline uint32_t
xdr_cur_opaque(struct xdr_cur *x, uint32_t max, struct bytes *out)
{
    uint32_t n = xdr_cur_u32(x), at;

    out->p = NULL;
    out->len = 0;
    if (x->status != DECODE_OK)
        return 0;
    if (n > max) {
        xdr_cur_fail(x, DECODE_INVALID);
        return 0;
    }
    at = x->pos;
    xdr_cur_skip(x, n);
    if (x->status != DECODE_OK)
        return 0;
    out->p = x->base + at;
    out->len = n;
    return n;
}

/* Mark the cursor invalid (a value broke a protocol rule). */
static inline void
xdr_cur_invalid(struct xdr_cur *x)
{
    xdr_cur_fail(x, DECODE_INVALID);
}

static inline enum decode_rc
xdr_cur_status(const struct xdr_cur *x)
{
    return x->status;
}

static inline bool
xdr_cur_ok(const struct xdr_cur *x)
{
    return x->status == DECODE_OK;
}

#endif
