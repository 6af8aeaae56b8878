/* SPDX-License-Identifier: BSD-3-Clause */
/* report_test.c: the text, JSON and CSV reports on a hand-built stats. */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "t.h"
#include "view.h"

/* ---- fake programs ---------------------------------------------------- */

/* Names only: the reports read the program flags, not the kinds. */
static const struct rpc_op nfs3_names[22] = {
    { .name = "null" }, { .name = "getattr" }, { .name = "setattr" }, { .name = "lookup" },
    { .name = "access" }, { .name = "readlink" }, { .name = "read" }, { .name = "write" },
    { .name = "create" }, { .name = "mkdir" }, { .name = "symlink" }, { .name = "mknod" },
    { .name = "remove" }, { .name = "rmdir" }, { .name = "rename" }, { .name = "link" },
    { .name = "readdir" }, { .name = "readdirplus" }, { .name = "fsstat" }, { .name = "fsinfo" },
    { .name = "pathconf" }, { .name = "commit" },
};

static const char *
fake_status(uint32_t st)
{
    switch (st) {
    case 0: return "NFS3_OK";
    case 2: return "NFS3ERR_NOENT";
    case 13: return "NFS3ERR_ACCES";
    default: return NULL;
    }
}

static const struct rpc_program fake_nfs3 = {
    .name = "nfs3", .title = "NFS v3", .prog = 100003, .vers = 3, .nprocs = 22,
    .procs = nfs3_names, .flags = PGF_PRIMARY | PGF_IO_DETAIL, .status_name = fake_status,
};

static const struct rpc_program fake_nfs2 = { /* another NFS version (3 procedures) */
    .name = "nfs2", .title = "NFS v2", .prog = 100003, .vers = 2, .nprocs = 3,
    .procs = nfs3_names, .status_name = fake_status,
};

static const struct rpc_op mnt_names[3] = { { .name = "null" }, { .name = "mnt" }, { .name = "umnt" } };

static const struct rpc_program fake_mnt = { /* a nasty name: CSV quoting, escaping */
    .name = "mnt,\"x\"", .title = "MOUNT\x1b[2J v3", .prog = 100005, .vers = 3, .nprocs = 3,
    .procs = mnt_names, .status_name = NULL,
};

static void
setup(struct stats *s)
{
    unsigned i, k;

    memset(s, 0, sizeof *s);
    s->cap.kernel_drops = -1;
    s->nprogs = 2;
    s->progs = calloc(2, sizeof *s->progs);
    s->progs[0].pg = &fake_nfs3;
    s->progs[0].procs = calloc(22, sizeof(struct proc_stats));
    s->progs[1].pg = &fake_mnt;
    s->progs[1].procs = calloc(3, sizeof(struct proc_stats));
    for (i = 0; i < 2; i++)
        for (k = 0; k < s->progs[i].pg->nprocs; k++)
            histo_init(&s->progs[i].procs[k].latency);
}

static void
fill(struct stats *s)
{
    struct prog_stats *ps = &s->progs[0];
    struct proc_stats *p;
    unsigned i;

    s->cap.packets = 60;
    s->cap.bytes = 123456;
    s->cap.first_ts.tv_sec = 1700000000;
    s->cap.first_ts.tv_nsec = 5;
    s->cap.last_ts.tv_sec = 1700000012;
    s->cap.last_ts.tv_nsec = 345000000;
    s->cap.truncated_packets = 1;
    s->cap.kernel_drops = 5;
    s->rpc.calls = 27;
    s->rpc.replies = 25;
    s->rpc.retransmissions = 1;
    s->rpc.unanswered_calls = 1;
    s->rpc.orphan_replies = 2;
    s->rpc.auth_sys = 27;
    s->anom.n[ANOM_TCP_GAP] = 3;
    s->anom.n[ANOM_RPC_RESYNC] = 1;

    p = &ps->procs[1]; /* getattr */
    p->calls = p->replies = 10;
    p->nstatus = 1;
    p->status[0].status = 0;
    p->status[0].count = 10;
    for (i = 1; i <= 10; i++)
        histo_record(&p->latency, i * 100);

    p = &ps->procs[3]; /* lookup: statuses recorded out of order */
    p->calls = p->replies = 9;
    p->errors = 4;
    p->nstatus = 3;
    p->status[0].status = 70; /* no name */
    p->status[0].count = 1;
    p->status[1].status = 0;
    p->status[1].count = 5;
    p->status[2].status = 2;
    p->status[2].count = 3;
    for (i = 0; i < 9; i++)
        histo_record(&p->latency, 5000);

    p = &ps->procs[6]; /* read */
    p->calls = p->replies = 4;
    p->bytes = 1572864;
    for (i = 0; i < 4; i++)
        histo_record(&p->latency, 1500);

    p = &ps->procs[7]; /* write */
    p->calls = 2;
    p->replies = 1;
    p->retrans = 1;
    p->unanswered = 1;
    p->bytes = 8192;
    histo_record(&p->latency, 2500000);

    ps->calls = 25;
    ps->replies = 24;
    ps->read_bytes = 1572864;
    ps->read_eof = 1;
    ps->write.stable[0] = 1;
    ps->write.stable[2] = 1;
    ps->write.committed[2] = 1;
    ps->write.bytes = 8192;

    ps = &s->progs[1];
    ps->calls = 2;
    ps->replies = 1;
    p = &ps->procs[1];
    p->calls = 2;
    p->replies = 1;
    p->unanswered = 1;
    histo_record(&p->latency, 42);
}

static void
teardown(struct stats *s)
{
    size_t i;

    for (i = 0; i < s->nprogs; i++)
        free(s->progs[i].procs);
    free(s->progs);
}

/* ---- capture a report in memory --------------------------------------- */

static char *
run(const struct view_ops *v, const struct stats *s, const struct view_info *vi, bool tick)
{
    char *p = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&p, &n);

    if (tick)
        v->tick(f, s, vi, NULL);
    else
        EQ(v->report(f, s, vi), 0);
    fclose(f);
    return p;
}

/* ---- a tiny JSON validator (RFC 8259 grammar, no semantics) ----------- */

static const char *jvalue(const char *p, int depth);

static const char *
jws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
    return p;
}

static const char *
jstring(const char *p)
{
    if (*p++ != '"')
        return NULL;
    while (*p != '"') {
        unsigned char c = (unsigned char)*p;

        if (c < 0x20)
            return NULL;
        if (c == '\\') {
            p++;
            if (*p == 'u') {
                int i;
                for (i = 1; i <= 4; i++)
                    if (!isxdigit((unsigned char)p[i]))
                        return NULL;
                p += 5;
                continue;
            }
            if (!*p || !strchr("\"\\/bfnrt", *p))
                return NULL;
        }
        p++;
    }
    return p + 1;
}

static const char *
jnumber(const char *p)
{
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (isdigit((unsigned char)*p))
            p++;
    else
        return NULL;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        while (isdigit((unsigned char)*p))
            p++;
    }
    return p;
}

static const char *
jcontainer(const char *p, int depth, char close, bool obj)
{
    p = jws(p + 1);
    if (*p == close)
        return p + 1;
    for (;;) {
        if (obj) {
            p = jstring(jws(p));
            if (!p)
                return NULL;
            p = jws(p);
            if (*p++ != ':')
                return NULL;
        }
        p = jvalue(p, depth + 1);
        if (!p)
            return NULL;
        p = jws(p);
        if (*p == close)
            return p + 1;
        if (*p++ != ',')
            return NULL;
    }
}

static const char *
jvalue(const char *p, int depth)
{
    if (depth > 64)
        return NULL;
    p = jws(p);
    switch (*p) {
    case '{': return jcontainer(p, depth, '}', true);
    case '[': return jcontainer(p, depth, ']', false);
    case '"': return jstring(p);
    case 't': return strncmp(p, "true", 4) ? NULL : p + 4;
    case 'f': return strncmp(p, "false", 5) ? NULL : p + 5;
    case 'n': return strncmp(p, "null", 4) ? NULL : p + 4;
    default: return jnumber(p);
    }
}

static bool
json_valid(const char *doc)
{
    const char *end = jvalue(doc, 0);

    return end && *jws(end) == '\0';
}

/* Drop whitespace outside strings. */
static char *
squeeze(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    bool in = false;

    for (; *s; s++) {
        if (in) {
            *o++ = *s;
            if (*s == '\\' && s[1])
                *o++ = *++s;
            else if (*s == '"')
                in = false;
        } else if (*s == '"') {
            in = true;
            *o++ = *s;
        } else if (!strchr(" \n\r\t", *s)) {
            *o++ = *s;
        }
    }
    *o = '\0';
    return out;
}

#define HAS(doc, frag)                                                                             \
    do {                                                                                           \
        if (strstr(doc, frag)) {                                                                   \
            t_pass++;                                                                              \
        } else {                                                                                   \
            t_fail++;                                                                              \
            fprintf(stderr, "%s:%d: missing: %s\n", __FILE__, __LINE__, frag);                    \
        }                                                                                          \
    } while (0)

#define HASNT(doc, frag)                                                                           \
    do {                                                                                           \
        if (!strstr(doc, frag)) {                                                                  \
            t_pass++;                                                                              \
        } else {                                                                                   \
            t_fail++;                                                                              \
            fprintf(stderr, "%s:%d: unexpected: %s\n", __FILE__, __LINE__, frag);                 \
        }                                                                                          \
    } while (0)

/* ---- tests ------------------------------------------------------------ */

static const char *const srcs[] = { "a.pcap", "evil\x1b[2J\n.pcap", NULL };
static const struct view_info vinfo = { .sources = srcs, .filter = "port 2049" };

static void
test_json_validator(void)
{
    CHECK(json_valid("{\"a\":[1,-2.5e+3,true,false,null,\"x\\u001b\"]}"));
    CHECK(!json_valid("{\"a\":}"));
    CHECK(!json_valid("{\"a\":1,}"));
    CHECK(!json_valid("[01]"));
    CHECK(!json_valid("\"\x01\""));
    CHECK(!json_valid("{} x"));
}

static void
test_json(void)
{
    struct stats s;
    char *pretty, *compact, *sq;
    const char *p;
    unsigned i, a;
    char frag[256];

    setup(&s);
    fill(&s);
    pretty = run(&report_json_view, &s, &vinfo, false);
    compact = run(&report_json_view, &s, &vinfo, true);
    CHECK(json_valid(pretty));
    CHECK(json_valid(compact));
    /* compact is the pretty report without the layout, on one line */
    sq = squeeze(pretty);
    STREQ(compact, strcat(sq, "\n") ? sq : "");
    EQ(strchr(compact, '\n') - compact, (long)strlen(compact) - 1);

    CHECK(strncmp(pretty, "{\n  \"schema\": \"nfsscope/1\",\n  \"capture\": {\n", 42) == 0);
    HAS(compact, "\"capture\":{\"packets\":60,\"bytes\":123456,\"first_ts\":1700000000.000000005,"
                 "\"last_ts\":1700000012.345000000,\"truncated_packets\":1,\"kernel_drops\":5,");
    HAS(compact, "\"sources\":[\"a.pcap\",\"evil\\u001b[2J\\n.pcap\"],\"filter\":\"port 2049\"}");
    HAS(compact, "\"rpc\":{\"calls\":27,\"replies\":25,\"retransmissions\":1,"
                 "\"unanswered_calls\":1,\"orphan_replies\":2,\"rpc_errors\":0,"
                 "\"duplicate_replies\":0,\"unknown_program_calls\":0,"
                 "\"auth\":{\"none\":0,\"sys\":27,\"gss\":0,\"other\":0}}");
    /* every procedure, in order, in the nfs3 object */
    p = strstr(compact, "\"nfs3\":{\"ops\":{");
    CHECK(p != NULL);
    for (i = 0; p && i < 22; i++) {
        snprintf(frag, sizeof frag, "%s\"%s\":{\"calls\":", i ? "}," : "{", nfs3_names[i].name);
        p = strstr(p, frag);
        CHECK(p != NULL);
    }
    /* zero row: null latency, empty status */
    HAS(compact, "\"null\":{\"calls\":0,\"replies\":0,\"errors\":0,\"status\":{},"
                 "\"latency_us\":{\"count\":0,\"min\":null,\"mean\":null,\"p50\":null,"
                 "\"p90\":null,\"p99\":null,\"max\":null},\"histogram\":[],"
                 "\"latency_sum_us\":0,\"retransmissions\":0,"
                 "\"unanswered\":0,\"bytes\":0,\"rpc_errors\":0,\"partial\":0}");
    /* status: errors only, value order, unknown(N) */
    HAS(compact, "\"lookup\":{\"calls\":9,\"replies\":9,\"errors\":4,"
                 "\"status\":{\"NFS3ERR_NOENT\":3,\"unknown(70)\":1},"
                 "\"latency_us\":{\"count\":9,\"min\":5000,\"mean\":5000.0,");
    HASNT(compact, "NFS3_OK");
    HAS(compact, "\"getattr\":{\"calls\":10,\"replies\":10,\"errors\":0,\"status\":{},"
                 "\"latency_us\":{\"count\":10,\"min\":100,\"mean\":550.0,");
    snprintf(frag, sizeof frag, "\"p50\":%llu,\"p90\":%llu,\"p99\":%llu,\"max\":1000}",
             (unsigned long long)histo_percentile(&s.progs[0].procs[1].latency, 50),
             (unsigned long long)histo_percentile(&s.progs[0].procs[1].latency, 90),
             (unsigned long long)histo_percentile(&s.progs[0].procs[1].latency, 99));
    HAS(compact, frag);
    HAS(compact, "\"write\":{\"calls\":2,\"replies\":1,\"errors\":0,\"status\":{},"
                 "\"latency_us\":{\"count\":1,\"min\":2500000,\"mean\":2500000.0,");
    HAS(compact, "\"retransmissions\":1,\"unanswered\":1,\"bytes\":8192,");
    HAS(compact, "\"commit\":{\"calls\":0,");
    HAS(compact, "\"write\":{\"stable\":{\"UNSTABLE\":1,\"DATA_SYNC\":0,\"FILE_SYNC\":1},"
                 "\"committed\":{\"UNSTABLE\":0,\"DATA_SYNC\":0,\"FILE_SYNC\":1},\"bytes\":8192},"
                 "\"read\":{\"bytes\":1572864,\"eof\":1},\"io_sizes\":{");
    HAS(compact, "\"writes_below_max\":0},"
                 "\"calls\":25,\"replies\":24,\"unknown_procedure_calls\":0}");
    /* the latency histogram: [bucket_lo_us, count] pairs that add up to the count */
    snprintf(frag, sizeof frag, "\"histogram\":[[%llu,1]],\"latency_sum_us\":2500000,",
             (unsigned long long)histo_bucket_lo(histo_index(2500000)));
    HAS(compact, frag);
    /* the second program: own object, escaped key, no NFS-only sections */
    HAS(compact, ",\"mnt,\\\"x\\\"\":{\"ops\":{\"null\":{");
    HAS(compact, "\"umnt\":{\"calls\":0,");
    p = strstr(compact, "\"mnt,\\\"x\\\"\":{");
    CHECK(p && !strstr(p, "\"stable\""));
    /* anomalies: every key, fixed order, then findings last */
    p = strstr(compact, "\"anomalies\":{");
    CHECK(p != NULL);
    for (a = 0; p && a < ANOM__COUNT; a++) {
        snprintf(frag, sizeof frag, "%s\"%s\":%llu", a ? "," : "{",
                 anomaly_key((enum anomaly)a), (unsigned long long)s.anom.n[a]);
        p = strstr(p, frag);
        CHECK(p != NULL);
    }
    CHECK(p && strcmp(p + strlen(frag), "},\"findings\":[]}\n") == 0);
    HAS(pretty, "\n  \"findings\": []\n}\n");
    free(pretty);
    free(compact);
    free(sq);
    teardown(&s);

    /* empty capture: null timestamps, unknown kernel drops */
    setup(&s);
    compact = run(&report_json_view, &s, NULL, true);
    CHECK(json_valid(compact));
    HAS(compact, "\"capture\":{\"packets\":0,\"bytes\":0,\"first_ts\":null,\"last_ts\":null,"
                 "\"truncated_packets\":0,\"kernel_drops\":null,\"ts_backwards\":0,"
                 "\"sources\":[],\"filter\":null}");
    free(compact);
    teardown(&s);
}

static void
test_csv(void)
{
    struct stats s;
    char *csv, *line;
    unsigned rows = 0;
    char *save = NULL;

    setup(&s);
    fill(&s);
    csv = run(&report_csv_view, &s, &vinfo, false);
    CHECK(strncmp(csv, "program,procedure,calls,replies,errors,retransmissions,unanswered,bytes,"
                       "lat_count,lat_min_us,lat_mean_us,lat_p50_us,lat_p90_us,lat_p99_us,"
                       "lat_max_us,row,minor_version,not_evaluated\r\n", 182) == 0);
    HAS(csv, "\r\nnfs3,null,0,0,0,0,0,0,0,,,,,,,procedure,,\r\n"
             "nfs3,getattr,10,10,0,0,0,0,10,100,550.0,");
    HAS(csv, "\r\nnfs3,write,2,1,0,1,1,8192,1,2500000,2500000.0,2500000,2500000,2500000,2500000,"
             "procedure,,\r\n");
    HAS(csv, "\r\nnfs3,read,4,4,0,0,0,1572864,4,1500,1500.0,");
    HAS(csv, "\r\nnfs3,commit,0,0,0,0,0,0,0,,,,,,,procedure,,\r\n\"mnt,\"\"x\"\"\",null,0,");
    HAS(csv, "\r\n\"mnt,\"\"x\"\"\",mnt,2,1,0,0,1,0,1,42,42.0,42,42,42,42,procedure,,\r\n");
    for (line = strtok_r(csv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        CHECK(line[strlen(line) - 1] == '\r');
        rows++;
    }
    EQ(rows, 1 + 22 + 3);
    free(csv);
    teardown(&s);
}

static void
test_text(void)
{
    struct stats s;
    char *txt;

    setup(&s);
    fill(&s);
    txt = run(&report_text_view, &s, &vinfo, false);
    fputs(txt, stdout); /* for the log */
    HAS(txt, "nfsscope report: a.pcap, evil\\x1b[2J\\x0a.pcap, filter \"port 2049\"\n");
    HAS(txt, "capture: 60 packets, 120.6 KiB, 12.345 s, 1 truncated by snaplen, kernel drops 5\n");
    HAS(txt, "\nNFS v3 (nfs3): 25 calls, 24 replies\n");
    /* ops/s: calls over 12.345 s; time: the latencies' sum (getattr 100..1000 us);
     * kB/op: 1572864 B / 4 READs / 1024, 8192 B / 2 WRITEs / 1024 */
    HAS(txt, "\nproc            calls      %   ops/s  errors      p50      p90      p99      max     "
             "time  kB/op      bytes\n");
    HAS(txt, "\ngetattr            10  40.0%     0.8       0    499us    903us    999us   1.00ms   "
             "5.50ms\n");
    HAS(txt, "\nlookup              9  36.0%     0.7       4   5.00ms   5.00ms   5.00ms   5.00ms   "
             "45.0ms\n");
    HAS(txt, "\nread                4  16.0%     0.3       0   1.50ms   1.50ms   1.50ms   1.50ms   "
             "6.00ms  384.0    1.5 MiB\n");
    HAS(txt, "\nwrite               2   8.0%     0.2       0    2.50s    2.50s    2.50s    2.50s    "
             "2.50s    4.0    8.0 KiB\n");
    HASNT(txt, "\nnull "); /* procedures without calls: with --all only */
    HASNT(txt, "\ncommit ");
    HAS(txt, "\n(18 procedures without calls not shown: --all shows them)\n");
    HAS(txt, "errors by procedure:\n  lookup: NFS3ERR_NOENT 3, unknown(70) 1\n");
    HAS(txt, "write stable_how: UNSTABLE 1, DATA_SYNC 0, FILE_SYNC 1; committed: UNSTABLE 0, "
             "DATA_SYNC 0, FILE_SYNC 1\n");
    HAS(txt, "bytes: written 8.0 KiB, read 1.5 MiB (1 read at eof)\n");
    HAS(txt, "\nMOUNT\\x1b[2J v3 (mnt,\"x\"): 2 calls, 1 replies\n");
    HAS(txt, "\nmnt          2 100.0%     0.2       0     42us     42us     42us     42us     42us\n");
    HASNT(txt, "\x1b");
    HASNT(txt, " \n");
    HAS(txt, "\nrpc: 27 calls, 25 replies, 1 retransmissions, 1 unanswered, 2 orphan replies, "
             "0 rpc errors\n");
    HAS(txt, "capture quality:\n"
             "             5  kernel_drops         packets dropped by the kernel (not captured)\n"
             "             3  tcp_gap              holes in a TCP stream (segments lost or not captured)\n"
             "             1  rpc_resync           times the RPC record stream was re-synchronised\n");
    CHECK(strstr(txt, "\nNFS v3 (") < strstr(txt, "\nMOUNT"));
    free(txt);

    /* --all: every procedure; NFS first whatever the programs' order */
    {
        struct view_info all = vinfo;
        struct prog_stats t = s.progs[0];

        all.all = true;
        s.progs[0] = s.progs[1];
        s.progs[1] = t;
        txt = run(&report_text_view, &s, &all, false);
        HAS(txt, "\nnull                0   0.0%     0.0       0        -        -        -        -"
                 "        -\n");
        HAS(txt, "\ncommit              0   0.0%     0.0       0        -        -        -        -"
                 "        -\n");
        HAS(txt, "\nnull         0   0.0%     0.0       0        -        -        -        -"
                 "        -\n");
        HASNT(txt, "not shown");
        CHECK(strstr(txt, "\nNFS v3 (") && strstr(txt, "\nNFS v3 (") < strstr(txt, "\nMOUNT"));
        free(txt);
    }
    teardown(&s);

    setup(&s);
    txt = run(&report_text_view, &s, NULL, false);
    HAS(txt, "nfsscope report: (no source)\ncapture: 0 packets, 0 B\n");
    HAS(txt, "\nNFS v3 (nfs3): no calls\n");
    HAS(txt, "capture quality: no anomalies\n");
    free(txt);
    /* calls of another program only: still no NFS, said so */
    s.progs[1].calls = 1;
    s.progs[1].procs[1].calls = 1;
    txt = run(&report_text_view, &s, NULL, false);
    HAS(txt, "\nNFS v3 (nfs3): no calls\n");
    free(txt);
    /* calls of another NFS version only: NFS v3 is left out like any
     * program without calls */
    s.progs[1].pg = &fake_nfs2;
    txt = run(&report_text_view, &s, NULL, false);
    HAS(txt, "\nNFS v2 (nfs2): 1 calls");
    HASNT(txt, "NFS v3");
    free(txt);
    teardown(&s);
}

static void
test_tick_and_errors(void)
{
    struct stats s;
    struct timespec now = { 1700000100, 250000000 };
    char *p = NULL;
    size_t n = 0;
    FILE *f;

    setup(&s);
    f = open_memstream(&p, &n);
    report_json_view.tick(f, &s, &vinfo, &now);
    report_json_view.tick(f, &s, &vinfo, &now);
    fclose(f);
    /* JSON Lines: two objects, one per line, each with the time */
    CHECK(strncmp(p, "{\"schema\":\"nfsscope/1\",\"time\":1700000100.250000000,\"capture\":{",
                  62) == 0);
    {
        char *nl = strchr(p, '\n');

        CHECK(nl && strchr(nl + 1, '\n') == p + n - 1);
        if (nl) {
            *nl = '\0';
            CHECK(json_valid(p));
            CHECK(json_valid(nl + 1));
        }
    }
    free(p);
    CHECK(report_csv_view.tick == NULL);
    CHECK(report_text_view.tick != NULL);

    /* a failed write is reported */
    f = fopen("/dev/full", "w");
    if (f) {
        EQ(report_json_view.report(f, &s, &vinfo), -1);
        clearerr(f);
        EQ(report_text_view.report(f, &s, &vinfo), -1);
        clearerr(f);
        EQ(report_csv_view.report(f, &s, &vinfo), -1);
        fclose(f);
    }
    teardown(&s);
}

static void
test_view_find(void)
{
    CHECK(view_find("text") == &report_text_view);
    CHECK(view_find("json") == &report_json_view);
    CHECK(view_find("csv") == &report_csv_view);
    CHECK(view_find("xml") == NULL);
    CHECK(view_find(NULL) == NULL);
}

int
main(void)
{
    test_json_validator();
    test_json();
    test_csv();
    test_text();
    test_tick_and_errors();
    test_view_find();
    return t_done();
}
