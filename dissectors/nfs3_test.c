/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs3_test.c: unit tests for the NFSv3 dissector (RFC 1813). */
#include <stdlib.h>

#include "dissector.h"
#include "stats.h"
#include "t.h"
#include "xdr_cur.h"
#include "xid_table.h"

/* fattr3 (RFC 1813 §2.6): 84 bytes. */
#define FATTR3                                                                                     \
    0x00, 0x00, 0x00, 0x01,                         /* type NF3REG */                              \
    0x00, 0x00, 0x01, 0xa4,                         /* mode 0644 */                                \
    0x00, 0x00, 0x00, 0x01,                         /* nlink 1 */                                  \
    0x00, 0x00, 0x03, 0xe8,                         /* uid 1000 */                                 \
    0x00, 0x00, 0x00, 0x64,                         /* gid 100 */                                  \
    0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, /* size 1 MiB */                               \
    0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, /* used */                                     \
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* rdev: specdata1, specdata2 */               \
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, /* fsid */                                     \
    0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x23, 0x45, /* fileid */                                   \
    0x60, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* atime: seconds, nseconds */                 \
    0x60, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, /* mtime */                                    \
    0x60, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00  /* ctime */

/* nfs_fh3 of 32 bytes: length + data. */
#define FH32                                                                                       \
    0x00, 0x00, 0x00, 0x20, /* fh length 32 */                                                     \
    0x01, 0x00, 0x07, 0x00, 0x9a, 0xbc, 0xde, 0xf0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,     \
    0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60,     \
    0x70, 0x80 /* fh data */

enum { P_NULL = 0, P_GETATTR = 1, P_LOOKUP = 3, P_READ = 6, P_WRITE = 7, P_COMMIT = 21 };

static const struct rpc_program *pg;

/* A heap copy of exactly n bytes, so ASan catches any read past the end. */
static uint8_t *
dup_exact(const uint8_t *p, size_t n)
{
    uint8_t *q = malloc(n ? n : 1);

    if (n)
        memcpy(q, p, n);
    return q;
}

static void
fresh_pc(struct pending_call *pc, uint32_t proc)
{
    memset(pc, 0, sizeof *pc);
    pc->prog = 100003;
    pc->vers = 3;
    pc->proc = proc;
    pc->pg = pg;
    pc->stable = STABLE_NONE; /* as rpc_match does before calling */
}

static void
fresh_ev(struct op_event *ev)
{
    static struct op_dirent dirents[OP_DIRENT_MAX]; /* as the matcher's buffer */

    memset(ev, 0, sizeof *ev);
    ev->stable = ev->committed = STABLE_NONE; /* as rpc_match does */
    ev->dirent = dirents;
    ev->dirent_cap = OP_DIRENT_MAX;
}

static enum decode_rc
do_call(const uint8_t *p, size_t n, struct pending_call *pc)
{
    uint8_t *q = dup_exact(p, n);
    struct bytes b = { q, n };
    struct xdr_cur x;
    enum decode_rc rc;

    xdr_cur_init(&x, b);
    rc = pg->call(&x, pc, NULL);
    free(q);
    return rc;
}

static enum decode_rc
do_reply(const uint8_t *p, size_t n, const struct pending_call *pc, struct op_event *ev)
{
    uint8_t *q = dup_exact(p, n);
    struct bytes b = { q, n };
    struct xdr_cur x;
    enum decode_rc rc;

    xdr_cur_init(&x, b);
    rc = pg->reply(&x, pc, ev, NULL);
    free(q);
    return rc;
}

/* WRITE3args (§3.3.7), stable at offset 48. */
static const uint8_t write_args[] = {
    FH32,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, /* offset 65536 */
    0x00, 0x00, 0x10, 0x00,                         /* count 4096 */
    0x00, 0x00, 0x00, 0x02,                         /* stable FILE_SYNC */
    0x00, 0x00, 0x10, 0x00,                         /* data length 4096 (data not in the head) */
};
#define WRITE_STABLE_OFF 51

static void
test_registry(void)
{
    size_t i;
    static const char *const rfc[] = {
        "null",   "getattr", "setattr", "lookup",  "access", "readlink",    "read",   "write",
        "create", "mkdir",   "symlink", "mknod",   "remove", "rmdir",       "rename", "link",
        "readdir", "readdirplus", "fsstat", "fsinfo", "pathconf", "commit",
    };

    for (i = 0; rpc_programs[i]; i++)
        if (strcmp(rpc_programs[i]->name, "nfs3") == 0)
            pg = rpc_programs[i];
    CHECK(pg != NULL);
    if (!pg)
        return;
    EQ(pg->prog, 100003);
    EQ(pg->vers, 3);
    STREQ(pg->title, "NFS v3");
    CHECK(pg->call != NULL && pg->reply != NULL && pg->status_name != NULL);
    EQ(pg->nprocs, 22);
    for (i = 0; i < 22 && i < pg->nprocs; i++)
        STREQ(pg->procs[i].name, rfc[i]);
    STREQ(pg->status_name(0), "NFS3_OK");
    STREQ(pg->status_name(2), "NFS3ERR_NOENT");
    STREQ(pg->status_name(70), "NFS3ERR_STALE");
    STREQ(pg->status_name(10008), "NFS3ERR_JUKEBOX");
    CHECK(pg->status_name(12345) == NULL);
    CHECK(pg->status_name(3) == NULL); /* a gap in nfsstat3 */
}

static void
test_write_call(void)
{
    struct pending_call pc;
    uint8_t buf[sizeof write_args];
    size_t n;
    unsigned bad = 0;

    fresh_pc(&pc, P_WRITE);
    EQ(do_call(write_args, sizeof write_args, &pc), DECODE_OK);
    EQ(pc.stable, STABLE_FILE_SYNC);
    EQ(pc.write_count, 4096);

    memcpy(buf, write_args, sizeof buf);
    buf[WRITE_STABLE_OFF] = 0; /* UNSTABLE */
    fresh_pc(&pc, P_WRITE);
    EQ(do_call(buf, sizeof buf, &pc), DECODE_OK);
    EQ(pc.stable, STABLE_UNSTABLE);

    buf[WRITE_STABLE_OFF] = 3; /* not a stable_how */
    fresh_pc(&pc, P_WRITE);
    EQ(do_call(buf, sizeof buf, &pc), DECODE_INVALID);
    EQ(pc.stable, STABLE_NONE);

    /* cut before stable: TRUNCATED and nothing recorded */
    for (n = 0; n < WRITE_STABLE_OFF + 1; n++) {
        fresh_pc(&pc, P_WRITE);
        if (do_call(write_args, n, &pc) != DECODE_TRUNCATED || pc.stable != STABLE_NONE ||
            pc.write_count != 0)
            bad++;
    }
    EQ(bad, 0);
}

static void
test_other_calls(void)
{
    static const uint8_t read_args[] = {
        FH32,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, /* offset 8192 */
        0x00, 0x00, 0x20, 0x00,                         /* count 8192 */
    };
    static const uint8_t fh65[] = {
        0x00, 0x00, 0x00, 0x41, /* fh length 65: over NFS3_FHSIZE */
    };
    uint8_t fh64[4 + 64];
    struct pending_call pc;

    fresh_pc(&pc, P_READ);
    EQ(do_call(read_args, sizeof read_args, &pc), DECODE_OK);
    EQ(pc.stable, STABLE_NONE); /* not a WRITE */
    EQ(pc.write_count, 0);
    fresh_pc(&pc, P_READ);
    EQ(do_call(read_args, sizeof read_args - 1, &pc), DECODE_TRUNCATED);
    fresh_pc(&pc, P_COMMIT);
    EQ(do_call(read_args, sizeof read_args, &pc), DECODE_OK);

    fresh_pc(&pc, P_GETATTR);
    EQ(do_call(fh65, sizeof fh65, &pc), DECODE_INVALID);
    memset(fh64, 0x5a, sizeof fh64);
    fh64[0] = fh64[1] = fh64[2] = 0;
    fh64[3] = 64; /* fh length 64: the maximum */
    fresh_pc(&pc, P_GETATTR);
    EQ(do_call(fh64, sizeof fh64, &pc), DECODE_OK);
    fresh_pc(&pc, P_GETATTR);
    EQ(do_call(fh64, 0, &pc), DECODE_TRUNCATED);

    fresh_pc(&pc, P_NULL); /* NULL has no arguments */
    EQ(do_call(fh64, 0, &pc), DECODE_OK);
}

/* READ3res OK (§3.3.6) with post_op_attr present. */
static const uint8_t read_res_attr[] = {
    0x00, 0x00, 0x00, 0x00, /* status NFS3_OK */
    0x00, 0x00, 0x00, 0x01, /* file_attributes: attributes_follow TRUE */
    FATTR3,
    0x00, 0x00, 0x20, 0x00, /* count 8192 */
    0x00, 0x00, 0x00, 0x01, /* eof TRUE */
    0x00, 0x00, 0x20, 0x00, /* data length 8192 (data not in the head) */
};

static void
test_read_reply(void)
{
    static const uint8_t read_res_noattr[] = {
        0x00, 0x00, 0x00, 0x00, /* status NFS3_OK */
        0x00, 0x00, 0x00, 0x00, /* file_attributes: attributes_follow FALSE */
        0x00, 0x00, 0x01, 0x00, /* count 256 */
        0x00, 0x00, 0x00, 0x00, /* eof FALSE */
        0x00, 0x00, 0x01, 0x00, /* data length 256 */
    };
    static const uint8_t read_res_bad_eof[] = {
        0x00, 0x00, 0x00, 0x00, /* status NFS3_OK */
        0x00, 0x00, 0x00, 0x00, /* attributes_follow FALSE */
        0x00, 0x00, 0x01, 0x00, /* count 256 */
        0x00, 0x00, 0x00, 0x02, /* eof 2: not a bool */
    };
    static const uint8_t read_res_bad_follow[] = {
        0x00, 0x00, 0x00, 0x00, /* status NFS3_OK */
        0x00, 0x00, 0x00, 0x07, /* attributes_follow 7: not a bool */
        0x00, 0x00, 0x01, 0x00, /* count 256 */
        0x00, 0x00, 0x00, 0x00, /* eof FALSE */
    };
    struct pending_call pc;
    struct op_event ev;
    size_t n, full = 4 + 4 + 84 + 4 + 4; /* through eof */
    unsigned bad = 0;

    fresh_pc(&pc, P_READ);
    fresh_ev(&ev);
    EQ(do_reply(read_res_attr, sizeof read_res_attr, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 0);
    EQ(ev.read_bytes, 8192);
    CHECK(ev.eof);

    fresh_ev(&ev);
    EQ(do_reply(read_res_noattr, sizeof read_res_noattr, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.read_bytes, 256);
    CHECK(!ev.eof);

    fresh_ev(&ev);
    EQ(do_reply(read_res_bad_eof, sizeof read_res_bad_eof, &pc, &ev), DECODE_INVALID);
    EQ(ev.read_bytes, 0);
    CHECK(!ev.eof);

    fresh_ev(&ev);
    EQ(do_reply(read_res_bad_follow, sizeof read_res_bad_follow, &pc, &ev), DECODE_INVALID);
    EQ(ev.read_bytes, 0);

    /* every cut after the status and before eof: TRUNCATED, status kept, no bytes */
    for (n = 4; n < full; n++) {
        fresh_ev(&ev);
        if (do_reply(read_res_attr, n, &pc, &ev) != DECODE_TRUNCATED || !ev.has_status ||
            ev.status != 0 || ev.read_bytes != 0 || ev.eof)
            bad++;
    }
    EQ(bad, 0);
    fresh_ev(&ev); /* eof complete, data length cut: enough */
    EQ(do_reply(read_res_attr, full, &pc, &ev), DECODE_OK);
    EQ(ev.read_bytes, 8192);
}

static void
test_write_reply(void)
{
    static const uint8_t write_res[] = {
        0x00, 0x00, 0x00, 0x00,                         /* status NFS3_OK */
        /* file_wcc: wcc_data */
        0x00, 0x00, 0x00, 0x01,                         /* before: attributes_follow TRUE */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x0f, 0x00, 0x00, /*   wcc_attr size */
        0x60, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, /*   mtime */
        0x60, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, /*   ctime */
        0x00, 0x00, 0x00, 0x01,                         /* after: attributes_follow TRUE */
        FATTR3,
        0x00, 0x00, 0x10, 0x00,                         /* count 4096 */
        0x00, 0x00, 0x00, 0x00,                         /* committed UNSTABLE (patched) */
        0xde, 0xad, 0xbe, 0xef, 0x00, 0x00, 0x00, 0x01, /* writeverf3 */
    };
    enum { COMMITTED_OFF = 4 + 4 + 24 + 4 + 84 + 4 + 3 };
    static const uint8_t write_res_nowcc[] = {
        0x00, 0x00, 0x00, 0x00,                         /* status NFS3_OK */
        0x00, 0x00, 0x00, 0x00,                         /* before: FALSE */
        0x00, 0x00, 0x00, 0x00,                         /* after: FALSE */
        0x00, 0x00, 0x10, 0x00,                         /* count 4096 */
        0x00, 0x00, 0x00, 0x01,                         /* committed DATA_SYNC */
        0xde, 0xad, 0xbe, 0xef, 0x00, 0x00, 0x00, 0x01, /* writeverf3 */
    };
    uint8_t buf[sizeof write_res];
    struct pending_call pc;
    struct op_event ev;

    fresh_pc(&pc, P_WRITE);
    pc.stable = STABLE_UNSTABLE;
    fresh_ev(&ev);
    EQ(do_reply(write_res, sizeof write_res, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 0);
    EQ(ev.committed, STABLE_UNSTABLE);

    memcpy(buf, write_res, sizeof buf);
    buf[COMMITTED_OFF] = 2; /* FILE_SYNC */
    fresh_ev(&ev);
    EQ(do_reply(buf, sizeof buf, &pc, &ev), DECODE_OK);
    EQ(ev.committed, STABLE_FILE_SYNC);

    buf[COMMITTED_OFF] = 5; /* not a stable_how */
    fresh_ev(&ev);
    EQ(do_reply(buf, sizeof buf, &pc, &ev), DECODE_INVALID);
    EQ(ev.committed, STABLE_NONE);

    fresh_ev(&ev); /* cut before committed */
    EQ(do_reply(write_res, COMMITTED_OFF - 3, &pc, &ev), DECODE_TRUNCATED);
    EQ(ev.committed, STABLE_NONE);

    fresh_ev(&ev);
    EQ(do_reply(write_res_nowcc, sizeof write_res_nowcc, &pc, &ev), DECODE_OK);
    EQ(ev.committed, STABLE_DATA_SYNC);
}

static void
test_status_replies(void)
{
    static const uint8_t lookup_noent[] = {
        0x00, 0x00, 0x00, 0x02, /* status NFS3ERR_NOENT */
        0x00, 0x00, 0x00, 0x01, /* dir_attributes: attributes_follow TRUE */
        FATTR3,
    };
    static const uint8_t read_err[] = {
        0x00, 0x00, 0x00, 0x46, /* status NFS3ERR_STALE */
        0x00, 0x00, 0x00, 0x00, /* file_attributes: FALSE */
    };
    static const uint8_t getattr_short[] = {
        0x00, 0x00, 0x00, /* 3 bytes of status */
    };
    struct pending_call pc;
    struct op_event ev;

    fresh_pc(&pc, P_LOOKUP);
    fresh_ev(&ev);
    EQ(do_reply(lookup_noent, sizeof lookup_noent, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 2);
    EQ(ev.read_bytes, 0);

    fresh_pc(&pc, P_READ); /* an error READ carries no count */
    fresh_ev(&ev);
    EQ(do_reply(read_err, sizeof read_err, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 70);
    EQ(ev.read_bytes, 0);

    fresh_pc(&pc, P_GETATTR);
    fresh_ev(&ev);
    EQ(do_reply(getattr_short, sizeof getattr_short, &pc, &ev), DECODE_TRUNCATED);
    CHECK(!ev.has_status);
    fresh_ev(&ev);
    EQ(do_reply(getattr_short, 0, &pc, &ev), DECODE_TRUNCATED);
    CHECK(!ev.has_status);

    fresh_pc(&pc, P_NULL); /* NULL has no results and no status */
    fresh_ev(&ev);
    EQ(do_reply(getattr_short, 0, &pc, &ev), DECODE_OK);
    CHECK(!ev.has_status);
}

/* Absurd lengths: a WRITE or READ count larger than its message,
 * or a data<> length that differs from the count, is a decode error and no
 * bytes are counted. */
static void
test_absurd_counts(void)
{
    uint8_t buf[sizeof write_args], rr[sizeof read_res_attr];
    struct pending_call pc;
    struct op_event ev;

    fresh_pc(&pc, P_WRITE);
    pc.call_len = 4096 + 120; /* the message holds the 4,096 bytes */
    EQ(do_call(write_args, sizeof write_args, &pc), DECODE_OK);
    EQ(pc.write_count, 4096);
    fresh_pc(&pc, P_WRITE);
    pc.call_len = 200; /* a 200-byte message cannot carry 4,096 bytes */
    EQ(do_call(write_args, sizeof write_args, &pc), DECODE_INVALID);
    EQ(pc.write_count, 0);
    memcpy(buf, write_args, sizeof buf);
    buf[sizeof buf - 2] = 0x20; /* data length 8192 != count 4096 */
    fresh_pc(&pc, P_WRITE);
    pc.call_len = 9000;
    EQ(do_call(buf, sizeof buf, &pc), DECODE_INVALID);

    fresh_pc(&pc, P_READ);
    fresh_ev(&ev);
    ev.reply_len = 100; /* count 8192 in a 100-byte reply */
    EQ(do_reply(read_res_attr, sizeof read_res_attr, &pc, &ev), DECODE_INVALID);
    EQ(ev.read_bytes, 0);
    memcpy(rr, read_res_attr, sizeof rr);
    rr[sizeof rr - 1] = 0x01; /* data length 8193 != count 8192 */
    fresh_ev(&ev);
    ev.reply_len = 9000;
    EQ(do_reply(rr, sizeof rr, &pc, &ev), DECODE_INVALID);
    EQ(ev.read_bytes, 0);
    fresh_ev(&ev);
    ev.reply_len = 9000;
    EQ(do_reply(read_res_attr, sizeof read_res_attr, &pc, &ev), DECODE_OK);
    EQ(ev.read_bytes, 8192);
}

/* RENAME (§3.3.14) and LINK (§3.3.15): the second diropargs3 is kept after
 * the first name; a successful reply says what it did to names. */
/* READDIRPLUS3resok (§3.3.17) with n entries named "e<i>", each with no
 * attributes and a 8-byte handle; eof TRUE. Returns the length. */
static size_t
readdirplus_res(uint8_t *b, unsigned n)
{
    size_t o = 0;
    unsigned i;

#define U32(v) (b[o] = (uint8_t)((v) >> 24), b[o + 1] = (uint8_t)((v) >> 16), \
                b[o + 2] = (uint8_t)((v) >> 8), b[o + 3] = (uint8_t)(v), o += 4)
    U32(0);          /* NFS3_OK */
    U32(0);          /* dir_attributes: attributes_follow FALSE */
    U32(0), U32(0);  /* cookieverf */
    for (i = 0; i < n; i++) {
        U32(1);              /* value_follows */
        U32(0), U32(i + 10); /* fileid */
        U32(4);              /* name "e" + 3 digits */
        b[o] = 'e', b[o + 1] = (uint8_t)('0' + i / 100), b[o + 2] = (uint8_t)('0' + i / 10 % 10),
        b[o + 3] = (uint8_t)('0' + i % 10), o += 4;
        U32(0), U32(i + 1);  /* cookie */
        U32(0);              /* name_attributes: FALSE */
        U32(1), U32(8);      /* name_handle: handle_follows, 8 bytes */
        U32(0xfeed0000u + i), U32(i);
    }
    U32(0); /* no more entries */
    U32(1); /* eof */
#undef U32
    return o;
}

/* Listings are decoded from the kept head; what it does not hold is said
 * (dir_cut), never guessed. */
static void
test_readdirplus_cut(void)
{
    static uint8_t b[4 + 4 + 8 + (OP_DIRENT_MAX + 8) * 48 + 8];
    struct pending_call pc;
    struct op_event ev;
    size_t n;

    fresh_pc(&pc, 17);
    n = readdirplus_res(b, 3);
    fresh_ev(&ev);
    EQ(do_reply(b, n, &pc, &ev), DECODE_OK);
    EQ(ev.dir_entries, 3);
    EQ(ev.ndirent, 3);
    CHECK(ev.dir_eof);
    CHECK(!ev.dir_cut);
    EQ(ev.dirent[2].fh.len, 8);
    EQ(ev.dirent[2].name.len, 4); /* (borrowed from the freed copy: not read here) */
    EQ(ev.dirent[2].fileid, 12);

    /* The head ends inside the second entry: one entry, eof unknown, cut. */
    fresh_ev(&ev);
    (void)do_reply(b, 16 + 48 + 20, &pc, &ev);
    EQ(ev.dir_entries, 1);
    CHECK(!ev.dir_eof);
    CHECK(ev.dir_cut);
    /* ... or just before eof. */
    fresh_ev(&ev);
    (void)do_reply(b, n - 4, &pc, &ev);
    EQ(ev.dir_entries, 3);
    CHECK(ev.dir_cut);

    /* More entries than dirent[] keeps: all counted, the rest said cut. */
    n = readdirplus_res(b, OP_DIRENT_MAX + 8);
    fresh_ev(&ev);
    EQ(do_reply(b, n, &pc, &ev), DECODE_OK);
    EQ(ev.dir_entries, OP_DIRENT_MAX + 8);
    EQ(ev.ndirent, OP_DIRENT_MAX);
    CHECK(ev.dir_eof);
    CHECK(ev.dir_cut);
}

static void
test_rename_link(void)
{
    static const uint8_t rename_args[] = {
        FH32,                                                 /* from.dir */
        0x00, 0x00, 0x00, 0x01, 'a', 0x00, 0x00, 0x00,       /* from.name "a" */
        0x00, 0x00, 0x00, 0x04, 0xd1, 0xd2, 0xd3, 0xd4,       /* to.dir: 4 bytes */
        0x00, 0x00, 0x00, 0x03, 'b', 'c', 'd', 0x00,          /* to.name "bcd" */
    };
    static const uint8_t link_args[] = {
        FH32,                                                 /* file */
        0x00, 0x00, 0x00, 0x04, 0xd1, 0xd2, 0xd3, 0xd4,       /* link.dir */
        0x00, 0x00, 0x00, 0x02, 'h', 'l', 0x00, 0x00,         /* link.name "hl" */
    };
    static const uint8_t rename_ok[] = {
        0x00, 0x00, 0x00, 0x00, /* NFS3_OK */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* fromdir_wcc: no pre, no post */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* todir_wcc */
    };
    static const uint8_t link_ok[] = {
        0x00, 0x00, 0x00, 0x00, /* NFS3_OK */
        0x00, 0x00, 0x00, 0x00, /* file_attributes: none */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* linkdir_wcc */
    };
    static const uint8_t exist[] = {
        0x00, 0x00, 0x00, 0x11, /* NFS3ERR_EXIST */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    uint8_t big[4 + 32 + 4 + 252 + sizeof rename_args - 44];
    struct pending_call pc;
    struct op_event ev;
    size_t o;

    fresh_pc(&pc, 14);
    EQ(do_call(rename_args, sizeof rename_args, &pc), DECODE_OK);
    EQ(pc.fh_len, 32);
    EQ(pc.name_len, 1);
    EQ(pc.name[0], 'a');
    EQ(pc.fh2_len, 4);
    EQ(pc.name2_len, 3);
    CHECK(memcmp(pc.name + 1, "\xd1\xd2\xd3\xd4" "bcd", 7) == 0);
    fresh_ev(&ev);
    EQ(do_reply(rename_ok, sizeof rename_ok, &pc, &ev), DECODE_OK);
    EQ(ev.names_op, NAMES_OP_RENAME);
    fresh_ev(&ev);
    EQ(do_reply(exist, sizeof exist, &pc, &ev), DECODE_OK);
    EQ(ev.names_op, NAMES_OP_NONE);
    /* Cut inside to.name: nothing kept for it. */
    fresh_pc(&pc, 14);
    EQ(do_call(rename_args, sizeof rename_args - 2, &pc), DECODE_TRUNCATED);
    EQ(pc.fh2_len, 0);
    EQ(pc.name2_len, 0);
    /* from.name of 252 bytes: to.dir and to.name do not fit after it. */
    memcpy(big, rename_args, 36);
    o = 36;
    big[o++] = 0, big[o++] = 0, big[o++] = 0, big[o++] = 252;
    memset(big + o, 'n', 252), o += 252;
    memcpy(big + o, rename_args + 44, sizeof rename_args - 44);
    fresh_pc(&pc, 14);
    EQ(do_call(big, sizeof big, &pc), DECODE_OK);
    EQ(pc.name_len, 252);
    EQ(pc.fh2_len, 0);
    EQ(pc.name2_len, 0);

    fresh_pc(&pc, 15);
    EQ(do_call(link_args, sizeof link_args, &pc), DECODE_OK);
    EQ(pc.fh_len, 32);
    EQ(pc.name_len, 0);
    EQ(pc.fh2_len, 4);
    EQ(pc.name2_len, 2);
    CHECK(memcmp(pc.name, "\xd1\xd2\xd3\xd4" "hl", 6) == 0);
    fresh_ev(&ev);
    EQ(do_reply(link_ok, sizeof link_ok, &pc, &ev), DECODE_OK);
    EQ(ev.names_op, NAMES_OP_LINK);
    fresh_ev(&ev);
    EQ(do_reply(exist, sizeof exist, &pc, &ev), DECODE_OK);
    EQ(ev.names_op, NAMES_OP_NONE);

    fresh_pc(&pc, 12); /* REMOVE */
    fresh_ev(&ev);
    EQ(do_reply(rename_ok, sizeof rename_ok - 8, &pc, &ev), DECODE_OK);
    EQ(ev.names_op, NAMES_OP_REMOVE);
}

/* LOOKUP3resok (§3.3.3): the attributes are decoded for the findings, and
 * skipped, with the same result otherwise, when nothing reads them. */
static void
test_no_attrs(void)
{
    static const uint8_t res[] = {
        0x00, 0x00, 0x00, 0x00, /* NFS3_OK */
        FH32,                   /* object */
        0x00, 0x00, 0x00, 0x01, /* obj_attributes present */
        FATTR3,
        0x00, 0x00, 0x00, 0x01, /* dir_attributes present */
        FATTR3,
    };
    struct pending_call pc;
    struct op_event ev;
    unsigned no_attrs;

    for (no_attrs = 0; no_attrs < 2; no_attrs++) {
        fresh_pc(&pc, P_LOOKUP);
        fresh_ev(&ev);
        ev.no_attrs = no_attrs;
        EQ(do_reply(res, sizeof res, &pc, &ev), DECODE_OK);
        EQ(ev.status, 0);
        EQ(ev.obj_fh.len, 32);
        EQ(ev.obj_attr.valid, !no_attrs);
        EQ(ev.attr.valid, !no_attrs);
        EQ(ev.obj_attr.fileid, no_attrs ? 0 : 0x12345);
        EQ(ev.obj_attr.type, no_attrs ? 0 : 1);
    }
}

int
main(void)
{
    test_registry();
    if (!pg)
        return t_done();
    test_write_call();
    test_other_calls();
    test_read_reply();
    test_write_reply();
    test_absurd_counts();
    test_status_replies();
    test_rename_link();
    test_readdirplus_cut();
    test_no_attrs();
    return t_done();
}
