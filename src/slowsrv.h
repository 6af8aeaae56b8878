/* SPDX-License-Identifier: BSD-3-Clause */
/* slowsrv.h: the slow_server finding: calls far slower than the same
 * operation usually is on the same server, and when that happened.
 *
 * Each server (the first SLOW_SERVERS seen; the rest counted in
 * servers_other) keeps, per operation kind (op_kind.h; WRITE split into
 * UNSTABLE and stable, whose costs differ by design), a compact histogram
 * of the latencies of its replied calls that did not wait on TCP recovery.
 * A call is an outlier when at least SLOW_MIN_CALLS calls of its operation
 * on its server came before it, its latency is at least SLOW_FACTOR times
 * their median and at least SLOW_MIN_EXCESS_US above it; its excess (latency
 * minus that median) is the server's time (findings.h, time by cause), the
 * median the call would have taken anyway. Outliers less than SLOW_GAP_NS
 * apart form a slow period; each server keeps its SLOW_PERIODS costliest
 * ones. Bounded: fixed arrays, allocated once. Time is packet time. */
#ifndef NFSSCOPE_SLOWSRV_H
#define NFSSCOPE_SLOWSRV_H

#include <stdbool.h>
#include <stdint.h>

#include "addr_ix.h"
#include "histo.h"
#include "op_kind.h"

#define SLOW_SERVERS 16
#define SLOW_MIN_CALLS 32        /* a median from fewer calls says little */
#define SLOW_FACTOR 10           /* an outlier: >= 10 x the median ... */
#define SLOW_MIN_EXCESS_US 5000  /* ... and >= 5 ms above it */
#define SLOW_GAP_NS 1000000000LL /* outliers closer than 1 s: one slow period */
#define SLOW_PERIODS 8
#define SLOW_KINDS (OPK_FILE_COUNT + 1) /* the file-service kinds, and stable WRITEs */
#define SLOW_KIND_STABLE_WRITE OPK_FILE_COUNT

struct slow_period {
    int64_t t_first, t_last; /* ns: the first outlier's call, the last one's reply */
    uint64_t calls, excess_us;
};

struct slow_op {
    struct histo_small lat;     /* every timed call of the kind on the server */
    struct histo_small_at med;  /* lat's median */
    struct histo_small out_lat; /* the outliers' latencies */
    uint64_t outliers, excess_us;
};

struct slow_server {
    uint8_t af, addr[16]; /* af 0: unused */
    struct slow_op op[SLOW_KINDS];
    uint64_t outliers, excess_us;
    unsigned nperiods;                   /* kept in periods[] */
    struct slow_period periods[SLOW_PERIODS];
    uint64_t periods_total;              /* every period, the open one included */
    struct slow_period cur;              /* the open period (calls 0: none) */
};

struct slowsrv {
    unsigned nservers;
    uint64_t servers_other_calls; /* calls to servers beyond SLOW_SERVERS (not judged) */
    struct slow_server srv[SLOW_SERVERS];
    struct addr_ix ix; /* srv[] by address */
};

struct slowsrv *slowsrv_new(void);
void slowsrv_free(struct slowsrv *s); /* NULL is a no-op */

/* A timed call of kind `kind` (a SLOW_KINDS index) to server (af, addr),
 * latency lat_us, called at t_call and answered at t_reply (ns). Returns
 * the excess in microseconds when it is an outlier, else 0. */
uint64_t slowsrv_record(struct slowsrv *s, uint8_t af, const uint8_t *addr, unsigned kind,
                        uint64_t lat_us, int64_t t_call, int64_t t_reply);

/* A server's slow periods, costliest first, the open one included: at most
 * SLOW_PERIODS into out; returns how many. */
unsigned slowsrv_periods(const struct slow_server *sv, struct slow_period *out);

#endif
