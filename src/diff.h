/* SPDX-License-Identifier: BSD-3-Clause */
/* diff.h: `nfsscope diff [-o text|json] A B` (before/after).
 *
 * A and B are each a capture file (analysed by running this program on it,
 * `-o json`) or a saved JSON report (`nfsscope -o json ... > a.json`). Prints
 * per-procedure calls and latency percentiles, WRITE stable_how and
 * committed, and the findings side by side with the change. */
#ifndef NFSSCOPE_DIFF_H
#define NFSSCOPE_DIFF_H

/* argv[0] is "diff". Returns the exit status (0, 1 run-time, 2 usage). */
int diff_main(int argc, char **argv);

#endif
