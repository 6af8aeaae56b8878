/* SPDX-License-Identifier: BSD-3-Clause */
/* nsm1.c: Network Status Monitor version 1 (program 100024, "status"; XNFS
 * 3W chapter 12, Linux fs/lockd/mon.c and nfs-utils statd): counts, latency
 * and the STAT/MON result.
 *
 * STAT and MON return sm_stat_res, whose first word res_stat (STAT_SUCC,
 * STAT_FAIL) is the status; UNMON and UNMON_ALL return only the monitor's
 * state number, SIMU_CRASH and NOTIFY nothing. */
#include <stddef.h>

#include "dissector.h"
#include "stats.h"
#include "valname.h"
#include "xdr_cur.h"
#include "xid_table.h"

#define SM_MAXSTRLEN 1024 /* XNFS 12: mon_name, my_name string<SM_MAXSTRLEN> */

enum { /* XNFS 12 procedure numbers */
    SM_NULL = 0, SM_STAT, SM_MON, SM_UNMON, SM_UNMON_ALL, SM_SIMU_CRASH, SM_NOTIFY, NSM1_NPROCS
};

static const struct rpc_op nsm1_procs[NSM1_NPROCS] = {
    { "null", OPK_NULL, 0 },
    { "stat", OPK_STATUS, 0 },
    { "mon", OPK_MONITOR, 0 },
    { "unmon", OPK_UNMONITOR, 0 },
    { "unmon_all", OPK_UNMONITOR, 0 },
    { "simu_crash", OPK_NOTIFY, 0 },
    { "notify", OPK_NOTIFY, 0 },
};

static const struct valname nsm1_status_names[] = { /* XNFS 12 res */
    { 0, "STAT_SUCC" }, { 1, "STAT_FAIL" }, { 0, NULL },
};

static const char *
nsm1_status_name(uint32_t status)
{
    return valname(nsm1_status_names, status);
}

static enum decode_rc
nsm1_call(struct xdr_cur *x, struct pending_call *pc, const struct op_sink *sub)
{
    struct bytes s;
    (void)sub; /* one operation per call: the message is the operation */

    switch (pc->proc) {
    case SM_STAT:    /* sm_name: mon_name */
    case SM_MON:     /* mon: mon_id (mon_name, my_id (my_name, ...)), priv */
    case SM_UNMON:   /* mon_id: mon_name, my_id */
    case SM_NOTIFY:  /* stat_chge: mon_name, state */
    case SM_UNMON_ALL: /* my_id: my_name, ... */
        xdr_cur_opaque(x, SM_MAXSTRLEN, &s);
        break;
    default: /* NULL, SIMU_CRASH: void */
        break;
    }
    return xdr_cur_status(x);
}

static enum decode_rc
nsm1_reply(struct xdr_cur *x, const struct pending_call *pc, struct op_event *ev,
           const struct op_sink *sub)
{
    uint32_t res;

    (void)sub;
    if (pc->proc != SM_STAT && pc->proc != SM_MON)
        return DECODE_OK;
    res = xdr_cur_u32(x); /* sm_stat_res: res_stat, state */
    if (xdr_cur_ok(x)) {
        ev->has_status = true;
        ev->status = res;
    }
    return xdr_cur_status(x);
}

const struct rpc_program nsm1_program = {
    .name = "nsm1",
    .title = "NSM (status) v1",
    .prog = 100024,
    .vers = 1,
    .nprocs = NSM1_NPROCS,
    .procs = nsm1_procs,
    .status_name = nsm1_status_name,
    .call = nsm1_call,
    .reply = nsm1_reply,
};
