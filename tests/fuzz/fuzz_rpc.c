/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_rpc.c: ONC RPC headers on raw bytes (rpc_hdr_parse, rpc_probe).
 *
 * The input is one RPC message, record marks removed. Both functions see a
 * buffer of exactly the input's length; rpc_probe is also asked with the
 * message length claimed longer than the bytes (a head cut short), as
 * rpc_rm does. The body is also read as RPCSEC_GSS integrity data
 * (rpc_gss_integ_body). Checked: the body view, and the arguments inside
 * the integrity wrapping, lie inside the message, and a message rpc_probe
 * accepts parses as a call or a reply, and rpc_hdr_parse (which reads
 * common headers directly) agrees with the general parser. */
#include <stdlib.h>

#include "fuzz.h"
#include "rpc.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct bytes msg = { data, size };
    struct rpc_hdr h;
    enum decode_rc rc = rpc_hdr_parse(msg, &h);
    uint32_t len = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
    struct rpc_hdr g;
    bool ok;

    if (rpc_hdr_parse_general(msg, &g) != rc || g.xid != h.xid || g.msg_type != h.msg_type ||
        g.prog != h.prog || g.vers != h.vers || g.proc != h.proc ||
        g.cred_flavor != h.cred_flavor || g.uid != h.uid || g.gid != h.gid ||
        g.gss_wrapped != h.gss_wrapped || g.bad_cred != h.bad_cred ||
        g.accept_stat != h.accept_stat || g.verf_flavor != h.verf_flavor ||
        g.starttls != h.starttls || g.body.p != h.body.p || g.body.len != h.body.len)
        abort();
    if (rc == DECODE_OK) {
        if (h.msg_type > RPC_REPLY)
            abort();
        if (h.body.len > 0 && (h.body.p < data || h.body.len > size ||
                               (size_t)(h.body.p - data) > size - h.body.len))
            abort(); /* body outside the message */
        if (rc == DECODE_OK) {
            struct bytes args;
            uint32_t seq;
            bool whole;

            if (rpc_gss_integ_body(h.body, &seq, &args, &whole) == DECODE_OK &&
                args.len > 0 && (args.p < h.body.p || args.len > h.body.len ||
                                 (size_t)(args.p - h.body.p) > h.body.len - args.len))
                abort(); /* arguments outside the body */
        }
    }
    ok = rpc_probe(data, size, len);
    if (ok && rc == DECODE_OK && h.msg_type > RPC_REPLY)
        abort();
    (void)rpc_probe(data, size, len + 4096);
    (void)rpc_probe(data, size, len > 20 ? len - 1 : 20);
    return 0;
}
