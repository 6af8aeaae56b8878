/* SPDX-License-Identifier: BSD-3-Clause */
/* mount1_test.c: unit tests for the MOUNT v1 dissector (RFC 1094 Appendix A). */
#include "dissector_test.h"

enum { P_NULL = 0, P_MNT = 1, P_DUMP = 2, P_UMNT = 3, P_UMNTALL = 4, P_EXPORT = 5 };

static const struct rpc_program *pg;

/* MNT / UMNT arguments: dirpath "/srv/nfs" */
static const uint8_t mnt_args[] = {
    0x00, 0x00, 0x00, 0x08,                         /* dirpath length 8 */
    0x2f, 0x73, 0x72, 0x76, 0x2f, 0x6e, 0x66, 0x73, /* "/srv/nfs" (no padding) */
};

/* fhstatus OK (A.2): status 0, fhandle (32 bytes, fixed) */
static const uint8_t mnt_res_ok[] = {
    0x00, 0x00, 0x00, 0x00,                         /* status 0 */
    0x01, 0x00, 0x07, 0x01, 0x00, 0x00, 0x00, 0x2a, /* directory: fhandle */
    0x00, 0x00, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44,
    0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc,
    0xdd, 0xee, 0xff, 0x00, 0x10, 0x20, 0x30, 0x40,
};

static void
test_registry(void)
{
    static const char *const names[] = { "null", "mnt", "dump", "umnt", "umntall", "export",
                                          "exportall" };

    pg = dt_program("mount1", 100005, 1, 7);
    if (!pg)
        return;
    STREQ(pg->title, "MOUNT v1");
    dt_proc_names(pg, names, 7);
    CHECK(pg->status_name != NULL);
    STREQ(pg->status_name(0), "OK"); /* fhstatus: 0 or a UNIX errno */
    STREQ(pg->status_name(1), "EPERM");
    STREQ(pg->status_name(2), "ENOENT");
    STREQ(pg->status_name(13), "EACCES");
    STREQ(pg->status_name(20), "ENOTDIR");
    STREQ(pg->status_name(63), "ENAMETOOLONG");
    CHECK(pg->status_name(3) == NULL);
    CHECK(pg->status_name(10004) == NULL);
}

static void
test_calls(void)
{
    struct pending_call pc;

    dt_pc(&pc, pg, P_MNT);
    EQ(dt_call(pg, mnt_args, sizeof mnt_args, &pc), DECODE_OK);
    EQ(pc.stable, STABLE_NONE);
    EQ(dt_call_cuts(pg, P_MNT, mnt_args, 0, sizeof mnt_args), 0);
    EQ(dt_call_cuts(pg, P_UMNT, mnt_args, 0, sizeof mnt_args), 0);
    dt_pc(&pc, pg, P_DUMP);
    EQ(dt_call(pg, mnt_args, 0, &pc), DECODE_OK);
}

static void
test_replies(void)
{
    static const uint8_t mnt_res_acces[] = {
        0x00, 0x00, 0x00, 0x0d, /* status 13 (EACCES): no handle follows */
    };
    struct pending_call pc;
    struct op_event ev;

    dt_pc(&pc, pg, P_MNT);
    dt_ev(&ev);
    EQ(dt_reply(pg, mnt_res_ok, sizeof mnt_res_ok, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 0);
    EQ(dt_reply_cuts(pg, &pc, mnt_res_ok, 0, sizeof mnt_res_ok, 4, 0), 0);

    dt_ev(&ev);
    EQ(dt_reply(pg, mnt_res_acces, sizeof mnt_res_acces, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 13);

    dt_pc(&pc, pg, P_UMNT); /* void */
    dt_ev(&ev);
    EQ(dt_reply(pg, mnt_res_ok, 0, &pc, &ev), DECODE_OK);
    CHECK(!ev.has_status);
    dt_pc(&pc, pg, P_EXPORT); /* exports list: no status */
    dt_ev(&ev);
    EQ(dt_reply(pg, mnt_res_acces, sizeof mnt_res_acces, &pc, &ev), DECODE_OK);
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
