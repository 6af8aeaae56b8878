/* SPDX-License-Identifier: BSD-3-Clause */
/* report_findings.h: the findings in the JSON and text reports.
 *
 * Each finding is one JSON object in the report's "findings" array:
 *   { "kind", "count", "summary", "share" (of the NFSv3 calls and NFSv4
 *     COMPOUNDs the findings took),
 *     "cost_us" (sum of their latencies), "top_files": [ { "path", "count",
 *     "cost_us" } ], "top_clients": [ { "client", "count", "cost_us" } ],
 *     "evidence": { ... kind-specific ... } }
 * plus "directories" (directory_fanout), "scenarios" and "assumptions"
 * (mount_option_whatif, "estimate": true). cost_us is the time the finding
 * claimed: a call's latency counts in one finding only (findings.h). Only
 * findings that fired are
 * listed; the what-if estimate is listed whenever NFSv3 calls were seen.
 * The text report prints the same sentences, wire strings escaped. */
#ifndef NFSSCOPE_REPORT_FINDINGS_H
#define NFSSCOPE_REPORT_FINDINGS_H

#include <stdbool.h>
#include <stdio.h>

#include "json.h"
#include "stats.h"

struct findings;

/* The "findings" array (the caller has written the key); f NULL: the
 * findings were off. s gives the paths and the capture's quality. */
void findings_json(struct json_w *w, const struct stats *s, const struct findings *f);
/* The "time_by_cause" object (the caller has written the key): total_us,
 * network_us, server_us, client_us, unexplained_us (findings.h, time by
 * cause); f not NULL. */
void findings_time_json(struct json_w *w, const struct findings *f);
/* The "Findings" section of the text report (nothing if none fired or f is
 * NULL); the what-if model's assumptions too when `assumptions` (-v). */
void findings_text(FILE *out, const struct stats *s, const struct findings *f, bool assumptions);
/* The diagnosis block that opens the text report: the capture in one line
 * (time in calls, calls, calls/s, MB/s, clients, TCP loss), then the findings
 * ranked by time cost, each with its share of the time in calls and one line
 * of advice (at most 12 lines). Nothing when no file-service call was seen. */
void findings_diagnosis(FILE *out, const struct stats *s, const struct findings *f);

/* The model's assumptions, one sentence each, NULL-terminated. */
extern const char *const findings_assumptions[];

#endif
