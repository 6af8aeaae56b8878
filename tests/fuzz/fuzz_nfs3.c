/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_nfs3.c: raw bytes into each program's call and reply decoders.
 *
 * Input layout:
 *   byte 0   program: the registered program whose number's low byte this is
 *            (0xa3 = NFS 100003, 0xa5 = MOUNT 100005, 0xb5 = NLM 100021) and
 *            whose version is byte 1; if none, rpc_programs[byte 0 % n]
 *   byte 1   version (see byte 0)
 *   byte 2   bit 7: reply (else call); bit 6: pass an op_sink to the reply
 *            decoder (rpc_match passes NULL); bits 0-5: procedure % nprocs
 *   call:    the rest is the call arguments
 *   reply:   bytes 3-4 = n (big endian), then n bytes of call arguments
 *            (decoded first, as rpc_match does, to fill the pending call's
 *            scratch), then the reply results
 * Each decoder reads through an xdr_cur over a buffer of exactly the given
 * length. Invariants of the dissector contract are checked (abort on
 * violation). The stats are left to fuzz_stream and fuzz_pcap, which send
 * dissector output of arbitrary bytes through them: stats_init() per input
 * (a ~200 KiB allocation) would cut this target's speed twentyfold. */
#include <stdlib.h>
#include <string.h>

#include "dissector.h"
#include "fuzz.h"
#include "stats.h" /* struct op_event */
#include "xdr_cur.h"
#include "xid_table.h"

static const struct rpc_program *
pick_program(uint8_t lo, uint8_t vers)
{
    size_t i, n = 0;

    for (i = 0; rpc_programs[i]; i++, n++)
        if ((rpc_programs[i]->prog & 0xff) == lo && rpc_programs[i]->vers == vers)
            return rpc_programs[i];
    return n ? rpc_programs[lo % n] : NULL;
}

struct sub_ctx {
    const struct rpc_program *pg;
    unsigned n;
    enum op_phase phase; /* the phase the decoder is in: OPI_CALL or OPI_RESULT */
    bool not_evaluated;  /* the reply has emitted an OPI_NOT_EVALUATED operation */
};

/* A call emits OPI_CALL operations; a reply OPI_RESULT ones, then, for
 * the call's operations after the last result, OPI_NOT_EVALUATED ones with
 * no status (dissector.h, RFC 8881 §16.2.3). */
static void
sub_emit(void *ctx, const struct op_item *op)
{
    struct sub_ctx *c = ctx;
    bool phase_ok = op->phase == c->phase ||
                    (c->phase == OPI_RESULT && op->phase == OPI_NOT_EVALUATED);

    if (!c->pg->ops || op->op >= c->pg->nops || !phase_ok || op->kind >= OPK__COUNT)
        abort(); /* an operation outside its program's table, or in the wrong phase */
    if (op->phase == OPI_NOT_EVALUATED) {
        if (op->has_status)
            abort(); /* an operation not evaluated has no status */
        c->not_evaluated = true;
    } else if (op->phase == OPI_RESULT && c->not_evaluated) {
        abort(); /* a result after an operation not evaluated */
    }
    c->n++;
}

static void
check_rc(enum decode_rc rc)
{
    if (rc != DECODE_OK && rc != DECODE_TRUNCATED && rc != DECODE_INVALID &&
        rc != DECODE_UNSUPPORTED)
        abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct rpc_program *pg;
    struct pending_call pc;
    struct op_event ev;
    struct xdr_cur x;
    struct sub_ctx sc = { NULL, 0, OPI_CALL, false };
    struct op_sink csink = { sub_emit, &sc, NULL, NULL };
    struct bytes args, res = { NULL, 0 };
    enum decode_rc rc;
    bool reply;
    uint8_t ctl;

    if (size < 3)
        return 0;
    pg = pick_program(data[0], data[1]);
    if (!pg || pg->nprocs == 0)
        return 0;
    sc.pg = pg;
    ctl = data[2];
    reply = ctl & 0x80;
    args.p = data + 3;
    args.len = size - 3;
    if (reply) {
        size_t n;
        if (size < 5)
            return 0;
        n = (size_t)data[3] << 8 | data[4];
        args.p = data + 5;
        args.len = size - 5 < n ? size - 5 : n;
        res.p = args.p + args.len;
        res.len = size - 5 - args.len;
    }

    /* As rpc_match's handle_call sets it up. */
    memset(&pc, 0, sizeof pc);
    pc.flow_id = 1;
    pc.xid = 0x12345678;
    pc.prog = pg->prog;
    pc.vers = pg->vers;
    pc.proc = (ctl & 0x3f) % pg->nprocs;
    pc.pg = pg;
    pc.t_call.tv_sec = 1700000000;
    pc.call_len = (uint32_t)args.len + 40;
    pc.uid = pc.gid = UINT32_MAX;
    pc.stable = STABLE_NONE;
    pc.state = PC_PENDING;
    if (pg->call) {
        xdr_cur_init(&x, args);
        rc = pg->call(&x, &pc, ctl & 0x40 ? &csink : NULL);
        check_rc(rc);
        if (rc == DECODE_TRUNCATED)
            pc.partial = 1;
        if (pc.stable != STABLE_NONE && pc.stable > STABLE_FILE_SYNC)
            abort(); /* stable_how out of range reached the stats */
    }

    if (reply && pg->reply) {
        struct op_sink sink = { sub_emit, &sc, NULL, NULL };

        memset(&ev, 0, sizeof ev);
        ev.stable = pc.stable;
        ev.committed = STABLE_NONE;
        ev.pg = pg;
        ev.prog = pc.prog;
        ev.vers = pc.vers;
        ev.proc = pc.proc;
        ev.t_call = pc.t_call;
        ev.t_reply = pc.t_call;
        ev.t_reply.tv_nsec = 1000;
        ev.call_len = pc.call_len;
        ev.reply_len = (uint32_t)res.len + 24;
        ev.write_bytes = pc.write_count;
        ev.outcome = OP_REPLIED;
        ev.partial = pc.partial;
        xdr_cur_init(&x, res);
        sc.phase = OPI_RESULT;
        rc = pg->reply(&x, &pc, &ev, ctl & 0x40 ? &sink : NULL);
        check_rc(rc);
        if (rc == DECODE_TRUNCATED)
            ev.partial = true;
        if (ev.pg != pg || ev.proc != pc.proc)
            abort(); /* the decoder rewrote the operation's identity */
        if (ev.committed != STABLE_NONE && ev.committed > STABLE_FILE_SYNC)
            abort();
        if (ev.proc >= pg->nprocs)
            abort();
    }
    return 0;
}
