/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_nfs4.c: raw bytes into the NFSv4 decoder (dissectors/nfs4.h):
 * COMPOUND and CB_COMPOUND calls, their digests, and replies.
 *
 * Input layout:
 *   byte 0   bit 7: reply (else call); bit 6: CB_COMPOUND (else COMPOUND);
 *            bit 5: decode the message from a head and a tail (below);
 *            bit 4: reply without its call's digest (an orphan)
 *   byte 1   tail: the message's last byte-1 bytes are the tail
 *   byte 2   the tail's claimed offset lies byte-2 * 4 bytes past the head's end
 *            (0: head and tail adjoin; else the middle is missing)
 *   call:    the rest is the COMPOUND4args / CB_COMPOUND4args
 *   reply:   bytes 3-4 = n (big endian), then n bytes of call arguments
 *            (decoded first into the digest), then the results
 * Each decode reads through an xdr_cur over a buffer of exactly its length;
 * the decoded structs' invariants are checked (abort on violation). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "nfs4.h"
#include "stats.h"
#include "xdr_cur.h"
#include "xid_table.h"

static struct nfs4_call call;
static struct nfs4_reply reply;
static struct nfs4_digest dig;
static struct pending_call pc; /* the call's: the PUTFH handles kept for its reply */

static const uint8_t *lo1, *hi1, *lo2, *hi2; /* the buffers views may point into */

static void
check_view(struct bytes b)
{
    if (!b.len)
        return;
    if (!((b.p >= lo1 && b.p + b.len <= hi1) || (b.p >= lo2 && b.p + b.len <= hi2)))
        abort(); /* a view outside the decoded bytes */
}

static void
check_rc(enum decode_rc rc)
{
    if (rc != DECODE_OK && rc != DECODE_TRUNCATED && rc != DECODE_INVALID)
        abort();
}

static void
check_kind(const struct nfs4_kind *k, bool cb)
{
    uint8_t i;

    if (k->n > NFS4_KIND_MAX)
        abort();
    for (i = 0; i < k->n; i++)
        if (cb ? !nfs4_cb_op_known(k->op[i]) : !nfs4_op_known(k->op[i]))
            abort();
}

static void keep_putfh(void);

static void
check_call(bool cb)
{
    uint32_t i;

    if (call.ndecoded > NFS4_OPS_MAX || call.ndecoded > call.nops || call.ngen == 0 ||
        call.ngen > NFS4_OPS_MAX + 1 || call.cb != cb)
        abort();
    if (call.stop == NFS4_STOP_BOUND && call.ops_beyond != call.nops - NFS4_OPS_MAX)
        abort();
    if (call.stop == NFS4_STOP_UNKNOWN &&
        (!call.ndecoded || call.op[call.ndecoded - 1].op != call.stop_op))
        abort();
    check_kind(&call.kind, cb);
    check_view(call.tag);
    for (i = 0; i < call.ndecoded; i++) {
        const struct nfs4_argop *a = &call.op[i];
        if (a->fh_gen >= call.ngen || a->saved_gen >= call.ngen || a->fh.len > NFS4_FHSIZE)
            abort();
        check_view(a->fh);
        check_view(a->name);
        check_view(a->name2);
        check_view(a->owner);
        check_view(a->data);
    }
    for (i = 0; i < call.ngen; i++)
        check_view(call.gen[i].fh);
    nfs4_digest_make(&call, &dig);
    if (dig.ndecoded != call.ndecoded)
        abort();
    for (i = 0; i < dig.ndecoded; i++)
        if (nfs4_digest_op(&dig, i) != call.op[i].op)
            abort(); /* the digest lost an op */
    keep_putfh();
}

/* The PUTFH handles kept in a pending call whose own handle is the first
 * PUTFH's and whose names fill as many bytes as the tag is long. */
static void
keep_putfh(void)
{
    uint32_t i, nput = 0, lost;

    memset(&pc, 0, sizeof pc);
    for (i = 0; i < call.ndecoded; i++)
        if (call.op[i].op == OP_PUTFH && call.op[i].fh.len) {
            if (!nput++) {
                memcpy(pc.fh, call.op[i].fh.p, call.op[i].fh.len);
                pc.fh_len = (uint8_t)call.op[i].fh.len;
            }
        }
    pc.name_len = (uint8_t)(call.tag.len < PC_NAME_MAX ? call.tag.len : PC_NAME_MAX);
    lost = nfs4_putfh_keep(&call, &dig, &pc);
    if (lost > nput || (size_t)pc.name_len + dig.fh_pool > PC_NAME_MAX ||
        (nput && !call.cb && !dig.putfh_own))
        abort(); /* more lost than sent, past the names' room, the own handle not found */
}

/* The handles the reply's generations got from the pending call: inside it,
 * and only for generations a PUTFH of the call started. */
static void
restore_putfh(void)
{
    uint8_t g;

    nfs4_putfh_restore(&dig, &pc, &reply);
    for (g = 1; g < reply.ngen; g++) {
        struct bytes fh = reply.gen[g].fh;
        bool in_pc = fh.p >= pc.fh && fh.p + fh.len <= (const uint8_t *)(&pc + 1);

        if (in_pc && (reply.gen[g].set_by >= dig.ndecoded ||
                      nfs4_digest_op(&dig, reply.gen[g].set_by) != OP_PUTFH || !fh.len))
            abort();
        if (!in_pc)
            check_view(fh);
    }
}

static void
check_reply(bool cb)
{
    uint32_t i;

    if (reply.ndecoded > NFS4_OPS_MAX || reply.ndecoded > reply.nres || reply.ngen == 0 ||
        reply.ngen > NFS4_OPS_MAX + 1 || reply.cb != cb)
        abort();
    if (reply.first_error >= (int32_t)reply.ndecoded)
        abort();
    check_view(reply.tag);
    for (i = 0; i < reply.ndecoded; i++) {
        const struct nfs4_resop *r = &reply.res[i];
        if (r->fh_gen >= reply.ngen || r->saved_gen >= reply.ngen || r->fh.len > NFS4_FHSIZE)
            abort();
        if (r->committed != 0xff && r->committed > FILE_SYNC4)
            abort();
        check_view(r->fh);
        check_view(r->data);
        if (!cb && (r->op == OP_LOCK || r->op == OP_LOCKT) && r->status == NFS4ERR_DENIED)
            check_view(r->u.denied.owner); /* a union member: only then */
    }
    for (i = 0; i < reply.ngen; i++)
        check_view(reply.gen[i].fh);
}

/* Decode msg (n bytes) as a call or a reply, whole or as head + tail. */
static void
decode(const uint8_t *ctl, const uint8_t *msg, size_t n, bool is_reply, const struct nfs4_digest *d)
{
    bool cb = ctl[0] & 0x40;
    size_t tlen = (ctl[0] & 0x20) ? ctl[1] : 0;
    uint8_t *head, *tailb = NULL;
    struct nfs4_tail tail;
    struct bytes hb;
    struct xdr_cur x;
    enum decode_rc rc;

    if (tlen > n)
        tlen = n;
    head = malloc(n - tlen ? n - tlen : 1);
    memcpy(head, msg, n - tlen);
    hb.p = head;
    hb.len = n - tlen;
    lo1 = head;
    hi1 = head + hb.len;
    lo2 = hi2 = NULL;
    if (tlen) {
        tailb = malloc(tlen);
        memcpy(tailb, msg + n - tlen, tlen);
        tail.b.p = tailb;
        tail.b.len = tlen;
        tail.off = (uint32_t)(hb.len + 4u * ctl[2]);
        lo2 = tailb;
        hi2 = tailb + tlen;
    }
    xdr_cur_init(&x, hb);
    if (!is_reply) {
        rc = cb ? nfs4_cb_compound_call(&x, &call)
                : nfs4_compound_call(&x, tlen ? &tail : NULL, &call);
        check_rc(rc);
        check_call(cb);
    } else {
        rc = cb ? nfs4_cb_compound_reply(&x, d, &reply)
                : nfs4_compound_reply(&x, tlen ? &tail : NULL, d, &reply);
        check_rc(rc);
        check_reply(cb);
        if (d) { /* what the reply tells the shared layers */
            static struct op_event ev;
            memset(&ev, 0, sizeof ev);
            if (!cb)
                restore_putfh(); /* as nfs4_msg_reply does, before the event */
            if (cb)
                nfs4_cb_event_fill(d, &reply, &ev);
            else
                nfs4_event_fill(d, &reply, &ev);
        }
    }
    free(head);
    free(tailb);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *ctl = data;

    if (size < 3)
        return 0;
    if (!(ctl[0] & 0x80)) {
        decode(ctl, data + 3, size - 3, false, NULL);
        return 0;
    }
    if (size < 5)
        return 0;
    {
        size_t n = (size_t)data[3] << 8 | data[4];
        const uint8_t *args = data + 5;
        size_t alen = size - 5 < n ? size - 5 : n;
        uint8_t c0[3] = { (uint8_t)(ctl[0] & 0x40), 0, 0 }; /* the call whole */

        decode(c0, args, alen, false, NULL);
        decode(ctl, args + alen, size - 5 - alen, true, (ctl[0] & 0x10) ? NULL : &dig);
    }
    return 0;
}
