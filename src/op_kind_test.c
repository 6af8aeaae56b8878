/* SPDX-License-Identifier: BSD-3-Clause */
/* op_kind_test.c: the operation table of every registered program: each
 * procedure has its RFC name and the kind the RFC gives it, gaps are marked
 * as gaps, flags agree with the kinds, and every kind has a name. */
#include "op_kind.h"

#include <string.h>

#include "dissector.h"
#include "t.h"

struct want {
    const char *name; /* NULL: a gap in the numbering */
    unsigned kind;
};

#define GAP { NULL, OPK_OTHER }

/* RFC 1813 §3.3.0-§3.3.21, in procedure order. */
static const struct want nfs3[] = {
    { "null", OPK_NULL },       { "getattr", OPK_GETATTR },
    { "setattr", OPK_SETATTR }, { "lookup", OPK_LOOKUP },
    { "access", OPK_ACCESS },   { "readlink", OPK_READLINK },
    { "read", OPK_READ },       { "write", OPK_WRITE },
    { "create", OPK_CREATE },   { "mkdir", OPK_MKDIR },
    { "symlink", OPK_SYMLINK }, { "mknod", OPK_MKNOD },
    { "remove", OPK_REMOVE },   { "rmdir", OPK_RMDIR },
    { "rename", OPK_RENAME },   { "link", OPK_LINK },
    { "readdir", OPK_READDIR }, { "readdirplus", OPK_READDIRPLUS },
    { "fsstat", OPK_FSSTAT },   { "fsinfo", OPK_FSINFO },
    { "pathconf", OPK_PATHCONF }, { "commit", OPK_COMMIT },
};
/* RFC 1094 §2.2.0-§2.2.17 (ROOT and WRITECACHE are obsolete). */
static const struct want nfs2[] = {
    { "null", OPK_NULL },      { "getattr", OPK_GETATTR }, { "setattr", OPK_SETATTR },
    { "root", OPK_OTHER },     { "lookup", OPK_LOOKUP },   { "readlink", OPK_READLINK },
    { "read", OPK_READ },      { "writecache", OPK_OTHER }, { "write", OPK_WRITE },
    { "create", OPK_CREATE },  { "remove", OPK_REMOVE },   { "rename", OPK_RENAME },
    { "link", OPK_LINK },      { "symlink", OPK_SYMLINK }, { "mkdir", OPK_MKDIR },
    { "rmdir", OPK_RMDIR },    { "readdir", OPK_READDIR }, { "statfs", OPK_FSSTAT },
};
/* RFC 1094 appendix A, RFC 1813 §5.2 (MOUNT v1 .. v3). */
static const struct want mount2[] = {
    { "null", OPK_NULL },    { "mnt", OPK_MOUNT },         { "dump", OPK_MOUNT_LIST },
    { "umnt", OPK_UNMOUNT }, { "umntall", OPK_UNMOUNT },   { "export", OPK_EXPORTS },
    { "exportall", OPK_EXPORTS }, { "pathconf", OPK_PATHCONF },
};
/* XNFS 3W chapter 10 (NLM v1, v3) and 14 (v4). */
static const struct want nlm4[] = {
    { "null", OPK_NULL },
    { "test", OPK_LOCK_TEST },        { "lock", OPK_LOCK },
    { "cancel", OPK_LOCK_CANCEL },    { "unlock", OPK_UNLOCK },
    { "granted", OPK_LOCK_GRANTED },  { "test_msg", OPK_LOCK_TEST },
    { "lock_msg", OPK_LOCK },         { "cancel_msg", OPK_LOCK_CANCEL },
    { "unlock_msg", OPK_UNLOCK },     { "granted_msg", OPK_LOCK_GRANTED },
    { "test_res", OPK_LOCK_RESULT },  { "lock_res", OPK_LOCK_RESULT },
    { "cancel_res", OPK_LOCK_RESULT }, { "unlock_res", OPK_LOCK_RESULT },
    { "granted_res", OPK_LOCK_RESULT },
    GAP, GAP, GAP, GAP,
    { "share", OPK_SHARE },           { "unshare", OPK_UNSHARE },
    { "nm_lock", OPK_LOCK },          { "free_all", OPK_FREE_ALL },
};
/* XNFS 3W chapter 11 (NSM). */
static const struct want nsm1[] = {
    { "null", OPK_NULL },           { "stat", OPK_STATUS },     { "mon", OPK_MONITOR },
    { "unmon", OPK_UNMONITOR },     { "unmon_all", OPK_UNMONITOR },
    { "simu_crash", OPK_NOTIFY },   { "notify", OPK_NOTIFY },
};
/* RFC 1833 §3.1 (portmap v2), §2.2 (rpcbind v3, v4). */
static const struct want portmap2[] = {
    { "null", OPK_NULL },          { "set", OPK_PORT_SET },   { "unset", OPK_PORT_UNSET },
    { "getport", OPK_PORT_LOOKUP }, { "dump", OPK_PORT_LIST }, { "callit", OPK_CALL_INDIRECT },
};
static const struct want rpcbind3[] = {
    { "null", OPK_NULL },                { "set", OPK_PORT_SET },
    { "unset", OPK_PORT_UNSET },         { "getaddr", OPK_PORT_LOOKUP },
    { "dump", OPK_PORT_LIST },           { "callit", OPK_CALL_INDIRECT },
    { "gettime", OPK_OTHER },            { "uaddr2taddr", OPK_ADDR_CONVERT },
    { "taddr2uaddr", OPK_ADDR_CONVERT },
};
static const struct want rpcbind4[] = {
    { "null", OPK_NULL },                { "set", OPK_PORT_SET },
    { "unset", OPK_PORT_UNSET },         { "getaddr", OPK_PORT_LOOKUP },
    { "dump", OPK_PORT_LIST },           { "bcast", OPK_CALL_INDIRECT },
    { "gettime", OPK_OTHER },            { "uaddr2taddr", OPK_ADDR_CONVERT },
    { "taddr2uaddr", OPK_ADDR_CONVERT }, { "getversaddr", OPK_PORT_LOOKUP },
    { "indirect", OPK_CALL_INDIRECT },   { "getaddrlist", OPK_PORT_LOOKUP },
    { "getstat", OPK_STATUS },
};
/* The NFSACL side protocol (Solaris, Linux fs/nfsd/nfs2acl.c, nfs3acl.c). */
static const struct want nfsacl2[] = {
    { "null", OPK_NULL },      { "getacl", OPK_GETACL }, { "setacl", OPK_SETACL },
    { "getattr", OPK_GETATTR }, { "access", OPK_ACCESS }, { "getxattrdir", OPK_LOOKUP },
};
static const struct want nfsacl3[] = {
    { "null", OPK_NULL }, { "getacl", OPK_GETACL }, { "setacl", OPK_SETACL },
    { "getxattrdir", OPK_LOOKUP },
};
/* RFC 8881 §16: NULL and COMPOUND, whose kind is its operations'. */
static const struct want nfs4[] = {
    { "null", OPK_NULL }, { "compound", OPK_OTHER },
};

#define N(a) (sizeof a / sizeof *a)
static const struct {
    const char *prog;
    const struct want *w;
    size_t n;
} expected[] = {
    { "nfs2", nfs2, N(nfs2) },         { "nfs3", nfs3, N(nfs3) },
    { "mount1", mount2, 7 },           { "mount2", mount2, N(mount2) },
    { "mount3", mount2, 6 },           { "nlm1", nlm4, 16 },
    { "nlm3", nlm4, N(nlm4) },         { "nlm4", nlm4, N(nlm4) },
    { "nsm1", nsm1, N(nsm1) },         { "portmap2", portmap2, N(portmap2) },
    { "rpcbind3", rpcbind3, N(rpcbind3) },       { "rpcbind4", rpcbind4, N(rpcbind4) },
    { "nfsacl2", nfsacl2, N(nfsacl2) }, { "nfsacl3", nfsacl3, N(nfsacl3) },
    { "nfs4", nfs4, N(nfs4) },          { "nfs4_cb", nfs4, N(nfs4) }, /* CB_NULL, CB_COMPOUND */
};

static const struct rpc_program *
find(const char *name)
{
    size_t i;

    for (i = 0; rpc_programs[i]; i++)
        if (strcmp(rpc_programs[i]->name, name) == 0)
            return rpc_programs[i];
    return NULL;
}

/* Every registered program: a table, and the one expected above. */
static void
test_tables(void)
{
    size_t i, e, nprog = 0;

    for (i = 0; rpc_programs[i]; i++) {
        const struct rpc_program *pg = rpc_programs[i];
        bool listed = false;
        uint32_t p;

        nprog++;
        CHECK(pg->procs != NULL && pg->nprocs > 0);
        for (e = 0; e < N(expected); e++)
            listed |= strcmp(expected[e].prog, pg->name) == 0;
        if (!listed) /* a new program: add its table above */
            fprintf(stderr, "no expected table for %s\n", pg->name);
        CHECK(listed);
        for (p = 0; pg->procs && p < pg->nprocs; p++) {
            const struct rpc_op *op = &pg->procs[p];

            CHECK(op->kind < OPK__COUNT);
            if (!op->name) { /* a gap: no kind, no flags */
                EQ(op->kind, OPK_OTHER);
                EQ(op->flags, 0);
            }
            if (p == 0) { /* RFC 5531 §12.1: procedure 0 of every program */
                STREQ(op->name, "null");
                EQ(op->kind, OPK_NULL);
            }
            /* Only modifying kinds say they modify. */
            if (op->flags & OPF_MOD_DATA)
                CHECK(op->kind == OPK_WRITE);
            if (op->flags & OPF_RANGE)
                CHECK(op->kind == OPK_READ || op->kind == OPK_WRITE || op->kind == OPK_COMMIT);
            CHECK(rpc_proc(pg, p) == op);
            CHECK(rpc_proc_name(pg, p) == op->name);
        }
        CHECK(rpc_proc(pg, pg->nprocs) == NULL);
        CHECK(rpc_proc_name(pg, pg->nprocs) == NULL);
    }
    EQ(nprog, N(expected));
    for (e = 0; e < N(expected); e++) {
        const struct rpc_program *pg = find(expected[e].prog);
        uint32_t p;
        unsigned bad = 0;

        CHECK(pg != NULL);
        if (!pg)
            continue;
        EQ(pg->nprocs, expected[e].n);
        for (p = 0; p < pg->nprocs && p < expected[e].n; p++) {
            const struct want *w = &expected[e].w[p];
            const char *a = pg->procs[p].name;

            if ((a == NULL) != (w->name == NULL) || (a && strcmp(a, w->name) != 0) ||
                pg->procs[p].kind != w->kind) {
                fprintf(stderr, "%s proc %u: \"%s\" %s, want \"%s\" %s\n", pg->name, p,
                        a ? a : "(gap)", op_kind_name(pg->procs[p].kind),
                        w->name ? w->name : "(gap)", op_kind_name(w->kind));
                bad++;
            }
        }
        EQ(bad, 0);
    }
    EQ(rpc_proc(NULL, 0) == NULL, 1);
}

/* RFC 1813's modifying procedures (§3.3.2 SETATTR ... §3.3.21 COMMIT, which
 * changes the space used) and the ones acting on a handle. */
static void
test_nfs3_flags(void)
{
    const struct rpc_program *pg = find("nfs3");
    uint32_t p;

    CHECK(pg != NULL);
    if (!pg)
        return;
    CHECK(pg->flags & PGF_PRIMARY);
    CHECK(pg->flags & PGF_IO_DETAIL);
    CHECK(pg->flags & PGF_FINDINGS);
    for (p = 0; p < pg->nprocs; p++) {
        unsigned k = pg->procs[p].kind, fl = pg->procs[p].flags;
        bool mod = k == OPK_SETATTR || k == OPK_WRITE || k == OPK_CREATE || k == OPK_MKDIR ||
                   k == OPK_SYMLINK || k == OPK_MKNOD || k == OPK_REMOVE || k == OPK_RMDIR ||
                   k == OPK_RENAME || k == OPK_LINK || k == OPK_COMMIT;

        EQ((fl & (OPF_MOD_DATA | OPF_MOD_META)) != 0, mod);
        EQ((fl & OPF_FH) != 0, p != 0); /* every argument but NULL's starts with a handle */
        EQ((fl & OPF_RANGE) != 0, k == OPK_READ || k == OPK_WRITE || k == OPK_COMMIT);
        CHECK(k < OPK_FILE_COUNT);
    }
    /* Only NFSv3 is the report's main program; only NLM v4 has lock waits. */
    CHECK(find("nlm4") && (find("nlm4")->flags & PGF_LOCK_WAITS));
    CHECK(find("nfs2") && !(find("nfs2")->flags & (PGF_PRIMARY | PGF_FINDINGS | PGF_IO_DETAIL)));
}

static void
test_kind_names(void)
{
    unsigned k, j;

    for (k = 0; k < OPK__COUNT; k++) {
        const char *n = op_kind_name(k);
        CHECK(n != NULL && n[0] != '\0');
        if (k != OPK_OTHER)
            CHECK(strcmp(n, "other") != 0); /* every kind has its own name */
        for (j = 0; j < k; j++)
            CHECK(strcmp(n, op_kind_name(j)) != 0);
    }
    STREQ(op_kind_name(OPK__COUNT), "other");
    STREQ(op_kind_name(OPK_READDIRPLUS), "readdirplus");
    /* The file-service kinds are named as NFSv3's procedures (the what-if lists them). */
    for (k = 0; k < OPK_FILE_COUNT && k < N(nfs3); k++)
        STREQ(op_kind_name(k), nfs3[k].name);
}

int
main(void)
{
    test_tables();
    test_nfs3_flags();
    test_kind_names();
    return t_done();
}
