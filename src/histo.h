/* SPDX-License-Identifier: BSD-3-Clause */
/* histo.h: log-linear latency histogram (HdrHistogram idea, our own code).
 *
 * Values are microseconds. Values below 32 have their own bucket; above, each
 * power of two is split into 32 linear sub-buckets, so a bucket's width is at
 * most 1/32 of its lower bound: any percentile read back is within 3.2 % of
 * the true value (we report the bucket midpoint, clamped to [min, max]: within
 * 1.6 %). 1,024 buckets reach 2^36 us (19 hours); larger values go to the last
 * bucket and are counted in `overflow`. Histograms merge by adding buckets. */
#ifndef NFSSCOPE_HISTO_H
#define NFSSCOPE_HISTO_H

#include <stdint.h>

#define HISTO_SUB_BITS 5u
#define HISTO_BUCKETS 1024u

struct histo {
    uint64_t count, sum, min, max, overflow;
    uint64_t bucket[HISTO_BUCKETS];
};

/* All-zero memory is an empty histogram (both kinds): an array from calloc
 * needs no histo_init, and pages no record reaches stay untouched. In a
 * histogram filled by histo_record(_in) and histo_merge (the compact kind:
 * histo_small_record(_in, _at), histo_small_merge, bd_acc.c's fold) every
 * value lies in [min, max], so the buckets outside [histo_index(min),
 * histo_index(max)] are empty: the merges and clears (and the JSON report)
 * leave them unread. A
 * histogram built otherwise (merge.c's, from a report) is read whole by
 * histo_percentile only. */
void histo_init(struct histo *h);
void histo_record(struct histo *h, uint64_t usec);
/* Record v, whose bucket idx = histo_index(v) and overflow (v past twice
 * the last bucket's start) the caller found once for several histograms. */
static inline void
histo_record_in(struct histo *h, uint64_t v, unsigned idx, int overflow)
{
    h->overflow += (uint64_t)(overflow != 0);
    h->bucket[idx]++;
    if (h->count == 0 || v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
    h->count++;
    h->sum += v;
}
/* pct in [0, 100]; returns 0 when empty. Nearest-rank on buckets. */
uint64_t histo_percentile(const struct histo *h, double pct);
double histo_mean(const struct histo *h);
void histo_merge(struct histo *dst, const struct histo *src);
/* Log-linear buckets of 2^s sub-buckets (s = sub_bits): v < 2^s is bucket
 * v; otherwise with msb = floor(log2 v) (>= s), bucket 2^s * (msb - s + 1) +
 * the s bits below the msb: monotone, each bucket spanning 2^(msb-s) values
 * from >= 2^msb, at most 1/2^s of its start; the last bucket takes the rest.
 * histo_index (s = 5, inline: once per reply) and the [lo, hi] range of a
 * bucket (for tests and JSON). */
static inline unsigned
histo_loglin_index(uint64_t v, unsigned sub_bits, unsigned nbuckets)
{
    unsigned msb, idx;

    if (v < (1u << sub_bits))
        return (unsigned)v;
    msb = 63u - (unsigned)__builtin_clzll(v);
    idx = ((msb - (sub_bits - 1u)) << sub_bits) +
          (unsigned)((v >> (msb - sub_bits)) - (1u << sub_bits));
    return idx < nbuckets ? idx : nbuckets - 1;
}

static inline unsigned
histo_index(uint64_t v)
{
    return histo_loglin_index(v, HISTO_SUB_BITS, HISTO_BUCKETS);
}

/* The buckets that may be non-zero, [*first, end) (see histo_init): none
 * when h is empty. */
static inline unsigned
histo_span(const struct histo *h, unsigned *first)
{
    if (!h->count) {
        *first = 0;
        return 0;
    }
    *first = histo_index(h->min);
    return histo_index(h->max) + 1;
}
uint64_t histo_bucket_lo(unsigned idx);
uint64_t histo_bucket_hi(unsigned idx);

/* A compact histogram for breakdown rows (thousands of them): 8 linear
 * sub-buckets per power of two and 32-bit counts, 1 KiB each. A percentile is
 * within 12.5 % (bucket width), reported as the bucket's midpoint clamped to
 * the exact min and max; count, sum, min and max stay exact. */
#define HISTO_SMALL_SUB_BITS 3u
#define HISTO_SMALL_BUCKETS 256u /* reaches 2^34 us; beyond: the last bucket */

struct histo_small {
    uint64_t count, sum, min, max;
    uint32_t bucket[HISTO_SMALL_BUCKETS];
};

void histo_small_init(struct histo_small *h);

/* The buckets that may be non-zero, [*first, end), as histo_span: the
 * compact histograms keep the same invariant (histo_init's comment). */
static inline unsigned
histo_small_span(const struct histo_small *h, unsigned *first)
{
    if (!h->count) {
        *first = 0;
        return 0;
    }
    *first = histo_loglin_index(h->min, HISTO_SMALL_SUB_BITS, HISTO_SMALL_BUCKETS);
    return histo_loglin_index(h->max, HISTO_SMALL_SUB_BITS, HISTO_SMALL_BUCKETS) + 1;
}

/* Empty h, as histo_small_init, writing only the buckets that may be
 * non-zero: a breakdown row given to a new key holds one or two values. */
void histo_small_clear(struct histo_small *h);

/* The bucket of a value: below 8 its own, then 8 per power of two. Inline,
 * with the records: a reply records one latency into 7 of them. */
static inline unsigned
histo_small_index(uint64_t v)
{
    return histo_loglin_index(v, HISTO_SMALL_SUB_BITS, HISTO_SMALL_BUCKETS);
}

/* Record v, whose bucket i = histo_small_index(v) the caller found once for
 * all the histograms it records v into. */
static inline void
histo_small_record_in(struct histo_small *h, uint64_t v, unsigned i)
{
    if (h->bucket[i] < UINT32_MAX)
        h->bucket[i]++;
    if (h->count == 0 || v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
    h->count++;
    h->sum += v;
}

static inline void
histo_small_record(struct histo_small *h, uint64_t v)
{
    histo_small_record_in(h, v, histo_small_index(v));
}
uint64_t histo_small_percentile(const struct histo_small *h, double pct);
void histo_small_merge(struct histo_small *dst, const struct histo_small *src);

/* A percentile asked again and again of a growing compact histogram (one per
 * call): a cursor on the answer's bucket and the count below it, so each
 * answer moves the cursor by a bucket or two instead of walking from bucket
 * 0. The answer is histo_small_percentile's. Zeroed it is at bucket 0; every
 * record into the histogram must then go through histo_small_record_at. */
struct histo_small_at {
    unsigned i;     /* bucket */
    uint64_t below; /* the sum of the buckets before i */
};

void histo_small_record_at(struct histo_small *h, struct histo_small_at *at, uint64_t usec);
uint64_t histo_small_percentile_at(const struct histo_small *h, struct histo_small_at *at,
                                   double pct);

#endif
