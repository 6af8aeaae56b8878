/* SPDX-License-Identifier: BSD-3-Clause */
/* timeline.c: auto-coarsening per-interval counters; see timeline.h. */
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

int
timeline_init(struct timeline *t, uint32_t interval_s)
{
    memset(t, 0, sizeof *t);
    t->b = calloc(TIMELINE_BUCKETS, sizeof *t->b);
    if (!t->b)
        return -1;
    t->interval_s = interval_s ? interval_s : 1;
    return 0;
}

void
timeline_fini(struct timeline *t)
{
    free(t->b);
    t->b = NULL;
    t->last_valid = false; /* timeline_at's inline answer needs b */
}

static void
add(struct tl_bucket *d, const struct tl_bucket *s)
{
    d->calls += s->calls;
    d->replies += s->replies;
    d->errors += s->errors;
    d->read_bytes += s->read_bytes;
    d->write_bytes += s->write_bytes;
    histo_small_merge(&d->latency, &s->latency);
}

/* Merge buckets pairwise: 2k and 2k+1 become k; the interval doubles. */
static void
coarsen(struct timeline *t)
{
    uint32_t k;

    for (k = 0; k < TIMELINE_BUCKETS / 2; k++) {
        struct tl_bucket m = t->b[2 * k];
        add(&m, &t->b[2 * k + 1]);
        t->b[k] = m;
    }
    memset(&t->b[TIMELINE_BUCKETS / 2], 0, (TIMELINE_BUCKETS / 2) * sizeof *t->b);
    t->used = (t->used + 1) / 2;
    t->interval_s *= 2;
    t->last_valid = false;
}

void
timeline_start(struct timeline *t, time_t sec)
{
    if (!t->started) {
        t->start = sec;
        t->started = true;
    }
}

struct tl_bucket *
timeline_at_slow(struct timeline *t, const struct timespec *ts)
{
    uint64_t idx;

    if (!t->b)
        return NULL;
    if (t->last_valid && ts->tv_sec == t->last_sec)
        return &t->b[t->last_idx];
    timeline_start(t, ts->tv_sec);
    if (ts->tv_sec < t->start) {
        t->before++;
        return NULL;
    }
    for (;;) {
        idx = (uint64_t)(ts->tv_sec - t->start) / t->interval_s;
        if (idx < TIMELINE_BUCKETS)
            break;
        if (t->interval_s >= (1u << 30))
            return NULL; /* beyond any real capture: 2^30 s buckets */
        coarsen(t);
    }
    if (idx + 1 > t->used)
        t->used = (uint32_t)idx + 1;
    t->last_sec = ts->tv_sec;
    t->last_idx = (uint32_t)idx;
    t->last_valid = true;
    return &t->b[idx];
}

void
timeline_merge(struct timeline *dst, const struct timeline *src)
{
    uint32_t k;

    dst->before += src->before;
    if (!dst->b || !src->b || !src->used)
        return;
    timeline_start(dst, src->start);
    while (dst->interval_s < src->interval_s)
        coarsen(dst);
    for (k = 0; k < src->used; k++) { /* each of src's buckets lies in one of dst's */
        struct timespec at = { src->start + (time_t)k * (time_t)src->interval_s, 0 };
        struct tl_bucket *b = timeline_at(dst, &at);

        if (b)
            add(b, &src->b[k]);
        else
            dst->before += src->b[k].calls + src->b[k].replies;
    }
}

bool
timeline_percentile(const struct timeline *t, time_t from, time_t to, double pct, uint64_t *out)
{
    struct histo_small h;
    uint64_t lo, hi, k;

    *out = 0;
    if (!t->b || t->used == 0 || to <= from || to <= t->start)
        return false;
    if (from < t->start)
        from = t->start;
    lo = (uint64_t)(from - t->start) / t->interval_s;
    hi = (uint64_t)(to - 1 - t->start) / t->interval_s;
    if (lo >= t->used)
        return false;
    if (hi >= t->used)
        hi = t->used - 1;
    if (lo == hi) { /* the usual case: one bucket, no copy */
        if (t->b[lo].latency.count == 0)
            return false;
        *out = histo_small_percentile(&t->b[lo].latency, pct);
        return true;
    }
    histo_small_init(&h);
    for (k = lo; k <= hi; k++)
        histo_small_merge(&h, &t->b[k].latency);
    if (h.count == 0)
        return false;
    *out = histo_small_percentile(&h, pct);
    return true;
}
