/* rpcbind3.c: RPCBIND version 3 (RFC 1833 §2): counts and latency.
 *
 * No procedure has a status word. The rpcb arguments of SET, UNSET and
 * GETADDR and the SET/UNSET/GETADDR results are checked so that garbage is
 * noticed; lists and CALLIT results are not decoded. */
#include <stddef.h>

#include "dissector.h"
#include "stats.h"
#include "xdr_cur.h"
#include "xid_table.h"

#define RPCB_MAXSTR 1024 /* netid, uaddr, owner: unbounded in RFC 1833; far above any real one */

enum { /* RFC 1833 §2.2 (version 3) */
    RPCBPROC_NULL = 0, RPCBPROC_SET, RPCBPROC_UNSET, RPCBPROC_GETADDR, RPCBPROC_DUMP,
    RPCBPROC_CALLIT, RPCBPROC_GETTIME, RPCBPROC_UADDR2TADDR, RPCBPROC_TADDR2UADDR,
    RPCB3_NPROCS
};

static const char *const rpcbind3_proc_names[RPCB3_NPROCS] = {
    "null", "set", "unset", "getaddr", "dump", "callit", "gettime", "uaddr2taddr",
    "taddr2uaddr",
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
rpcbind3_call(struct xdr_cur *x, struct pending_call *pc)
{
    switch (pc->proc) {
    case RPCBPROC_SET:
    case RPCBPROC_UNSET:
    case RPCBPROC_GETADDR:
        rpcb(x);
        break;
    case RPCBPROC_CALLIT: /* rpcb_rmtcallargs: prog, vers, proc, args<> */
        xdr_cur_u32(x);
        xdr_cur_u32(x);
        xdr_cur_u32(x);
        break;
    default: /* NULL, DUMP, GETTIME: void; the taddr/uaddr converters: not decoded */
        break;
    }
    return xdr_cur_status(x);
}

static enum decode_rc
rpcbind3_reply(struct xdr_cur *x, const struct pending_call *pc, struct op_event *ev,
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
        xdr_cur_opaque(x, RPCB_MAXSTR, &s);
        break;
    default: /* NULL: void; the rest: not decoded */
        break;
    }
    return xdr_cur_status(x);
}

const struct rpc_program rpcbind3_program = {
    .name = "rpcbind3",
    .title = "RPCBIND v3",
    .prog = 100000,
    .vers = 3,
    .nprocs = RPCB3_NPROCS,
    .proc_names = rpcbind3_proc_names,
    .status_name = NULL,
    .call = rpcbind3_call,
    .reply = rpcbind3_reply,
};
