/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs4_names.c: NFSv4 value-to-name tables (RFC 7530, RFC 8881, RFC 7862,
 * RFC 8276) and the tiers that choose a COMPOUND's main operation. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "nfs4.h"
#include "op_kind.h"
#include "valname.h"

/* nfs_opnum4 (RFC 8881 §16.2.3, RFC 7862 §15.2, RFC 8276 §8.3): name, kind
 * and flags (op_kind.h) of each op, indexed by number; NULL name: a gap.
 * OPF_FH: the op acts on the current (or saved) file handle. */
const struct rpc_op nfs4_op_table[NFS4_OP_LAST + 1] = {
    [OP_ACCESS] = { "access", OPK_ACCESS, OPF_FH },
    [OP_CLOSE] = { "close", OPK_CLOSE, OPF_FH },
    [OP_COMMIT] = { "commit", OPK_COMMIT, OPF_FH | OPF_RANGE },
    [OP_CREATE] = { "create", OPK_CREATE, OPF_FH | OPF_MOD_META },
    [OP_DELEGPURGE] = { "delegpurge", OPK_DELEGATION, 0 },
    [OP_DELEGRETURN] = { "delegreturn", OPK_DELEGATION, OPF_FH },
    [OP_GETATTR] = { "getattr", OPK_GETATTR, OPF_FH },
    [OP_GETFH] = { "getfh", OPK_GETFH, OPF_FH },
    [OP_LINK] = { "link", OPK_LINK, OPF_FH | OPF_MOD_META },
    [OP_LOCK] = { "lock", OPK_LOCK, OPF_FH | OPF_RANGE },
    [OP_LOCKT] = { "lockt", OPK_LOCK_TEST, OPF_FH | OPF_RANGE },
    [OP_LOCKU] = { "locku", OPK_UNLOCK, OPF_FH | OPF_RANGE },
    [OP_LOOKUP] = { "lookup", OPK_LOOKUP, OPF_FH },
    [OP_LOOKUPP] = { "lookupp", OPK_LOOKUP, OPF_FH },
    [OP_NVERIFY] = { "nverify", OPK_OTHER, OPF_FH },
    [OP_OPEN] = { "open", OPK_OPEN, OPF_FH },
    [OP_OPENATTR] = { "openattr", OPK_LOOKUP, OPF_FH },
    [OP_OPEN_CONFIRM] = { "open_confirm", OPK_OPEN, OPF_FH },
    [OP_OPEN_DOWNGRADE] = { "open_downgrade", OPK_OPEN, OPF_FH },
    [OP_PUTFH] = { "putfh", OPK_PUTFH, OPF_FH },
    [OP_PUTPUBFH] = { "putpubfh", OPK_PUTFH, 0 },
    [OP_PUTROOTFH] = { "putrootfh", OPK_PUTFH, 0 },
    [OP_READ] = { "read", OPK_READ, OPF_FH | OPF_RANGE },
    [OP_READDIR] = { "readdir", OPK_READDIR, OPF_FH },
    [OP_READLINK] = { "readlink", OPK_READLINK, OPF_FH },
    [OP_REMOVE] = { "remove", OPK_REMOVE, OPF_FH | OPF_MOD_META },
    [OP_RENAME] = { "rename", OPK_RENAME, OPF_FH | OPF_MOD_META },
    [OP_RENEW] = { "renew", OPK_SESSION, 0 },
    [OP_RESTOREFH] = { "restorefh", OPK_PUTFH, 0 },
    [OP_SAVEFH] = { "savefh", OPK_PUTFH, OPF_FH },
    [OP_SECINFO] = { "secinfo", OPK_OTHER, OPF_FH },
    [OP_SETATTR] = { "setattr", OPK_SETATTR, OPF_FH | OPF_MOD_META },
    [OP_SETCLIENTID] = { "setclientid", OPK_SESSION, 0 },
    [OP_SETCLIENTID_CONFIRM] = { "setclientid_confirm", OPK_SESSION, 0 },
    [OP_VERIFY] = { "verify", OPK_OTHER, OPF_FH },
    [OP_WRITE] = { "write", OPK_WRITE, OPF_FH | OPF_MOD_DATA | OPF_RANGE },
    [OP_RELEASE_LOCKOWNER] = { "release_lockowner", OPK_UNLOCK, 0 },
    [OP_BACKCHANNEL_CTL] = { "backchannel_ctl", OPK_SESSION, 0 },
    [OP_BIND_CONN_TO_SESSION] = { "bind_conn_to_session", OPK_SESSION, 0 },
    [OP_EXCHANGE_ID] = { "exchange_id", OPK_SESSION, 0 },
    [OP_CREATE_SESSION] = { "create_session", OPK_SESSION, 0 },
    [OP_DESTROY_SESSION] = { "destroy_session", OPK_SESSION, 0 },
    [OP_FREE_STATEID] = { "free_stateid", OPK_SESSION, 0 },
    [OP_GET_DIR_DELEGATION] = { "get_dir_delegation", OPK_DELEGATION, OPF_FH },
    [OP_GETDEVICEINFO] = { "getdeviceinfo", OPK_OTHER, 0 },
    [OP_GETDEVICELIST] = { "getdevicelist", OPK_OTHER, OPF_FH },
    [OP_LAYOUTCOMMIT] = { "layoutcommit", OPK_OTHER, OPF_FH | OPF_MOD_META | OPF_RANGE },
    [OP_LAYOUTGET] = { "layoutget", OPK_OTHER, OPF_FH | OPF_RANGE },
    [OP_LAYOUTRETURN] = { "layoutreturn", OPK_OTHER, OPF_FH },
    [OP_SECINFO_NO_NAME] = { "secinfo_no_name", OPK_OTHER, OPF_FH },
    [OP_SEQUENCE] = { "sequence", OPK_SESSION, 0 },
    [OP_SET_SSV] = { "set_ssv", OPK_SESSION, 0 },
    [OP_TEST_STATEID] = { "test_stateid", OPK_SESSION, 0 },
    [OP_WANT_DELEGATION] = { "want_delegation", OPK_DELEGATION, OPF_FH },
    [OP_DESTROY_CLIENTID] = { "destroy_clientid", OPK_SESSION, 0 },
    [OP_RECLAIM_COMPLETE] = { "reclaim_complete", OPK_SESSION, 0 },
    [OP_ALLOCATE] = { "allocate", OPK_OTHER, OPF_FH | OPF_MOD_META | OPF_RANGE },
    [OP_COPY] = { "copy", OPK_OTHER, OPF_FH | OPF_MOD_DATA | OPF_RANGE },
    [OP_COPY_NOTIFY] = { "copy_notify", OPK_OTHER, OPF_FH },
    [OP_DEALLOCATE] = { "deallocate", OPK_OTHER, OPF_FH | OPF_MOD_DATA | OPF_RANGE },
    [OP_IO_ADVISE] = { "io_advise", OPK_OTHER, OPF_FH | OPF_RANGE },
    [OP_LAYOUTERROR] = { "layouterror", OPK_OTHER, OPF_FH | OPF_RANGE },
    [OP_LAYOUTSTATS] = { "layoutstats", OPK_OTHER, OPF_FH | OPF_RANGE },
    [OP_OFFLOAD_CANCEL] = { "offload_cancel", OPK_OTHER, OPF_FH },
    [OP_OFFLOAD_STATUS] = { "offload_status", OPK_OTHER, OPF_FH },
    [OP_READ_PLUS] = { "read_plus", OPK_READ, OPF_FH | OPF_RANGE },
    [OP_SEEK] = { "seek", OPK_OTHER, OPF_FH },
    [OP_WRITE_SAME] = { "write_same", OPK_WRITE, OPF_FH | OPF_MOD_DATA | OPF_RANGE },
    [OP_CLONE] = { "clone", OPK_OTHER, OPF_FH | OPF_MOD_DATA | OPF_RANGE },
    [OP_GETXATTR] = { "getxattr", OPK_OTHER, OPF_FH },
    [OP_SETXATTR] = { "setxattr", OPK_OTHER, OPF_FH | OPF_MOD_META },
    [OP_LISTXATTRS] = { "listxattrs", OPK_OTHER, OPF_FH },
    [OP_REMOVEXATTR] = { "removexattr", OPK_OTHER, OPF_FH | OPF_MOD_META },
};

/* nfs_cb_opnum4 (RFC 8881 §20, RFC 7862 §16): sent by the server. */
const struct rpc_op nfs4_cb_op_table[NFS4_CB_OP_LAST + 1] = {
    [OP_CB_GETATTR] = { "cb_getattr", OPK_GETATTR, OPF_FH | OPF_CALLBACK },
    [OP_CB_RECALL] = { "cb_recall", OPK_DELEGATION, OPF_FH | OPF_CALLBACK },
    [OP_CB_LAYOUTRECALL] = { "cb_layoutrecall", OPK_OTHER, OPF_FH | OPF_RANGE | OPF_CALLBACK },
    [OP_CB_NOTIFY] = { "cb_notify", OPK_OTHER, OPF_FH | OPF_CALLBACK },
    [OP_CB_PUSH_DELEG] = { "cb_push_deleg", OPK_DELEGATION, OPF_FH | OPF_CALLBACK },
    [OP_CB_RECALL_ANY] = { "cb_recall_any", OPK_DELEGATION, OPF_CALLBACK },
    [OP_CB_RECALLABLE_OBJ_AVAIL] = { "cb_recallable_obj_avail", OPK_DELEGATION, OPF_CALLBACK },
    [OP_CB_RECALL_SLOT] = { "cb_recall_slot", OPK_SESSION, OPF_CALLBACK },
    [OP_CB_SEQUENCE] = { "cb_sequence", OPK_SESSION, OPF_CALLBACK },
    [OP_CB_WANTS_CANCELLED] = { "cb_wants_cancelled", OPK_DELEGATION, OPF_CALLBACK },
    [OP_CB_NOTIFY_LOCK] = { "cb_notify_lock", OPK_LOCK_GRANTED, OPF_FH | OPF_CALLBACK },
    [OP_CB_NOTIFY_DEVICEID] = { "cb_notify_deviceid", OPK_OTHER, OPF_CALLBACK },
    [OP_CB_OFFLOAD] = { "cb_offload", OPK_OTHER, OPF_FH | OPF_CALLBACK },
};

/* ILLEGAL and CB_ILLEGAL (10044), outside the tables. */
const struct rpc_op nfs4_illegal_op = { "illegal", OPK_OTHER, 0 };
const struct rpc_op nfs4_cb_illegal_op = { "cb_illegal", OPK_OTHER, OPF_CALLBACK };

const struct rpc_op *
nfs4_op(uint32_t op)
{
    if (op == OP_ILLEGAL)
        return &nfs4_illegal_op;
    return op <= NFS4_OP_LAST && nfs4_op_table[op].name ? &nfs4_op_table[op] : NULL;
}

const struct rpc_op *
nfs4_cb_op(uint32_t op)
{
    if (op == OP_CB_ILLEGAL)
        return &nfs4_cb_illegal_op;
    return op <= NFS4_CB_OP_LAST && nfs4_cb_op_table[op].name ? &nfs4_cb_op_table[op] : NULL;
}

bool
nfs4_op_known(uint32_t op)
{
    return nfs4_op(op) != NULL;
}

bool
nfs4_cb_op_known(uint32_t op)
{
    return nfs4_cb_op(op) != NULL;
}

static const char *
name_or_number(const struct rpc_op *o, uint32_t op, char *buf, size_t size)
{
    if (o)
        return o->name;
    snprintf(buf, size, "op%u", (unsigned)op);
    return buf;
}

const char *
nfs4_op_name(uint32_t op, char *buf, size_t size)
{
    return name_or_number(nfs4_op(op), op, buf, size);
}

const char *
nfs4_cb_op_name(uint32_t op, char *buf, size_t size)
{
    return name_or_number(nfs4_cb_op(op), op, buf, size);
}

static const struct valname status_names[] = { /* nfsstat4 */
    { 0, "NFS4_OK" }, { 1, "NFS4ERR_PERM" }, { 2, "NFS4ERR_NOENT" }, { 5, "NFS4ERR_IO" },
    { 6, "NFS4ERR_NXIO" }, { 13, "NFS4ERR_ACCESS" }, { 17, "NFS4ERR_EXIST" },
    { 18, "NFS4ERR_XDEV" }, { 20, "NFS4ERR_NOTDIR" }, { 21, "NFS4ERR_ISDIR" },
    { 22, "NFS4ERR_INVAL" }, { 27, "NFS4ERR_FBIG" }, { 28, "NFS4ERR_NOSPC" },
    { 30, "NFS4ERR_ROFS" }, { 31, "NFS4ERR_MLINK" }, { 63, "NFS4ERR_NAMETOOLONG" },
    { 66, "NFS4ERR_NOTEMPTY" }, { 69, "NFS4ERR_DQUOT" }, { 70, "NFS4ERR_STALE" },
    { 10001, "NFS4ERR_BADHANDLE" }, { 10003, "NFS4ERR_BAD_COOKIE" },
    { 10004, "NFS4ERR_NOTSUPP" }, { 10005, "NFS4ERR_TOOSMALL" },
    { 10006, "NFS4ERR_SERVERFAULT" }, { 10007, "NFS4ERR_BADTYPE" }, { 10008, "NFS4ERR_DELAY" },
    { 10009, "NFS4ERR_SAME" }, { 10010, "NFS4ERR_DENIED" }, { 10011, "NFS4ERR_EXPIRED" },
    { 10012, "NFS4ERR_LOCKED" }, { 10013, "NFS4ERR_GRACE" }, { 10014, "NFS4ERR_FHEXPIRED" },
    { 10015, "NFS4ERR_SHARE_DENIED" }, { 10016, "NFS4ERR_WRONGSEC" },
    { 10017, "NFS4ERR_CLID_INUSE" }, { 10018, "NFS4ERR_RESOURCE" }, { 10019, "NFS4ERR_MOVED" },
    { 10020, "NFS4ERR_NOFILEHANDLE" }, { 10021, "NFS4ERR_MINOR_VERS_MISMATCH" },
    { 10022, "NFS4ERR_STALE_CLIENTID" }, { 10023, "NFS4ERR_STALE_STATEID" },
    { 10024, "NFS4ERR_OLD_STATEID" }, { 10025, "NFS4ERR_BAD_STATEID" },
    { 10026, "NFS4ERR_BAD_SEQID" }, { 10027, "NFS4ERR_NOT_SAME" },
    { 10028, "NFS4ERR_LOCK_RANGE" }, { 10029, "NFS4ERR_SYMLINK" },
    { 10030, "NFS4ERR_RESTOREFH" }, { 10031, "NFS4ERR_LEASE_MOVED" },
    { 10032, "NFS4ERR_ATTRNOTSUPP" }, { 10033, "NFS4ERR_NO_GRACE" },
    { 10034, "NFS4ERR_RECLAIM_BAD" }, { 10035, "NFS4ERR_RECLAIM_CONFLICT" },
    { 10036, "NFS4ERR_BADXDR" }, { 10037, "NFS4ERR_LOCKS_HELD" }, { 10038, "NFS4ERR_OPENMODE" },
    { 10039, "NFS4ERR_BADOWNER" }, { 10040, "NFS4ERR_BADCHAR" }, { 10041, "NFS4ERR_BADNAME" },
    { 10042, "NFS4ERR_BAD_RANGE" }, { 10043, "NFS4ERR_LOCK_NOTSUPP" },
    { 10044, "NFS4ERR_OP_ILLEGAL" }, { 10045, "NFS4ERR_DEADLOCK" },
    { 10046, "NFS4ERR_FILE_OPEN" }, { 10047, "NFS4ERR_ADMIN_REVOKED" },
    { 10048, "NFS4ERR_CB_PATH_DOWN" },
    /* RFC 8881 §15.1 */
    { 10049, "NFS4ERR_BADIOMODE" }, { 10050, "NFS4ERR_BADLAYOUT" },
    { 10051, "NFS4ERR_BAD_SESSION_DIGEST" }, { 10052, "NFS4ERR_BADSESSION" },
    { 10053, "NFS4ERR_BADSLOT" }, { 10054, "NFS4ERR_COMPLETE_ALREADY" },
    { 10055, "NFS4ERR_CONN_NOT_BOUND_TO_SESSION" }, { 10056, "NFS4ERR_DELEG_ALREADY_WANTED" },
    { 10057, "NFS4ERR_BACK_CHAN_BUSY" }, { 10058, "NFS4ERR_LAYOUTTRYLATER" },
    { 10059, "NFS4ERR_LAYOUTUNAVAILABLE" }, { 10060, "NFS4ERR_NOMATCHING_LAYOUT" },
    { 10061, "NFS4ERR_RECALLCONFLICT" }, { 10062, "NFS4ERR_UNKNOWN_LAYOUTTYPE" },
    { 10063, "NFS4ERR_SEQ_MISORDERED" }, { 10064, "NFS4ERR_SEQUENCE_POS" },
    { 10065, "NFS4ERR_REQ_TOO_BIG" }, { 10066, "NFS4ERR_REP_TOO_BIG" },
    { 10067, "NFS4ERR_REP_TOO_BIG_TO_CACHE" }, { 10068, "NFS4ERR_RETRY_UNCACHED_REP" },
    { 10069, "NFS4ERR_UNSAFE_COMPOUND" }, { 10070, "NFS4ERR_TOO_MANY_OPS" },
    { 10071, "NFS4ERR_OP_NOT_IN_SESSION" }, { 10072, "NFS4ERR_HASH_ALG_UNSUPP" },
    { 10074, "NFS4ERR_CLIENTID_BUSY" }, { 10075, "NFS4ERR_PNFS_IO_HOLE" },
    { 10076, "NFS4ERR_SEQ_FALSE_RETRY" }, { 10077, "NFS4ERR_BAD_HIGH_SLOT" },
    { 10078, "NFS4ERR_DEADSESSION" }, { 10079, "NFS4ERR_ENCR_ALG_UNSUPP" },
    { 10080, "NFS4ERR_PNFS_NO_LAYOUT" }, { 10081, "NFS4ERR_NOT_ONLY_OP" },
    { 10082, "NFS4ERR_WRONG_CRED" }, { 10083, "NFS4ERR_WRONG_TYPE" },
    { 10084, "NFS4ERR_DIRDELEG_UNAVAIL" }, { 10085, "NFS4ERR_REJECT_DELEG" },
    { 10086, "NFS4ERR_RETURNCONFLICT" }, { 10087, "NFS4ERR_DELEG_REVOKED" },
    /* RFC 7862 §11.1 */
    { 10088, "NFS4ERR_PARTNER_NOTSUPP" }, { 10089, "NFS4ERR_PARTNER_NO_AUTH" },
    { 10090, "NFS4ERR_UNION_NOTSUPP" }, { 10091, "NFS4ERR_OFFLOAD_DENIED" },
    { 10092, "NFS4ERR_WRONG_LFS" }, { 10093, "NFS4ERR_BADLABEL" },
    { 10094, "NFS4ERR_OFFLOAD_NO_REQS" },
    /* RFC 8276 §8.2 */
    { 10095, "NFS4ERR_NOXATTR" }, { 10096, "NFS4ERR_XATTR2BIG" }, { 0, NULL },
};

const char *
nfs4_status_name(uint32_t status)
{
    return valname(status_names, status);
}

const char *
nfs4_stable_name(uint32_t stable)
{
    static const char *const n[] = { "UNSTABLE4", "DATA_SYNC4", "FILE_SYNC4" };

    return stable < 3 ? n[stable] : NULL;
}

const char *
nfs4_delegation_name(uint32_t type)
{
    static const char *const n[] = { "OPEN_DELEGATE_NONE", "OPEN_DELEGATE_READ",
                                     "OPEN_DELEGATE_WRITE", "OPEN_DELEGATE_NONE_EXT",
                                     "OPEN_DELEGATE_READ_ATTRS_DELEG",
                                     "OPEN_DELEGATE_WRITE_ATTRS_DELEG" };

    return type < sizeof n / sizeof n[0] ? n[type] : NULL;
}

const char *
nfs4_why_no_delegation_name(uint32_t why)
{
    static const char *const n[] = { /* why_no_delegation4 (RFC 8881 §18.16.3) */
        "WND4_NOT_WANTED", "WND4_CONTENTION", "WND4_RESOURCE", "WND4_NOT_SUPP_FTYPE",
        "WND4_WRITE_DELEG_NOT_SUPP_FTYPE", "WND4_NOT_SUPP_UPGRADE", "WND4_NOT_SUPP_DOWNGRADE",
        "WND4_CANCELLED", "WND4_IS_DIR"
    };

    return why < sizeof n / sizeof n[0] ? n[why] : NULL;
}

/* Wireshark's tiers (epan/dissectors/packet-nfs.c, nfs.main_opcode): a
 * COMPOUND's main operations are its ops of the lowest tier. Derived from
 * tshark 4.0.17 on synthetic COMPOUNDs of every pair of ops (see
 * nfs4_test.c). GET_DIR_DELEGATION, SET_SSV and WANT_DELEGATION, whose
 * arguments that tshark does not decode, are tier 1 like every other
 * op. */
unsigned
nfs4_op_tier(uint32_t op)
{
    switch (op) {
    case OP_ILLEGAL:
        return 0;
    case OP_ACCESS:
    case OP_NVERIFY:
        return 2;
    case OP_GETATTR:
    case OP_PUTPUBFH:
    case OP_PUTROOTFH:
        return 3;
    case OP_GETFH:
    case OP_PUTFH:
    case OP_RESTOREFH:
    case OP_SAVEFH:
    case OP_SEQUENCE:
        return 4;
    default:
        return 1;
    }
}

const char *
nfs4_kind_name(const struct nfs4_kind *k, bool cb, char *buf, size_t size)
{
    size_t used = 0;
    uint8_t i;

    if (!size)
        return "";
    if (k->n == 0) {
        snprintf(buf, size, "none");
        return buf;
    }
    buf[0] = '\0';
    for (i = 0; i < k->n && i < NFS4_KIND_MAX; i++) {
        char nb[16];
        const char *n = cb ? nfs4_cb_op_name(k->op[i], nb, sizeof nb)
                           : nfs4_op_name(k->op[i], nb, sizeof nb);
        int w = snprintf(buf + used, size - used, "%s%s", i ? "+" : "", n);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
    return buf;
}

const char *
nfs4_row_name(const struct rpc_program *pg, uint32_t row)
{
    if (row == 0)
        return pg->ops == nfs4_cb_op_table ? nfs4_cb_illegal_op.name : nfs4_illegal_op.name;
    return row < pg->nops ? pg->ops[row].name : NULL;
}
