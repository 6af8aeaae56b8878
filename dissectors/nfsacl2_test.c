/* SPDX-License-Identifier: BSD-3-Clause */
/* nfsacl2_test.c: unit tests for the NFS_ACL v2 dissector. */
#include "dissector_test.h"

enum { P_NULL = 0, P_GETACL = 1, P_SETACL = 2, P_GETATTR = 3, P_ACCESS = 4, P_GETXATTRDIR = 5 };

static const struct rpc_program *pg;

/* ACCESS2args: fhandle fh (32 bytes, fixed), access */
static const uint8_t access_args[] = {
    0x01, 0x00, 0x07, 0x00, 0x9a, 0xbc, 0xde, 0xf0, /* fh */
    0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
    0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00,
    0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80,
    0x00, 0x00, 0x00, 0x01, /* access ACCESS2_READ */
};

static void
test_registry(void)
{
    static const char *const names[] = { "null", "getacl", "setacl", "getattr", "access",
                                          "getxattrdir" };

    pg = dt_program("nfsacl2", 100227, 2, 6);
    if (!pg)
        return;
    STREQ(pg->title, "NFS_ACL v2");
    dt_proc_names(pg, names, 6);
    STREQ(pg->status_name(0), "NFS_OK");
    STREQ(pg->status_name(70), "NFSERR_STALE");
    CHECK(pg->status_name(10004) == NULL);
}

static void
test_ops(void)
{
    static const uint8_t stale[] = {
        0x00, 0x00, 0x00, 0x46, /* status NFSERR_STALE */
    };
    struct pending_call pc;
    struct op_event ev;

    dt_pc(&pc, pg, P_ACCESS);
    EQ(dt_call(pg, access_args, sizeof access_args, &pc), DECODE_OK);
    EQ(dt_call_cuts(pg, P_ACCESS, access_args, 0, 32), 0);
    EQ(dt_call_cuts(pg, P_GETACL, access_args, 0, 32), 0);
    dt_pc(&pc, pg, P_NULL);
    EQ(dt_call(pg, access_args, 0, &pc), DECODE_OK);

    dt_pc(&pc, pg, P_GETATTR);
    dt_ev(&ev);
    EQ(dt_reply(pg, stale, sizeof stale, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 70);
    EQ(dt_reply_cuts(pg, &pc, stale, 0, sizeof stale, 4, 0), 0);
    dt_pc(&pc, pg, P_NULL);
    dt_ev(&ev);
    EQ(dt_reply(pg, stale, 0, &pc, &ev), DECODE_OK);
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
