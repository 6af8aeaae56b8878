/* SPDX-License-Identifier: BSD-3-Clause */
/* anomaly.c: names for the anomaly counters declared in anomaly.h. */
#include "anomaly.h"

static const char *const keys[] = {
#define ANOMALY_KEY(e, k, d) k,
    NFSSCOPE_ANOMALIES(ANOMALY_KEY)
#undef ANOMALY_KEY
};

static const char *const descs[] = {
#define ANOMALY_DESC(e, k, d) d,
    NFSSCOPE_ANOMALIES(ANOMALY_DESC)
#undef ANOMALY_DESC
};

const char *
anomaly_key(enum anomaly k)
{
    return (unsigned)k < ANOM__COUNT ? keys[k] : "unknown";
}

const char *
anomaly_desc(enum anomaly k)
{
    return (unsigned)k < ANOM__COUNT ? descs[k] : "unknown";
}
