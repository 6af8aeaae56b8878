/* xdr_cur.h: a bounded XDR (RFC 4506) decoding cursor over captured bytes.
 *
 * A thin wrapper over libtirpc's memory XDR stream, used only for fixed-size
 * primitives and caller-buffer opaques (libtirpc's xdr_string/xdr_bytes/
 * xdr_array allocate from untrusted counts: never used here). Errors are
 * sticky: after the first failure reads return 0, and xdr_cur_status() says
 * whether the bytes ran out (DECODE_TRUNCATED) or a bound was broken
 * (DECODE_INVALID). Every length is checked against its protocol maximum and
 * against the bytes left before it is used. */
#ifndef NFSSCOPE_XDR_CUR_H
#define NFSSCOPE_XDR_CUR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rpc/types.h>
#include <rpc/xdr.h>

#include "bytes.h"

struct xdr_cur {
    XDR xdr;
    uint32_t len;          /* bytes in the buffer */
    enum decode_rc status; /* DECODE_OK until the first failure */
};

/* The buffer is borrowed and must outlive the cursor. At most 4 GiB - 1. */
void xdr_cur_init(struct xdr_cur *x, struct bytes b);

uint32_t xdr_cur_u32(struct xdr_cur *x);
uint64_t xdr_cur_u64(struct xdr_cur *x);
/* A u32 that must be <= max (enum or bool discriminant); else INVALID. */
uint32_t xdr_cur_enum(struct xdr_cur *x, uint32_t max);
bool xdr_cur_bool(struct xdr_cur *x);
/* Fixed-length opaque of n bytes (plus padding) into dst. */
void xdr_cur_fixed(struct xdr_cur *x, void *dst, uint32_t n);
/* Skip n bytes plus XDR padding. */
void xdr_cur_skip(struct xdr_cur *x, uint32_t n);
/* Variable-length opaque<max>: returns the length and a view of the bytes
 * (borrowed from the buffer), skipping padding. INVALID if len > max. */
uint32_t xdr_cur_opaque(struct xdr_cur *x, uint32_t max, struct bytes *out);
/* Mark the cursor invalid (a value broke a protocol rule). */
void xdr_cur_invalid(struct xdr_cur *x);

uint32_t xdr_cur_pos(struct xdr_cur *x);
uint32_t xdr_cur_left(struct xdr_cur *x);

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
