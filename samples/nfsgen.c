/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsgen: a small NFSv3 client that drives a real server with exactly the
 * calls a workload asks for and records what it sent and got back.
 *
 * Built and run by samples/generate; not part of nfsscope itself.
 *
 * It uses libnfs's raw RPC API (nfsc/libnfs-raw*.h, rpc_*_async) and never
 * the libnfs mount helpers, so every RPC on the wire is one this program
 * queued and counted: portmap GETPORT (or rpcbind GETADDR over IPv6), MOUNT
 * MNT/UMNT, every NFSv3 procedure and (nlm-locks) NLM v4 NULL, TEST, LOCK,
 * CANCEL and UNLOCK. In nlm-blocked it also answers the server's callbacks
 * (portmap GETPORT on port 111, NLM GRANTED_MSG on 4045) and sends
 * GRANTED_RES, all counted too. Connections are opened with
 * rpc_connect_async(), which sends no RPC of its own (rpc_connect_port_async
 * would send a NULL call behind our back).
 *
 * The counters live in shared memory so that forked clients (multi-client)
 * add to one record; the parent writes it as JSON (--expect FILE).
 *
 *   nfsgen --workload NAME --server ADDR --export PATH --expect FILE
 *          [--udp] [--ipv6] [--ro-export PATH] [--clients N] [--depth N]
 *          [--servers ADDR,...]  (forked client k talks to the k-th; the expect
 *          file then has a per_client list: each client's address and share)
 *
 * Build: gcc -std=gnu11 -O2 -Wall -o nfsgen nfsgen.c -lnfs
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-mount.h>
#include <nfsc/libnfs-raw-nfs.h>
#include <nfsc/libnfs-raw-nlm.h>
#include <nfsc/libnfs-raw-portmap.h>

/* Exported by libnfs 4.0 but not declared in its public headers. */
struct rpc_context *rpc_init_udp_context(void);
int rpc_bind_udp(struct rpc_context *rpc, char *addr, int port);
int rpc_set_udp_destination(struct rpc_context *rpc, char *addr, int port, int is_broadcast);

#define PROG_PMAP 100000
#define PROG_MOUNT 100005
#define PROG_NFS 100003
#define PROG_NLM 100021

/* ------------------------------------------------------------------ */
/* Names                                                                */

#define NFS3_NPROC 22
static const char *const nfs3_proc_names[NFS3_NPROC] = {
    "null",   "getattr", "setattr", "lookup",  "access",      "readlink",
    "read",   "write",   "create",  "mkdir",   "symlink",     "mknod",
    "remove", "rmdir",   "rename",  "link",    "readdir",     "readdirplus",
    "fsstat", "fsinfo",  "pathconf", "commit"};

enum { P_NULL, P_GETATTR, P_SETATTR, P_LOOKUP, P_ACCESS, P_READLINK, P_READ, P_WRITE,
       P_CREATE, P_MKDIR, P_SYMLINK, P_MKNOD, P_REMOVE, P_RMDIR, P_RENAME, P_LINK,
       P_READDIR, P_READDIRPLUS, P_FSSTAT, P_FSINFO, P_PATHCONF, P_COMMIT };

struct statname {
    int code;
    const char *name;
};
static const struct statname nfs3_status_names[] = {
    {0, "NFS3_OK"},
    {1, "NFS3ERR_PERM"},
    {2, "NFS3ERR_NOENT"},
    {5, "NFS3ERR_IO"},
    {6, "NFS3ERR_NXIO"},
    {13, "NFS3ERR_ACCES"},
    {17, "NFS3ERR_EXIST"},
    {18, "NFS3ERR_XDEV"},
    {19, "NFS3ERR_NODEV"},
    {20, "NFS3ERR_NOTDIR"},
    {21, "NFS3ERR_ISDIR"},
    {22, "NFS3ERR_INVAL"},
    {27, "NFS3ERR_FBIG"},
    {28, "NFS3ERR_NOSPC"},
    {30, "NFS3ERR_ROFS"},
    {31, "NFS3ERR_MLINK"},
    {63, "NFS3ERR_NAMETOOLONG"},
    {66, "NFS3ERR_NOTEMPTY"},
    {69, "NFS3ERR_DQUOT"},
    {70, "NFS3ERR_STALE"},
    {71, "NFS3ERR_REMOTE"},
    {10001, "NFS3ERR_BADHANDLE"},
    {10002, "NFS3ERR_NOT_SYNC"},
    {10003, "NFS3ERR_BAD_COOKIE"},
    {10004, "NFS3ERR_NOTSUPP"},
    {10005, "NFS3ERR_TOOSMALL"},
    {10006, "NFS3ERR_SERVERFAULT"},
    {10007, "NFS3ERR_BADTYPE"},
    {10008, "NFS3ERR_JUKEBOX"},
};
#define NSTAT (int)(sizeof nfs3_status_names / sizeof nfs3_status_names[0])

static const struct statname mnt3_status_names[] = {
    {0, "MNT3_OK"},          {1, "MNT3ERR_PERM"},       {2, "MNT3ERR_NOENT"},
    {5, "MNT3ERR_IO"},       {13, "MNT3ERR_ACCES"},     {20, "MNT3ERR_NOTDIR"},
    {22, "MNT3ERR_INVAL"},   {63, "MNT3ERR_NAMETOOLONG"}, {10004, "MNT3ERR_NOTSUPP"},
    {10006, "MNT3ERR_SERVERFAULT"},
};
#define NMSTAT (int)(sizeof mnt3_status_names / sizeof mnt3_status_names[0])

static const char *const mnt3_proc_names[6] = {"null", "mnt", "dump", "umnt", "umntall", "export"};
/* portmap v2 and rpcbind v3 procedures we use, by (version, procedure) */
enum { PM_GETPORT, PM_GETADDR, PM_GETADDR4, PM_N };
static const char *const pmap_names[PM_N] = {"getport", "getaddr", "getaddr"};
static const int pmap_vers[PM_N] = {2, 3, 4};

/* NLM v4 procedures nfsgen sends (synchronous ones; XNFS 3W chapter 14), and
 * (nlm-blocked) the server's GRANTED / GRANTED_MSG callbacks it answers and
 * the GRANTED_RES it sends back */
#define NLM_NPROC 16
enum { L_NULL, L_TEST, L_LOCK, L_CANCEL, L_UNLOCK, L_GRANTED, L_GRANTED_MSG = 10,
       L_GRANTED_RES = 15 };
static const char *const nlm4_proc_names[NLM_NPROC] = {
    "null", "test", "lock", "cancel", "unlock", "granted", NULL, NULL, NULL, NULL,
    "granted_msg", NULL, NULL, NULL, NULL, "granted_res"};
#define NLM_NSTAT 10
static const char *const nlm4_status_names[NLM_NSTAT] = {
    "NLM4_GRANTED", "NLM4_DENIED", "NLM4_DENIED_NOLOCKS", "NLM4_BLOCKED",
    "NLM4_DENIED_GRACE_PERIOD", "NLM4_DEADLCK", "NLM4_ROFS", "NLM4_STALE_FH",
    "NLM4_FBIG", "NLM4_FAILED"};

static const char *const stable_names[3] = {"UNSTABLE", "DATA_SYNC", "FILE_SYNC"};

static int stat_slot(const struct statname *t, int n, int code)
{
    for (int i = 0; i < n; i++)
        if (t[i].code == code)
            return i;
    return -1;
}

/* ------------------------------------------------------------------ */
/* Counters (shared between forked clients)                             */

struct counters {
    uint64_t nfs_calls[NFS3_NPROC], nfs_replies[NFS3_NPROC];
    uint64_t nfs_status[NFS3_NPROC][NSTAT + 1]; /* last slot: unknown code */
    uint64_t write_stable[3], write_committed[3];
    uint64_t read_bytes, write_bytes;
    uint64_t mnt_calls[6], mnt_replies[6], mnt_status[6][NMSTAT + 1];
    uint64_t pm_calls[PM_N], pm_replies[PM_N];
    uint64_t nlm_calls[NLM_NPROC], nlm_replies[NLM_NPROC];
    uint64_t nlm_status[NLM_NPROC][NLM_NSTAT + 1]; /* last slot: unknown code */
    uint64_t rpc_calls, rpc_replies;
    /* Per forked client (index 1..64; 0 is the single-client run): what the
     * report's client breakdown must show for that client's address. */
    struct client_rec {
        char addr[INET6_ADDRSTRLEN], server[INET6_ADDRSTRLEN];
        uint64_t calls, replies, errors, nfs_calls, read_bytes, write_bytes, write_stable[3];
    } cl[65];
};
static struct counters *C;
static int self; /* this process's client index (C->cl) */

#define ADD(field, n) __atomic_fetch_add(&(field), (uint64_t)(n), __ATOMIC_RELAXED)

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "nfsgen: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

/* ------------------------------------------------------------------ */
/* Connections and the event loop                                       */

struct conn {
    struct rpc_context *rpc;
    int inflight;
    int udp;
    int connected;
};

static void connect_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
    struct conn *c = priv;
    (void)rpc;
    if (status != RPC_STATUS_SUCCESS)
        die("connect failed: %s", data ? (char *)data : "?");
    c->connected = 1;
}

static void service_once(struct conn *c, int timeout_ms)
{
    struct pollfd pfd = {.fd = rpc_get_fd(c->rpc), .events = (short)rpc_which_events(c->rpc)};
    int n = poll(&pfd, 1, timeout_ms);
    if (n < 0 && errno != EINTR)
        die("poll: %s", strerror(errno));
    if (rpc_service(c->rpc, n > 0 ? pfd.revents : 0) < 0)
        die("rpc_service: %s", rpc_get_error(c->rpc));
}

/* Run the event loop until at most `max` calls are outstanding. */
static void drain_to(struct conn *c, int max)
{
    time_t start = time(NULL);
    while (c->inflight > max) {
        service_once(c, 100);
        if (time(NULL) - start > 60)
            die("timeout waiting for %d replies", c->inflight);
    }
}
static void drain(struct conn *c) { drain_to(c, 0); }

static struct conn *conn_tcp(const char *host, int port)
{
    struct conn *c = calloc(1, sizeof *c);
    c->rpc = rpc_init_context();
    if (!c->rpc)
        die("rpc_init_context");
    if (rpc_connect_async(c->rpc, host, port, connect_cb, c) != 0)
        die("connect %s:%d: %s", host, port, rpc_get_error(c->rpc));
    time_t start = time(NULL);
    while (!c->connected) {
        service_once(c, 100);
        if (time(NULL) - start > 20)
            die("timeout connecting to %s:%d", host, port);
    }
    if (!C->cl[self].addr[0]) { /* the source address the kernel chose */
        struct sockaddr_storage ss;
        socklen_t len = sizeof ss;
        if (getsockname(rpc_get_fd(c->rpc), (struct sockaddr *)&ss, &len) == 0) {
            const void *a = ss.ss_family == AF_INET6 ? (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr
                                                     : (const void *)&((struct sockaddr_in *)&ss)->sin_addr;
            inet_ntop(ss.ss_family, a, C->cl[self].addr, sizeof C->cl[self].addr);
        }
    }
    return c;
}

static struct conn *conn_udp(const char *host, int port)
{
    struct conn *c = calloc(1, sizeof *c);
    c->udp = 1;
    c->connected = 1;
    c->rpc = rpc_init_udp_context();
    if (!c->rpc)
        die("rpc_init_udp_context");
    if (rpc_bind_udp(c->rpc, "0.0.0.0", 0) != 0)
        die("rpc_bind_udp: %s", rpc_get_error(c->rpc));
    if (rpc_set_udp_destination(c->rpc, (char *)host, port, 0) != 0)
        die("rpc_set_udp_destination: %s", rpc_get_error(c->rpc));
    return c;
}

static void conn_close(struct conn *c)
{
    drain(c);
    rpc_destroy_context(c->rpc);
    free(c);
}

/* ------------------------------------------------------------------ */
/* Counted calls                                                        */

typedef void (*hook_fn)(void *res, void *ctx);

struct pend {
    struct conn *c;
    int prog, proc;
    hook_fn hook;
    void *ctx;
};

static void on_reply(struct rpc_context *rpc, int status, void *data, void *priv)
{
    struct pend *p = priv;
    (void)rpc;
    p->c->inflight--;
    if (status != RPC_STATUS_SUCCESS)
        die("RPC program %d procedure %d failed at the RPC level: %s", p->prog, p->proc,
            status == RPC_STATUS_ERROR && data ? (char *)data : "cancel/timeout");
    ADD(C->rpc_replies, 1);
    ADD(C->cl[self].replies, 1);
    if (p->prog == PROG_NFS) {
        ADD(C->nfs_replies[p->proc], 1);
        if (p->proc != P_NULL) {
            int st = *(int *)data; /* every NFSv3 result starts with nfsstat3 */
            int slot = stat_slot(nfs3_status_names, NSTAT, st);
            ADD(C->nfs_status[p->proc][slot < 0 ? NSTAT : slot], 1);
            if (st != NFS3_OK)
                ADD(C->cl[self].errors, 1);
            if (st == NFS3_OK && p->proc == P_READ) {
                ADD(C->read_bytes, ((READ3res *)data)->READ3res_u.resok.count);
                ADD(C->cl[self].read_bytes, ((READ3res *)data)->READ3res_u.resok.count);
            }
            if (st == NFS3_OK && p->proc == P_WRITE) {
                unsigned cm = ((WRITE3res *)data)->WRITE3res_u.resok.committed;
                if (cm < 3)
                    ADD(C->write_committed[cm], 1);
            }
        }
    } else if (p->prog == PROG_MOUNT) {
        ADD(C->mnt_replies[p->proc], 1);
        if (p->proc == 1) {
            int st = ((mountres3 *)data)->fhs_status;
            int slot = stat_slot(mnt3_status_names, NMSTAT, st);
            ADD(C->mnt_status[1][slot < 0 ? NMSTAT : slot], 1);
            if (st != MNT3_OK)
                ADD(C->cl[self].errors, 1);
        }
    } else if (p->prog == PROG_PMAP) {
        ADD(C->pm_replies[p->proc], 1);
    } else if (p->prog == PROG_NLM) {
        ADD(C->nlm_replies[p->proc], 1);
        if (p->proc != L_NULL) {
            /* every result is a cookie then nlm4_stats (TEST: inside its test_stat) */
            unsigned st = p->proc == L_TEST ? (unsigned)((NLM4_TESTres *)data)->reply.status
                                            : (unsigned)((NLM4_LOCKres *)data)->status;
            ADD(C->nlm_status[p->proc][st < NLM_NSTAT ? st : NLM_NSTAT], 1);
        }
    }
    if (p->hook)
        p->hook(data, p->ctx);
    free(p);
}

static struct pend *mkpend(struct conn *c, int prog, int proc, hook_fn hook, void *ctx)
{
    struct pend *p = malloc(sizeof *p);
    *p = (struct pend){c, prog, proc, hook, ctx};
    return p;
}

static void sent(struct pend *p, int rc, const char *what)
{
    if (rc != 0)
        die("queueing %s failed: %s", what, rpc_get_error(p->c->rpc));
    p->c->inflight++;
    ADD(C->rpc_calls, 1);
    ADD(C->cl[self].calls, 1);
}

/* Queue one NFSv3 call. `args` points at the procedure's *3args struct
 * (ignored for NULL); it is encoded before this returns, but WRITE data
 * buffers must stay alive until the reply. */
static void nfs(struct conn *c, int proc, void *args, hook_fn hook, void *ctx)
{
    struct pend *p = mkpend(c, PROG_NFS, proc, hook, ctx);
    struct rpc_context *r = c->rpc;
    int rc;
    switch (proc) {
    case P_NULL: rc = rpc_nfs3_null_async(r, on_reply, p); break;
    case P_GETATTR: rc = rpc_nfs3_getattr_async(r, on_reply, args, p); break;
    case P_SETATTR: rc = rpc_nfs3_setattr_async(r, on_reply, args, p); break;
    case P_LOOKUP: rc = rpc_nfs3_lookup_async(r, on_reply, args, p); break;
    case P_ACCESS: rc = rpc_nfs3_access_async(r, on_reply, args, p); break;
    case P_READLINK: rc = rpc_nfs3_readlink_async(r, on_reply, args, p); break;
    case P_READ: rc = rpc_nfs3_read_async(r, on_reply, args, p); break;
    case P_WRITE: rc = rpc_nfs3_write_async(r, on_reply, args, p); break;
    case P_CREATE: rc = rpc_nfs3_create_async(r, on_reply, args, p); break;
    case P_MKDIR: rc = rpc_nfs3_mkdir_async(r, on_reply, args, p); break;
    case P_SYMLINK: rc = rpc_nfs3_symlink_async(r, on_reply, args, p); break;
    case P_MKNOD: rc = rpc_nfs3_mknod_async(r, on_reply, args, p); break;
    case P_REMOVE: rc = rpc_nfs3_remove_async(r, on_reply, args, p); break;
    case P_RMDIR: rc = rpc_nfs3_rmdir_async(r, on_reply, args, p); break;
    case P_RENAME: rc = rpc_nfs3_rename_async(r, on_reply, args, p); break;
    case P_LINK: rc = rpc_nfs3_link_async(r, on_reply, args, p); break;
    case P_READDIR: rc = rpc_nfs3_readdir_async(r, on_reply, args, p); break;
    case P_READDIRPLUS: rc = rpc_nfs3_readdirplus_async(r, on_reply, args, p); break;
    case P_FSSTAT: rc = rpc_nfs3_fsstat_async(r, on_reply, args, p); break;
    case P_FSINFO: rc = rpc_nfs3_fsinfo_async(r, on_reply, args, p); break;
    case P_PATHCONF: rc = rpc_nfs3_pathconf_async(r, on_reply, args, p); break;
    case P_COMMIT: rc = rpc_nfs3_commit_async(r, on_reply, args, p); break;
    default: die("bad procedure %d", proc); return;
    }
    sent(p, rc, nfs3_proc_names[proc]);
    ADD(C->nfs_calls[proc], 1);
    ADD(C->cl[self].nfs_calls, 1);
    if (proc == P_WRITE) {
        WRITE3args *w = args;
        ADD(C->write_stable[w->stable], 1);
        ADD(C->write_bytes, w->count);
        ADD(C->cl[self].write_stable[w->stable], 1);
        ADD(C->cl[self].write_bytes, w->count);
    }
}

/* ------------------------------------------------------------------ */
/* File handles and hooks that copy results out                         */

struct fh {
    uint32_t len;
    char data[NFS3_FHSIZE];
    int ok;
};

static nfs_fh3 F(struct fh *f)
{
    nfs_fh3 r;
    r.data.data_len = f->len;
    r.data.data_val = f->data;
    return r;
}

static void set_fh(struct fh *f, const nfs_fh3 *src)
{
    f->len = src->data.data_len > NFS3_FHSIZE ? NFS3_FHSIZE : src->data.data_len;
    memcpy(f->data, src->data.data_val, f->len);
    f->ok = 1;
}

static void hook_lookup(void *res, void *ctx)
{
    LOOKUP3res *r = res;
    if (r->status == NFS3_OK)
        set_fh(ctx, &r->LOOKUP3res_u.resok.object);
}
/* CREATE, MKDIR, SYMLINK and MKNOD results share the resok layout. */
static void hook_newobj(void *res, void *ctx)
{
    CREATE3res *r = res;
    if (r->status == NFS3_OK && r->CREATE3res_u.resok.obj.handle_follows)
        set_fh(ctx, &r->CREATE3res_u.resok.obj.post_op_fh3_u.handle);
}
static void hook_mnt(void *res, void *ctx)
{
    mountres3 *r = res;
    struct fh *f = ctx;
    if (r->fhs_status == MNT3_OK) {
        fhandle3 *h = &r->mountres3_u.mountinfo.fhandle;
        f->len = h->fhandle3_len > NFS3_FHSIZE ? NFS3_FHSIZE : h->fhandle3_len;
        memcpy(f->data, h->fhandle3_val, f->len);
        f->ok = 1;
    }
}
static void hook_port(void *res, void *ctx) { *(int *)ctx = (int)*(uint32_t *)res; }
static void hook_uaddr(void *res, void *ctx)
{
    /* universal address "h.h.h.h.p1.p2" or "::1.p1.p2" */
    const char *a = ((pmap3_string_result *)res)->addr;
    int *port = ctx;
    *port = 0;
    if (!a)
        return;
    const char *last = strrchr(a, '.');
    if (!last || last == a)
        return;
    const char *prev = last - 1;
    while (prev > a && *prev != '.')
        prev--;
    *port = atoi(prev + 1) * 256 + atoi(last + 1);
}
struct fsinfo_out {
    uint32_t rtmax, wtmax;
};
static void hook_fsinfo(void *res, void *ctx)
{
    FSINFO3res *r = res;
    struct fsinfo_out *o = ctx;
    if (r->status == NFS3_OK) {
        o->rtmax = r->FSINFO3res_u.resok.rtmax;
        o->wtmax = r->FSINFO3res_u.resok.wtmax;
    }
}

/* READDIRPLUS listing state */
struct dirent_fh {
    char *name;
    struct fh fh;
};
struct listing {
    struct dirent_fh *e;
    int n, cap;
    cookie3 cookie;
    cookieverf3 verf;
    int eof;
};
static void hook_rdp(void *res, void *ctx)
{
    READDIRPLUS3res *r = res;
    struct listing *l = ctx;
    if (r->status != NFS3_OK) {
        l->eof = 1;
        return;
    }
    READDIRPLUS3resok *ok = &r->READDIRPLUS3res_u.resok;
    memcpy(l->verf, ok->cookieverf, sizeof l->verf);
    for (entryplus3 *e = ok->reply.entries; e; e = e->nextentry) {
        l->cookie = e->cookie;
        if (!strcmp(e->name, ".") || !strcmp(e->name, ".."))
            continue;
        if (l->n == l->cap) {
            l->cap = l->cap ? 2 * l->cap : 256;
            l->e = realloc(l->e, (size_t)l->cap * sizeof *l->e);
        }
        struct dirent_fh *d = &l->e[l->n++];
        d->name = strdup(e->name);
        memset(&d->fh, 0, sizeof d->fh);
        if (e->name_handle.handle_follows)
            set_fh(&d->fh, &e->name_handle.post_op_fh3_u.handle);
    }
    l->eof = ok->reply.eof;
}
static void hook_readdir(void *res, void *ctx)
{
    READDIR3res *r = res;
    struct listing *l = ctx;
    if (r->status != NFS3_OK) {
        l->eof = 1;
        return;
    }
    memcpy(l->verf, r->READDIR3res_u.resok.cookieverf, sizeof l->verf);
    for (entry3 *e = r->READDIR3res_u.resok.reply.entries; e; e = e->nextentry)
        l->cookie = e->cookie;
    l->eof = r->READDIR3res_u.resok.reply.eof;
}

/* ------------------------------------------------------------------ */
/* Call helpers (queue only; the caller drains)                          */

static void q_getattr(struct conn *c, struct fh *f)
{
    GETATTR3args a = {.object = F(f)};
    nfs(c, P_GETATTR, &a, NULL, NULL);
}
static void q_access(struct conn *c, struct fh *f, uint32_t bits)
{
    ACCESS3args a = {.object = F(f), .access = bits};
    nfs(c, P_ACCESS, &a, NULL, NULL);
}
static void q_lookup(struct conn *c, struct fh *dir, const char *name, struct fh *out)
{
    LOOKUP3args a = {.what = {.dir = F(dir), .name = (char *)name}};
    nfs(c, P_LOOKUP, &a, out ? hook_lookup : NULL, out);
}
static void q_read(struct conn *c, struct fh *f, uint64_t off, uint32_t count)
{
    READ3args a = {.file = F(f), .offset = off, .count = count};
    nfs(c, P_READ, &a, NULL, NULL);
}
static void q_write(struct conn *c, struct fh *f, uint64_t off, uint32_t count, int stable,
                    char *buf)
{
    WRITE3args a = {.file = F(f), .offset = off, .count = count, .stable = stable};
    a.data.data_len = count;
    a.data.data_val = buf;
    nfs(c, P_WRITE, &a, NULL, NULL);
}
static void q_commit(struct conn *c, struct fh *f, uint64_t off, uint32_t count)
{
    COMMIT3args a = {.file = F(f), .offset = off, .count = count};
    nfs(c, P_COMMIT, &a, NULL, NULL);
}
static void q_create(struct conn *c, struct fh *dir, const char *name, int mode, struct fh *out)
{
    CREATE3args a;
    memset(&a, 0, sizeof a);
    a.where.dir = F(dir);
    a.where.name = (char *)name;
    a.how.mode = mode;
    if (mode == EXCLUSIVE)
        memcpy(a.how.createhow3_u.verf, "nfsscope", 8);
    else {
        a.how.createhow3_u.obj_attributes.mode.set_it = 1;
        a.how.createhow3_u.obj_attributes.mode.set_mode3_u.mode = 0644;
    }
    nfs(c, P_CREATE, &a, out ? hook_newobj : NULL, out);
}
static void q_mkdir(struct conn *c, struct fh *dir, const char *name, struct fh *out)
{
    MKDIR3args a;
    memset(&a, 0, sizeof a);
    a.where.dir = F(dir);
    a.where.name = (char *)name;
    a.attributes.mode.set_it = 1;
    a.attributes.mode.set_mode3_u.mode = 0755;
    nfs(c, P_MKDIR, &a, out ? hook_newobj : NULL, out);
}
static void q_remove(struct conn *c, struct fh *dir, const char *name)
{
    REMOVE3args a = {.object = {.dir = F(dir), .name = (char *)name}};
    nfs(c, P_REMOVE, &a, NULL, NULL);
}
static void q_rmdir(struct conn *c, struct fh *dir, const char *name)
{
    RMDIR3args a = {.object = {.dir = F(dir), .name = (char *)name}};
    nfs(c, P_RMDIR, &a, NULL, NULL);
}
static void q_fsinfo(struct conn *c, struct fh *f, struct fsinfo_out *o)
{
    FSINFO3args a = {.fsroot = F(f)};
    nfs(c, P_FSINFO, &a, o ? hook_fsinfo : NULL, o);
}
static void q_pathconf(struct conn *c, struct fh *f)
{
    PATHCONF3args a = {.object = F(f)};
    nfs(c, P_PATHCONF, &a, NULL, NULL);
}
static void q_fsstat(struct conn *c, struct fh *f)
{
    FSSTAT3args a = {.fsroot = F(f)};
    nfs(c, P_FSSTAT, &a, NULL, NULL);
}

/* Full READDIRPLUS listing, one call at a time (each needs the last cookie). */
static void list_dir(struct conn *c, struct fh *dir, struct listing *l, uint32_t dircount,
                     uint32_t maxcount)
{
    memset(l, 0, sizeof *l);
    while (!l->eof) {
        READDIRPLUS3args a;
        memset(&a, 0, sizeof a);
        a.dir = F(dir);
        a.cookie = l->cookie;
        memcpy(a.cookieverf, l->verf, sizeof a.cookieverf);
        a.dircount = dircount;
        a.maxcount = maxcount;
        nfs(c, P_READDIRPLUS, &a, hook_rdp, l);
        drain(c);
    }
}

static void free_listing(struct listing *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->e[i].name);
    free(l->e);
    memset(l, 0, sizeof *l);
}

/* ------------------------------------------------------------------ */
/* Mount and unmount through portmap and MOUNT, like a kernel client     */

struct opts {
    const char *workload, *name, *server, *export, *ro_export, *expect;
    int udp, ipv6, clients, depth;
    char *servers[64]; /* --servers A,B,...: forked client k talks to servers[(k-1) % n] */
    int nservers;
};

struct session {
    struct opts *o;
    int mount_port, nfs_port;
    struct conn *nfs;   /* NFS connection (TCP) or the one UDP context */
    struct fh root;
    struct fh ro_root;
    struct fsinfo_out fsi;
};

static void pmap_lookup_vers(struct session *s, struct conn *pm, int prog, int vers, int *port)
{
    struct opts *o = s->o;
    if (o->ipv6) {
        /* portmap v2 is IPv4 only; over IPv6 clients ask rpcbind v3 GETADDR */
        struct pmap3_mapping m = {.prog = prog, .vers = vers, .netid = "tcp6", .addr = "",
                                  .owner = ""};
        struct pend *p = mkpend(pm, PROG_PMAP, PM_GETADDR, hook_uaddr, port);
        sent(p, rpc_pmap3_getaddr_async(pm->rpc, &m, on_reply, p), "rpcbind getaddr");
        ADD(C->pm_calls[PM_GETADDR], 1);
    } else {
        struct pend *p = mkpend(pm, PROG_PMAP, PM_GETPORT, hook_port, port);
        sent(p,
             rpc_pmap2_getport_async(pm->rpc, prog, vers, o->udp ? IPPROTO_UDP : IPPROTO_TCP,
                                     on_reply, p),
             "portmap getport");
        ADD(C->pm_calls[PM_GETPORT], 1);
    }
}
static void pmap_lookup(struct session *s, struct conn *pm, int prog, int *port)
{
    pmap_lookup_vers(s, pm, prog, 3, port);
}

static void q_mnt(struct conn *c, const char *path, struct fh *out)
{
    struct pend *p = mkpend(c, PROG_MOUNT, 1, hook_mnt, out);
    sent(p, rpc_mount3_mnt_async(c->rpc, on_reply, (char *)path, p), "mount mnt");
    ADD(C->mnt_calls[1], 1);
}
static void q_umnt(struct conn *c, const char *path)
{
    struct pend *p = mkpend(c, PROG_MOUNT, 3, NULL, NULL);
    sent(p, rpc_mount3_umnt_async(c->rpc, on_reply, (char *)path, p), "mount umnt");
    ADD(C->mnt_calls[3], 1);
}

/* With UDP one context talks to portmap, mountd and nfsd in turn. */
static struct conn *open_to(struct session *s, struct conn *udpc, int port)
{
    if (udpc) {
        drain(udpc);
        if (rpc_set_udp_destination(udpc->rpc, (char *)s->o->server, port, 0) != 0)
            die("rpc_set_udp_destination: %s", rpc_get_error(udpc->rpc));
        return udpc;
    }
    return conn_tcp(s->o->server, port);
}
static void close_if_tcp(struct conn *c)
{
    if (c->udp)
        drain(c);
    else
        conn_close(c);
}

static void do_mount(struct session *s, int probe_bad_export)
{
    struct conn *udpc = s->o->udp ? conn_udp(s->o->server, 111) : NULL;
    struct conn *pm = open_to(s, udpc, 111);
    pmap_lookup(s, pm, PROG_MOUNT, &s->mount_port);
    pmap_lookup(s, pm, PROG_NFS, &s->nfs_port);
    drain(pm);
    close_if_tcp(pm);
    if (s->mount_port <= 0 || s->nfs_port <= 0)
        die("portmap did not return MOUNT/NFS ports (%d, %d)", s->mount_port, s->nfs_port);

    struct conn *mc = open_to(s, udpc, s->mount_port);
    if (probe_bad_export) {
        struct fh bad = {0};
        q_mnt(mc, "/no/such/export", &bad);
        drain(mc);
    }
    q_mnt(mc, s->o->export, &s->root);
    if (s->o->ro_export)
        q_mnt(mc, s->o->ro_export, &s->ro_root);
    drain(mc);
    close_if_tcp(mc);
    if (!s->root.ok)
        die("MNT %s failed", s->o->export);

    s->nfs = open_to(s, udpc, s->nfs_port);
    /* what a kernel mount sends next: NULL, FSINFO, PATHCONF, GETATTR of the root */
    nfs(s->nfs, P_NULL, NULL, NULL, NULL);
    q_fsinfo(s->nfs, &s->root, &s->fsi);
    q_pathconf(s->nfs, &s->root);
    q_getattr(s->nfs, &s->root);
    drain(s->nfs);
}

static void do_umount(struct session *s)
{
    drain(s->nfs);
    struct conn *udpc = s->nfs->udp ? s->nfs : NULL;
    if (!udpc)
        conn_close(s->nfs);
    struct conn *mc = open_to(s, udpc, s->mount_port);
    q_umnt(mc, s->o->export);
    if (s->o->ro_export)
        q_umnt(mc, s->o->ro_export);
    drain(mc);
    conn_close(mc);
    s->nfs = NULL;
}

/* ------------------------------------------------------------------ */
/* Workloads                                                            */

#define ACC_ALL 0x3f
static uint32_t lcg_state = 12345;
static uint32_t lcg(void)
{
    lcg_state = lcg_state * 1103515245u + 12345u;
    return lcg_state >> 8;
}

static char *pattern(size_t n, const char *tag)
{
    char *b = malloc(n + 64);
    size_t off = 0;
    unsigned line = 0;
    while (off < n)
        off += (size_t)sprintf(b + off, "%s line %07u of nfsscope sample data\n", tag, line++);
    return b;
}

/* all-ops: every NFSv3 procedure, plus error replies */
static void wl_all_ops(struct session *s)
{
    struct conn *c = s->nfs;
    struct fh *root = &s->root;
    struct fh d = {0}, f = {0}, fx = {0}, sl = {0}, sub = {0}, g = {0}, fifo = {0}, tmp = {0};
    /* a directory of its own per sample (all-ops and all-ops-udp share the export) */
    const char *dname = s->o->name ? s->o->name : "all-ops";

    q_lookup(c, root, dname, &tmp); /* NOENT */
    drain(c);
    q_mkdir(c, root, dname, &d);
    drain(c);
    if (!d.ok)
        die("mkdir %s failed", dname);
    q_mkdir(c, root, dname, NULL); /* EXIST */
    q_create(c, &d, "f1", UNCHECKED, &f);
    drain(c);
    q_create(c, &d, "f1", GUARDED, NULL); /* EXIST */
    q_create(c, &d, "fx", EXCLUSIVE, &fx);
    drain(c);
    if (!f.ok)
        die("create f1 failed");

    {
        SETATTR3args a;
        memset(&a, 0, sizeof a);
        a.object = F(&f);
        a.new_attributes.mode.set_it = 1;
        a.new_attributes.mode.set_mode3_u.mode = 0640;
        a.new_attributes.mtime.set_it = SET_TO_SERVER_TIME;
        nfs(c, P_SETATTR, &a, NULL, NULL);
        drain(c);
        /* guard on a ctime that is not the file's: NOT_SYNC */
        a.guard.check = 1;
        a.guard.sattrguard3_u.obj_ctime.seconds = 1;
        nfs(c, P_SETATTR, &a, NULL, NULL);
        drain(c);
    }

    static char *wbuf;
    wbuf = pattern(3 * 4096, "all-ops");
    q_write(c, &f, 0, 4096, UNSTABLE, wbuf);
    q_write(c, &f, 4096, 4096, DATA_SYNC, wbuf + 4096);
    q_write(c, &f, 8192, 4096, FILE_SYNC, wbuf + 8192);
    drain(c);
    q_commit(c, &f, 0, 0);
    q_write(c, &d, 0, 16, FILE_SYNC, wbuf); /* a directory: ISDIR or INVAL */
    drain(c);
    q_read(c, &f, 0, 12288);
    q_read(c, &f, 100000, 4096); /* past EOF: OK, count 0 */
    q_read(c, &d, 0, 4096);       /* a directory */
    q_access(c, &f, ACC_ALL);
    q_access(c, &d, ACC_ALL);
    q_getattr(c, &f);
    drain(c);

    {
        SYMLINK3args a;
        memset(&a, 0, sizeof a);
        a.where.dir = F(&d);
        a.where.name = "sl";
        a.symlink.symlink_data = "f1";
        nfs(c, P_SYMLINK, &a, hook_newobj, &sl);
        drain(c);
        nfs(c, P_SYMLINK, &a, NULL, NULL); /* EXIST */
        drain(c);
        if (sl.ok) {
            READLINK3args r = {.symlink = F(&sl)};
            nfs(c, P_READLINK, &r, NULL, NULL);
        }
        READLINK3args r2 = {.symlink = F(&f)}; /* not a link: INVAL */
        nfs(c, P_READLINK, &r2, NULL, NULL);
        drain(c);
    }
    {
        MKNOD3args a;
        memset(&a, 0, sizeof a);
        a.where.dir = F(&d);
        a.where.name = "fifo";
        a.what.type = NF3FIFO;
        a.what.mknoddata3_u.pipe_attributes.mode.set_it = 1;
        a.what.mknoddata3_u.pipe_attributes.mode.set_mode3_u.mode = 0644;
        nfs(c, P_MKNOD, &a, hook_newobj, &fifo);
        drain(c);
        a.where.name = "regular";
        a.what.type = NF3REG; /* MKNOD of a regular file: BADTYPE */
        nfs(c, P_MKNOD, &a, NULL, NULL);
        drain(c);
    }
    {
        LINK3args a = {.file = F(&f), .link = {.dir = F(&d), .name = "hl"}};
        nfs(c, P_LINK, &a, NULL, NULL);
        drain(c);
        nfs(c, P_LINK, &a, NULL, NULL); /* EXIST */
        drain(c);
        RENAME3args r = {.from = {.dir = F(&d), .name = "hl"}, .to = {.dir = F(&d), .name = "hl2"}};
        nfs(c, P_RENAME, &r, NULL, NULL);
        drain(c);
        RENAME3args r2 = {.from = {.dir = F(&d), .name = "nonexistent"},
                          .to = {.dir = F(&d), .name = "x"}};
        nfs(c, P_RENAME, &r2, NULL, NULL); /* NOENT */
        drain(c);
        if (s->ro_root.ok) {
            RENAME3args r3 = {.from = {.dir = F(&d), .name = "hl2"},
                              .to = {.dir = F(&s->ro_root), .name = "hl3"}};
            nfs(c, P_RENAME, &r3, NULL, NULL); /* across exports: XDEV */
            drain(c);
        }
    }
    {
        struct listing l;
        memset(&l, 0, sizeof l);
        READDIR3args a;
        memset(&a, 0, sizeof a);
        a.dir = F(&d);
        a.count = 4096;
        nfs(c, P_READDIR, &a, hook_readdir, &l);
        drain(c);
        READDIR3args bad = a;
        bad.dir = F(&f); /* not a directory: NOTDIR */
        nfs(c, P_READDIR, &bad, NULL, NULL);
        drain(c);
        list_dir(c, &d, &l, 4096, 16384);
        free_listing(&l);
    }
    q_fsstat(c, root);
    q_fsinfo(c, root, NULL);
    q_pathconf(c, &f);
    drain(c);

    q_lookup(c, &f, "x", NULL); /* NOTDIR */
    {
        char longname[300];
        memset(longname, 'n', sizeof longname - 1);
        longname[sizeof longname - 1] = 0;
        q_lookup(c, &d, longname, NULL); /* NAMETOOLONG */
    }
    {
        struct fh bogus = {.len = 32, .ok = 1};
        memset(bogus.data, 0x5a, sizeof bogus.data);
        q_getattr(c, &bogus); /* BADHANDLE or STALE */
    }
    drain(c);

    q_mkdir(c, &d, "sub", &sub);
    drain(c);
    q_create(c, &sub, "g", UNCHECKED, &g);
    drain(c);
    q_rmdir(c, &d, "sub"); /* NOTEMPTY */
    q_rmdir(c, &d, "f1");  /* NOTDIR */
    drain(c);
    q_remove(c, &sub, "g");
    drain(c);
    q_rmdir(c, &d, "sub");
    q_remove(c, &d, "nonexistent"); /* NOENT */
    q_remove(c, &d, "fifo");
    q_remove(c, &d, "sl");
    drain(c);
    if (s->ro_root.ok) {
        q_create(c, &s->ro_root, "nope", UNCHECKED, NULL); /* ROFS */
        q_getattr(c, &s->ro_root);
        drain(c);
    }
    nfs(c, P_NULL, NULL, NULL, NULL);
    drain(c);
}

/* ls-storm: `ls -l` of a directory of ~1000 files, several times */
static void wl_ls_storm(struct session *s)
{
    struct conn *c = s->nfs;
    int depth = s->o->depth;
    struct fh dir = {0};
    q_lookup(c, &s->root, "lsdir", &dir);
    drain(c);
    if (!dir.ok)
        die("lsdir missing (samples/generate creates it)");
    struct listing first = {0};
    for (int round = 0; round < 3; round++) {
        q_getattr(c, &dir);
        q_access(c, &dir, ACC_ALL);
        drain(c);
        struct listing l;
        list_dir(c, &dir, &l, 8192, 32768);
        if (round == 0) {
            /* first listing: LOOKUP, GETATTR and ACCESS of every entry */
            struct fh *fhs = calloc((size_t)l.n, sizeof *fhs);
            for (int i = 0; i < l.n; i++) {
                q_lookup(c, &dir, l.e[i].name, &fhs[i]);
                drain_to(c, depth);
            }
            drain(c);
            for (int i = 0; i < l.n; i++) {
                q_getattr(c, &fhs[i]);
                q_access(c, &fhs[i], 0x1f);
                drain_to(c, depth);
            }
            drain(c);
            free(fhs);
            first = l;
        } else {
            /* later listings revalidate the same handles: GETATTR each */
            for (int i = 0; i < first.n; i++) {
                q_getattr(c, &first.e[i].fh);
                drain_to(c, depth);
            }
            drain(c);
            free_listing(&l);
        }
    }
    free_listing(&first);
}

/* cms-page: a PHP-like page render, request after request */
static const char *const cms_files[] = {
    "site/index.php",        "site/inc/config.php",    "site/inc/db.php",
    "site/inc/functions.php", "site/inc/session.php",  "site/inc/template.php",
    "site/inc/cache.php",    "site/inc/i18n.php",      "site/tpl/header.html",
    "site/tpl/footer.html",  "site/tpl/nav.html",      "site/tpl/article.html",
    "site/tpl/sidebar.html", "site/static/style.css",  "site/static/app.js",
    "site/lang/en.ini",
};
#define CMS_N (int)(sizeof cms_files / sizeof cms_files[0])

static void wl_cms_page(struct session *s)
{
    struct conn *c = s->nfs;
    int depth = s->o->depth;
    struct fh site = {0};
    q_lookup(c, &s->root, "site", &site);
    drain(c);
    if (!site.ok)
        die("site/ missing (samples/generate creates it)");
    static const char *const subdirs[] = {"inc", "tpl", "static", "lang"};
    struct fh sub[4] = {{0}};
    for (int i = 0; i < 4; i++)
        q_lookup(c, &site, subdirs[i], &sub[i]);
    drain(c);
    for (int req = 0; req < 10; req++) {
        /* .htaccess probes up the tree: negative LOOKUPs */
        q_lookup(c, &s->root, ".htaccess", NULL);
        q_lookup(c, &site, ".htaccess", NULL);
        q_access(c, &site, 0x1f);
        drain(c);
        for (int i = 0; i < CMS_N; i++) {
            const char *p = cms_files[i] + 5; /* below site/ */
            const char *slash = strchr(p, '/');
            struct fh *parent = &site;
            const char *name = p;
            if (slash) {
                for (int k = 0; k < 4; k++)
                    if (!strncmp(p, subdirs[k], (size_t)(slash - p)) &&
                        strlen(subdirs[k]) == (size_t)(slash - p))
                        parent = &sub[k];
                name = slash + 1;
            }
            struct fh f = {0};
            q_lookup(c, parent, name, &f); /* stat() */
            drain(c);
            q_getattr(c, &f);   /* open(): close-to-open revalidation */
            q_access(c, &f, 0x01);
            q_read(c, &f, 0, 8192); /* read() the whole small file */
            drain_to(c, depth);
        }
        /* a cache file that does not exist yet, then a missing template */
        q_lookup(c, &sub[0], "cache-page.tmp", NULL);
        q_lookup(c, &sub[1], "missing.html", NULL);
        drain(c);
    }
}

/* stable-writes / unstable-writes: the same small writes, different stable_how */
#define SW_FILES 2
#define SW_WRITES 160
#define SW_SIZE 1024
static void wl_writes(struct session *s, int unstable)
{
    struct conn *c = s->nfs;
    int depth = s->o->depth;
    static const char *const snames[SW_FILES] = {"journal-a.log", "journal-b.log"};
    static const char *const unames[SW_FILES] = {"ujournal-a.log", "ujournal-b.log"};
    const char *const *names = unstable ? unames : snames;
    struct fh f[SW_FILES] = {{0}};
    for (int i = 0; i < SW_FILES; i++)
        q_create(c, &s->root, names[i], GUARDED, &f[i]);
    drain(c);
    for (int i = 0; i < SW_FILES; i++)
        if (!f[i].ok)
            die("create %s failed", names[i]);
    char *buf = pattern((size_t)SW_WRITES * SW_SIZE, "journal");
    for (int w = 0; w < SW_WRITES; w++) {
        for (int i = 0; i < SW_FILES; i++) {
            int how = unstable ? UNSTABLE : (i == 0 ? FILE_SYNC : DATA_SYNC);
            q_write(c, &f[i], (uint64_t)w * SW_SIZE, SW_SIZE, how, buf + (size_t)w * SW_SIZE);
            drain_to(c, depth);
        }
        if (unstable && (w + 1) % 32 == 0) {
            drain(c);
            for (int i = 0; i < SW_FILES; i++)
                q_commit(c, &f[i], 0, 0);
            drain(c);
        }
    }
    drain(c);
    for (int i = 0; i < SW_FILES; i++)
        q_getattr(c, &f[i]);
    drain(c);
    free(buf);
}

/* bulk-io: bonnie-like large sequential write and read, then random reads */
static void wl_bulk_io(struct session *s)
{
    struct conn *c = s->nfs;
    uint32_t wrec = s->fsi.wtmax ? s->fsi.wtmax : 65536;
    uint32_t rrec = s->fsi.rtmax ? s->fsi.rtmax : 65536;
    if (wrec > 256 * 1024)
        wrec = 256 * 1024; /* writes as 256 KiB records */
    if (rrec > 1024 * 1024)
        rrec = 1024 * 1024; /* reads as 1 MiB records */
    const uint32_t total = 1024 * 1024;
    struct fh f = {0};
    q_create(c, &s->root, "bonnie.dat", UNCHECKED, &f);
    drain(c);
    if (!f.ok)
        die("create bonnie.dat failed");
    char *buf = pattern(total, "bulk-io");
    for (uint32_t off = 0; off < total; off += wrec) {
        uint32_t n = total - off < wrec ? total - off : wrec;
        q_write(c, &f, off, n, UNSTABLE, buf + off);
        drain_to(c, 2);
    }
    drain(c);
    q_commit(c, &f, 0, 0);
    q_getattr(c, &f);
    drain(c);
    for (uint32_t off = 0; off < total; off += rrec) {
        q_read(c, &f, off, rrec);
        drain_to(c, 2);
    }
    drain(c);
    /* random 8 KiB reads, 4 in flight */
    lcg_state = 4242;
    for (int i = 0; i < 16; i++) {
        uint64_t off = (uint64_t)(lcg() % (total / 8192)) * 8192;
        q_read(c, &f, off, 8192);
        drain_to(c, 4);
    }
    drain(c);
    free(buf);
}

/* serial-io: a copy that waits for each call before the next (dd with
 * synchronous I/O, one call outstanding): a 3 MiB file written as 512 KiB
 * UNSTABLE WRITEs, committed, then read back as 512 KiB READs, each call
 * sent as soon as the one before it is answered */
static void wl_serial_io(struct session *s)
{
    struct conn *c = s->nfs;
    const uint32_t rec = 512 * 1024, total = 3 * 1024 * 1024;
    struct fh f = {0};
    q_create(c, &s->root, "serial.dat", UNCHECKED, &f);
    drain(c);
    if (!f.ok)
        die("create serial.dat failed");
    char *buf = pattern(total, "serial-io");
    for (uint32_t off = 0; off < total; off += rec) {
        q_write(c, &f, off, rec, UNSTABLE, buf + off);
        drain(c);
    }
    q_commit(c, &f, 0, 0);
    drain(c);
    for (uint32_t off = 0; off < total; off += rec) {
        q_read(c, &f, off, rec);
        drain(c);
    }
    free(buf);
}

/* udp-frag: 32 KiB READ and WRITE over UDP (IP fragments at MTU 1500) */
static void wl_udp_frag(struct session *s)
{
    struct conn *c = s->nfs;
    struct fh f = {0};
    const uint32_t rec = 32768, n = 8;
    q_lookup(c, &s->root, "udp.dat", NULL); /* NOENT */
    q_create(c, &s->root, "udp.dat", UNCHECKED, &f);
    drain(c);
    if (!f.ok)
        die("create udp.dat failed");
    char *buf = pattern((size_t)rec * n, "udp-frag");
    for (uint32_t i = 0; i < n; i++) {
        q_write(c, &f, (uint64_t)i * rec, rec, i % 2 ? FILE_SYNC : UNSTABLE, buf + (size_t)i * rec);
        drain_to(c, 2);
    }
    drain(c);
    q_commit(c, &f, 0, 0);
    q_getattr(c, &f);
    drain(c);
    for (uint32_t i = 0; i < n; i++) {
        q_read(c, &f, (uint64_t)i * rec, rec);
        drain_to(c, 2);
    }
    q_read(c, &f, 0, 8192);
    q_access(c, &f, ACC_ALL);
    drain(c);
    struct listing l;
    list_dir(c, &s->root, &l, 2048, 8192);
    free_listing(&l);
    q_remove(c, &s->root, "udp.dat");
    drain(c);
    free(buf);
}

/* mixed: a small everyday mix (used by ipv6, multi-client and cooked-any) */
static void wl_mixed(struct session *s, int id)
{
    struct conn *c = s->nfs;
    int depth = s->o->depth;
    char name[64];
    snprintf(name, sizeof name, "client%d.dat", id);
    struct fh f = {0}, site = {0};
    q_lookup(c, &s->root, name, NULL); /* NOENT */
    q_create(c, &s->root, name, GUARDED, &f);
    drain(c);
    if (!f.ok)
        die("create %s failed", name);
    const uint32_t rec = 4096, n = 16;
    char *buf = pattern((size_t)rec * n, name);
    for (uint32_t i = 0; i < n; i++) {
        q_write(c, &f, (uint64_t)i * rec, rec, UNSTABLE, buf + (size_t)i * rec);
        drain_to(c, depth);
    }
    drain(c);
    q_commit(c, &f, 0, 0);
    drain(c);
    for (uint32_t i = 0; i < n; i++) {
        q_read(c, &f, (uint64_t)i * rec, rec);
        drain_to(c, depth);
    }
    drain(c);
    q_lookup(c, &s->root, "site", &site);
    drain(c);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < CMS_N && site.ok; i++) {
            const char *p = cms_files[i] + 5;
            if (strchr(p, '/'))
                continue;
            struct fh g = {0};
            q_lookup(c, &site, p, &g);
            drain(c);
            q_getattr(c, &g);
            q_access(c, &g, 0x01);
            q_read(c, &g, 0, 8192);
            drain_to(c, depth);
        }
        q_getattr(c, &f);
        q_access(c, &f, ACC_ALL);
        drain(c);
    }
    /* Forked clients differ: client k revalidates its file k more times, so
     * that each client's share of the capture is its own. */
    for (int i = 0; i < id; i++)
        q_getattr(c, &f);
    drain(c);
    struct listing l;
    list_dir(c, &s->root, &l, 4096, 16384);
    free_listing(&l);
    q_fsstat(c, &s->root);
    q_remove(c, &s->root, name);
    drain(c);
    free(buf);
}

/* nlm-locks: NLM v4 byte-range locks on one file by two lock owners.
 * Only synchronous procedures, and no blocked lock is ever granted later
 * (that needs a GRANTED callback to the client's own NLM service, which
 * nfsgen does not run): the one blocking LOCK that gets NLM4_BLOCKED is
 * cancelled while the conflicting lock is still held. */
struct nlm_owner {
    const char *oh; /* owner handle */
    unsigned svid;  /* "process id" */
};
static char nlm_host[256];
static uint32_t nlm_cookie_seq;

static void hook_nlmstat(void *res, void *ctx) { *(int *)ctx = (int)((NLM4_LOCKres *)res)->status; }
static void hook_nlmtest(void *res, void *ctx)
{
    *(int *)ctx = (int)((NLM4_TESTres *)res)->reply.status;
}

static void nlm_fill(nlm4_lock *l, struct fh *f, const struct nlm_owner *o, uint64_t off,
                     uint64_t len)
{
    l->caller_name = nlm_host;
    l->fh.data.data_len = f->len;
    l->fh.data.data_val = f->data;
    l->oh = (char *)o->oh;
    l->svid = o->svid;
    l->l_offset = off;
    l->l_len = len;
}

/* Queue one NLM v4 call and wait for its reply; returns its nlm4_stats
 * (or -1 for NULL). Every argument is encoded before the call returns. */
static int nlm_call(struct conn *c, int proc, const struct nlm_owner *o, struct fh *f,
                    int exclusive, int block, uint64_t off, uint64_t len)
{
    char cookie[4];
    uint32_t ck = htonl(++nlm_cookie_seq);
    memcpy(cookie, &ck, 4);
    nlm_cookie ck_obj = {.data = {.data_len = 4, .data_val = cookie}};
    int st = -1, rc;
    struct pend *p;
    switch (proc) {
    case L_NULL:
        p = mkpend(c, PROG_NLM, proc, NULL, NULL);
        rc = rpc_nlm4_null_async(c->rpc, on_reply, p);
        break;
    case L_TEST: {
        NLM4_TESTargs a = {.cookie = ck_obj, .exclusive = exclusive};
        nlm_fill(&a.lock, f, o, off, len);
        p = mkpend(c, PROG_NLM, proc, hook_nlmtest, &st);
        rc = rpc_nlm4_test_async(c->rpc, on_reply, &a, p);
        break;
    }
    case L_LOCK: {
        NLM4_LOCKargs a = {.cookie = ck_obj, .block = block, .exclusive = exclusive,
                           .reclaim = 0, .state = 1};
        nlm_fill(&a.lock, f, o, off, len);
        p = mkpend(c, PROG_NLM, proc, hook_nlmstat, &st);
        rc = rpc_nlm4_lock_async(c->rpc, on_reply, &a, p);
        break;
    }
    case L_CANCEL: {
        NLM4_CANCargs a = {.cookie = ck_obj, .block = block, .exclusive = exclusive};
        nlm_fill(&a.lock, f, o, off, len);
        p = mkpend(c, PROG_NLM, proc, hook_nlmstat, &st);
        rc = rpc_nlm4_cancel_async(c->rpc, on_reply, &a, p);
        break;
    }
    case L_UNLOCK: {
        NLM4_UNLOCKargs a = {.cookie = ck_obj};
        nlm_fill(&a.lock, f, o, off, len);
        p = mkpend(c, PROG_NLM, proc, hook_nlmstat, &st);
        rc = rpc_nlm4_unlock_async(c->rpc, on_reply, &a, p);
        break;
    }
    default: die("bad NLM procedure %d", proc); return -1;
    }
    sent(p, rc, nlm4_proc_names[proc]);
    ADD(C->nlm_calls[proc], 1);
    drain(c);
    if (proc != L_NULL)
        fprintf(stderr, "nfsgen: nlm %-6s %s %s%s [%" PRIu64 ", +%" PRIu64 ") -> %s\n",
                nlm4_proc_names[proc], o->oh, exclusive ? "exclusive" : "shared",
                block ? " block" : "", off, len,
                st >= 0 && st < NLM_NSTAT ? nlm4_status_names[st] : "?");
    return st;
}

static void nlm_expect(int got, int want, const char *what)
{
    if (got != want)
        die("%s: %s, expected %s", what,
            got >= 0 && got < NLM_NSTAT ? nlm4_status_names[got] : "?", nlm4_status_names[want]);
}

static void wl_nlm_locks(struct session *s)
{
    static const struct nlm_owner A = {"nfsgen-owner-A", 1001}, B = {"nfsgen-owner-B", 1002};
    struct conn *c = s->nfs;
    struct fh f = {0};
    if (gethostname(nlm_host, sizeof nlm_host - 1) != 0)
        strcpy(nlm_host, "nfsgen");
    q_lookup(c, &s->root, "locked.dat", NULL); /* NOENT */
    q_create(c, &s->root, "locked.dat", GUARDED, &f);
    drain(c);
    if (!f.ok)
        die("create locked.dat failed");
    char *buf = pattern(16384, "nlm-locks");
    q_write(c, &f, 0, 16384, FILE_SYNC, buf);
    drain(c);

    /* what a kernel's lockd does before its first lock: ask portmap for NLM v4 */
    int nlm_port = 0;
    struct conn *pm = conn_tcp(s->o->server, 111);
    pmap_lookup_vers(s, pm, PROG_NLM, 4, &nlm_port);
    drain(pm);
    conn_close(pm);
    if (nlm_port <= 0)
        die("portmap has no NLM v4 (is ganesha's Enable_NLM on and rpc.statd running?)");
    struct conn *n = conn_tcp(s->o->server, nlm_port);

    nlm_expect(nlm_call(n, L_LOCK, &A, &f, 1, 0, 0, 4096), NLM4_GRANTED, "A locks [0,4096)");
    nlm_expect(nlm_call(n, L_TEST, &B, &f, 1, 0, 0, 4096), NLM4_DENIED, "B tests [0,4096)");
    nlm_expect(nlm_call(n, L_TEST, &B, &f, 1, 0, 8192, 4096), NLM4_GRANTED, "B tests [8192,12288)");
    nlm_expect(nlm_call(n, L_LOCK, &B, &f, 1, 0, 1024, 4096), NLM4_DENIED, "B locks [1024,5120)");
    /* a blocking request: queued by the server, then cancelled while A still holds */
    nlm_expect(nlm_call(n, L_LOCK, &B, &f, 1, 1, 1024, 4096), NLM4_BLOCKED, "B block-locks");
    nlm_expect(nlm_call(n, L_CANCEL, &B, &f, 1, 1, 1024, 4096), NLM4_GRANTED, "B cancels");
    nlm_expect(nlm_call(n, L_UNLOCK, &A, &f, 1, 0, 0, 4096), NLM4_GRANTED, "A unlocks");
    nlm_expect(nlm_call(n, L_LOCK, &B, &f, 1, 0, 1024, 4096), NLM4_GRANTED, "B locks again");
    nlm_expect(nlm_call(n, L_TEST, &A, &f, 1, 0, 0, 0), NLM4_DENIED, "A tests the whole file");
    nlm_expect(nlm_call(n, L_UNLOCK, &B, &f, 1, 0, 1024, 4096), NLM4_GRANTED, "B unlocks");
    /* shared locks coexist; an exclusive one conflicts with the other owner's */
    nlm_expect(nlm_call(n, L_LOCK, &A, &f, 0, 0, 0, 0), NLM4_GRANTED, "A read-locks");
    nlm_expect(nlm_call(n, L_LOCK, &B, &f, 0, 0, 0, 0), NLM4_GRANTED, "B read-locks");
    nlm_expect(nlm_call(n, L_LOCK, &A, &f, 1, 0, 0, 0), NLM4_DENIED, "A upgrades");
    nlm_expect(nlm_call(n, L_UNLOCK, &A, &f, 0, 0, 0, 0), NLM4_GRANTED, "A unlocks all");
    nlm_expect(nlm_call(n, L_UNLOCK, &B, &f, 0, 0, 0, 0), NLM4_GRANTED, "B unlocks all");
    /* unlocking what is not held is granted too */
    nlm_expect(nlm_call(n, L_UNLOCK, &A, &f, 1, 0, 0, 4096), NLM4_GRANTED, "A unlocks again");
    nlm_call(n, L_NULL, NULL, NULL, 0, 0, 0, 0);
    conn_close(n);

    q_remove(c, &s->root, "locked.dat");
    drain(c);
    free(buf);
}

/* nlm-blocked: a blocked lock granted by the server's callback (XNFS 3W
 * chapter 14). Owner A (caller_name: the host name) locks [0,4096) of a
 * file; owner B (caller_name: the client's own address, so the server can
 * call it back) asks for the same range with block = TRUE on a second
 * connection and gets NLM4_BLOCKED. A keeps its lock NLM_HOLD_MS, then
 * unlocks; the server then calls B's host back: it asks the client's rpcbind
 * where NLM v4 listens (nfsgen answers as that rpcbind, on port 111) and
 * sends GRANTED_MSG (or GRANTED) there (nfsgen answers on port 4045, as
 * lockd would); nfsgen answers and sends GRANTED_RES back. Every RPC on the
 * wire is still one nfsgen sent or answered, and counted. The wait seen on
 * the wire, LOCK call to GRANTED call, is at least NLM_HOLD_MS and, on an
 * idle machine, well under NLM_HOLD_MS + NLM_EXTRA_MS. */
#define NLM_HOLD_MS 1000
#define NLM_EXTRA_MS 2000
#define CB_NLM_PORT 4045
static int lockwait_expect;

struct cbsrv {
    int lfd, fd;         /* listening socket, accepted connection (-1: none) */
    uint8_t buf[16384];
    size_t have;
};
static struct cbsrv cb_pmap = {-1, -1, {0}, 0}, cb_nlm = {-1, -1, {0}, 0};
static int cb_granted;           /* callbacks answered */
static struct timespec cb_granted_at;
static uint8_t cb_cookie[1024];
static uint32_t cb_cookie_len;
static int cb_server_nlm_port;
static const char *cb_server;
static char cb_machine[64]; /* B's caller_name, also the GRANTED_RES machine name */

static int cb_listen(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (fd < 0)
        die("socket: %s", strerror(errno));
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 4) != 0)
        die("listen on port %d: %s", port, strerror(errno));
    return fd;
}

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }
static void wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* An XDR reader over one record: fails (ok = 0) instead of reading past it. */
struct xr { const uint8_t *p; size_t n, at; int ok; };
static uint32_t xr32(struct xr *x)
{
    if (!x->ok || x->n - x->at < 4) { x->ok = 0; return 0; }
    x->at += 4;
    return rd32(x->p + x->at - 4);
}
static const uint8_t *xropaque(struct xr *x, uint32_t *len)
{
    *len = xr32(x);
    size_t pad = ((size_t)*len + 3) & ~(size_t)3;
    if (!x->ok || *len > 1024 || x->n - x->at < pad) { x->ok = 0; return NULL; }
    x->at += pad;
    return x->p + x->at - pad;
}

/* Send one record (last fragment) on fd, mark and message in one segment
 * (tshark 4.0 does not recognise RPC on a new connection whose first
 * segment is a bare record mark). */
static void cb_send(int fd, const uint8_t *msg, size_t n)
{
    uint8_t rec[4 + 1024];
    if (n > sizeof rec - 4)
        die("callback: record of %zu bytes", n);
    wr32(rec, 0x80000000u | (uint32_t)n);
    memcpy(rec + 4, msg, n);
    if (write(fd, rec, 4 + n) != (ssize_t)(4 + n))
        die("callback send: %s", strerror(errno));
}

/* An accepted reply header (RFC 5531 §9: REPLY, MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS). */
static size_t cb_reply_head(uint8_t *r, uint32_t xid)
{
    wr32(r, xid), wr32(r + 4, 1), wr32(r + 8, 0), wr32(r + 12, 0), wr32(r + 16, 0), wr32(r + 20, 0);
    return 24;
}

/* GRANTED_RES to the server's NLM: the callback's cookie, NLM4_GRANTED.
 * libnfs 4.0 has no *_RES calls, so it is encoded here: AUTH_UNIX
 * (machine name, uid 0, gid 0), on a connection of its own, as lockd does. */
static void cb_granted_res(const char *machine)
{
    uint8_t m[1024], rep[512];
    size_t k = 0, ml = strlen(machine);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)cb_server_nlm_port)};
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || inet_pton(AF_INET, cb_server, &a.sin_addr) != 1 ||
        connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
        die("GRANTED_RES: connect to %s:%d: %s", cb_server, cb_server_nlm_port, strerror(errno));
    wr32(m + k, 0x4e4c4d00u | (uint32_t)cb_granted), k += 4; /* xid */
    wr32(m + k, 0), k += 4;                                   /* CALL */
    wr32(m + k, 2), k += 4;
    wr32(m + k, PROG_NLM), k += 4;
    wr32(m + k, 4), k += 4;
    wr32(m + k, L_GRANTED_RES), k += 4;
    wr32(m + k, 1), k += 4; /* AUTH_UNIX */
    wr32(m + k, (uint32_t)(4 + 4 + ((ml + 3) & ~(size_t)3) + 12)), k += 4;
    wr32(m + k, 0), k += 4; /* stamp */
    wr32(m + k, (uint32_t)ml), k += 4;
    memset(m + k, 0, (ml + 3) & ~(size_t)3);
    memcpy(m + k, machine, ml), k += (ml + 3) & ~(size_t)3;
    wr32(m + k, 0), k += 4; /* uid */
    wr32(m + k, 0), k += 4; /* gid */
    wr32(m + k, 0), k += 4; /* no other gids */
    wr32(m + k, 0), k += 4; /* verifier AUTH_NONE */
    wr32(m + k, 0), k += 4;
    wr32(m + k, cb_cookie_len), k += 4; /* nlm4_res: cookie, stat */
    memset(m + k, 0, (cb_cookie_len + 3) & ~3u);
    memcpy(m + k, cb_cookie, cb_cookie_len), k += (cb_cookie_len + 3) & ~3u;
    wr32(m + k, NLM4_GRANTED), k += 4;
    cb_send(fd, m, k);
    ADD(C->rpc_calls, 1);
    ADD(C->nlm_calls[L_GRANTED_RES], 1);
    /* its status travels in the call: not counted (tshark counts reply statuses) */
    size_t have = 0;
    while (have < 4 + 24) { /* the (void) reply: mark and accepted header */
        ssize_t got = read(fd, rep + have, sizeof rep - have);
        if (got <= 0)
            die("GRANTED_RES: no reply");
        have += (size_t)got;
    }
    if (rd32(rep + 4) != rd32(m) || rd32(rep + 8) != 1 || rd32(rep + 12) != 0 || rd32(rep + 24) != 0)
        die("GRANTED_RES: not accepted");
    ADD(C->rpc_replies, 1);
    ADD(C->nlm_replies[L_GRANTED_RES], 1);
    close(fd);
}

/* One call received on a callback connection: answered, counted. */
static void cb_call(struct cbsrv *s, const uint8_t *m, size_t n)
{
    struct xr x = {m, n, 0, 1};
    uint8_t r[256];
    size_t k;
    uint32_t xid = xr32(&x), len;
    if (xr32(&x) != 0 || xr32(&x) != 2)
        die("callback: not an RPC call");
    uint32_t prog = xr32(&x), vers = xr32(&x), proc = xr32(&x);
    xr32(&x), xropaque(&x, &len); /* credential */
    xr32(&x), xropaque(&x, &len); /* verifier */
    if (!x.ok)
        die("callback: short call");
    ADD(C->rpc_calls, 1);
    k = cb_reply_head(r, xid);
    if (s == &cb_pmap && prog == PROG_PMAP && proc == 3) {
        /* portmap v2 GETPORT (mapping) or rpcbind v3/v4 GETADDR (rpcb):
         * where NLM v4 over TCP listens; anything else is not registered */
        uint32_t want_prog = xr32(&x), want_vers = xr32(&x);
        int ours = want_prog == PROG_NLM && want_vers == 4;
        int slot = vers == 2 ? PM_GETPORT : vers == 3 ? PM_GETADDR : PM_GETADDR4;
        if (vers == 2) {
            wr32(r + k, ours ? CB_NLM_PORT : 0), k += 4;
        } else {
            struct sockaddr_in me;
            socklen_t ml = sizeof me;
            char ua[64] = "";
            if (ours && getsockname(s->fd, (struct sockaddr *)&me, &ml) == 0)
                snprintf(ua, sizeof ua, "%s.%d.%d", inet_ntoa(me.sin_addr), CB_NLM_PORT >> 8,
                         CB_NLM_PORT & 0xff);
            uint32_t ul = (uint32_t)strlen(ua);
            wr32(r + k, ul), k += 4;
            memset(r + k, 0, (ul + 3) & ~3u);
            memcpy(r + k, ua, ul), k += (ul + 3) & ~3u;
        }
        ADD(C->pm_calls[slot], 1);
        ADD(C->pm_replies[slot], 1);
        fprintf(stderr, "nfsgen: callback: rpcbind v%u getaddr of %u v%u: %s\n", vers, want_prog,
                want_vers, ours ? "NLM v4" : "not registered");
    } else if (s == &cb_nlm && prog == PROG_NLM && vers == 4 &&
               (proc == L_GRANTED || proc == L_GRANTED_MSG)) {
        /* nlm4_testargs: cookie, exclusive, alock */
        const uint8_t *ck = xropaque(&x, &cb_cookie_len);
        if (!x.ok)
            die("callback: short GRANTED arguments");
        memcpy(cb_cookie, ck, cb_cookie_len);
        clock_gettime(CLOCK_MONOTONIC, &cb_granted_at);
        if (proc == L_GRANTED) { /* nlm4_res: cookie, NLM4_GRANTED */
            wr32(r + k, cb_cookie_len), k += 4;
            memset(r + k, 0, (cb_cookie_len + 3) & ~3u);
            if (cb_cookie_len > 64)
                die("callback: cookie of %u bytes", cb_cookie_len);
            memcpy(r + k, cb_cookie, cb_cookie_len), k += (cb_cookie_len + 3) & ~3u;
            wr32(r + k, NLM4_GRANTED), k += 4;
            ADD(C->nlm_status[L_GRANTED][NLM4_GRANTED], 1);
        }
        ADD(C->nlm_calls[proc], 1);
        ADD(C->nlm_replies[proc], 1);
        fprintf(stderr, "nfsgen: callback: nlm %s\n", nlm4_proc_names[proc]);
        cb_send(s->fd, r, k);
        ADD(C->rpc_replies, 1);
        cb_granted++;
        if (proc == L_GRANTED_MSG)
            cb_granted_res(cb_machine);
        return;
    } else {
        die("callback: unexpected call: program %u version %u procedure %u", prog, vers, proc);
    }
    cb_send(s->fd, r, k);
    ADD(C->rpc_replies, 1);
}

/* Serve the callback sockets for up to timeout_ms. */
static void cb_service(int timeout_ms)
{
    struct cbsrv *all[2] = {&cb_pmap, &cb_nlm};
    struct pollfd pfd[4];
    struct cbsrv *who[4];
    int n = 0;
    for (int i = 0; i < 2; i++) {
        pfd[n] = (struct pollfd){.fd = all[i]->fd >= 0 ? all[i]->fd : all[i]->lfd, .events = POLLIN};
        who[n++] = all[i];
    }
    if (poll(pfd, (nfds_t)n, timeout_ms) <= 0)
        return;
    for (int i = 0; i < n; i++) {
        struct cbsrv *s = who[i];
        if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        if (s->fd < 0) {
            s->fd = accept(s->lfd, NULL, NULL);
            s->have = 0;
            continue;
        }
        ssize_t got = read(s->fd, s->buf + s->have, sizeof s->buf - s->have);
        if (got <= 0) { /* the server closed its side */
            close(s->fd);
            s->fd = -1;
            continue;
        }
        s->have += (size_t)got;
        while (s->have >= 4) {
            uint32_t mark = rd32(s->buf), len = mark & 0x7fffffffu;
            if (!(mark & 0x80000000u) || len > sizeof s->buf - 4)
                die("callback: record of %u bytes in fragments", len);
            if (s->have < 4 + (size_t)len)
                break;
            cb_call(s, s->buf + 4, len);
            memmove(s->buf, s->buf + 4 + len, s->have - 4 - len);
            s->have -= 4 + len;
        }
    }
}

static double ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

static void wl_nlm_blocked(struct session *s)
{
    static const struct nlm_owner A = {"nfsgen-owner-A", 2001}, B = {"nfsgen-owner-B", 2002};
    struct conn *c = s->nfs;
    struct fh f = {0};
    char host_a[256], host_b[64];
    if (gethostname(host_a, sizeof host_a - 1) != 0)
        strcpy(host_a, "nfsgen");
    host_a[sizeof host_a - 1] = 0;
    lockwait_expect = 1;
    q_create(c, &s->root, "blocked.dat", GUARDED, &f);
    drain(c);
    if (!f.ok)
        die("create blocked.dat failed");
    char *buf = pattern(4096, "nlm-blocked");
    q_write(c, &f, 0, 4096, FILE_SYNC, buf);
    drain(c);

    int nlm_port = 0;
    struct conn *pm = conn_tcp(s->o->server, 111);
    pmap_lookup_vers(s, pm, PROG_NLM, 4, &nlm_port);
    drain(pm);
    conn_close(pm);
    if (nlm_port <= 0)
        die("portmap has no NLM v4 (is ganesha's Enable_NLM on and rpc.statd running?)");
    cb_server = s->o->server;
    cb_server_nlm_port = nlm_port;
    cb_pmap.lfd = cb_listen(111);
    cb_nlm.lfd = cb_listen(CB_NLM_PORT);
    struct conn *na = conn_tcp(s->o->server, nlm_port), *nb = conn_tcp(s->o->server, nlm_port);
    /* B's caller_name: this host's address on the path to the server */
    {
        struct sockaddr_in me;
        socklen_t ml = sizeof me;
        if (getsockname(rpc_get_fd(nb->rpc), (struct sockaddr *)&me, &ml) != 0)
            die("getsockname: %s", strerror(errno));
        snprintf(host_b, sizeof host_b, "%s", inet_ntoa(me.sin_addr));
        snprintf(cb_machine, sizeof cb_machine, "%s", host_b);
    }

    strcpy(nlm_host, host_a);
    nlm_expect(nlm_call(na, L_LOCK, &A, &f, 1, 0, 0, 4096), NLM4_GRANTED, "A locks [0,4096)");
    strcpy(nlm_host, host_b);
    nlm_expect(nlm_call(nb, L_LOCK, &B, &f, 1, 1, 0, 4096), NLM4_BLOCKED, "B block-locks");
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (ms_since(&t0) < NLM_HOLD_MS)
        cb_service(10);
    if (cb_granted)
        die("granted while A still holds the lock");
    strcpy(nlm_host, host_a);
    nlm_expect(nlm_call(na, L_UNLOCK, &A, &f, 1, 0, 0, 4096), NLM4_GRANTED, "A unlocks");
    while (!cb_granted && ms_since(&t0) < 30000)
        cb_service(100);
    if (!cb_granted)
        die("the server never called back GRANTED");
    {
        double waited = (double)(cb_granted_at.tv_sec - t0.tv_sec) * 1e3 +
                        (double)(cb_granted_at.tv_nsec - t0.tv_nsec) / 1e6;
        fprintf(stderr, "nfsgen: B granted %.1f ms after its blocking LOCK was answered\n", waited);
        if (waited > NLM_HOLD_MS + NLM_EXTRA_MS / 2)
            die("the wait (%.1f ms) is too long for the expect file's bound", waited);
    }
    /* let the server close its callback connection before B unlocks */
    for (int i = 0; i < 5; i++)
        cb_service(100);
    strcpy(nlm_host, host_b);
    nlm_expect(nlm_call(nb, L_UNLOCK, &B, &f, 1, 0, 0, 4096), NLM4_GRANTED, "B unlocks");
    conn_close(na);
    conn_close(nb);
    for (int i = 0; i < 5; i++)
        cb_service(100);
    q_remove(c, &s->root, "blocked.dat");
    drain(c);
    free(buf);
}

/* ------------------------------------------------------------------ */
/* JSON expect file                                                     */

static void write_expect(struct opts *o)
{
    FILE *fp = fopen(o->expect, "w");
    if (!fp)
        die("open %s: %s", o->expect, strerror(errno));
    fprintf(fp, "{\n  \"schema\": \"nfsgen-expect/1\",\n");
    fprintf(fp, "  \"sample\": \"%s\",\n", o->name ? o->name : o->workload);
    fprintf(fp, "  \"workload\": \"%s\",\n", o->workload);
    fprintf(fp, "  \"transport\": \"%s\",\n", o->udp ? "udp" : "tcp");
    fprintf(fp, "  \"ip\": \"%s\",\n", o->ipv6 ? "ipv6" : "ipv4");
    fprintf(fp, "  \"clients\": %d,\n", o->clients);
    fprintf(fp, "  \"rpc\": { \"calls\": %" PRIu64 ", \"replies\": %" PRIu64 " },\n",
            C->rpc_calls, C->rpc_replies);
    fprintf(fp, "  \"nfs3\": {\n    \"ops\": {\n");
    for (int p = 0; p < NFS3_NPROC; p++) {
        fprintf(fp, "      \"%s\": { \"calls\": %" PRIu64 ", \"replies\": %" PRIu64 ", \"status\": {",
                nfs3_proc_names[p], C->nfs_calls[p], C->nfs_replies[p]);
        int first = 1;
        for (int k = 0; k <= NSTAT; k++) {
            if (!C->nfs_status[p][k])
                continue;
            fprintf(fp, "%s\"%s\": %" PRIu64, first ? " " : ", ",
                    k < NSTAT ? nfs3_status_names[k].name : "UNKNOWN", C->nfs_status[p][k]);
            first = 0;
        }
        fprintf(fp, "%s} }%s\n", first ? "" : " ", p + 1 < NFS3_NPROC ? "," : "");
    }
    fprintf(fp, "    },\n    \"write\": {\n      \"stable\": {");
    for (int k = 0; k < 3; k++)
        fprintf(fp, "%s\"%s\": %" PRIu64, k ? ", " : " ", stable_names[k], C->write_stable[k]);
    fprintf(fp, " },\n      \"committed\": {");
    for (int k = 0; k < 3; k++)
        fprintf(fp, "%s\"%s\": %" PRIu64, k ? ", " : " ", stable_names[k], C->write_committed[k]);
    fprintf(fp, " },\n      \"bytes\": %" PRIu64 "\n    },\n", C->write_bytes);
    fprintf(fp, "    \"read\": { \"bytes\": %" PRIu64 " }\n  },\n", C->read_bytes);

    fprintf(fp, "  \"mount\": {\n    \"ops\": {\n");
    int firstop = 1;
    for (int p = 0; p < 6; p++) {
        if (!C->mnt_calls[p])
            continue;
        fprintf(fp, "%s      \"%s\": { \"calls\": %" PRIu64 ", \"replies\": %" PRIu64 ", \"status\": {",
                firstop ? "" : ",\n", mnt3_proc_names[p], C->mnt_calls[p], C->mnt_replies[p]);
        firstop = 0;
        int first = 1;
        for (int k = 0; k <= NMSTAT; k++) {
            if (!C->mnt_status[p][k])
                continue;
            fprintf(fp, "%s\"%s\": %" PRIu64, first ? " " : ", ",
                    k < NMSTAT ? mnt3_status_names[k].name : "UNKNOWN", C->mnt_status[p][k]);
            first = 0;
        }
        fprintf(fp, "%s} }", first ? "" : " ");
    }
    fprintf(fp, "\n    }\n  },\n");
    fprintf(fp, "  \"portmap\": {\n    \"ops\": {\n");
    firstop = 1;
    for (int p = 0; p < PM_N; p++) {
        if (!C->pm_calls[p])
            continue;
        fprintf(fp, "%s      \"%s\": { \"version\": %d, \"calls\": %" PRIu64 ", \"replies\": %" PRIu64 " }",
                firstop ? "" : ",\n", pmap_names[p], pmap_vers[p], C->pm_calls[p],
                C->pm_replies[p]);
        firstop = 0;
    }
    fprintf(fp, "\n    }\n  }");
    uint64_t nlm_total = 0;
    for (int p = 0; p < NLM_NPROC; p++)
        nlm_total += C->nlm_calls[p];
    if (nlm_total) { /* only nlm-locks: the other expect files stay as they were */
        fprintf(fp, ",\n  \"nlm4\": {\n    \"ops\": {\n");
        firstop = 1;
        for (int p = 0; p < NLM_NPROC; p++) {
            if (!C->nlm_calls[p] || !nlm4_proc_names[p])
                continue;
            fprintf(fp, "%s      \"%s\": { \"calls\": %" PRIu64 ", \"replies\": %" PRIu64 ", \"status\": {",
                    firstop ? "" : ",\n", nlm4_proc_names[p], C->nlm_calls[p], C->nlm_replies[p]);
            firstop = 0;
            int first = 1;
            for (int k = 0; k <= NLM_NSTAT; k++) {
                if (!C->nlm_status[p][k])
                    continue;
                fprintf(fp, "%s\"%s\": %" PRIu64, first ? " " : ", ",
                        k < NLM_NSTAT ? nlm4_status_names[k] : "UNKNOWN", C->nlm_status[p][k]);
                first = 0;
            }
            fprintf(fp, "%s} }", first ? "" : " ");
        }
        fprintf(fp, "\n    }\n  }");
    }
    if (lockwait_expect) /* nlm-blocked: the wait it made (tests/e2e_lockwaits.py) */
        fprintf(fp, ",\n  \"lock_waits\": { \"blocked\": 1, \"granted\": 1, \"cancelled\": 0, "
                    "\"pending\": 0, \"min_wait_us\": %d, \"max_extra_us\": %d }",
                NLM_HOLD_MS * 1000, NLM_EXTRA_MS * 1000);
    if (o->clients > 1) { /* each forked client's own share (tests/e2e_breakdowns.py) */
        fprintf(fp, ",\n  \"per_client\": [");
        for (int i = 1; i <= o->clients; i++) {
            const struct client_rec *r = &C->cl[i];
            fprintf(fp, "%s\n    { \"address\": \"%s\", \"server\": \"%s\", \"calls\": %" PRIu64 ", \"replies\": %" PRIu64
                        ", \"errors\": %" PRIu64 ", \"nfs3_calls\": %" PRIu64 ", \"read_bytes\": %" PRIu64
                        ", \"write_bytes\": %" PRIu64 ", \"write_stable\": {",
                    i > 1 ? "," : "", r->addr, r->server, r->calls, r->replies, r->errors, r->nfs_calls,
                    r->read_bytes, r->write_bytes);
            for (int k = 0; k < 3; k++)
                fprintf(fp, "%s\"%s\": %" PRIu64, k ? ", " : " ", stable_names[k], r->write_stable[k]);
            fprintf(fp, " } }");
        }
        fprintf(fp, "\n  ]");
    }
    fprintf(fp, "\n}\n");
    if (fclose(fp) != 0)
        die("write %s failed", o->expect);
}

/* ------------------------------------------------------------------ */

static void run_one(struct opts *o, int id)
{
    struct session s;
    self = id;
    snprintf(C->cl[id].server, sizeof C->cl[id].server, "%s", o->server);
    memset(&s, 0, sizeof s);
    s.o = o;
    int is_all_ops = !strcmp(o->workload, "all-ops");
    do_mount(&s, is_all_ops);
    if (is_all_ops)
        wl_all_ops(&s);
    else if (!strcmp(o->workload, "ls-storm"))
        wl_ls_storm(&s);
    else if (!strcmp(o->workload, "cms-page"))
        wl_cms_page(&s);
    else if (!strcmp(o->workload, "stable-writes"))
        wl_writes(&s, 0);
    else if (!strcmp(o->workload, "unstable-writes"))
        wl_writes(&s, 1);
    else if (!strcmp(o->workload, "bulk-io"))
        wl_bulk_io(&s);
    else if (!strcmp(o->workload, "serial-io"))
        wl_serial_io(&s);
    else if (!strcmp(o->workload, "udp-frag"))
        wl_udp_frag(&s);
    else if (!strcmp(o->workload, "mixed"))
        wl_mixed(&s, id);
    else if (!strcmp(o->workload, "nlm-locks"))
        wl_nlm_locks(&s);
    else if (!strcmp(o->workload, "nlm-blocked"))
        wl_nlm_blocked(&s);
    else
        die("unknown workload %s", o->workload);
    do_umount(&s);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: nfsgen --workload NAME --server ADDR --export PATH --expect FILE [--name SAMPLE]\n"
            "              [--ro-export PATH] [--udp] [--ipv6] [--clients N] [--depth N]\n"
            "              [--servers ADDR,ADDR,...]  (forked client k uses the k-th, in turn)\n"
            "workloads: all-ops ls-storm cms-page stable-writes unstable-writes bulk-io\n"
            "           serial-io udp-frag mixed nlm-locks nlm-blocked\n");
    exit(2);
}

int main(int argc, char **argv)
{
    struct opts o = {.clients = 1, .depth = 8};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--udp"))
            o.udp = 1;
        else if (!strcmp(a, "--ipv6"))
            o.ipv6 = 1;
        else if (v && !strcmp(a, "--workload"))
            o.workload = v, i++;
        else if (v && !strcmp(a, "--name"))
            o.name = v, i++;
        else if (v && !strcmp(a, "--server"))
            o.server = v, i++;
        else if (v && !strcmp(a, "--export"))
            o.export = v, i++;
        else if (v && !strcmp(a, "--ro-export"))
            o.ro_export = v, i++;
        else if (v && !strcmp(a, "--expect"))
            o.expect = v, i++;
        else if (v && !strcmp(a, "--clients"))
            o.clients = atoi(v), i++;
        else if (v && !strcmp(a, "--servers")) {
            for (char *t = strtok(strdup(v), ","); t && o.nservers < 64; t = strtok(NULL, ","))
                o.servers[o.nservers++] = t;
            i++;
        }
        else if (v && !strcmp(a, "--depth"))
            o.depth = atoi(v), i++;
        else
            usage();
    }
    if (!o.workload || !o.server || !o.export || !o.expect || o.clients < 1 || o.depth < 1)
        usage();
    if (o.udp && o.ipv6)
        die("libnfs 4.0 binds UDP sockets for IPv4 only");

    C = mmap(NULL, sizeof *C, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (C == MAP_FAILED)
        die("mmap: %s", strerror(errno));
    memset(C, 0, sizeof *C);

    if (o.clients == 1) {
        run_one(&o, 0);
    } else {
        pid_t pids[64];
        if (o.clients > 64)
            die("at most 64 clients");
        for (int i = 0; i < o.clients; i++) {
            pids[i] = fork();
            if (pids[i] < 0)
                die("fork: %s", strerror(errno));
            if (pids[i] == 0) {
                if (o.nservers)
                    o.server = o.servers[i % o.nservers];
                run_one(&o, i + 1);
                _exit(0);
            }
        }
        int failed = 0;
        for (int i = 0; i < o.clients; i++) {
            int st;
            if (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
                failed = 1;
        }
        if (failed)
            die("a client failed");
    }
    if (C->rpc_calls != C->rpc_replies)
        die("%" PRIu64 " calls but %" PRIu64 " replies", C->rpc_calls, C->rpc_replies);
    write_expect(&o);
    return 0;
}
