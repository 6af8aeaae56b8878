/* SPDX-License-Identifier: BSD-3-Clause */
/* rpc_test.c: unit tests for ONC RPC headers (RFC 5531 §9, RFC 2203). */
#include "rpc.h"

#include <stdlib.h>

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

static enum decode_rc
parse(const uint8_t *p, size_t n, struct rpc_hdr *h)
{
    struct bytes b = { p, n };

    return rpc_hdr_parse(b, h);
}

/* rpc_probe on an exact-size copy. */
static bool
probe(const uint8_t *msg, size_t n, uint32_t msg_len)
{
    uint8_t *p = dup_exact(msg, n);
    bool r = rpc_probe(p, n, msg_len);

    free(p);
    return r;
}

/* NFSv3 GETATTR call, AUTH_NONE (RFC 5531 §9 call_body). */
static const uint8_t call_none[] = {
    0x12, 0x34, 0x56, 0x78, /* xid */
    0x00, 0x00, 0x00, 0x00, /* msg_type CALL */
    0x00, 0x00, 0x00, 0x02, /* rpcvers 2 */
    0x00, 0x01, 0x86, 0xa3, /* prog 100003 (NFS) */
    0x00, 0x00, 0x00, 0x03, /* vers 3 */
    0x00, 0x00, 0x00, 0x01, /* proc 1 (GETATTR) */
    0x00, 0x00, 0x00, 0x00, /* cred flavor AUTH_NONE */
    0x00, 0x00, 0x00, 0x00, /* cred length 0 */
    0x00, 0x00, 0x00, 0x00, /* verf flavor AUTH_NONE */
    0x00, 0x00, 0x00, 0x00, /* verf length 0 */
    /* arguments: nfs_fh3 */
    0x00, 0x00, 0x00, 0x08, /* fh length 8 */
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* fh */
};
#define CALL_NONE_HDR 40

/* NFSv3 ACCESS call, AUTH_SYS (RFC 5531 Appendix A authsys_parms). */
static const uint8_t call_sys[] = {
    0xca, 0xfe, 0xf0, 0x0d, /* xid */
    0x00, 0x00, 0x00, 0x00, /* msg_type CALL */
    0x00, 0x00, 0x00, 0x02, /* rpcvers 2 */
    0x00, 0x01, 0x86, 0xa3, /* prog 100003 */
    0x00, 0x00, 0x00, 0x03, /* vers 3 */
    0x00, 0x00, 0x00, 0x04, /* proc 4 (ACCESS) */
    0x00, 0x00, 0x00, 0x01, /* cred flavor AUTH_SYS */
    0x00, 0x00, 0x00, 0x24, /* cred length 36 */
    0x5f, 0x00, 0x00, 0x01, /*   stamp */
    0x00, 0x00, 0x00, 0x06, /*   machinename length 6 */
    'c',  'l',  'i',  'e',  'n', 't', 0x00, 0x00, /* "client" + 2 padding */
    0x00, 0x00, 0x03, 0xe8, /*   uid 1000 */
    0x00, 0x00, 0x00, 0x64, /*   gid 100 */
    0x00, 0x00, 0x00, 0x02, /*   gids count 2 */
    0x00, 0x00, 0x00, 0x64, /*   gid 100 */
    0x00, 0x00, 0x00, 0x0a, /*   gid 10 */
    0x00, 0x00, 0x00, 0x00, /* verf flavor AUTH_NONE */
    0x00, 0x00, 0x00, 0x00, /* verf length 0 */
    /* arguments: ACCESS3args */
    0x00, 0x00, 0x00, 0x04, /* fh length 4 */
    0xaa, 0xbb, 0xcc, 0xdd, /* fh */
    0x00, 0x00, 0x00, 0x1f, /* access mask */
};
#define CALL_SYS_HDR 76

/* RPCSEC_GSS DATA call (RFC 2203 §5), `service` at offset 44. */
static const uint8_t call_gss[] = {
    0x00, 0x00, 0x10, 0x01, /* xid */
    0x00, 0x00, 0x00, 0x00, /* msg_type CALL */
    0x00, 0x00, 0x00, 0x02, /* rpcvers 2 */
    0x00, 0x01, 0x86, 0xa3, /* prog 100003 */
    0x00, 0x00, 0x00, 0x03, /* vers 3 */
    0x00, 0x00, 0x00, 0x01, /* proc 1 (GETATTR) */
    0x00, 0x00, 0x00, 0x06, /* cred flavor RPCSEC_GSS */
    0x00, 0x00, 0x00, 0x18, /* cred length 24 */
    0x00, 0x00, 0x00, 0x01, /*   version RPCSEC_GSS_VERS_1 */
    0x00, 0x00, 0x00, 0x00, /*   gss_proc RPCSEC_GSS_DATA */
    0x00, 0x00, 0x00, 0x07, /*   seq_num 7 */
    0x00, 0x00, 0x00, 0x01, /*   service rpc_gss_svc_none (patched) */
    0x00, 0x00, 0x00, 0x04, /*   handle length 4 */
    0x68, 0x6e, 0x64, 0x6c, /*   handle */
    0x00, 0x00, 0x00, 0x06, /* verf flavor RPCSEC_GSS */
    0x00, 0x00, 0x00, 0x08, /* verf length 8 */
    0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, /* checksum */
    /* arguments */
    0x00, 0x00, 0x00, 0x04, /* fh length 4 */
    0x01, 0x02, 0x03, 0x04, /* fh */
};
#define GSS_SERVICE_OFF 44
#define GSS_PROC_OFF 36
#define CALL_GSS_HDR 72

/* Accepted reply, SUCCESS, AUTH_NONE verifier. */
static const uint8_t reply_ok[] = {
    0x12, 0x34, 0x56, 0x78, /* xid */
    0x00, 0x00, 0x00, 0x01, /* msg_type REPLY */
    0x00, 0x00, 0x00, 0x00, /* reply_stat MSG_ACCEPTED */
    0x00, 0x00, 0x00, 0x00, /* verf flavor AUTH_NONE */
    0x00, 0x00, 0x00, 0x00, /* verf length 0 */
    0x00, 0x00, 0x00, 0x00, /* accept_stat SUCCESS */
    /* results */
    0x00, 0x00, 0x00, 0x00, /* nfsstat3 NFS3_OK */
};
#define REPLY_OK_HDR 24

/* Accepted reply, PROG_MISMATCH low 2 high 3. */
static const uint8_t reply_prog_mismatch[] = {
    0x00, 0x00, 0x00, 0x09, /* xid */
    0x00, 0x00, 0x00, 0x01, /* msg_type REPLY */
    0x00, 0x00, 0x00, 0x00, /* reply_stat MSG_ACCEPTED */
    0x00, 0x00, 0x00, 0x00, /* verf flavor AUTH_NONE */
    0x00, 0x00, 0x00, 0x00, /* verf length 0 */
    0x00, 0x00, 0x00, 0x02, /* accept_stat PROG_MISMATCH */
    0x00, 0x00, 0x00, 0x02, /* low 2 */
    0x00, 0x00, 0x00, 0x03, /* high 3 */
};

/* Accepted reply, PROC_UNAVAIL, with a 4-byte verifier body. */
static const uint8_t reply_proc_unavail[] = {
    0x00, 0x00, 0x00, 0x0a, /* xid */
    0x00, 0x00, 0x00, 0x01, /* msg_type REPLY */
    0x00, 0x00, 0x00, 0x00, /* reply_stat MSG_ACCEPTED */
    0x00, 0x00, 0x00, 0x02, /* verf flavor AUTH_SHORT */
    0x00, 0x00, 0x00, 0x04, /* verf length 4 */
    0xab, 0xcd, 0xef, 0x01, /* verf body */
    0x00, 0x00, 0x00, 0x03, /* accept_stat PROC_UNAVAIL */
};

/* Denied reply, RPC_MISMATCH low 2 high 2. */
static const uint8_t reply_rpc_mismatch[] = {
    0x00, 0x00, 0x00, 0x0b, /* xid */
    0x00, 0x00, 0x00, 0x01, /* msg_type REPLY */
    0x00, 0x00, 0x00, 0x01, /* reply_stat MSG_DENIED */
    0x00, 0x00, 0x00, 0x00, /* reject_stat RPC_MISMATCH */
    0x00, 0x00, 0x00, 0x02, /* low 2 */
    0x00, 0x00, 0x00, 0x02, /* high 2 */
};

/* Denied reply, AUTH_ERROR AUTH_TOOWEAK. */
static const uint8_t reply_auth_error[] = {
    0x00, 0x00, 0x00, 0x0c, /* xid */
    0x00, 0x00, 0x00, 0x01, /* msg_type REPLY */
    0x00, 0x00, 0x00, 0x01, /* reply_stat MSG_DENIED */
    0x00, 0x00, 0x00, 0x01, /* reject_stat AUTH_ERROR */
    0x00, 0x00, 0x00, 0x05, /* auth_stat AUTH_TOOWEAK */
};

static void
test_call_auth_none(void)
{
    uint8_t *p = dup_exact(call_none, sizeof call_none);
    struct rpc_hdr h;

    EQ(parse(p, sizeof call_none, &h), DECODE_OK);
    EQ(h.xid, 0x12345678);
    EQ(h.msg_type, RPC_CALL);
    EQ(h.rpcvers, 2);
    EQ(h.prog, 100003);
    EQ(h.vers, 3);
    EQ(h.proc, 1);
    EQ(h.cred_flavor, AUTH_NONE_FLAVOR);
    EQ(h.uid, UINT32_MAX);
    EQ(h.gid, UINT32_MAX);
    CHECK(!h.gss_wrapped);
    CHECK(h.body.p == p + CALL_NONE_HDR);
    EQ(h.body.len, sizeof call_none - CALL_NONE_HDR);
    free(p);

    /* header only: body empty but OK */
    p = dup_exact(call_none, CALL_NONE_HDR);
    EQ(parse(p, CALL_NONE_HDR, &h), DECODE_OK);
    EQ(h.body.len, 0);
    free(p);
}

static void
test_call_auth_sys(void)
{
    uint8_t *p = dup_exact(call_sys, sizeof call_sys);
    struct rpc_hdr h;

    EQ(parse(p, sizeof call_sys, &h), DECODE_OK);
    EQ(h.xid, 0xcafef00d);
    EQ(h.proc, 4);
    EQ(h.cred_flavor, AUTH_SYS_FLAVOR);
    EQ(h.uid, 1000);
    EQ(h.gid, 100);
    CHECK(!h.gss_wrapped);
    CHECK(h.body.p == p + CALL_SYS_HDR);
    EQ(h.body.len, 12);
    free(p);
}

static void
test_call_gss(void)
{
    uint8_t buf[sizeof call_gss];
    struct rpc_hdr h;

    memcpy(buf, call_gss, sizeof buf);
    EQ(parse(buf, sizeof buf, &h), DECODE_OK);
    EQ(h.cred_flavor, RPCSEC_GSS_FLAVOR);
    CHECK(!h.gss_wrapped); /* DATA, service none: plain arguments */
    EQ(h.uid, UINT32_MAX);
    CHECK(h.body.p == buf + CALL_GSS_HDR);
    EQ(h.body.len, 8);

    CHECK(h.gss);
    EQ(h.gss_proc, RPCSEC_GSS_DATA);
    EQ(h.gss_seq, 7);
    EQ(h.gss_service, RPC_GSS_SVC_NONE);

    buf[GSS_SERVICE_OFF + 3] = 2; /* rpc_gss_svc_integrity */
    EQ(parse(buf, sizeof buf, &h), DECODE_OK);
    CHECK(h.gss_wrapped);
    EQ(h.gss_service, RPC_GSS_SVC_INTEGRITY);
    buf[GSS_SERVICE_OFF + 3] = 3; /* rpc_gss_svc_privacy */
    EQ(parse(buf, sizeof buf, &h), DECODE_OK);
    CHECK(h.gss_wrapped);
    EQ(h.gss_service, RPC_GSS_SVC_PRIVACY);
    buf[GSS_SERVICE_OFF + 3] = 1; /* none, but a control message */
    buf[GSS_PROC_OFF + 3] = 1;    /* RPCSEC_GSS_INIT */
    EQ(parse(buf, sizeof buf, &h), DECODE_OK);
    CHECK(h.gss_wrapped);
    EQ(h.gss_proc, RPCSEC_GSS_INIT);
    buf[GSS_PROC_OFF + 3] = 3; /* RPCSEC_GSS_DESTROY */
    EQ(parse(buf, sizeof buf, &h), DECODE_OK);
    EQ(h.gss_proc, RPCSEC_GSS_DESTROY);

    /* Not a version 1 credential, an unknown gss_proc or service: not
     * understood, so not decoded (and still a call). */
    buf[GSS_PROC_OFF + 3] = 4;
    EQ(parse(buf, sizeof buf, &h), DECODE_OK);
    CHECK(!h.gss);
    CHECK(h.gss_wrapped);
    buf[GSS_PROC_OFF + 3] = 0;
    buf[GSS_SERVICE_OFF + 3] = 4;
    EQ(parse(buf, sizeof buf, &h), DECODE_OK);
    CHECK(!h.gss);
    buf[GSS_SERVICE_OFF + 3] = 1;
    buf[GSS_PROC_OFF - 1] = 2; /* version 2 */
    EQ(parse(buf, sizeof buf, &h), DECODE_OK);
    CHECK(!h.gss);
    CHECK(h.gss_wrapped);
}

/* rpc_gss_integ_data (RFC 2203 §5.3.2.2): databody_integ<> = seq_num and
 * the arguments, then the checksum. */
static void
test_gss_integ_body(void)
{
    static const uint8_t integ[] = {
        0x00, 0x00, 0x00, 0x0c, /* databody_integ length 12 */
        0x00, 0x00, 0x00, 0x07, /*   seq_num 7 */
        0x00, 0x00, 0x00, 0x04, /*   fh length 4 */
        0x01, 0x02, 0x03, 0x04, /*   fh */
        0x00, 0x00, 0x00, 0x04, /* checksum length 4 */
        0xaa, 0xbb, 0xcc, 0xdd, /* checksum */
    };
    uint8_t *p = dup_exact(integ, sizeof integ);
    struct bytes b = { p, sizeof integ }, args;
    uint32_t seq = 0;
    bool whole = false;
    size_t n;

    EQ(rpc_gss_integ_body(b, &seq, &args, &whole), DECODE_OK);
    EQ(seq, 7);
    CHECK(whole);
    CHECK(args.p == p + 8);
    EQ(args.len, 8); /* the checksum is not part of the arguments */
    /* Cut by the capture: what is there, not whole. */
    for (n = 8; n < 16; n++) {
        b.len = n;
        EQ(rpc_gss_integ_body(b, &seq, &args, &whole), DECODE_OK);
        CHECK(!whole);
        EQ(args.len, n - 8);
    }
    for (n = 0; n < 8; n++) {
        b.len = n;
        whole = true;
        EQ(rpc_gss_integ_body(b, &seq, &args, &whole), DECODE_TRUNCATED);
        CHECK(!whole); /* set on every path: a caller reads it after an error too */
    }
    free(p);
    /* databody_integ shorter than its seq_num. */
    {
        static const uint8_t shortb[] = { 0, 0, 0, 3, 0, 0, 0, 7 };
        struct bytes s2 = { shortb, sizeof shortb };

        whole = true;
        EQ(rpc_gss_integ_body(s2, &seq, &args, &whole), DECODE_INVALID);
        CHECK(!whole);
    }
}

/* RFC 9289 §4.1: the AUTH_TLS probe is a NULL call with credential flavor
 * 7, its answer a verifier AUTH_NONE with the 8-byte body "STARTTLS"; both
 * must pass the resync test (the probe is a connection's first message). */
static void
test_tls_probe(void)
{
    static const uint8_t call[] = {
        0x00, 0x00, 0x00, 0x2a, 0x00, 0x00, 0x00, 0x00, /* xid, CALL */
        0x00, 0x00, 0x00, 0x02, 0x00, 0x01, 0x86, 0xa3, /* rpcvers 2, prog 100003 */
        0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, /* vers 4, proc NULL */
        0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, /* cred AUTH_TLS, length 0 */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* verf AUTH_NONE, length 0 */
    };
    static const uint8_t reply[] = {
        0x00, 0x00, 0x00, 0x2a, 0x00, 0x00, 0x00, 0x01, /* xid, REPLY */
        0x00, 0x00, 0x00, 0x00,                         /* MSG_ACCEPTED */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, /* verf AUTH_NONE, length 8 */
        'S',  'T',  'A',  'R',  'T',  'T',  'L',  'S',
        0x00, 0x00, 0x00, 0x00, /* accept_stat SUCCESS */
    };
    uint8_t r[sizeof reply];
    struct rpc_hdr h;

    EQ(parse(call, sizeof call, &h), DECODE_OK);
    EQ(h.cred_flavor, AUTH_TLS_FLAVOR);
    CHECK(probe(call, sizeof call, sizeof call));
    EQ(parse(reply, sizeof reply, &h), DECODE_OK);
    CHECK(h.starttls);
    EQ(h.body.len, 0);
    CHECK(probe(reply, sizeof reply, sizeof reply));
    memcpy(r, reply, sizeof r);
    r[27] = 'X'; /* another verifier body */
    EQ(parse(r, sizeof r, &h), DECODE_OK);
    CHECK(!h.starttls);
    memcpy(r, reply, sizeof r);
    r[15] = 6; /* another flavor */
    EQ(parse(r, sizeof r, &h), DECODE_OK);
    CHECK(!h.starttls);
}

/* An RPCSEC_GSS reply verifier is a checksum of any length (RFC 2203
 * §5.3.3.2): the results start after it. */
static void
test_gss_reply_verifier(void)
{
    static const uint8_t reply[] = {
        0x00, 0x00, 0x00, 0x2b, 0x00, 0x00, 0x00, 0x01, /* xid, REPLY */
        0x00, 0x00, 0x00, 0x00,                         /* MSG_ACCEPTED */
        0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x1c, /* verf RPCSEC_GSS, length 28 */
        0x04, 0x04, 0x05, 0xff, 0xff, 0xff, 0xff, 0xff, /* krb5 MIC token (RFC 4121 §4.2.6.1) */
        0x00, 0x00, 0x00, 0x00, 0x1f, 0x2e, 0x3d, 0x4c,
        0x9a, 0x8b, 0x7c, 0x6d, 0x5e, 0x4f, 0x30, 0x21, 0x12, 0x03, 0xf4, 0xe5,
        0x00, 0x00, 0x00, 0x00, /* accept_stat SUCCESS */
        0x00, 0x00, 0x00, 0x14, /* results: databody_integ length 20 ... */
    };
    struct rpc_hdr h;

    EQ(parse(reply, sizeof reply, &h), DECODE_OK);
    EQ(h.verf_flavor, RPCSEC_GSS_FLAVOR);
    CHECK(h.body.p == reply + 52);
    EQ(h.body.len, 4);
    CHECK(probe(reply, sizeof reply, 200));
}

/* Every prefix of a header is TRUNCATED, never crashes, and fills what it can. */
static void
truncate_loop(const uint8_t *msg, size_t hdr_len, bool is_call)
{
    size_t n;
    unsigned bad = 0, bad_xid = 0, bad_ppp = 0;

    for (n = 0; n < hdr_len; n++) {
        uint8_t *p = dup_exact(msg, n);
        struct rpc_hdr h;
        enum decode_rc rc = parse(p, n, &h);

        if (rc != DECODE_TRUNCATED) {
            bad++;
            fprintf(stderr, "  prefix %zu: rc %d\n", n, (int)rc);
        }
        if (n >= 4 && h.xid != ((uint32_t)msg[0] << 24 | (uint32_t)msg[1] << 16 |
                                (uint32_t)msg[2] << 8 | msg[3]))
            bad_xid++;
        if (is_call && n >= 24 && (h.prog != 100003 || h.vers != 3 || h.rpcvers != 2))
            bad_ppp++;
        free(p);
    }
    EQ(bad, 0);
    EQ(bad_xid, 0);
    EQ(bad_ppp, 0);
}

static void
test_truncated(void)
{
    uint8_t *p;
    struct rpc_hdr h;

    truncate_loop(call_none, CALL_NONE_HDR, true);
    truncate_loop(call_sys, CALL_SYS_HDR, true);
    truncate_loop(call_gss, CALL_GSS_HDR, true);
    truncate_loop(reply_ok, REPLY_OK_HDR, false);
    truncate_loop(reply_prog_mismatch, sizeof reply_prog_mismatch, false);
    truncate_loop(reply_proc_unavail, sizeof reply_proc_unavail, false);
    truncate_loop(reply_rpc_mismatch, sizeof reply_rpc_mismatch, false);
    truncate_loop(reply_auth_error, sizeof reply_auth_error, false);

    /* specific cuts */
    p = dup_exact(call_sys, 24); /* up to proc */
    EQ(parse(p, 24, &h), DECODE_TRUNCATED);
    EQ(h.proc, 4);
    EQ(h.uid, UINT32_MAX);
    free(p);
    p = dup_exact(call_sys, 68); /* cred complete, verifier missing */
    EQ(parse(p, 68, &h), DECODE_TRUNCATED);
    EQ(h.cred_flavor, AUTH_SYS_FLAVOR);
    free(p);
    p = dup_exact(call_none, 6); /* inside msg_type */
    EQ(parse(p, 6, &h), DECODE_TRUNCATED);
    EQ(h.xid, 0x12345678);
    free(p);
}

static void
test_invalid(void)
{
    uint8_t buf[sizeof call_none];
    struct rpc_hdr h;

    memcpy(buf, call_none, sizeof buf);
    buf[11] = 3; /* rpcvers 3 */
    EQ(parse(buf, sizeof buf, &h), DECODE_INVALID);
    EQ(parse(buf, 12, &h), DECODE_INVALID); /* known as soon as rpcvers is read */

    memcpy(buf, call_none, sizeof buf);
    buf[7] = 2; /* msg_type 2 */
    EQ(parse(buf, sizeof buf, &h), DECODE_INVALID);

    {
        static const uint8_t big_cred[] = {
            0x00, 0x00, 0x00, 0x01, /* xid */
            0x00, 0x00, 0x00, 0x00, /* msg_type CALL */
            0x00, 0x00, 0x00, 0x02, /* rpcvers 2 */
            0x00, 0x01, 0x86, 0xa3, /* prog 100003 */
            0x00, 0x00, 0x00, 0x03, /* vers 3 */
            0x00, 0x00, 0x00, 0x00, /* proc 0 */
            0x00, 0x00, 0x00, 0x01, /* cred flavor AUTH_SYS */
            0x00, 0x00, 0x01, 0x91, /* cred length 401: over RPC_MAX_AUTH_BYTES */
        };
        uint8_t *p = malloc(sizeof big_cred + 404);

        memcpy(p, big_cred, sizeof big_cred);
        memset(p + sizeof big_cred, 0, 404); /* the bytes are there: still invalid */
        EQ(parse(p, sizeof big_cred + 404, &h), DECODE_INVALID);
        p[sizeof big_cred - 1] = 0x90; /* 400: allowed */
        EQ(parse(p, sizeof big_cred + 404, &h), DECODE_TRUNCATED); /* no verifier left */
        free(p);
    }
    {
        static const uint8_t bad_reply_stat[] = {
            0x00, 0x00, 0x00, 0x01, /* xid */
            0x00, 0x00, 0x00, 0x01, /* msg_type REPLY */
            0x00, 0x00, 0x00, 0x02, /* reply_stat 2 */
        };
        EQ(parse(bad_reply_stat, sizeof bad_reply_stat, &h), DECODE_INVALID);
    }
    memcpy(buf, reply_ok, sizeof reply_ok);
    buf[23] = 6; /* accept_stat 6: beyond SYSTEM_ERR */
    EQ(parse(buf, sizeof reply_ok, &h), DECODE_INVALID);
    memcpy(buf, reply_auth_error, sizeof reply_auth_error);
    buf[15] = 2; /* reject_stat 2 */
    EQ(parse(buf, sizeof reply_auth_error, &h), DECODE_INVALID);
}

static void
test_replies(void)
{
    uint8_t *p = dup_exact(reply_ok, sizeof reply_ok);
    struct rpc_hdr h;

    EQ(parse(p, sizeof reply_ok, &h), DECODE_OK);
    EQ(h.xid, 0x12345678);
    EQ(h.msg_type, RPC_REPLY);
    EQ(h.reply_stat, MSG_ACCEPTED);
    EQ(h.accept_stat, RPC_SUCCESS);
    CHECK(h.body.p == p + REPLY_OK_HDR); /* right after accept_stat */
    EQ(h.body.len, 4);
    free(p);

    p = dup_exact(reply_prog_mismatch, sizeof reply_prog_mismatch);
    EQ(parse(p, sizeof reply_prog_mismatch, &h), DECODE_OK);
    EQ(h.accept_stat, PROG_MISMATCH);
    CHECK(h.body.p == p + sizeof reply_prog_mismatch); /* low/high consumed */
    EQ(h.body.len, 0);
    free(p);

    p = dup_exact(reply_proc_unavail, sizeof reply_proc_unavail);
    EQ(parse(p, sizeof reply_proc_unavail, &h), DECODE_OK);
    EQ(h.reply_stat, MSG_ACCEPTED);
    EQ(h.accept_stat, PROC_UNAVAIL);
    EQ(h.body.len, 0);
    free(p);

    p = dup_exact(reply_rpc_mismatch, sizeof reply_rpc_mismatch);
    EQ(parse(p, sizeof reply_rpc_mismatch, &h), DECODE_OK);
    EQ(h.reply_stat, MSG_DENIED);
    EQ(h.reject_stat, 0); /* RPC_MISMATCH */
    EQ(h.body.len, 0);
    free(p);

    p = dup_exact(reply_auth_error, sizeof reply_auth_error);
    EQ(parse(p, sizeof reply_auth_error, &h), DECODE_OK);
    EQ(h.reply_stat, MSG_DENIED);
    EQ(h.reject_stat, 1); /* AUTH_ERROR */
    EQ(h.body.len, 0);
    free(p);
}

static void
test_probe(void)
{
    static const uint8_t zeros[64];
    uint8_t rnd[64];
    uint64_t s = 0x9e3779b97f4a7c15ull;
    unsigned i, accepted = 0;
    size_t n;

    CHECK(probe(call_none, sizeof call_none, sizeof call_none));
    CHECK(probe(call_sys, sizeof call_sys, sizeof call_sys));
    CHECK(probe(call_gss, sizeof call_gss, sizeof call_gss));
    CHECK(probe(call_sys, sizeof call_sys, 200000)); /* head of a longer message */
    CHECK(probe(reply_ok, sizeof reply_ok, sizeof reply_ok));
    CHECK(probe(reply_ok, REPLY_OK_HDR, 8300)); /* READ reply head */
    CHECK(probe(reply_prog_mismatch, sizeof reply_prog_mismatch, sizeof reply_prog_mismatch));
    /* A complete MSG_DENIED/AUTH_ERROR reply is 20 bytes (RFC 5531 §9). */
    CHECK(probe(reply_auth_error, sizeof reply_auth_error, sizeof reply_auth_error));
    CHECK(probe(reply_rpc_mismatch, sizeof reply_rpc_mismatch, sizeof reply_rpc_mismatch));

    CHECK(!probe(zeros, sizeof zeros, sizeof zeros)); /* rpcvers 0 */
    CHECK(!probe(call_none, sizeof call_none, 23));   /* msg_len < 24 */
    CHECK(!probe(reply_ok, sizeof reply_ok, 23));
    CHECK(!probe(call_none, sizeof call_none, 39)); /* a call is at least 40 bytes */
    for (n = 0; n < 24; n++) {                      /* too short to tell */
        CHECK(!probe(call_none, n, sizeof call_none));
        CHECK(!probe(reply_ok, n, sizeof reply_ok));
    }
    /* every prefix of a real call: never reads past n (ASan), no crash */
    for (n = 24; n <= sizeof call_sys; n++)
        (void)probe(call_sys, n, sizeof call_sys);

    {
        uint8_t buf[sizeof call_none];
        memcpy(buf, call_none, sizeof buf);
        buf[27] = 9; /* cred flavor 9: unknown */
        CHECK(!probe(buf, sizeof buf, sizeof buf));
        memcpy(buf, call_none, sizeof buf);
        buf[12] = buf[13] = buf[14] = buf[15] = 0; /* prog 0 */
        CHECK(!probe(buf, sizeof buf, sizeof buf));
        memcpy(buf, call_none, sizeof buf);
        buf[18] = 0x10; /* vers 4096 */
        CHECK(!probe(buf, sizeof buf, sizeof buf));
        memcpy(buf, reply_ok, sizeof reply_ok);
        buf[15] = 9; /* verifier flavor 9 */
        CHECK(!probe(buf, sizeof reply_ok, sizeof reply_ok));
        memcpy(buf, reply_ok, sizeof reply_ok);
        buf[7] = 2; /* msg_type 2 */
        CHECK(!probe(buf, sizeof reply_ok, sizeof reply_ok));
    }

    /* random bytes (fixed seed): essentially never RPC */
    for (i = 0; i < 10000; i++) {
        size_t k;
        for (k = 0; k < sizeof rnd; k++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            rnd[k] = (uint8_t)(s >> 24);
        }
        n = (size_t)(s % (sizeof rnd + 1));
        if (probe(rnd, n, (uint32_t)(s >> 40)))
            accepted++;
    }
    EQ(accepted, 0);
}

/* An AUTH_SYS call with a machine name of name_len bytes and ngids gids
 * (the cred body holds ngids_have of them); returns its length. */
static size_t
sys_call(uint8_t *b, uint32_t name_len, uint32_t ngids, uint32_t ngids_have)
{
    size_t o = 0, body_at;
    uint32_t i;

    memcpy(b, call_sys, 24); /* xid .. proc */
    o = 24;
    b[o + 3] = 1, o += 4; /* AUTH_SYS */
    body_at = o, o += 4;  /* cred length, below */
    memset(b + o, 0, 4), o += 4; /* stamp */
    b[o] = (uint8_t)(name_len >> 24), b[o + 1] = (uint8_t)(name_len >> 16);
    b[o + 2] = (uint8_t)(name_len >> 8), b[o + 3] = (uint8_t)name_len, o += 4;
    memset(b + o, 'm', name_len), o += (name_len + 3) & ~3u;
    memset(b + o, 0, 8), o += 8; /* uid, gid 0 */
    b[o] = 0, b[o + 1] = 0, b[o + 2] = 0, b[o + 3] = (uint8_t)ngids, o += 4;
    for (i = 0; i < ngids_have; i++)
        memset(b + o, 0, 4), o += 4;
    i = (uint32_t)(o - body_at - 4);
    b[body_at] = 0, b[body_at + 1] = 0;
    b[body_at + 2] = (uint8_t)(i >> 8), b[body_at + 3] = (uint8_t)i;
    memset(b + o, 0, 8), o += 8; /* verifier AUTH_NONE */
    return o;
}

/* Credentials over their RFC 5531 limits set bad_cred. */
static void
test_bad_cred(void)
{
    static uint8_t b[1024];
    struct rpc_hdr h;
    size_t n;

    n = sys_call(b, 255, 16, 16); /* at the limits: fine */
    EQ(parse(b, n, &h), DECODE_OK);
    CHECK(!h.bad_cred);
    EQ(h.uid, 0);
    n = sys_call(b, 256, 0, 0); /* machinename<255> */
    EQ(parse(b, n, &h), DECODE_OK);
    CHECK(h.bad_cred);
    n = sys_call(b, 8, 17, 17); /* gids<16> */
    EQ(parse(b, n, &h), DECODE_OK);
    CHECK(h.bad_cred);
    EQ(h.uid, 0); /* uid and gid came before the bad part */
    n = sys_call(b, 8, 4, 2); /* the body ends inside the gids */
    EQ(parse(b, n, &h), DECODE_OK);
    CHECK(h.bad_cred);
    n = sys_call(b, 330, 16, 16); /* body 4 + 4 + 332 + 12 + 64 = 416 bytes: over 400 */
    EQ(parse(b, n, &h), DECODE_INVALID);
    CHECK(h.bad_cred);
    /* A verifier over 400 bytes. */
    n = sys_call(b, 8, 0, 0);
    b[n - 4] = 0x01, b[n - 3] = 0x91; /* verf length 401 */
    memset(b + n, 0, 404);
    EQ(parse(b, n + 404, &h), DECODE_INVALID);
    CHECK(h.bad_cred);
    /* Not set for other invalid headers. */
    memcpy(b, call_sys, sizeof call_sys);
    b[11] = 3; /* rpcvers 3 */
    EQ(parse(b, sizeof call_sys, &h), DECODE_INVALID);
    CHECK(!h.bad_cred);
}

#define MISMATCH(...)                                                                              \
    do {                                                                                           \
        t_fail++;                                                                                  \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
    } while (0)

/* rpc_hdr_parse (which reads common headers directly) against the general
 * parser: the same result and the same fields. */
static int
same_parse(const uint8_t *msg, size_t n)
{
    uint8_t *p = dup_exact(msg, n);
    struct bytes b = { p, n };
    struct rpc_hdr a, g;
    enum decode_rc ra = rpc_hdr_parse(b, &a), rg = rpc_hdr_parse_general(b, &g);
    int same = ra == rg && a.xid == g.xid && a.msg_type == g.msg_type &&
               a.rpcvers == g.rpcvers && a.prog == g.prog && a.vers == g.vers &&
               a.proc == g.proc && a.cred_flavor == g.cred_flavor && a.uid == g.uid &&
               a.gid == g.gid && a.gss == g.gss && a.gss_proc == g.gss_proc &&
               a.gss_service == g.gss_service && a.gss_seq == g.gss_seq &&
               a.gss_wrapped == g.gss_wrapped && a.bad_cred == g.bad_cred &&
               a.reply_stat == g.reply_stat && a.accept_stat == g.accept_stat &&
               a.reject_stat == g.reject_stat && a.verf_flavor == g.verf_flavor &&
               a.starttls == g.starttls;

    /* body is set on success only; each parser leaves it empty otherwise */
    same = same && (a.body.p == NULL) == (g.body.p == NULL) &&
           (!a.body.p || (a.body.p - p == g.body.p - p && a.body.len == g.body.len));
    free(p);
    return same;
}

/* Every prefix of a message, and every header word set to values at and
 * around the limits the direct read checks, then every prefix of those. */
static void
direct_vs_general(const uint8_t *msg, size_t n, unsigned *checked)
{
    static const uint32_t vals[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 24, 36, 40,
                                     255, 256, 257, 396, 397, 400, 401, 404, 0x7fffffff,
                                     0xfffffffc, 0xffffffff };
    uint8_t b[1024];
    size_t i, w, k, cut;

    for (cut = 0; cut <= n; cut++, (*checked)++)
        if (!same_parse(msg, cut))
            MISMATCH("rpc_hdr_parse differs from the general parser on %zu of %zu bytes", cut, n);
    for (w = 0; w + 4 <= n && w < 96; w += 4)
        for (k = 0; k < sizeof vals / sizeof vals[0]; k++) {
            memcpy(b, msg, n);
            for (i = 0; i < 4; i++)
                b[w + i] = (uint8_t)(vals[k] >> (24 - 8 * i));
            for (cut = w; cut <= n; cut++, (*checked)++)
                if (!same_parse(b, cut))
                    MISMATCH("rpc_hdr_parse differs from the general parser: word %zu = %u, "
                         "%zu of %zu bytes", w / 4, vals[k], cut, n);
        }
}

static void
test_direct_read(void)
{
    static const uint8_t starttls[] = {
        0x00, 0x00, 0x00, 0x0d, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, /* accepted */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 'S', 'T', 'A', 'R', 'T', 'T', 'L', 'S',
        0x00, 0x00, 0x00, 0x00, /* SUCCESS */
    };
    static uint8_t b[1024];
    unsigned checked = 0;
    uint32_t seed = 1;
    size_t n, i, j;

    direct_vs_general(call_none, sizeof call_none, &checked);
    direct_vs_general(call_sys, sizeof call_sys, &checked);
    direct_vs_general(call_gss, sizeof call_gss, &checked);
    direct_vs_general(reply_ok, sizeof reply_ok, &checked);
    direct_vs_general(reply_prog_mismatch, sizeof reply_prog_mismatch, &checked);
    direct_vs_general(reply_proc_unavail, sizeof reply_proc_unavail, &checked);
    direct_vs_general(reply_rpc_mismatch, sizeof reply_rpc_mismatch, &checked);
    direct_vs_general(reply_auth_error, sizeof reply_auth_error, &checked);
    direct_vs_general(starttls, sizeof starttls, &checked);
    n = sys_call(b, 255, 16, 16); /* at the limits */
    direct_vs_general(b, n, &checked);
    n = sys_call(b, 3, 1, 1);
    direct_vs_general(b, n, &checked);
    n = sys_call(b, 8, 17, 17);
    direct_vs_general(b, n, &checked);
    /* random bytes after a header that passes the first checks */
    for (i = 0; i < 20000; i++) {
        n = 24 + (i % 200);
        memcpy(b, i & 1 ? call_sys : reply_ok, 12);
        for (j = 12; j < n; j++) {
            seed = seed * 1103515245u + 12345u;
            b[j] = (uint8_t)(seed >> 16);
            if ((seed >> 8 & 3) != 0 && j % 4 != 3)
                b[j] = 0; /* mostly small words */
        }
        checked++;
        if (!same_parse(b, n))
            MISMATCH("rpc_hdr_parse differs from the general parser on random message %zu", i);
    }
    CHECK(checked > 50000);
}

int
main(void)
{
    test_call_auth_none();
    test_call_auth_sys();
    test_call_gss();
    test_gss_integ_body();
    test_tls_probe();
    test_gss_reply_verifier();
    test_truncated();
    test_invalid();
    test_replies();
    test_probe();
    test_bad_cred();
    test_direct_read();
    return t_done();
}
