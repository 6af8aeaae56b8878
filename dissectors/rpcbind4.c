/* rpcbind4.c: RPCBIND version 4 (RFC 1833 §2): counts and latency.
 *
 * No procedure has a status word. The rpcb arguments of SET, UNSET,
 * GETADDR, GETVERSADDR and GETADDRLIST and the SET/UNSET/GETADDR/
 * GETVERSADDR results are checked so that garbage is noticed; lists,
 * statistics and indirect-call results are not decoded. */
#include <stddef.h>

#include "dissector.h"
#include "stats.h"
#include "xdr_cur.h"
#include "xid_table.h"

#define RPCB_MAXSTR 1024 /* netid, uaddr, owner: unbounded in RFC 1833; far above any real one */

enum { /* RFC 1833 §2.2 (version 4) */
    RPCBPROC_NULL = 0, RPCBPROC_SET, RPCBPROC_UNSET, RPCBPROC_GETADDR, RPCBPROC_DUMP,
    RPCBPROC_BCAST, RPCBPROC_GETTIME, RPCBPROC_UADDR2TADDR, RPCBPROC_TADDR2UADDR,
    RPCBPROC_GETVERSADDR, RPCBPROC_INDIRECT, RPCBPROC_GETADDRLIST, RPCBPROC_GETSTAT,
    RPCB4_NPROCS
};

static const char *const rpcbind4_proc_names[RPCB4_NPROCS] = {
    "null", "set", "unset", "getaddr", "dump", "bcast", "gettime", "uaddr2taddr",
    "taddr2uaddr", "getversaddr", "indirect", "getaddrlist", "getstat",
};

/* rpcb: prog, vers, r_netid, r_addr, r_owner. */
static void
rpcb(struct xdr_cur *x)
{
    struct bytes s;

    xdr_cur_u32(x);
    xdr_cur_u32(x);
    xdr_cur_opaque(x, RPCB_MAXSTR, &s);
    xdr_cur_opaque(x, RPCB_MAXSTR, &s);
    xdr_cur_opaque(x, RPCB_MAXSTR, &s);
}

static enum decode_rc
rpcbind4_call(struct xdr_cur *x, struct pending_call *pc)
{
    switch (pc->proc) {
    case RPCBPROC_SET:
    case RPCBPROC_UNSET:
    case RPCBPROC_GETADDR:
    case RPCBPROC_GETVERSADDR:
    case RPCBPROC_GETADDRLIST:
        rpcb(x);
        break;
    case RPCBPROC_BCAST: /* rpcb_rmtcallargs: prog, vers, proc, args<> */
    case RPCBPROC_INDIRECT:
        xdr_cur_u32(x);
        xdr_cur_u32(x);
        xdr_cur_u32(x);
        break;
    default: /* NULL, DUMP, GETTIME, GETSTAT: void; the taddr/uaddr converters: not decoded */
        break;
    }
    return xdr_cur_status(x);
}

static enum decode_rc
rpcbind4_reply(struct xdr_cur *x, const struct pending_call *pc, struct op_event *ev,
               const struct op_sink *sub)
{
    struct bytes s;

    (void)ev;
    (void)sub;
    switch (pc->proc) {
    case RPCBPROC_SET: /* bool */
    case RPCBPROC_UNSET:
        xdr_cur_bool(x);
        break;
    case RPCBPROC_GETADDR: /* string uaddr, "" if not registered */
    case RPCBPROC_GETVERSADDR:
        xdr_cur_opaque(x, RPCB_MAXSTR, &s);
        break;
    default: /* NULL: void; the rest: not decoded */
        break;
    }
    return xdr_cur_status(x);
}

const struct rpc_program rpcbind4_program = {
    .name = "rpcbind4",
    .title = "RPCBIND v4",
    .prog = 100000,
    .vers = 4,
    .nprocs = RPCB4_NPROCS,
    .proc_names = rpcbind4_proc_names,
    .status_name = NULL,
    .call = rpcbind4_call,
    .reply = rpcbind4_reply,
};
