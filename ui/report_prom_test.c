/* SPDX-License-Identifier: BSD-3-Clause */
/* report_prom_test.c: the Prometheus exposition of a small stats object,
 * checked line by line against the text format's grammar, and the exact
 * latency buckets against values on and around their bounds. */
#include "report_prom.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"

/* ---- a strict reader of the text format (version 0.0.4) --------------- */

static bool
is_name(const char *s, size_t n, bool colon)
{
    size_t i;

    if (n == 0 || isdigit((unsigned char)s[0]))
        return false;
    for (i = 0; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || (colon && s[i] == ':')))
            return false;
    return true;
}

static bool
is_value(const char *s)
{
    char *end;

    if (!strcmp(s, "+Inf") || !strcmp(s, "-Inf") || !strcmp(s, "NaN"))
        return true;
    if (!*s)
        return false;
    (void)strtod(s, &end);
    return *end == '\0';
}

/* The family a sample belongs to: histograms add _bucket, _sum, _count. */
static bool
family_of(const char *types, const char *name, size_t n)
{
    static const char *const sfx[] = { "_bucket", "_sum", "_count" };
    char want[160];
    size_t i;

    snprintf(want, sizeof want, "\n%.*s counter\n", (int)n, name);
    if (strstr(types, want))
        return true;
    snprintf(want, sizeof want, "\n%.*s gauge\n", (int)n, name);
    if (strstr(types, want))
        return true;
    for (i = 0; i < 3; i++) {
        size_t l = strlen(sfx[i]);
        if (n > l && !memcmp(name + n - l, sfx[i], l)) {
            snprintf(want, sizeof want, "\n%.*s histogram\n", (int)(n - l), name);
            if (strstr(types, want))
                return true;
        }
    }
    return false;
}

/* Every line is HELP, TYPE or a sample of a family typed before it; label
 * values use only the three escapes. Returns the number of bad lines. */
static int
strict_parse(const char *text)
{
    char types[65536] = "\n";
    const char *line = text;
    int bad = 0;

    while (*line) {
        const char *nl = strchr(line, '\n');
        char buf[1024];
        size_t len, n;
        const char *p;

        if (!nl) {
            bad++; /* the last line must end in \n */
            break;
        }
        len = (size_t)(nl - line);
        if (len >= sizeof buf) {
            bad++;
            line = nl + 1;
            continue;
        }
        memcpy(buf, line, len);
        buf[len] = '\0';
        line = nl + 1;
        if (!strncmp(buf, "# HELP ", 7) || !strncmp(buf, "# TYPE ", 7)) {
            const char *sp = strchr(buf + 7, ' ');
            if (!sp || !is_name(buf + 7, (size_t)(sp - buf - 7), true)) {
                bad++;
                continue;
            }
            if (buf[2] == 'T') {
                char want[160];
                if (strcmp(sp + 1, "counter") && strcmp(sp + 1, "gauge") &&
                    strcmp(sp + 1, "histogram")) {
                    bad++;
                    continue;
                }
                snprintf(want, sizeof want, "\n%.*s ", (int)(sp - buf - 7), buf + 7);
                if (strstr(types, want)) { /* one TYPE per family */
                    bad++;
                    continue;
                }
                if (strlen(types) + len < sizeof types - 2) {
                    strcat(types, buf + 7);
                    strcat(types, "\n");
                }
            }
            continue;
        }
        for (n = 0; buf[n] && buf[n] != '{' && buf[n] != ' '; n++)
            ;
        if (!is_name(buf, n, true) || !family_of(types, buf, n)) {
            fprintf(stderr, "bad sample name: %s\n", buf);
            bad++;
            continue;
        }
        p = buf + n;
        if (*p == '{') {
            p++;
            for (;;) {
                const char *eq = strchr(p, '=');
                if (!eq || !is_name(p, (size_t)(eq - p), false) || eq[1] != '"')
                    goto badline;
                p = eq + 2;
                while (*p && *p != '"') {
                    if (*p == '\\') {
                        if (p[1] != '\\' && p[1] != '"' && p[1] != 'n')
                            goto badline;
                        p++;
                    }
                    p++;
                }
                if (*p != '"')
                    goto badline;
                p++;
                if (*p == ',') {
                    p++;
                    continue;
                }
                if (*p == '}') {
                    p++;
                    break;
                }
                goto badline;
            }
        }
        if (*p != ' ' || !is_value(p + 1))
            goto badline;
        continue;
badline:
        fprintf(stderr, "bad sample: %s\n", buf);
        bad++;
    }
    return bad;
}

/* The value of the sample whose name and labels are exactly `series`, or -1. */
static long long
value_of(const char *text, const char *series)
{
    size_t n = strlen(series);
    const char *p = text;

    while ((p = strstr(p, series)) != NULL) {
        if ((p == text || p[-1] == '\n') && p[n] == ' ')
            return atoll(p + n + 1);
        p += n;
    }
    return -1;
}

static char *
render(const struct stats *s, bool done)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    CHECK(f != NULL);
    if (!f)
        return NULL;
    EQ(report_prom(f, s, NULL, done), 0);
    fclose(f);
    return buf;
}

/* ---- a stats object fed through stats_call/stats_record ---------------- */

static void
op(struct stats *s, const struct rpc_program *pg, uint32_t proc, uint64_t lat_us,
   enum op_outcome outcome, bool has_status, uint32_t status, uint64_t read_bytes)
{
    struct op_event ev;

    stats_call(s, pg, proc, 0xff, STABLE_NONE, 0);
    memset(&ev, 0, sizeof ev);
    ev.pg = pg;
    ev.prog = pg->prog;
    ev.vers = pg->vers;
    ev.proc = proc;
    ev.outcome = outcome;
    ev.has_status = has_status;
    ev.status = status;
    ev.read_bytes = read_bytes;
    ev.stable = ev.committed = STABLE_NONE;
    ev.uid = ev.gid = UINT32_MAX;
    ev.t_call.tv_sec = 100;
    ev.t_reply.tv_sec = 100 + (time_t)(lat_us / 1000000);
    ev.t_reply.tv_nsec = (long)(lat_us % 1000000) * 1000;
    stats_record(s, &ev);
}

static void
test_registry_stats(void)
{
    struct stats s;
    const struct prog_stats *ps;
    const struct rpc_program *nfs3;
    char *t;

    EQ(stats_init(&s), 0);
    ps = stats_prog_by_name(&s, "nfs3");
    CHECK(ps != NULL);
    if (!ps)
        return;
    nfs3 = ps->pg;

    /* 10 us .. 10 s, the R20 numbers: bounds are inclusive (le), 100 us is
     * in le="0.0001", 101 us is not; 11 us is at or below 11.2 us. */
    EQ(STATS_LAT_BOUNDS, 121);
    EQ(stats_lat_bound_ns(0), 10000);
    EQ(stats_lat_bound_ns(1), 11200);
    EQ(stats_lat_bound_ns(20), 100000);
    EQ(stats_lat_bound_ns(27), 224000);
    EQ(stats_lat_bound_ns(STATS_LAT_BOUNDS - 1), 10000000000u);
    for (unsigned i = 1; i < STATS_LAT_BOUNDS; i++) { /* rising, at most 1.143 apart (160/140) */
        CHECK(stats_lat_bound_ns(i) > stats_lat_bound_ns(i - 1));
        CHECK(stats_lat_bound_ns(i) * 7 <= stats_lat_bound_ns(i - 1) * 8);
    }
    EQ(stats_lat_bucket(0), 0);
    EQ(stats_lat_bucket(10), 0);
    EQ(stats_lat_bucket(11), 1);
    EQ(stats_lat_bucket(12), 2);
    EQ(stats_lat_bucket(100), 20);
    EQ(stats_lat_bucket(101), 21);
    EQ(stats_lat_bucket(1000), 40);
    EQ(stats_lat_bucket(1001), 41);
    EQ(stats_lat_bucket(10000000), STATS_LAT_BOUNDS - 1);
    EQ(stats_lat_bucket(10000001), STATS_LAT_BOUNDS);
    EQ(stats_lat_bucket(UINT64_MAX), STATS_LAT_BOUNDS);
    /* Each bucket is the first bound at or above the latency, around every bound. */
    for (unsigned i = 0; i < STATS_LAT_BOUNDS; i++) {
        uint64_t us = stats_lat_bound_ns(i) / 1000;

        for (uint64_t v = us ? us - 1 : 0; v <= us + 1; v++) {
            unsigned want = 0;

            while (want < STATS_LAT_BOUNDS && v * 1000 > stats_lat_bound_ns(want))
                want++;
            EQ(stats_lat_bucket(v), want);
        }
    }
    /* And around every power of two nanoseconds, where the search starts anew. */
    for (unsigned m = 0; m < 35; m++) {
        uint64_t us = ((uint64_t)1 << m) / 1000;

        for (uint64_t v = us ? us - 1 : 0; v <= us + 2; v++) {
            unsigned want = 0;

            while (want < STATS_LAT_BOUNDS && v * 1000 > stats_lat_bound_ns(want))
                want++;
            EQ(stats_lat_bucket(v), want);
        }
    }

    /* getattr: 5 replies at 50, 100, 101, 1000 us and 20 s; 2 NOENT, 1 RPC error. */
    op(&s, nfs3, 1, 50, OP_REPLIED, true, 0, 0);
    op(&s, nfs3, 1, 100, OP_REPLIED, true, 2, 0);
    op(&s, nfs3, 1, 101, OP_REPLIED, true, 2, 0);
    op(&s, nfs3, 1, 1000, OP_REPLIED, true, 0, 0);
    op(&s, nfs3, 1, 20000000, OP_RPC_ERROR, false, 0, 0);
    /* read: 2 replies, 4096 + 100 bytes; one call unanswered. */
    op(&s, nfs3, 6, 2500, OP_REPLIED, true, 0, 4096);
    op(&s, nfs3, 6, 2501, OP_REPLIED, true, 0, 100);
    op(&s, nfs3, 6, 0, OP_NO_REPLY, false, 0, 0);
    /* an unnamed error status: "other" */
    op(&s, nfs3, 3, 7, OP_REPLIED, true, 99999, 0);
    s.anom.n[ANOM_TCP_GAP] = 3;

    t = render(&s, false);
    if (!t)
        return;
    EQ(strict_parse(t), 0);
    EQ(value_of(t, "nfsscope_input_done"), 0);
    CHECK(strstr(t, "nfsscope_kernel_drops_total") == NULL); /* unknown: not served */
    /* one family per concept: no RPC-wide or per-program copies */
    CHECK(strstr(t, "nfsscope_rpc_calls_total") == NULL);
    CHECK(strstr(t, "nfsscope_program_calls_total") == NULL);
    CHECK(strstr(t, "\",version=") == NULL); /* the program label has it */
    /* nothing outside the decoded procedures: no "other" series */
    CHECK(strstr(t, "program=\"other\"") == NULL);
    EQ(value_of(t, "nfsscope_calls_total{program=\"nfs3\",proc=\"getattr\"}"), 5);
    EQ(value_of(t, "nfsscope_replies_total{program=\"nfs3\",proc=\"getattr\"}"), 5);
    EQ(value_of(t, "nfsscope_errors_total{program=\"nfs3\",proc=\"getattr\","
                   "status=\"NFS3ERR_NOENT\"}"),
       2);
    EQ(value_of(t, "nfsscope_errors_total{program=\"nfs3\",proc=\"getattr\","
                   "status=\"RPC_ERROR\"}"),
       1);
    EQ(value_of(t, "nfsscope_errors_total{program=\"nfs3\",proc=\"lookup\","
                   "status=\"other\"}"),
       1);
    /* cumulative buckets: 50,100 | 101 | 1000 | ... | 20 s beyond 10 s */
#define GA "nfsscope_latency_seconds_bucket{program=\"nfs3\",proc=\"getattr\","
    EQ(value_of(t, GA "le=\"0.00001\"}"), 0);
    EQ(value_of(t, GA "le=\"0.00009\"}"), 1);
    EQ(value_of(t, GA "le=\"0.000112\"}"), 3);
    EQ(value_of(t, GA "le=\"0.0001\"}"), 2);
    EQ(value_of(t, GA "le=\"0.00025\"}"), 3);
    EQ(value_of(t, GA "le=\"0.0005\"}"), 3);
    EQ(value_of(t, GA "le=\"0.0009\"}"), 3);
    EQ(value_of(t, GA "le=\"0.001\"}"), 4);
    EQ(value_of(t, GA "le=\"0.00101\"}"), -1); /* not a bound */
    EQ(value_of(t, GA "le=\"10\"}"), 4);
    EQ(value_of(t, GA "le=\"+Inf\"}"), 5);
#undef GA
    EQ(value_of(t, "nfsscope_latency_seconds_count{program=\"nfs3\","
                   "proc=\"getattr\"}"),
       5);
    CHECK(strstr(t, "\nnfsscope_latency_seconds_sum{program=\"nfs3\","
                    "proc=\"getattr\"} 20.001251\n") != NULL);
#define RD "nfsscope_latency_seconds_bucket{program=\"nfs3\",proc=\"read\","
    EQ(value_of(t, RD "le=\"0.001\"}"), 0);
    EQ(value_of(t, RD "le=\"0.0025\"}"), 1);
    EQ(value_of(t, RD "le=\"0.005\"}"), 2);
    EQ(value_of(t, RD "le=\"0.0025\"}"), 1); /* 2501 us is above 2.5 ms */
    EQ(value_of(t, RD "le=\"0.0028\"}"), 2);
#undef RD
    EQ(value_of(t, "nfsscope_unanswered_calls_total{program=\"nfs3\","
                   "proc=\"read\"}"),
       1);
    EQ(value_of(t, "nfsscope_bytes_total{program=\"nfs3\",proc=\"read\","
                   "direction=\"to_client\"}"),
       4196);
    /* procedures never seen have no series; seen ones have all of them */
    CHECK(strstr(t, "proc=\"setattr\"") == NULL);
    CHECK(strstr(t, "program=\"mount3\"") == NULL);
    EQ(value_of(t, "nfsscope_anomalies_total{kind=\"tcp_gap\"}"), 3);
    EQ(value_of(t, "nfsscope_evictions_total{table=\"flows\"}"), 0);
    free(t);

    t = render(&s, true);
    if (t) {
        EQ(value_of(t, "nfsscope_input_done"), 1);
        free(t);
    }

    /* A program with no dissector and a procedure number beyond the table:
     * program="other", so the family sums to the RPC total (9 + 2). */
    stats_call(&s, NULL, 0, 0xff, STABLE_NONE, 0);
    stats_call(&s, nfs3, 99, 0xff, STABLE_NONE, 0);
    stats_retrans(&s, NULL, 0);
    EQ(s.rpc.calls, 11);
    t = render(&s, true);
    if (t) {
        EQ(strict_parse(t), 0);
        EQ(value_of(t, "nfsscope_calls_total{program=\"other\",proc=\"other\"}"), 2);
        EQ(value_of(t, "nfsscope_retransmissions_total{program=\"other\",proc=\"other\"}"), 1);
        EQ(value_of(t, "nfsscope_replies_total{program=\"other\",proc=\"other\"}"), -1);
        free(t);
    }
    stats_fini(&s);
}

/* ---- label escaping: a program whose names hold the three specials ----- */

static const struct rpc_op evil_procs[2] = { { .name = "null" }, { .name = "a\"b\\c\nd" } };

static const struct rpc_program evil = {
    .name = "ev\"il\\7", .title = "evil", .prog = 400000, .vers = 7, .nprocs = 2,
    .procs = evil_procs,
};

static void
test_escaping(void)
{
    struct stats s;
    char *t, buf[256] = "";
    FILE *f;

    f = fmemopen(buf, sizeof buf, "w");
    CHECK(f != NULL);
    if (f) {
        report_prom_label(f, "x\\y\"z\nw");
        fclose(f);
    }
    STREQ(buf, "x\\\\y\\\"z\\nw");

    memset(&s, 0, sizeof s);
    s.cap.kernel_drops = 4;
    s.nprogs = 1;
    s.progs = calloc(1, sizeof *s.progs);
    CHECK(s.progs != NULL);
    if (!s.progs)
        return;
    s.progs[0].pg = &evil;
    s.progs[0].procs = calloc(2, sizeof(struct proc_stats));
    CHECK(s.progs[0].procs != NULL);
    if (s.progs[0].procs) {
        s.progs[0].procs[1].calls = 3;
        s.progs[0].calls = 3;
        t = render(&s, false);
        if (t) {
            EQ(strict_parse(t), 0);
            EQ(value_of(t, "nfsscope_calls_total{program=\"ev\\\"il\\\\7\","
                           "proc=\"a\\\"b\\\\c\\nd\"}"),
               3);
            EQ(value_of(t, "nfsscope_kernel_drops_total"), 4);
            free(t);
        }
        free(s.progs[0].procs);
    }
    free(s.progs);
}

/* The reader itself rejects what it must (a test that can fail). */
static void
test_reader(void)
{
    EQ(strict_parse("# TYPE a counter\na 1\n"), 0);
    EQ(strict_parse("a 1\n"), 1);                                  /* no TYPE */
    EQ(strict_parse("# TYPE a counter\na{x=\"\\q\"} 1\n"), 1);     /* bad escape */
    EQ(strict_parse("# TYPE a counter\na{x=\"v\" 1\n"), 1);        /* unclosed */
    EQ(strict_parse("# TYPE a counter\na 1x\n"), 1);               /* bad value */
    EQ(strict_parse("# TYPE a counter\n# TYPE a counter\na 1\n"), 1); /* TYPE twice */
    EQ(strict_parse("# TYPE a counter\na 1"), 1);                  /* no final newline */
}

/* RPCSEC_GSS calls by program and service, the control messages, the TLS
 * connections and bytes: bounded labels, one series per value; a program
 * without GSS calls has none. */
static void
test_gss_tls(void)
{
    struct stats s;
    struct prog_stats *ps = NULL;
    char *t;
    size_t i;

    EQ(stats_init(&s), 0);
    for (i = 0; i < s.nprogs; i++)
        if (strcmp(s.progs[i].pg->name, "nfs4") == 0)
            ps = &s.progs[i];
    CHECK(ps != NULL);
    if (!ps)
        return;
    ps->gss.data[0] = 1;
    ps->gss.data[1] = 2;
    ps->gss.data[2] = 3;
    ps->gss.ctl[0] = 4;
    ps->gss.ctl[2] = 5;
    s.tls.connections = 2;
    s.tls.bytes = 4096;
    t = render(&s, true);
    CHECK(t != NULL);
    if (t) {
        EQ(strict_parse(t), 0);
        EQ(value_of(t, "nfsscope_rpcsec_gss_calls_total{program=\"nfs4\",service=\"none\"}"), 1);
        EQ(value_of(t, "nfsscope_rpcsec_gss_calls_total{program=\"nfs4\",service=\"integrity\"}"),
           2);
        EQ(value_of(t, "nfsscope_rpcsec_gss_calls_total{program=\"nfs4\",service=\"privacy\"}"),
           3);
        EQ(value_of(t, "nfsscope_rpcsec_gss_control_total{program=\"nfs4\",message=\"init\"}"), 4);
        EQ(value_of(t, "nfsscope_rpcsec_gss_control_total{program=\"nfs4\","
                       "message=\"continue_init\"}"), 0);
        EQ(value_of(t, "nfsscope_rpcsec_gss_control_total{program=\"nfs4\",message=\"destroy\"}"),
           5);
        EQ(value_of(t, "nfsscope_rpcsec_gss_calls_total{program=\"nfs3\",service=\"none\"}"), -1);
        EQ(value_of(t, "nfsscope_tls_connections_total"), 2);
        EQ(value_of(t, "nfsscope_tls_bytes_total"), 4096);
    }
    free(t);
    stats_fini(&s);
}

int
main(void)
{
    test_reader();
    test_registry_stats();
    test_escaping();
    test_gss_tls();
    return t_done();
}
