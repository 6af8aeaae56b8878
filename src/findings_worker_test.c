/* SPDX-License-Identifier: BSD-3-Clause */
/* findings_worker_test.c: a random NFSv3 operation stream, with NFSv4
 * COMPOUNDs among it (their records carry an NFSv4 part, NFSv3's do not:
 * one left behind in the worker's event would show), recorded on this
 * thread and through the worker (a small ring: it wraps, fills, and some
 * listings are too large for it and take the fallback) gives the same
 * findings, field by field. The borrowed bytes are overwritten after each
 * post, so a record that kept a pointer instead of a copy shows; the fields
 * the ring does not carry are set to other values on the worker's side, so
 * findings that read one of them (findings_worker.c would have to carry
 * it) show too. Every 7,919 events the worker is synced and the two compared,
 * as a periodic report reads them. */
#include "findings_worker.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "dissector.h"
#include "findings.h"
#include "flow_key.h"
#include "nfs4.h"
#include "stats.h"
#include "t.h"

#define EVENTS 60000
#define NFH 48

/* The real tables: kinds and flags as the matcher sets them. */
extern const struct rpc_program nfs3_program, mount3_program, nfs4_program;
static struct flow_key keys[3];
static uint8_t fhs[NFH][64];
static size_t fh_len[NFH];
static uint64_t rng = 88172645463325252ULL;

static uint32_t
rnd(uint32_t n)
{
    return t_rnd(&rng, n);
}

/* Scratch the event borrows from; overwritten once the event is posted. */
static uint8_t fh_buf[64], obj_buf[64], name_buf[64], dent_buf[OP_DIRENT_MAX][96];

static struct bytes
copy_to(uint8_t *dst, const uint8_t *src, size_t n)
{
    struct bytes b = { dst, n };

    memcpy(dst, src, n);
    return b;
}

static struct op_attr
rnd_attr(void)
{
    struct op_attr a = { rnd(8) != 0, (uint8_t)(1 + rnd(2)), 0x1000 + rnd(3), 0 };
    return a;
}

static void
make(struct op_event *ev, unsigned i)
{
    static const uint32_t procs[] = { 1, 1, 1, 2, 3, 3, 4, 4, 6, 7, 7, 8, 12, 14, 16, 17, 17, 21, 19 };
    static struct op_dirent dirents[OP_DIRENT_MAX];
    uint32_t o = rnd(100);
    unsigned f = rnd(NFH), k;

    memset(ev, 0, sizeof *ev);
    ev->dirent = dirents;
    ev->dirent_cap = OP_DIRENT_MAX;
    ev->pg = rnd(50) ? &nfs3_program : &mount3_program;
    ev->prog = ev->pg->prog;
    ev->vers = 3;
    ev->proc = procs[rnd(sizeof procs / sizeof procs[0])];
    if (ev->proc >= ev->pg->nprocs)
        ev->proc = 1;
    ev->kind = ev->pg->procs[ev->proc].kind;
    ev->opf = ev->pg->procs[ev->proc].flags;
    ev->t_call.tv_sec = 1000 + i / 400;
    ev->t_call.tv_nsec = (long)(i % 400) * 2500000 + rnd(1000);
    ev->t_reply = ev->t_call;
    ev->t_reply.tv_nsec += rnd(3000000);
    ev->outcome = o < 85 ? OP_REPLIED : o < 92 ? OP_NO_REPLY : o < 96 ? OP_RPC_ERROR : OP_ORPHAN_REPLY;
    ev->has_status = ev->outcome == OP_REPLIED && rnd(20) != 0;
    ev->status = rnd(8) ? 0 : 2;
    ev->key = &keys[rnd(3)];
    ev->call_dir = (uint8_t)rnd(2);
    ev->uid = 1000 + rnd(2);
    ev->stable = (uint8_t)(ev->proc == 7 ? rnd(3) : STABLE_NONE);
    ev->write_bytes = ev->proc == 7 ? 512u << rnd(5) : 0;
    ev->read_bytes = ev->proc == 6 ? 4096 : 0;
    ev->offset = ev->proc == 16 || ev->proc == 17 ? (rnd(3) ? 0 : 77) : 4096u * rnd(8);
    ev->access_req = 1u << rnd(6);
    ev->access_granted = rnd(4) ? ev->access_req : 0;
    ev->has_verf = (ev->proc == 7 || ev->proc == 21) && rnd(4) != 0;
    memset(ev->verf, rnd(50) ? 7 : (int)rnd(256), sizeof ev->verf);
    if (rnd(30))
        ev->fh = copy_to(fh_buf, fhs[f], fh_len[f]);
    ev->attr = rnd_attr();
    if (ev->proc == 3 || ev->proc == 8) {
        unsigned c = rnd(NFH), nl = 1 + rnd(12);
        for (k = 0; k < nl; k++)
            name_buf[k] = (uint8_t)('a' + rnd(3));
        ev->name.p = name_buf;
        ev->name.len = nl;
        ev->obj_fh = copy_to(obj_buf, fhs[c], fh_len[c]);
        ev->obj_attr = rnd_attr();
    }
    if ((ev->proc == 16 || ev->proc == 17) && ev->outcome == OP_REPLIED) {
        unsigned n = rnd(10) ? rnd(40) : 200 + rnd(OP_DIRENT_MAX - 200);
        ev->dir_entries = n + rnd(3);
        ev->ndirent = (uint16_t)n;
        for (k = 0; k < n; k++) {
            struct op_dirent *e = &ev->dirent[k];
            unsigned c = rnd(NFH), nl = rnd(9) ? 1 + rnd(30) : 1 + rnd(2);
            memset(dent_buf[k], k % 9 == 0 ? '.' : 'a' + (int)rnd(26), nl);
            e->name.p = dent_buf[k];
            e->name.len = nl;
            e->fh.len = 0;
            if (ev->proc == 17) {
                memcpy(dent_buf[k] + 32, fhs[c], fh_len[c]);
                e->fh.p = dent_buf[k] + 32;
                e->fh.len = fh_len[c];
            }
            e->fileid = c;
            e->attr = rnd_attr();
        }
    }
    if (ev->pg == &nfs3_program && rnd(6) == 0) { /* as an NFSv4 COMPOUND (RFC 8881 §16.2) */
        static const uint32_t ops[] = { 26, 26, 9, 3, 15, 25 }; /* READDIR GETATTR ACCESS LOOKUP READ */
        uint32_t op = ops[rnd(sizeof ops / sizeof ops[0])];

        ev->pg = &nfs4_program;
        ev->prog = 100003;
        ev->vers = 4;
        ev->proc = 1;
        ev->kind = nfs4_op(op)->kind;
        ev->opf = nfs4_op(op)->flags & (OPF_MOD_DATA | OPF_MOD_META);
        ev->has_main_ops = true;
        ev->main_ops = nfs4_op_pack(op);
        ev->v4.main_done = true;
        ev->v4.main_status = ev->status;
        ev->v4.has_seq = rnd(2) != 0;
        ev->v4.dir_attrs = true; /* read for NFSv3 listings too (listing_call) */
        ev->v4.slot = rnd(4);
        ev->v4.highest_slot = ev->v4.target_slot = 7;
        ev->v4.session = 1 + rnd(2);
    }
}

/* The fields the findings do not read (not carried by the ring) set to
 * values the matcher could give them. */
static void
other_fields(struct op_event *ev, unsigned i)
{
    static const uint32_t priv[4] = { 0xdeadbeef, 1, 2, 3 };
    static uint8_t junk[16] = "other-directory";
    unsigned k;

    ev->prog = 100003 + i;
    ev->minor = (uint8_t)i;
    ev->partial = i % 3 == 0;
    ev->gss_service = (uint8_t)(i % 4);
    ev->gss_proc = (uint8_t)(i % 3);
    ev->committed = (uint8_t)(i % 3);
    ev->accept_stat = i % 5;
    ev->reject_stat = i % 2;
    ev->reply_stat = i % 2;
    ev->xid = i * 2654435761u;
    ev->call_frame = i + 1;
    ev->reply_frame = i + 2;
    ev->from_server = i % 7 == 0;
    ev->obj_is_export = i % 11 == 0;
    ev->gid = 100 + i % 3;
    ev->fh2.p = ev->name2.p = junk;
    ev->fh2.len = 16;
    ev->name2.len = 1 + i % 15;
    ev->names_op = (uint8_t)(i % 4);
    ev->nlm_has_lock = ev->nlm_block = i % 2 == 0;
    ev->nlm_lock = i;
    ev->bd_idx = ev->bd_gen = priv;
    ev->call_priv = (const uint8_t *)priv;
    ev->no_attrs = i % 13 == 0;
    ev->dir_eof = i % 2 == 1;
    ev->dir_cut = i % 5 == 1;
    ev->attr.fileid = ev->obj_attr.fileid = i;
    for (k = 0; k < ev->ndirent; k++)
        ev->dirent[k].fileid = i + k;
}

static void
scribble(void)
{
    memset(fh_buf, 0xee, sizeof fh_buf);
    memset(obj_buf, 0xee, sizeof obj_buf);
    memset(name_buf, 0xee, sizeof name_buf);
    memset(dent_buf, 0xee, sizeof dent_buf);
}

static void
same_findings(const struct findings *a, const struct findings *b)
{
    size_t plain = offsetof(struct findings, files); /* every field before is plain data */

    EQ(a->nfs3_calls, b->nfs3_calls);
    EQ(a->n[FK_REDUNDANT_GETATTR], b->n[FK_REDUNDANT_GETATTR]);
    EQ(a->est[SC_NOCTO][1], b->est[SC_NOCTO][1]);
    EQ(a->ndirs, b->ndirs);
    CHECK(memcmp(a, b, plain) == 0);
    EQ(a->nfiles, b->nfiles);
    CHECK(memcmp(a->files, b->files, a->nfiles * sizeof *a->files) == 0);
    CHECK(memcmp(&a->file_other, &b->file_other, sizeof a->file_other) == 0);
    EQ(a->evicted, b->evicted);
}

int
main(void)
{
    static struct op_event ev;
    struct findings *one = findings_new(64, 3, 42), *two = findings_new(64, 3, 42);
    struct findings_worker *w;
    unsigned i, k, wanted = 0;

    CHECK(one && two);
    for (k = 0; k < 3; k++) {
        keys[k].af = FLOW_AF_INET;
        keys[k].proto = FLOW_PROTO_TCP;
        keys[k].saddr[0] = 10;
        keys[k].saddr[3] = (uint8_t)(k + 1);
        keys[k].daddr[0] = 10;
        keys[k].daddr[3] = 100;
    }
    for (i = 0; i < NFH; i++) {
        fh_len[i] = 8 + 4 * (i % 15);
        for (k = 0; k < fh_len[i]; k++)
            fhs[i][k] = (uint8_t)(i * 13 + k);
    }
    w = findings_worker_start(two, 16384); /* a record holds 8 KiB at most: large listings fall back */
    CHECK(w != NULL);
    if (!w)
        return t_done();
    for (i = 0; i < EVENTS; i++) {
        uint64_t save = rng;
        make(&ev, i);
        wanted += findings_wants(&ev);
        findings_record(one, &ev);
        rng = save; /* the same event again, freshly built, for the worker */
        make(&ev, i);
        other_fields(&ev, i);
        findings_worker_post(w, &ev);
        scribble();
        if (i % 7919 == 7918) { /* a periodic report reads them mid-run */
            findings_worker_sync(w);
            same_findings(one, two);
        }
    }
    EQ(findings_worker_posted(w), wanted);
    CHECK(findings_worker_inline(w) > 0); /* the fallback was taken, and agrees too */
    CHECK(findings_worker_inline(w) < wanted / 10);
    findings_worker_finish(w);
    CHECK(one->nfs3_calls > EVENTS / 2);
    CHECK(one->evicted > 0);  /* 64-entry tables: evictions are part of what must agree */
    CHECK(one->ndirs > 0);
    CHECK(one->n[FK_REDUNDANT_GETATTR] + one->n[FK_STABLE_WRITES] > 0);
    same_findings(one, two);
    findings_free(one);
    findings_free(two);
    findings_worker_finish(NULL); /* a no-op */
    return t_done();
}
