/* SPDX-License-Identifier: BSD-3-Clause */
/* histo.c: log-linear latency histogram; see histo.h for the error bound. */
#include "histo.h"

#include <string.h>

#define SUB (1u << HISTO_SUB_BITS) /* 32 linear sub-buckets per power of two */

void
histo_init(struct histo *h)
{
    memset(h, 0, sizeof *h);
}

uint64_t
histo_bucket_lo(unsigned idx)
{
    unsigned msb;

    if (idx < SUB)
        return idx;
    msb = (idx >> HISTO_SUB_BITS) + 4u;
    return ((uint64_t)(SUB + (idx & (SUB - 1))) << (msb - HISTO_SUB_BITS));
}

uint64_t
histo_bucket_hi(unsigned idx)
{
    unsigned msb;

    if (idx < SUB)
        return idx;
    if (idx == HISTO_BUCKETS - 1)
        return UINT64_MAX;
    msb = (idx >> HISTO_SUB_BITS) + 4u;
    return histo_bucket_lo(idx) + ((uint64_t)1 << (msb - HISTO_SUB_BITS)) - 1;
}

void
histo_record(struct histo *h, uint64_t v)
{
    unsigned idx = histo_index(v);

    histo_record_in(h, v, idx, idx == HISTO_BUCKETS - 1 && v > histo_bucket_lo(idx) * 2);
}

double
histo_mean(const struct histo *h)
{
    return h->count ? (double)h->sum / (double)h->count : 0.0;
}

/* Nearest rank: the 1-based rank of the pct-th percentile of count samples. */
static uint64_t
rank_of(uint64_t count, double pct)
{
    uint64_t rank = (uint64_t)((pct / 100.0) * (double)count + 0.999999999);

    return rank ? rank : 1;
}

/* A bucket [lo, hi] reported as its midpoint, clamped to the exact min and max. */
static uint64_t
clamp_mid(uint64_t lo, uint64_t hi, uint64_t min, uint64_t max)
{
    uint64_t mid = lo + (hi - lo) / 2;

    return mid < min ? min : mid > max ? max : mid;
}

/* The smallest value with at least pct % of samples at or below it. */
uint64_t
histo_percentile(const struct histo *h, double pct)
{
    uint64_t rank, seen = 0;
    unsigned i;

    if (h->count == 0)
        return 0;
    if (pct <= 0 || pct >= 100)
        return pct <= 0 ? h->min : h->max;
    rank = rank_of(h->count, pct);
    for (i = 0; i < HISTO_BUCKETS; i++) {
        seen += h->bucket[i];
        if (seen >= rank) {
            uint64_t hi = histo_bucket_hi(i);
            return clamp_mid(histo_bucket_lo(i), hi == UINT64_MAX ? h->max : hi, h->min, h->max);
        }
    }
    return h->max;
}

void
histo_merge(struct histo *dst, const struct histo *src)
{
    unsigned i, end;

    if (src->count == 0)
        return;
    end = histo_span(src, &i);
    for (; i < end; i++) /* the others are empty: unread */
        dst->bucket[i] += src->bucket[i];
    if (dst->count == 0 || src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    dst->count += src->count;
    dst->sum += src->sum;
    dst->overflow += src->overflow;
}

/* The compact variant: the same log-linear layout with 8 sub-buckets. */
#define SSUB (1u << HISTO_SMALL_SUB_BITS)

static uint64_t
small_lo(unsigned idx)
{
    unsigned msb;

    if (idx < SSUB)
        return idx;
    msb = (idx >> HISTO_SMALL_SUB_BITS) + (HISTO_SMALL_SUB_BITS - 1u);
    return (uint64_t)(SSUB + (idx & (SSUB - 1))) << (msb - HISTO_SMALL_SUB_BITS);
}

void
histo_small_init(struct histo_small *h)
{
    memset(h, 0, sizeof *h);
}

void
histo_small_clear(struct histo_small *h)
{
    unsigned first, end = histo_small_span(h, &first);

    if (end)
        memset(&h->bucket[first], 0, (end - first) * sizeof h->bucket[0]);
    h->count = h->sum = h->min = h->max = 0;
}

uint64_t
histo_small_percentile(const struct histo_small *h, double pct)
{
    uint64_t rank, seen = 0;
    unsigned i;

    if (h->count == 0)
        return 0;
    if (pct <= 0 || pct >= 100)
        return pct <= 0 ? h->min : h->max;
    rank = rank_of(h->count, pct);
    for (i = 0; i < HISTO_SMALL_BUCKETS; i++) {
        seen += h->bucket[i];
        if (seen >= rank)
            return clamp_mid(small_lo(i),
                             i + 1 < HISTO_SMALL_BUCKETS ? small_lo(i + 1) - 1 : h->max, h->min,
                             h->max);
    }
    return h->max;
}

void
histo_small_record_at(struct histo_small *h, struct histo_small_at *at, uint64_t v)
{
    unsigned i = histo_small_index(v);

    if (i < at->i && h->bucket[i] < UINT32_MAX)
        at->below++;
    histo_small_record(h, v);
}

uint64_t
histo_small_percentile_at(const struct histo_small *h, struct histo_small_at *at, double pct)
{
    uint64_t rank;

    if (h->count == 0)
        return 0;
    if (pct <= 0 || pct >= 100)
        return pct <= 0 ? h->min : h->max;
    rank = rank_of(h->count, pct);
    /* the first bucket whose running sum reaches rank, as the walk finds it */
    while (at->i > 0 && at->below >= rank)
        at->below -= h->bucket[--at->i];
    while (at->i < HISTO_SMALL_BUCKETS && at->below + h->bucket[at->i] < rank)
        at->below += h->bucket[at->i++];
    if (at->i == HISTO_SMALL_BUCKETS)
        return h->max;
    return clamp_mid(small_lo(at->i),
                     at->i + 1 < HISTO_SMALL_BUCKETS ? small_lo(at->i + 1) - 1 : h->max, h->min,
                     h->max);
}

void
histo_small_merge(struct histo_small *dst, const struct histo_small *src)
{
    unsigned i, end;

    if (src->count == 0)
        return;
    end = histo_small_span(src, &i);
    /* The others are empty: unread. Saturating 32-bit adds, in a form the
     * compiler vectorizes. */
    for (; i < end; i++) {
        uint32_t v = dst->bucket[i] + src->bucket[i];
        dst->bucket[i] = v | -(uint32_t)(v < src->bucket[i]);
    }
    if (dst->count == 0 || src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    dst->count += src->count;
    dst->sum += src->sum;
}
