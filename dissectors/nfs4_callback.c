/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs4_callback.c: the NFSv4 callback program (CB_NULL and CB_COMPOUND,
 * RFC 7530 §16, RFC 8881 §20, RFC 7862 §16) for the RPC layer. Its number is
 * the one a client announces: SETCLIENTID's cb_program (4.0: calls on a
 * connection the server opens to the client), CREATE_SESSION's or
 * BACKCHANNEL_CTL's (4.1: calls from the server on the client's own
 * connection, the back channel); 0x40000000, Linux's and Wireshark's, is
 * registered outright. The decoding is nfs4.c's and nfs4_compound.c's with
 * the callback operation table (nfs4_cb.c). Its report sits inside the
 * nfs4 object (PGF_ANNOUNCED); its calls' client is the NFS client they are
 * sent to, its server the NFS server (PGF_CALLBACK). */
#include "nfs4.h"
#include "xid_table.h"

static const struct rpc_op cb_procs[2] = {
    [NFSPROC4_NULL] = { "null", OPK_NULL, OPF_CALLBACK },         /* CB_NULL */
    [NFSPROC4_COMPOUND] = { "compound", OPK_OTHER, OPF_CALLBACK }, /* CB_COMPOUND */
};

static enum decode_rc
cb_call(struct xdr_cur *x, struct pending_call *pc, const struct op_sink *sub)
{
    return nfs4_msg_call(x, pc, sub, true);
}

static void
cb_unanswered(const struct pending_call *pc, struct op_event *ev)
{
    if (pc->proc == NFSPROC4_COMPOUND)
        nfs4_cb_event_call((const struct nfs4_digest *)pc->priv, ev);
}

static const char *
cb_kind_name(uint32_t key, char *buf, size_t size)
{
    return nfs4_kind_key_name(key, true, buf, size);
}

const struct rpc_program nfs4_callback_program = {
    .name = "nfs4_cb",
    .title = "NFS v4.x callbacks",
    .prog = NFS4_CB_PROGRAM,
    .vers = NFS4_CB_VERSION,
    .nprocs = 2,
    .procs = cb_procs,
    .nops = NFS4_CB_OP_LAST + 1,
    .ops = nfs4_cb_op_table,
    .nminor = 3,
    .flags = PGF_ANNOUNCED | PGF_CALLBACK,
    .kind_name = cb_kind_name,
    .status_name = nfs4_status_name,
    .detail = nfs4_msg_detail,
    .call = cb_call,
    .reply = nfs4_msg_reply,
    .unanswered = cb_unanswered,
};
