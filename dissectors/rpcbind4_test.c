/* SPDX-License-Identifier: BSD-3-Clause */
/* rpcbind4_test.c: unit tests for the rpcbind v4 dissector (RFC 1833 §2). */
#include "dissector_test.h"

enum { P_NULL = 0, P_SET = 1, P_UNSET = 2, P_GETADDR = 3, P_DUMP = 4, P_BCAST = 5,
       P_GETTIME = 6, P_GETVERSADDR = 9, P_INDIRECT = 10, P_GETADDRLIST = 11, P_GETSTAT = 12 };

static const struct rpc_program *pg;

/* rpcb: where is NFS v3 over tcp6? (as libtirpc's rpcb_getaddr asks) */
static const uint8_t getaddr_args[] = {
    0x00, 0x01, 0x86, 0xa3,                         /* r_prog 100003 */
    0x00, 0x00, 0x00, 0x03,                         /* r_vers 3 */
    0x00, 0x00, 0x00, 0x04,                         /* r_netid length 4 */
    0x74, 0x63, 0x70, 0x36,                         /* "tcp6" */
    0x00, 0x00, 0x00, 0x09,                         /* r_addr length 9 */
    0x3a, 0x3a, 0x31, 0x2e, 0x30, 0x2e, 0x31, 0x31, /* "::1.0.111" (port 111) */
    0x31, 0x00, 0x00, 0x00,                         /*   + 3 pad bytes */
    0x00, 0x00, 0x00, 0x00,                         /* r_owner length 0 */
};

/* the server's NFS address: port 2049 = 8 * 256 + 1 */
static const uint8_t getaddr_res[] = {
    0x00, 0x00, 0x00, 0x07,                         /* uaddr length 7 */
    0x3a, 0x3a, 0x31, 0x2e, 0x38, 0x2e, 0x31, 0x00, /* "::1.8.1" + 1 pad byte */
};

static void
test_registry(void)
{
    static const char *const names[] = { "null", "set", "unset", "getaddr", "dump", "bcast",
                                          "gettime", "uaddr2taddr", "taddr2uaddr",
                                          "getversaddr", "indirect", "getaddrlist", "getstat" };

    pg = dt_program("rpcbind4", 100000, 4, 13);
    if (!pg)
        return;
    STREQ(pg->title, "RPCBIND v4");
    dt_proc_names(pg, names, 13);
    CHECK(pg->status_name == NULL);
}

static void
test_ops(void)
{
    static const uint8_t long_netid[] = {
        0x00, 0x01, 0x86, 0xa3, /* r_prog */
        0x00, 0x00, 0x00, 0x03, /* r_vers */
        0x00, 0x00, 0x08, 0x00, /* r_netid length 2048: over the bound */
    };
    static const uint8_t bool_res[] = {
        0x00, 0x00, 0x00, 0x00, /* FALSE */
    };
    struct pending_call pc;
    struct op_event ev;

    dt_pc(&pc, pg, P_GETADDR);
    EQ(dt_call(pg, getaddr_args, sizeof getaddr_args, &pc), DECODE_OK);
    EQ(dt_call_cuts(pg, P_GETADDR, getaddr_args, 0, sizeof getaddr_args), 0);
    EQ(dt_call_cuts(pg, P_SET, getaddr_args, 0, sizeof getaddr_args), 0);
    dt_pc(&pc, pg, P_UNSET);
    EQ(dt_call(pg, long_netid, sizeof long_netid, &pc), DECODE_INVALID);
    dt_pc(&pc, pg, P_BCAST);
    EQ(dt_call(pg, getaddr_args, 12, &pc), DECODE_OK);
    EQ(dt_call_cuts(pg, P_INDIRECT, getaddr_args, 0, 12), 0);
    EQ(dt_call_cuts(pg, P_GETVERSADDR, getaddr_args, 0, sizeof getaddr_args), 0);
    EQ(dt_call_cuts(pg, P_GETADDRLIST, getaddr_args, 0, sizeof getaddr_args), 0);
    dt_pc(&pc, pg, P_GETSTAT);
    EQ(dt_call(pg, getaddr_args, 0, &pc), DECODE_OK);
    dt_pc(&pc, pg, P_GETTIME);
    EQ(dt_call(pg, getaddr_args, 0, &pc), DECODE_OK);

    dt_pc(&pc, pg, P_GETADDR);
    dt_ev(&ev);
    EQ(dt_reply(pg, getaddr_res, sizeof getaddr_res, &pc, &ev), DECODE_OK);
    CHECK(!ev.has_status);
    EQ(dt_reply_cuts(pg, &pc, getaddr_res, 0, sizeof getaddr_res, 99, 0), 0);
    dt_pc(&pc, pg, P_GETVERSADDR);
    EQ(dt_reply_cuts(pg, &pc, getaddr_res, 0, sizeof getaddr_res, 99, 0), 0);

    dt_pc(&pc, pg, P_SET);
    dt_ev(&ev);
    EQ(dt_reply(pg, bool_res, sizeof bool_res, &pc, &ev), DECODE_OK);
    CHECK(!ev.has_status);
    EQ(dt_reply_cuts(pg, &pc, bool_res, 0, sizeof bool_res, 99, 0), 0);

    dt_pc(&pc, pg, P_DUMP); /* rp__list: not decoded */
    dt_ev(&ev);
    EQ(dt_reply(pg, getaddr_res, 2, &pc, &ev), DECODE_OK);
    CHECK(!ev.has_status);
}

int
main(void)
{
    test_registry();
    if (!pg)
        return t_done();
    test_ops();
    return t_done();
}
