/* SPDX-License-Identifier: BSD-3-Clause */
/* nsm1_test.c: unit tests for the NSM (status monitor) v1 dissector. */
#include "dissector_test.h"

enum { P_NULL = 0, P_STAT = 1, P_MON = 2, P_UNMON = 3, P_UNMON_ALL = 4, P_SIMU_CRASH = 5,
       P_NOTIFY = 6 };

static const struct rpc_program *pg;

/* mon: what lockd asks statd when it first locks on a server */
static const uint8_t mon_args[] = {
    0x00, 0x00, 0x00, 0x06,                         /* mon_id.mon_name length 6 */
    0x73, 0x65, 0x72, 0x76, 0x65, 0x72, 0x00, 0x00, /* "server" + 2 pad bytes */
    0x00, 0x00, 0x00, 0x09,                         /* my_id.my_name length 9 */
    0x31, 0x32, 0x37, 0x2e, 0x30, 0x2e, 0x30, 0x2e, /* "127.0.0.1" ... */
    0x31, 0x00, 0x00, 0x00,                         /*   + 3 pad bytes */
    0x00, 0x01, 0x86, 0xb5,                         /* my_id.my_prog 100021 */
    0x00, 0x00, 0x00, 0x01,                         /* my_id.my_vers 1 */
    0x00, 0x00, 0x00, 0x10,                         /* my_id.my_proc 16 (SM_NOTIFY callback) */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* priv[16] */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* sm_stat_res */
static const uint8_t stat_res_succ[] = {
    0x00, 0x00, 0x00, 0x00, /* res_stat STAT_SUCC */
    0x00, 0x00, 0x00, 0x03, /* state 3 */
};

static void
test_registry(void)
{
    static const char *const names[] = { "null", "stat", "mon", "unmon", "unmon_all",
                                          "simu_crash", "notify" };

    pg = dt_program("nsm1", 100024, 1, 7);
    if (!pg)
        return;
    dt_proc_names(pg, names, 7);
    STREQ(pg->status_name(0), "STAT_SUCC");
    STREQ(pg->status_name(1), "STAT_FAIL");
    CHECK(pg->status_name(2) == NULL);
}

static void
test_ops(void)
{
    static const uint8_t stat_res_fail[] = {
        0x00, 0x00, 0x00, 0x01, /* res_stat STAT_FAIL */
        0x00, 0x00, 0x00, 0x05, /* state 5 */
    };
    static const uint8_t sm_stat[] = {
        0x00, 0x00, 0x00, 0x07, /* state 7 (UNMON, UNMON_ALL: no res_stat) */
    };
    static const uint8_t long_name[] = {
        0x00, 0x00, 0x04, 0x01, /* mon_name length 1025: over SM_MAXSTRLEN */
    };
    struct pending_call pc;
    struct op_event ev;

    dt_pc(&pc, pg, P_MON);
    EQ(dt_call(pg, mon_args, sizeof mon_args, &pc), DECODE_OK);
    EQ(dt_call_cuts(pg, P_MON, mon_args, 0, 12), 0);
    EQ(dt_call_cuts(pg, P_STAT, mon_args, 0, 12), 0);
    EQ(dt_call_cuts(pg, P_UNMON_ALL, mon_args, 0, 12), 0);
    dt_pc(&pc, pg, P_NOTIFY);
    EQ(dt_call(pg, long_name, sizeof long_name, &pc), DECODE_INVALID);
    dt_pc(&pc, pg, P_SIMU_CRASH);
    EQ(dt_call(pg, mon_args, 0, &pc), DECODE_OK);

    dt_pc(&pc, pg, P_MON);
    dt_ev(&ev);
    EQ(dt_reply(pg, stat_res_succ, sizeof stat_res_succ, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 0);
    EQ(dt_reply_cuts(pg, &pc, stat_res_succ, 0, 4, 4, 0), 0);
    dt_pc(&pc, pg, P_STAT);
    dt_ev(&ev);
    EQ(dt_reply(pg, stat_res_fail, sizeof stat_res_fail, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 1);

    dt_pc(&pc, pg, P_UNMON);
    dt_ev(&ev);
    EQ(dt_reply(pg, sm_stat, sizeof sm_stat, &pc, &ev), DECODE_OK);
    CHECK(!ev.has_status);
    dt_pc(&pc, pg, P_NULL);
    dt_ev(&ev);
    EQ(dt_reply(pg, sm_stat, 0, &pc, &ev), DECODE_OK);
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
