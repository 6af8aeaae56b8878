/* SPDX-License-Identifier: BSD-3-Clause */
/* rpc.c: ONC RPC call and reply headers (RFC 5531 §9), RPCSEC_GSS credentials
 * (RFC 2203 §5) and the RPC-over-TLS probe (RFC 9289 §4.1). */
#include "rpc.h"

#include <string.h>

#include "xdr_cur.h"

/* opaque_auth (RFC 5531 §8.2): flavor, body<400>. A body over 400 bytes
 * makes the cursor invalid and sets h->bad_cred. */
static inline uint32_t
opaque_auth(struct xdr_cur *x, struct bytes *body, struct rpc_hdr *h)
{
    uint32_t flavor = xdr_cur_u32(x);
    bool ok = xdr_cur_ok(x);

    xdr_cur_opaque(x, RPC_MAX_AUTH_BYTES, body);
    if (ok && xdr_cur_status(x) == DECODE_INVALID)
        h->bad_cred = true;
    return flavor;
}

/* authsys_parms (RFC 5531 Appendix A): stamp, machinename<255>, uid, gid,
 * gids<16>. The body is complete (opaque_auth checked it), so anything that
 * does not parse, or runs over a limit, is a bad credential. */
static void
auth_sys(struct bytes body, struct rpc_hdr *h)
{
    struct xdr_cur c;
    struct bytes name;
    uint32_t uid, gid, ngids;

    xdr_cur_init(&c, body);
    xdr_cur_u32(&c);
    xdr_cur_opaque(&c, RPC_MAX_MACHINENAME, &name);
    uid = xdr_cur_u32(&c);
    gid = xdr_cur_u32(&c);
    if (xdr_cur_ok(&c)) {
        h->uid = uid;
        h->gid = gid;
    }
    ngids = xdr_cur_u32(&c);
    if (xdr_cur_ok(&c) && ngids > RPC_MAX_GIDS)
        xdr_cur_invalid(&c);
    else
        xdr_cur_skip(&c, ngids * 4); /* <= 64 */
    if (!xdr_cur_ok(&c))
        h->bad_cred = true;
}

/* rpc_gss_cred_vers_1_t (RFC 2203 §5): version (RPCSEC_GSS_VERS_1), gss_proc,
 * seq_num, service, handle<>. The arguments are plain only for
 * RPCSEC_GSS_DATA with rpc_gss_svc_none; integrity and privacy wrap them
 * (§5.3.2.2, §5.3.2.3), control messages carry their own (§5.2). */
static void
gss_cred(struct bytes body, struct rpc_hdr *h)
{
    struct xdr_cur c;
    struct bytes handle;
    uint32_t vers, proc, seq, service;

    xdr_cur_init(&c, body);
    vers = xdr_cur_u32(&c);
    proc = xdr_cur_u32(&c);
    seq = xdr_cur_u32(&c);
    service = xdr_cur_u32(&c);
    xdr_cur_opaque(&c, RPC_MAX_AUTH_BYTES, &handle);
    h->gss_wrapped = true;
    if (!xdr_cur_ok(&c) || vers != 1 || proc > RPCSEC_GSS_DESTROY ||
        service < RPC_GSS_SVC_NONE || service > RPC_GSS_SVC_PRIVACY)
        return;
    h->gss = true;
    h->gss_proc = (uint8_t)proc;
    h->gss_service = (uint8_t)service;
    h->gss_seq = seq;
    h->gss_wrapped = proc != RPCSEC_GSS_DATA || service != RPC_GSS_SVC_NONE;
}

enum decode_rc
rpc_gss_integ_body(struct bytes body, uint32_t *seq, struct bytes *args, bool *whole)
{
    struct xdr_cur c;
    uint32_t len;

    *whole = false; /* as the two errors below return it */
    xdr_cur_init(&c, body);
    len = xdr_cur_u32(&c);
    *seq = xdr_cur_u32(&c);
    if (!xdr_cur_ok(&c))
        return xdr_cur_status(&c);
    if (len < 4)
        return DECODE_INVALID;
    args->p = body.p + 8;
    args->len = body.len - 8;
    *whole = len - 4 <= args->len;
    if (*whole)
        args->len = len - 4;
    return DECODE_OK;
}

static inline uint32_t
be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint32_t
pad4(uint32_t n)
{
    return (n + 3) & ~3u;
}

/* authsys_parms within the credential's len bytes at b, all of it within
 * its limits: else false (the general parser decides). */
static inline bool
auth_sys_direct(const uint8_t *b, uint32_t len, struct rpc_hdr *h)
{
    uint32_t name, o, ngids;

    if (len < 8)
        return false;
    name = be32(b + 4);
    if (name > RPC_MAX_MACHINENAME)
        return false;
    o = 8 + pad4(name);
    if (o + 12 > len)
        return false;
    ngids = be32(b + o + 8);
    if (ngids > RPC_MAX_GIDS || o + 12 + 4 * ngids > len)
        return false;
    h->uid = be32(b + o);
    h->gid = be32(b + o + 4);
    return true;
}

/* The common headers read straight from the bytes, without a cursor: a call
 * with rpcvers 2, an AUTH_SYS credential within its limits or one that is
 * not looked into (not RPCSEC_GSS), a verifier of at most 400 bytes; an
 * accepted reply with such a verifier and an accept_stat other than
 * PROG_MISMATCH; each wholly in the head. *h was reset by the caller. False
 * for anything else: the general parser (rpc_hdr_parse_general) then gives
 * the result, as it gives the same one for these (rpc_test checks). */
static inline bool
hdr_direct(struct bytes msg, struct rpc_hdr *h)
{
    const uint8_t *p = msg.p;
    size_t n = msg.len, o;
    uint32_t flavor, len;

    if (!p || n < 24 || n > UINT32_MAX - 4)
        return false;
    h->xid = be32(p);
    h->msg_type = be32(p + 4);
    if (h->msg_type == RPC_CALL) {
        /* xid .. proc, the credential's flavor and length, the verifier's */
        if (n < 40 || be32(p + 8) != 2)
            return false;
        h->rpcvers = 2;
        h->prog = be32(p + 12);
        h->vers = be32(p + 16);
        h->proc = be32(p + 20);
        flavor = be32(p + 24);
        len = be32(p + 28);
        if (len > RPC_MAX_AUTH_BYTES || pad4(len) > n - 40 || flavor == RPCSEC_GSS_FLAVOR)
            return false;
        if (flavor == AUTH_SYS_FLAVOR && !auth_sys_direct(p + 32, len, h))
            return false;
        h->cred_flavor = flavor;
        o = 40 + pad4(len);
        len = be32(p + o - 4); /* the verifier's */
        if (len > RPC_MAX_AUTH_BYTES || pad4(len) > n - o)
            return false;
        o += pad4(len);
    } else if (h->msg_type == RPC_REPLY) {
        /* xid, msg_type, reply_stat, the verifier's flavor and length,
         * accept_stat */
        if (be32(p + 8) != MSG_ACCEPTED)
            return false;
        flavor = be32(p + 12);
        len = be32(p + 16);
        if (len > RPC_MAX_AUTH_BYTES || pad4(len) > n - 24)
            return false;
        o = 20 + pad4(len);
        h->accept_stat = be32(p + o);
        if (h->accept_stat > SYSTEM_ERR || h->accept_stat == PROG_MISMATCH)
            return false;
        h->verf_flavor = flavor;
        h->starttls = flavor == AUTH_NONE_FLAVOR && len == 8 && memcmp(p + 20, "STARTTLS", 8) == 0;
        o += 4;
    } else {
        return false;
    }
    h->body.p = p + o;
    h->body.len = n - o;
    return true;
}

enum decode_rc
rpc_hdr_parse(struct bytes msg, struct rpc_hdr *h)
{
    *h = (struct rpc_hdr){ .uid = UINT32_MAX, .gid = UINT32_MAX };
    if (hdr_direct(msg, h))
        return DECODE_OK;
    return rpc_hdr_parse_general(msg, h);
}

enum decode_rc
rpc_hdr_parse_general(struct bytes msg, struct rpc_hdr *h)
{
    struct xdr_cur x;
    struct bytes cred, verf;
    uint32_t pos;

    *h = (struct rpc_hdr){ .uid = UINT32_MAX, .gid = UINT32_MAX };
    xdr_cur_init(&x, msg);
    h->xid = xdr_cur_u32(&x);
    h->msg_type = xdr_cur_enum(&x, RPC_REPLY);
    if (!xdr_cur_ok(&x))
        return xdr_cur_status(&x);
    if (h->msg_type == RPC_CALL) {
        h->rpcvers = xdr_cur_u32(&x);
        if (xdr_cur_ok(&x) && h->rpcvers != 2)
            return DECODE_INVALID;
        h->prog = xdr_cur_u32(&x);
        h->vers = xdr_cur_u32(&x);
        h->proc = xdr_cur_u32(&x);
        h->cred_flavor = opaque_auth(&x, &cred, h);
        if (!xdr_cur_ok(&x))
            return xdr_cur_status(&x);
        if (h->cred_flavor == AUTH_SYS_FLAVOR)
            auth_sys(cred, h);
        else if (h->cred_flavor == RPCSEC_GSS_FLAVOR)
            gss_cred(cred, h);
        opaque_auth(&x, &verf, h);
    } else {
        h->reply_stat = xdr_cur_enum(&x, MSG_DENIED);
        if (!xdr_cur_ok(&x))
            return xdr_cur_status(&x);
        if (h->reply_stat == MSG_ACCEPTED) {
            h->verf_flavor = opaque_auth(&x, &verf, h);
            h->starttls = xdr_cur_ok(&x) && h->verf_flavor == AUTH_NONE_FLAVOR &&
                          verf.len == 8 && memcmp(verf.p, "STARTTLS", 8) == 0;
            h->accept_stat = xdr_cur_enum(&x, SYSTEM_ERR);
            if (xdr_cur_ok(&x) && h->accept_stat == PROG_MISMATCH) {
                xdr_cur_u32(&x); /* low */
                xdr_cur_u32(&x); /* high */
            }
        } else {
            h->reject_stat = xdr_cur_enum(&x, 1); /* RPC_MISMATCH, AUTH_ERROR */
            xdr_cur_u32(&x);                      /* low version / auth_stat */
            if (xdr_cur_ok(&x) && h->reject_stat == 0)
                xdr_cur_u32(&x); /* high version */
        }
    }
    if (!xdr_cur_ok(&x))
        return xdr_cur_status(&x);
    pos = xdr_cur_pos(&x);
    h->body.p = msg.p + pos;
    h->body.len = msg.len - pos;
    return DECODE_OK;
}

static bool
flavor_known(uint32_t f)
{
    return f <= AUTH_DH_FLAVOR || f == RPCSEC_GSS_FLAVOR || f == AUTH_TLS_FLAVOR ||
           f == 4 /* RPCSEC_KERB */ ||
           f == 390003 || f == 390004 || f == 390005; /* Kerberos pseudo-flavors */
}

bool
rpc_hdr_plausible(const struct rpc_hdr *h, enum decode_rc rc, size_t n, uint32_t msg_len)
{
    /* The shortest message is a rejected AUTH_ERROR reply: xid, msg_type,
     * reply_stat, reject_stat, auth_stat (20 bytes, RFC 5531 §9). */
    if (msg_len < 20 || n < 20 || rc == DECODE_INVALID)
        return false;
    if (h->msg_type == RPC_CALL) {
        /* xid, msg_type, rpcvers, prog, vers, proc: 24 bytes at least (a
         * snapshot length of 96 leaves 26 after Ethernet, IPv4, TCP with
         * timestamps and the record mark); the credential flavor when
         * captured. */
        if (n < 24 || msg_len < 40 || h->rpcvers != 2)
            return false;
        if (n >= 28 && !flavor_known(h->cred_flavor))
            return false;
        /* Program numbers: 0x20000000-0x3fffffff are "defined by user", the
         * rest assigned; vers and proc are small in every real protocol. */
        return h->vers < 1024 && h->proc < 4096 && h->prog != 0;
    }
    /* Reply: a complete header, verifier flavor known, status words in range. */
    if (rc != DECODE_OK)
        return false;
    if (h->reply_stat == MSG_ACCEPTED)
        return msg_len >= 24 && flavor_known(h->verf_flavor);
    return true;
}

bool
rpc_probe(const uint8_t *p, size_t n, uint32_t msg_len)
{
    struct bytes b = { p, n };
    struct rpc_hdr h;

    if (msg_len < 20 || n < 20)
        return false;
    return rpc_hdr_plausible(&h, rpc_hdr_parse(b, &h), n, msg_len);
}
