/* stats.c: per-program, per-procedure counters and latency histograms. */
#include "stats.h"

#include <stdlib.h>
#include <string.h>

int
stats_init(struct stats *s)
{
    size_t n = 0, i;

    memset(s, 0, sizeof *s);
    s->cap.kernel_drops = -1;
    while (rpc_programs[n])
        n++;
    s->progs = calloc(n ? n : 1, sizeof *s->progs);
    if (!s->progs)
        return -1;
    s->nprogs = n;
    for (i = 0; i < n; i++) {
        const struct rpc_program *pg = rpc_programs[i];
        uint32_t p;

        s->progs[i].pg = pg;
        s->progs[i].procs = calloc(pg->nprocs ? pg->nprocs : 1, sizeof(struct proc_stats));
        if (!s->progs[i].procs) {
            stats_fini(s);
            return -1;
        }
        for (p = 0; p < pg->nprocs; p++)
            histo_init(&s->progs[i].procs[p].latency);
    }
    return 0;
}

void
stats_fini(struct stats *s)
{
    size_t i;

    if (s->progs)
        for (i = 0; i < s->nprogs; i++)
            free(s->progs[i].procs);
    free(s->progs);
    s->progs = NULL;
    s->nprogs = 0;
}

struct prog_stats *
stats_prog(struct stats *s, const struct rpc_program *pg)
{
    size_t i;

    if (!pg)
        return NULL;
    for (i = 0; i < s->nprogs; i++)
        if (s->progs[i].pg == pg)
            return &s->progs[i];
    return NULL;
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

uint64_t
stats_latency_us(const struct timespec *a, const struct timespec *b)
{
    int64_t ns = ((int64_t)b->tv_sec - (int64_t)a->tv_sec) * 1000000000 +
                 ((int64_t)b->tv_nsec - (int64_t)a->tv_nsec);
    if (ns < 0) /* timestamps went backwards in the capture */
        return 0;
    return (uint64_t)(ns + 500) / 1000;
}

static struct proc_stats *
proc_of(struct stats *s, const struct rpc_program *pg, uint32_t proc, struct prog_stats **out)
{
    struct prog_stats *ps = stats_prog(s, pg);

    *out = ps;
    if (!ps)
        return NULL;
    if (proc >= pg->nprocs)
        return NULL;
    return &ps->procs[proc];
}

void
stats_call(struct stats *s, const struct rpc_program *pg, uint32_t proc, uint8_t stable,
           uint64_t write_bytes)
{
    struct prog_stats *ps;
    struct proc_stats *p = proc_of(s, pg, proc, &ps);

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
    if (stable <= STABLE_FILE_SYNC) {
        ps->write.stable[stable]++;
        ps->write.bytes += write_bytes;
        p->bytes += write_bytes;
    }
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

void
stats_record(struct stats *s, const struct op_event *ev)
{
    struct prog_stats *ps;
    struct proc_stats *p = proc_of(s, ev->pg, ev->proc, &ps);

    switch (ev->outcome) {
    case OP_NO_REPLY:
        s->rpc.unanswered_calls++;
        if (p)
            p->unanswered++;
        return;
    case OP_ORPHAN_REPLY:
        s->rpc.orphan_replies++;
        return;
    case OP_RPC_ERROR:
        s->rpc.replies++;
        s->rpc.rpc_errors++;
        if (ps)
            ps->replies++;
        if (p) {
            p->replies++;
            p->errors++;
            p->rpc_errors++;
            histo_record(&p->latency, stats_latency_us(&ev->t_call, &ev->t_reply));
        }
        return;
    case OP_REPLIED:
        break;
    }
    s->rpc.replies++;
    if (ps)
        ps->replies++;
    if (!p)
        return;
    p->replies++;
    if (ev->partial)
        p->partial++;
    histo_record(&p->latency, stats_latency_us(&ev->t_call, &ev->t_reply));
    if (ev->has_status) {
        count_status(p, ev->status);
        if (ev->status != 0)
            p->errors++;
    }
    if (ev->read_bytes) {
        p->bytes += ev->read_bytes;
        ps->read_bytes += ev->read_bytes;
    }
    if (ev->eof)
        ps->read_eof++;
    if (ev->committed <= STABLE_FILE_SYNC)
        ps->write.committed[ev->committed]++;
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
