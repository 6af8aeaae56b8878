/* SPDX-License-Identifier: BSD-3-Clause */
/* rpcbind_common.h: what RPCBIND versions 3 and 4 share (RFC 1833 §2).
 * Version 3's nine procedures are version 4's first nine (v3 CALLIT is v4
 * BCAST, the same rpcb_rmtcallargs); the dispatcher never passes a
 * procedure past a version's count, so one decoder serves both. Included by
 * rpcbind3.c and rpcbind4.c only; defines nothing with external linkage.
 *
 * No procedure has a status word. The rpcb arguments of SET, UNSET,
 * GETADDR, GETVERSADDR and GETADDRLIST and the SET/UNSET/GETADDR/GETVERSADDR
 * results are checked so that garbage is noticed; lists, statistics and
 * indirect-call results are not decoded. */
#ifndef NFSSCOPE_RPCBIND_COMMON_H
#define NFSSCOPE_RPCBIND_COMMON_H

#include <stddef.h>

#include "dissector.h"
#include "stats.h"
#include "xdr_cur.h"
#include "xid_table.h"

#define RPCB_MAXSTR 1024 /* netid, uaddr, owner: unbounded in RFC 1833; far above any real one */

enum { /* RFC 1833 §2.2 (version 4; version 3 stops at TADDR2UADDR) */
    RPCBPROC_NULL = 0, RPCBPROC_SET, RPCBPROC_UNSET, RPCBPROC_GETADDR, RPCBPROC_DUMP,
    RPCBPROC_BCAST /* v3: CALLIT */, RPCBPROC_GETTIME, RPCBPROC_UADDR2TADDR,
    RPCBPROC_TADDR2UADDR, RPCBPROC_GETVERSADDR, RPCBPROC_INDIRECT, RPCBPROC_GETADDRLIST,
    RPCBPROC_GETSTAT
};

/* rpcb: prog, vers, r_netid, r_addr, r_owner. */
static inline void
rpcb(struct xdr_cur *x)
{
    struct bytes s;

    xdr_cur_u32(x);
    xdr_cur_u32(x);
    xdr_cur_opaque(x, RPCB_MAXSTR, &s);
    xdr_cur_opaque(x, RPCB_MAXSTR, &s);
    xdr_cur_opaque(x, RPCB_MAXSTR, &s);
}

static inline enum decode_rc
rpcbind_call(struct xdr_cur *x, struct pending_call *pc, const struct op_sink *sub)
{
    (void)sub; /* one operation per call: the message is the operation */
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

static inline enum decode_rc
rpcbind_reply(struct xdr_cur *x, const struct pending_call *pc, struct op_event *ev,
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

#endif
