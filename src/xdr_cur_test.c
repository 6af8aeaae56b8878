/* SPDX-License-Identifier: BSD-3-Clause */
/* xdr_cur_test.c: unit tests for the bounded XDR cursor (RFC 4506). */
#include "xdr_cur.h"

#include <stdlib.h>

#include <rpc/types.h>
#include <rpc/xdr.h>

#include "t.h"

/* A heap copy of exactly n bytes, so ASan catches any read past the end. */
static uint8_t *
dup_exact(const uint8_t *p, size_t n)
{
    uint8_t *q = malloc(n ? n : 1);

    if (n)
        memcpy(q, p, n);
    return q;
}

static void
cur(struct xdr_cur *x, const uint8_t *p, size_t n)
{
    struct bytes b = { p, n };

    xdr_cur_init(x, b);
}

static void
test_u32_u64(void)
{
    static const uint8_t buf[] = {
        0x00, 0x00, 0x00, 0x2a,                         /* u32 42 */
        0xff, 0xff, 0xff, 0xff,                         /* u32 UINT32_MAX */
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* u64 0x0102030405060708 */
        0xde, 0xad, 0xbe,                               /* 3 bytes: not a u32 */
    };
    uint8_t *p = dup_exact(buf, sizeof buf);
    struct xdr_cur x;

    cur(&x, p, sizeof buf);
    EQ(xdr_cur_left(&x), 19);
    EQ(xdr_cur_u32(&x), 42);
    EQ(xdr_cur_pos(&x), 4);
    EQ(xdr_cur_u32(&x), UINT32_MAX);
    CHECK(xdr_cur_u64(&x) == 0x0102030405060708ull);
    CHECK(xdr_cur_ok(&x));
    EQ(xdr_cur_pos(&x), 16);
    EQ(xdr_cur_left(&x), 3);
    /* 3 bytes left: a u32 does not fit */
    EQ(xdr_cur_u32(&x), 0);
    EQ(xdr_cur_status(&x), DECODE_TRUNCATED);
    EQ(xdr_cur_pos(&x), 16); /* did not advance */
    free(p);

    /* u64 with only 7 bytes */
    p = dup_exact(buf + 8, 7);
    cur(&x, p, 7);
    CHECK(xdr_cur_u64(&x) == 0);
    EQ(xdr_cur_status(&x), DECODE_TRUNCATED);
    /* (libtirpc reads the high word first: the failing read itself may have
     * moved 4 bytes; only reads after the failure must not advance.) */
    {
        uint32_t pos = xdr_cur_pos(&x);
        EQ(xdr_cur_u32(&x), 0);
        EQ(xdr_cur_pos(&x), pos);
    }
    free(p);

    /* u64 in exactly 8 bytes: ok, nothing left */
    p = dup_exact(buf + 8, 8);
    cur(&x, p, 8);
    CHECK(xdr_cur_u64(&x) == 0x0102030405060708ull);
    CHECK(xdr_cur_ok(&x));
    EQ(xdr_cur_left(&x), 0);
    free(p);
}

static void
test_enum_bool(void)
{
    static const uint8_t buf[] = {
        0x00, 0x00, 0x00, 0x00, /* bool FALSE */
        0x00, 0x00, 0x00, 0x01, /* bool TRUE */
        0x00, 0x00, 0x00, 0x05, /* enum 5, max 5: ok */
        0x00, 0x00, 0x00, 0x06, /* enum 6, max 5: INVALID */
        0x00, 0x00, 0x00, 0x07, /* never read meaningfully */
    };
    uint8_t *p = dup_exact(buf, sizeof buf);
    struct xdr_cur x;

    cur(&x, p, sizeof buf);
    CHECK(xdr_cur_bool(&x) == false);
    CHECK(xdr_cur_bool(&x) == true);
    EQ(xdr_cur_enum(&x, 5), 5);
    CHECK(xdr_cur_ok(&x));
    EQ(xdr_cur_enum(&x, 5), 0);
    EQ(xdr_cur_status(&x), DECODE_INVALID);
    /* invalid stays invalid; later reads return 0 and don't advance */
    {
        uint32_t pos = xdr_cur_pos(&x);
        EQ(xdr_cur_u32(&x), 0);
        EQ(xdr_cur_pos(&x), pos);
    }
    EQ(xdr_cur_status(&x), DECODE_INVALID);
    /* a later truncation does not overwrite the first error */
    xdr_cur_skip(&x, 1000);
    EQ(xdr_cur_status(&x), DECODE_INVALID);
    free(p);

    /* bool 2 is not a bool */
    {
        static const uint8_t b2[] = { 0x00, 0x00, 0x00, 0x02 /* bool 2 */ };
        cur(&x, b2, sizeof b2);
        CHECK(xdr_cur_bool(&x) == false);
        EQ(xdr_cur_status(&x), DECODE_INVALID);
    }
    /* enum max UINT32_MAX accepts everything */
    {
        static const uint8_t b3[] = { 0xff, 0xff, 0xff, 0xff /* 2^32-1 */ };
        cur(&x, b3, sizeof b3);
        EQ(xdr_cur_enum(&x, UINT32_MAX), UINT32_MAX);
        CHECK(xdr_cur_ok(&x));
    }
    /* enum on a short buffer: TRUNCATED, not INVALID */
    {
        static const uint8_t b4[] = { 0x00, 0x00 /* half a word */ };
        cur(&x, b4, sizeof b4);
        EQ(xdr_cur_enum(&x, 1), 0);
        EQ(xdr_cur_status(&x), DECODE_TRUNCATED);
    }
}

static void
test_opaque(void)
{
    static const uint8_t buf[] = {
        0x00, 0x00, 0x00, 0x05,       /* opaque length 5 */
        'h',  'e',  'l',  'l',  'o',  /* data */
        0x00, 0x00, 0x00,             /* padding to 8 */
        0x00, 0x00, 0x00, 0x04,       /* opaque length 4 (no padding) */
        'a',  'b',  'c',  'd',        /* data */
        0x00, 0x00, 0x00, 0x00,       /* opaque length 0 */
        0x12, 0x34, 0x56, 0x78,       /* u32 after the opaques */
    };
    uint8_t *p = dup_exact(buf, sizeof buf);
    struct xdr_cur x;
    struct bytes v;

    cur(&x, p, sizeof buf);
    EQ(xdr_cur_opaque(&x, 5, &v), 5); /* exactly the maximum: ok */
    EQ(v.len, 5);
    CHECK(v.p == p + 4); /* a view into the buffer, not a copy */
    CHECK(v.p && memcmp(v.p, "hello", 5) == 0);
    EQ(xdr_cur_pos(&x), 12); /* padding skipped */
    EQ(xdr_cur_opaque(&x, 64, &v), 4);
    CHECK(v.p == p + 16);
    EQ(xdr_cur_pos(&x), 20);
    EQ(xdr_cur_opaque(&x, 0, &v), 0); /* length 0, max 0: ok */
    EQ(v.len, 0);
    CHECK(xdr_cur_ok(&x));
    EQ(xdr_cur_u32(&x), 0x12345678);
    CHECK(xdr_cur_ok(&x));
    EQ(xdr_cur_left(&x), 0);

    /* length over the maximum: INVALID, view empty */
    cur(&x, p, sizeof buf);
    EQ(xdr_cur_opaque(&x, 4, &v), 0);
    EQ(xdr_cur_status(&x), DECODE_INVALID);
    CHECK(v.p == NULL);
    EQ(v.len, 0);

    /* data present but padding missing: TRUNCATED */
    {
        uint8_t *q = dup_exact(buf, 9); /* length + "hello" */
        cur(&x, q, 9);
        EQ(xdr_cur_opaque(&x, 64, &v), 0);
        EQ(xdr_cur_status(&x), DECODE_TRUNCATED);
        CHECK(v.p == NULL);
        free(q);
    }
    /* a huge length (0xffffffff) must not wrap around the padding arithmetic */
    {
        static const uint8_t big[] = { 0xff, 0xff, 0xff, 0xff, /* opaque length 2^32-1 */
                                       0x00, 0x00, 0x00, 0x00 };
        cur(&x, big, sizeof big);
        EQ(xdr_cur_opaque(&x, UINT32_MAX, &v), 0);
        EQ(xdr_cur_status(&x), DECODE_TRUNCATED);
        cur(&x, big, sizeof big);
        xdr_cur_skip(&x, UINT32_MAX); /* padded: 2^32, must not become 0 */
        EQ(xdr_cur_status(&x), DECODE_TRUNCATED);
        EQ(xdr_cur_pos(&x), 0);
        cur(&x, big, sizeof big);
        xdr_cur_skip(&x, UINT32_MAX - 2); /* padded: 2^32 as well */
        EQ(xdr_cur_status(&x), DECODE_TRUNCATED);
    }
    free(p);
}

static void
test_fixed(void)
{
    static const uint8_t buf[] = {
        0x01, 0x02, 0x03,       /* fixed opaque[3] */
        0x00,                   /* padding */
        0x00, 0x00, 0x00, 0x09, /* u32 9 */
    };
    uint8_t dst[8];
    struct xdr_cur x;

    memset(dst, 0xee, sizeof dst);
    cur(&x, buf, sizeof buf);
    xdr_cur_fixed(&x, dst, 3);
    CHECK(xdr_cur_ok(&x));
    CHECK(dst[0] == 1 && dst[1] == 2 && dst[2] == 3);
    EQ(dst[3], 0xee); /* padding not copied */
    EQ(xdr_cur_pos(&x), 4);
    EQ(xdr_cur_u32(&x), 9);

    /* fixed opaque whose padding is missing */
    memset(dst, 0xee, sizeof dst);
    cur(&x, buf, 3);
    xdr_cur_fixed(&x, dst, 3);
    EQ(xdr_cur_status(&x), DECODE_TRUNCATED);
    EQ(xdr_cur_pos(&x), 0);

    /* longer than the buffer */
    cur(&x, buf, sizeof buf);
    xdr_cur_fixed(&x, dst, 12);
    EQ(xdr_cur_status(&x), DECODE_TRUNCATED);
}

static void
test_skip_sticky(void)
{
    static const uint8_t buf[] = {
        0x00, 0x00, 0x00, 0x01, /* u32 1 */
        0x00, 0x00, 0x00, 0x02, /* u32 2 */
        0x00, 0x00, 0x00, 0x03, /* u32 3 */
    };
    struct xdr_cur x;

    cur(&x, buf, sizeof buf);
    xdr_cur_skip(&x, 1); /* 1 byte + 3 padding */
    CHECK(xdr_cur_ok(&x));
    EQ(xdr_cur_pos(&x), 4);
    EQ(xdr_cur_u32(&x), 2);
    xdr_cur_skip(&x, 4); /* exactly to the end */
    CHECK(xdr_cur_ok(&x));
    EQ(xdr_cur_left(&x), 0);
    xdr_cur_skip(&x, 0); /* skipping nothing at the end is fine */
    CHECK(xdr_cur_ok(&x));

    cur(&x, buf, sizeof buf);
    xdr_cur_skip(&x, 13); /* 16 padded, 12 present */
    EQ(xdr_cur_status(&x), DECODE_TRUNCATED);
    EQ(xdr_cur_pos(&x), 0); /* no advance */
    /* sticky: reads that would fit return 0 */
    EQ(xdr_cur_u32(&x), 0);
    CHECK(xdr_cur_u64(&x) == 0);
    CHECK(xdr_cur_bool(&x) == false);
    EQ(xdr_cur_enum(&x, 10), 0);
    EQ(xdr_cur_pos(&x), 0);
    EQ(xdr_cur_status(&x), DECODE_TRUNCATED);
    /* xdr_cur_invalid after a truncation keeps the first error */
    xdr_cur_invalid(&x);
    EQ(xdr_cur_status(&x), DECODE_TRUNCATED);

    /* xdr_cur_invalid on a fresh cursor */
    cur(&x, buf, sizeof buf);
    xdr_cur_invalid(&x);
    EQ(xdr_cur_status(&x), DECODE_INVALID);
    EQ(xdr_cur_u32(&x), 0);
    CHECK(!xdr_cur_ok(&x));
}

static void
test_empty(void)
{
    static const uint8_t one[1] = { 0 };
    struct xdr_cur x;
    struct bytes v;

    /* NULL pointer, length 0 */
    cur(&x, NULL, 0);
    CHECK(xdr_cur_ok(&x));
    EQ(xdr_cur_left(&x), 0);
    EQ(xdr_cur_u32(&x), 0);
    EQ(xdr_cur_status(&x), DECODE_TRUNCATED);

    /* non-NULL pointer, length 0 */
    cur(&x, one, 0);
    EQ(xdr_cur_left(&x), 0);
    xdr_cur_skip(&x, 0);
    CHECK(xdr_cur_ok(&x));
    EQ(xdr_cur_opaque(&x, 10, &v), 0);
    EQ(xdr_cur_status(&x), DECODE_TRUNCATED);

    /* a single byte is not a word */
    cur(&x, one, 1);
    EQ(xdr_cur_left(&x), 1);
    CHECK(xdr_cur_bool(&x) == false);
    EQ(xdr_cur_status(&x), DECODE_TRUNCATED);
}

/* Differential check against libtirpc's memory XDR stream (the reference
 * decoder): random buffers, random sequences of reads; every value, every
 * success and the position must agree. */
static void
test_against_libtirpc(void)
{
    static uint8_t buf[64];
    unsigned round, step, bad = 0;

    srand(12345);
    for (round = 0; round < 20000; round++) {
        unsigned len = (unsigned)rand() % 64, i;
        struct xdr_cur x;
        XDR ref;
        bool ref_ok = true;

        for (i = 0; i < len; i++)
            buf[i] = (uint8_t)(rand() % 4 == 0 ? rand() % 8 : rand()); /* small lengths often */
        cur(&x, buf, len);
        xdrmem_create(&ref, (char *)buf, len, XDR_DECODE);
        for (step = 0; step < 8 && ref_ok; step++) {
            switch (rand() % 4) {
            case 0: {
                u_int r = 0;
                uint32_t v = xdr_cur_u32(&x);
                ref_ok = xdr_u_int(&ref, &r);
                if (ref_ok != xdr_cur_ok(&x) || (ref_ok && v != r))
                    bad++;
                break;
            }
            case 1: {
                u_quad_t r = 0;
                uint64_t v = xdr_cur_u64(&x);
                ref_ok = xdr_u_hyper(&ref, &r);
                if (ref_ok != xdr_cur_ok(&x) || (ref_ok && v != r))
                    bad++;
                break;
            }
            case 2: { /* opaque<16> into a caller buffer: xdr_bytes with a buffer never allocates */
                char rbuf[16], *rp = rbuf;
                u_int rlen = 0;
                struct bytes v;
                uint32_t n = xdr_cur_opaque(&x, 16, &v);
                ref_ok = xdr_bytes(&ref, &rp, &rlen, 16);
                if (ref_ok != xdr_cur_ok(&x) || (ref_ok && (n != rlen || memcmp(v.p, rbuf, n))))
                    bad++;
                break;
            }
            default: { /* fixed opaque of 0..9 bytes, padded */
                char rbuf[12], ours[12];
                u_int n = (u_int)rand() % 10;
                xdr_cur_fixed(&x, ours, n);
                ref_ok = xdr_opaque(&ref, rbuf, n);
                if (ref_ok != xdr_cur_ok(&x) || (ref_ok && memcmp(ours, rbuf, n)))
                    bad++;
                break;
            }
            }
            if (ref_ok && xdr_getpos(&ref) != xdr_cur_pos(&x))
                bad++;
        }
        xdr_destroy(&ref);
    }
    EQ(bad, 0);
}

int
main(void)
{
    test_u32_u64();
    test_enum_bool();
    test_opaque();
    test_fixed();
    test_skip_sticky();
    test_empty();
    test_against_libtirpc();
    return t_done();
}
