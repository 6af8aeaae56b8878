/* SPDX-License-Identifier: BSD-3-Clause */
/* report_prom.h: the stats in the Prometheus text exposition format
 * (version 0.0.4), for --metrics.
 *
 * Every label value comes from a fixed table: program and procedure names
 * (the dissector registry), status names (the programs' status tables; a
 * value without a name is "other"), finding kinds, anomaly keys and table
 * names. Never an address, a file name or anything else learned from the
 * wire, so the number of series is bounded by the registry, whatever the
 * traffic. */
#ifndef NFSSCOPE_REPORT_PROM_H
#define NFSSCOPE_REPORT_PROM_H

#include <stdbool.h>
#include <stdio.h>

#include "stats.h"

struct findings;

/* Write every metric of `s` and of the findings `f` (NULL: off) to `out`.
 * `input_done`: the input has ended and the counters are final
 * (nfsscope_input_done). Returns 0, or -1 if writing failed. */
int report_prom(FILE *out, const struct stats *s, const struct findings *f, bool input_done);

/* One label value escaped as the exposition format requires (backslash,
 * double quote and newline become \\, \" and \n). */
void report_prom_label(FILE *out, const char *v);

#endif
