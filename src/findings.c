/* SPDX-License-Identifier: BSD-3-Clause */
/* findings.c: the findings engine; see findings.h.
 *
 * RFC 1813 gives the meaning of every field used here (stable_how §3.3.7,
 * ACCESS bits §3.3.4, fattr3 §2.6, READDIRPLUS §3.3.17). The Linux client
 * model (what-if) follows fs/nfs: attribute cache timeouts (acregmin,
 * acdirmin), close-to-open revalidation on open (nfs_lookup_verify_inode),
 * dentry and negative-dentry caching (lookupcache), the access cache, and
 * READDIRPLUS priming dentries and attributes; its simplifications are listed
 * in report_findings.c (FINDINGS_ASSUMPTIONS), which prints them. */
#include "findings.h"

#include <stdlib.h>
#include <string.h>

#include "ftab.h"
#include "hashtab.h"
#include "hugemem.h"
#include "mtab.h"
#include "slowsrv.h"
#include "serialio.h"
#include "smallio.h"
#include "stats.h"

#define NF3DIR 2
#define NFS4ERR_NOENT 2 /* nfsstat4 (RFC 8881 §15.1.4.3) */
#define SEC 1000000000LL

const struct fscen_params fscen_params[SC__COUNT] = {
    [SC_DEFAULTS] = { "defaults", "acregmin=3,acdirmin=30,cto,lookupcache=all,rdirplus",
                      3 * SEC, 30 * SEC, true, true, true, true },
    [SC_ACTIMEO60] = { "actimeo=60", "actimeo=60 (acregmin=acdirmin=60)", 60 * SEC, 60 * SEC,
                       true, true, true, true },
    [SC_NOCTO] = { "nocto", "nocto", 3 * SEC, 30 * SEC, false, true, true, true },
    [SC_LC_POS] = { "lookupcache=positive", "lookupcache=positive", 3 * SEC, 30 * SEC, true,
                    false, true, true },
    [SC_LC_NONE] = { "lookupcache=none", "lookupcache=none", 3 * SEC, 30 * SEC, true, false,
                     false, true },
    [SC_NOAC] = { "noac", "noac (no attribute or access caching)", 0, 0, true, true, true,
                  true },
    [SC_NORDIRPLUS] = { "nordirplus", "nordirplus", 3 * SEC, 30 * SEC, true, true, true,
                        false },
};

static const char *const kind_keys[FK__COUNT] = {
    [FK_STABLE_WRITES] = "stable_writes",
    [FK_VERIFIER] = "write_verifier_changed",
    [FK_REDUNDANT_GETATTR] = "redundant_getattr",
    [FK_REDUNDANT_ACCESS] = "redundant_access",
    [FK_FANOUT] = "directory_fanout",
    [FK_NETWORK_LOSS] = "network_loss",
    [FK_NEGATIVE_LOOKUPS] = "negative_lookups",
    [FK_RPC_RETRANS] = "rpc_retransmissions",
    [FK_LOCK_CONTENTION] = "lock_contention",
    [FK_DELAY_GRACE] = "delay_grace_storms",
    [FK_STALE_STATE] = "stale_state",
    [FK_SESSION_LIMITS] = "session_limits",
    [FK_OPEN_CLOSE] = "open_close_storm",
    [FK_DELEG_RECALLS] = "delegation_recalls",
    [FK_SLOW_SERVER] = "slow_server",
    [FK_SMALL_IO] = "small_io",
    [FK_SERIAL_IO] = "serialized_io",
};

const char *
findings_kind_key(enum fkind k)
{
    return k < FK__COUNT ? kind_keys[k] : "unknown";
}

bool
findings_kind_reported(const struct findings *f, enum fkind k)
{
    switch (k) {
    case FK_REDUNDANT_GETATTR:
    case FK_REDUNDANT_ACCESS:
    case FK_NEGATIVE_LOOKUPS:
        return f->n[k] >= FND_MIN_REPEATS; /* one instance is not a pattern */
    case FK_FANOUT:
        return false; /* per directory: findings_dir_reported() */
    case FK_SMALL_IO:
        return f->small && smallio_reported(f->small);
    case FK_SERIAL_IO:
        return f->serial && serialio_reported(f->serial);
    default:
        return f->n[k] > 0 || f->cost_us[k] > 0;
    }
}

enum fcause
findings_cause(enum fkind k)
{
    switch (k) {
    case FK_NETWORK_LOSS:
    case FK_RPC_RETRANS:
        return FC_NETWORK;
    case FK_SLOW_SERVER:
        return FC_SERVER;
    default:
        return FC_CLIENT;
    }
}

void
findings_time_split(const struct findings *f, uint64_t us[FC__COUNT + 1])
{
    uint64_t known = 0;
    unsigned c;
    size_t i;

    for (c = 0; c < FC__COUNT; c++)
        us[c] = f->cause_us[c];
    for (c = 0; c < FK__COUNT; c++) /* a kind not reported leaves its time unexplained */
        if (f->n[c] && !findings_kind_reported(f, (enum fkind)c))
            us[findings_cause((enum fkind)c)] -= f->cost_us[c];
    for (i = 0; i < f->ndirs; i++) /* a fan-out's time is the client's once reported */
        if (findings_dir_reported(&f->dirs[i]))
            us[FC_CLIENT] += f->dirs[i].cost_us;
    for (c = 0; c < FC__COUNT; c++)
        known += us[c];
    us[FC__COUNT] = f->total_us > known ? f->total_us - known : 0;
}

/* ---- table values ---------------------------------------------------------- */

struct held { /* attributes a client holds for a handle: the latest two, since
               * replies of pipelined calls arrive after later calls went out */
    uint64_t digest, digest_prev;
    int64_t t, t_prev;
};

struct redmark { /* one call credited as redundant, so it can be taken back */
    int64_t call;  /* its call time; 0 = none */
    uint64_t lat;
    struct fnd_client *client;
    struct fnd_file *file;
};

struct modv { /* last change to a handle, by any client */
    int64_t t_mod, t_setattr;
    /* The latest GETATTR (ACCESS) of it found redundant: withdrawn if a
     * modifying call (a SETATTR) that was already in flight when it was
     * sent turns up later: calls are seen when their reply is. */
    struct redmark getattr, access;
};

struct accv { /* ACCESS answered: (client, uid, handle, mask) */
    uint32_t granted;
    int64_t t;
};

struct parentv {
    uint64_t dir;
};

struct connv {
    uint64_t max_write;
};

struct serverv {
    uint8_t verf[8];
};

struct lstv { /* a client's listings of one directory */
    uint32_t dir1;   /* dirs[] index + 1; 0 = none (table full) */
    uint32_t cur;    /* listing index in dir->l[] (FND_LISTINGS = not kept) */
    int64_t t_last;  /* last call of the episode */
    int64_t t_plus;  /* last READDIRPLUS reply with entry attributes, 0 = none */
};

struct mval { /* what-if model entry (a member of f->model per scenario) */
    _Alignas(64) int64_t t;           /* ATTR: refreshed; ACC: answered; DENT/LIST: learned */
    uint64_t digest;     /* ATTR: current; ACC/DENT/LIST: the object's when learned */
    uint64_t read_digest, read_end;
    int64_t pending;     /* ATTR: call time of an undecided close-to-open GETATTR */
    int64_t last_data;   /* ATTR: latest READ/WRITE/READDIR call */
    uint8_t type, pos, plus, sending;
};

enum { MK_ATTR = 1, MK_ACC, MK_DENT, MK_LIST };

_Static_assert(SC__COUNT == MTAB_N && sizeof(struct mval) == MTAB_VSIZE,
               "the model's table: a member per scenario, a struct mval each");

static int64_t
ns_of(const struct timespec *t)
{
    return (int64_t)t->tv_sec * SEC + t->tv_nsec;
}

struct findings *
findings_new(size_t cap, unsigned window_s, uint64_t seed)
{
    struct findings *f = calloc(1, sizeof *f);
    static const size_t pmvs[2] = { sizeof(struct parentv), sizeof(struct modv) };
    static const size_t attr_vs = sizeof(struct held), acc_vs = sizeof(struct accv),
                        lst_vs = sizeof(struct lstv);
    struct ftab_group full[4];
    struct ftab *pm[2];
    unsigned i;
    bool ok;

    if (!f)
        return NULL;
    if (!cap)
        cap = 65536;
    f->window_ns = (int64_t)(window_s ? window_s : 3) * SEC;
    f->seed = seed;
    for (i = 0; i < 1u << FND_PLUS_BITS; i++)
        f->plus_t[i] = INT64_MIN;
    for (i = 0; i < 1u << FND_CKEY_BITS; i++)
        f->ckeys[i].af = 0xff;
    histo_init(&f->lat_stable);
    histo_init(&f->lat_unstable);
    histo_init(&f->lat_commit);
    histo_init(&f->lat_net);
    histo_init(&f->lat_clean);
    f->files = calloc(FND_TOP_FILES, sizeof *f->files);
    /* The hash-placed tables keyed by handles and clients, which a big
     * capture fills entirely (12 MB by default), on huge pages (hugemem.h):
     * the model's (a row per key: which scenarios have an entry, then
     * their values, a line each), and the others in one allocation. */
    f->model = mtab_new(cap, &f->evicted);
    full[0] = (struct ftab_group){ pm, 2, cap, pmvs }; /* 32 + 88 bytes: 128 */
    full[1] = (struct ftab_group){ &f->attr, 1, cap, &attr_vs };
    full[2] = (struct ftab_group){ &f->acc, 1, cap, &acc_vs };
    full[3] = (struct ftab_group){ &f->lst, 1, 4096, &lst_vs };
    if (ftab_groups_new(full, 4, &f->evicted)) {
        f->parent = pm[0];
        f->mod = pm[1];
    }
    f->conn = ftab_new(4096, sizeof(struct connv), &f->evicted);
    f->server = ftab_new(1024, sizeof(struct serverv), &f->evicted);
    f->filex = ftab_new(FND_TOP_FILES * 2, sizeof(uint32_t), &f->evicted);
    f->slow = slowsrv_new();
    f->small = calloc(1, sizeof *f->small);
    f->serial = calloc(1, sizeof *f->serial);
    ok = f->files && f->model && f->attr && f->mod && f->acc && f->parent && f->conn &&
         f->server && f->lst && f->filex && f->slow && f->small && f->serial;
    if (!ok) {
        findings_free(f);
        return NULL;
    }
    return f;
}

void
findings_free(struct findings *f)
{
    if (!f)
        return;
    ftab_free(f->attr);
    ftab_free(f->mod);
    ftab_free(f->acc);
    ftab_free(f->parent);
    ftab_free(f->conn);
    ftab_free(f->server);
    ftab_free(f->lst);
    ftab_free(f->filex);
    slowsrv_free(f->slow);
    free(f->small);
    free(f->serial);
    mtab_free(f->model);
    free(f->files);
    free(f);
}

uint64_t
findings_estimate(const struct findings *f, enum fscen sc, unsigned kind)
{
    return sc < SC__COUNT && kind < OPK_FILE_COUNT ? f->est[sc][kind] : 0;
}

uint64_t
findings_estimate4(const struct findings *f, enum fscen sc, unsigned kind)
{
    return sc < SC__COUNT && kind < OPK__COUNT ? f->wi4.est[sc][kind] : 0;
}

bool
findings_dir_reported(const struct fnd_dir *d)
{
    return d->listings && d->lookup + d->getattr + d->access >= FND_FANOUT_MIN;
}

/* ---- who and what ---------------------------------------------------------- */

struct who { /* the parts of an operation every finding needs */
    /* Keys hashed once per call (findings_prepare) and reused by every table
     * and scenario: k.ck the client's; of a replied call, k.fk and k.ok the
     * fh_key of fh and of obj_fh, k.ak the f->attr key of (client, fh),
     * k.ma_f and k.ma_o the model MK_ATTR keys of fh and obj_fh, k.ml_f the
     * model MK_LIST key of fh (LOOKUP, READDIR(PLUS)), k.mx_f the model
     * MK_ACC key (ACCESS) or MK_DENT key (LOOKUP). */
    struct fnd_prep k;
    const uint8_t *caddr;  /* client address */
    uint8_t af;
    int64_t t_call, t_reply;
    uint64_t lat;
    uint64_t cost;         /* the call's time no finding has claimed yet (credit()) */
    const uint64_t *dfk;   /* per kept dirent with a handle: fh_key ... */
    const uint64_t *dma;   /* ... and its model MK_ATTR key */
    /* fh's parent directory from f->parent, read once (parent_of): neither
     * the model nor a GETATTR or ACCESS changes that table before
     * child_call reads it; pdir_ml is the model MK_LIST key of it. */
    bool pdir_done, pdir_have;
    uint64_t pdir, pdir_ml;
    struct fnd_client *client; /* found on first use */
    struct fnd_file *file;
    bool fk_ok; /* k.fk is set (a replied call's) */
};

static uint64_t fh_key(const struct findings *f, struct bytes fh);

/* The client's row: clients[] in first-seen order, found through
 * client_ix[] (open addressing on the address hash; at most half full). */
static struct fnd_client *
client_row(struct findings *f, struct who *w)
{
    size_t alen = w->af == 6 ? 16 : 4;
    unsigned i = (unsigned)w->k.ck;
    struct fnd_client *c;

    if (w->client)
        return w->client;
    for (;; i++) {
        uint8_t *ix = &f->client_ix[i % FND_CLIENT_IX];
        if (*ix == 0) {
            if (f->nclients >= FND_TOP_CLIENTS)
                return w->client = &f->client_other;
            c = &f->clients[f->nclients++];
            *ix = (uint8_t)f->nclients;
            c->af = w->af;
            c->ck = w->k.ck;
            memcpy(c->addr, w->caddr, alen);
            return w->client = c;
        }
        c = &f->clients[*ix - 1];
        /* lengths the compiler sees: compared inline, not by a call */
        if (c->ck == w->k.ck && c->af == w->af &&
            (w->af == 6 ? memcmp(c->addr, w->caddr, 16) : memcmp(c->addr, w->caddr, 4)) == 0)
            return w->client = c;
    }
}

#define FND_FILES_POPULATE 32 /* file rows made resident at a time (mem_populate_run) */

/* fh's row; k: fh_key(f, fh) (filex is keyed by it, like mod and parent). */
static struct fnd_file *
file_row(struct findings *f, struct bytes fh, uint64_t k, int64_t now)
{
    uint32_t *ix;
    bool fresh;

    if (!fh.len || fh.len > FND_FH_MAX)
        return &f->file_other;
    ix = ftab_get(f->filex, k);
    if (ix && *ix && f->files[*ix - 1].fh_len == fh.len &&
        memcmp(f->files[*ix - 1].fh, fh.p, fh.len) == 0)
        return &f->files[*ix - 1];
    if (f->nfiles >= FND_TOP_FILES)
        return &f->file_other;
    mem_populate_run(f->files, sizeof *f->files, f->nfiles, FND_TOP_FILES, FND_FILES_POPULATE);
    ix = ftab_put(f->filex, k, now, &fresh);
    *ix = (uint32_t)++f->nfiles;
    f->files[*ix - 1].fh_len = (uint8_t)fh.len;
    memcpy(f->files[*ix - 1].fh, fh.p, fh.len);
    return &f->files[*ix - 1];
}

/* fh's row, found once per call (fh is always the call's ev->fh). */
static struct fnd_file *
file_row_w(struct findings *f, struct bytes fh, struct who *w)
{
    if (!w->file)
        w->file = file_row(f, fh, w->fk_ok ? w->k.fk : fh_key(f, fh), w->t_call);
    return w->file;
}

/* One instance of a finding: counted, costed and attributed. The call's
 * time not yet claimed (w->cost) becomes this finding's and is claimed, so a
 * later finding of the same call counts the call but not its time again
 * (findings.h: time by cause). Returns the time credited. */
static uint64_t
credit_upto(struct findings *f, enum fkind k, struct who *w, struct bytes fh,
            struct redmark *remember, uint64_t most)
{
    struct fnd_client *c = client_row(f, w);
    struct fnd_file *fl = file_row_w(f, fh, w);
    uint64_t us = w->cost < most ? w->cost : most;

    w->cost -= us;
    f->n[k]++;
    f->cost_us[k] += us;
    f->cause_us[findings_cause(k)] += us;
    c->n[k]++;
    c->cost_us[k] += us;
    fl->n[k]++;
    fl->cost_us[k] += us;
    if (remember) {
        remember->call = w->t_call;
        remember->lat = us;
        remember->client = c;
        remember->file = fl;
    }
    return us;
}

/* Claim all of the call's unclaimed time. */
static uint64_t
credit(struct findings *f, enum fkind k, struct who *w, struct bytes fh,
       struct redmark *remember)
{
    return credit_upto(f, k, w, fh, remember, UINT64_MAX);
}

/* Take back time a finding claimed for one call (credit_upto). */
static void
uncredit(struct findings *f, enum fkind k, uint64_t us, struct fnd_client *client,
         struct fnd_file *file)
{
    f->n[k]--;
    f->cost_us[k] -= us;
    f->cause_us[findings_cause(k)] -= us;
    client->n[k]--;
    client->cost_us[k] -= us;
    file->n[k]--;
    file->cost_us[k] -= us;
}

/* Take back the remembered instance (see struct modv) if a call made at
 * [t_call, t_reply] was in flight when it was sent. */
static void
uncredit_if_overlapped(struct findings *f, enum fkind k, struct redmark *m, int64_t t_call,
                       int64_t t_reply)
{
    if (!m->call || t_call >= m->call || t_reply <= m->call)
        return;
    uncredit(f, k, m->lat, m->client, m->file);
    m->call = 0;
}

/* The client key of address a (4 or 16 bytes, by af), through the
 * remembered ones (findings.ckeys): the same value as the hash. */
static uint64_t
client_key(struct findings *f, const uint8_t *a, uint8_t af)
{
    struct fnd_ckey *c;
    uint64_t lo, hi = 0;
    uint32_t v4;

    if (af == 6) {
        memcpy(&lo, a, 8);
        memcpy(&hi, a + 8, 8);
    } else {
        memcpy(&v4, a, 4);
        lo = v4;
    }
    c = &f->ckeys[((lo ^ hi ^ (hi >> 32)) * 0x9e3779b97f4a7c15ULL) >> (64 - FND_CKEY_BITS)];
    if (c->af == af && c->lo == lo && c->hi == hi)
        return c->ck;
    c->af = af;
    c->lo = lo;
    c->hi = hi;
    c->ck = hash_bytes(a, af == 6 ? 16 : 4, f->seed ^ af);
    return c->ck;
}

static uint64_t
fh_key(const struct findings *f, struct bytes fh)
{
    return hash_bytes(fh.p, fh.len, f->seed);
}

/* fh_key of ev->fh, as the decoder hashed it when it did so with our seed. */
static uint64_t
ev_fh_key(const struct findings *f, const struct op_event *ev)
{
    return f->fh_hash_ours && ev->has_fh_hash ? ev->fh_hash : fh_key(f, ev->fh);
}

static uint64_t
pair_key(const struct findings *f, uint64_t a, uint64_t b, unsigned kind)
{
    return hash_u64x2(a, b, f->seed + kind);
}

/* A program with an operation table (NFSv4 COMPOUND): its messages are
 * analysed whatever their kind; the what-if model is of the NFSv3 client. */
static bool
compound(const struct op_event *ev)
{
    return ev->pg->ops != NULL;
}

/* ---- stable writes, COMMIT, verifiers --------------------------------------- */

/* Inlined (one caller): GCC stops when ftab_put_slot grows, and the call
 * costs more than the model's memset saves. */
static inline __attribute__((always_inline)) void
writes(struct findings *f, const struct op_event *ev, struct who *w, bool replied)
{
    if (ev->kind == OPK_COMMIT) {
        f->commits++;
        if (replied)
            histo_record(&f->lat_commit, w->lat);
    }
    if (ev->kind == OPK_WRITE && ev->stable <= STABLE_FILE_SYNC) {
        struct connv *cv;
        uint64_t ck = hash_bytes(ev->key, sizeof *ev->key, f->seed ^ 0x636f6e6eULL);

        f->writes++;
        if (!replied)
            f->writes_unanswered++;
        cv = ftab_put(f->conn, ck, w->t_call, NULL);
        if (ev->stable == STABLE_UNSTABLE) {
            if (replied)
                histo_record(&f->lat_unstable, w->lat);
        } else {
            struct fnd_file *fl;

            f->stable[ev->stable]++;
            f->stable_bytes += ev->write_bytes;
            f->stable_size[iosz_bucket(ev->write_bytes)]++;
            if (ev->write_bytes < cv->max_write)
                f->small_stable++;
            if (replied)
                histo_record(&f->lat_stable, w->lat);
            credit(f, FK_STABLE_WRITES, w, ev->fh, NULL);
            fl = file_row_w(f, ev->fh, w);
            fl->stable[ev->stable]++;
        }
        if (ev->write_bytes > cv->max_write)
            cv->max_write = ev->write_bytes;
    }
    if (replied && ev->has_verf && ev->key) {
        const uint8_t *srv = ev->call_dir == 0 ? ev->key->daddr : ev->key->saddr;
        /* per server and protocol: Linux gives NFSv3 and NFSv4 WRITEs
         * different verifiers (the same boot time, its words swapped) */
        uint64_t sk = hash_bytes(srv, 16, f->seed ^ ev->key->af ^
                                              (compound(ev) ? (uint64_t)ev->vers << 8 : 0));
        bool fresh;
        struct serverv *sv = ftab_put(f->server, sk, w->t_call, &fresh);

        f->verf_seen++;
        if (!fresh && memcmp(sv->verf, ev->verf, 8) != 0)
            credit(f, FK_VERIFIER, w, ev->fh, NULL);
        memcpy(sv->verf, ev->verf, 8);
        f->verf_changes = f->n[FK_VERIFIER];
    }
}

/* ---- redundancy -------------------------------------------------------------- */

/* SETATTR, WRITE, CREATE, MKDIR, SYMLINK, MKNOD, REMOVE, RMDIR, RENAME,
 * LINK, and COMMIT (it may change `used`: space allocated as data reaches
 * the disk): the operations flagged as modifying (op_kind.h). */
static bool
modifies(const struct op_event *ev)
{
    return (ev->opf & (OPF_MOD_DATA | OPF_MOD_META)) != 0;
}

/* Attributes a reply gives the client; FSSTAT/FSINFO/PATHCONF are left out:
 * a client asks them while mounting, before it caches the root's inode. */
static bool
attr_counts(unsigned kind)
{
    return kind != OPK_FSSTAT && kind != OPK_FSINFO && kind != OPK_PATHCONF;
}

/* ak: the attr key of (client, fh); hint: its slot if a lookup found it. */
static void
hold_at(struct findings *f, uint64_t ak, struct fslot *hint, const struct op_attr *a, int64_t t)
{
    struct held *h = val_of(f->attr, ftab_put_at(f->attr, hint, ak, t));

    if (h->t && h->t < t) {
        h->t_prev = h->t;
        h->digest_prev = h->digest;
    }
    h->digest = a->digest;
    h->t = t;
}

/* fk: fh_key(f, fh). */
static void
hold(struct findings *f, uint64_t ck, struct bytes fh, uint64_t fk, const struct op_attr *a,
     int64_t t)
{
    if (a->valid && fh.len)
        hold_at(f, pair_key(f, ck, fk, 1), NULL, a, t);
}

static uint64_t
mkey(const struct findings *f, unsigned kind, uint64_t ck, uint64_t k)
{
    return hash_u64x2(ck, k, f->seed + 16 + kind);
}

/* The latest time a scenario gave a READDIRPLUS listing (mval.plus) whose
 * MK_LIST key is in lk's bucket, INT64_MIN if none did (findings.plus_t):
 * no scenario's table holds lk marked plus with a later mval.t. */
static inline int64_t
plus_time(const struct findings *f, uint64_t lk)
{
    return f->plus_t[lk >> (64 - FND_PLUS_BITS)];
}

static inline void
plus_mark(struct findings *f, uint64_t lk, int64_t t)
{
    int64_t *p = &f->plus_t[lk >> (64 - FND_PLUS_BITS)];

    if (*p < t)
        *p = t;
}

/* fh's parent directory (its fh_key) from f->parent, looked up once per
 * call (see struct who). */
static inline bool
parent_of(struct findings *f, struct who *w)
{
    if (!w->pdir_done) {
        const struct parentv *pv = ftab_get(f->parent, w->k.fk);
        w->pdir_done = true;
        w->pdir_have = pv != NULL;
        if (pv) {
            w->pdir = pv->dir;
            w->pdir_ml = mkey(f, MK_LIST, w->k.ck, pv->dir);
        }
    }
    return w->pdir_have;
}

/* ---- directory fan-out -------------------------------------------------------- */

static struct fnd_dir *
dir_row(struct findings *f, struct bytes fh, const struct who *w)
{
    size_t i;
    struct fnd_dir *d;

    for (i = 0; i < f->ndirs; i++)
        if (f->dirs[i].fh_len == fh.len && memcmp(f->dirs[i].fh, fh.p, fh.len) == 0)
            return &f->dirs[i];
    if (f->ndirs >= FND_DIRS || !fh.len || fh.len > FND_FH_MAX) {
        f->dirs_dropped++;
        return NULL;
    }
    d = &f->dirs[f->ndirs++];
    d->fh_len = (uint8_t)fh.len;
    memcpy(d->fh, fh.p, fh.len);
    d->af = w->af;
    memcpy(d->addr, w->caddr, w->af == 6 ? 16 : 4);
    d->t_first = w->t_call;
    return d;
}

/* "." and ".." name the directory itself and its parent, not children. */
static bool
dot(struct bytes name)
{
    return (name.len == 1 && name.p[0] == '.') ||
           (name.len == 2 && name.p[0] == '.' && name.p[1] == '.');
}

static void
listing_call(struct findings *f, const struct op_event *ev, const struct who *w)
{
    uint64_t dk = w->k.fk;
    struct lstv *l = ftab_put(f->lst, pair_key(f, w->k.ck, dk, 2), w->t_call, NULL);
    struct fnd_dir *d;
    struct fnd_listing *li = NULL;
    bool plus = ev->kind == OPK_READDIRPLUS || ev->v4.dir_attrs, attrs = ev->v4.dir_attrs;
    unsigned i;

    if (!l->dir1) {
        d = dir_row(f, ev->fh, w);
        if (!d)
            return;
        l->dir1 = (uint32_t)(d - f->dirs) + 1;
        l->cur = FND_LISTINGS;
    }
    d = &f->dirs[l->dir1 - 1];
    if (ev->offset == 0 || l->t_last == 0 || w->t_call - l->t_last > f->window_ns) {
        d->listings++;
        l->cur = d->nl < FND_LISTINGS ? d->nl++ : FND_LISTINGS;
        l->t_plus = 0;
        if (l->cur < FND_LISTINGS)
            d->l[l->cur].t_first = w->t_call;
    }
    if (l->cur < FND_LISTINGS)
        li = &d->l[l->cur];
    for (i = 0; i < ev->ndirent; i++) {
        const struct op_dirent *e = &ev->dirent[i];
        if (e->fh.len && !dot(e->name)) {
            struct parentv *pv = ftab_put(f->parent, w->dfk[i], w->t_reply, NULL);
            pv->dir = dk;
            hold(f, w->k.ck, e->fh, w->dfk[i], &e->attr, w->t_reply);
        }
        attrs = attrs || e->attr.valid;
    }
    if (plus && attrs)
        l->t_plus = w->t_reply;
    l->t_last = w->t_call;
    d->t_last = w->t_reply;
    d->cost_us += w->cost;
    if (plus)
        d->readdirplus++;
    else
        d->readdir++;
    if (li) {
        li->t_last = w->t_reply;
        li->entries_seen += ev->dir_entries;
        if (plus)
            li->readdirplus++;
        else
            li->readdir++;
    }
}

/* A LOOKUP in a directory, or a GETATTR/ACCESS of one of its children, while
 * a listing of it by the same client is going on. */
static void
child_call(struct findings *f, const struct op_event *ev, struct who *w, bool redundant)
{
    uint64_t dk;
    struct lstv *l;
    struct fnd_dir *d;
    struct fnd_listing *li;

    if (ev->kind == OPK_LOOKUP) {
        dk = w->k.fk;
    } else {
        if (!parent_of(f, w))
            return;
        dk = w->pdir;
    }
    l = ftab_get(f->lst, pair_key(f, w->k.ck, dk, 2));
    if (!l || !l->dir1 || l->t_last == 0 || w->t_call - l->t_last > f->window_ns)
        return;
    d = &f->dirs[l->dir1 - 1];
    li = l->cur < FND_LISTINGS ? &d->l[l->cur] : NULL;
    l->t_last = w->t_call;
    d->t_last = w->t_reply;
    d->cost_us += w->cost;
    switch (ev->kind) {
    case OPK_LOOKUP:
        d->lookup++;
        if (li)
            li->lookup++;
        break;
    case OPK_GETATTR: {
        bool after_plus = l->t_plus && l->t_plus <= w->t_call &&
                          w->t_call - l->t_plus <= f->window_ns;
        d->getattr++;
        d->getattr_after_plus += after_plus;
        d->getattr_redundant += redundant;
        if (li) {
            li->getattr++;
            li->getattr_after_plus += after_plus;
        }
        break;
    }
    default:
        d->access++;
        if (li)
            li->access++;
        break;
    }
    if (li)
        li->t_last = w->t_reply;
}

/* ---- the what-if model --------------------------------------------------------- */


static int64_t
ac_of(const struct fscen_params *P, const struct mval *a)
{
    return a->type == NF3DIR ? P->ac_dir_ns : P->ac_reg_ns;
}

/* The model's keys of a replied call (struct who's), each looked up once
 * for all the scenarios (mref). */
struct mrefs {
    struct mref ma_f, ma_o, mx_f, ml_f;
    struct mref pdir_ml; /* set when mcall.plus_t is */
    struct mref de[OP_DIRENT_MAX]; /* the refreshed entries' (mcall.nde) */
};

/* The client's view of fh's attributes, with READDIRPLUS of its directory
 * counted as a refresh (its entries carry attributes); NULL if none.
 * plus_t: the bucket of fh's parent's listing (plus_time), NULL if fh has no
 * parent known. */
static struct mval *
m_attr(struct findings *f, unsigned sc, struct mrefs *r, const int64_t *plus_t, int64_t now)
{
    struct mtab *t = f->model;
    struct mval *a = mref_get(t, &r->ma_f, sc);

    if (plus_t && fscen_params[sc].rdirplus) {
        /* only a plus listing newer than a counts: none can be if the
         * bucket's time is not */
        int64_t pt = *plus_t;
        const struct mval *l = pt != INT64_MIN && (!a || pt > a->t)
                                   ? mref_get(t, &r->pdir_ml, sc) : NULL;

        if (l && l->plus && (!a || l->t > a->t)) {
            if (!a)
                a = mref_put(t, &r->ma_f, sc, now);
            a->t = l->t;
        }
    }
    return a;
}

static bool
m_valid(const struct fscen_params *P, const struct mval *a, int64_t now)
{
    return a && a->t <= now && now - a->t < ac_of(P, a);
}

/* The facts of a replied call the model reads, taken from the event once
 * per call rather than once per scenario: the model's stores (uint8_t
 * fields among them) may alias the event, so its fields were loaded again
 * after each. */
struct mcall {
    unsigned kind;
    bool fh;           /* ev->fh.len */
    bool data;         /* READ, WRITE, READDIR(PLUS): close-to-open's data */
    bool attr_valid;   /* ev->attr.valid */
    bool ok;           /* status 0 */
    bool refresh_f;    /* sent: fh's attributes refreshed (has_status, counted, valid, fh) */
    bool refresh_o;    /* sent: obj_fh's */
    const int64_t *plus_t; /* fh's parent's listing's bucket (m_attr), or NULL */
    uint8_t type, obj_type;
    int64_t now, t_reply, window;
    uint64_t digest, obj_digest;
    uint64_t offset;   /* READ, READDIR(PLUS) */
    uint64_t end;      /* READ: offset + read_bytes */
    unsigned nde;      /* READDIRPLUS entries refreshed when sent (rdirplus) */
    uint64_t *de_digest; /* their keys in mrefs.de */
    uint8_t *de_type;
};

/* r: a handle's MK_ATTR key; sc: the scenario whose entry is refreshed. */
static inline void
m_refresh(struct mtab *t, struct mref *r, unsigned sc, int64_t now, uint64_t digest,
          uint8_t type)
{
    struct mval *a = mref_put(t, r, sc, now);

    a->t = now;
    a->digest = digest;
    a->type = type;
}

/* Would a Linux client with scenario sc's options have sent this call?
 * Updates the scenario's caches as if it had (or had not). */
static bool
m_sent(struct findings *f, unsigned sc, const struct mcall *c, struct who *w, struct mrefs *r,
       uint64_t *est, uint64_t *cto_kept)
{
    const struct fscen_params *P = &fscen_params[sc];
    struct mtab *t = f->model;
    int64_t now = c->now;
    struct mval *a = c->fh ? m_attr(f, sc, r, c->plus_t, now) : NULL;
    bool sent = true;
    unsigned i;

    /* Close-to-open: a GETATTR answered from the cache is an open()
     * revalidation when the file's data (or the directory's entries) is
     * read next, within the window; the client then sends it anyway. */
    if (a && c->data) {
        if (a->pending && now > a->pending && now - a->pending <= c->window) {
            est[OPK_GETATTR]++;
            (*cto_kept)++;
            a->pending = 0;
        }
        if (now > a->last_data)
            a->last_data = now;
    }
    switch (c->kind) {
    case OPK_GETATTR:
        sent = !m_valid(P, a, now);
        if (!sent && a) {
            a->pending = 0;
            if (P->cto && a->last_data > now && a->last_data - now <= c->window) {
                sent = true;
                (*cto_kept)++;
            } else if (P->cto) {
                a->pending = now;
            }
        }
        break;
    case OPK_ACCESS: {
        struct mval *x = mref_get(t, &r->mx_f, sc);

        sent = !(x && a && x->digest == a->digest && now - x->t < ac_of(P, a));
        if (sent && c->attr_valid) {
            x = mref_put(t, &r->mx_f, sc, now);
            x->t = c->t_reply;
            x->digest = c->digest;
        }
        break;
    }
    case OPK_LOOKUP: {
        struct mval *e;
        bool dir_ok;

        if (!P->dentries)
            break;
        e = mref_get(t, &r->mx_f, sc);
        dir_ok = m_valid(P, a, now);
        if (dir_ok && e && e->digest == a->digest && (e->pos || P->neg_dentries))
            sent = false;
        /* the listing looked up only when it can decide (lookups change nothing) */
        if (sent && dir_ok && P->rdirplus && c->ok && plus_time(f, w->k.ml_f) != INT64_MIN) {
            const struct mval *l = mref_get(t, &r->ml_f, sc);

            if (l && l->plus && l->digest == a->digest)
                sent = false; /* READDIRPLUS primed the dentry */
        }
        if (sent && c->attr_valid) {
            e = mref_put(t, &r->mx_f, sc, now);
            e->t = c->t_reply;
            e->digest = c->digest;
            e->pos = c->ok;
        }
        break;
    }
    case OPK_READDIR:
    case OPK_READDIRPLUS: {
        struct mval *l = mref_put(t, &r->ml_f, sc, now);

        if (c->offset == 0)
            l->sending = !(l->t && a && l->digest == a->digest && m_valid(P, a, now));
        sent = l->t == 0 || l->sending;
        if (sent) {
            l->sending = 1;
            l->t = c->t_reply;
            if (c->attr_valid)
                l->digest = c->digest;
            l->plus = c->kind == OPK_READDIRPLUS && P->rdirplus;
            if (l->plus)
                plus_mark(f, w->k.ml_f, l->t);
        }
        break;
    }
    case OPK_READ:
        if (a && a->read_end && a->read_digest == a->digest && c->end <= a->read_end)
            sent = false;
        break;
    default:
        break;
    }
    if (!sent)
        return false;
    if (c->refresh_f)
        m_refresh(t, &r->ma_f, sc, c->t_reply, c->digest, c->type);
    if (c->refresh_o)
        m_refresh(t, &r->ma_o, sc, c->t_reply, c->obj_digest, c->obj_type);
    if (P->rdirplus)
        for (i = 0; i < c->nde; i++)
            m_refresh(t, &r->de[i], sc, c->t_reply, c->de_digest[i], c->de_type[i]);
    if (c->kind == OPK_READ && c->fh) {
        a = mref_put(t, &r->ma_f, sc, now);
        if (a->read_digest != a->digest)
            a->read_end = 0;
        a->read_digest = a->digest;
        if (c->end > a->read_end)
            a->read_end = c->end;
    }
    return true;
}

/* Each scenario's estimate of the call: NFSv3 calls into est/cto_kept,
 * NFSv4 COMPOUNDs into wi4 (the model is the same; its tables are keyed by
 * handles, which differ between the versions). */
static void
whatif(struct findings *f, const struct op_event *ev, struct who *w, bool replied, bool v4)
{
    /* scenario sc's estimates: row sc of est[][] or wi4.est[][], reached a
     * row's bytes at a time */
    uint8_t *est_row = v4 ? (uint8_t *)f->wi4.est : (uint8_t *)f->est;
    size_t row = v4 ? sizeof f->wi4.est[0] : sizeof f->est[0];
    uint64_t *est;
    uint64_t *kept = v4 ? f->wi4.cto_kept : f->cto_kept;
    uint64_t de_digest[OP_DIRENT_MAX];
    uint8_t de_type[OP_DIRENT_MAX];
    unsigned sc, kind = ev->kind, i;
    struct mcall c;
    struct mrefs r;
    bool refresh = ev->has_status && attr_counts(kind);
    /* the kind a scenario without READDIRPLUS would have sent */
    unsigned kind_nop = kind == OPK_READDIRPLUS ? OPK_READDIR : kind;

    /* Not unrolled: seven copies of m_sent with their scenario's parameters
     * folded run 200 instructions fewer per call but make findings_record
     * 37 KB instead of 15, and cost more L1 instruction-cache misses than
     * that saves (bench/README.md, the findings per call, 2026-12-02). */
    if (!replied) {
        for (sc = 0; sc < SC__COUNT; sc++, est_row += row) {
            est = (uint64_t *)est_row;
            est[fscen_params[sc].rdirplus ? kind : kind_nop]++;
        }
        return;
    }
    c.kind = kind;
    c.fh = ev->fh.len != 0;
    /* read in every scenario: a READDIRPLUS may mark it (plus_mark) */
    c.plus_t = c.fh && parent_of(f, w) ? &f->plus_t[w->pdir_ml >> (64 - FND_PLUS_BITS)] : NULL;
    /* A bucket unmarked now leaves m_attr nothing to find in any scenario:
     * a listing is marked plus together with its bucket (plus_mark), and
     * m_attr reads its own scenario's table before that scenario's listing
     * of this call, so no plus listing whose key is in the bucket exists. */
    if (c.plus_t && *c.plus_t == INT64_MIN)
        c.plus_t = NULL;
    c.data = kind == OPK_READ || kind == OPK_WRITE || kind == OPK_READDIR ||
             kind == OPK_READDIRPLUS;
    c.attr_valid = ev->attr.valid;
    c.ok = ev->status == 0;
    c.refresh_f = refresh && ev->attr.valid && ev->fh.len;
    c.refresh_o = refresh && ev->obj_attr.valid && ev->obj_fh.len;
    c.type = ev->attr.type;
    c.obj_type = ev->obj_attr.type;
    c.now = w->t_call;
    c.t_reply = w->t_reply;
    c.window = f->window_ns;
    c.digest = ev->attr.digest;
    c.obj_digest = ev->obj_attr.digest;
    c.offset = ev->offset;
    c.end = ev->offset + ev->read_bytes;
    c.nde = 0;
    c.de_digest = de_digest;
    c.de_type = de_type;
    if (refresh && kind == OPK_READDIRPLUS)
        for (i = 0; i < ev->ndirent; i++) {
            const struct op_dirent *e = &ev->dirent[i];
            if (!dot(e->name) && e->attr.valid && e->fh.len) {
                mref_init(&r.de[c.nde], w->dma[i]);
                de_digest[c.nde] = e->attr.digest;
                de_type[c.nde++] = e->attr.type;
            }
        }
    mref_init(&r.ma_f, w->k.ma_f);
    mref_init(&r.ma_o, w->k.ma_o);
    mref_init(&r.mx_f, w->k.mx_f);
    mref_init(&r.ml_f, w->k.ml_f);
    mref_init(&r.pdir_ml, c.plus_t ? w->pdir_ml : 0);
    for (sc = 0; sc < SC__COUNT; sc++, est_row += row) {
        est = (uint64_t *)est_row;
        if (m_sent(f, sc, &c, w, &r, est, &kept[sc]))
            est[fscen_params[sc].rdirplus ? kind : kind_nop]++;
    }
}

/* ---- the entry point -------------------------------------------------------------- */

/* The table keys of a replied call, hashed once (each was computed up to
 * seven times, once per scenario, and again by the redundancy checks), and
 * the rows of the ones every such call reads or writes loaded: the seven
 * scenarios' (fh's attributes, the listing, the ACCESS or LOOKUP entry, the
 * object's attributes), parent and mod, and the attr table's. */
static void
call_keys(const struct findings *f, const struct op_event *ev, struct fnd_prep *p)
{
    p->fk = ev_fh_key(f, ev);
    p->ak = pair_key(f, p->ck, p->fk, 1);
    p->ma_f = mkey(f, MK_ATTR, p->ck, p->fk);
    p->ok = p->ma_o = p->ml_f = p->mx_f = 0;
    if (ev->obj_fh.len) {
        p->ok = fh_key(f, ev->obj_fh);
        p->ma_o = mkey(f, MK_ATTR, p->ck, p->ok);
    }
    switch (ev->kind) {
    case OPK_ACCESS:
        p->mx_f = mkey(f, MK_ACC, p->ck, hash_u64x2(p->fk, ev->uid, f->seed));
        break;
    case OPK_LOOKUP:
        p->mx_f = mkey(f, MK_DENT, p->ck,
                       hash_u64x2(p->fk, hash_bytes(ev->name.p, ev->name.len, f->seed), f->seed));
        p->ml_f = mkey(f, MK_LIST, p->ck, p->fk);
        break;
    case OPK_READDIR:
    case OPK_READDIRPLUS:
        p->ml_f = mkey(f, MK_LIST, p->ck, p->fk);
        break;
    default:
        break;
    }
    /* the model's rows and the groups' first members' (findings_new) */
    mtab_prefetch(f->model, p->ma_f, FND_MODEL_LINES);
    if (p->ml_f)
        mtab_prefetch(f->model, p->ml_f, FND_MODEL_LINES);
    if (p->mx_f)
        mtab_prefetch(f->model, p->mx_f, FND_MODEL_LINES);
    if (p->ma_o)
        mtab_prefetch(f->model, p->ma_o, FND_MODEL_LINES);
    ftab_prefetch(f->parent, p->fk, FND_PM_LINES);
    ftab_prefetch(f->attr, p->ak, FND_ATTR_LINES);
}

/* Each kept directory entry's fh_key and model MK_ATTR key. */
static void
dirent_keys(const struct findings *f, const struct op_event *ev, struct who *w, uint64_t *dfk,
            uint64_t *dma)
{
    unsigned i;

    if (ev->kind == OPK_READDIR || ev->kind == OPK_READDIRPLUS) {
        for (i = 0; i < ev->ndirent; i++) {
            if (ev->dirent[i].fh.len) {
                dfk[i] = fh_key(f, ev->dirent[i].fh);
                dma[i] = mkey(f, MK_ATTR, w->k.ck, dfk[i]);
            } else {
                dfk[i] = dma[i] = 0; /* not used: no handle */
            }
        }
    }
    w->dfk = dfk;
    w->dma = dma;
}

/* NLM LOCK and TEST calls answered in their reply (not the *_MSG ones):
 * lock_contention counts their denials (findings_nfs4.c). */
static bool
nlm_lock(const struct op_event *ev)
{
    return (ev->pg->flags & PGF_LOCK_WAITS) && !(ev->opf & OPF_MSG) &&
           (ev->kind == OPK_LOCK || ev->kind == OPK_LOCK_TEST);
}

/* A callback the server sent (a program announced by a findings program,
 * PGF_ANNOUNCED: the NFSv4 callbacks): not time the clients spent in calls,
 * only what it says about their state. */
static bool
callback(const struct op_event *ev)
{
    return (ev->pg->flags & PGF_ANNOUNCED) != 0;
}

bool
findings_wants(const struct op_event *ev)
{
    return ev->pg &&
           (((ev->pg->flags & PGF_FINDINGS) && (ev->kind < OPK_FILE_COUNT || compound(ev))) ||
            nlm_lock(ev) || callback(ev)) &&
           ev->key && ev->outcome != OP_ORPHAN_REPLY && ev->ndirent <= OP_DIRENT_MAX;
}

/* The network's share: a replied call that waited on TCP recovery
 * (op_event.net_delay) is network_loss's, all of its latency; calls sent
 * again with the same XID are rpc_retransmissions (their latency, unless the
 * network has it already). */
static void
network(struct findings *f, const struct op_event *ev, struct who *w, bool replied)
{
    if (replied) {
        if (ev->net_delay) {
            histo_record(&f->lat_net, w->lat);
            credit(f, FK_NETWORK_LOSS, w, ev->fh, NULL);
        } else {
            histo_record(&f->lat_clean, w->lat);
        }
    }
    if (ev->retrans) {
        f->rpc_resent += ev->retrans;
        credit(f, FK_RPC_RETRANS, w, ev->fh, NULL);
    }
}

/* The server's share: a replied call that did not wait on the network, far
 * slower than its operation usually is on its server, claims the excess
 * over that usual (slowsrv.h). */
static void
slow_server(struct findings *f, const struct op_event *ev, struct who *w)
{
    const uint8_t *srv = ev->call_dir == 0 ? ev->key->daddr : ev->key->saddr;
    unsigned kind = ev->kind;
    uint64_t excess;

    if (ev->kind == OPK_WRITE &&
        (ev->stable == STABLE_DATA_SYNC || ev->stable == STABLE_FILE_SYNC))
        kind = SLOW_KIND_STABLE_WRITE;
    excess = slowsrv_record(f->slow, w->af, srv, kind, w->lat, w->t_call, w->t_reply);
    if (excess)
        credit_upto(f, FK_SLOW_SERVER, w, ev->fh, NULL, excess);
}

/* READ and WRITE sizes against the server's FSINFO rtmax/wtmax or the
 * client's own larger calls (smallio.h): a small call claims the share of
 * its time larger calls would have saved. */
static void
small_io(struct findings *f, const struct op_event *ev, struct who *w)
{
    const uint8_t *srv = ev->call_dir == 0 ? ev->key->daddr : ev->key->saddr;
    uint64_t saved;
    bool small;

    if (!ev->has_status || ev->status != 0)
        return;
    if (ev->kind == OPK_FSINFO) {
        if (ev->rtmax || ev->wtmax)
            smallio_fsinfo(f->small, w->af, srv, ev->rtmax, ev->wtmax);
        return;
    }
    if (ev->kind == OPK_READ && ev->read_req)
        small = smallio_record(f->small, w->af, srv, w->caddr, false, ev->read_req, ev->eof,
                               w->lat, &saved);
    else if (ev->kind == OPK_WRITE && ev->write_bytes && ev->write_bytes <= UINT32_MAX)
        small = smallio_record(f->small, w->af, srv, w->caddr, true, (uint32_t)ev->write_bytes,
                               false, w->lat, &saved);
    else
        return;
    if (small)
        credit_upto(f, FK_SMALL_IO, w, ev->fh, NULL, saved);
}

/* Bulk READs and WRITEs with no other in flight between the same client
 * and server (serialio.h): a lone call claims the share of its wait more
 * calls in flight would have overlapped; calls counted before and found
 * beside this one give their time back. */
static void
serialized_io(struct findings *f, const struct op_event *ev, struct who *w)
{
    const uint8_t *srv = ev->call_dir == 0 ? ev->key->daddr : ev->key->saddr;
    struct ser_mark undo[SER_MARKS], *m;
    uint64_t bytes, saved;
    unsigned i, nundo;

    if (!ev->has_status || ev->status != 0)
        return;
    if (ev->kind == OPK_READ)
        bytes = ev->read_bytes;
    else if (ev->kind == OPK_WRITE)
        bytes = ev->write_bytes;
    else
        return;
    m = serialio_record(f->serial, w->af, srv, w->caddr, ev->kind == OPK_WRITE, bytes,
                        w->t_call, w->t_reply, w->lat, &saved, undo, &nundo);
    for (i = 0; i < nundo; i++)
        uncredit(f, FK_SERIAL_IO, undo[i].claimed_us, undo[i].client, undo[i].file);
    if (m) {
        m->claimed_us = credit_upto(f, FK_SERIAL_IO, w, ev->fh, NULL, saved);
        m->client = client_row(f, w);
        m->file = file_row_w(f, ev->fh, w);
    }
}

/* A LOOKUP that failed: counted per (directory, name, status); the first
 * FND_NEGS pairs keep their names, later ones count in neg_other. */
static void
negative_lookup(struct findings *f, const struct op_event *ev, struct who *w)
{
    size_t nl = ev->name.len < FND_NEG_NAME ? ev->name.len : FND_NEG_NAME;
    size_t fl = ev->fh.len < FND_FH_MAX ? ev->fh.len : FND_FH_MAX;
    struct fnd_neg *g = NULL;
    unsigned i;
    uint64_t us = credit(f, FK_NEGATIVE_LOOKUPS, w, ev->fh, NULL);

    for (i = 0; i < f->nneg; i++) {
        struct fnd_neg *x = &f->neg[i];
        if (x->status == ev->status && x->pg == ev->pg && x->fh_len == fl && x->name_len == nl &&
            x->name_cut == (ev->name.len > nl) && (!fl || !memcmp(x->fh, ev->fh.p, fl)) &&
            (!nl || !memcmp(x->name, ev->name.p, nl))) {
            g = x;
            break;
        }
    }
    if (!g && f->nneg < FND_NEGS) {
        g = &f->neg[f->nneg++];
        g->fh_len = (uint8_t)fl;
        if (fl)
            memcpy(g->fh, ev->fh.p, fl);
        g->name_len = (uint8_t)nl;
        if (nl)
            memcpy(g->name, ev->name.p, nl);
        g->name_cut = ev->name.len > nl;
        g->status = ev->status;
        g->pg = ev->pg;
        g->af = w->af;
        memcpy(g->addr, w->caddr, w->af == 6 ? 16 : 4);
    }
    if (!g) {
        f->neg_other++;
        return;
    }
    g->n++;
    g->cost_us += us;
}

void
findings_credit(struct findings *f, enum fkind k, const struct op_event *ev, uint64_t n,
                uint64_t cost_us)
{
    struct who w;
    struct fnd_client *c;
    struct fnd_file *fl;

    memset(&w, 0, sizeof w);
    w.af = ev->key->af;
    w.caddr = ev->call_dir == 0 ? ev->key->saddr : ev->key->daddr;
    w.k.ck = client_key(f, w.caddr, w.af);
    w.t_call = ns_of(&ev->t_call);
    c = client_row(f, &w);
    fl = file_row_w(f, ev->fh, &w);
    f->n[k] += n;
    f->cost_us[k] += cost_us;
    f->cause_us[findings_cause(k)] += cost_us;
    c->n[k] += n;
    c->cost_us[k] += cost_us;
    fl->n[k] += n;
    fl->cost_us[k] += cost_us;
}

void
findings_prepare(struct findings *f, const struct op_event *ev, struct fnd_prep *p)
{
    const uint8_t *caddr;
    uint8_t af;

    p->wanted = f && findings_wants(ev);
    if (!p->wanted || nlm_lock(ev) || callback(ev))
        return;
    af = ev->key->af;
    caddr = ev->call_dir == 0 ? ev->key->saddr : ev->key->daddr;
    p->ck = client_key(f, caddr, af);
    if (ev->outcome == OP_REPLIED)
        call_keys(f, ev, p);
    else /* not used */
        p->fk = p->ok = p->ak = p->ma_f = p->ma_o = p->ml_f = p->mx_f = 0;
}

void
findings_record(struct findings *f, const struct op_event *ev)
{
    struct fnd_prep p;

    if (!f) /* e.g. the view's findings, when there is no view */
        return;
    findings_prepare(f, ev, &p);
    findings_record_prepared(f, ev, &p);
}

void
findings_record_prepared(struct findings *f, const struct op_event *ev, const struct fnd_prep *p)
{
    struct who w;
    uint64_t dfk[OP_DIRENT_MAX], dma[OP_DIRENT_MAX];
    bool replied, v4;

    if (!p->wanted)
        return;
    if (nlm_lock(ev)) {
        findings_nlm_record(f, ev);
        return;
    }
    if (callback(ev)) {
        findings_nfs4_callback(f, ev);
        return;
    }
    replied = ev->outcome == OP_REPLIED;
    memset(&w, 0, sizeof w);
    w.k = *p;
    w.fk_ok = replied;
    w.af = ev->key->af;
    w.caddr = ev->call_dir == 0 ? ev->key->saddr : ev->key->daddr;
    w.t_call = ns_of(&ev->t_call);
    w.t_reply = replied || ev->outcome == OP_RPC_ERROR ? ns_of(&ev->t_reply) : w.t_call;
    if (w.t_reply < w.t_call)
        w.t_reply = w.t_call;
    w.lat = (uint64_t)(w.t_reply - w.t_call + 500) / 1000;
    w.cost = w.lat;
    v4 = compound(ev);
    f->nfs3_calls++;
    if (!v4)
        f->now[ev->kind]++;
    else if (ev->kind != OPK_NULL && ev->kind < OPK__COUNT)
        f->wi4.now[ev->kind]++;
    f->total_us += w.lat;
    network(f, ev, &w, replied);
    if (replied && !ev->net_delay && !ev->retrans)
        slow_server(f, ev, &w);

    writes(f, ev, &w, replied);
    if (replied)
        small_io(f, ev, &w);
    if (replied && !v4)
        serialized_io(f, ev, &w);
    if (replied)
        dirent_keys(f, ev, &w, dfk, dma);
    if (v4)
        findings_nfs4_record(f, ev, &w.cost);
    if (!v4 || (ev->kind != OPK_NULL && ev->kind < OPK__COUNT))
        whatif(f, ev, &w, replied, v4);
    if (!replied || !ev->has_status)
        return;

    if (modifies(ev) && ev->fh.len) {
        struct modv *m = ftab_put(f->mod, w.k.fk, w.t_reply, NULL);
        uncredit_if_overlapped(f, FK_REDUNDANT_GETATTR, &m->getattr, w.t_call, w.t_reply);
        m->t_mod = w.t_reply;
        if (ev->kind == OPK_SETATTR) {
            uncredit_if_overlapped(f, FK_REDUNDANT_ACCESS, &m->access, w.t_call, w.t_reply);
            m->t_setattr = w.t_reply;
        }
    }
    if (ev->kind == OPK_LOOKUP)
        f->lookups++;
    if (v4 && ev->kind == OPK_OPEN && ev->name.len)
        f->opens_by_name++;
    if (ev->status != 0) {
        /* NFSv4: the LOOKUP (or OPEN by name) itself failed, not an
         * operation before it (RFC 8881 §15.2: NFS4ERR_NOENT) */
        if (v4 && !(ev->v4.main_done && ev->v4.main_status == ev->status &&
                    (ev->kind == OPK_LOOKUP ||
                     (ev->kind == OPK_OPEN && ev->name.len && ev->status == NFS4ERR_NOENT))))
            return;
        /* Only a missing name is a negative lookup (NFS3ERR_NOENT, RFC 1813
         * §3.3.3; NFS4ERR_NOENT, RFC 8881 §15.1.4.3: both 2); a LOOKUP
         * refused for ACCESS, STALE or DELAY probes no missing name. */
        if ((ev->kind == OPK_OPEN || ev->kind == OPK_LOOKUP) && ev->status == NFS4ERR_NOENT)
            negative_lookup(f, ev, &w);
        if (ev->kind == OPK_LOOKUP)
            child_call(f, ev, &w, false);
        return;
    }

    switch (ev->kind) {
    case OPK_GETATTR: {
        struct fslot *hs;
        const struct held *h = ftab_get_slot(f->attr, w.k.ak, &hs);
        struct modv *m = ftab_get(f->mod, w.k.fk);
        bool red = false;
        int64_t ht = 0;
        uint64_t hd = 0;

        f->getattr++;
        if (h && h->t && h->t <= w.t_call) { /* what the client held when it asked */
            ht = h->t;
            hd = h->digest;
        } else if (h && h->t_prev && h->t_prev <= w.t_call) {
            ht = h->t_prev;
            hd = h->digest_prev;
        }
        if (ht && ev->attr.valid && w.t_call - ht <= f->window_ns && (!m || m->t_mod <= ht) &&
            hd == ev->attr.digest) {
            red = true;
            if (!m)
                m = ftab_put(f->mod, w.k.fk, w.t_reply, NULL);
            credit(f, FK_REDUNDANT_GETATTR, &w, ev->fh, &m->getattr);
        }
        child_call(f, ev, &w, red);
        if (ev->attr.valid && ev->fh.len)
            hold_at(f, w.k.ak, hs, &ev->attr, w.t_reply);
        break;
    }
    case OPK_ACCESS: {
        uint64_t k = pair_key(f, w.k.ck,
                              hash_u64x2(w.k.fk, (uint64_t)ev->uid << 32 | ev->access_req,
                                         f->seed), 3);
        struct accv *a = ftab_put(f->acc, k, w.t_reply, NULL);
        struct modv *m = ftab_get(f->mod, w.k.fk);

        f->access++;
        if (a->t && a->t <= w.t_call && w.t_call - a->t <= f->window_ns &&
            a->granted == ev->access_granted && (!m || m->t_setattr <= a->t)) {
            if (!m)
                m = ftab_put(f->mod, w.k.fk, w.t_reply, NULL);
            credit(f, FK_REDUNDANT_ACCESS, &w, ev->fh, &m->access);
        }
        a->t = w.t_reply;
        a->granted = ev->access_granted;
        child_call(f, ev, &w, false);
        break;
    }
    case OPK_LOOKUP:
        child_call(f, ev, &w, false);
        break;
    case OPK_READDIR:
    case OPK_READDIRPLUS:
        listing_call(f, ev, &w);
        break;
    default:
        break;
    }
    if (ev->obj_fh.len && ev->fh.len && ev->kind != OPK_READDIRPLUS) {
        struct parentv *pv = ftab_put(f->parent, w.k.ok, w.t_reply, NULL);
        pv->dir = w.k.fk;
    }
    if (attr_counts(ev->kind)) {
        if (ev->kind != OPK_GETATTR && ev->attr.valid && ev->fh.len)
            hold_at(f, w.k.ak, NULL, &ev->attr, w.t_reply);
        hold(f, w.k.ck, ev->obj_fh, w.k.ok, &ev->obj_attr, w.t_reply);
    }
}
