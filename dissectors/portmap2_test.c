/* SPDX-License-Identifier: BSD-3-Clause */
/* portmap2_test.c: unit tests for the portmap v2 dissector (RFC 1833 §3). */
#include "dissector_test.h"

enum { P_NULL = 0, P_SET = 1, P_UNSET = 2, P_GETPORT = 3, P_DUMP = 4, P_CALLIT = 5 };

static const struct rpc_program *pg;

/* mapping: where is MOUNT v3 over UDP? */
static const uint8_t getport_args[] = {
    0x00, 0x01, 0x86, 0xa5, /* prog 100005 (MOUNT) */
    0x00, 0x00, 0x00, 0x03, /* vers 3 */
    0x00, 0x00, 0x00, 0x11, /* prot IPPROTO_UDP (17) */
    0x00, 0x00, 0x00, 0x00, /* port 0 (ignored) */
};

static void
test_registry(void)
{
    static const char *const names[] = { "null", "set", "unset", "getport", "dump", "callit" };

    pg = dt_program("portmap2", 100000, 2, 6);
    if (!pg)
        return;
    STREQ(pg->title, "Portmap v2");
    dt_proc_names(pg, names, 6);
    CHECK(pg->status_name == NULL); /* no status words */
}

static void
test_calls(void)
{
    static const uint8_t callit_args[] = {
        0x00, 0x01, 0x86, 0xa3, /* prog 100003 */
        0x00, 0x00, 0x00, 0x03, /* vers 3 */
        0x00, 0x00, 0x00, 0x00, /* proc 0 */
        0x00, 0x00, 0x00, 0x00, /* args length 0 */
    };
    struct pending_call pc;

    dt_pc(&pc, pg, P_GETPORT);
    EQ(dt_call(pg, getport_args, sizeof getport_args, &pc), DECODE_OK);
    EQ(pc.stable, STABLE_NONE);
    EQ(dt_call_cuts(pg, P_GETPORT, getport_args, 0, sizeof getport_args), 0);
    EQ(dt_call_cuts(pg, P_SET, getport_args, 0, sizeof getport_args), 0);
    EQ(dt_call_cuts(pg, P_UNSET, getport_args, 0, sizeof getport_args), 0);
    dt_pc(&pc, pg, P_CALLIT);
    EQ(dt_call(pg, callit_args, sizeof callit_args, &pc), DECODE_OK);
    EQ(dt_call_cuts(pg, P_CALLIT, callit_args, 0, 12), 0);
    dt_pc(&pc, pg, P_DUMP);
    EQ(dt_call(pg, getport_args, 0, &pc), DECODE_OK);
    dt_pc(&pc, pg, P_NULL);
    EQ(dt_call(pg, getport_args, 0, &pc), DECODE_OK);
}

static void
test_replies(void)
{
    static const uint8_t getport_res[] = {
        0x00, 0x00, 0x4e, 0x50, /* port 20048 */
    };
    static const uint8_t getport_bad[] = {
        0x00, 0x01, 0x11, 0x70, /* port 70000: not a port */
    };
    static const uint8_t set_res[] = {
        0x00, 0x00, 0x00, 0x01, /* TRUE */
    };
    static const uint8_t set_bad[] = {
        0x00, 0x00, 0x00, 0x02, /* 2: not a bool */
    };
    struct pending_call pc;
    struct op_event ev;

    dt_pc(&pc, pg, P_GETPORT);
    dt_ev(&ev);
    EQ(dt_reply(pg, getport_res, sizeof getport_res, &pc, &ev), DECODE_OK);
    CHECK(!ev.has_status);
    EQ(dt_reply_cuts(pg, &pc, getport_res, 0, sizeof getport_res, 99, 0), 0);
    dt_ev(&ev);
    EQ(dt_reply(pg, getport_bad, sizeof getport_bad, &pc, &ev), DECODE_INVALID);
    CHECK(!ev.has_status);

    dt_pc(&pc, pg, P_SET);
    dt_ev(&ev);
    EQ(dt_reply(pg, set_res, sizeof set_res, &pc, &ev), DECODE_OK);
    CHECK(!ev.has_status);
    dt_ev(&ev);
    EQ(dt_reply(pg, set_bad, sizeof set_bad, &pc, &ev), DECODE_INVALID);
    dt_pc(&pc, pg, P_UNSET);
    EQ(dt_reply_cuts(pg, &pc, set_res, 0, sizeof set_res, 99, 0), 0);

    dt_pc(&pc, pg, P_NULL);
    dt_ev(&ev);
    EQ(dt_reply(pg, set_res, 0, &pc, &ev), DECODE_OK);
    CHECK(!ev.has_status);
}

int
main(void)
{
    test_registry();
    if (!pg)
        return t_done();
    test_calls();
    test_replies();
    return t_done();
}
