/* SPDX-License-Identifier: BSD-3-Clause */
/* report_findings_nfs4.h: the NFSv4 findings (lock_contention,
 * delay_grace_storms, stale_state, session_limits, open_close_storm) for
 * report_findings.c: whether each fired, its sentence, its evidence. */
#ifndef NFSSCOPE_REPORT_FINDINGS_NFS4_H
#define NFSSCOPE_REPORT_FINDINGS_NFS4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "findings.h"
#include "json.h"
#include "stats.h"

/* Did NFSv4 finding k fire (k of FK_LOCK_CONTENTION .. FK_DELEG_RECALLS)? */
bool findings_nfs4_fired(const struct findings *f, enum fkind k);
/* Its summary sentence into buf (NUL-terminated, cut at sz). */
void findings_nfs4_summary(const struct stats *s, const struct findings *f, enum fkind k,
                           char *buf, size_t sz);
/* Its members of "evidence" (the caller opened and closes the object). */
void findings_nfs4_evidence(struct json_w *w, const struct stats *s, const struct findings *f,
                            enum fkind k);

/* Append to a NUL-terminated buffer, cutting at its end (report_findings.c). */
void findings_say(char *buf, size_t sz, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A duration for people: "850 us", "12.5 ms", "3.20 s". */
void findings_fmt_dur(char *buf, size_t sz, uint64_t us);
/* The plural ending of a count's noun ("" for 1, else "s") and the verb
 * that agrees with it. */
static inline const char *
findings_s(uint64_t n)
{
    return n == 1 ? "" : "s";
}

static inline const char *
findings_were(uint64_t n)
{
    return n == 1 ? "was" : "were";
}

/* The pronouns that refer back to a count's noun. */
static inline const char *
findings_their(uint64_t n)
{
    return n == 1 ? "its" : "their";
}

static inline const char *
findings_them(uint64_t n)
{
    return n == 1 ? "it" : "them";
}

#endif
