/* SPDX-License-Identifier: BSD-3-Clause */
/* mount3_test.c: unit tests for the MOUNT v3 dissector (RFC 1813 Appendix I). */
#include "dissector_test.h"

enum { P_NULL = 0, P_MNT = 1, P_DUMP = 2, P_UMNT = 3, P_UMNTALL = 4, P_EXPORT = 5 };

static const struct rpc_program *pg;

/* MNT / UMNT arguments: dirpath "/export" */
static const uint8_t mnt_args[] = {
    0x00, 0x00, 0x00, 0x07,                         /* dirpath length 7 */
    0x2f, 0x65, 0x78, 0x70, 0x6f, 0x72, 0x74, 0x00, /* "/export" + 1 pad byte */
};

/* mountres3 MNT3_OK */
static const uint8_t mnt_res_ok[] = {
    0x00, 0x00, 0x00, 0x00,                         /* fhs_status MNT3_OK */
    0x00, 0x00, 0x00, 0x1c,                         /* fhandle3 length 28 */
    0x01, 0x00, 0x07, 0x01, 0x00, 0x00, 0x00, 0x2a, /* fhandle data */
    0x00, 0x00, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44,
    0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc,
    0xdd, 0xee, 0xff, 0x00,
    0x00, 0x00, 0x00, 0x02,                         /* auth_flavors count 2 */
    0x00, 0x00, 0x00, 0x01,                         /*   AUTH_SYS */
    0x00, 0x00, 0x01, 0x8c,                         /*   RPCSEC_GSS (396) */
};
#define MNT_RES_FH_END (4 + 4 + 28) /* the decoder reads through the handle */

static void
test_registry(void)
{
    static const char *const names[] = { "null", "mnt", "dump", "umnt", "umntall", "export" };

    pg = dt_program("mount3", 100005, 3, 6);
    if (!pg)
        return;
    STREQ(pg->title, "MOUNT v3");
    dt_proc_names(pg, names, 6);
    CHECK(pg->status_name != NULL);
    STREQ(pg->status_name(0), "MNT3_OK");
    STREQ(pg->status_name(1), "MNT3ERR_PERM");
    STREQ(pg->status_name(2), "MNT3ERR_NOENT");
    STREQ(pg->status_name(5), "MNT3ERR_IO");
    STREQ(pg->status_name(13), "MNT3ERR_ACCES");
    STREQ(pg->status_name(20), "MNT3ERR_NOTDIR");
    STREQ(pg->status_name(22), "MNT3ERR_INVAL");
    STREQ(pg->status_name(63), "MNT3ERR_NAMETOOLONG");
    STREQ(pg->status_name(10004), "MNT3ERR_NOTSUPP");
    STREQ(pg->status_name(10006), "MNT3ERR_SERVERFAULT");
    CHECK(pg->status_name(3) == NULL); /* a gap in mountstat3 */
    CHECK(pg->status_name(1111638594) == NULL);
}

static void
test_calls(void)
{
    static const uint8_t long_path[] = {
        0x00, 0x00, 0x04, 0x01, /* dirpath length 1025: over MNTPATHLEN */
    };
    struct pending_call pc;

    dt_pc(&pc, pg, P_MNT);
    EQ(dt_call(pg, mnt_args, sizeof mnt_args, &pc), DECODE_OK);
    EQ(pc.stable, STABLE_NONE);
    EQ(pc.write_count, 0);
    EQ(pc.name_len, 7); /* the export path, for the names cache */
    CHECK(memcmp(pc.name, "/export", 7) == 0);
    dt_pc(&pc, pg, P_UMNT);
    EQ(dt_call(pg, mnt_args, sizeof mnt_args, &pc), DECODE_OK);
    EQ(pc.name_len, 0);
    EQ(dt_call_cuts(pg, P_MNT, mnt_args, 0, sizeof mnt_args), 0);
    EQ(dt_call_cuts(pg, P_UMNT, mnt_args, 0, sizeof mnt_args), 0);
    dt_pc(&pc, pg, P_MNT);
    EQ(dt_call(pg, long_path, sizeof long_path, &pc), DECODE_INVALID);
    EQ(pc.name_len, 0);
    {
        uint8_t path300[4 + 300];

        memset(path300, '/', sizeof path300);
        path300[0] = path300[1] = 0;
        path300[2] = 0x01;
        path300[3] = 0x2c; /* dirpath length 300: sound, but longer than a kept name */
        dt_pc(&pc, pg, P_MNT);
        EQ(dt_call(pg, path300, sizeof path300, &pc), DECODE_OK);
        EQ(pc.name_len, 0);
    }

    dt_pc(&pc, pg, P_NULL); /* void arguments */
    EQ(dt_call(pg, mnt_args, 0, &pc), DECODE_OK);
    dt_pc(&pc, pg, P_EXPORT);
    EQ(dt_call(pg, mnt_args, 0, &pc), DECODE_OK);
    dt_pc(&pc, pg, P_UMNTALL);
    EQ(dt_call(pg, mnt_args, 0, &pc), DECODE_OK);
}

static void
test_replies(void)
{
    static const uint8_t mnt_res_acces[] = {
        0x00, 0x00, 0x00, 0x0d, /* fhs_status MNT3ERR_ACCES: nothing follows */
    };
    static const uint8_t mnt_res_bad_fh[] = {
        0x00, 0x00, 0x00, 0x00, /* fhs_status MNT3_OK */
        0x00, 0x00, 0x00, 0x41, /* fhandle3 length 65: over FHSIZE3 */
    };
    static const uint8_t scrambled[] = {
        0x42, 0x42, 0x42, 0x42, /* fhs_status 1111638594: not a mountstat3 */
    };
    struct pending_call pc;
    struct op_event ev;

    dt_pc(&pc, pg, P_MNT);
    dt_ev(&ev);
    EQ(dt_reply(pg, mnt_res_ok, sizeof mnt_res_ok, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 0);
    EQ(ev.read_bytes, 0);
    EQ(ev.committed, STABLE_NONE);
    CHECK(ev.obj_is_export); /* the export's root handle */
    EQ(ev.obj_fh.len, 28);
    /* cut inside the status: no status; after it, inside the handle: status kept */
    EQ(dt_reply_cuts(pg, &pc, mnt_res_ok, 0, MNT_RES_FH_END, 4, 0), 0);
    dt_ev(&ev); /* the flavors are not needed */
    EQ(dt_reply(pg, mnt_res_ok, MNT_RES_FH_END, &pc, &ev), DECODE_OK);

    dt_ev(&ev);
    EQ(dt_reply(pg, mnt_res_acces, sizeof mnt_res_acces, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 13);
    CHECK(!ev.obj_is_export);
    EQ(ev.obj_fh.len, 0);

    dt_ev(&ev);
    EQ(dt_reply(pg, mnt_res_bad_fh, sizeof mnt_res_bad_fh, &pc, &ev), DECODE_INVALID);
    CHECK(ev.has_status); /* the status was sound */
    EQ(ev.status, 0);
    CHECK(!ev.obj_is_export);
    EQ(ev.obj_fh.len, 0);

    dt_ev(&ev);
    EQ(dt_reply(pg, scrambled, sizeof scrambled, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status); /* counted as unknown(1111638594), as tshark does */
    EQ(ev.status, 1111638594u);

    /* procedures without a status */
    dt_pc(&pc, pg, P_UMNT);
    dt_ev(&ev);
    EQ(dt_reply(pg, mnt_res_ok, 0, &pc, &ev), DECODE_OK);
    CHECK(!ev.has_status);
    dt_pc(&pc, pg, P_EXPORT);
    dt_ev(&ev);
    EQ(dt_reply(pg, mnt_res_acces, sizeof mnt_res_acces, &pc, &ev), DECODE_OK);
    CHECK(!ev.has_status);
    dt_pc(&pc, pg, P_DUMP);
    dt_ev(&ev);
    EQ(dt_reply(pg, mnt_res_acces, sizeof mnt_res_acces, &pc, &ev), DECODE_OK);
    CHECK(!ev.has_status);
    dt_pc(&pc, pg, P_NULL);
    dt_ev(&ev);
    EQ(dt_reply(pg, mnt_res_ok, 0, &pc, &ev), DECODE_OK);
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
