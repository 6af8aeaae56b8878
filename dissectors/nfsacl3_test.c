/* SPDX-License-Identifier: BSD-3-Clause */
/* nfsacl3_test.c: unit tests for the NFS_ACL v3 dissector. */
#include "dissector_test.h"

enum { P_NULL = 0, P_GETACL = 1, P_SETACL = 2, P_GETXATTRDIR = 3 };

static const struct rpc_program *pg;

/* GETACL3args: nfs_fh3 fh, mask */
static const uint8_t getacl_args[] = {
    0x00, 0x00, 0x00, 0x10,                         /* fh length 16 */
    0x01, 0x00, 0x06, 0x01, 0xaa, 0xbb, 0xcc, 0xdd, /* fh data */
    0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
    0x00, 0x00, 0x00, 0x0f,                         /* mask NA_ACL|NA_ACLCNT|NA_DFACL|NA_DFACLCNT */
};
#define FH_END (4 + 16)

/* GETACL3res OK */
static const uint8_t getacl_res[] = {
    0x00, 0x00, 0x00, 0x00, /* status NFS3_OK */
    0x00, 0x00, 0x00, 0x00, /* post_op_attr: attributes_follow FALSE */
    0x00, 0x00, 0x00, 0x0f, /* mask */
    0x00, 0x00, 0x00, 0x00, /* ace count 0 (rest not decoded) */
};

static void
test_registry(void)
{
    static const char *const names[] = { "null", "getacl", "setacl", "getxattrdir" };

    pg = dt_program("nfsacl3", 100227, 3, 4);
    if (!pg)
        return;
    STREQ(pg->title, "NFS_ACL v3");
    dt_proc_names(pg, names, 4);
    STREQ(pg->status_name(0), "NFS3_OK");
    STREQ(pg->status_name(13), "NFS3ERR_ACCES");
    STREQ(pg->status_name(10004), "NFS3ERR_NOTSUPP");
    CHECK(pg->status_name(3) == NULL);
}

static void
test_ops(void)
{
    static const uint8_t notsupp[] = {
        0x00, 0x00, 0x27, 0x14, /* status NFS3ERR_NOTSUPP */
        0x00, 0x00, 0x00, 0x00, /* post_op_attr FALSE */
    };
    static const uint8_t fh65[] = {
        0x00, 0x00, 0x00, 0x41, /* fh length 65: over NFS3_FHSIZE */
    };
    struct pending_call pc;
    struct op_event ev;

    dt_pc(&pc, pg, P_GETACL);
    EQ(dt_call(pg, getacl_args, sizeof getacl_args, &pc), DECODE_OK);
    EQ(dt_call_cuts(pg, P_GETACL, getacl_args, 0, FH_END), 0);
    EQ(dt_call_cuts(pg, P_SETACL, getacl_args, 0, FH_END), 0);
    dt_pc(&pc, pg, P_GETXATTRDIR);
    EQ(dt_call(pg, fh65, sizeof fh65, &pc), DECODE_INVALID);
    dt_pc(&pc, pg, P_NULL);
    EQ(dt_call(pg, getacl_args, 0, &pc), DECODE_OK);

    dt_pc(&pc, pg, P_GETACL);
    dt_ev(&ev);
    EQ(dt_reply(pg, getacl_res, sizeof getacl_res, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 0);
    EQ(dt_reply_cuts(pg, &pc, getacl_res, 0, 4, 4, 0), 0);
    dt_pc(&pc, pg, P_SETACL);
    dt_ev(&ev);
    EQ(dt_reply(pg, notsupp, sizeof notsupp, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 10004);
    dt_pc(&pc, pg, P_NULL);
    dt_ev(&ev);
    EQ(dt_reply(pg, notsupp, 0, &pc, &ev), DECODE_OK);
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
