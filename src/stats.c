/* SPDX-License-Identifier: BSD-3-Clause */
/* stats.c: per-program, per-procedure counters and latency histograms. */
#include "stats.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xid_table.h"

#define NFS_PROGRAM 100003 /* with operations: NFSv4's COMPOUND (RFC 8881 §16.2) */

/* Every program's procedure, operation and control rows come from one
 * zeroed block, big enough that calloc maps it rather than clearing heap
 * memory: zeroed rows are empty (histo.h), so the 9.5 KiB rows of procedures
 * never called stay out of the resident set. */
static size_t
rows_of(const struct rpc_program *pg)
{
    size_t one = (pg->nprocs ? pg->nprocs : 1) + (pg->ops ? (pg->nops ? pg->nops : 1) : 0);

    return one + GSS_CTL__COUNT + pg->nminor * one;
}

/* Row p is written: its byte in rows_on (stats_row_on). */
static inline struct proc_stats *
row_on(struct stats *s, struct proc_stats *p)
{
    s->rows_on[p - s->rows_mem] = 1;
    return p;
}

const struct proc_stats *
stats_row(const struct stats *s, const struct proc_stats *p)
{
    static const struct proc_stats empty;

    return stats_row_on(s, p) ? p : &empty;
}

static struct proc_stats *
rows_new(struct stats *s, uint32_t n)
{
    struct proc_stats *r = s->rows_mem + s->rows_used;

    s->rows_used += n ? n : 1;
    return r;
}

static int
kinds_new(struct kind_table *t)
{
    t->rows = calloc(STATS_MAX_KINDS, sizeof *t->rows); /* zeroed: empty (rows_new) */
    return t->rows ? 0 : -1;
}

/* A program's minor-version rows and kind tables (rpc_program.nminor, kind_name). */
static int
minor_new(struct stats *s, struct prog_stats *ps)
{
    const struct rpc_program *pg = ps->pg;
    uint32_t i;

    if (pg->kind_name && kinds_new(&ps->kinds) != 0)
        return -1;
    if (!pg->nminor)
        return 0;
    ps->minor = calloc(pg->nminor, sizeof *ps->minor);
    if (!ps->minor)
        return -1;
    for (i = 0; i < pg->nminor; i++) {
        struct minor_stats *m = &ps->minor[i];

        m->procs = rows_new(s, pg->nprocs);
        if (pg->ops)
            m->ops = rows_new(s, pg->nops);
        if (pg->kind_name && kinds_new(&m->kinds) != 0)
            return -1;
    }
    return 0;
}

int
stats_init_programs(struct stats *s, const struct rpc_program *const *programs)
{
    size_t n = 0, i, rows = 0;

    memset(s, 0, sizeof *s);
    s->cap.kernel_drops = -1;
    while (programs[n])
        n++;
    s->progs = calloc(n ? n : 1, sizeof *s->progs);
    if (!s->progs)
        return -1;
    s->nprogs = n;
    for (i = 0; i < n; i++)
        rows += rows_of(programs[i]);
    s->rows_mem = calloc(rows ? rows : 1, sizeof *s->rows_mem);
    s->rows_on = calloc(rows ? rows : 1, sizeof *s->rows_on);
    if (!s->rows_mem || !s->rows_on) {
        stats_fini(s);
        return -1;
    }
    for (i = 0; i < n; i++) {
        const struct rpc_program *pg = programs[i];

        s->progs[i].pg = pg;
        s->progs[i].procs = rows_new(s, pg->nprocs);
        s->progs[i].gss_ctl = rows_new(s, GSS_CTL__COUNT);
        if (pg->ops)
            s->progs[i].ops = rows_new(s, pg->nops);
        if (minor_new(s, &s->progs[i]) != 0) {
            stats_fini(s);
            return -1;
        }
    }
    return 0;
}

int
stats_init(struct stats *s)
{
    return stats_init_programs(s, rpc_programs);
}

int
stats_breakdowns_init(struct stats *s, size_t rows, size_t names_cap, uint64_t seed)
{
    unsigned d;

    for (d = 0; d < BD__COUNT; d++)
        if (bd_table_init(&s->bd[d], (enum bd_dim)d, rows, seed + d) != 0)
            return -1;
    s->bd[BD_FILE].ops = calloc(1, sizeof *s->bd[BD_FILE].ops);
    if (!s->bd[BD_FILE].ops || bd_procs_init(s->bd[BD_FILE].ops, rows) != 0)
        return -1;
    s->names = names_new(names_cap, seed ^ 0x6e616d6573ULL);
    if (!s->names || timeline_init(&s->tl, 1) != 0 ||
        bd_acc_init(&s->acc, &s->bd[BD_CLIENT], &s->bd[BD_SERVER], &s->bd[BD_PAIR],
                    &s->bd[BD_USER]) != 0)
        return -1;
    s->bd_on = true;
    return 0;
}

bool
stats_file_hash_seed(struct stats *s, uint64_t seed)
{
    if (!s->bd_on || s->bd[BD_FILE].count)
        return false;
    s->bd[BD_FILE].seed = seed; /* its eviction's rng stays seeded as before */
    return true;
}

void
stats_settle(struct stats *s)
{
    if (s->bd_on)
        bd_acc_settle(&s->acc);
}

void
stats_bd_defer(struct stats *s, bool on)
{
    stats_settle(s);
    s->bd_defer = on && s->bd_on && !s->bd[BD_CLIENT].procs;
}

int
stats_by_proc_init(struct stats *s)
{
    static const enum bd_dim dims[] = { BD_CLIENT, BD_SERVER, BD_FILE };
    unsigned i;

    if (!s->bd_on)
        return -1;
    stats_bd_defer(s, false);
    for (i = 0; i < sizeof dims / sizeof *dims; i++) {
        struct bd_table *t = &s->bd[dims[i]];

        if (t->procs)
            continue;
        t->procs = calloc(1, sizeof *t->procs);
        if (!t->procs || bd_procs_init(t->procs, t->cap) != 0) {
            free(t->procs);
            t->procs = NULL;
            return -1;
        }
    }
    return 0;
}

/* The index of pg in s->progs, or s->nprogs: not counted. The one found
 * last is tried first (a capture's calls are mostly of one program). */
static size_t
prog_index(struct stats *s, const struct rpc_program *pg)
{
    size_t i;

    if (s->prog_hint < s->nprogs && s->progs[s->prog_hint].pg == pg)
        return s->prog_hint;
    for (i = 0; i < s->nprogs; i++)
        if (s->progs[i].pg == pg) {
            s->prog_hint = i;
            return i;
        }
    return s->nprogs;
}

/* The bd_procs key of a procedure the tables show, or BD_PROCS_OTHER (an
 * undecoded program, a procedure number beyond the program's). */
static uint32_t
proc_key(struct stats *s, const struct rpc_program *pg, uint32_t proc)
{
    size_t i;

    if (!pg || proc >= pg->nprocs)
        return BD_PROCS_OTHER;
    i = prog_index(s, pg);
    return i < s->nprogs ? bd_procs_key(i, proc) : BD_PROCS_OTHER;
}

void
stats_fini(struct stats *s)
{
    size_t i;
    unsigned d;

    bd_acc_fini(&s->acc);
    s->bd_defer = false;
    for (d = 0; d < BD__COUNT; d++)
        if (s->bd[d].rows)
            bd_table_fini(&s->bd[d]);
    names_free(s->names);
    s->names = NULL;
    timeline_fini(&s->tl);
    s->bd_on = false;

    if (s->progs)
        for (i = 0; i < s->nprogs; i++) {
            struct prog_stats *ps = &s->progs[i];
            uint32_t k;

            for (k = 0; ps->minor && k < ps->pg->nminor; k++)
                free(ps->minor[k].kinds.rows);
            free(ps->minor);
            free(ps->kinds.rows);
        }
    free(s->progs);
    s->progs = NULL;
    s->nprogs = 0;
    free(s->rows_mem); /* every procs, ops and gss_ctl array */
    s->rows_mem = NULL;
    free(s->rows_on);
    s->rows_on = NULL;
    s->rows_used = 0;
}

/* stats_prog, inline here: every call and reply looks its program's rows up. */
static inline struct prog_stats *
prog_of(struct stats *s, const struct rpc_program *pg)
{
    size_t i;

    if (!pg)
        return NULL;
    i = prog_index(s, pg);
    return i < s->nprogs ? &s->progs[i] : NULL;
}

struct prog_stats *
stats_prog(struct stats *s, const struct rpc_program *pg)
{
    return prog_of(s, pg);
}

const struct prog_stats *
stats_prog_by_name(const struct stats *s, const char *name)
{
    size_t i;

    for (i = 0; i < s->nprogs; i++)
        if (strcmp(s->progs[i].pg->name, name) == 0)
            return &s->progs[i];
    return NULL;
}

const struct rpc_program *
stats_program_find(struct stats *s, uint32_t prog, uint32_t vers)
{
    size_t i = s->number_hint;

    if (i < s->nprogs && s->progs[i].pg->prog == prog && s->progs[i].pg->vers == vers)
        return s->progs[i].pg;
    for (i = 0; i < s->nprogs; i++)
        if (s->progs[i].pg->prog == prog && s->progs[i].pg->vers == vers) {
            s->number_hint = i;
            return s->progs[i].pg;
        }
    for (i = 0; i < s->learned.n; i++)
        if (s->learned.prog[i] == prog && s->learned.pg[i]->vers == vers)
            return s->learned.pg[i];
    return NULL;
}

void
stats_learn_program(struct stats *s, uint32_t prog, const struct rpc_program *pg)
{
    struct learned_progs *l = &s->learned;
    size_t i;

    if (!prog || !prog_of(s, pg))
        return;
    for (i = 0; i < s->nprogs; i++)
        if (s->progs[i].pg->prog == prog)
            return; /* a registered number keeps its own program */
    for (i = 0; i < l->n; i++)
        if (l->prog[i] == prog) {
            l->pg[i] = pg;
            return;
        }
    if (l->n < STATS_LEARNED_MAX) {
        i = l->n++;
    } else {
        i = l->next;
        l->next = (l->next + 1) % STATS_LEARNED_MAX;
        l->evicted++;
    }
    l->prog[i] = prog;
    l->pg[i] = pg;
    l->learned++;
}

uint64_t
stats_latency_us(const struct timespec *a, const struct timespec *b)
{
    int64_t ns = ((int64_t)b->tv_sec - (int64_t)a->tv_sec) * 1000000000 +
                 ((int64_t)b->tv_nsec - (int64_t)a->tv_nsec);
    if (ns < 0) /* timestamps went backwards in the capture */
        return 0;
    return (uint64_t)(ns + 500) / 1000;
}

/* The bounds in nanoseconds: R20 (ISO 3) in hundredths, the mantissas of
 * one decade, times 100 ns (10 us) and each power of ten up to 10 s. */
#define R20(s)                                                                          \
    100 * (s), 112 * (s), 125 * (s), 140 * (s), 160 * (s), 180 * (s), 200 * (s), 224 * (s), \
        250 * (s), 280 * (s), 315 * (s), 355 * (s), 400 * (s), 450 * (s), 500 * (s),     \
        560 * (s), 630 * (s), 710 * (s), 800 * (s), 900 * (s)
static const uint64_t lat_bound[STATS_LAT_BOUNDS] = {
    R20(100ULL),     R20(1000ULL),     R20(10000ULL),     R20(100000ULL),
    R20(1000000ULL), R20(10000000ULL), 100ULL * 100000000ULL,
};
_Static_assert(STATS_LAT_BOUNDS == 6 * 20 + 1, "six decades of R20 and their end");

uint64_t
stats_lat_bound_ns(unsigned i)
{
    return lat_bound[i < STATS_LAT_BOUNDS ? i : STATS_LAT_BOUNDS - 1];
}

/* The first bound >= usec. Bound i is about 10^(4 + i/20) ns (R20 rounds
 * by under 1.3 %), and ns >= 2^m (1 + q/4), m its highest bit and q the two
 * bits below, puts it near 20 * log10(2^(m + q/4) / 10^4) = 1.50515 (4m + q)
 * - 80 (log2(1 + x) >= x): the walk starts one past that estimate, which no
 * bound at or above ns precedes (stats_test checks every latency up to the
 * last bound), and takes at most 3 steps; no power computed, as this runs
 * for every reply. */
unsigned
stats_lat_bucket(uint64_t usec)
{
    uint64_t ns;
    unsigned m, q;
    int i;

    if (usec > lat_bound[STATS_LAT_BOUNDS - 1] / 1000)
        return STATS_LAT_BOUNDS;
    ns = usec * 1000;
    if (ns <= lat_bound[0])
        return 0;
    m = 63u - (unsigned)__builtin_clzll(ns); /* >= 13: ns > 10,000 */
    q = (unsigned)(ns >> (m - 2)) & 3u;
    i = ((int)(4 * m + q) * 15051 - 800000) / 10000 + 1;
    if (i < 0)
        i = 0;
    while (lat_bound[i] < ns) /* ends: ns <= the last bound */
        i++;
    return (unsigned)i;
}

/* The latency of ev's reply, worked out once for its timestamps. */
static const struct lat_memo *
lat_of(struct stats *s, const struct op_event *ev)
{
    struct lat_memo *l = &s->lat;

    if (!l->valid || l->t_reply.tv_nsec != ev->t_reply.tv_nsec ||
        l->t_call.tv_nsec != ev->t_call.tv_nsec || l->t_reply.tv_sec != ev->t_reply.tv_sec ||
        l->t_call.tv_sec != ev->t_call.tv_sec) {
        l->t_call = ev->t_call;
        l->t_reply = ev->t_reply;
        l->us = stats_latency_us(&ev->t_call, &ev->t_reply);
        l->idx = histo_index(l->us);
        l->overflow = l->idx == HISTO_BUCKETS - 1 && l->us > histo_bucket_lo(l->idx) * 2;
        l->le = stats_lat_bucket(l->us);
        l->valid = 1;
    }
    return l;
}

/* A timed reply: the histogram and the fixed-bound counts. */
static void
record_latency(struct proc_stats *p, const struct lat_memo *l)
{
    histo_record_in(&p->latency, l->us, l->idx, l->overflow);
    p->lat_le[l->le]++;
}

/* Inline: every call and reply looks its row up. */
__attribute__((always_inline)) static inline struct proc_stats *
proc_of(struct stats *s, const struct rpc_program *pg, uint32_t proc, struct prog_stats **out)
{
    struct prog_stats *ps = prog_of(s, pg);

    *out = ps;
    if (!ps)
        return NULL;
    if (proc >= pg->nprocs)
        return NULL;
    return row_on(s, &ps->procs[proc]);
}

unsigned
iosz_bucket(uint64_t bytes)
{
    unsigned k = bytes ? 64u - (unsigned)__builtin_clzll(bytes) : 0; /* its bit length */

    return k < IOSZ_BUCKETS - 1 ? k : IOSZ_BUCKETS - 1;
}

void
stats_gss_call(struct stats *s, const struct rpc_program *pg, uint32_t proc, uint8_t service,
               uint8_t gss_proc)
{
    struct prog_stats *ps;
    struct proc_stats *p = proc_of(s, pg, proc, &ps);

    if (gss_proc >= 1 && gss_proc <= GSS_CTL__COUNT) { /* rpc_gss_proc_t 1..3 */
        unsigned k = gss_proc - 1u;

        s->rpc.calls++;
        s->rpc.gss.ctl[k]++;
        if (!ps) {
            s->rpc.unknown_program_calls++;
            return;
        }
        ps->calls++;
        ps->gss.ctl[k]++;
        row_on(s, &ps->gss_ctl[k])->calls++;
        return;
    }
    if (service >= 1 && service <= 3) {
        s->rpc.gss.data[service - 1]++;
        if (ps)
            ps->gss.data[service - 1]++;
        if (p && service == 3) /* rpc_gss_svc_privacy */
            p->encrypted++;
    }
}

/* The rows of minor version `minor` of ps, or NULL (none, or beyond the program's). */
static struct minor_stats *
minor_of(struct prog_stats *ps, unsigned minor)
{
    return ps && ps->minor && minor < ps->pg->nminor ? &ps->minor[minor] : NULL;
}

void
stats_call(struct stats *s, const struct rpc_program *pg, uint32_t proc, unsigned minor,
           uint8_t stable, uint64_t write_bytes)
{
    struct prog_stats *ps;
    struct proc_stats *p = proc_of(s, pg, proc, &ps);
    struct minor_stats *m;

    s->rpc.calls++;
    if (!ps) {
        s->rpc.unknown_program_calls++;
        return;
    }
    ps->calls++;
    if (!p) {
        ps->bad_proc++;
        return;
    }
    p->calls++;
    if ((m = minor_of(ps, minor)) != NULL) /* its minor version's row too */
        row_on(s, &m->procs[proc])->calls++;
    p->bytes += write_bytes;
    if (ps->ops) /* a program with operations counts its WRITEs per operation */
        return;
    if (stable <= STABLE_FILE_SYNC) /* NFSv3 WRITE (RFC 1813 §3.3.7) */
        ps->write.stable[stable]++;
    ps->write.bytes += write_bytes; /* any WRITE: v2 has no stable_how */
    if (write_bytes || stable <= STABLE_FILE_SYNC)
        ps->write_size[iosz_bucket(write_bytes)]++;
}

static bool
status_is_error(const struct rpc_program *pg, uint32_t status)
{
    return pg && pg->status_error ? pg->status_error(status) : status != 0;
}

static void
count_status(struct proc_stats *p, uint32_t status)
{
    unsigned i;

    for (i = 0; i < p->nstatus; i++)
        if (p->status[i].status == status) {
            p->status[i].count++;
            return;
        }
    if (p->nstatus < STATS_MAX_STATUS) {
        p->status[p->nstatus].status = status;
        p->status[p->nstatus].count = 1;
        p->nstatus++;
    } else {
        p->status_other++;
    }
}

/* A reply's share of one message row: replies, errors, statuses, latency. */
static void
record_reply(struct proc_stats *p, const struct op_event *ev, const struct lat_memo *l)
{
    p->replies++;
    record_latency(p, l);
    if (ev->outcome == OP_RPC_ERROR) {
        p->errors++;
        p->rpc_errors++;
        return;
    }
    if (ev->partial)
        p->partial++;
    if (ev->has_status) {
        count_status(p, ev->status);
        if (status_is_error(ev->pg, ev->status))
            p->errors++;
    }
}

/* A replied message in its kind's row (the first STATS_MAX_KINDS kinds). */
static void
record_kind(struct kind_table *t, const struct op_event *ev, const struct lat_memo *l)
{
    unsigned m = (unsigned)((ev->main_ops * 0x9e3779b9u) >> 26) % STATS_KIND_MEMO, i;

    if (!t->rows)
        return;
    /* the row found last for a key of this fold, if it is this key's (a
     * key has one row at most), else the walk over the rows */
    i = t->memo[m];
    if (i >= t->n || t->rows[i].key != ev->main_ops) {
        for (i = 0; i < t->n; i++)
            if (t->rows[i].key == ev->main_ops)
                break;
        t->memo[m] = (uint8_t)i;
    }
    if (i == t->n) {
        if (t->n == STATS_MAX_KINDS) {
            t->other++;
            return;
        }
        t->rows[t->n].key = ev->main_ops;
        t->rows[t->n].first = ev->reply_frame;
        if (t->n && t->rows[t->n - 1].first > ev->reply_frame)
            t->rows[t->n].first = t->rows[t->n - 1].first;
        t->n++;
    }
    record_reply(&t->rows[i].st, ev, l);
}

/* The row of a GSS control message's event, or NULL: not one. */
static struct proc_stats *
gss_ctl_row(struct stats *s, const struct op_event *ev, struct prog_stats **ps)
{
    *ps = prog_of(s, ev->pg);
    if (!ev->gss_proc || ev->gss_proc > GSS_CTL__COUNT)
        return NULL;
    return *ps ? row_on(s, &(*ps)->gss_ctl[ev->gss_proc - 1u]) : NULL;
}

/* A control message finished: in its own row, never its procedure's. */
static void
record_gss_ctl(struct stats *s, const struct op_event *ev)
{
    struct prog_stats *ps;
    struct proc_stats *p = gss_ctl_row(s, ev, &ps);

    if (ev->outcome == OP_NO_REPLY) {
        s->rpc.unanswered_calls++;
        if (p)
            p->unanswered++;
        return;
    }
    s->rpc.replies++;
    if (ev->outcome == OP_RPC_ERROR)
        s->rpc.rpc_errors++;
    if (ps)
        ps->replies++;
    if (p)
        record_reply(p, ev, lat_of(s, ev));
}

void
stats_record(struct stats *s, const struct op_event *ev)
{
    struct prog_stats *ps;
    struct proc_stats *p = proc_of(s, ev->pg, ev->proc, &ps);
    struct minor_stats *m = p ? minor_of(ps, ev->minor) : NULL;
    const struct lat_memo *l;

    if (m)
        row_on(s, &m->procs[ev->proc]);
    if (ev->gss_proc) {
        record_gss_ctl(s, ev);
        return;
    }
    switch (ev->outcome) {
    case OP_NO_REPLY:
        s->rpc.unanswered_calls++;
        if (p)
            p->unanswered++;
        if (m)
            m->procs[ev->proc].unanswered++;
        return;
    case OP_ORPHAN_REPLY:
        s->rpc.orphan_replies++;
        return;
    case OP_RPC_ERROR:
        s->rpc.replies++;
        s->rpc.rpc_errors++;
        if (ps)
            ps->replies++;
        if (p)
            record_reply(p, ev, lat_of(s, ev));
        if (m)
            record_reply(&m->procs[ev->proc], ev, lat_of(s, ev));
        return;
    case OP_REPLIED:
        break;
    }
    s->rpc.replies++;
    if (ps)
        ps->replies++;
    if (!p)
        return;
    l = lat_of(s, ev);
    record_reply(p, ev, l);
    if (m)
        record_reply(&m->procs[ev->proc], ev, l);
    if (ev->has_main_ops) {
        record_kind(&ps->kinds, ev, l);
        if (m)
            record_kind(&m->kinds, ev, l);
    }
    p->bytes += ev->read_bytes;
    if (ps->ops) /* a program with operations counts its I/O per operation */
        return;
    ps->read_bytes += ev->read_bytes;
    if (ev->read_bytes || ev->eof)
        ps->read_size[iosz_bucket(ev->read_bytes)]++;
    if (ev->eof)
        ps->read_eof++;
    if (ev->committed <= STABLE_FILE_SYNC)
        ps->write.committed[ev->committed]++;
}

void
stats_op_call(struct stats *s, const struct rpc_program *pg, unsigned minor,
              const struct op_item *op)
{
    struct prog_stats *ps = prog_of(s, pg);
    struct minor_stats *m = minor_of(ps, minor);

    if (!ps || !ps->ops || op->op >= pg->nops)
        return;
    row_on(s, &ps->ops[op->op])->calls++;
    if (m)
        row_on(s, &m->ops[op->op])->calls++;
    if (op->io == OPIO_WRITE && op->stable <= STABLE_FILE_SYNC) {
        ps->ops[op->op].bytes += op->bytes;
        ps->write.stable[op->stable]++;
        ps->write.bytes += op->bytes;
        ps->write_size[iosz_bucket(op->bytes)]++;
    }
}

/* A successful result's file data (op_item.io), per operation. */
static void
record_op_io(struct prog_stats *ps, const struct op_item *op)
{
    struct io_extra *x = &ps->io;

    if (op->io != OPIO_WRITE) /* a WRITE's bytes are its call's data */
        ps->ops[op->op].bytes += op->bytes;
    switch (op->io) {
    case OPIO_WRITE:
        if (op->stable <= STABLE_FILE_SYNC)
            ps->write.committed[op->stable]++;
        break;
    case OPIO_READ:
        ps->read_bytes += op->bytes;
        ps->read_eof += op->eof;
        ps->read_size[iosz_bucket(op->bytes)]++;
        break;
    case OPIO_READ_PLUS:
        x->read_plus_bytes += op->bytes;
        x->read_plus_holes += op->holes;
        x->read_plus_eof += op->eof;
        x->read_plus_size[iosz_bucket(op->bytes)]++;
        break;
    case OPIO_COPY:
        x->copy_bytes += op->bytes;
        x->copy_size[iosz_bucket(op->bytes)]++;
        break;
    default:
        break;
    }
}

/* One result or not-evaluated operation in one operation row. */
static void
record_op(struct proc_stats *p, const struct op_event *msg, const struct op_item *op,
          const struct lat_memo *l)
{
    if (!op->repeat) /* an operation takes as long as its message, counted once per message */
        record_latency(p, l);
    if (op->phase == OPI_NOT_EVALUATED) {
        p->not_evaluated++;
        return;
    }
    p->replies++;
    if (msg->partial)
        p->partial++;
    if (op->has_status) {
        count_status(p, op->status);
        if (status_is_error(msg->pg, op->status))
            p->errors++;
    }
}

/* One NFSv4 result in the file table: under the handle that was the
 * current file handle when it ran (RFC 8881 §16.2.3.1.1: PUTFH, LOOKUP,
 * OPEN, SAVEFH/RESTOREFH... set it), the "(none)" row when that handle is
 * not known (its bytes neither in a GETFH result nor the call's kept one). */
static void
record_op_file(struct stats *s, const struct prog_stats *ps, const struct op_event *msg,
               const struct op_item *op)
{
    struct bd_table *t = &s->bd[BD_FILE];
    size_t len = op->fh.len < BD_KEY_MAX ? op->fh.len : BD_KEY_MAX, slot;
    unsigned m = len != 0;
    struct bd_row *r;

    if (!s->bd_on || !t->ops || msg->pg->prog != NFS_PROGRAM ||
        op->phase != OPI_RESULT)
        return;
    /* the row found last for a result with (without) a handle, if it is
     * this handle's: bd_table_row's answer, as a key is in one row at most */
    r = bd_table_at(t, s->op_file_idx[m], s->op_file_gen[m]);
    if (!r || r->key_len != len || (len && memcmp(r->key, op->fh.p, len) != 0)) {
        r = bd_table_row(t, len ? op->fh.p : (const uint8_t *)"", len);
        s->op_file_idx[m] = (uint32_t)(r - t->rows);
        s->op_file_gen[m] = r->gen;
    }
    slot = (size_t)(r - t->rows);
    bd_procs_call(t->ops, slot, r->gen, bd_procs_key((size_t)(ps - s->progs), op->op), 0);
}

void
stats_record_op(struct stats *s, const struct op_event *msg, const struct op_item *op)
{
    struct prog_stats *ps = prog_of(s, msg->pg);
    const struct lat_memo *l;
    struct minor_stats *m;

    if (!ps || !ps->ops || op->op >= msg->pg->nops || op->phase == OPI_CALL ||
        msg->outcome != OP_REPLIED)
        return;
    l = lat_of(s, msg);
    record_op(row_on(s, &ps->ops[op->op]), msg, op, l);
    record_op_file(s, ps, msg, op);
    if (op->io && op->phase == OPI_RESULT)
        record_op_io(ps, op);
    m = minor_of(ps, msg->minor);
    if (m)
        record_op(row_on(s, &m->ops[op->op]), msg, op, l);
}

void
stats_retrans(struct stats *s, const struct rpc_program *pg, uint32_t proc)
{
    struct prog_stats *ps;
    struct proc_stats *p = proc_of(s, pg, proc, &ps);

    s->rpc.retransmissions++;
    if (p)
        p->retrans++;
}

/* The row key of one operation in dimension d, in out[BD_KEY_MAX]; returns
 * its length. Addresses carry their family so IPv4 and IPv6 never collide;
 * a key of length 0 is the "(none)" row (a call with no file handle, an
 * unknown export, no AUTH_SYS credential), so every table adds up to the
 * totals. Made only for the rows not found through the caches. */
static size_t
make_key(const struct stats *s, enum bd_dim d, const struct flow_key *key, unsigned call_dir,
         uint32_t uid, struct bytes fh, uint8_t *out)
{
    const uint8_t *cli = call_dir == 0 ? key->saddr : key->daddr;
    const uint8_t *srv = call_dir == 0 ? key->daddr : key->saddr;
    size_t alen = key->af == FLOW_AF_INET6 ? 16 : 4, len;
    uint64_t exp;

    switch (d) {
    case BD_CLIENT:
    case BD_SERVER:
    case BD_PAIR:
        out[0] = key->af;
        memcpy(out + 1, d == BD_SERVER ? srv : cli, alen);
        if (d != BD_PAIR)
            return 1 + alen;
        memcpy(out + 1 + alen, srv, alen);
        return 1 + 2 * alen;
    case BD_FILE:
        len = fh.len <= BD_KEY_MAX ? fh.len : BD_KEY_MAX;
        if (len) /* no handle: the "(none)" row; fh.p may be NULL */
            memcpy(out, fh.p, len);
        return len;
    case BD_EXPORT:
        exp = names_export_of(s->names, fh);
        memcpy(out, &exp, 8);
        return exp ? 8 : 0;
    case BD_USER:
        memcpy(out, &uid, 4);
        return uid != UINT32_MAX ? 4 : 0;
    default:
        return 0;
    }
}

_Static_assert(BD__COUNT == PC_BD_DIMS, "a pending call remembers one row per dimension");
_Static_assert(PC_FH_MAX <= BD_KEY_MAX, "a file row's key is the call's whole handle");
_Static_assert(sizeof ((struct bd_cache *)0)->idx == sizeof ((struct pending_call *)0)->bd_idx,
               "a connection remembers its last call's rows");

/* The row of `key` in t, through the row the connection's last call went
 * to when that row still holds the same key: bd_table_row's answer, as a
 * key is in at most one row, without hashing it. */
static struct bd_row *
row_of_key(struct bd_table *t, const struct bd_cache *c, enum bd_dim d, const uint8_t *key,
           size_t len)
{
    struct bd_row *r = c && c->valid ? bd_table_at(t, c->idx[d], c->gen[d]) : NULL;

    if (r && r->key_len == len && memcmp(r->key, key, len) == 0)
        return r;
    return bd_table_row(t, key, len);
}

/* The export row of a call on the handle of file row `file`: through the
 * export and the row the file row remembers while they hold (no walk up the
 * names, no hash), else found by key and remembered. */
static struct bd_row *
export_row(struct stats *s, const struct bd_cache *c, struct bd_row *file, struct bytes fh)
{
    struct bd_table *t = &s->bd[BD_EXPORT];
    struct names_export_memo *m = &file->export;
    bool known = m->changed != 0;
    uint64_t before = m->export_key, exp = names_export_of_memo(s->names, fh, m);
    struct bd_row *r = known && exp == before ? bd_table_at(t, file->export_idx, file->export_gen)
                                              : NULL;
    uint8_t k[8];

    if (r)
        return r;
    memcpy(k, &exp, 8);
    r = row_of_key(t, c, BD_EXPORT, k, exp ? 8 : 0); /* make_key's key */
    file->export_idx = (uint32_t)(r - t->rows);
    file->export_gen = r->gen;
    return r;
}

/* The dimensions a call counts in: all, or with an accumulator (bd_acc.h)
 * for the client, server, pair and user rows, the others. */
static const uint8_t all_dims[BD__COUNT] = { BD_CLIENT, BD_SERVER, BD_PAIR,
                                             BD_EXPORT, BD_FILE,   BD_USER };
static const uint8_t own_dims[] = { BD_EXPORT, BD_FILE };

void
stats_call_by(struct stats *s, struct pending_call *pc, struct bd_cache *c)
{
    uint8_t k[BD_KEY_MAX];
    struct bytes fh = { pc->fh, pc->fh_len };
    struct bd_row *row[BD__COUNT] = { NULL };
    struct bd_acc *a = NULL;
    /* The same for every row (locals: the rows' stores could alias pc). */
    uint32_t pk, write_count = pc->write_count;
    bool primary = pc->pg && (pc->pg->flags & PGF_PRIMARY);
    unsigned i, d, stable = pc->stable, ndims = BD__COUNT;
    const uint8_t *dims = all_dims;

    if (!s->bd_on)
        return;
    /* An RPCSEC_GSS control message is no procedure's call. */
    pk = s->bd[BD_CLIENT].procs && !pc->gss_proc ? proc_key(s, pc->pg, pc->proc) : BD_PROCS_OTHER;
    /* The address rows are the connection's last call's in the same
     * direction, the user's too for the same uid, while the rows live:
     * counted once in the accumulator that stands for those four rows, or
     * in the rows. */
    if (c && c->valid && c->dir == pc->dir) {
        if (c->uid == pc->uid && s->bd_defer && (a = bd_acc_at(&s->acc, c->acc, c->acc_gen))) {
            bd_acc_call(&s->acc, a, primary, stable, write_count);
            dims = own_dims;
            ndims = sizeof own_dims;
        } else {
            row[BD_CLIENT] = bd_table_at(&s->bd[BD_CLIENT], c->idx[BD_CLIENT], c->gen[BD_CLIENT]);
            row[BD_SERVER] = bd_table_at(&s->bd[BD_SERVER], c->idx[BD_SERVER], c->gen[BD_SERVER]);
            row[BD_PAIR] = bd_table_at(&s->bd[BD_PAIR], c->idx[BD_PAIR], c->gen[BD_PAIR]);
            if (c->uid == pc->uid)
                row[BD_USER] = bd_table_at(&s->bd[BD_USER], c->idx[BD_USER], c->gen[BD_USER]);
        }
    }
    /* The file's row, then the export's, which it gives. */
    row[BD_FILE] = row_of_key(&s->bd[BD_FILE], c, BD_FILE, k,
                              make_key(s, BD_FILE, &pc->key, pc->dir, pc->uid, fh, k));
    row[BD_EXPORT] = export_row(s, c, row[BD_FILE], fh);
    if (a) { /* the accumulator's rows are the cache's */
        memcpy(pc->bd_idx, c->idx, sizeof pc->bd_idx);
        memcpy(pc->bd_gen, c->gen, sizeof pc->bd_gen);
    }
    for (i = 0; i < ndims; i++) {
        struct bd_row *r = row[d = dims[i]];

        if (!r)
            r = row[d] = row_of_key(&s->bd[d], c, d, k,
                                    make_key(s, d, &pc->key, pc->dir, pc->uid, fh, k));
        /* Remembered so the reply finds the same rows without hashing again. */
        pc->bd_idx[d] = (uint32_t)(r - s->bd[d].rows);
        pc->bd_gen[d] = r->gen;
        r->calls++;
        if (pk != BD_PROCS_OTHER && s->bd[d].procs)
            bd_procs_call(s->bd[d].procs, pc->bd_idx[d], r->gen, pk, write_count);
        r->nfs3_calls += primary;
        if (stable <= STABLE_FILE_SYNC)
            r->stable[stable]++;
        r->write_bytes += write_count;
    }
    {
        struct tl_bucket *b = timeline_at(&s->tl, &pc->t_call);
        if (b) {
            b->calls++;
            b->write_bytes += write_count;
        }
    }
    if (c && write_count) {
        struct prog_stats *ps = prog_of(s, pc->pg);
        if (ps && write_count < c->max_write)
            ps->writes_below_max++;
        if (write_count > c->max_write)
            c->max_write = write_count;
    }
    if (!c)
        return;
    if (!a) { /* the connection's next calls through an accumulator of these rows */
        c->acc_gen = 0;
        if (s->bd_defer) {
            struct bd_row *ar[BD_ACC_DIMS] = { row[BD_CLIENT], row[BD_SERVER], row[BD_PAIR],
                                               row[BD_USER] };
            struct bd_acc *na = bd_acc_for_rows(&s->acc, ar, pc->uid);

            if (na) {
                c->acc = (uint32_t)(na - s->acc.acc);
                c->acc_gen = na->gen_self;
            }
        }
    }
    c->valid = 1;
    c->dir = pc->dir;
    c->uid = pc->uid;
    memcpy(c->idx, pc->bd_idx, sizeof c->idx);
    memcpy(c->gen, pc->bd_gen, sizeof c->gen);
}

/* The finished operation's share of each breakdown row, and what it teaches
 * about names. Orphan replies (no call, no key) belong to no row. */
void
stats_record_by(struct stats *s, const struct op_event *ev)
{
    uint8_t k[BD_KEY_MAX];
    bool error;
    uint32_t pk;
    /* Once: the same for every row and the timeline. */
    uint64_t lat, read_bytes = ev->read_bytes;
    unsigned i, d, lat_i, ndims = BD__COUNT;
    const uint8_t *dims = all_dims;

    if (!s->bd_on || !ev->key || ev->outcome == OP_ORPHAN_REPLY)
        return;
    error = ev->outcome == OP_RPC_ERROR ||
            (ev->outcome == OP_REPLIED && ev->has_status && status_is_error(ev->pg, ev->status));
    pk = s->bd[BD_CLIENT].procs && !ev->gss_proc ? proc_key(s, ev->pg, ev->proc) : BD_PROCS_OTHER;
    if (ev->outcome == OP_REPLIED && ev->obj_fh.len && ev->name.len) {
        if (ev->obj_is_export)
            names_learn_export(s->names, ev->name, ev->obj_fh);
        else
            names_learn(s->names, ev->fh, ev->name, ev->obj_fh);
    }
    if (ev->outcome == OP_REPLIED) {
        switch (ev->names_op) {
        case NAMES_OP_RENAME: /* RFC 1813 §3.3.14 */
            names_rename(s->names, ev->fh, ev->name, ev->fh2, ev->name2);
            break;
        case NAMES_OP_LINK: /* §3.3.15: the file (fh) is also link.name */
            names_learn(s->names, ev->fh2, ev->name2, ev->fh);
            break;
        case NAMES_OP_REMOVE: /* §3.3.12, §3.3.13 */
            names_unlink(s->names, ev->fh, ev->name);
            break;
        default:
            break;
        }
    }
    /* Directory listings answered OK of the programs whose listings the
     * findings read (NFSv3 READDIR, READDIRPLUS: RFC 1813 §3.3.16-17). */
    if (ev->outcome == OP_REPLIED && ev->pg && (ev->pg->flags & PGF_FINDINGS) &&
        (ev->kind == OPK_READDIR || ev->kind == OPK_READDIRPLUS) && ev->has_status &&
        ev->status == 0) {
        s->dir_replies++;
        s->dir_cut += ev->dir_cut;
    }
    if (ev->outcome == OP_REPLIED && ev->ndirent && ev->fh.len) {
        /* READDIRPLUS: each entry's name and handle, in the directory */
        uint64_t dir = names_key(s->names, ev->fh);

        for (i = 0; i < ev->ndirent; i++)
            if (ev->dirent[i].fh.len)
                names_learn_under(s->names, dir, ev->dirent[i].name, ev->dirent[i].fh);
    }
    lat = ev->outcome != OP_NO_REPLY ? lat_of(s, ev)->us : 0;
    lat_i = histo_small_index(lat);
    /* The call's client, server, pair and user rows through the pair's
     * accumulator, if it counts for the call's user. */
    if (s->bd_defer && ev->bd_idx) {
        struct bd_row *pair = bd_table_at(&s->bd[BD_PAIR], ev->bd_idx[BD_PAIR],
                                          ev->bd_gen[BD_PAIR]);
        struct bd_acc *a = pair ? bd_acc_of_pair(&s->acc, pair, ev->uid) : NULL;

        if (a) {
            if (ev->outcome == OP_NO_REPLY)
                bd_acc_unanswered(&s->acc, a);
            else
                bd_acc_reply(&s->acc, a, error, read_bytes, lat, lat_i);
            dims = own_dims;
            ndims = sizeof own_dims;
        }
    }
    for (i = 0; i < ndims; i++) {
        struct bd_row *r;

        d = dims[i];
        r = ev->bd_idx ? bd_table_at(&s->bd[d], ev->bd_idx[d], ev->bd_gen[d]) : NULL;
        if (!r) /* the row was evicted since the call: find it again by key */
            r = bd_table_row(&s->bd[d], k,
                             make_key(s, d, ev->key, ev->call_dir, ev->uid, ev->fh, k));
        if (ev->outcome == OP_NO_REPLY) {
            r->unanswered++;
            continue;
        }
        r->replies++;
        r->errors += error;
        r->read_bytes += read_bytes;
        histo_small_record_in(&r->latency, lat, lat_i);
        if (pk != BD_PROCS_OTHER && s->bd[d].procs)
            bd_procs_reply(s->bd[d].procs, (size_t)(r - s->bd[d].rows), r->gen, pk, error,
                           read_bytes, lat);
    }
    if (ev->outcome != OP_NO_REPLY) {
        struct tl_bucket *b = timeline_at(&s->tl, &ev->t_reply);
        if (b) {
            b->replies++;
            b->errors += error;
            b->read_bytes += read_bytes;
            histo_small_record_in(&b->latency, lat, lat_i);
        }
    }
}

static void
addr_str(const uint8_t *k, size_t len, char *buf, size_t bufsz)
{
    char tmp[INET6_ADDRSTRLEN] = "?";

    if (len == 5 && k[0] == FLOW_AF_INET)
        inet_ntop(AF_INET, k + 1, tmp, sizeof tmp);
    else if (len == 17 && k[0] == FLOW_AF_INET6)
        inet_ntop(AF_INET6, k + 1, tmp, sizeof tmp);
    snprintf(buf, bufsz, "%s", tmp);
}

const char *
stats_row_label(const struct stats *s, enum bd_dim d, const struct bd_row *r, char *buf,
                size_t bufsz)
{
    if (!bufsz)
        return buf;
    buf[0] = '\0';
    if (r->key_len == 0) {
        snprintf(buf, bufsz, "%s", d == BD_EXPORT ? "(unknown)" : "(none)");
        return buf;
    }
    switch (d) {
    case BD_CLIENT:
    case BD_SERVER:
        addr_str(r->key, r->key_len, buf, bufsz);
        break;
    case BD_PAIR: {
        size_t alen = r->key[0] == FLOW_AF_INET6 ? 16 : 4;
        uint8_t k[17];
        char a[INET6_ADDRSTRLEN + 1], b[INET6_ADDRSTRLEN + 1];

        if (r->key_len != 1 + 2 * alen)
            break;
        k[0] = r->key[0];
        memcpy(k + 1, r->key + 1, alen);
        addr_str(k, 1 + alen, a, sizeof a);
        memcpy(k + 1, r->key + 1 + alen, alen);
        addr_str(k, 1 + alen, b, sizeof b);
        snprintf(buf, bufsz, "%s -> %s", a, b);
        break;
    }
    case BD_FILE: {
        struct bytes fh = { r->key, r->key_len };
        names_path(s->names, fh, buf, bufsz);
        break;
    }
    case BD_EXPORT: {
        uint64_t key;
        memcpy(&key, r->key, 8);
        if (!names_export_path(s->names, key, buf, bufsz))
            snprintf(buf, bufsz, "(unknown)");
        break;
    }
    case BD_USER: {
        uint32_t uid;
        memcpy(&uid, r->key, 4);
        snprintf(buf, bufsz, "uid %lu", (unsigned long)uid);
        break;
    }
    default:
        break;
    }
    return buf;
}

size_t
stats_file_ops(const struct stats *s, const struct bd_row *r,
               struct file_op out[BD_PROCS_PER_ROW])
{
    const struct bd_table *t = &s->bd[BD_FILE];
    const struct bd_proc *e;
    bool other_row;
    uint64_t rest = 0;
    uint32_t n, i;
    size_t k = 0, m;

    if (!t->ops)
        return 0;
    other_row = r == &t->other;
    e = bd_procs_row(t->ops, other_row ? t->cap : (size_t)(r - t->rows),
                     other_row ? t->ops->rows[t->cap].gen : r->gen, &n);
    for (i = 0; e && i < n; i++) {
        size_t pi = e[i].key >> 16;
        uint32_t op = e[i].key & 0xffffu;
        const struct rpc_program *pg = pi < s->nprogs ? s->progs[pi].pg : NULL;
        struct file_op f;

        if (e[i].key == BD_PROCS_OTHER || !pg || op >= pg->nops || !pg->ops[op].name) {
            rest += e[i].calls;
            continue;
        }
        f.name = pg->ops[op].name;
        f.op = op;
        f.results = e[i].calls;
        /* insertion: at most BD_PROCS_PER_ROW entries */
        for (m = k; m > 0 && (out[m - 1].results < f.results ||
                              (out[m - 1].results == f.results && out[m - 1].op > f.op));
             m--)
            out[m] = out[m - 1];
        out[m] = f;
        k++;
    }
    if (rest) {
        out[k].name = NULL;
        out[k].op = 0;
        out[k].results = rest;
        k++;
    }
    return k;
}

/* ---- the shards of one run (stats_merge) ---- */

static void
proc_merge(struct proc_stats *d, const struct proc_stats *s)
{
    unsigned i;

    d->calls += s->calls;
    d->replies += s->replies;
    d->errors += s->errors;
    d->rpc_errors += s->rpc_errors;
    d->retrans += s->retrans;
    d->unanswered += s->unanswered;
    d->partial += s->partial;
    d->encrypted += s->encrypted;
    d->not_evaluated += s->not_evaluated;
    d->bytes += s->bytes;
    d->status_other += s->status_other;
    for (i = 0; i < s->nstatus; i++) {
        unsigned j;

        for (j = 0; j < d->nstatus && d->status[j].status != s->status[i].status; j++)
            ;
        if (j == d->nstatus && j == STATS_MAX_STATUS) {
            d->status_other += s->status[i].count;
            continue;
        }
        if (j == d->nstatus) {
            d->status[j].status = s->status[i].status;
            d->status[j].count = 0;
            d->nstatus++;
        }
        d->status[j].count += s->status[i].count;
    }
    histo_merge(&d->latency, &s->latency);
    for (i = 0; i <= STATS_LAT_BOUNDS; i++)
        d->lat_le[i] += s->lat_le[i];
}

/* Kinds in order of first reply: both tables' rows by their `first`
 * (dst's first on a tie), a key both hold at the earlier of its two;
 * rows past STATS_MAX_KINDS go to `other`. */
static void
kinds_merge(struct kind_table *d, const struct kind_table *s)
{
    struct kind_row all[2 * STATS_MAX_KINDS];
    unsigned n = 0, i, j;

    if (!d->rows || !s->rows)
        return;
    d->other += s->other;
    for (i = 0; i < d->n; i++)
        all[n++] = d->rows[i];
    for (i = 0; i < s->n; i++) {
        for (j = 0; j < d->n && all[j].key != s->rows[i].key; j++)
            ;
        if (j < d->n) {
            proc_merge(&all[j].st, &s->rows[i].st);
            if (s->rows[i].first < all[j].first)
                all[j].first = s->rows[i].first;
        } else {
            all[n++] = s->rows[i];
        }
    }
    for (i = 1; i < n; i++) { /* stable insertion sort by first */
        struct kind_row r = all[i];

        for (j = i; j > 0 && all[j - 1].first > r.first; j--)
            all[j] = all[j - 1];
        all[j] = r;
    }
    for (i = STATS_MAX_KINDS; i < n; i++)
        d->other += all[i].st.replies;
    d->n = n < STATS_MAX_KINDS ? n : STATS_MAX_KINDS;
    memcpy(d->rows, all, d->n * sizeof *all);
}

static void
gss_merge(struct gss_counts *d, const struct gss_counts *s)
{
    unsigned i;

    for (i = 0; i < 3; i++)
        d->data[i] += s->data[i];
    for (i = 0; i < GSS_CTL__COUNT; i++)
        d->ctl[i] += s->ctl[i];
}

static void
prog_merge(struct prog_stats *d, const struct prog_stats *s)
{
    unsigned i;

    kinds_merge(&d->kinds, &s->kinds);
    for (i = 0; d->minor && i < d->pg->nminor; i++)
        kinds_merge(&d->minor[i].kinds, &s->minor[i].kinds);
    gss_merge(&d->gss, &s->gss);
    d->calls += s->calls;
    d->replies += s->replies;
    d->bad_proc += s->bad_proc;
    for (i = 0; i < 3; i++) {
        d->write.stable[i] += s->write.stable[i];
        d->write.committed[i] += s->write.committed[i];
    }
    d->write.bytes += s->write.bytes;
    d->read_bytes += s->read_bytes;
    d->read_eof += s->read_eof;
    for (i = 0; i < IOSZ_BUCKETS; i++) {
        d->read_size[i] += s->read_size[i];
        d->write_size[i] += s->write_size[i];
        d->io.read_plus_size[i] += s->io.read_plus_size[i];
        d->io.copy_size[i] += s->io.copy_size[i];
    }
    d->writes_below_max += s->writes_below_max;
    d->io.read_plus_bytes += s->io.read_plus_bytes;
    d->io.read_plus_holes += s->io.read_plus_holes;
    d->io.read_plus_eof += s->io.read_plus_eof;
    d->io.copy_bytes += s->io.copy_bytes;
}

static void
rpc_merge(struct rpc_totals *d, const struct rpc_totals *s)
{
    d->calls += s->calls;
    d->replies += s->replies;
    d->retransmissions += s->retransmissions;
    d->unanswered_calls += s->unanswered_calls;
    d->orphan_replies += s->orphan_replies;
    d->rpc_errors += s->rpc_errors;
    d->duplicate_replies += s->duplicate_replies;
    d->auth_none += s->auth_none;
    d->auth_sys += s->auth_sys;
    d->auth_gss += s->auth_gss;
    d->auth_tls += s->auth_tls;
    d->auth_other += s->auth_other;
    gss_merge(&d->gss, &s->gss);
    d->unknown_program_calls += s->unknown_program_calls;
}

void
stats_merge(struct stats *dst, const struct stats *src)
{
    size_t i;
    unsigned d;

    for (i = 0; i < src->rows_used && i < dst->rows_used; i++) /* the same layout */
        if (stats_row_on(src, &src->rows_mem[i])) /* untouched rows stay so, unread */
            proc_merge(row_on(dst, &dst->rows_mem[i]), &src->rows_mem[i]);
    for (i = 0; i < src->nprogs && i < dst->nprogs; i++)
        prog_merge(&dst->progs[i], &src->progs[i]);
    rpc_merge(&dst->rpc, &src->rpc);
    dst->dir_replies += src->dir_replies;
    dst->dir_cut += src->dir_cut;
    for (d = 0; d < ANOM__COUNT; d++)
        dst->anom.n[d] += src->anom.n[d];
    reconnects_merge(&dst->reconnects, &src->reconnects);
    rpc_tls_merge(&dst->tls, &src->tls);
    for (i = 0; i < src->learned.n; i++) /* in the order src learned them */
        stats_learn_program(dst, src->learned.prog[i], src->learned.pg[i]);
    dst->learned.evicted += src->learned.evicted;
    if (!dst->bd_on || !src->bd_on)
        return;
    stats_settle(dst);
    for (d = 0; d < BD__COUNT; d++)
        bd_table_merge(&dst->bd[d], &src->bd[d]);
    names_merge(dst->names, src->names);
    timeline_merge(&dst->tl, &src->tl);
}
