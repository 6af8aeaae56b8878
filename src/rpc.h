/* SPDX-License-Identifier: BSD-3-Clause */
/* rpc.h: ONC RPC message headers (RFC 5531 §9, §8.2 AUTH_SYS, RFC 2203 RPCSEC_GSS,
 * RFC 9289 AUTH_TLS). */
#ifndef NFSSCOPE_RPC_H
#define NFSSCOPE_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes.h"

enum { RPC_CALL = 0, RPC_REPLY = 1 };
enum { MSG_ACCEPTED = 0, MSG_DENIED = 1 };
enum { RPC_SUCCESS = 0, PROG_UNAVAIL, PROG_MISMATCH, PROC_UNAVAIL, GARBAGE_ARGS, SYSTEM_ERR };
enum { AUTH_NONE_FLAVOR = 0, AUTH_SYS_FLAVOR = 1, AUTH_SHORT_FLAVOR = 2, AUTH_DH_FLAVOR = 3,
       RPCSEC_GSS_FLAVOR = 6, AUTH_TLS_FLAVOR = 7 };
/* rpc_gss_proc_t and rpc_gss_service_t (RFC 2203 §5). */
enum { RPCSEC_GSS_DATA = 0, RPCSEC_GSS_INIT = 1, RPCSEC_GSS_CONTINUE_INIT = 2,
       RPCSEC_GSS_DESTROY = 3 };
enum { RPC_GSS_SVC_NONE = 1, RPC_GSS_SVC_INTEGRITY = 2, RPC_GSS_SVC_PRIVACY = 3 };

#define RPC_MAX_AUTH_BYTES 400  /* RFC 5531 §8.2: opaque_auth body */
#define RPC_MAX_MACHINENAME 255 /* RFC 5531 Appendix A */
#define RPC_MAX_GIDS 16

struct rpc_hdr {
    uint32_t xid, msg_type;
    /* CALL */
    uint32_t rpcvers, prog, vers, proc;
    uint32_t cred_flavor;
    uint32_t uid, gid;       /* AUTH_SYS, else UINT32_MAX */
    /* RPCSEC_GSS: the credential is rpc_gss_cred_vers_1_t (RFC 2203 §5);
     * gss is false when it does not parse (then gss_wrapped). */
    bool gss;
    uint8_t gss_proc;        /* RPCSEC_GSS_DATA ... RPCSEC_GSS_DESTROY */
    uint8_t gss_service;     /* RPC_GSS_SVC_NONE ... RPC_GSS_SVC_PRIVACY */
    uint32_t gss_seq;        /* seq_num */
    bool gss_wrapped;        /* RPCSEC_GSS integrity/privacy or control: body not plain */
    bool bad_cred;           /* a credential or verifier over its limits: body over 400
                              * bytes (then DECODE_INVALID), or an AUTH_SYS body with a
                              * machine name over 255 bytes, over 16 gids or not parsing */
    /* REPLY */
    uint32_t reply_stat, accept_stat, reject_stat, verf_flavor;
    bool starttls;           /* accepted, verifier AUTH_NONE with body "STARTTLS": the
                              * answer to an AUTH_TLS probe (RFC 9289 §4.1) */
    /* Arguments (call) or results (accepted SUCCESS reply): the rest of the head. */
    struct bytes body;
};

/* Parse the header of one RPC message (the record's bytes, marks removed).
 * DECODE_OK: *out filled, body set. DECODE_TRUNCATED: the head ended early;
 * fields up to that point are filled (xid and msg_type need 8 bytes).
 * DECODE_INVALID: a field is impossible (rpcvers != 2, msg_type > 1, an auth
 * body over 400 bytes (bad_cred set too), reply_stat > 1 ...). An AUTH_SYS
 * credential over its own limits sets bad_cred but keeps DECODE_OK: the
 * message is still a call (the server answers AUTH_BADCRED). */
enum decode_rc rpc_hdr_parse(struct bytes msg, struct rpc_hdr *out);
/* The same, always through the general (cursor) parser: rpc_hdr_parse reads
 * the common headers directly and must agree with it (rpc_test). */
enum decode_rc rpc_hdr_parse_general(struct bytes msg, struct rpc_hdr *out);

/* rpc_gss_integ_data (RFC 2203 §5.3.2.2), the body of an integrity-protected
 * call or successful reply: databody_integ<> holds seq_num, then the
 * procedure's arguments or results; the checksum follows. *seq and *args
 * (the arguments as far as `body` holds them) are set; *whole: all of them
 * are in body. DECODE_TRUNCATED: body ends before seq_num. DECODE_INVALID:
 * databody_integ is shorter than its seq_num. On either, *whole is false and
 * *args is left as it was. */
enum decode_rc rpc_gss_integ_body(struct bytes body, uint32_t *seq, struct bytes *args,
                                  bool *whole);

/* Strict validation for resynchronising a TCP stream and for accepting a
 * reply with no known call: true only if the bytes parse as a call with
 * rpcvers 2 and a known auth flavor, or as a reply whose verifier and status
 * words are in range. Never reads past n. */
bool rpc_probe(const uint8_t *p, size_t n, uint32_t msg_len);

/* The same test on a header already parsed from n captured bytes (rc is what
 * rpc_hdr_parse returned), so a message is parsed once. */
bool rpc_hdr_plausible(const struct rpc_hdr *h, enum decode_rc rc, size_t n, uint32_t msg_len);

#endif
