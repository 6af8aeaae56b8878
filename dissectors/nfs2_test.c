/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs2_test.c: unit tests for the NFSv2 dissector (RFC 1094). */
#include "dissector_test.h"

enum { P_NULL = 0, P_GETATTR = 1, P_ROOT = 3, P_LOOKUP = 4, P_READ = 6, P_WRITECACHE = 7,
       P_WRITE = 8, P_REMOVE = 10, P_STATFS = 17 };

/* fhandle (§2.3.3): 32 bytes, fixed */
#define FH2                                                                                        \
    0x01, 0x00, 0x07, 0x00, 0x9a, 0xbc, 0xde, 0xf0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,     \
    0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60,     \
    0x70, 0x80

/* fattr (§2.3.5): 68 bytes */
#define FATTR2                                                                                     \
    0x00, 0x00, 0x00, 0x01, /* type NFREG */                                                       \
    0x00, 0x00, 0x81, 0xa4, /* mode 0100644 */                                                     \
    0x00, 0x00, 0x00, 0x01, /* nlink 1 */                                                          \
    0x00, 0x00, 0x03, 0xe8, /* uid 1000 */                                                         \
    0x00, 0x00, 0x00, 0x64, /* gid 100 */                                                          \
    0x00, 0x00, 0x20, 0x00, /* size 8192 */                                                        \
    0x00, 0x00, 0x10, 0x00, /* blocksize 4096 */                                                   \
    0x00, 0x00, 0x00, 0x00, /* rdev */                                                             \
    0x00, 0x00, 0x00, 0x10, /* blocks 16 */                                                        \
    0x00, 0x00, 0x00, 0x2a, /* fsid */                                                             \
    0x00, 0x01, 0x23, 0x45, /* fileid */                                                           \
    0x38, 0x47, 0x6a, 0x00, 0x00, 0x00, 0x00, 0x00, /* atime: seconds, useconds */                 \
    0x38, 0x47, 0x6a, 0x01, 0x00, 0x00, 0x00, 0x00, /* mtime */                                    \
    0x38, 0x47, 0x6a, 0x02, 0x00, 0x00, 0x00, 0x00  /* ctime */

static const struct rpc_program *pg;

/* writeargs (§2.2.9) */
static const uint8_t write_args[] = {
    FH2,                    /* file */
    0x00, 0x00, 0x00, 0x00, /* beginoffset (unused) */
    0x00, 0x00, 0x20, 0x00, /* offset 8192 */
    0x00, 0x00, 0x00, 0x00, /* totalcount (unused) */
    0x00, 0x00, 0x10, 0x00, /* data length 4096 (data not in the head) */
};

/* readres OK (§2.2.7) */
static const uint8_t read_res[] = {
    0x00, 0x00, 0x00, 0x00, /* status NFS_OK */
    FATTR2,                 /* attributes */
    0x00, 0x00, 0x04, 0x00, /* data length 1024 (data not in the head) */
};

static void
test_registry(void)
{
    static const char *const names[] = {
        "null", "getattr", "setattr", "root", "lookup", "readlink", "read", "writecache",
        "write", "create", "remove", "rename", "link", "symlink", "mkdir", "rmdir",
        "readdir", "statfs",
    };

    pg = dt_program("nfs2", 100003, 2, 18);
    if (!pg)
        return;
    STREQ(pg->title, "NFS v2");
    dt_proc_names(pg, names, 18);
    CHECK(pg->status_name != NULL);
    STREQ(pg->status_name(0), "NFS_OK");
    STREQ(pg->status_name(1), "NFSERR_PERM");
    STREQ(pg->status_name(2), "NFSERR_NOENT");
    STREQ(pg->status_name(5), "NFSERR_IO");
    STREQ(pg->status_name(6), "NFSERR_NXIO");
    STREQ(pg->status_name(13), "NFSERR_ACCES");
    STREQ(pg->status_name(17), "NFSERR_EXIST");
    STREQ(pg->status_name(19), "NFSERR_NODEV");
    STREQ(pg->status_name(20), "NFSERR_NOTDIR");
    STREQ(pg->status_name(21), "NFSERR_ISDIR");
    STREQ(pg->status_name(27), "NFSERR_FBIG");
    STREQ(pg->status_name(28), "NFSERR_NOSPC");
    STREQ(pg->status_name(30), "NFSERR_ROFS");
    STREQ(pg->status_name(63), "NFSERR_NAMETOOLONG");
    STREQ(pg->status_name(66), "NFSERR_NOTEMPTY");
    STREQ(pg->status_name(69), "NFSERR_DQUOT");
    STREQ(pg->status_name(70), "NFSERR_STALE");
    STREQ(pg->status_name(99), "NFSERR_WFLUSH");
    CHECK(pg->status_name(22) == NULL); /* not an RFC 1094 stat */
    CHECK(pg->status_name(10001) == NULL);
}

static void
test_calls(void)
{
    static const uint8_t read_args[] = {
        FH2,                    /* file */
        0x00, 0x00, 0x00, 0x00, /* offset 0 */
        0x00, 0x00, 0x20, 0x00, /* count 8192 */
        0x00, 0x00, 0x00, 0x00, /* totalcount (unused) */
    };
    static const uint8_t lookup_args[] = {
        FH2,                                            /* dir */
        0x00, 0x00, 0x00, 0x08,                         /* name length 8 */
        0x66, 0x69, 0x6c, 0x65, 0x2e, 0x74, 0x78, 0x74, /* "file.txt" */
    };
    uint8_t buf[sizeof write_args], lbuf[sizeof lookup_args];
    struct pending_call pc;
    size_t n;
    unsigned bad = 0;

    dt_pc(&pc, pg, P_WRITE);
    EQ(dt_call(pg, write_args, sizeof write_args, &pc), DECODE_OK);
    EQ(pc.write_count, 4096);
    EQ(pc.stable, STABLE_NONE); /* no stable_how in v2 */
    EQ(pc.fh_len, 32); /* the file, for the breakdowns */
    CHECK(memcmp(pc.fh, write_args, 32) == 0);
    EQ(pc.name_len, 0);
    for (n = 0; n < sizeof write_args; n++) { /* cut: TRUNCATED, nothing recorded */
        dt_pc(&pc, pg, P_WRITE);
        if (dt_call(pg, write_args, n, &pc) != DECODE_TRUNCATED || pc.write_count != 0)
            bad++;
    }
    EQ(bad, 0);
    memcpy(buf, write_args, sizeof buf);
    buf[sizeof buf - 2] = 0x20;
    buf[sizeof buf - 1] = 0x01; /* data length 8193: over NFS_MAXDATA */
    dt_pc(&pc, pg, P_WRITE);
    EQ(dt_call(pg, buf, sizeof buf, &pc), DECODE_INVALID);
    EQ(pc.write_count, 0);

    dt_pc(&pc, pg, P_READ);
    EQ(dt_call(pg, read_args, sizeof read_args, &pc), DECODE_OK);
    EQ(pc.write_count, 0);
    EQ(dt_call_cuts(pg, P_READ, read_args, 0, 32 + 8), 0);
    EQ(dt_call_cuts(pg, P_GETATTR, read_args, 0, 32), 0);
    EQ(dt_call_cuts(pg, P_STATFS, read_args, 0, 32), 0);

    dt_pc(&pc, pg, P_LOOKUP);
    EQ(dt_call(pg, lookup_args, sizeof lookup_args, &pc), DECODE_OK);
    EQ(pc.fh_len, 32);
    EQ(pc.name_len, 8);
    CHECK(memcmp(pc.name, "file.txt", 8) == 0);
    EQ(dt_call_cuts(pg, P_LOOKUP, lookup_args, 0, sizeof lookup_args), 0);
    EQ(dt_call_cuts(pg, P_REMOVE, lookup_args, 0, sizeof lookup_args), 0);
    memcpy(lbuf, lookup_args, sizeof lbuf);
    lbuf[32 + 2] = 0x01; /* name length 264: over MAXNAMLEN */
    dt_pc(&pc, pg, P_LOOKUP);
    EQ(dt_call(pg, lbuf, sizeof lbuf, &pc), DECODE_INVALID);
    EQ(pc.name_len, 0);

    dt_pc(&pc, pg, P_NULL); /* void arguments */
    EQ(dt_call(pg, read_args, 0, &pc), DECODE_OK);
    EQ(pc.fh_len, 0);
    dt_pc(&pc, pg, P_ROOT);
    EQ(dt_call(pg, read_args, 0, &pc), DECODE_OK);
    dt_pc(&pc, pg, P_WRITECACHE);
    EQ(dt_call(pg, read_args, 0, &pc), DECODE_OK);
}

static void
test_replies(void)
{
    static const uint8_t lookup_noent[] = {
        0x00, 0x00, 0x00, 0x02, /* status NFSERR_NOENT: nothing follows */
    };
    static const uint8_t attrstat_ok[] = {
        0x00, 0x00, 0x00, 0x00, /* status NFS_OK */
        FATTR2,
    };
    uint8_t buf[sizeof read_res];
    struct pending_call pc;
    struct op_event ev;

    dt_pc(&pc, pg, P_READ);
    dt_ev(&ev);
    EQ(dt_reply(pg, read_res, sizeof read_res, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 0);
    EQ(ev.read_bytes, 1024);
    CHECK(!ev.eof);
    EQ(dt_reply_cuts(pg, &pc, read_res, 0, sizeof read_res, 4, 0), 0);
    memcpy(buf, read_res, sizeof buf);
    buf[sizeof buf - 2] = 0x23;
    buf[sizeof buf - 1] = 0x28; /* data length 9000: over NFS_MAXDATA */
    dt_ev(&ev);
    EQ(dt_reply(pg, buf, sizeof buf, &pc, &ev), DECODE_INVALID);
    CHECK(ev.has_status);
    EQ(ev.read_bytes, 0);
    dt_ev(&ev); /* an error READ carries no data */
    EQ(dt_reply(pg, lookup_noent, sizeof lookup_noent, &pc, &ev), DECODE_OK);
    EQ(ev.status, 2);
    EQ(ev.read_bytes, 0);

    dt_pc(&pc, pg, P_LOOKUP);
    dt_ev(&ev);
    EQ(dt_reply(pg, lookup_noent, sizeof lookup_noent, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 2);
    EQ(dt_reply_cuts(pg, &pc, lookup_noent, 0, 4, 4, 0), 0);

    dt_pc(&pc, pg, P_GETATTR);
    dt_ev(&ev);
    EQ(dt_reply(pg, attrstat_ok, sizeof attrstat_ok, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 0);
    dt_pc(&pc, pg, P_WRITE); /* attrstat: no byte count in the reply */
    dt_ev(&ev);
    EQ(dt_reply(pg, attrstat_ok, sizeof attrstat_ok, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.read_bytes, 0);
    EQ(ev.committed, STABLE_NONE);
    dt_pc(&pc, pg, P_REMOVE);
    dt_ev(&ev);
    EQ(dt_reply(pg, lookup_noent, sizeof lookup_noent, &pc, &ev), DECODE_OK);
    EQ(ev.status, 2);

    /* void results: no status */
    dt_pc(&pc, pg, P_NULL);
    dt_ev(&ev);
    EQ(dt_reply(pg, lookup_noent, 0, &pc, &ev), DECODE_OK);
    CHECK(!ev.has_status);
    dt_pc(&pc, pg, P_ROOT);
    dt_ev(&ev);
    EQ(dt_reply(pg, lookup_noent, sizeof lookup_noent, &pc, &ev), DECODE_OK);
    CHECK(!ev.has_status);
    dt_pc(&pc, pg, P_WRITECACHE);
    dt_ev(&ev);
    EQ(dt_reply(pg, lookup_noent, 0, &pc, &ev), DECODE_OK);
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
