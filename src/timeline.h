/* SPDX-License-Identifier: BSD-3-Clause */
/* timeline.h: calls, bytes and latency per time interval over the whole
 * capture (the seed of a throughput graph for bonnie-style runs).
 *
 * A fixed array of buckets starting at the first packet's second (or, when
 * timeline_start() was not called, the first time recorded). When time
 * runs past the last bucket, adjacent buckets are merged pairwise and the
 * interval doubles, so any capture fits in the same memory: a short capture
 * keeps 1 s resolution, a day-long one ends with ~3-minute buckets. */
#ifndef NFSSCOPE_TIMELINE_H
#define NFSSCOPE_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "histo.h"

#define TIMELINE_BUCKETS 512

struct tl_bucket {
    uint64_t calls, replies, errors, read_bytes, write_bytes;
    struct histo_small latency;
};

struct timeline {
    struct tl_bucket *b; /* TIMELINE_BUCKETS entries */
    time_t start;        /* second of bucket 0 */
    uint32_t interval_s; /* width of a bucket */
    uint32_t used;       /* buckets [0, used) have been reached */
    uint64_t before;     /* events older than start (timestamps going backwards) */
    bool started;        /* start is set */
    bool last_valid;     /* last_sec's bucket is last_idx (until the next coarsening) */
    uint32_t last_idx;
    time_t last_sec;     /* the second timeline_at found last: most events share it */
};

int timeline_init(struct timeline *t, uint32_t interval_s); /* 0 or -1 */
void timeline_fini(struct timeline *t);
/* The bucket for time `ts` (the first call fixes the start), or NULL for a
 * time before the start. Inline when in the second found last (a call and
 * its reply mostly are), else timeline_at_slow. */
struct tl_bucket *timeline_at_slow(struct timeline *t, const struct timespec *ts);
static inline struct tl_bucket *
timeline_at(struct timeline *t, const struct timespec *ts)
{
    if (t->last_valid && ts->tv_sec == t->last_sec) /* last_valid: b is set */
        return &t->b[t->last_idx];
    return timeline_at_slow(t, ts);
}

/* Bucket 0 starts at second `sec` (the first packet's), unless the start
 * is set already. */
void timeline_start(struct timeline *t, time_t sec);
/* Add src's buckets to dst's (the shards of one run, pipeline.h: both
 * started at the same second); dst's buckets widen to src's when narrower. */
void timeline_merge(struct timeline *dst, const struct timeline *src);
/* Percentile `pct` of the latencies (microseconds) recorded in the buckets
 * that hold the seconds [from, to): the buckets' small histograms merged,
 * so within 12.5 % (histo.h). Returns false when none was recorded there.
 * While buckets are wider than a second, whole buckets count. */
bool timeline_percentile(const struct timeline *t, time_t from, time_t to, double pct,
                         uint64_t *out);

#endif
