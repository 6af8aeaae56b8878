/* xdr_cur.c: bounded XDR cursor over libtirpc's memory stream (RFC 4506). */
#include "xdr_cur.h"

#include <string.h>

static void
fail(struct xdr_cur *x, enum decode_rc rc)
{
    if (x->status == DECODE_OK)
        x->status = rc;
}

void
xdr_cur_init(struct xdr_cur *x, struct bytes b)
{
    /* libtirpc's API is not const-correct; XDR_DECODE never writes. */
    union {
        const uint8_t *c;
        char *m;
    } u = { .c = b.p };
    static char empty[4];

    x->len = b.len > UINT32_MAX - 4 ? UINT32_MAX - 4 : (uint32_t)b.len;
    x->status = DECODE_OK;
    xdrmem_create(&x->xdr, b.p ? u.m : empty, x->len, XDR_DECODE);
}

uint32_t
xdr_cur_pos(struct xdr_cur *x)
{
    return xdr_getpos(&x->xdr);
}

uint32_t
xdr_cur_left(struct xdr_cur *x)
{
    uint32_t pos = xdr_getpos(&x->xdr);
    return pos <= x->len ? x->len - pos : 0;
}

uint32_t
xdr_cur_u32(struct xdr_cur *x)
{
    u_int v = 0;
    if (x->status != DECODE_OK)
        return 0;
    if (!xdr_u_int(&x->xdr, &v)) {
        fail(x, DECODE_TRUNCATED);
        return 0;
    }
    return v;
}

uint64_t
xdr_cur_u64(struct xdr_cur *x)
{
    u_quad_t v = 0;
    if (x->status != DECODE_OK)
        return 0;
    if (!xdr_u_hyper(&x->xdr, &v)) {
        fail(x, DECODE_TRUNCATED);
        return 0;
    }
    return v;
}

uint32_t
xdr_cur_enum(struct xdr_cur *x, uint32_t max)
{
    uint32_t v = xdr_cur_u32(x);
    if (x->status == DECODE_OK && v > max) {
        fail(x, DECODE_INVALID);
        return 0;
    }
    return v;
}

bool
xdr_cur_bool(struct xdr_cur *x)
{
    return xdr_cur_enum(x, 1) != 0;
}

void
xdr_cur_skip(struct xdr_cur *x, uint32_t n)
{
    uint64_t padded = ((uint64_t)n + 3) & ~(uint64_t)3;
    if (x->status != DECODE_OK)
        return;
    if (padded > xdr_cur_left(x)) {
        fail(x, DECODE_TRUNCATED);
        return;
    }
    xdr_setpos(&x->xdr, xdr_getpos(&x->xdr) + (u_int)padded);
}

void
xdr_cur_fixed(struct xdr_cur *x, void *dst, uint32_t n)
{
    uint64_t padded = ((uint64_t)n + 3) & ~(uint64_t)3;
    if (x->status != DECODE_OK)
        return;
    if (padded > xdr_cur_left(x)) {
        fail(x, DECODE_TRUNCATED);
        return;
    }
    if (!xdr_opaque(&x->xdr, dst, n))
        fail(x, DECODE_TRUNCATED);
}

uint32_t
xdr_cur_opaque(struct xdr_cur *x, uint32_t max, struct bytes *out)
{
    uint32_t n = xdr_cur_u32(x);
    uint32_t pos;

    out->p = NULL;
    out->len = 0;
    if (x->status != DECODE_OK)
        return 0;
    if (n > max) {
        fail(x, DECODE_INVALID);
        return 0;
    }
    pos = xdr_getpos(&x->xdr);
    xdr_cur_skip(x, n);
    if (x->status != DECODE_OK)
        return 0;
    {
        union {
            const char *c;
            const uint8_t *u;
        } base = { .c = x->xdr.x_base };
        out->p = base.u + pos;
    }
    out->len = n;
    return n;
}

void
xdr_cur_invalid(struct xdr_cur *x)
{
    fail(x, DECODE_INVALID);
}
