/* SPDX-License-Identifier: BSD-3-Clause */
/* findings.h: why NFS is slow: stable writes, redundant GETATTR and
 * ACCESS, directory fan-out (`ls -l` storms), a mount-option what-if model of
 * the Linux client's caches, and what the capture's quality does to the
 * numbers.
 *
 * Fed every finished operation (findings_record, one of the pipeline's
 * consumers: pipeline.h).
 * All state is bounded: fixed-capacity tables allocated once, touched as they
 * fill; when a table is full the oldest entry in the probed window is
 * replaced and counted in `evicted` (an evicted entry can only hide a
 * repeat, never invent one). Time is packet time (the call's timestamp), so
 * results do not depend on how fast the capture is read. Views read the
 * public fields through `const struct findings *` (ui/report_findings.c). */
#ifndef NFSSCOPE_FINDINGS_H
#define NFSSCOPE_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "findings_nfs4.h"
#include "histo.h"
#include "op_kind.h"

struct op_event;
struct rpc_program;

/* Finding kinds, in report order. */
enum fkind {
    FK_STABLE_WRITES,     /* "stable_writes" */
    FK_VERIFIER,          /* "write_verifier_changed" */
    FK_REDUNDANT_GETATTR, /* "redundant_getattr" */
    FK_REDUNDANT_ACCESS,  /* "redundant_access" */
    FK_FANOUT,            /* "directory_fanout" */
    FK_NETWORK_LOSS,      /* "network_loss" */
    FK_NEGATIVE_LOOKUPS,  /* "negative_lookups" */
    FK_RPC_RETRANS,       /* "rpc_retransmissions" */
    /* NFSv4 (findings_nfs4.c) */
    FK_LOCK_CONTENTION,   /* "lock_contention" */
    FK_DELAY_GRACE,       /* "delay_grace_storms" */
    FK_STALE_STATE,       /* "stale_state" */
    FK_SESSION_LIMITS,    /* "session_limits" */
    FK_OPEN_CLOSE,        /* "open_close_storm" */
    FK_DELEG_RECALLS,     /* "delegation_recalls" */
    FK_SLOW_SERVER,       /* "slow_server" (slowsrv.h) */
    FK_SMALL_IO,          /* "small_io" (smallio.h) */
    FK_SERIAL_IO,         /* "serialized_io" (serialio.h) */
    FK__COUNT
};

/* Time by cause: every call's latency is counted once, in the first finding
 * that claims it, in this order: network_loss (the call waited on TCP
 * recovery), rpc_retransmissions, slow_server (only the excess over the
 * operation's median on that server: the median is the call's own cost,
 * which the findings below may claim), stable_writes, write_verifier_changed,
 * small_io (the share a call of the reference size would have saved),
 * serialized_io (the share of a lone call's wait more calls in flight would
 * have overlapped), the NFSv4 findings (lock_contention, delay_grace_storms,
 * stale_state, session_limits, open_close_storm: findings_nfs4.h),
 * negative_lookups, redundant_getattr, redundant_access, then the fan-out of
 * the directory listing it followed. A finding's cost_us is the time it
 * claimed; a later finding of the same call counts it without its time. The
 * causes add up these costs; what none claimed is unexplained. */
enum fcause {
    FC_NETWORK, /* network_loss, rpc_retransmissions */
    FC_SERVER,  /* slow_server: the server slower than its own usual for the operation */
    FC_CLIENT,  /* what the clients asked for: the other findings */
    FC__COUNT   /* findings_time_split's last slot: unexplained */
};

#define FND_TOP_CLIENTS 64   /* clients with their own counters; the rest is "other" */
#define FND_CLIENT_IX 128    /* their hash index: twice as many slots, never full */
#define FND_TOP_FILES 2048   /* files with their own counters; the rest is "other" */
#define FND_DIRS 256         /* directories with fan-out counters */
#define FND_LISTINGS 8       /* listings kept per directory, for evidence */
#define FND_FH_MAX 128      /* the longest handle: NFS4_FHSIZE (RFC 8881 §3.2) */
#define FND_FANOUT_MIN 16    /* per-entry calls after a listing that make a finding */
#define FND_MIN_REPEATS 2    /* redundant calls that make a finding: one is not a pattern */

/* The what-if scenarios: each replays the same calls through its own model. */
enum fscen {
    SC_DEFAULTS,   /* acregmin=3,acdirmin=30,cto,lookupcache=all,rdirplus, access cache */
    SC_ACTIMEO60,  /* actimeo=60 */
    SC_NOCTO,      /* nocto */
    SC_LC_POS,     /* lookupcache=positive */
    SC_LC_NONE,    /* lookupcache=none */
    SC_NOAC,       /* noac */
    SC_NORDIRPLUS, /* nordirplus */
    SC__COUNT
};

struct fscen_params {
    const char *name;    /* "defaults", "actimeo=60", ... */
    const char *options; /* the mount options the scenario stands for */
    int64_t ac_reg_ns, ac_dir_ns;
    bool cto, neg_dentries, dentries, rdirplus;
};
extern const struct fscen_params fscen_params[SC__COUNT];

struct fnd_client {
    uint8_t af, addr[16]; /* FLOW_AF_*; 0 = unused */
    uint64_t ck;          /* hash of the address (findings.c: compared first) */
    uint64_t n[FK__COUNT], cost_us[FK__COUNT];
};

struct fnd_file {
    uint8_t fh_len, fh[FND_FH_MAX]; /* fh_len 0 = unused */
    uint64_t n[FK__COUNT], cost_us[FK__COUNT];
    uint64_t stable[3]; /* WRITEs by stable_how */
};

struct fnd_listing { /* one READDIR/READDIRPLUS listing and what followed it */
    int64_t t_first, t_last; /* ns: listing's first call .. last child op */
    uint32_t readdir, readdirplus, lookup, getattr, access;
    uint32_t entries_seen;   /* entries decoded from the kept heads */
    uint32_t getattr_after_plus; /* child GETATTRs within the window of a READDIRPLUS
                                  * reply that carried attributes */
};

struct fnd_dir {
    uint8_t fh_len, fh[FND_FH_MAX];
    uint8_t af, addr[16];   /* the client (first seen) */
    uint32_t listings;      /* listings started (cookie 0, or first call) */
    uint64_t readdir, readdirplus, lookup, getattr, access;
    uint64_t getattr_after_plus;
    uint64_t getattr_redundant; /* of the child GETATTRs, proven redundant */
    uint64_t cost_us;
    int64_t t_first, t_last;
    unsigned nl;            /* listings kept */
    struct fnd_listing l[FND_LISTINGS];
};

#define FND_NEGS 64      /* (directory, name) pairs of failed lookups kept with their names */
#define FND_NEG_NAME 64  /* bytes of a failed lookup's name kept */

struct fnd_neg { /* one directory and missing name, and how often it was asked for */
    uint8_t fh_len, fh[FND_FH_MAX]; /* the directory */
    uint8_t name_len, name[FND_NEG_NAME];
    bool name_cut;                  /* the name was longer than FND_NEG_NAME */
    uint32_t status;                /* the program's status of the failures */
    const struct rpc_program *pg;   /* the program (its status names) */
    uint8_t af, addr[16];           /* the client (first seen) */
    uint64_t n, cost_us;
};

/* The what-if of NFSv4 COMPOUNDs, by kind (their main operation): the same
 * client model as for NFSv3 calls (the COMPOUND of kind GETATTR, ACCESS,
 * LOOKUP, READDIR or READ is the call it models; the others are always
 * sent), and what read delegations would remove (findings_nfs4.c). */
struct fnd_whatif4 {
    uint64_t now[OPK__COUNT];
    uint64_t est[SC__COUNT][OPK__COUNT];
    uint64_t cto_kept[SC__COUNT];
    uint64_t deleg_open, deleg_close, deleg_getattr; /* COMPOUNDs a read delegation saves */
};

/* Cache lines of a row of the model's table (mtab_lines: a key and its
 * entries, then 7 values of a line each), of parent and mod's (ftab_lines),
 * and of attr's: the lines findings_prepare loads. */
#define FND_MODEL_LINES 8
#define FND_PM_LINES 2
#define FND_ATTR_LINES 1

#define FND_CKEY_BITS 6 /* findings.ckeys: 64 remembered client keys */

#define FND_PLUS_BITS 11 /* findings.plus_t: 2,048 buckets, 16 KiB */

struct ftab;    /* bounded hash table (findings.c) */
struct mtab;    /* the same, an entry per scenario in each slot (mtab.h) */
struct slowsrv; /* slow_server (slowsrv.h) */
struct smallio; /* small_io (smallio.h) */
struct serialio; /* serialized_io (serialio.h) */

struct findings {
    /* config */
    int64_t window_ns;
    uint64_t seed;
    /* An event's fh_hash (op_event.has_fh_hash) is its handle's key here:
     * the file breakdown table hashes with this seed (stats_file_hash_seed;
     * set by whoever feeds both). */
    bool fh_hash_ours;
    /* totals */
    uint64_t nfs3_calls;          /* calls analysed (findings_wants), replied or not */
    uint64_t n[FK__COUNT];        /* finding counts */
    uint64_t cost_us[FK__COUNT];  /* the time they claimed (time by cause, above) */
    uint64_t cause_us[FC__COUNT]; /* the same by cause (fan-outs added at report time) */
    uint64_t total_us;            /* time in calls: the sum of every latency */
    /* network: replied calls whose connection needed a TCP retransmission,
     * saw a segment ahead of a hole or lost bytes while they waited
     * (op_event.net_delay) */
    struct histo lat_net, lat_clean; /* latency of those calls, and of the others */
    /* failed lookups (kind OPK_LOOKUP, a non-zero status) */
    uint64_t lookups, neg_other;  /* replied LOOKUPs; failures beyond FND_NEGS pairs */
    uint64_t opens_by_name;       /* replied NFSv4 OPENs naming a file (they look it up) */
    unsigned nneg;
    struct fnd_neg neg[FND_NEGS];
    /* RPC retransmissions: calls sent again with the same XID */
    uint64_t rpc_resent;          /* transmissions after the first, of those calls */
    /* stable writes */
    uint64_t writes, stable[3], stable_bytes, small_stable, writes_unanswered;
    uint64_t stable_size[22];     /* iosz buckets (stats.h IOSZ_BUCKETS) */
    struct histo lat_stable, lat_unstable, lat_commit;
    uint64_t commits;
    uint64_t verf_changes, verf_seen;
    /* redundancy */
    uint64_t getattr, access;     /* replied GETATTR / ACCESS considered */
    /* fan-out */
    size_t ndirs;
    uint64_t dirs_dropped;        /* directories beyond FND_DIRS */
    struct fnd_dir dirs[FND_DIRS];
    /* what-if: NFSv3 calls (now, est, cto_kept), NFSv4 COMPOUNDs by kind (wi4) */
    uint64_t now[OPK_FILE_COUNT]; /* calls per kind (op_kind.h), as captured */
    uint64_t est[SC__COUNT][OPK_FILE_COUNT];
    uint64_t cto_kept[SC__COUNT]; /* GETATTRs kept as close-to-open revalidations */
    struct fnd_whatif4 wi4;
    /* who and what */
    struct fnd_client clients[FND_TOP_CLIENTS];
    struct fnd_client client_other;
    unsigned nclients;            /* clients[] used */
    uint8_t client_ix[FND_CLIENT_IX]; /* index + 1 into clients[] by address hash, 0 = none */
    /* The latest client keys (findings.c, client_key), direct-mapped by
     * address: a call's client is most often one of a few, and its key a
     * hash of 4 or 16 bytes. lo, hi: the address's bytes (IPv4: lo's low 4). */
    struct fnd_ckey {
        uint64_t lo, hi, ck;
        uint8_t af; /* 0xff: empty */
    } ckeys[1u << FND_CKEY_BITS];
    struct fnd_file *files;       /* FND_TOP_FILES */
    size_t nfiles;
    struct fnd_file file_other;
    /* NFSv4: locks, retries, state, sessions, opens (findings_nfs4.h) */
    struct fnd_v4 v4;
    struct slowsrv *slow;         /* slow_server: per server and operation (slowsrv.h) */
    struct smallio *small;        /* small_io: sizes against FSINFO and the client's (smallio.h) */
    struct serialio *serial;      /* serialized_io: lone bulk calls per client and server
                                   * (serialio.h) */
    /* bounded state */
    struct ftab *attr, *mod, *acc, *parent, *conn, *server, *lst, *filex;
    struct mtab *model;           /* the what-if model, every scenario's */
    /* READDIRPLUS listings in the what-if model by bucket of their MK_LIST
     * key (findings.c): the latest time (mval.t) any scenario gave one,
     * INT64_MIN if none. No scenario holds a listing marked plus, or a newer
     * one, than its bucket says, so a lookup of one is skipped when the
     * bucket says it cannot be there. Never lowered: a high value only costs
     * the lookup. */
    int64_t plus_t[1u << FND_PLUS_BITS];
    uint64_t evicted;             /* entries replaced in any table */
};

/* Allocate the tables: `cap` entries per table (rounded up to a power of two;
 * 0: 65536), window in seconds (0: 3). NULL on allocation failure. */
struct findings *findings_new(size_t cap, unsigned window_s, uint64_t seed);
void findings_free(struct findings *f); /* NULL is a no-op */

/* One finished operation (any program; only the ones findings_wants() are
 * analysed). Reads nothing but f and ev, so it may run on another thread
 * (findings_worker.h). */
void findings_record(struct findings *f, const struct op_event *ev);

/* findings_record in two steps, so that a queue of events can have the next
 * one's table rows loading while the current one is recorded
 * (findings_worker.c): findings_prepare hashes ev's keys and starts loading
 * their table rows; findings_record_prepared(f, ev, p) then does what
 * findings_record(f, ev) does. Neither changes what the other reads
 * (findings_prepare changes only a cache of client keys), so events may
 * be prepared ahead of those recorded before them. */
struct fnd_prep {
    bool wanted;                 /* findings_wants(ev), f not NULL */
    uint64_t ck;                 /* the client's key (analysed calls) */
    uint64_t fk, ok, ak, ma_f, ma_o, ml_f, mx_f; /* replied calls (findings.c: struct who) */
};
void findings_prepare(struct findings *f, const struct op_event *ev, struct fnd_prep *p);
void findings_record_prepared(struct findings *f, const struct op_event *ev,
                              const struct fnd_prep *p);
/* Is ev one findings_record analyses: a file-service operation (a kind below
 * OPK_FILE_COUNT) or a COMPOUND (a program with an operation table) of a
 * program flagged PGF_FINDINGS, or a LOCK or TEST of a PGF_LOCK_WAITS
 * program (NLM), not an orphan reply, with at most OP_DIRENT_MAX entries? */
bool findings_wants(const struct op_event *ev);

/* Count n instances of finding k costing cost_us, for ev's client and file
 * (ev->fh): the rules of findings_nfs4.c credit through it. */
void findings_credit(struct findings *f, enum fkind k, const struct op_event *ev, uint64_t n,
                     uint64_t cost_us);

/* A directory whose listings were followed by at least FND_FANOUT_MIN
 * per-entry calls (reported as a fan-out). */
bool findings_dir_reported(const struct fnd_dir *d);

/* The JSON key of a kind. */
const char *findings_kind_key(enum fkind k);
/* Is kind k reported (a finding in the reports)? Its time counts under its
 * cause only then. FK_FANOUT: per directory, findings_dir_reported(). */
bool findings_kind_reported(const struct findings *f, enum fkind k);
/* The cause a kind's time counts under. */
enum fcause findings_cause(enum fkind k);
/* The time in calls by cause: us[FC_NETWORK], us[FC_SERVER], us[FC_CLIENT]
 * (directory fan-outs reported included) and us[FC__COUNT] what no finding
 * claimed; they add up to total_us. */
void findings_time_split(const struct findings *f, uint64_t us[FC__COUNT + 1]);

/* Calls scenario sc estimates of operation kind `kind` (< OPK_FILE_COUNT).
 * A GETATTR the model answered from its cache and is still waiting to call
 * an open() (close-to-open) counts as not sent. */
uint64_t findings_estimate(const struct findings *f, enum fscen sc, unsigned kind);
/* The same for NFSv4 COMPOUNDs of kind `kind` (< OPK__COUNT). */
uint64_t findings_estimate4(const struct findings *f, enum fscen sc, unsigned kind);

#endif
