/* SPDX-License-Identifier: BSD-3-Clause */
/* stats_test.c: what a finished operation teaches the names cache
 * (stats_record_by); program numbers learned from the calls that announce
 * them (stats_learn_program); a file row's NFSv4 operations
 * (stats_file_ops); two tables merged (stats_merge) against one that
 * recorded every event. */
#include "stats.h"

#include <string.h>

#include "hashtab.h"
#include "nfs4.h"
#include "t.h"
#include "xid_table.h"

/* An NFSv4 client's callback program number (RFC 7530 §16.1): decoded as
 * the callback program once announced, never over a registered number,
 * at most STATS_LEARNED_MAX kept, the oldest replaced (counted). */
static void
test_learned(void)
{
    struct stats s;
    uint32_t i;

    EQ(stats_init(&s), 0);
    CHECK(stats_program(&s, NFS4_CB_PROGRAM, NFS4_CB_VERSION) == &nfs4_callback_program);
    CHECK(stats_program(&s, 0x40000123, NFS4_CB_VERSION) == NULL);
    stats_learn_program(&s, 0x40000123, &nfs4_callback_program);
    CHECK(stats_program(&s, 0x40000123, NFS4_CB_VERSION) == &nfs4_callback_program);
    CHECK(stats_program(&s, 0x40000123, 4) == NULL); /* another version: not decoded */
    stats_learn_program(&s, 0x40000123, &nfs4_callback_program); /* again: one entry */
    stats_learn_program(&s, 0, &nfs4_callback_program);          /* none announced */
    stats_learn_program(&s, 100003, &nfs4_callback_program);     /* a registered number */
    CHECK(stats_program(&s, 100003, 1) == NULL);
    EQ(s.learned.learned, 1);
    EQ(s.learned.n, 1);
    for (i = 1; i <= STATS_LEARNED_MAX; i++)
        stats_learn_program(&s, 0x40000123 + i, &nfs4_callback_program);
    EQ(s.learned.n, STATS_LEARNED_MAX);
    EQ(s.learned.evicted, 1);
    CHECK(stats_program(&s, 0x40000123, NFS4_CB_VERSION) == NULL); /* the oldest went */
    CHECK(stats_program(&s, 0x40000123 + STATS_LEARNED_MAX, NFS4_CB_VERSION) ==
          &nfs4_callback_program);
    stats_fini(&s);
}

/* A file row's NFSv4 operations (stats_file_ops): most first, ties in
 * operation order, the row's overflow and unnamed operations last as one
 * entry named NULL; the "other" row's after an eviction. */
static void
test_file_ops(void)
{
    struct stats s;
    struct file_op ops[BD_PROCS_PER_ROW];
    struct bd_table *t;
    const struct bd_row *r;
    size_t i, v4 = 0, n;
    uint32_t op;

    EQ(stats_init(&s), 0);
    EQ(stats_breakdowns_init(&s, 1, 64, 7), 0);
    t = &s.bd[BD_FILE];
    for (i = 0; i < s.nprogs; i++)
        if (s.progs[i].pg->nops && s.progs[i].pg->prog == 100003)
            v4 = i;
    CHECK(s.progs[v4].pg->nops > 60);
    r = bd_table_row(t, (const uint8_t *)"FH", 2);
    EQ(stats_file_ops(&s, r, ops), 0);
    bd_procs_call(t->ops, 0, r->gen, bd_procs_key(v4, 25), 0); /* read */
    for (i = 0; i < 3; i++)
        bd_procs_call(t->ops, 0, r->gen, bd_procs_key(v4, 22), 0); /* putfh */
    bd_procs_call(t->ops, 0, r->gen, bd_procs_key(v4, 9), 0); /* getattr */
    bd_procs_call(t->ops, 0, r->gen, bd_procs_key(v4, 0xffff), 0); /* no name */
    n = stats_file_ops(&s, r, ops);
    EQ(n, 4);
    STREQ(ops[0].name, "putfh");
    EQ(ops[0].results, 3);
    STREQ(ops[1].name, "getattr"); /* a tie with read: operation order */
    STREQ(ops[2].name, "read");
    CHECK(ops[3].name == NULL);
    EQ(ops[3].results, 1);
    /* 23 entries of its own (renew .. secinfo_no_name fill the 19 left),
     * then the overflow entry: 22 named, the rest 1 + 11 */
    for (op = 30; op < 60; op++)
        bd_procs_call(t->ops, 0, r->gen, bd_procs_key(v4, op), 0);
    n = stats_file_ops(&s, r, ops);
    EQ(n, 23);
    CHECK(ops[n - 1].name == NULL);
    EQ(ops[n - 1].results, 12);
    /* a second handle takes the only slot: the first one's go to "other" */
    r = bd_table_row(t, (const uint8_t *)"FH2", 3);
    EQ(stats_file_ops(&s, r, ops), 0);
    n = stats_file_ops(&s, &t->other, ops);
    EQ(n, 23);
    STREQ(ops[0].name, "putfh");
    stats_fini(&s);
}

/* Event i of a made-up run: NFSv3 procedures and NFSv4 COMPOUNDs of 20
 * kinds, statuses, RPC errors, unanswered calls, latencies from 0 to 0.9 s. */
static void
merge_event(struct op_event *ev, uint32_t i, const struct rpc_program *v3,
            const struct rpc_program *v4)
{
    const struct rpc_program *pg = i % 4 == 3 ? v4 : v3;

    memset(ev, 0, sizeof *ev);
    ev->pg = pg;
    ev->prog = pg->prog;
    ev->vers = pg->vers;
    ev->proc = pg == v4 ? 1 : i % 22;
    ev->minor = 0xff;
    ev->stable = ev->committed = STABLE_NONE;
    ev->uid = ev->gid = UINT32_MAX;
    ev->t_call.tv_sec = 1000 + i / 10;
    ev->t_call.tv_nsec = (long)(i * 7919u % 1000u) * 1000;
    ev->t_reply = ev->t_call;
    ev->t_reply.tv_nsec += (long)(i * 104729u % 900000u) * 1000;
    ev->outcome = i % 50 == 0 ? OP_NO_REPLY : i % 37 == 0 ? OP_RPC_ERROR : OP_REPLIED;
    ev->has_status = true;
    ev->status = i % 13 == 0 ? 2 + i % 20 : 0;
    ev->reply_frame = i + 1;
    if (pg == v4) {
        ev->has_main_ops = true;
        ev->main_ops = 1 + (i * 2654435761u >> 7) % 20;
    }
}

static uint64_t
status_of(const struct proc_stats *p, uint32_t status)
{
    unsigned k;

    for (k = 0; k < p->nstatus; k++)
        if (p->status[k].status == status)
            return p->status[k].count;
    return 0;
}

/* The merge tests' three tables (one for every event, two for halves) and
 * the NFS v3 and v4 programs; false if any is missing. */
static bool
three_tables(struct stats *all, struct stats *a, struct stats *b, const struct rpc_program **v3,
             const struct rpc_program **v4)
{
    EQ(stats_init(all), 0);
    EQ(stats_init(a), 0);
    EQ(stats_init(b), 0);
    *v3 = stats_program(all, 100003, 3);
    *v4 = stats_program(all, 100003, 4);
    CHECK(*v3 && *v4);
    return *v3 && *v4;
}

/* stats_merge: the events split between two tables in an irregular
 * pattern, merged, give what one table that recorded them all holds: every
 * counter, every status, the latency histograms bucket for bucket (so
 * every percentile), the per-bound counts, and the kinds in order of first
 * reply. */
static void
test_merge(void)
{
    struct stats all, a, b;
    const struct rpc_program *v3, *v4;
    const struct prog_stats *pa, *pall;
    uint32_t i, st;
    size_t r, bad = 0;

    if (!three_tables(&all, &a, &b, &v3, &v4))
        return;
    for (i = 0; i < 3000; i++) {
        struct stats *half = (i / 7 + i / 11) % 3 == 0 ? &a : &b;
        struct op_event ev;

        merge_event(&ev, i, v3, v4);
        stats_call(&all, ev.pg, ev.proc, ev.minor, STABLE_NONE, 0);
        stats_call(half, ev.pg, ev.proc, ev.minor, STABLE_NONE, 0);
        stats_record(&all, &ev);
        stats_record(half, &ev);
    }
    CHECK(a.rpc.calls > 500 && b.rpc.calls > 500);
    stats_merge(&a, &b);
    CHECK(memcmp(&a.rpc, &all.rpc, sizeof a.rpc) == 0);
    EQ(a.rows_used, all.rows_used);
    for (r = 0; r < all.rows_used; r++) {
        const struct proc_stats *x = &a.rows_mem[r], *y = &all.rows_mem[r];

        if (x->calls != y->calls || x->replies != y->replies || x->errors != y->errors ||
            x->rpc_errors != y->rpc_errors || x->unanswered != y->unanswered ||
            x->nstatus != y->nstatus || x->status_other != y->status_other ||
            memcmp(&x->latency, &y->latency, sizeof x->latency) != 0 ||
            memcmp(x->lat_le, y->lat_le, sizeof x->lat_le) != 0)
            bad++;
        for (st = 0; st < 24; st++)
            bad += status_of(x, st) != status_of(y, st);
    }
    EQ(bad, 0);
    pa = stats_prog(&a, v4);
    pall = stats_prog(&all, v4);
    EQ(pa->kinds.n, 20);
    EQ(pa->kinds.n, pall->kinds.n);
    for (r = 0; r < pall->kinds.n; r++) {
        EQ(pa->kinds.rows[r].key, pall->kinds.rows[r].key);
        EQ(pa->kinds.rows[r].st.replies, pall->kinds.rows[r].st.replies);
        CHECK(memcmp(&pa->kinds.rows[r].st.latency, &pall->kinds.rows[r].st.latency,
                     sizeof pa->kinds.rows[r].st.latency) == 0);
    }
    EQ(stats_prog(&a, v3)->replies, stats_prog(&all, v3)->replies);
    stats_fini(&all);
    stats_fini(&a);
    stats_fini(&b);
}

/* Whether row r of s is all zero. */
static bool
row_zero(const struct stats *s, size_t r)
{
    static const struct proc_stats zero;

    return memcmp(&s->rows_mem[r], &zero, sizeof zero) == 0;
}

/* stats_row_on: every writer of the rows (calls of every kind and minor
 * version, replies of every outcome, GSS control messages and privacy
 * calls, retransmissions, NFSv4 operations at call time and in the reply)
 * sets a row's byte before writing it, so a row whose byte is clear is all
 * zero and may go unread; stats_row gives an empty row for those. The
 * merge reads only the rows on in src (a row off in src but not zero,
 * which no writer leaves, is left out: its pages are not read) and turns
 * on in dst what it merged, and gives what one table recording every
 * event holds, row for row. */
static void
test_rows_on(void)
{
    struct stats all, a, b;
    const struct rpc_program *v3, *v4;
    struct op_item op;
    struct op_event ev;
    size_t r, off_nonzero = 0, differ = 0, on = 0, planted;
    uint32_t i;

    if (!three_tables(&all, &a, &b, &v3, &v4))
        return;
    for (r = 0; r < all.rows_used; r++)
        CHECK(!stats_row_on(&all, &all.rows_mem[r]));
    for (i = 0; i < 2000; i++) {
        struct stats *half = i % 5 < 2 ? &a : &b, *both[2] = { &all, half };
        unsigned k;

        merge_event(&ev, i, v3, v4);
        if (ev.pg == v4)
            ev.minor = (uint8_t)(i % 3);
        if (i % 97 == 0)
            ev.outcome = OP_ORPHAN_REPLY;
        if (ev.pg == v4 && i % 43 == 0)
            ev.proc = 0; /* NULL: counted at call time only, below */
        if (i % 89 == 0)
            ev.gss_proc = (uint8_t)(1 + i % 3);
        memset(&op, 0, sizeof op);
        op.op = 3 + i % 50;
        if (ev.outcome != OP_REPLIED) /* rows written at call time only */
            op.op = 55 + (ev.pg == v4 ? ev.minor : 0);
        op.has_status = true;
        op.status = i % 11 == 0 ? 2 : 0;
        for (k = 0; k < 2; k++) {
            struct stats *s = both[k];

            if (ev.gss_proc)
                stats_gss_call(s, ev.pg, ev.proc, 1, ev.gss_proc);
            else
                stats_call(s, ev.pg, ev.proc, ev.minor, STABLE_NONE, 0);
            if (i % 23 == 0)
                stats_gss_call(s, ev.pg, ev.proc, 3, 0); /* privacy */
            if (i % 31 == 0)
                stats_retrans(s, ev.pg, ev.proc);
            if (ev.pg == v4) {
                op.phase = OPI_CALL;
                stats_op_call(s, ev.pg, ev.minor, &op);
            }
            if (ev.pg == v4 && ev.proc == 0)
                continue; /* still pending */
            stats_record(s, &ev);
            if (ev.pg == v4) {
                op.phase = i % 7 == 0 ? OPI_NOT_EVALUATED : OPI_RESULT;
                stats_record_op(s, &ev, &op);
            }
        }
    }
    for (r = 0; r < all.rows_used; r++) {
        on += stats_row_on(&all, &all.rows_mem[r]);
        off_nonzero += !stats_row_on(&all, &all.rows_mem[r]) && !row_zero(&all, r);
        off_nonzero += !stats_row_on(&a, &a.rows_mem[r]) && !row_zero(&a, r);
        off_nonzero += !stats_row_on(&b, &b.rows_mem[r]) && !row_zero(&b, r);
    }
    CHECK(on > 60 && on < all.rows_used); /* rows of each kind on, many off */
    EQ(off_nonzero, 0);
    /* a row no writer reached gives the empty row, one it did itself */
    for (r = 0; r < all.rows_used && stats_row_on(&all, &all.rows_mem[r]); r++)
        ;
    CHECK(r < all.rows_used);
    planted = r;
    CHECK(stats_row(&all, &all.rows_mem[r]) != &all.rows_mem[r]);
    CHECK(stats_row(&all, &all.rows_mem[r])->calls == 0);
    CHECK(stats_row(&all, &all.rows_mem[0]) == &all.rows_mem[0] ||
          !stats_row_on(&all, &all.rows_mem[0]));
    b.rows_mem[planted].calls = 99; /* off: the merge must not read it */
    stats_merge(&a, &b);
    EQ(a.rows_mem[planted].calls, 0);
    CHECK(!stats_row_on(&a, &a.rows_mem[planted]));
    b.rows_mem[planted].calls = 0;
    for (r = 0; r < all.rows_used; r++) {
        const struct proc_stats *x = &a.rows_mem[r], *y = &all.rows_mem[r];

        differ += stats_row_on(&a, x) != stats_row_on(&all, y);
        if (x->calls != y->calls || x->replies != y->replies || x->errors != y->errors ||
            x->rpc_errors != y->rpc_errors || x->unanswered != y->unanswered ||
            x->retrans != y->retrans || x->encrypted != y->encrypted ||
            x->not_evaluated != y->not_evaluated || x->partial != y->partial ||
            x->nstatus != y->nstatus || x->status_other != y->status_other ||
            memcmp(&x->latency, &y->latency, sizeof x->latency) != 0 ||
            memcmp(x->lat_le, y->lat_le, sizeof x->lat_le) != 0)
            differ++;
    }
    EQ(differ, 0);
    stats_fini(&all);
    stats_fini(&a);
    stats_fini(&b);
}

static struct bytes
B(const char *s)
{
    struct bytes b = { (const uint8_t *)s, strlen(s) };
    return b;
}

/* After stats_file_hash_seed, a call's handle's hash as its file row has
 * it (stats_file_hash) is hash_bytes with that seed (the findings' handle
 * key), the row found through the table or through the connection's last
 * rows alike; none once the row went to another handle, nor for a call the
 * rows never saw. The seed changes only while the table is empty. */
static void
test_file_hash(void)
{
    static struct pending_call pc, pc2;
    struct bd_cache c;
    struct stats s;
    uint64_t h = 0;
    unsigned i;

    EQ(stats_init(&s), 0);
    EQ(stats_breakdowns_init(&s, 2, 64, 7), 0);
    CHECK(stats_file_hash_seed(&s, 77));
    memset(&pc, 0, sizeof pc);
    memset(&c, 0, sizeof c);
    /* not seen by stats_call_by */
    CHECK(!stats_file_hash(&s, pc.bd_idx[BD_FILE], pc.bd_gen[BD_FILE], &h));
    pc.key.af = FLOW_AF_INET;
    pc.uid = pc.gid = UINT32_MAX;
    pc.stable = STABLE_NONE;
    memcpy(pc.fh, "handle-1", 8);
    pc.fh_len = 8;
    stats_call_by(&s, &pc, &c);
    CHECK(stats_file_hash(&s, pc.bd_idx[BD_FILE], pc.bd_gen[BD_FILE], &h));
    EQ(h, hash_bytes("handle-1", 8, 77));
    CHECK(c.valid);
    pc2 = pc;
    stats_call_by(&s, &pc2, &c); /* the same rows, through c */
    h = 0;
    CHECK(stats_file_hash(&s, pc2.bd_idx[BD_FILE], pc2.bd_gen[BD_FILE], &h));
    EQ(h, hash_bytes("handle-1", 8, 77));
    pc2.fh_len = 0; /* no handle: the "(none)" row */
    stats_call_by(&s, &pc2, &c);
    CHECK(stats_file_hash(&s, pc2.bd_idx[BD_FILE], pc2.bd_gen[BD_FILE], &h));
    EQ(h, hash_bytes(NULL, 0, 77));
    pc2.fh_len = 8;
    memcpy(pc2.fh, "handle-3", 8);
    stats_call_by(&s, &pc2, NULL);
    CHECK(stats_file_hash(&s, pc2.bd_idx[BD_FILE], pc2.bd_gen[BD_FILE], &h));
    EQ(h, hash_bytes("handle-3", 8, 77));
    pc = pc2;
    for (i = 0; i < 64; i++) { /* two rows: handle-3's (one call) goes to another */
        pc2.fh[7] = (uint8_t)('a' + i);
        stats_call_by(&s, &pc2, NULL);
    }
    CHECK(!stats_file_hash(&s, pc.bd_idx[BD_FILE], pc.bd_gen[BD_FILE], &h));
    CHECK(!stats_file_hash_seed(&s, 78)); /* rows exist */
    EQ(s.bd[BD_FILE].seed, 77);
    stats_fini(&s);
}

/* stats_lat_bucket: the first fixed bound at or above the latency, for
 * every latency in microseconds up to the last bound (10 s) and past it. */
static void
test_lat_bucket(void)
{
    uint64_t us;
    unsigned want = 0, bad = 0;

    for (us = 0; us <= 10000002; us++) {
        while (want < STATS_LAT_BOUNDS && stats_lat_bound_ns(want) < us * 1000)
            want++;
        if (stats_lat_bucket(us) != want && bad++ < 5)
            printf("  latency %llu us: bucket %u, want %u\n", (unsigned long long)us,
                   stats_lat_bucket(us), want);
    }
    EQ(bad, 0);
    EQ(stats_lat_bucket(UINT64_MAX / 1000), STATS_LAT_BOUNDS);
}

/* iosz_bucket: [0] 0 bytes, [k] [2^(k-1), 2^k), the last 1 MiB and more. */
static void
test_iosz_bucket(void)
{
    unsigned k;

    EQ(iosz_bucket(0), 0);
    for (k = 1; k < 64; k++) {
        uint64_t lo = 1ULL << (k - 1), want = k < IOSZ_BUCKETS - 1 ? k : IOSZ_BUCKETS - 1;

        EQ(iosz_bucket(lo), want);
        EQ(iosz_bucket(lo + (lo - 1)), want);
        if (lo > 1)
            EQ(iosz_bucket(lo + 1), want);
    }
    EQ(iosz_bucket(UINT64_MAX), IOSZ_BUCKETS - 1);
}

int
main(void)
{
    struct stats s;
    struct op_event ev;
    struct op_dirent dirent[2];
    struct flow_key key;
    char path[256];

    test_lat_bucket();
    test_iosz_bucket();
    test_learned();
    test_file_ops();
    test_merge();
    test_rows_on();
    test_file_hash();
    EQ(stats_init(&s), 0);
    EQ(stats_breakdowns_init(&s, 16, 64, 7), 0);
    memset(&key, 0, sizeof key);
    key.af = FLOW_AF_INET;
    key.proto = FLOW_PROTO_TCP;

    /* MNT: the export's root. */
    memset(&ev, 0, sizeof ev);
    ev.outcome = OP_REPLIED;
    ev.key = &key;
    ev.uid = ev.gid = UINT32_MAX;
    ev.stable = ev.committed = STABLE_NONE;
    ev.name = B("/export");
    ev.obj_fh = B("ROOTFH");
    ev.obj_is_export = true;
    stats_record_by(&s, &ev);

    /* READDIRPLUS of the root: entries with handles are learned. */
    memset(&ev, 0, sizeof ev);
    ev.outcome = OP_REPLIED;
    ev.key = &key;
    ev.uid = ev.gid = UINT32_MAX;
    ev.stable = ev.committed = STABLE_NONE;
    ev.fh = B("ROOTFH");
    memset(dirent, 0, sizeof dirent);
    ev.dirent = dirent;
    ev.dirent_cap = 2;
    ev.ndirent = 2;
    ev.dirent[0].name = B("a.txt");
    ev.dirent[0].fh = B("FH-A");
    ev.dirent[1].name = B("b.txt"); /* READDIR: no handle, nothing learned */
    stats_record_by(&s, &ev);

    CHECK(names_path(s.names, B("FH-A"), path, sizeof path));
    STREQ(path, "/export/a.txt");
    EQ(names_count(s.names), 2);

    /* LOOKUP, then LINK (the latest name is kept), RENAME, REMOVE. */
    memset(&ev, 0, sizeof ev);
    ev.outcome = OP_REPLIED;
    ev.key = &key;
    ev.uid = ev.gid = UINT32_MAX;
    ev.stable = ev.committed = STABLE_NONE;
    ev.fh = B("ROOTFH");
    ev.name = B("f1");
    ev.obj_fh = B("FH-F");
    stats_record_by(&s, &ev);
    CHECK(names_path(s.names, B("FH-F"), path, sizeof path));
    STREQ(path, "/export/f1");
    ev.obj_fh = B("");
    ev.fh = B("FH-F");
    ev.name = B("");
    ev.fh2 = B("ROOTFH");
    ev.name2 = B("hl");
    ev.names_op = NAMES_OP_LINK;
    stats_record_by(&s, &ev);
    names_path(s.names, B("FH-F"), path, sizeof path);
    STREQ(path, "/export/hl");
    ev.fh = B("ROOTFH");
    ev.name = B("hl");
    ev.name2 = B("hl2");
    ev.names_op = NAMES_OP_RENAME;
    ev.outcome = OP_NO_REPLY; /* not answered: nothing moved */
    stats_record_by(&s, &ev);
    names_path(s.names, B("FH-F"), path, sizeof path);
    STREQ(path, "/export/hl");
    ev.outcome = OP_REPLIED;
    stats_record_by(&s, &ev);
    names_path(s.names, B("FH-F"), path, sizeof path);
    STREQ(path, "/export/hl2");
    ev.name = B("hl2");
    ev.names_op = NAMES_OP_REMOVE; /* the label stays, the name leads nowhere */
    stats_record_by(&s, &ev);
    CHECK(!names_rename(s.names, B("ROOTFH"), B("hl2"), B("ROOTFH"), B("x")));
    names_path(s.names, B("FH-F"), path, sizeof path);
    STREQ(path, "/export/hl2");
    memset(&ev.fh2, 0, sizeof ev.fh2);
    memset(&ev.name2, 0, sizeof ev.name2);
    ev.names_op = NAMES_OP_NONE;

    /* An unanswered call teaches nothing. */
    ev.outcome = OP_NO_REPLY;
    ev.dirent = dirent;
    ev.dirent_cap = 2;
    ev.ndirent = 1;
    ev.dirent[0].fh = B("FH-C");
    stats_record_by(&s, &ev);
    CHECK(!names_path(s.names, B("FH-C"), path, sizeof path));
    stats_fini(&s);
    return t_done();
}
