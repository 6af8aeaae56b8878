/* SPDX-License-Identifier: BSD-3-Clause */
/* slowsrv.c: the slow_server finding; see slowsrv.h. */
#include "slowsrv.h"

#include <stdlib.h>
#include <string.h>

#include "hugemem.h"

struct slowsrv *
slowsrv_new(void)
{
    /* zeroed histograms are empty (histo.h); rows of servers never seen
     * stay untouched */
    return calloc(1, sizeof(struct slowsrv));
}

void
slowsrv_free(struct slowsrv *s)
{
    free(s);
}

static struct slow_server *
server_row(struct slowsrv *s, uint8_t af, const uint8_t *addr)
{
    int r = addr_ix_row(&s->ix, SLOW_SERVERS, af, addr);

    if (r < 0)
        return NULL;
    if ((unsigned)r == s->nservers) {
        /* its ~40 KiB of histograms, resident in one call (mem_populate) */
        mem_populate(&s->srv[r], sizeof s->srv[r]);
        s->srv[r].af = af;
        memcpy(s->srv[r].addr, addr, af == 6 ? 16 : 4);
        s->nservers++;
    }
    return &s->srv[r];
}

/* Keep a closed period if it is among the SLOW_PERIODS costliest. */
static void
keep_period(struct slow_server *sv, const struct slow_period *p)
{
    unsigned i, low = 0;

    if (sv->nperiods < SLOW_PERIODS) {
        sv->periods[sv->nperiods++] = *p;
        return;
    }
    for (i = 1; i < SLOW_PERIODS; i++)
        if (sv->periods[i].excess_us < sv->periods[low].excess_us)
            low = i;
    if (sv->periods[low].excess_us < p->excess_us)
        sv->periods[low] = *p;
}

uint64_t
slowsrv_record(struct slowsrv *s, uint8_t af, const uint8_t *addr, unsigned kind,
               uint64_t lat_us, int64_t t_call, int64_t t_reply)
{
    struct slow_server *sv;
    struct slow_op *op;
    uint64_t med, excess = 0;

    if (!s || kind >= SLOW_KINDS)
        return 0;
    sv = server_row(s, af, addr);
    if (!sv) {
        s->servers_other_calls++;
        return 0;
    }
    op = &sv->op[kind];
    /* A latency below SLOW_MIN_EXCESS_US is not that far above any median:
     * no median needed. The cursor (histo_small_at) finds the same bucket
     * later from wherever it was left. */
    if (op->lat.count >= SLOW_MIN_CALLS && lat_us >= SLOW_MIN_EXCESS_US) {
        med = histo_small_percentile_at(&op->lat, &op->med, 50);
        if (lat_us >= SLOW_FACTOR * med && lat_us - med >= SLOW_MIN_EXCESS_US)
            excess = lat_us - med;
    }
    histo_small_record_at(&op->lat, &op->med, lat_us);
    if (!excess)
        return 0;
    histo_small_record(&op->out_lat, lat_us);
    op->outliers++;
    op->excess_us += excess;
    sv->outliers++;
    sv->excess_us += excess;
    if (sv->cur.calls && t_call - sv->cur.t_last > SLOW_GAP_NS) {
        keep_period(sv, &sv->cur);
        sv->cur.calls = 0;
    }
    if (!sv->cur.calls) {
        sv->periods_total++;
        sv->cur.t_first = t_call;
        sv->cur.t_last = t_reply;
        sv->cur.excess_us = 0;
    }
    sv->cur.calls++;
    sv->cur.excess_us += excess;
    if (t_reply > sv->cur.t_last)
        sv->cur.t_last = t_reply;
    return excess;
}

unsigned
slowsrv_periods(const struct slow_server *sv, struct slow_period *out)
{
    unsigned n = 0, i, j;

    for (i = 0; i < sv->nperiods; i++)
        out[n++] = sv->periods[i];
    if (sv->cur.calls) { /* the open one, in place of the cheapest if all are kept */
        if (n < SLOW_PERIODS) {
            out[n++] = sv->cur;
        } else {
            unsigned low = 0;
            for (i = 1; i < n; i++)
                if (out[i].excess_us < out[low].excess_us)
                    low = i;
            if (out[low].excess_us < sv->cur.excess_us)
                out[low] = sv->cur;
        }
    }
    for (i = 1; i < n; i++) { /* costliest first; among equals, earliest first */
        struct slow_period t = out[i];

        for (j = i; j > 0 && (out[j - 1].excess_us < t.excess_us ||
                              (out[j - 1].excess_us == t.excess_us &&
                               out[j - 1].t_first > t.t_first));
             j--)
            out[j] = out[j - 1];
        out[j] = t;
    }
    return n;
}
