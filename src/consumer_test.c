/* SPDX-License-Identifier: BSD-3-Clause */
/* consumer_test.c: the consumer list keeps its order and hands each event to
 * each consumer once; the pipeline's list (pipeline.h) is built in the order
 * it documents, and every finished call the matcher produces (answered,
 * unanswered, orphan reply) reaches each of its consumers exactly once. */
#include "consumer.h"

#include <string.h>

#include "dissector.h"
#include "findings.h"
#include "pipeline.h"
#include "t.h"

/* ---- the list on its own ---- */

#define TRACE_MAX 64
static struct {
    unsigned who;
    const struct op_event *ev;
} trace[TRACE_MAX];
static unsigned ntrace;

static void
log_event(unsigned who, const struct op_event *ev)
{
    if (ntrace < TRACE_MAX) {
        trace[ntrace].who = who;
        trace[ntrace].ev = ev;
    }
    ntrace++;
}

static unsigned ids[CONSUMERS_MAX + 1];

static void
probe(void *self, const struct op_event *ev)
{
    log_event(*(const unsigned *)self, ev);
}

static void
test_list(void)
{
    struct consumers l;
    struct op_event ev[3];
    unsigned i, e;

    consumers_init(&l);
    EQ(l.n, 0);
    consumers_emit(&l, &ev[0]); /* empty: nothing happens */
    EQ(ntrace, 0);
    for (i = 0; i < CONSUMERS_MAX; i++) {
        ids[i] = i;
        CHECK(consumers_add(&l, "probe", probe, NULL, &ids[i]));
    }
    ids[CONSUMERS_MAX] = CONSUMERS_MAX;
    CHECK(!consumers_add(&l, "one too many", probe, NULL, &ids[CONSUMERS_MAX]));
    CHECK(!consumers_add(&l, "no function", NULL, NULL, NULL));
    EQ(l.n, CONSUMERS_MAX);
    for (e = 0; e < 3; e++)
        consumers_emit(&l, &ev[e]);
    EQ(ntrace, 3 * CONSUMERS_MAX);
    for (e = 0; e < 3; e++)
        for (i = 0; i < CONSUMERS_MAX; i++) {
            EQ(trace[e * CONSUMERS_MAX + i].who, i);
            CHECK(trace[e * CONSUMERS_MAX + i].ev == &ev[e]);
        }
}

static void
probe_op(void *self, const struct op_event *msg, const struct op_item *op)
{
    (void)op;
    log_event(*(const unsigned *)self, msg);
}

/* Operations reach the consumers that take them, in list order, each only
 * in the phases it asked for. */
static void
test_op_phases(void)
{
    static const unsigned want[CONSUMER_PHASES][3] = {
        { 0, 3, 9 }, /* OPI_CALL: 0 and 3 (every phase) */
        { 0, 1, 3 }, /* OPI_RESULT: 0, 1, 3 */
        { 0, 2, 3 }, /* OPI_NOT_EVALUATED: 0, 2, 3 */
    };
    unsigned n[CONSUMER_PHASES] = { 2, 3, 3 };
    struct consumers l;
    struct op_event ev;
    struct op_item op;
    unsigned p, i;

    consumers_init(&l);
    for (i = 0; i < 5; i++)
        ids[i] = i;
    CHECK(consumers_add(&l, "all", probe, probe_op, &ids[0]));
    CHECK(consumers_add(&l, "results", probe, probe_op, &ids[1]));
    consumers_op_phases(&l, 1u << OPI_RESULT);
    CHECK(consumers_add(&l, "not evaluated", probe, probe_op, &ids[2]));
    consumers_op_phases(&l, 1u << OPI_NOT_EVALUATED);
    CHECK(consumers_add(&l, "all again", probe, probe_op, &ids[3]));
    CHECK(consumers_add(&l, "messages", probe, NULL, &ids[4]));
    consumers_op_phases(&l, 0); /* takes none already */
    memset(&op, 0, sizeof op);
    for (p = 0; p < CONSUMER_PHASES; p++) {
        ntrace = 0;
        op.phase = (uint8_t)p;
        consumers_emit_op(&l, &ev, &op);
        EQ(ntrace, n[p]);
        for (i = 0; i < n[p]; i++) {
            EQ(trace[i].who, want[p][i]);
            CHECK(trace[i].ev == &ev);
        }
    }
    ntrace = 0;
    consumers_emit(&l, &ev); /* whole messages: every consumer */
    EQ(ntrace, 5);
    ntrace = 0;
}

/* ---- the pipeline's list ---- */

/* NFSv3 GETATTR call, AUTH_NONE (RFC 5531 §9, RFC 1813 §3.3.1). */
#define CALL(x)                                                                                    \
    {                                                                                              \
        0x00, 0x00, 0x00, (x),  /* xid */                                                          \
        0x00, 0x00, 0x00, 0x00, /* msg_type CALL */                                                \
        0x00, 0x00, 0x00, 0x02, /* rpcvers 2 */                                                    \
        0x00, 0x01, 0x86, 0xa3, /* prog 100003 */                                                  \
        0x00, 0x00, 0x00, 0x03, /* vers 3 */                                                       \
        0x00, 0x00, 0x00, 0x01, /* proc GETATTR */                                                 \
        0x00, 0x00, 0x00, 0x00, /* cred AUTH_NONE */                                               \
        0x00, 0x00, 0x00, 0x00, /* cred length 0 */                                                \
        0x00, 0x00, 0x00, 0x00, /* verf AUTH_NONE */                                               \
        0x00, 0x00, 0x00, 0x00, /* verf length 0 */                                                \
        0x00, 0x00, 0x00, 0x04, /* GETATTR3args: fh length 4 */                                    \
        0xaa, 0xbb, 0xcc, 0xdd, /* fh */                                                           \
    }
/* Accepted reply, GETATTR3res status NFS3ERR_STALE (no attributes follow). */
#define REPLY(x)                                                                                   \
    {                                                                                              \
        0x00, 0x00, 0x00, (x),  /* xid */                                                          \
        0x00, 0x00, 0x00, 0x01, /* msg_type REPLY */                                               \
        0x00, 0x00, 0x00, 0x00, /* reply_stat MSG_ACCEPTED */                                      \
        0x00, 0x00, 0x00, 0x00, /* verf AUTH_NONE */                                               \
        0x00, 0x00, 0x00, 0x00, /* verf length 0 */                                                \
        0x00, 0x00, 0x00, 0x00, /* accept_stat SUCCESS */                                          \
        0x00, 0x00, 0x00, 0x46, /* status NFS3ERR_STALE */                                         \
    }

static const uint8_t call1[] = CALL(1), reply1[] = REPLY(1), call2[] = CALL(2),
                     reply9[] = REPLY(9);

static const char *const pipeline_order[] = { "findings", "view_findings", "records", "lockwait",
                                              "stats",    "nfs4_state",    "breakdowns" };
#define NPIPE (sizeof pipeline_order / sizeof *pipeline_order)

static consumer_fn *orig_fn[CONSUMERS_MAX];
static void *orig_self[CONSUMERS_MAX];

/* Log, then do what the pipeline's consumer does. */
static void
wrapped(void *self, const struct op_event *ev)
{
    unsigned i = *(const unsigned *)self;

    log_event(i, ev);
    orig_fn[i](orig_self[i], ev);
}

static void
feed(struct nfsscope_ctx *ctx, struct flow *f, unsigned dir, const uint8_t *p, size_t n, long ms)
{
    struct rpc_msg_view v;

    memset(&v, 0, sizeof v);
    v.head.p = p;
    v.head.len = n;
    v.msg_len = (uint32_t)n;
    v.ts_first.tv_sec = v.ts_last.tv_sec = 100 + ms / 1000;
    v.ts_first.tv_nsec = v.ts_last.tv_nsec = (ms % 1000) * 1000000;
    rpc_match_message(&ctx->match, f, dir, &v, false);
}

static void
test_pipeline(void)
{
    static struct nfsscope_config cfg;
    static struct nfsscope_ctx ctx;
    struct flow f;
    unsigned i, e;

    config_defaults(&cfg);
    cfg.hash_seed = 7;
    EQ(pipeline_init(&ctx, &cfg), 0);
    EQ(ctx.out.n, NPIPE);
    for (i = 0; i < ctx.out.n && i < NPIPE; i++) {
        STREQ(ctx.out.c[i].name, pipeline_order[i]);
        orig_fn[i] = ctx.out.c[i].fn;
        orig_self[i] = ctx.out.c[i].self;
        ids[i] = i;
        ctx.out.c[i].fn = wrapped;
        ctx.out.c[i].self = &ids[i];
    }
    CHECK(ctx.match.out == &ctx.out);
    memset(&f, 0, sizeof f);
    f.id = 1;
    f.key.af = FLOW_AF_INET;
    f.key.proto = FLOW_PROTO_TCP;
    ntrace = 0;
    feed(&ctx, &f, 0, call1, sizeof call1, 0);    /* answered below */
    feed(&ctx, &f, 1, reply1, sizeof reply1, 2);  /* event 1: replied */
    feed(&ctx, &f, 0, call2, sizeof call2, 3);    /* never answered */
    feed(&ctx, &f, 1, reply9, sizeof reply9, 4);  /* event 2: an orphan reply */
    EQ(ntrace, 2 * NPIPE);
    pipeline_finish(&ctx);                        /* event 3: call 2, unanswered */
    EQ(ntrace, 3 * NPIPE);
    for (e = 0; e < 3 && ntrace <= TRACE_MAX; e++)
        for (i = 0; i < NPIPE; i++) {
            EQ(trace[e * NPIPE + i].who, i); /* every consumer, in order, once */
            CHECK(trace[e * NPIPE + i].ev == trace[e * NPIPE].ev); /* the same event */
        }
    /* The consumers did their work: the counters and the findings saw them. */
    EQ(ctx.stats.rpc.calls, 2);
    EQ(ctx.stats.rpc.replies, 1);
    EQ(ctx.stats.rpc.orphan_replies, 1);
    EQ(ctx.stats.rpc.unanswered_calls, 1);
    CHECK(ctx.findings != NULL);
    EQ(ctx.findings->nfs3_calls, 2);
    EQ(ctx.stats.bd[BD_CLIENT].count, 1); /* one client: rows are slots in call order */
    EQ(ctx.stats.bd[BD_CLIENT].rows[0].replies, 1);
    EQ(ctx.stats.bd[BD_CLIENT].rows[0].unanswered, 1);
    pipeline_fini(&ctx);
}

int
main(void)
{
    test_list();
    test_op_phases();
    test_pipeline();
    return t_done();
}
