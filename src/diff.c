/* SPDX-License-Identifier: BSD-3-Clause */
/* diff.c: `nfsscope diff A B`: two reports side by side.
 *
 * First the workload and its cost: duration, NFS calls, ops/s, MB/s read
 * and written, the time in NFS calls (time_by_cause.total_us, or the sum of
 * each procedure's mean x count when the findings did not run), bytes per
 * READ and per WRITE, each with its change in %; then a one-line verdict
 * from the time per NFS call; then per-procedure counts and percentiles,
 * with a warning where a side has too few replies for a percentile (p50:
 * 2, p90: 10, p99: 100), WRITE stable_how and the findings. */
#include "diff.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json.h"
#include "jsonr.h"
#include "term_escape.h"

#define DIFF_MAX_INPUT (256u << 20) /* a saved report or a capture's report */
#define DIFF_MAX_NODES (8u << 20)

static const char *const procs[] = {
    "null", "getattr", "setattr", "lookup", "access", "readlink", "read", "write",
    "create", "mkdir", "symlink", "mknod", "remove", "rmdir", "rename", "link",
    "readdir", "readdirplus", "fsstat", "fsinfo", "pathconf", "commit",
};
#define NPROCS (sizeof procs / sizeof procs[0])

static const char *const stable_names[3] = { "UNSTABLE", "DATA_SYNC", "FILE_SYNC" };
static const char *const pcts[] = { "p50", "p90", "p99" };
/* Replies a percentile needs to say more than its few values: p99 of fewer
 * than 100 is the maximum. */
static const unsigned pct_min[] = { 2, 10, 100 };

struct side {
    const char *name;
    char *text;
    size_t len;
    struct jsonr j;
};

static const char diff_usage[] =
    "usage: nfsscope diff [-o text|json] A B\n"
    "  A, B: capture files (pcap/pcapng) or saved JSON reports (nfsscope -o json)\n";

/* Read all of fd into a malloc'd buffer (at most DIFF_MAX_INPUT bytes). */
static char *
slurp(FILE *fp, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);

    while (buf) {
        size_t k;

        if (n == cap) {
            char *b2;
            if (cap >= DIFF_MAX_INPUT) {
                free(buf);
                return NULL;
            }
            cap *= 2;
            b2 = realloc(buf, cap + 1);
            if (!b2) {
                free(buf);
                return NULL;
            }
            buf = b2;
        }
        k = fread(buf + n, 1, cap - n, fp);
        n += k;
        if (k == 0)
            break;
    }
    if (buf) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

/* This program's JSON report on a capture file: run ourselves on it. */
static char *
analyse(const char *path, size_t *len, char *err, size_t errsz)
{
    int fds[2], status;
    pid_t pid;
    FILE *fp;
    char *out;

    if (pipe(fds) != 0) {
        snprintf(err, errsz, "pipe: %s", strerror(errno));
        return NULL;
    }
    pid = fork();
    if (pid < 0) {
        snprintf(err, errsz, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return NULL;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execl("/proc/self/exe", "nfsscope", "-o", "json", "-r", path, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    fp = fdopen(fds[0], "r");
    out = fp ? slurp(fp, len) : NULL;
    if (fp)
        fclose(fp);
    else
        close(fds[0]);
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(err, errsz, "analysing the capture failed");
        free(out);
        return NULL;
    }
    if (!out)
        snprintf(err, errsz, "report too large or out of memory");
    return out;
}

static int
load(struct side *s, char *err, size_t errsz)
{
    FILE *fp = fopen(s->name, "rb");
    int c;

    if (!fp) {
        snprintf(err, errsz, "%s", strerror(errno));
        return -1;
    }
    do
        c = fgetc(fp);
    while (c == ' ' || c == '\n' || c == '\r' || c == '\t');
    if (c == '{') {
        ungetc(c, fp);
        s->text = slurp(fp, &s->len);
        fclose(fp);
        if (!s->text) {
            snprintf(err, errsz, "report too large or out of memory");
            return -1;
        }
    } else {
        fclose(fp);
        s->text = analyse(s->name, &s->len, err, errsz);
        if (!s->text)
            return -1;
    }
    if (jsonr_parse(&s->j, s->text, s->len, DIFF_MAX_NODES) != 0) {
        snprintf(err, errsz, "not an nfsscope JSON report: %s", s->j.err);
        return -1;
    }
    if (jsonr_get(&s->j, 0, "nfs3") == JSONR_NONE || jsonr_get(&s->j, 0, "rpc") == JSONR_NONE) {
        snprintf(err, errsz, "not an nfsscope JSON report (no \"rpc\" or \"nfs3\")");
        return -1;
    }
    return 0;
}

static double
num(const struct side *s, const char *path)
{
    return jsonr_num(&s->j, jsonr_path(&s->j, 0, path), NAN);
}

/* The count of findings of `kind` (NAN if the report has none). */
static double
finding(const struct side *s, const char *kind)
{
    uint32_t arr = jsonr_get(&s->j, 0, "findings"), c;
    char buf[64];

    if (arr == JSONR_NONE)
        return NAN;
    for (c = s->j.n[arr].first; c != JSONR_NONE; c = s->j.n[c].next)
        if (jsonr_str(&s->j, jsonr_get(&s->j, c, "kind"), buf, sizeof buf) &&
            strcmp(buf, kind) == 0)
            return jsonr_num(&s->j, jsonr_get(&s->j, c, "count"), NAN);
    return NAN;
}

/* Every finding kind in A or B, in order of first appearance. */
static size_t
kinds(const struct side *a, const struct side *b, char out[][64], size_t max)
{
    const struct side *sides[2] = { a, b };
    size_t n = 0, i, k;

    for (i = 0; i < 2; i++) {
        uint32_t arr = jsonr_get(&sides[i]->j, 0, "findings"), c;
        if (arr == JSONR_NONE)
            continue;
        for (c = sides[i]->j.n[arr].first; c != JSONR_NONE; c = sides[i]->j.n[c].next) {
            char buf[64];
            if (!jsonr_str(&sides[i]->j, jsonr_get(&sides[i]->j, c, "kind"), buf, sizeof buf))
                continue;
            for (k = 0; k < n && strcmp(out[k], buf) != 0; k++)
                ;
            if (k == n && n < max)
                strcpy(out[n++], buf);
        }
    }
    return n;
}

/* The workload of one side, from its report. NAN: not in the report. */
struct workload {
    double duration_s, calls, ops_s, mb_s, nfs_time_us, read_bpc, write_bpc;
};

static const struct {
    const char *key, *label;
    size_t off;
} wl_rows[] = {
    { "duration_s", "duration (s)", offsetof(struct workload, duration_s) },
    { "calls", "NFS calls", offsetof(struct workload, calls) },
    { "ops_per_s", "ops/s", offsetof(struct workload, ops_s) },
    { "mb_per_s", "MB/s read+written", offsetof(struct workload, mb_s) },
    { "nfs_time_us", "time in NFS calls", offsetof(struct workload, nfs_time_us) },
    { "read_bytes_per_call", "bytes per READ", offsetof(struct workload, read_bpc) },
    { "write_bytes_per_call", "bytes per WRITE", offsetof(struct workload, write_bpc) },
};
#define WL_ROWS (sizeof wl_rows / sizeof wl_rows[0])

static double
wl_get(const struct workload *w, size_t i)
{
    return *(const double *)(const void *)((const char *)w + wl_rows[i].off);
}

static double
or0(double v)
{
    return isnan(v) ? 0 : v;
}

/* READ or WRITE bytes of NFSv3 and NFSv4 together; NAN when neither has any. */
static double
io_bytes(const struct side *s, const char *what)
{
    char k3[32], k4[32];
    double v3, v4;

    snprintf(k3, sizeof k3, "nfs3.%s.bytes", what);
    snprintf(k4, sizeof k4, "nfs4.%s.bytes", what);
    v3 = num(s, k3);
    v4 = num(s, k4);
    return isnan(v3) && isnan(v4) ? NAN : or0(v3) + or0(v4);
}

/* Bytes per READ (WRITE): NFSv3 calls and NFSv4 operations together. */
static double
per_op(const struct side *s, const char *what)
{
    char k3[32], k4[32];
    double n;

    snprintf(k3, sizeof k3, "nfs3.ops.%s.calls", what);
    snprintf(k4, sizeof k4, "nfs4.ops.%s.count", what);
    n = or0(num(s, k3)) + or0(num(s, k4));
    return n > 0 ? or0(io_bytes(s, what)) / n : NAN;
}

static void
workload_of(const struct side *s, struct workload *w)
{
    double calls = 0, time = 0, bytes;
    unsigned p;
    char key[128];

    w->duration_s = num(s, "capture.last_ts") - num(s, "capture.first_ts");
    for (p = 0; p < NPROCS; p++) {
        snprintf(key, sizeof key, "nfs3.ops.%s.calls", procs[p]);
        calls += or0(num(s, key));
        snprintf(key, sizeof key, "nfs3.ops.%s.latency_us.mean", procs[p]);
        {
            double mean = num(s, key);

            snprintf(key, sizeof key, "nfs3.ops.%s.latency_us.count", procs[p]);
            time += or0(mean) * or0(num(s, key));
        }
    }
    calls += or0(num(s, "nfs4.calls"));
    w->calls = calls;
    w->nfs_time_us = num(s, "time_by_cause.total_us");
    if (isnan(w->nfs_time_us)) /* findings off: the procedures' means x counts */
        w->nfs_time_us = time + or0(num(s, "nfs4.compound.latency_us.mean")) *
                                    or0(num(s, "nfs4.compound.latency_us.count"));
    bytes = or0(io_bytes(s, "read")) + or0(io_bytes(s, "write"));
    if (w->duration_s > 0) {
        w->ops_s = calls / w->duration_s;
        w->mb_s = bytes / w->duration_s / 1e6;
    } else {
        w->ops_s = w->mb_s = NAN;
    }
    w->read_bpc = per_op(s, "read");
    w->write_bpc = per_op(s, "write");
}

/* The change from a to b in percent; NAN when either is missing or a is 0. */
static double
change_pct(double a, double b)
{
    if (isnan(a) || isnan(b) || a == 0)
        return NAN;
    return 100.0 * (b - a) / a;
}

/* One line: is B faster or slower, by the time per NFS call (a change
 * within 10 % is no change: percentiles alone are within 3 %, and the mix
 * of calls moves the mean more). */
static void
verdict(char *buf, size_t sz, const struct workload *a, const struct workload *b)
{
    double ta = a->calls > 0 ? a->nfs_time_us / a->calls : NAN;
    double tb = b->calls > 0 ? b->nfs_time_us / b->calls : NAN;
    double c = change_pct(ta, tb), dc = change_pct(a->calls, b->calls);

    if (isnan(c)) {
        snprintf(buf, sz, "no verdict: a side has no timed NFS calls");
        return;
    }
    snprintf(buf, sz, "%s: time per NFS call %.0f us -> %.0f us (%+.1f%%), calls %+.1f%%%s",
             c <= -10 ? "B is faster" : c >= 10 ? "B is slower" : "no clear change", ta, tb, c,
             isnan(dc) ? 0.0 : dc,
             !isnan(dc) && (dc <= -50 || dc >= 100) ? " (a different workload?)" : "");
}

static void
fmt_num(char *buf, size_t sz, double v)
{
    if (isnan(v))
        snprintf(buf, sz, "-");
    else
        snprintf(buf, sz, "%.0f", v);
}

static void
fmt_us(char *buf, size_t sz, double us)
{
    if (isnan(us))
        snprintf(buf, sz, "-");
    else if (us < 1000)
        snprintf(buf, sz, "%.0fus", us);
    else if (us < 1e6)
        snprintf(buf, sz, "%.2fms", us / 1e3);
    else
        snprintf(buf, sz, "%.2fs", us / 1e6);
}

static void
fmt_change(char *buf, size_t sz, double a, double b)
{
    double x = isnan(a) ? 0 : a, y = isnan(b) ? 0 : b;

    if (x == y)
        snprintf(buf, sz, "=");
    else if (x == 0)
        snprintf(buf, sz, "%+.0f (new)", y - x);
    else
        snprintf(buf, sz, "%+.0f (%+.1f%%)", y - x, 100.0 * (y - x) / x);
}

static void
put_name(FILE *out, const char *label, const char *s)
{
    char buf[1024];

    term_escape(buf, sizeof buf, (const uint8_t *)s, strlen(s));
    fprintf(out, "  %s: %s\n", label, buf);
}

/* ---- NFSv4: COMPOUNDs per minor version, kinds, operations ---- */

static void pair(struct json_w *w, const char *key, double a, double b);

#define NFS4_NAMES 128 /* kinds (32 per report) and operations (76) of both */

/* The member names of the object at `path` in A, then those only in B. */
static size_t
members(const struct side *a, const struct side *b, const char *path, char out[][96],
        size_t max)
{
    const struct side *sides[2] = { a, b };
    size_t n = 0, i, k;

    for (i = 0; i < 2; i++) {
        const struct jsonr *j = &sides[i]->j;
        uint32_t obj = jsonr_path(j, 0, path), c;

        if (obj == JSONR_NONE || j->n[obj].type != JR_OBJ)
            continue;
        for (c = j->n[obj].first; c != JSONR_NONE && n < max; c = j->n[c].next) {
            char name[96];

            jsonr_unescape(j->text + j->n[c].key_off, j->n[c].key_len, name, sizeof name);
            if (strchr(name, '.')) /* not addressable by a path; no such name is written */
                continue;
            for (k = 0; k < n && strcmp(out[k], name) != 0; k++)
                ;
            if (k == n)
                strcpy(out[n++], name);
        }
    }
    return n;
}

static bool
has_nfs4(const struct side *a, const struct side *b)
{
    double ca = num(a, "nfs4.compound.calls"), cb = num(b, "nfs4.compound.calls");

    return (!isnan(ca) && ca > 0) || (!isnan(cb) && cb > 0);
}

/* One text row: a count A and B with its change, then p50/p90/p99 A -> B
 * of `lat` (a path to a latency_us object, or NULL). */
static void
nfs4_text_row(FILE *out, const char *label, double ca, double cb, const struct side *a,
              const struct side *b, const char *lat)
{
    char x[32], y[32], c[48], key[256], esc[128];
    unsigned i;

    term_escape(esc, sizeof esc, (const uint8_t *)label, strlen(label));
    fmt_num(x, sizeof x, ca);
    fmt_num(y, sizeof y, cb);
    fmt_change(c, sizeof c, ca, cb);
    fprintf(out, "%-20s %8s %8s %-16s", esc, x, y, c);
    for (i = 0; lat && i < 3; i++) {
        snprintf(key, sizeof key, "%s.%s", lat, pcts[i]);
        fmt_us(x, sizeof x, num(a, key));
        fmt_us(y, sizeof y, num(b, key));
        fprintf(out, "%s%s %s -> %s", i ? ", " : " ", pcts[i], x, y);
    }
    fputc('\n', out);
}

static void
nfs4_text(FILE *out, const struct side *a, const struct side *b)
{
    static char names[NFS4_NAMES][96];
    char key[256], lat[256];
    size_t n, i;

    if (!has_nfs4(a, b))
        return;
    fputs("\nNFS v4.x COMPOUNDs: calls, then latency p50 / p90 / p99 (A -> B)\n", out);
    fprintf(out, "%-20s %8s %8s %-16s %s\n", "minor version", "calls A", "calls B", "change",
            "latency A -> B");
    n = members(a, b, "nfs4.minor_versions", names, NFS4_NAMES);
    for (i = 0; i < n; i++) {
        char label[112];

        snprintf(key, sizeof key, "nfs4.minor_versions.%.95s.compound.calls", names[i]);
        snprintf(lat, sizeof lat, "nfs4.minor_versions.%.95s.compound.latency_us", names[i]);
        snprintf(label, sizeof label, "v4.%.95s", names[i]);
        nfs4_text_row(out, label, num(a, key), num(b, key), a, b, lat);
    }
    nfs4_text_row(out, "total", num(a, "nfs4.compound.calls"), num(b, "nfs4.compound.calls"),
                  a, b, "nfs4.compound.latency_us");
    nfs4_text_row(out, "errors", num(a, "nfs4.compound.errors"), num(b, "nfs4.compound.errors"),
                  a, b, NULL);
    fputs("\nNFS v4.x COMPOUNDs by kind: COMPOUNDs, then latency (A -> B)\n", out);
    n = members(a, b, "nfs4.kinds", names, NFS4_NAMES);
    for (i = 0; i < n; i++) {
        snprintf(key, sizeof key, "nfs4.kinds.%.95s.compounds", names[i]);
        snprintf(lat, sizeof lat, "nfs4.kinds.%.95s.latency_us", names[i]);
        nfs4_text_row(out, names[i], num(a, key), num(b, key), a, b, lat);
    }
    for (i = 0; i < 2; i++) {
        const char *what = i ? "committed" : "stable";
        size_t h;

        fprintf(out, "\nNFS v4.x WRITE %s\n",
                i ? "committed (server's answer)" : "stable_how4 (client's request)");
        for (h = 0; h < 3; h++) {
            char x[32], y[32], c[48];

            snprintf(key, sizeof key, "nfs4.write.%s.%s4", what, stable_names[h]);
            fmt_num(x, sizeof x, num(a, key));
            fmt_num(y, sizeof y, num(b, key));
            fmt_change(c, sizeof c, num(a, key), num(b, key));
            fprintf(out, "  %-20s %12s %12s  %s\n", key + strlen(key) - strlen(stable_names[h]) - 1, x, y, c);
        }
    }
    fputs("\nNFS v4.x operations: count in calls, then errors (A -> B)\n", out);
    n = members(a, b, "nfs4.ops", names, NFS4_NAMES);
    for (i = 0; i < n; i++) {
        char x[32], y[32], c[48];

        snprintf(key, sizeof key, "nfs4.ops.%.95s.count", names[i]);
        fmt_num(x, sizeof x, num(a, key));
        fmt_num(y, sizeof y, num(b, key));
        fmt_change(c, sizeof c, num(a, key), num(b, key));
        fprintf(out, "%-20s %8s %8s %-16s", names[i], x, y, c);
        snprintf(key, sizeof key, "nfs4.ops.%.95s.errors", names[i]);
        fmt_num(x, sizeof x, num(a, key));
        fmt_num(y, sizeof y, num(b, key));
        fprintf(out, " errors %s -> %s\n", x, y);
    }
}

/* The same in JSON: every value a pair [A, B]. */
static void
nfs4_json_lat(struct json_w *w, const struct side *a, const struct side *b, const char *lat)
{
    char key[256];
    unsigned i;

    for (i = 0; i < 3; i++) {
        snprintf(key, sizeof key, "%s.%s", lat, pcts[i]);
        pair(w, pcts[i], num(a, key), num(b, key));
    }
}

static void
nfs4_json(struct json_w *w, const struct side *a, const struct side *b)
{
    static char names[NFS4_NAMES][96];
    static const char *const cmembers[] = { "calls", "replies", "errors" };
    char key[256];
    size_t n, i, k;

    if (!has_nfs4(a, b))
        return;
    json_key(w, "nfs4");
    json_obj(w);
    json_key(w, "compound");
    json_obj(w);
    for (k = 0; k < 3; k++) {
        snprintf(key, sizeof key, "nfs4.compound.%s", cmembers[k]);
        pair(w, cmembers[k], num(a, key), num(b, key));
    }
    nfs4_json_lat(w, a, b, "nfs4.compound.latency_us");
    json_close(w);
    for (k = 0; k < 2; k++) {
        json_key(w, k ? "write_committed" : "write_stable");
        json_obj(w);
        for (i = 0; i < 3; i++) {
            char name[16];

            snprintf(name, sizeof name, "%s4", stable_names[i]);
            snprintf(key, sizeof key, "nfs4.write.%s.%s", k ? "committed" : "stable", name);
            pair(w, name, num(a, key), num(b, key));
        }
        json_close(w);
    }
    json_key(w, "minor_versions");
    json_obj(w);
    n = members(a, b, "nfs4.minor_versions", names, NFS4_NAMES);
    for (i = 0; i < n; i++) {
        char lat[256];

        json_key(w, names[i]);
        json_obj(w);
        for (k = 0; k < 3; k++) {
            snprintf(key, sizeof key, "nfs4.minor_versions.%.95s.compound.%s", names[i],
                     cmembers[k]);
            pair(w, cmembers[k], num(a, key), num(b, key));
        }
        snprintf(lat, sizeof lat, "nfs4.minor_versions.%.95s.compound.latency_us", names[i]);
        nfs4_json_lat(w, a, b, lat);
        json_close(w);
    }
    json_close(w);
    json_key(w, "kinds");
    json_obj(w);
    n = members(a, b, "nfs4.kinds", names, NFS4_NAMES);
    for (i = 0; i < n; i++) {
        char lat[256];

        json_key(w, names[i]);
        json_obj(w);
        snprintf(key, sizeof key, "nfs4.kinds.%.95s.compounds", names[i]);
        pair(w, "compounds", num(a, key), num(b, key));
        snprintf(key, sizeof key, "nfs4.kinds.%.95s.errors", names[i]);
        pair(w, "errors", num(a, key), num(b, key));
        snprintf(lat, sizeof lat, "nfs4.kinds.%.95s.latency_us", names[i]);
        nfs4_json_lat(w, a, b, lat);
        json_close(w);
    }
    json_close(w);
    json_key(w, "ops");
    json_obj(w);
    n = members(a, b, "nfs4.ops", names, NFS4_NAMES);
    for (i = 0; i < n; i++) {
        static const char *const omembers[] = { "count", "replies", "not_evaluated", "errors" };

        json_key(w, names[i]);
        json_obj(w);
        for (k = 0; k < 4; k++) {
            snprintf(key, sizeof key, "nfs4.ops.%.95s.%s", names[i], omembers[k]);
            pair(w, omembers[k], num(a, key), num(b, key));
        }
        json_close(w);
    }
    json_close(w);
    json_close(w);
}

/* A warning per side and percentile of `proc` computed from fewer replies
 * than it needs (pct_min), as text lines or JSON strings. */
static void
few_warnings(FILE *out, struct json_w *w, const char *proc, const struct side *a,
             const struct side *b)
{
    const struct side *sides[2] = { a, b };
    char key[128], msg[256];
    unsigned i, k;

    for (i = 0; i < 2; i++) {
        double n;

        snprintf(key, sizeof key, "nfs3.ops.%s.latency_us.count", proc);
        n = num(sides[i], key);
        if (isnan(n) || n == 0)
            continue;
        for (k = 0; k < 3 && n >= pct_min[k]; k++) /* the first percentile lacking replies */
            ;
        if (k == 3)
            continue;
        snprintf(msg, sizeof msg,
                 "%s in %c: %.0f repl%s, too few for %s%s (%s needs %u): read them as "
                 "single values",
                 proc, i ? 'B' : 'A', n, n == 1 ? "y" : "ies", pcts[k],
                 k < 2 ? " and above" : "", pcts[k], pct_min[k]);
        if (w)
            json_str(w, msg);
        else
            fprintf(out, "  warning: %s\n", msg);
    }
}

static void
text(FILE *out, const struct side *a, const struct side *b)
{
    char x[32], y[32], c[48], key[128], kk[16][64];
    size_t i, k, nk;
    unsigned p;

    fputs("nfsscope diff (A = before, B = after)\n", out);
    put_name(out, "A", a->name);
    put_name(out, "B", b->name);
    {
        struct workload wa, wb;
        char v[256];

        workload_of(a, &wa);
        workload_of(b, &wb);
        verdict(v, sizeof v, &wa, &wb);
        fprintf(out, "verdict: %s\n", v);
        fprintf(out, "\n%-22s %12s %12s  %s\n", "", "A", "B", "change");
        for (i = 0; i < WL_ROWS; i++) {
            double va = wl_get(&wa, i), vb = wl_get(&wb, i), ch = change_pct(va, vb);
            int dec = i == 0 || i == 2 || i == 3 ? 3 : 0; /* seconds, rates: 3 decimals */

            if (i == 4) {
                fmt_us(x, sizeof x, va);
                fmt_us(y, sizeof y, vb);
            } else {
                if (isnan(va))
                    snprintf(x, sizeof x, "-");
                else
                    snprintf(x, sizeof x, "%.*f", dec, va);
                if (isnan(vb))
                    snprintf(y, sizeof y, "-");
                else
                    snprintf(y, sizeof y, "%.*f", dec, vb);
            }
            if (isnan(ch))
                snprintf(c, sizeof c, isnan(va) && isnan(vb) ? "" : "-");
            else
                snprintf(c, sizeof c, "%+.1f%%", ch);
            fprintf(out, "%-22s %12s %12s  %s\n", wl_rows[i].label, x, y, c);
        }
    }
    fputs("\n", out);
    {
        static const char *const tot[][2] = {
            { "rpc.calls", "rpc calls" }, { "rpc.replies", "rpc replies" },
            { "rpc.retransmissions", "retransmissions" },
            { "rpc.unanswered_calls", "unanswered calls" }, { "write", "write bytes" },
            { "read", "read bytes" },
        };
        for (i = 0; i < sizeof tot / sizeof tot[0]; i++) {
            bool io = !strchr(tot[i][0], '.'); /* NFSv3 and NFSv4 bytes */
            double va = io ? io_bytes(a, tot[i][0]) : num(a, tot[i][0]);
            double vb = io ? io_bytes(b, tot[i][0]) : num(b, tot[i][0]);
            fmt_num(x, sizeof x, va);
            fmt_num(y, sizeof y, vb);
            fmt_change(c, sizeof c, va, vb);
            fprintf(out, "%-22s %12s %12s  %s\n", tot[i][1], x, y, c);
        }
    }
    fputs("\nNFS v3 per procedure: calls, then latency p50 / p90 / p99 (A -> B)\n", out);
    fprintf(out, "%-12s %8s %8s %-16s %s\n", "proc", "calls A", "calls B", "change",
            "latency A -> B");
    for (p = 0; p < NPROCS; p++) {
        double ca, cb;

        snprintf(key, sizeof key, "nfs3.ops.%s.calls", procs[p]);
        ca = num(a, key);
        cb = num(b, key);
        if ((isnan(ca) || ca == 0) && (isnan(cb) || cb == 0))
            continue;
        fmt_num(x, sizeof x, ca);
        fmt_num(y, sizeof y, cb);
        fmt_change(c, sizeof c, ca, cb);
        fprintf(out, "%-12s %8s %8s %-16s", procs[p], x, y, c);
        for (i = 0; i < 3; i++) {
            snprintf(key, sizeof key, "nfs3.ops.%s.latency_us.%s", procs[p], pcts[i]);
            fmt_us(x, sizeof x, num(a, key));
            fmt_us(y, sizeof y, num(b, key));
            fprintf(out, "%s%s %s -> %s", i ? ", " : " ", pcts[i], x, y);
        }
        fputs("\n", out);
        few_warnings(out, NULL, procs[p], a, b);
    }
    for (k = 0; k < 2; k++) {
        const char *what = k ? "committed" : "stable";
        fprintf(out, "\nWRITE %s\n", k ? "committed (server's answer)" : "stable_how (client's request)");
        for (i = 0; i < 3; i++) {
            double va, vb;
            snprintf(key, sizeof key, "nfs3.write.%s.%s", what, stable_names[i]);
            va = num(a, key);
            vb = num(b, key);
            fmt_num(x, sizeof x, va);
            fmt_num(y, sizeof y, vb);
            fmt_change(c, sizeof c, va, vb);
            fprintf(out, "  %-20s %12s %12s  %s\n", stable_names[i], x, y, c);
        }
    }
    nfs4_text(out, a, b);
    nk = kinds(a, b, kk, 16);
    fputs("\nFindings (count A -> B; - = not reported)\n", out);
    if (!nk)
        fputs("  none in either report\n", out);
    for (i = 0; i < nk; i++) {
        double va = finding(a, kk[i]), vb = finding(b, kk[i]);
        const char *note = isnan(vb) ? "  (gone)" : isnan(va) ? "  (new)" : "";
        fmt_num(x, sizeof x, va);
        fmt_num(y, sizeof y, vb);
        fprintf(out, "  %-24s %10s -> %-10s%s\n", kk[i], x, y, note);
    }
}

static void
jnum(struct json_w *w, double v)
{
    if (isnan(v))
        json_null(w);
    else if (v == floor(v) && fabs(v) < 1e15)
        json_i64(w, (int64_t)v);
    else
        json_double(w, v);
}

static void
pair(struct json_w *w, const char *key, double a, double b)
{
    json_key(w, key);
    json_arr(w);
    jnum(w, a);
    jnum(w, b);
    json_close(w);
}

static int
json(FILE *out, const struct side *a, const struct side *b)
{
    struct json_w w;
    char key[128], kk[16][64];
    size_t i, nk;
    unsigned p, k;

    json_begin(&w, out, true);
    json_obj(&w);
    json_kv_str(&w, "schema", "nfsscope-diff/1");
    json_kv_str(&w, "a", a->name);
    json_kv_str(&w, "b", b->name);
    json_key(&w, "rpc");
    json_obj(&w);
    pair(&w, "calls", num(a, "rpc.calls"), num(b, "rpc.calls"));
    pair(&w, "replies", num(a, "rpc.replies"), num(b, "rpc.replies"));
    json_close(&w);
    json_key(&w, "nfs3");
    json_obj(&w);
    for (p = 0; p < NPROCS; p++) {
        json_key(&w, procs[p]);
        json_obj(&w);
        snprintf(key, sizeof key, "nfs3.ops.%s.calls", procs[p]);
        pair(&w, "calls", num(a, key), num(b, key));
        for (i = 0; i < 3; i++) {
            snprintf(key, sizeof key, "nfs3.ops.%s.latency_us.%s", procs[p], pcts[i]);
            pair(&w, pcts[i], num(a, key), num(b, key));
        }
        json_close(&w);
    }
    for (k = 0; k < 2; k++) {
        json_key(&w, k ? "write_committed" : "write_stable");
        json_obj(&w);
        for (i = 0; i < 3; i++) {
            snprintf(key, sizeof key, "nfs3.write.%s.%s", k ? "committed" : "stable",
                     stable_names[i]);
            pair(&w, stable_names[i], num(a, key), num(b, key));
        }
        json_close(&w);
    }
    json_close(&w);
    nfs4_json(&w, a, b);
    {
        struct workload wa, wb;
        char v[256];

        workload_of(a, &wa);
        workload_of(b, &wb);
        json_key(&w, "workload");
        json_obj(&w);
        for (i = 0; i < WL_ROWS; i++)
            pair(&w, wl_rows[i].key, wl_get(&wa, i), wl_get(&wb, i));
        json_close(&w);
        json_key(&w, "change_pct");
        json_obj(&w);
        for (i = 0; i < WL_ROWS; i++) {
            double ch = change_pct(wl_get(&wa, i), wl_get(&wb, i));

            json_key(&w, wl_rows[i].key);
            if (isnan(ch))
                json_null(&w);
            else
                json_fixed(&w, ch, 1);
        }
        json_close(&w);
        verdict(v, sizeof v, &wa, &wb);
        json_kv_str(&w, "verdict", v);
        json_key(&w, "warnings");
        json_arr(&w);
        for (p = 0; p < NPROCS; p++)
            few_warnings(NULL, &w, procs[p], a, b);
        json_close(&w);
    }
    json_key(&w, "findings");
    json_obj(&w);
    nk = kinds(a, b, kk, 16);
    for (i = 0; i < nk; i++)
        pair(&w, kk[i], finding(a, kk[i]), finding(b, kk[i]));
    json_close(&w);
    json_close(&w);
    return json_end(&w);
}

int
diff_main(int argc, char **argv)
{
    struct side s[2];
    const char *fmt = "text";
    char err[512];
    int i, st = 0, first = 1;

    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        fputs(diff_usage, stdout);
        return 0;
    }
    if (argc >= 3 && !strcmp(argv[1], "-o")) {
        fmt = argv[2];
        first = 3;
    }
    if (strcmp(fmt, "text") != 0 && strcmp(fmt, "json") != 0) {
        fprintf(stderr, "nfsscope: diff -o: \"%s\" is not one of text, json\n%s", fmt,
                diff_usage);
        return 2;
    }
    if (argc - first != 2) {
        fprintf(stderr, "nfsscope: diff needs two inputs, A and B\n%s", diff_usage);
        return 2;
    }
    memset(s, 0, sizeof s);
    for (i = 0; i < 2; i++) {
        s[i].name = argv[first + i];
        if (load(&s[i], err, sizeof err) != 0) {
            fprintf(stderr, "nfsscope: diff: %s: %s\n", s[i].name, err);
            st = 1;
            break;
        }
    }
    if (st == 0) {
        if (!strcmp(fmt, "json"))
            st = json(stdout, &s[0], &s[1]) != 0;
        else
            text(stdout, &s[0], &s[1]);
        if (fflush(stdout) != 0)
            st = 1;
    }
    for (i = 0; i < 2; i++) {
        jsonr_free(&s[i].j);
        free(s[i].text);
    }
    return st;
}
