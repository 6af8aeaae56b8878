/* SPDX-License-Identifier: BSD-3-Clause */
/* op_emit_test.c: a program whose messages carry several operations (a toy
 * COMPOUND, shaped as NFSv4's: RFC 8881 §16.2) through the matcher, the
 * dissector's op_sink and the consumers: each operation of the call counts
 * as that operation's call and reaches the consumers that take operations
 * as the call is seen, each result reaches them (before its message) with
 * its status and handle, the message
 * row keeps calls, RPC-level errors and latency, and the message's kind is
 * the dissector's main operation, answered or not. */
#include <string.h>

#include <stdlib.h>

#include "config.h"
#include "rpc_match.h"
#include "t.h"
#include "view.h"

/* ---- the toy program: procedures NULL and COMPOUND; operations by number ---- */

enum { TOY_PUTFH = 1, TOY_GETATTR = 2, TOY_READ = 3, TOY_NOPS = 4 };

static const struct rpc_op toy_procs[2] = {
    { "null", OPK_NULL, 0 },
    { "compound", OPK_OTHER, 0 },
};
static const struct rpc_op toy_ops[TOY_NOPS] = {
    { NULL, OPK_OTHER, 0 }, /* 0: not assigned */
    { "putfh", OPK_PUTFH, OPF_FH },
    { "getattr", OPK_GETATTR, OPF_FH },
    { "read", OPK_READ, OPF_FH | OPF_RANGE },
};

#define TOY_MAX 4
struct toy_priv { /* what the reply needs from the call */
    uint8_t n, op[TOY_MAX];
};

static struct toy_priv *
tpriv(struct pending_call *pc)
{
    _Static_assert(sizeof(struct toy_priv) <= PC_PRIV_SIZE, "fits the call's scratch");
    return (struct toy_priv *)pc->priv;
}

static void
emit(const struct op_sink *sub, uint32_t op, uint32_t i, enum op_phase ph, bool st, uint32_t s,
     struct bytes fh)
{
    struct op_item it;

    memset(&it, 0, sizeof it);
    it.op = op;
    it.index = i;
    it.kind = toy_ops[op].kind;
    it.flags = toy_ops[op].flags;
    it.phase = (uint8_t)ph;
    it.has_status = st;
    it.status = s;
    it.fh = fh;
    op_sink_emit(sub, &it);
}

/* args: count, then each op number (PUTFH: an opaque handle after it). The
 * main operation is the last one that is not PUTFH. */
static enum decode_rc
toy_call(struct xdr_cur *x, struct pending_call *pc, const struct op_sink *sub)
{
    struct toy_priv *pv = tpriv(pc);
    uint32_t n, i;

    if (pc->proc == 0)
        return DECODE_OK;
    n = xdr_cur_u32(x);
    for (i = 0; i < n && i < TOY_MAX && xdr_cur_ok(x); i++) {
        uint32_t op = xdr_cur_enum(x, TOY_NOPS - 1);
        struct bytes fh = { NULL, 0 };

        if (op == TOY_PUTFH) {
            xdr_cur_opaque(x, PC_FH_MAX, &fh);
            if (xdr_cur_ok(x)) {
                memcpy(pc->fh, fh.p, fh.len);
                pc->fh_len = (uint8_t)fh.len;
            }
        }
        if (!xdr_cur_ok(x) || op == 0)
            break;
        pv->op[pv->n++] = (uint8_t)op;
        if (op != TOY_PUTFH)
            pc->kind = toy_ops[op].kind;
        emit(sub, op, i, OPI_CALL, false, 0, fh);
    }
    return xdr_cur_status(x);
}

/* results: count, then each (op, status). */
static enum decode_rc
toy_reply(struct xdr_cur *x, const struct pending_call *pc, struct op_event *ev,
          const struct op_sink *sub)
{
    const struct toy_priv *pv = (const struct toy_priv *)pc->priv;
    uint32_t n, i;

    if (pc->proc == 0)
        return DECODE_OK;
    ev->status = xdr_cur_u32(x);
    ev->has_status = xdr_cur_ok(x);
    n = xdr_cur_u32(x);
    for (i = 0; i < n && i < pv->n && xdr_cur_ok(x); i++) {
        uint32_t op = xdr_cur_enum(x, TOY_NOPS - 1), st = xdr_cur_u32(x);
        struct bytes fh = { pc->fh, pc->fh_len };

        if (!xdr_cur_ok(x) || op != pv->op[i])
            break;
        emit(sub, op, i, OPI_RESULT, true, st, fh);
    }
    return xdr_cur_status(x);
}

static const struct rpc_program toy_program = {
    .name = "toy4", .title = "TOY v4", .prog = 400004, .vers = 4,
    .nprocs = 2, .procs = toy_procs, .nops = TOY_NOPS, .ops = toy_ops,
    .call = toy_call, .reply = toy_reply,
};
static const struct rpc_program *const toy_list[] = { &toy_program, NULL };

/* ---- messages ---- */

static size_t
put(uint8_t *b, size_t n, uint32_t v)
{
    b[n] = (uint8_t)(v >> 24);
    b[n + 1] = (uint8_t)(v >> 16);
    b[n + 2] = (uint8_t)(v >> 8);
    b[n + 3] = (uint8_t)v;
    return n + 4;
}

/* RFC 5531 §9 call header, AUTH_NONE. */
static size_t
call_head(uint8_t *b, uint32_t xid, uint32_t proc)
{
    size_t n = 0;

    n = put(b, n, xid);
    n = put(b, n, 0);          /* CALL */
    n = put(b, n, 2);          /* rpcvers */
    n = put(b, n, 400004);     /* prog */
    n = put(b, n, 4);          /* vers */
    n = put(b, n, proc);
    n = put(b, n, 0);          /* cred AUTH_NONE, length 0 */
    n = put(b, n, 0);
    n = put(b, n, 0);          /* verf */
    return put(b, n, 0);
}

static size_t
reply_head(uint8_t *b, uint32_t xid, uint32_t accept_stat)
{
    size_t n = 0;

    n = put(b, n, xid);
    n = put(b, n, 1);          /* REPLY */
    n = put(b, n, 0);          /* MSG_ACCEPTED */
    n = put(b, n, 0);          /* verf AUTH_NONE, length 0 */
    n = put(b, n, 0);
    return put(b, n, accept_stat);
}

static struct rpc_match m;
static struct stats st;
static struct flow fl;

static void
feed(const uint8_t *p, size_t n, unsigned dir, long ms)
{
    struct rpc_msg_view v;

    memset(&v, 0, sizeof v);
    v.head.p = p;
    v.head.len = n;
    v.msg_len = (uint32_t)n;
    v.ts_first.tv_sec = v.ts_last.tv_sec = 100 + ms / 1000;
    v.ts_first.tv_nsec = v.ts_last.tv_nsec = (ms % 1000) * 1000000;
    rpc_match_message(&m, &fl, dir, &v, false);
}

/* ---- what the consumers see ---- */

#define TRACE_MAX 32
static struct seen {
    bool is_op;
    uint8_t phase;
    uint32_t op, index, status, xid;
    bool has_status;
    uint8_t kind, outcome, msg_kind;
    size_t fh_len;
} tr[TRACE_MAX];
static unsigned ntr;

static void
c_msg(void *self, const struct op_event *ev)
{
    (void)self;
    if (ntr < TRACE_MAX) {
        memset(&tr[ntr], 0, sizeof tr[ntr]);
        tr[ntr].xid = ev->xid;
        tr[ntr].outcome = (uint8_t)ev->outcome;
        tr[ntr].msg_kind = ev->kind;
    }
    ntr++;
    stats_record(&st, ev);
}

static void
c_op(void *self, const struct op_event *msg, const struct op_item *op)
{
    (void)self;
    if (ntr < TRACE_MAX) {
        tr[ntr].is_op = true;
        tr[ntr].phase = op->phase;
        tr[ntr].op = op->op;
        tr[ntr].index = op->index;
        tr[ntr].status = op->status;
        tr[ntr].has_status = op->has_status;
        tr[ntr].kind = op->kind;
        tr[ntr].xid = msg->xid;
        tr[ntr].outcome = (uint8_t)msg->outcome;
        tr[ntr].fh_len = op->fh.len;
    }
    ntr++;
    stats_record_op(&st, msg, op);
}

int
main(void)
{
    static struct nfsscope_config cfg;
    struct consumers out;
    uint8_t b[256];
    size_t n;
    const struct prog_stats *ps;

    config_defaults(&cfg);
    EQ(stats_init_programs(&st, toy_list), 0);
    EQ(rpc_match_init(&m, &cfg, &st, 9), 0);
    consumers_init(&out);
    CHECK(consumers_add(&out, "probe", c_msg, c_op, NULL));
    m.out = &out;
    memset(&fl, 0, sizeof fl);
    fl.id = 1;
    fl.key.af = FLOW_AF_INET;
    fl.key.proto = FLOW_PROTO_TCP;
    ps = stats_prog_by_name(&st, "toy4");
    CHECK(ps && ps->ops);
    if (!ps || !ps->ops)
        return t_done();

    /* xid 1: PUTFH(4-byte handle) GETATTR READ; answered: OK, OK, error 5. */
    n = call_head(b, 1, 1);
    n = put(b, n, 3);
    n = put(b, n, TOY_PUTFH);
    n = put(b, n, 4);
    memcpy(b + n, "FH01", 4);
    n += 4;
    n = put(b, n, TOY_GETATTR);
    n = put(b, n, TOY_READ);
    feed(b, n, 0, 0);
    EQ(ps->procs[1].calls, 1);      /* the message row */
    EQ(ps->ops[TOY_PUTFH].calls, 1); /* every operation, at call time */
    EQ(ps->ops[TOY_GETATTR].calls, 1);
    EQ(ps->ops[TOY_READ].calls, 1);
    /* The call's operations reach the consumers that take operations as it
     * is seen, with an event of the call alone. */
    EQ(ntr, 3);
    if (ntr == 3) {
        unsigned i;

        for (i = 0; i < 3; i++) {
            CHECK(tr[i].is_op);
            EQ(tr[i].phase, OPI_CALL);
            EQ(tr[i].index, i);
            EQ(tr[i].xid, 1);
            EQ(tr[i].outcome, OP_NO_REPLY);
        }
        EQ(tr[0].op, TOY_PUTFH);
        EQ(tr[0].fh_len, 4);
        EQ(tr[2].op, TOY_READ);
    }
    EQ(ps->ops[TOY_READ].replies, 0); /* the counters take results only */
    ntr = 0;
    n = reply_head(b, 1, 0);
    n = put(b, n, 5);                /* COMPOUND status: the last result's */
    n = put(b, n, 3);
    n = put(b, n, TOY_PUTFH);
    n = put(b, n, 0);
    n = put(b, n, TOY_GETATTR);
    n = put(b, n, 0);
    n = put(b, n, TOY_READ);
    n = put(b, n, 5);
    feed(b, n, 1, 3);
    EQ(ntr, 4); /* three operations, then their message */
    if (ntr == 4) {
        unsigned i;

        for (i = 0; i < 3; i++) {
            CHECK(tr[i].is_op);
            EQ(tr[i].phase, OPI_RESULT);
            EQ(tr[i].index, i);
            EQ(tr[i].xid, 1);
            EQ(tr[i].outcome, OP_REPLIED);
            CHECK(tr[i].has_status);
            EQ(tr[i].fh_len, 4);
        }
        EQ(tr[0].op, TOY_PUTFH);
        EQ(tr[0].kind, OPK_PUTFH);
        EQ(tr[1].op, TOY_GETATTR);
        EQ(tr[2].op, TOY_READ);
        EQ(tr[2].kind, OPK_READ);
        EQ(tr[2].status, 5);
        CHECK(!tr[3].is_op);
        EQ(tr[3].xid, 1);
        EQ(tr[3].msg_kind, OPK_READ); /* the main operation */
    }
    EQ(ps->procs[1].replies, 1);
    EQ(ps->procs[1].errors, 1);          /* the COMPOUND's own status */
    EQ(ps->procs[1].latency.count, 1);
    EQ(ps->procs[1].latency.max, 3000);  /* microseconds */
    EQ(ps->ops[TOY_GETATTR].replies, 1);
    EQ(ps->ops[TOY_GETATTR].errors, 0);
    EQ(ps->ops[TOY_GETATTR].latency.max, 3000); /* the message's latency */
    EQ(ps->ops[TOY_READ].replies, 1);
    EQ(ps->ops[TOY_READ].errors, 1);
    EQ(ps->ops[TOY_READ].nstatus, 1);
    EQ(ps->ops[TOY_READ].status[0].status, 5);
    EQ(ps->ops[0].calls + ps->ops[0].replies, 0);

    /* xid 2: GETATTR, refused at the RPC level (PROG_UNAVAIL): the message
     * row counts it, no operation has a result. */
    ntr = 0;
    n = call_head(b, 2, 1);
    n = put(b, n, 1);
    n = put(b, n, TOY_GETATTR);
    feed(b, n, 0, 10);
    EQ(ntr, 1); /* its operation, as the call is seen */
    ntr = 0;
    n = reply_head(b, 2, 1);
    feed(b, n, 1, 11);
    EQ(ntr, 1);
    EQ(tr[0].outcome, OP_RPC_ERROR);
    EQ(tr[0].msg_kind, OPK_GETATTR);
    EQ(ps->procs[1].rpc_errors, 1);
    EQ(ps->ops[TOY_GETATTR].calls, 2);
    EQ(ps->ops[TOY_GETATTR].replies, 1);

    /* xid 3: READ, never answered: unanswered at the message row, with the
     * kind the call's decoder gave. */
    ntr = 0;
    n = call_head(b, 3, 1);
    n = put(b, n, 1);
    n = put(b, n, TOY_READ);
    feed(b, n, 0, 20);
    EQ(ntr, 1);
    ntr = 0;
    rpc_match_flush(&m);
    EQ(ntr, 1);
    EQ(tr[0].outcome, OP_NO_REPLY);
    EQ(tr[0].msg_kind, OPK_READ);
    EQ(ps->procs[1].unanswered, 1);
    EQ(ps->ops[TOY_READ].calls, 2);
    EQ(ps->ops[TOY_READ].replies, 1);

    /* NULL: no operations at all. */
    ntr = 0;
    n = call_head(b, 4, 0);
    feed(b, n, 0, 30);
    n = reply_head(b, 4, 0);
    feed(b, n, 1, 31);
    EQ(ntr, 1);
    EQ(tr[0].msg_kind, OPK_NULL);
    EQ(ps->procs[0].replies, 1);
    EQ(st.rpc.calls, 4);

    /* The JSON report: the message rows under "ops", the operations under
     * "operations" (named ones, in operation-number order). */
    {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        struct timespec now = { 0, 0 };

        CHECK(f != NULL);
        if (f) {
            report_json_view.tick(f, &st, NULL, &now);
            fclose(f);
            CHECK(strstr(buf, "\"toy4\":{\"ops\":{\"null\":{\"calls\":1,") != NULL);
            CHECK(strstr(buf, "\"compound\":{\"calls\":3,\"replies\":2,\"errors\":2,") != NULL);
            CHECK(strstr(buf, "\"operations\":{\"putfh\":{\"calls\":1,\"replies\":1,"
                              "\"errors\":0,") != NULL);
            CHECK(strstr(buf, "\"getattr\":{\"calls\":2,\"replies\":1,\"errors\":0,") != NULL);
            CHECK(strstr(buf, "\"read\":{\"calls\":2,\"replies\":1,\"errors\":1,") != NULL);
            free(buf);
        }
    }
    rpc_match_fini(&m);
    stats_fini(&st);
    return t_done();
}
