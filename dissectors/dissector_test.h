/* SPDX-License-Identifier: BSD-3-Clause */
/* dissector_test.h: helpers shared by the dissectors' unit tests
 * (dissectors/NAME_test.c), after nfs3_test.c: every decode runs on a heap
 * copy of exactly the bytes given, so ASan catches any read past the end. */
#ifndef NFSSCOPE_DISSECTOR_TEST_H
#define NFSSCOPE_DISSECTOR_TEST_H

#include <stdlib.h>
#include <string.h>

#include "dissector.h"
#include "stats.h"
#include "t.h"
#include "xdr_cur.h"
#include "xid_table.h"

/* The registered program called `name`, checked against prog/vers/nprocs. */
static inline const struct rpc_program *
dt_program(const char *name, uint32_t prog, uint32_t vers, uint32_t nprocs)
{
    const struct rpc_program *pg = NULL;
    size_t i;

    for (i = 0; rpc_programs[i]; i++)
        if (strcmp(rpc_programs[i]->name, name) == 0)
            pg = rpc_programs[i];
    CHECK(pg != NULL);
    if (!pg)
        return NULL;
    EQ(pg->prog, prog);
    EQ(pg->vers, vers);
    EQ(pg->nprocs, nprocs);
    CHECK(pg->title != NULL && pg->procs != NULL && pg->call != NULL && pg->reply != NULL);
    return pg;
}

/* Procedure names equal `want` (NULL entries: unnamed). */
static inline void
dt_proc_names(const struct rpc_program *pg, const char *const *want, uint32_t n)
{
    uint32_t i;
    unsigned bad = 0;

    EQ(pg->nprocs, n);
    for (i = 0; i < n && i < pg->nprocs; i++) {
        const char *a = pg->procs[i].name, *b = want[i];
        if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0)) {
            fprintf(stderr, "proc %u: \"%s\" != \"%s\"\n", i, a ? a : "(null)", b ? b : "(null)");
            bad++;
        }
    }
    EQ(bad, 0);
}

static inline void
dt_pc(struct pending_call *pc, const struct rpc_program *pg, uint32_t proc)
{
    memset(pc, 0, sizeof *pc); /* xid_table_add zeroes the entry */
    pc->prog = pg->prog;
    pc->vers = pg->vers;
    pc->proc = proc;
    pc->pg = pg;
    pc->stable = STABLE_NONE; /* as rpc_match does before calling */
}

static inline void
dt_ev(struct op_event *ev)
{
    static struct op_dirent dirents[OP_DIRENT_MAX];

    memset(ev, 0, sizeof *ev);
    ev->stable = ev->committed = STABLE_NONE; /* as rpc_match does */
    ev->dirent = dirents;
    ev->dirent_cap = OP_DIRENT_MAX;
}

static inline enum decode_rc
dt_call(const struct rpc_program *pg, const uint8_t *p, size_t n, struct pending_call *pc)
{
    uint8_t *q = malloc(n ? n : 1);
    struct bytes b;
    struct xdr_cur x;
    enum decode_rc rc;

    if (n)
        memcpy(q, p, n);
    b.p = q;
    b.len = n;
    xdr_cur_init(&x, b);
    rc = pg->call(&x, pc, NULL);
    free(q);
    return rc;
}

static inline enum decode_rc
dt_reply(const struct rpc_program *pg, const uint8_t *p, size_t n, const struct pending_call *pc,
         struct op_event *ev)
{
    uint8_t *q = malloc(n ? n : 1);
    struct bytes b;
    struct xdr_cur x;
    enum decode_rc rc;

    if (n)
        memcpy(q, p, n);
    b.p = q;
    b.len = n;
    xdr_cur_init(&x, b);
    rc = pg->reply(&x, pc, ev, NULL);
    free(q);
    return rc;
}

/* Arguments of `proc` cut at every length in [from, to): each must decode
 * as TRUNCATED. Returns how many did not. */
static inline unsigned
dt_call_cuts(const struct rpc_program *pg, uint32_t proc, const uint8_t *p, size_t from, size_t to)
{
    struct pending_call pc;
    unsigned bad = 0;
    size_t n;

    for (n = from; n < to; n++) {
        dt_pc(&pc, pg, proc);
        if (dt_call(pg, p, n, &pc) != DECODE_TRUNCATED) {
            fprintf(stderr, "%s proc %u: call cut at %zu not TRUNCATED\n", pg->name, proc, n);
            bad++;
        }
    }
    return bad;
}

/* Results of `pc` cut at every length in [from, to): each must decode as
 * TRUNCATED, with a status only if `status_from` <= the cut (then equal to
 * `status`). Returns how many did not. */
static inline unsigned
dt_reply_cuts(const struct rpc_program *pg, const struct pending_call *pc, const uint8_t *p,
              size_t from, size_t to, size_t status_from, uint32_t status)
{
    struct op_event ev;
    unsigned bad = 0;
    size_t n;

    for (n = from; n < to; n++) {
        bool want_status = n >= status_from;
        dt_ev(&ev);
        if (dt_reply(pg, p, n, pc, &ev) != DECODE_TRUNCATED || ev.has_status != want_status ||
            (want_status && ev.status != status) || ev.read_bytes != 0) {
            fprintf(stderr, "%s proc %u: reply cut at %zu: wrong result\n", pg->name, pc->proc, n);
            bad++;
        }
    }
    return bad;
}

#endif
