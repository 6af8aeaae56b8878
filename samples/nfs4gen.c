/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4gen: a small NFSv4.0 client that drives a real server with exactly the
 * COMPOUNDs a workload asks for and records what it sent and got back.
 *
 * Built and run by samples/generate; not part of nfsscope itself.
 *
 * It uses libnfs's raw NFSv4 API (nfsc/libnfs-raw-nfs4.h, the XDR of RFC
 * 7530; rpc_nfs4_compound_async, rpc_nfs4_null_async) on a connection opened
 * with rpc_connect_async(), which sends no RPC of its own, so every RPC on
 * the wire is one this program queued and counted. For each COMPOUND it
 * records the operations it sent and, from the reply, each result and its
 * status and the operations the server did not evaluate after a failure
 * (RFC 7530 section 15.2), WRITE stable_how4 and committed, READ/WRITE
 * bytes, the names answered NFS4ERR_NOENT, OPEN results by delegation type,
 * COMPOUND calls by their list of operations. The record is written as JSON (--expect FILE), in the shape
 * samples/pynfsgen writes for NFSv4.1/4.2.
 *
 *   nfs4gen --workload v40-ops --server ADDR --export NAME --name SAMPLE
 *           --expect FILE
 *
 * Build: gcc -std=gnu11 -O2 -Wall -o nfs4gen nfs4gen.c -lnfs
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-nfs4.h>

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "nfs4gen: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

/* ------------------------------------------------------------------ */
/* Names: nfs_opnum4 and nfsstat4 of RFC 7530 sections 16 and 13        */

#define OP_SLOTS 41 /* 0..39, and ILLEGAL in slot 40 */
static const char *const op_names[40] = {
    [3] = "ACCESS", [4] = "CLOSE", [5] = "COMMIT", [6] = "CREATE",
    [7] = "DELEGPURGE", [8] = "DELEGRETURN", [9] = "GETATTR", [10] = "GETFH",
    [11] = "LINK", [12] = "LOCK", [13] = "LOCKT", [14] = "LOCKU",
    [15] = "LOOKUP", [16] = "LOOKUPP", [17] = "NVERIFY", [18] = "OPEN",
    [19] = "OPENATTR", [20] = "OPEN_CONFIRM", [21] = "OPEN_DOWNGRADE",
    [22] = "PUTFH", [23] = "PUTPUBFH", [24] = "PUTROOTFH", [25] = "READ",
    [26] = "READDIR", [27] = "READLINK", [28] = "REMOVE", [29] = "RENAME",
    [30] = "RENEW", [31] = "RESTOREFH", [32] = "SAVEFH", [33] = "SECINFO",
    [34] = "SETATTR", [35] = "SETCLIENTID", [36] = "SETCLIENTID_CONFIRM",
    [37] = "VERIFY", [38] = "WRITE", [39] = "RELEASE_LOCKOWNER"};

static int op_slot(int op)
{
    if (op == OP_ILLEGAL)
        return 40;
    if (op < 0 || op >= 40 || !op_names[op])
        die("operation %d is not NFSv4.0", op);
    return op;
}
static const char *op_name(int slot) { return slot == 40 ? "ILLEGAL" : op_names[slot]; }

struct statname {
    int code;
    const char *name;
};
static const struct statname status_names[] = {
    {0, "NFS4_OK"}, {1, "NFS4ERR_PERM"}, {2, "NFS4ERR_NOENT"}, {5, "NFS4ERR_IO"},
    {6, "NFS4ERR_NXIO"}, {13, "NFS4ERR_ACCESS"}, {17, "NFS4ERR_EXIST"}, {18, "NFS4ERR_XDEV"},
    {20, "NFS4ERR_NOTDIR"}, {21, "NFS4ERR_ISDIR"}, {22, "NFS4ERR_INVAL"}, {27, "NFS4ERR_FBIG"},
    {28, "NFS4ERR_NOSPC"}, {30, "NFS4ERR_ROFS"}, {31, "NFS4ERR_MLINK"},
    {63, "NFS4ERR_NAMETOOLONG"}, {66, "NFS4ERR_NOTEMPTY"}, {69, "NFS4ERR_DQUOT"},
    {70, "NFS4ERR_STALE"}, {10001, "NFS4ERR_BADHANDLE"}, {10003, "NFS4ERR_BAD_COOKIE"},
    {10004, "NFS4ERR_NOTSUPP"}, {10005, "NFS4ERR_TOOSMALL"}, {10006, "NFS4ERR_SERVERFAULT"},
    {10007, "NFS4ERR_BADTYPE"}, {10008, "NFS4ERR_DELAY"}, {10009, "NFS4ERR_SAME"},
    {10010, "NFS4ERR_DENIED"}, {10011, "NFS4ERR_EXPIRED"}, {10012, "NFS4ERR_LOCKED"},
    {10013, "NFS4ERR_GRACE"}, {10014, "NFS4ERR_FHEXPIRED"}, {10015, "NFS4ERR_SHARE_DENIED"},
    {10016, "NFS4ERR_WRONGSEC"}, {10017, "NFS4ERR_CLID_INUSE"}, {10018, "NFS4ERR_RESOURCE"},
    {10019, "NFS4ERR_MOVED"}, {10020, "NFS4ERR_NOFILEHANDLE"},
    {10021, "NFS4ERR_MINOR_VERS_MISMATCH"}, {10022, "NFS4ERR_STALE_CLIENTID"},
    {10023, "NFS4ERR_STALE_STATEID"}, {10024, "NFS4ERR_OLD_STATEID"},
    {10025, "NFS4ERR_BAD_STATEID"}, {10026, "NFS4ERR_BAD_SEQID"}, {10027, "NFS4ERR_NOT_SAME"},
    {10028, "NFS4ERR_LOCK_RANGE"}, {10029, "NFS4ERR_SYMLINK"}, {10030, "NFS4ERR_RESTOREFH"},
    {10031, "NFS4ERR_LEASE_MOVED"}, {10032, "NFS4ERR_ATTRNOTSUPP"}, {10033, "NFS4ERR_NO_GRACE"},
    {10034, "NFS4ERR_RECLAIM_BAD"}, {10035, "NFS4ERR_RECLAIM_CONFLICT"},
    {10036, "NFS4ERR_BADXDR"}, {10037, "NFS4ERR_LOCKS_HELD"}, {10038, "NFS4ERR_OPENMODE"},
    {10039, "NFS4ERR_BADOWNER"}, {10040, "NFS4ERR_BADCHAR"}, {10041, "NFS4ERR_BADNAME"},
    {10042, "NFS4ERR_BAD_RANGE"}, {10043, "NFS4ERR_LOCK_NOTSUPP"},
    {10044, "NFS4ERR_OP_ILLEGAL"}, {10045, "NFS4ERR_DEADLOCK"}, {10046, "NFS4ERR_FILE_OPEN"},
    {10047, "NFS4ERR_ADMIN_REVOKED"}, {10048, "NFS4ERR_CB_PATH_DOWN"},
};

static const char *status_name(int code)
{
    static char buf[8][24];
    static int k;
    for (size_t i = 0; i < sizeof status_names / sizeof status_names[0]; i++)
        if (status_names[i].code == code)
            return status_names[i].name;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "NFS4ERR_%d", code);
    return buf[k];
}

static const char *const stable_names[3] = {"UNSTABLE4", "DATA_SYNC4", "FILE_SYNC4"};

/* ------------------------------------------------------------------ */
/* The record                                                           */

#define MAX_STATUS 8
struct opcount {
    uint64_t count, in_replies, not_evaluated;
    int nstatus;
    int code[MAX_STATUS];
    uint64_t n[MAX_STATUS];
};
static struct {
    uint64_t null_calls, null_replies;
    uint64_t calls, replies;
    int nstatus;
    int code[MAX_STATUS];
    uint64_t n[MAX_STATUS];
    struct opcount ops[OP_SLOTS];
    uint64_t stable[3], committed[3];
    uint64_t write_bytes, read_bytes;
    uint64_t deleg[3]; /* OPEN results by open_delegation_type4 */
    int nshape; /* COMPOUND calls by their list of operations */
    struct {
        char ops[160];
        uint64_t n;
    } shape[32];
    int nnoent; /* the names answered NFS4ERR_NOENT, per operation */
    struct {
        int slot;
        char name[64];
        uint64_t n;
    } noent[16];
} R;

static void bump_noent(int slot, const char *name)
{
    for (int i = 0; i < R.nnoent; i++)
        if (R.noent[i].slot == slot && !strcmp(R.noent[i].name, name)) {
            R.noent[i].n++;
            return;
        }
    if (R.nnoent == 16)
        die("more than 16 names answered NFS4ERR_NOENT");
    R.noent[R.nnoent].slot = slot;
    snprintf(R.noent[R.nnoent].name, sizeof R.noent[R.nnoent].name, "%s", name);
    R.noent[R.nnoent++].n = 1;
}

static void bump_status(int *nstatus, int *code, uint64_t *n, int c)
{
    for (int i = 0; i < *nstatus; i++)
        if (code[i] == c) {
            n[i]++;
            return;
        }
    if (*nstatus == MAX_STATUS)
        die("more than %d distinct statuses", MAX_STATUS);
    code[*nstatus] = c;
    n[(*nstatus)++] = 1;
}

/* ------------------------------------------------------------------ */
/* Connection and event loop                                            */

static struct rpc_context *rpc;
static int connected, inflight;

static void connect_cb(struct rpc_context *r, int status, void *data, void *priv)
{
    (void)r, (void)priv;
    if (status != RPC_STATUS_SUCCESS)
        die("connect failed: %s", data ? (char *)data : "?");
    connected = 1;
}

static void service_once(int timeout_ms)
{
    struct pollfd pfd = {.fd = rpc_get_fd(rpc), .events = (short)rpc_which_events(rpc)};
    int n = poll(&pfd, 1, timeout_ms);
    if (n < 0 && errno != EINTR)
        die("poll: %s", strerror(errno));
    if (rpc_service(rpc, n > 0 ? pfd.revents : 0) < 0)
        die("rpc_service: %s", rpc_get_error(rpc));
}

static void drain(void)
{
    time_t start = time(NULL);
    while (inflight > 0) {
        service_once(100);
        if (time(NULL) - start > 60)
            die("timeout waiting for %d replies", inflight);
    }
}

/* ------------------------------------------------------------------ */
/* COMPOUNDs                                                            */

#define MAX_OPS 8
struct fh {
    u_int len;
    char val[NFS4_FHSIZE];
};

/* What a COMPOUND's reply left for the workload. */
struct result {
    int status;
    struct fh fh;          /* the last GETFH */
    stateid4 stateid;      /* OPEN, OPEN_CONFIRM, CLOSE */
    uint32_t rflags;       /* OPEN */
    clientid4 clientid;    /* SETCLIENTID */
    verifier4 confirm;     /* SETCLIENTID */
};

struct call {
    const char *what;
    int nops;
    int op[MAX_OPS];
    char name[MAX_OPS][64]; /* the name a LOOKUP, OPEN by name or REMOVE acts on */
    int want; /* the COMPOUND status the workload expects */
    struct result *out;
};

/* Each nfs_resop4 arm is a struct that starts with its nfsstat4 (RFC 7530
 * section 16: every result begins with the status), so the status of any
 * result is the first member of the union. */
static int result_status(const nfs_resop4 *r)
{
    nfsstat4 st;
    memcpy(&st, &r->nfs_resop4_u, sizeof st);
    return (int)st;
}

static void compound_cb(struct rpc_context *r, int status, void *data, void *priv)
{
    struct call *c = priv;
    (void)r;
    inflight--;
    if (status != RPC_STATUS_SUCCESS)
        die("%s: RPC failed: %s", c->what, status == RPC_STATUS_ERROR && data ? (char *)data : "?");
    COMPOUND4res *res = data;
    R.replies++;
    bump_status(&R.nstatus, R.code, R.n, (int)res->status);
    u_int n = res->resarray.resarray_len;
    if (n > (u_int)c->nops)
        die("%s: %u results for %d operations", c->what, n, c->nops);
    for (u_int i = 0; i < n; i++) {
        nfs_resop4 *ro = &res->resarray.resarray_val[i];
        if ((int)ro->resop != c->op[i])
            die("%s: result %u is operation %d, the call's is %d", c->what, i, ro->resop, c->op[i]);
        struct opcount *o = &R.ops[op_slot((int)ro->resop)];
        int st = result_status(ro);
        o->in_replies++;
        bump_status(&o->nstatus, o->code, o->n, st);
        if (st == NFS4ERR_NOENT && c->name[i][0])
            bump_noent(op_slot((int)ro->resop), c->name[i]);
        if (st != NFS4_OK)
            continue;
        switch (ro->resop) {
        case OP_WRITE: {
            stable_how4 cm = ro->nfs_resop4_u.opwrite.WRITE4res_u.resok4.committed;
            if ((unsigned)cm > 2)
                die("%s: committed %d", c->what, cm);
            R.committed[cm]++;
            break;
        }
        case OP_READ:
            R.read_bytes += ro->nfs_resop4_u.opread.READ4res_u.resok4.data.data_len;
            break;
        case OP_GETFH:
            if (c->out) {
                nfs_fh4 *f = &ro->nfs_resop4_u.opgetfh.GETFH4res_u.resok4.object;
                if (f->nfs_fh4_len > NFS4_FHSIZE)
                    die("%s: file handle of %u bytes", c->what, f->nfs_fh4_len);
                c->out->fh.len = f->nfs_fh4_len;
                memcpy(c->out->fh.val, f->nfs_fh4_val, f->nfs_fh4_len);
            }
            break;
        case OP_OPEN: {
            open_delegation_type4 dt =
                ro->nfs_resop4_u.opopen.OPEN4res_u.resok4.delegation.delegation_type;
            if ((unsigned)dt > 2)
                die("%s: delegation type %d", c->what, dt);
            R.deleg[dt]++;
            if (c->out) {
                c->out->stateid = ro->nfs_resop4_u.opopen.OPEN4res_u.resok4.stateid;
                c->out->rflags = ro->nfs_resop4_u.opopen.OPEN4res_u.resok4.rflags;
            }
            break;
        }
        case OP_OPEN_CONFIRM:
            if (c->out)
                c->out->stateid = ro->nfs_resop4_u.opopen_confirm.OPEN_CONFIRM4res_u.resok4.open_stateid;
            break;
        case OP_SETCLIENTID:
            if (c->out) {
                SETCLIENTID4resok *ok = &ro->nfs_resop4_u.opsetclientid.SETCLIENTID4res_u.resok4;
                c->out->clientid = ok->clientid;
                memcpy(c->out->confirm, ok->setclientid_confirm, sizeof c->out->confirm);
            }
            break;
        default:
            break;
        }
    }
    for (int i = (int)n; i < c->nops; i++)
        R.ops[op_slot(c->op[i])].not_evaluated++;
    if (c->out)
        c->out->status = (int)res->status;
    if ((int)res->status != c->want)
        die("%s: got %s, expected %s", c->what, status_name((int)res->status),
            status_name(c->want));
    free(c);
}

/* Queue a COMPOUND (tag "nfs4gen", minor version 0) without waiting. */
static void compound_async(const char *what, nfs_argop4 *ops, int nops, int want,
                           struct result *out)
{
    struct call *c = calloc(1, sizeof *c);
    if (!c || nops > MAX_OPS)
        die("compound_async");
    c->what = what;
    c->nops = nops;
    c->want = want;
    c->out = out;
    COMPOUND4args args;
    memset(&args, 0, sizeof args);
    args.tag.utf8string_val = "nfs4gen";
    args.tag.utf8string_len = 7;
    args.minorversion = 0;
    args.argarray.argarray_len = (u_int)nops;
    args.argarray.argarray_val = ops;
    R.calls++;
    for (int i = 0; i < nops; i++) {
        c->op[i] = (int)ops[i].argop;
        R.ops[op_slot(c->op[i])].count++;
        const utf8string *nm = NULL;
        if (ops[i].argop == OP_LOOKUP)
            nm = &ops[i].nfs_argop4_u.oplookup.objname;
        else if (ops[i].argop == OP_REMOVE)
            nm = &ops[i].nfs_argop4_u.opremove.target;
        else if (ops[i].argop == OP_OPEN && ops[i].nfs_argop4_u.opopen.claim.claim == CLAIM_NULL)
            nm = &ops[i].nfs_argop4_u.opopen.claim.open_claim4_u.file;
        if (nm)
            snprintf(c->name[i], sizeof c->name[i], "%.*s", (int)nm->utf8string_len,
                     nm->utf8string_val);
        if (ops[i].argop == OP_WRITE) {
            WRITE4args *w = &ops[i].nfs_argop4_u.opwrite;
            R.stable[w->stable]++;
            R.write_bytes += w->data.data_len;
        }
    }
    char shape[160];
    size_t k = 0;
    for (int i = 0; i < nops; i++)
        k += (size_t)snprintf(shape + k, sizeof shape - k, "%s%s", i ? " " : "",
                              op_name(op_slot(c->op[i])));
    int j = 0;
    while (j < R.nshape && strcmp(R.shape[j].ops, shape) != 0)
        j++;
    if (j == R.nshape) {
        if (R.nshape == 32)
            die("more than 32 COMPOUND shapes");
        snprintf(R.shape[R.nshape++].ops, sizeof R.shape[0].ops, "%s", shape);
    }
    R.shape[j].n++;
    if (rpc_nfs4_compound_async(rpc, compound_cb, &args, c) != 0)
        die("%s: queueing failed: %s", what, rpc_get_error(rpc));
    inflight++;
}

static struct result compound(const char *what, nfs_argop4 *ops, int nops, int want)
{
    struct result out;
    memset(&out, 0, sizeof out);
    compound_async(what, ops, nops, want, &out);
    drain();
    return out;
}

static void null_cb(struct rpc_context *r, int status, void *data, void *priv)
{
    (void)r, (void)data, (void)priv;
    inflight--;
    if (status != RPC_STATUS_SUCCESS)
        die("NULL failed");
    R.null_replies++;
}

/* ------------------------------------------------------------------ */
/* Operation builders (arguments live in the caller's arrays)           */

static uint32_t attr_words[2];
static bitmap4 attrs(void)
{
    /* type, change, size (word 0: bits 1, 3, 4), fileid (20); mode (33),
     * time_modify (53) in word 1 */
    attr_words[0] = (1u << 1) | (1u << 3) | (1u << 4) | (1u << 20);
    attr_words[1] = (1u << (33 - 32)) | (1u << (53 - 32));
    bitmap4 b = {.bitmap4_len = 2, .bitmap4_val = attr_words};
    return b;
}

static nfs_argop4 op_putrootfh(void) { nfs_argop4 a = {.argop = OP_PUTROOTFH}; return a; }
static nfs_argop4 op_getfh(void) { nfs_argop4 a = {.argop = OP_GETFH}; return a; }
static nfs_argop4 op_savefh(void) { nfs_argop4 a = {.argop = OP_SAVEFH}; return a; }
static nfs_argop4 op_getattr(void)
{
    nfs_argop4 a = {.argop = OP_GETATTR};
    a.nfs_argop4_u.opgetattr.attr_request = attrs();
    return a;
}
static nfs_argop4 op_putfh(struct fh *f)
{
    nfs_argop4 a = {.argop = OP_PUTFH};
    a.nfs_argop4_u.opputfh.object.nfs_fh4_len = f->len;
    a.nfs_argop4_u.opputfh.object.nfs_fh4_val = f->val;
    return a;
}
static nfs_argop4 op_lookup(const char *name)
{
    nfs_argop4 a = {.argop = OP_LOOKUP};
    a.nfs_argop4_u.oplookup.objname.utf8string_val = (char *)name;
    a.nfs_argop4_u.oplookup.objname.utf8string_len = (u_int)strlen(name);
    return a;
}
static nfs_argop4 op_access(uint32_t bits)
{
    nfs_argop4 a = {.argop = OP_ACCESS};
    a.nfs_argop4_u.opaccess.access = bits;
    return a;
}
static nfs_argop4 op_remove(const char *name)
{
    nfs_argop4 a = {.argop = OP_REMOVE};
    a.nfs_argop4_u.opremove.target.utf8string_val = (char *)name;
    a.nfs_argop4_u.opremove.target.utf8string_len = (u_int)strlen(name);
    return a;
}
static nfs_argop4 op_rename(const char *from, const char *to)
{
    nfs_argop4 a = {.argop = OP_RENAME};
    a.nfs_argop4_u.oprename.oldname.utf8string_val = (char *)from;
    a.nfs_argop4_u.oprename.oldname.utf8string_len = (u_int)strlen(from);
    a.nfs_argop4_u.oprename.newname.utf8string_val = (char *)to;
    a.nfs_argop4_u.oprename.newname.utf8string_len = (u_int)strlen(to);
    return a;
}
static nfs_argop4 op_readdir(void)
{
    nfs_argop4 a = {.argop = OP_READDIR};
    a.nfs_argop4_u.opreaddir.dircount = 4096;
    a.nfs_argop4_u.opreaddir.maxcount = 8192;
    a.nfs_argop4_u.opreaddir.attr_request = attrs();
    return a;
}
static nfs_argop4 op_write(stateid4 sid, uint64_t off, stable_how4 how, char *data, u_int len)
{
    nfs_argop4 a = {.argop = OP_WRITE};
    a.nfs_argop4_u.opwrite.stateid = sid;
    a.nfs_argop4_u.opwrite.offset = off;
    a.nfs_argop4_u.opwrite.stable = how;
    a.nfs_argop4_u.opwrite.data.data_len = len;
    a.nfs_argop4_u.opwrite.data.data_val = data;
    return a;
}
static nfs_argop4 op_read(stateid4 sid, uint64_t off, uint32_t count)
{
    nfs_argop4 a = {.argop = OP_READ};
    a.nfs_argop4_u.opread.stateid = sid;
    a.nfs_argop4_u.opread.offset = off;
    a.nfs_argop4_u.opread.count = count;
    return a;
}
static nfs_argop4 op_commit(void) { nfs_argop4 a = {.argop = OP_COMMIT}; return a; }
static nfs_argop4 op_renew(clientid4 id)
{
    nfs_argop4 a = {.argop = OP_RENEW};
    a.nfs_argop4_u.oprenew.clientid = id;
    return a;
}

/* ------------------------------------------------------------------ */
/* The v40-ops workload                                                 */

static const char *server, *export_name, *sample, *expect_path;

static void v40_ops(void)
{
    static char owner_name[] = "nfs4gen-owner";
    static char data[4096];
    clientid4 clid;
    seqid4 seqid = 1; /* the open owner's sequence id (RFC 7530 section 9.1.7) */

    /* NULL, then a client id with a null callback (no callback service) */
    R.null_calls++;
    if (rpc_nfs4_null_async(rpc, null_cb, NULL) != 0)
        die("NULL: %s", rpc_get_error(rpc));
    inflight++;
    drain();
    {
        nfs_argop4 a = {.argop = OP_SETCLIENTID};
        SETCLIENTID4args *s = &a.nfs_argop4_u.opsetclientid;
        memcpy(s->client.verifier, "nfs4gen1", 8);
        s->client.id.id_val = "nfs4gen-v40-ops";
        s->client.id.id_len = (u_int)strlen(s->client.id.id_val);
        s->callback.cb_program = 0;
        s->callback.cb_location.r_netid = "tcp";
        s->callback.cb_location.r_addr = "0.0.0.0.0.0";
        struct result r = compound("SETCLIENTID", &a, 1, NFS4_OK);
        clid = r.clientid;
        nfs_argop4 b = {.argop = OP_SETCLIENTID_CONFIRM};
        b.nfs_argop4_u.opsetclientid_confirm.clientid = clid;
        memcpy(b.nfs_argop4_u.opsetclientid_confirm.setclientid_confirm, r.confirm, 8);
        compound("SETCLIENTID_CONFIRM", &b, 1, NFS4_OK);
    }
    /* the mount walk: the root's attributes, then the export */
    nfs_argop4 ops[MAX_OPS];
    ops[0] = op_putrootfh(), ops[1] = op_getattr();
    compound("PUTROOTFH GETATTR", ops, 2, NFS4_OK);
    ops[0] = op_putrootfh(), ops[1] = op_lookup(export_name), ops[2] = op_getfh(),
    ops[3] = op_getattr();
    struct fh exp = compound("LOOKUP export", ops, 4, NFS4_OK).fh;
    ops[0] = op_putfh(&exp), ops[1] = op_lookup("v4"), ops[2] = op_getfh(), ops[3] = op_getattr();
    struct fh dir = compound("LOOKUP v4", ops, 4, NFS4_OK).fh;
    ops[0] = op_putfh(&dir), ops[1] = op_access(ACCESS4_READ | ACCESS4_LOOKUP | ACCESS4_MODIFY |
                                                ACCESS4_EXTEND | ACCESS4_DELETE);
    compound("ACCESS", ops, 2, NFS4_OK);
    /* a missing name probed three times */
    for (int i = 0; i < 3; i++) {
        ops[0] = op_putfh(&dir), ops[1] = op_lookup("missing.conf"), ops[2] = op_getfh(),
        ops[3] = op_getattr();
        compound("LOOKUP missing.conf", ops, 4, NFS4ERR_NOENT);
    }
    /* OPEN (create) as a new open owner, confirmed (RFC 7530 section 16.18) */
    nfs_argop4 o = {.argop = OP_OPEN};
    {
        OPEN4args *a = &o.nfs_argop4_u.opopen;
        a->seqid = seqid;
        a->share_access = OPEN4_SHARE_ACCESS_BOTH;
        a->share_deny = OPEN4_SHARE_DENY_NONE;
        a->owner.clientid = clid;
        a->owner.owner.owner_val = owner_name;
        a->owner.owner.owner_len = (u_int)strlen(owner_name);
        a->openhow.opentype = OPEN4_CREATE;
        a->openhow.openflag4_u.how.mode = UNCHECKED4;
        a->openhow.openflag4_u.how.createhow4_u.createattrs.attrmask.bitmap4_len = 0;
        a->claim.claim = CLAIM_NULL;
        a->claim.open_claim4_u.file.utf8string_val = "data40.bin";
        a->claim.open_claim4_u.file.utf8string_len = 10;
    }
    ops[0] = op_putfh(&dir), ops[1] = o, ops[2] = op_getfh(), ops[3] = op_getattr();
    struct result op = compound("OPEN data40.bin", ops, 4, NFS4_OK);
    seqid++;
    struct fh file = op.fh;
    stateid4 sid = op.stateid;
    if (op.rflags & OPEN4_RESULT_CONFIRM) {
        nfs_argop4 c = {.argop = OP_OPEN_CONFIRM};
        c.nfs_argop4_u.opopen_confirm.open_stateid = sid;
        c.nfs_argop4_u.opopen_confirm.seqid = seqid++;
        ops[0] = op_putfh(&file), ops[1] = c;
        sid = compound("OPEN_CONFIRM", ops, 2, NFS4_OK).stateid;
    } else {
        die("OPEN of a new open owner asked for no OPEN_CONFIRM");
    }
    /* 4 UNSTABLE4 writes of 2 KiB, COMMIT, then DATA_SYNC4 and FILE_SYNC4
     * (libnfs 4.0 encodes a call into a 4 KiB buffer: WRITE data stays
     * well below that) */
    for (int i = 0; i < 4; i++) {
        memset(data, 'a' + i, sizeof data);
        ops[0] = op_putfh(&file), ops[1] = op_write(sid, (uint64_t)i * 2048, UNSTABLE4, data, 2048);
        compound("WRITE UNSTABLE4", ops, 2, NFS4_OK);
    }
    ops[0] = op_putfh(&file), ops[1] = op_commit();
    compound("COMMIT", ops, 2, NFS4_OK);
    memset(data, 'd', sizeof data);
    ops[0] = op_putfh(&file), ops[1] = op_write(sid, 8192, DATA_SYNC4, data, 1024),
    ops[2] = op_getattr();
    compound("WRITE DATA_SYNC4", ops, 3, NFS4_OK);
    memset(data, 'f', sizeof data);
    ops[0] = op_putfh(&file), ops[1] = op_write(sid, 9216, FILE_SYNC4, data, 1024),
    ops[2] = op_getattr();
    compound("WRITE FILE_SYNC4", ops, 3, NFS4_OK);
    /* 4 READs (the 10 KiB file in 2560-byte pieces) in flight at once, then
     * one past EOF */
    static nfs_argop4 rops[4][2];
    for (int i = 0; i < 4; i++) {
        rops[i][0] = op_putfh(&file), rops[i][1] = op_read(sid, (uint64_t)i * 2560, 2560);
        compound_async("READ in flight", rops[i], 2, NFS4_OK, NULL);
    }
    drain();
    ops[0] = op_putfh(&file), ops[1] = op_read(sid, 65536, 4096);
    compound("READ past EOF", ops, 2, NFS4_OK);
    /* the lease renewed explicitly (a 4.0 client's RENEW) */
    ops[0] = op_renew(clid);
    compound("RENEW", ops, 1, NFS4_OK);
    /* CLOSE */
    {
        nfs_argop4 c = {.argop = OP_CLOSE};
        c.nfs_argop4_u.opclose.seqid = seqid++;
        c.nfs_argop4_u.opclose.open_stateid = sid;
        ops[0] = op_putfh(&file), ops[1] = c;
        compound("CLOSE", ops, 2, NFS4_OK);
    }
    /* an OPEN without create of a missing file: NOENT */
    {
        OPEN4args *a = &o.nfs_argop4_u.opopen;
        a->seqid = seqid;
        a->share_access = OPEN4_SHARE_ACCESS_READ;
        a->openhow.opentype = OPEN4_NOCREATE;
        a->claim.open_claim4_u.file.utf8string_val = "absent.txt";
        a->claim.open_claim4_u.file.utf8string_len = 10;
        ops[0] = op_putfh(&dir), ops[1] = o, ops[2] = op_getfh();
        compound("OPEN absent.txt", ops, 3, NFS4ERR_NOENT);
        seqid++; /* NOENT is a seqid-mutating error (RFC 7530 section 9.1.7) */
    }
    /* listing, rename, removal */
    ops[0] = op_putfh(&dir), ops[1] = op_readdir();
    compound("READDIR", ops, 2, NFS4_OK);
    ops[0] = op_putfh(&dir), ops[1] = op_savefh(), ops[2] = op_putfh(&dir),
    ops[3] = op_rename("data40.bin", "data40.old");
    compound("RENAME", ops, 4, NFS4_OK);
    ops[0] = op_putfh(&dir), ops[1] = op_remove("data40.old");
    compound("REMOVE", ops, 2, NFS4_OK);
    ops[0] = op_putfh(&dir), ops[1] = op_remove("data40.old");
    compound("REMOVE again", ops, 2, NFS4ERR_NOENT);
}

/* ------------------------------------------------------------------ */
/* The expect file                                                      */

static int by_name(const void *a, const void *b)
{
    return strcmp(op_name(*(const int *)a), op_name(*(const int *)b));
}

static void put_status(FILE *f, int nstatus, const int *code, const uint64_t *n)
{
    int idx[MAX_STATUS];
    for (int i = 0; i < nstatus; i++)
        idx[i] = i;
    for (int i = 0; i < nstatus; i++) /* insertion sort by name: a handful */
        for (int j = i; j > 0 && strcmp(status_name(code[idx[j - 1]]),
                                        status_name(code[idx[j]])) > 0; j--) {
            int t = idx[j];
            idx[j] = idx[j - 1], idx[j - 1] = t;
        }
    fprintf(f, "{");
    for (int i = 0; i < nstatus; i++)
        fprintf(f, "%s\"%s\": %" PRIu64, i ? ", " : "", status_name(code[idx[i]]), n[idx[i]]);
    fprintf(f, "}");
}

static void put_ops(FILE *f, const char *indent)
{
    int idx[OP_SLOTS], k = 0;
    for (int i = 0; i < OP_SLOTS; i++)
        if (R.ops[i].count || R.ops[i].in_replies)
            idx[k++] = i;
    qsort(idx, (size_t)k, sizeof idx[0], by_name);
    fprintf(f, "{");
    for (int i = 0; i < k; i++) {
        struct opcount *o = &R.ops[idx[i]];
        fprintf(f, "%s\n%s  \"%s\": {\"count\": %" PRIu64 ", \"in_replies\": %" PRIu64
                   ", \"status\": ", i ? "," : "", indent, op_name(idx[i]), o->count,
                o->in_replies);
        put_status(f, o->nstatus, o->code, o->n);
        fprintf(f, ", \"not_evaluated\": %" PRIu64 "}", o->not_evaluated);
    }
    fprintf(f, "\n%s}", indent);
}

static void put_stable(FILE *f, const uint64_t *v)
{
    int first = 1;
    static const int order[3] = {1, 2, 0}; /* DATA_SYNC4, FILE_SYNC4, UNSTABLE4: by name */
    fprintf(f, "{");
    for (int i = 0; i < 3; i++)
        if (v[order[i]]) {
            fprintf(f, "%s\"%s\": %" PRIu64, first ? "" : ", ", stable_names[order[i]], v[order[i]]);
            first = 0;
        }
    fprintf(f, "}");
}

static int noent_order(const void *a, const void *b)
{
    const int *x = a, *y = b;
    int c = strcmp(op_name(R.noent[*x].slot), op_name(R.noent[*y].slot));
    return c ? c : strcmp(R.noent[*x].name, R.noent[*y].name);
}

/* "noent_names": {"LOOKUP": {"name": n, ...}, ...}, sorted by operation and
 * name (the names are the workload's own, plain ASCII) */
static void put_noent(FILE *f)
{
    int idx[16];
    for (int i = 0; i < R.nnoent; i++)
        idx[i] = i;
    qsort(idx, (size_t)R.nnoent, sizeof idx[0], noent_order);
    fprintf(f, "    \"noent_names\": {");
    for (int i = 0; i < R.nnoent; i++) {
        int slot = R.noent[idx[i]].slot;
        int first = i == 0 || R.noent[idx[i - 1]].slot != slot;
        if (first)
            fprintf(f, "%s\"%s\": {", i ? "}, " : "", op_name(slot));
        fprintf(f, "%s\"%s\": %" PRIu64, first ? "" : ", ", R.noent[idx[i]].name, R.noent[idx[i]].n);
    }
    fprintf(f, "%s}", R.nnoent ? "}" : "");
}

static int shape_order(const void *a, const void *b)
{
    return strcmp(R.shape[*(const int *)a].ops, R.shape[*(const int *)b].ops);
}

static void write_expect(void)
{
    FILE *f = fopen(expect_path, "w");
    if (!f)
        die("%s: %s", expect_path, strerror(errno));
    fprintf(f, "{\n  \"schema\": \"nfsgen-expect/1\",\n  \"sample\": \"%s\",\n"
               "  \"workload\": \"v40-ops\",\n  \"client\": \"libnfs\",\n"
               "  \"transport\": \"tcp\",\n  \"ip\": \"ipv4\",\n  \"clients\": 1,\n",
            sample);
    fprintf(f, "  \"rpc\": {\"calls\": %" PRIu64 ", \"replies\": %" PRIu64 "},\n",
            R.calls + R.null_calls, R.replies + R.null_replies);
    fprintf(f, "  \"nfs4\": {\n    \"null\": {\"calls\": %" PRIu64 ", \"replies\": %" PRIu64 "},\n",
            R.null_calls, R.null_replies);
    fprintf(f, "    \"compound\": {\"calls\": %" PRIu64 ", \"replies\": %" PRIu64 ", \"status\": ",
            R.calls, R.replies);
    put_status(f, R.nstatus, R.code, R.n);
    fprintf(f, "},\n    \"by_minorversion\": {\"0\": {\"compound\": {\"calls\": %" PRIu64
               ", \"replies\": %" PRIu64 ", \"status\": ", R.calls, R.replies);
    put_status(f, R.nstatus, R.code, R.n);
    fprintf(f, "}, \"ops\": ");
    put_ops(f, "    ");
    fprintf(f, "}},\n    \"ops\": ");
    put_ops(f, "    ");
    fprintf(f, ",\n    \"sessions\": {\"distinct_sessionids\": 0, \"max_slotid\": null, "
               "\"sequence_ops\": 0},\n    \"write_stable_how\": ");
    put_stable(f, R.stable);
    fprintf(f, ",\n    \"write_committed\": ");
    put_stable(f, R.committed);
    fprintf(f, ",\n    \"write_bytes\": %" PRIu64 ",\n    \"read_bytes\": %" PRIu64 ",\n",
            R.write_bytes, R.read_bytes);
    put_noent(f);
    fprintf(f, ",\n    \"lock_denied\": {},\n    \"delegations_granted\": {");
    static const char *const deleg_names[3] = {"OPEN_DELEGATE_NONE", "OPEN_DELEGATE_READ",
                                               "OPEN_DELEGATE_WRITE"};
    for (int i = 0, first = 1; i < 3; i++) /* by name: NONE, READ, WRITE */
        if (R.deleg[i]) {
            fprintf(f, "%s\"%s\": %" PRIu64, first ? "" : ", ", deleg_names[i], R.deleg[i]);
            first = 0;
        }
    fprintf(f, "},\n    \"why_no_delegation\": {},\n    \"compound_shapes\": {");
    int sidx[32];
    for (int i = 0; i < R.nshape; i++)
        sidx[i] = i;
    qsort(sidx, (size_t)R.nshape, sizeof sidx[0], shape_order);
    for (int i = 0; i < R.nshape; i++)
        fprintf(f, "%s\n      \"%s\": %" PRIu64, i ? "," : "", R.shape[sidx[i]].ops,
                R.shape[sidx[i]].n);
    fprintf(f, "\n    }\n  },\n");
    fprintf(f, "  \"nfs4_cb\": {\"calls\": 0, \"replies\": 0, \"by_proc\": {}, \"ops\": {}}\n}\n");
    if (fclose(f) != 0)
        die("%s: %s", expect_path, strerror(errno));
}

int main(int argc, char **argv)
{
    const char *workload = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--workload") && v)
            workload = v, i++;
        else if (!strcmp(a, "--server") && v)
            server = v, i++;
        else if (!strcmp(a, "--export") && v)
            export_name = v, i++;
        else if (!strcmp(a, "--name") && v)
            sample = v, i++;
        else if (!strcmp(a, "--expect") && v)
            expect_path = v, i++;
        else {
            fprintf(stderr, "usage: nfs4gen --workload v40-ops --server ADDR --export NAME "
                            "--name SAMPLE --expect FILE\n");
            return 2;
        }
    }
    if (!workload || !server || !export_name || !sample || !expect_path ||
        strcmp(workload, "v40-ops") != 0) {
        fprintf(stderr, "nfs4gen: --workload v40-ops, --server, --export, --name and --expect "
                        "are required\n");
        return 2;
    }
    rpc = rpc_init_context();
    if (!rpc)
        die("rpc_init_context");
    if (rpc_connect_async(rpc, server, 2049, connect_cb, NULL) != 0)
        die("connect %s: %s", server, rpc_get_error(rpc));
    time_t start = time(NULL);
    while (!connected) {
        service_once(100);
        if (time(NULL) - start > 20)
            die("timeout connecting to %s", server);
    }
    v40_ops();
    drain();
    rpc_destroy_context(rpc);
    write_expect();
    return 0;
}
