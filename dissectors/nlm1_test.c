/* SPDX-License-Identifier: BSD-3-Clause */
/* nlm1_test.c: unit tests for the NLM v1 dissector (XNFS chapters 10-11). */
#include "dissector_test.h"

enum { P_NULL = 0, P_TEST = 1, P_CANCEL = 3, P_TEST_MSG = 6, P_TEST_RES = 11 };

static const struct rpc_program *pg;

/* nlm_testres: LCK_GRANTED (no holder) */
static const uint8_t testres_granted[] = {
    0x00, 0x00, 0x00, 0x03, /* cookie length 3 */
    0x01, 0x02, 0x03, 0x00, /* cookie data + 1 pad byte */
    0x00, 0x00, 0x00, 0x00, /* test_stat.stat LCK_GRANTED */
};

static void
test_registry(void)
{
    static const char *const names[] = {
        "null", "test", "lock", "cancel", "unlock", "granted", "test_msg", "lock_msg",
        "cancel_msg", "unlock_msg", "granted_msg", "test_res", "lock_res", "cancel_res",
        "unlock_res", "granted_res",
    };

    pg = dt_program("nlm1", 100021, 1, 16);
    if (!pg)
        return;
    STREQ(pg->title, "NLM v1");
    dt_proc_names(pg, names, 16);
    STREQ(pg->status_name(0), "LCK_GRANTED");
    STREQ(pg->status_name(3), "LCK_BLOCKED");
    CHECK(pg->status_name(9) == NULL);
}

static void
test_ops(void)
{
    static const uint8_t cancel_args[] = {
        0x00, 0x00, 0x00, 0x00, /* cookie length 0 */
        0x00, 0x00, 0x00, 0x00, /* block FALSE (the rest is not decoded) */
    };
    struct pending_call pc;
    struct op_event ev;

    dt_pc(&pc, pg, P_TEST);
    dt_ev(&ev);
    EQ(dt_reply(pg, testres_granted, sizeof testres_granted, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 0);
    EQ(dt_reply_cuts(pg, &pc, testres_granted, 0, sizeof testres_granted,
                     sizeof testres_granted, 0), 0);

    dt_pc(&pc, pg, P_TEST_RES);
    EQ(dt_call(pg, testres_granted, sizeof testres_granted, &pc), DECODE_OK);
    EQ(dt_call_cuts(pg, P_TEST_RES, testres_granted, 0, sizeof testres_granted), 0);
    dt_ev(&ev);
    EQ(dt_reply(pg, testres_granted, 0, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 0);

    dt_pc(&pc, pg, P_CANCEL);
    EQ(dt_call(pg, cancel_args, sizeof cancel_args, &pc), DECODE_OK);
    EQ(dt_call_cuts(pg, P_CANCEL, cancel_args, 0, 4), 0);
    dt_pc(&pc, pg, P_TEST_MSG);
    dt_ev(&ev);
    EQ(dt_reply(pg, testres_granted, 0, &pc, &ev), DECODE_OK);
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
