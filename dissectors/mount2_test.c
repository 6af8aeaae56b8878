/* SPDX-License-Identifier: BSD-3-Clause */
/* mount2_test.c: unit tests for the MOUNT v2 dissector (v1 plus PATHCONF). */
#include "dissector_test.h"

enum { P_NULL = 0, P_MNT = 1, P_UMNT = 3, P_PATHCONF = 7 };

static const struct rpc_program *pg;

/* MNT / UMNT / PATHCONF arguments: dirpath "/home" */
static const uint8_t dirpath_args[] = {
    0x00, 0x00, 0x00, 0x05,                         /* dirpath length 5 */
    0x2f, 0x68, 0x6f, 0x6d, 0x65, 0x00, 0x00, 0x00, /* "/home" + 3 pad bytes */
};

static void
test_registry(void)
{
    static const char *const names[] = { "null", "mnt", "dump", "umnt", "umntall", "export",
                                          "exportall", "pathconf" };

    pg = dt_program("mount2", 100005, 2, 8);
    if (!pg)
        return;
    STREQ(pg->title, "MOUNT v2");
    dt_proc_names(pg, names, 8);
    STREQ(pg->status_name(0), "OK");
    STREQ(pg->status_name(2), "ENOENT");
    CHECK(pg->status_name(4) == NULL);
}

static void
test_calls_replies(void)
{
    static const uint8_t mnt_res_noent[] = {
        0x00, 0x00, 0x00, 0x02, /* fhstatus status 2 (ENOENT) */
    };
    static const uint8_t pathconf_res[] = {
        0x00, 0x00, 0x00, 0x20, /* ppathcnf pc_link_max ... (not decoded) */
    };
    struct pending_call pc;
    struct op_event ev;

    dt_pc(&pc, pg, P_PATHCONF);
    EQ(dt_call(pg, dirpath_args, sizeof dirpath_args, &pc), DECODE_OK);
    EQ(dt_call_cuts(pg, P_PATHCONF, dirpath_args, 0, sizeof dirpath_args), 0);
    EQ(dt_call_cuts(pg, P_MNT, dirpath_args, 0, sizeof dirpath_args), 0);
    dt_ev(&ev);
    EQ(dt_reply(pg, pathconf_res, sizeof pathconf_res, &pc, &ev), DECODE_OK);
    CHECK(!ev.has_status);

    dt_pc(&pc, pg, P_MNT);
    dt_ev(&ev);
    EQ(dt_reply(pg, mnt_res_noent, sizeof mnt_res_noent, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 2);
    EQ(dt_reply_cuts(pg, &pc, mnt_res_noent, 0, sizeof mnt_res_noent, 4, 2), 0);
}

int
main(void)
{
    test_registry();
    if (!pg)
        return t_done();
    test_calls_replies();
    return t_done();
}
