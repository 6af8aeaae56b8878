/* SPDX-License-Identifier: BSD-3-Clause */
/* rpc.h: ONC RPC message headers (RFC 5531 §9, §8.2 AUTH_SYS, RFC 2203 RPCSEC_GSS). */
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
       RPCSEC_GSS_FLAVOR = 6 };

#define RPC_MAX_AUTH_BYTES 400  /* RFC 5531 §8.2: opaque_auth body */
#define RPC_MAX_MACHINENAME 255 /* RFC 5531 Appendix A */
#define RPC_MAX_GIDS 16

struct rpc_hdr {
    uint32_t xid, msg_type;
    /* CALL */
    uint32_t rpcvers, prog, vers, proc;
    uint32_t cred_flavor;
    uint32_t uid, gid;       /* AUTH_SYS, else UINT32_MAX */
    bool gss_wrapped;        /* RPCSEC_GSS integrity/privacy or control: body not plain */
    bool bad_cred;           /* a credential or verifier over its limits: body over 400
                              * bytes (then DECODE_INVALID), or an AUTH_SYS body with a
                              * machine name over 255 bytes, over 16 gids or not parsing */
    /* REPLY */
    uint32_t reply_stat, accept_stat, reject_stat, verf_flavor;
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

/* Strict validation for resynchronising a TCP stream and for accepting a
 * reply with no known call: true only if the bytes parse as a call with
 * rpcvers 2 and a known auth flavor, or as a reply whose verifier and status
 * words are in range. Never reads past n. */
bool rpc_probe(const uint8_t *p, size_t n, uint32_t msg_len);

/* The same test on a header already parsed from n captured bytes (rc is what
 * rpc_hdr_parse returned), so a message is parsed once. */
bool rpc_hdr_plausible(const struct rpc_hdr *h, enum decode_rc rc, size_t n, uint32_t msg_len);

#endif
