/* SPDX-License-Identifier: BSD-3-Clause */
/* portmap2.c: Port mapper version 2 (RFC 1833 §3): counts and latency.
 *
 * No procedure has a status word. SET, UNSET and GETPORT arguments (a
 * mapping) and the GETPORT, SET and UNSET results are checked so that
 * garbage is noticed; DUMP lists and CALLIT results are not decoded. */
#include <stddef.h>

#include "dissector.h"
#include "stats.h"
#include "xdr_cur.h"
#include "xid_table.h"

enum { /* RFC 1833 §3.2 */
    PMAPPROC_NULL = 0, PMAPPROC_SET, PMAPPROC_UNSET, PMAPPROC_GETPORT, PMAPPROC_DUMP,
    PMAPPROC_CALLIT, PMAP2_NPROCS
};

static const struct rpc_op portmap2_procs[PMAP2_NPROCS] = {
    { "null", OPK_NULL, 0 },
    { "set", OPK_PORT_SET, 0 },
    { "unset", OPK_PORT_UNSET, 0 },
    { "getport", OPK_PORT_LOOKUP, 0 },
    { "dump", OPK_PORT_LIST, 0 },
    { "callit", OPK_CALL_INDIRECT, 0 },
};

static enum decode_rc
portmap2_call(struct xdr_cur *x, struct pending_call *pc, const struct op_sink *sub)
{
    (void)sub; /* one operation per call: the message is the operation */
    switch (pc->proc) {
    case PMAPPROC_SET: /* mapping: prog, vers, prot, port */
    case PMAPPROC_UNSET:
    case PMAPPROC_GETPORT:
        xdr_cur_u32(x);
        xdr_cur_u32(x);
        xdr_cur_u32(x);
        xdr_cur_u32(x);
        break;
    case PMAPPROC_CALLIT: /* call_args: prog, vers, proc, args<> */
        xdr_cur_u32(x);
        xdr_cur_u32(x);
        xdr_cur_u32(x);
        break;
    default: /* NULL, DUMP: void */
        break;
    }
    return xdr_cur_status(x);
}

static enum decode_rc
portmap2_reply(struct xdr_cur *x, const struct pending_call *pc, struct op_event *ev,
               const struct op_sink *sub)
{
    uint32_t port;

    (void)ev;
    (void)sub;
    switch (pc->proc) {
    case PMAPPROC_SET: /* bool */
    case PMAPPROC_UNSET:
        xdr_cur_bool(x);
        break;
    case PMAPPROC_GETPORT: /* unsigned int port, 0 if not registered */
        port = xdr_cur_u32(x);
        if (xdr_cur_ok(x) && port > 65535)
            xdr_cur_invalid(x);
        break;
    default: /* NULL: void; DUMP, CALLIT: not decoded */
        break;
    }
    return xdr_cur_status(x);
}

const struct rpc_program portmap2_program = {
    .name = "portmap2",
    .title = "Portmap v2",
    .prog = 100000,
    .vers = 2,
    .nprocs = PMAP2_NPROCS,
    .procs = portmap2_procs,
    .status_name = NULL,
    .call = portmap2_call,
    .reply = portmap2_reply,
};
