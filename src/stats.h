/* SPDX-License-Identifier: BSD-3-Clause */
/* stats.h: what the analysis counts, per RPC program and procedure.
 *
 * The pipeline turns every finished (or abandoned) RPC operation into one
 * op_event and hands it to its consumers (consumer.h), among them
 * stats_record() and stats_record_by(). Views read `const struct stats *`.
 * Dense arrays indexed by procedure number; no hashing. */
#ifndef NFSSCOPE_STATS_H
#define NFSSCOPE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "anomaly.h"
#include "bytes.h"
#include "flow_key.h"
#include "dissector.h"
#include "bd_acc.h"
#include "breakdown.h"
#include "histo.h"
#include "reconnects.h"
#include "rpc_tls.h"
#include "names.h"
#include "timeline.h"

enum op_outcome {
    OP_REPLIED,       /* a matched reply (status may still be an error) */
    OP_RPC_ERROR,     /* matched reply, RPC-level: MSG_DENIED or accept_stat != SUCCESS */
    OP_NO_REPLY,      /* call never answered (end of input, timeout or eviction) */
    OP_ORPHAN_REPLY,  /* reply without a call in the capture */
};

/* NFSv3 stable_how (RFC 1813 §3.3.7); STABLE_NONE when not a WRITE. */
enum { STABLE_UNSTABLE = 0, STABLE_DATA_SYNC = 1, STABLE_FILE_SYNC = 2, STABLE_NONE = 0xff };

/* Attributes a reply carried (RFC 1813 §2.6 fattr3), reduced to a digest of
 * every field but atime ("attributes identical"). */
struct op_attr {
    bool valid;
    uint8_t type;    /* ftype3: 1 NF3REG, 2 NF3DIR, ... */
    uint64_t digest; /* type mode nlink uid gid size used rdev fsid fileid mtime ctime */
    uint64_t fileid;
};

/* One READDIR/READDIRPLUS entry found in the kept head of the reply (a
 * listing's reply keeps up to rpc_wide_max bytes: 64 KiB hold about 400
 * READDIRPLUS entries with attributes and handles). Its name and handle
 * stay where they are, in the reply's head; the descriptors of one listing
 * go into a buffer of OP_DIRENT_MAX that the matcher allocates once
 * (op_event.dirent), so an event stays small. */
#define OP_DIRENT_MAX 512
struct op_dirent {
    struct bytes name;   /* filename3 (borrowed from the head) */
    struct bytes fh;     /* READDIRPLUS name_handle, else empty */
    uint64_t fileid;
    struct op_attr attr; /* READDIRPLUS name_attributes */
};

/* What a successful reply did to the names of the file system, for the
 * names cache: fh/name and fh2/name2 are the call's. */
enum { NAMES_OP_NONE = 0, NAMES_OP_RENAME, NAMES_OP_LINK, NAMES_OP_REMOVE };

/* What an NFSv4 COMPOUND's reply says beyond its main operation's fields
 * (dissectors/nfs4_event.c), for the findings. The main operation is the
 * first of the COMPOUND's kind (nfs4_call_main_op). */
struct op_nfs4 {
    bool main_done;        /* the main operation has a result: main_status is its own */
    bool has_seq;          /* a SEQUENCE result (RFC 8881 §18.46): slot, highest, target */
    bool dir_attrs;        /* READDIR: the entries carry attributes beyond rdattr_error,
                            * filehandle and the fileids (what v3 READDIRPLUS gives) */
    uint8_t fail_op;       /* nfs4_op_pack() of the first failing operation, 0: none */
    uint8_t deleg;         /* OPEN: 1 + open_delegation_type4 granted, 0: no OPEN result */
    uint16_t seq_flags;    /* SEQUENCE result: sr_status_flags (SEQ4_STATUS_* bits 0..12) */
    uint32_t main_status;
    uint32_t why_none;     /* OPEN_DELEGATE_NONE_EXT: why_no_delegation4 */
    uint32_t slot, highest_slot, target_slot;
    /* LOCK/LOCKT answered NFS4ERR_DENIED (LOCK4denied), or an NLM TEST
     * answered denied (nlm4_holder): the conflicting lock */
    uint32_t lock_type;    /* nfs_lock_type4 (NLM: WRITE_LT exclusive, else READ_LT) */
    uint64_t lock_off, lock_len;
    uint64_t lock_owner;   /* a hash of its (clientid, owner), 0: none */
    uint64_t lock_clientid; /* its holder's clientid (NLM: svid) */
    struct bytes lock_holder; /* its owner's bytes (lock_owner4.owner, NLM oh), borrowed */
    uint64_t session;      /* a hash of the call's SEQUENCE sessionid, or of the sessionid a
                            * CREATE_SESSION created; 0: none */
    uint32_t max_resp;     /* CREATE_SESSION result: the fore channel's ca_maxresponsesize */
    uint32_t read_count;   /* the main operation is READ: the count it asked for */
    uint64_t deleg_sid;    /* a hash of the delegation stateid's other (RFC 8881 §8.2.2) a
                            * DELEGRETURN returned or a CB_RECALL recalled (§18.6, §20.2);
                            * 0: none */
};

/* One finished operation. Filled by the RPC layer (times, outcome) and by the
 * program's dissector (status, bytes, stable_how). A few hundred bytes
 * (sizes_test.c bounds it): what it borrows (handles, names, the listing's
 * entries) it points to. The fields up to `has_main_ops` are what the
 * matcher knows of every answered call (its pending call, the reply's
 * header) and sets for each reply; from `has_main_ops` on, what a reply's
 * dissector may add, zero until it does (rpc_match.c clears only that part
 * per reply: a new field a dissector sets, or that may stay unset, goes
 * there). */
struct op_event {
    const struct rpc_program *pg; /* NULL: program not decoded */
    uint32_t prog, vers, proc;
    uint8_t kind;        /* enum op_kind of the operation (the program's table), OPK_OTHER
                          * when not known */
    uint8_t opf;         /* its OPF_* flags */
    uint8_t minor;       /* the message's minor version (NFSv4), or 0xff: none */
    bool partial;        /* decoded from a truncated head */
    struct timespec t_call, t_reply;
    enum op_outcome outcome;
    bool net_delay;      /* while the call waited, a TCP segment of its connection came
                          * again, came ahead of a hole or was lost (tcp_half.trouble_ns) */
    uint8_t stable;      /* WRITE call stable_how, or STABLE_NONE */
    uint8_t gss_service; /* RPCSEC_GSS call: its service (rpc.h RPC_GSS_SVC_*), else 0 */
    uint8_t gss_proc;    /* RPCSEC_GSS context control message (RPCSEC_GSS_INIT,
                          * CONTINUE_INIT, DESTROY): not the procedure's; else 0 */
    uint8_t committed;   /* WRITE reply committed, or STABLE_NONE */
    uint8_t call_dir;    /* 0: key's source is the client (the connection's role) */
    bool from_server;    /* the call travelled server -> client (a callback) */
    bool has_fh_hash;    /* fh_hash is set */
    uint32_t accept_stat, reject_stat, reply_stat; /* RFC 5531 §9, for OP_RPC_ERROR */
    uint64_t write_bytes; /* WRITE call count (data sent) */
    uint32_t call_len, reply_len;
    uint32_t xid;               /* the call's XID (--records) */
    uint16_t retrans;           /* the call's retransmissions before this event */
    uint64_t call_frame, reply_frame; /* frames that completed call and reply (0: unknown) */
    /* Who and what. */
    const struct flow_key *key; /* the connection, NULL for orphans */
    uint32_t uid, gid;          /* AUTH_SYS credentials, else UINT32_MAX */
    struct bytes fh;            /* the handle the call acted on (from the call) */
    struct bytes name;          /* the name it gave in that directory (from the call) */
    struct bytes fh2, name2;    /* RENAME to (dir, name), LINK link (dir, name) (from the call) */
    const uint32_t *bd_idx, *bd_gen; /* the call's breakdown rows, or NULL */
    const uint8_t *call_priv;   /* the call's dissector scratch (rpc_program.detail), or NULL */
    bool no_attrs;           /* set by the matcher when nothing reads attr, obj_attr, the
                              * entries' attr and v4.session (the findings are off): a
                              * dissector may leave them unset and save the digests */
    uint16_t dirent_cap;     /* room in dirent[] (<= OP_DIRENT_MAX; 0: none kept) */
    struct op_dirent *dirent; /* a bounded view: the matcher's listing buffer, borrowed */
    /* From here on: what the reply's dissector found, zero until it sets it. */
    bool has_main_ops;   /* main_ops is set: the reply's body was decoded */
    bool has_status;     /* the dissector found a status word */
    bool eof;            /* READ reply eof */
    bool obj_is_export;  /* obj_fh is the root of the export named by `name` (MNT) */
    uint32_t main_ops;   /* the message's main operations (its kind), one byte each as the
                          * program packs them (rpc_program.kind_name); 0: none */
    uint32_t status;     /* program status (nfsstat3 ...) when has_status */
    uint32_t read_req;    /* READ call count: bytes asked for (NFSv3) */
    uint64_t read_bytes;  /* READ reply count */
    uint32_t rtmax, wtmax; /* FSINFO reply: largest READ/WRITE the server takes, 0: none
                            * (RFC 1813 §3.3.19) */
    uint64_t fh_hash;           /* fh's hash as its file breakdown row has it
                                 * (stats_file_hash), when has_fh_hash */
    struct bytes obj_fh;        /* the handle the reply returned for that name (dissector) */
    uint8_t names_op;           /* what a successful reply did to names (dissector) */
    /* NLM (lock waits): the call's lock, digested by the dissector
     * (nlm_common.h), and its block flag (LOCK, LOCK_MSG, CANCEL). */
    bool nlm_has_lock, nlm_block;
    uint64_t nlm_lock;
    /* What the findings need, from the NFSv3 dissector. Borrowed
     * views are valid only during stats_record(). */
    struct op_attr attr;     /* fh's attributes after the op (fattr3, post_op_attr, wcc after) */
    struct op_attr obj_attr; /* obj_fh's (LOOKUP obj_attributes, CREATE ...) */
    uint32_t access_req;     /* ACCESS call mask */
    uint32_t access_granted; /* ACCESS reply mask */
    bool has_verf;           /* WRITE/COMMIT reply verifier present */
    uint8_t verf[8];
    bool dir_eof;            /* READDIR(PLUS) reply said eof (seen in the head) */
    bool dir_cut;            /* READDIR(PLUS) entries past the kept head or past dirent[] */
    uint16_t ndirent;        /* of those, the first ones kept in dirent[] */
    uint64_t offset;         /* READ/WRITE/COMMIT offset; READDIR(PLUS) cookie */
    uint32_t dir_entries;    /* READDIR(PLUS) entries decoded from the head */
    struct op_nfs4 v4;        /* NFSv4 COMPOUND replies (has_main_ops), else zero; the
                               * conflicting lock of an NLM TEST too */
};

#define STATS_MAX_STATUS 24 /* distinct status values tracked per procedure */

/* Fixed latency bucket bounds for the Prometheus histogram (--metrics):
 * 10 us .. 10 s, 20 per decade (the R20 preferred numbers of ISO 3: 1, 1.12,
 * 1.25, 1.4, ... 9), so neighbouring bounds differ by at most 14.3 % and a
 * quantile interpolated inside a bucket (histogram_quantile) stays close to
 * the report's percentile. They are not edges of struct histo's log-linear
 * buckets, so each procedure keeps exact counts per bound: lat_le[i] counts
 * latencies (whole microseconds, as in the report) in (bound i-1, bound i];
 * lat_le[STATS_LAT_BOUNDS] those above the last. */
#define STATS_LAT_DECADES 6
#define STATS_LAT_PER_DECADE 20
#define STATS_LAT_BOUNDS (STATS_LAT_DECADES * STATS_LAT_PER_DECADE + 1)
/* Bound i in nanoseconds (11.2 us is not a whole microsecond). */
uint64_t stats_lat_bound_ns(unsigned i);
/* Index into lat_le[] of a latency in microseconds. */
unsigned stats_lat_bucket(uint64_t usec);

struct status_count {
    uint32_t status;
    uint64_t count;
};

struct proc_stats {
    uint64_t calls;      /* first transmissions */
    uint64_t replies;    /* matched replies */
    uint64_t errors;     /* replies with a status other than OK, plus RPC-level errors */
    uint64_t rpc_errors; /* replies not accepted or accept_stat != SUCCESS */
    uint64_t retrans;    /* retransmitted calls (same XID, before the reply) */
    uint64_t unanswered; /* calls with no reply */
    uint64_t partial;    /* decoded from truncated heads */
    uint64_t encrypted;  /* calls protected by RPCSEC_GSS privacy: arguments and results
                          * encrypted, never decoded (RFC 2203 §5.3.2.3) */
    uint64_t not_evaluated; /* operation rows: in an answered call, no result (an earlier
                             * operation failed) */
    uint64_t bytes;      /* READ: bytes returned; WRITE: bytes sent */
    unsigned nstatus;    /* entries used in status[] */
    uint64_t status_other; /* statuses beyond STATS_MAX_STATUS distinct values */
    struct status_count status[STATS_MAX_STATUS]; /* every status seen, OK included */
    struct histo latency;
    uint64_t lat_le[STATS_LAT_BOUNDS + 1]; /* the same latencies, per fixed bound */
};

struct nfs_write_stats { /* NFSv3 WRITE detail (RFC 1813 §3.3.7) */
    uint64_t stable[3];    /* calls by stable_how */
    uint64_t committed[3]; /* replies by committed */
    uint64_t bytes;        /* bytes in WRITE calls */
};

/* READ/WRITE sizes in power-of-two buckets: [0] is 0 bytes, [k] is
 * [2^(k-1), 2^k) for k < IOSZ_BUCKETS - 1, the last is 1 MiB and more. */
#define IOSZ_BUCKETS 22
unsigned iosz_bucket(uint64_t bytes);

/* The data operations beside READ and WRITE (NFSv4.2, RFC 7862), counted
 * from their successful results (op_item.io): READ_PLUS data and holes
 * (§15.10), COPY's bytes copied (§15.2). */
struct io_extra {
    uint64_t read_plus_bytes, read_plus_holes, read_plus_eof, copy_bytes;
    uint64_t read_plus_size[IOSZ_BUCKETS]; /* READ_PLUS results by data bytes */
    uint64_t copy_size[IOSZ_BUCKETS];      /* COPY results by bytes copied */
};

/* Messages by kind (op_event.main_ops), at most STATS_MAX_KINDS distinct
 * ones, the rest counted in `other`: calls are replies with a decoded body
 * (the kind is in the call, a reply proves it was carried out). */
#define STATS_MAX_KINDS 32
struct kind_row {
    uint32_t key;          /* op_event.main_ops */
    uint64_t first;        /* the frame of its first reply, or of the row before when
                            * later (0: not known): the rows' order, for stats_merge */
    struct proc_stats st;  /* replies, errors, statuses and latency */
};
#define STATS_KIND_MEMO 64
struct kind_table {
    unsigned n;
    uint64_t other;        /* replies of kinds beyond STATS_MAX_KINDS */
    struct kind_row *rows; /* STATS_MAX_KINDS */
    uint8_t memo[STATS_KIND_MEMO]; /* the row found last for keys of each fold (stats.c) */
};

/* One minor version's message, operation and kind rows (rpc_program.nminor). */
struct minor_stats {
    struct proc_stats *procs, *ops;
    struct kind_table kinds;
};

/* RPCSEC_GSS (RFC 2203 §5) calls: data calls by service (counted under their
 * procedure too; privacy calls are encrypted, their arguments and results
 * unseen), and the context control messages, NULL procedure calls carrying
 * GSS tokens (§5.2), counted in their own rows and not as NULL calls. */
enum { GSS_CTL_INIT, GSS_CTL_CONTINUE_INIT, GSS_CTL_DESTROY, GSS_CTL__COUNT }; /* gss_proc - 1 */
struct gss_counts {
    uint64_t data[3]; /* by service: none, integrity, privacy */
    uint64_t ctl[GSS_CTL__COUNT];
};

struct prog_stats {
    const struct rpc_program *pg;
    struct proc_stats *procs;  /* pg->nprocs entries: one row per procedure, which for a
                                * program with an operation table is the message row
                                * (NFSv4 COMPOUND: calls, RPC-level errors, latency) */
    struct proc_stats *ops;    /* pg->nops entries, per operation (dissector.h op_item):
                                * calls from the calls, replies, statuses, errors and the
                                * message's latency from the results; NULL: no table */
    struct minor_stats *minor; /* pg->nminor entries, or NULL */
    struct kind_table kinds;   /* all minor versions; rows NULL: the program has no kinds */
    struct gss_counts gss;     /* its RPCSEC_GSS calls */
    struct proc_stats *gss_ctl; /* GSS_CTL__COUNT rows: the control messages' calls,
                                 * replies, RPC-level errors, unanswered, latency */
    uint64_t calls, replies;   /* all procedures, and the GSS control messages */
    uint64_t bad_proc;         /* calls to a procedure number >= nprocs */
    struct nfs_write_stats write;
    uint64_t read_bytes;
    uint64_t read_eof;
    uint64_t read_size[IOSZ_BUCKETS];  /* READ replies by count returned */
    uint64_t write_size[IOSZ_BUCKETS]; /* WRITE calls by count sent */
    uint64_t writes_below_max; /* WRITEs smaller than the largest one before them on
                                * their connection: a proxy for writes under wsize */
    struct io_extra io;        /* a program with operations: those beyond READ and WRITE */
};

struct rpc_totals {
    uint64_t calls, replies, retransmissions, unanswered_calls, orphan_replies, rpc_errors;
    uint64_t duplicate_replies; /* a second reply to an already answered call */
    uint64_t auth_none, auth_sys, auth_gss, auth_tls, auth_other;
    struct gss_counts gss;          /* RPCSEC_GSS calls of every program */
    uint64_t unknown_program_calls; /* programs with no dissector (counted, matched) */
};

/* Program numbers learned from the calls that announce them
 * (rpc_program.announces, e.g. an NFSv4 client's callback program): at most
 * STATS_LEARNED_MAX, the oldest replaced when full (counted in evicted). */
#define STATS_LEARNED_MAX 32
struct learned_progs {
    unsigned n, next;                             /* entries used; the next one to replace */
    uint32_t prog[STATS_LEARNED_MAX];
    const struct rpc_program *pg[STATS_LEARNED_MAX]; /* decoded as this program */
    uint64_t learned, evicted;                    /* numbers learned; replaced when full */
};

struct capture_totals {
    uint64_t packets, bytes; /* bytes on the wire */
    struct timespec first_ts, last_ts;
    uint64_t truncated_packets; /* caplen < wirelen */
    int64_t kernel_drops;       /* -1: not known (file input) */
    uint64_t ts_backwards;      /* packets older than the previous one */
};

/* A reply's latency as every row records it: microseconds, histogram
 * bucket and fixed bound, for the last (call, reply) timestamps seen (a
 * COMPOUND records the same latency in a dozen rows: stats.c lat_of). */
struct lat_memo {
    struct timespec t_call, t_reply;
    uint64_t us;
    unsigned idx, le;
    int overflow, valid;
};

struct stats {
    struct proc_stats *rows_mem; /* the rows of every program, one block (stats.c) */
    size_t rows_used;
    /* A byte per row of rows_mem, set before anything is written to it: a
     * reader skips the rest without touching their pages (stats_row_on). A
     * byte, not a bit: one store per row written, on every call's path. */
    uint8_t *rows_on;
    struct capture_totals cap;
    /* READDIR(PLUS) replies (NFS3_OK), and those whose entries were not all
     * seen: the reply was longer than the head kept, or had more entries
     * than OP_DIRENT_MAX (names and attributes of the rest are unknown). */
    uint64_t dir_replies, dir_cut;
    struct rpc_totals rpc;
    struct anomalies anom;
    struct reconnects reconnects; /* TCP connections opened again, per client */
    struct rpc_tls tls;           /* connections that switched to TLS (RFC 9289) */
    struct learned_progs learned; /* program numbers announced by calls */
    size_t nprogs;
    struct prog_stats *progs; /* one per rpc_programs[] entry, same order */
    size_t prog_hint;         /* index of the program found last: most calls are its */
    size_t number_hint;       /* the same for stats_program(): the first entry with the
                               * (number, version) it found last */
    /* Who and what; absent (bd_on false, names NULL) unless
     * stats_breakdowns_init() was called. */
    bool bd_on;
    bool bd_defer; /* a pair's calls counted in an accumulator (stats_bd_defer) */
    struct bd_table bd[BD__COUNT];
    struct bd_acc_pool acc; /* the client, server, pair and user counts not yet in the rows */
    struct names *names;
    struct timeline tl; /* per-interval calls, bytes and latency */
    struct lat_memo lat;
    /* The file rows of the last NFSv4 result recorded with a handle and
     * without one (stats_record_op: a COMPOUND's results mostly run on one
     * current handle), found again by bd_table_at while they hold it. */
    uint32_t op_file_idx[2], op_file_gen[2];
};

/* Allocate per-program tables for every registered program. 0 or -1 (ENOMEM). */
int stats_init(struct stats *s);
/* The same for the NULL-terminated list `programs` (a test's own). */
int stats_init_programs(struct stats *s, const struct rpc_program *const *programs);
/* Add the breakdown tables (rows per dimension) and the names cache. 0 or -1.
 * The stats must not move afterwards (the tables hold a pointer into it). */
int stats_breakdowns_init(struct stats *s, size_t rows, size_t names_cap, uint64_t seed);
/* Hash the file table's keys (the calls' handles) with `seed` instead: a
 * call's event then carries its handle's hash (op_event.fh_hash), which is
 * the findings' handle key when `seed` is theirs. Only before the first
 * call: false (nothing changed) once the table has rows or without
 * stats_breakdowns_init. */
bool stats_file_hash_seed(struct stats *s, uint64_t seed);
/* Per breakdown row and procedure counts (bd_procs.h) for the client, server
 * and file tables: the view's procedure table for one of them.
 * After stats_breakdowns_init; 0 or -1. Freed with the tables. It turns
 * stats_bd_defer off (the per-procedure entries keep the calls' order). */
int stats_by_proc_init(struct stats *s);
/* on: a call of a connection (given its cache, stats_call_by) and its reply
 * count in their client, server, pair and user rows through one accumulator
 * (bd_acc.h), so the rows lag until stats_settle; off: settled, and
 * counted in the rows directly (the default). */
void stats_bd_defer(struct stats *s, bool on);
/* Every count in the breakdown rows: before the rows are read (a report, a
 * tick, a scrape, stats_merge's src). */
void stats_settle(struct stats *s);
void stats_fini(struct stats *s);
/* Add src's counts to dst's (the shards of one run, pipeline.h: both made by
 * stats_init and stats_breakdowns_init with the same sizes and seed):
 * counters and histograms add, so percentiles are those of one table;
 * statuses, kinds, breakdown rows, names, reconnects and TLS connections
 * merge by key; the timeline by time. The capture totals are dst's (every
 * shard counts every packet). */
void stats_merge(struct stats *dst, const struct stats *src); /* src settled */
/* Whether row p (of a prog_stats' procs, ops, gss_ctl or a minor
 * version's procs and ops) may hold anything; false: it is all zero, and
 * its memory need not be read. A row outside rows_mem (stats made by hand)
 * is read. */
static inline bool
stats_row_on(const struct stats *s, const struct proc_stats *p)
{
    size_t i = ((uintptr_t)p - (uintptr_t)s->rows_mem) / sizeof *p;

    return i >= s->rows_used || !s->rows_on || s->rows_on[i];
}
/* Row p to read: p, or an empty row when stats_row_on says it is. */
const struct proc_stats *stats_row(const struct stats *s, const struct proc_stats *p);
/* The prog_stats for a registered program, or NULL. */
struct prog_stats *stats_prog(struct stats *s, const struct rpc_program *pg);
const struct prog_stats *stats_prog_by_name(const struct stats *s, const char *name);
/* The hash of a call's handle as its file row has it into *hash, while
 * that row, the one stats_call_by gave the call (pending_call.bd_idx and
 * bd_gen of BD_FILE), still holds the handle; else false. A slot's
 * generation is never 0 once used, so a call stats_call_by never saw
 * matches none; the row's key is the whole handle (PC_FH_MAX <=
 * BD_KEY_MAX). Inline: once per reply. */
static inline bool
stats_file_hash(const struct stats *s, uint32_t file_idx, uint32_t file_gen, uint64_t *hash)
{
    const struct bd_table *t = &s->bd[BD_FILE];

    if (!s->bd_on || file_idx >= t->count || t->rows[file_idx].gen != file_gen)
        return false;
    *hash = t->rows[file_idx].hash;
    return true;
}
/* The program (prog, vers) among the ones s counts, or learned for a
 * number (stats_learn_program), or NULL: not decoded. Inline when it is the
 * one found last (every call looks its program up), else
 * stats_program_find. */
const struct rpc_program *stats_program_find(struct stats *s, uint32_t prog, uint32_t vers);
static inline const struct rpc_program *
stats_program(struct stats *s, uint32_t prog, uint32_t vers)
{
    size_t i = s->number_hint;

    if (i < s->nprogs && s->progs[i].pg->prog == prog && s->progs[i].pg->vers == vers)
        return s->progs[i].pg;
    return stats_program_find(s, prog, vers);
}
/* A call announced that calls of program pg (one s counts) will come under
 * number prog: remember it, unless prog is pg's own number or a registered
 * program's. */
void stats_learn_program(struct stats *s, uint32_t prog, const struct rpc_program *pg);

/* Count a first-transmission RPCSEC_GSS call at call time (service, and
 * gss_proc for a control message, as in op_event); a control message is
 * counted here only, a data call also by stats_call. */
void stats_gss_call(struct stats *s, const struct rpc_program *pg, uint32_t proc,
                    uint8_t service, uint8_t gss_proc);
/* Count a first-transmission call at call time, also in its minor
 * version's rows (rpc_program.nminor) if any (minor 0xff: none). */
void stats_call(struct stats *s, const struct rpc_program *pg, uint32_t proc, unsigned minor,
                uint8_t stable, uint64_t write_bytes);
/* Account one finished operation in the per-program counters (its call was
 * counted by stats_call). */
void stats_record(struct stats *s, const struct op_event *ev);
/* Its share of the breakdown rows and the timeline, and what it teaches the
 * names cache (a no-op without stats_breakdowns_init). */
void stats_record_by(struct stats *s, const struct op_event *ev);
/* One operation of a call to a program with an operation table (OPI_CALL),
 * at call time, of minor version `minor` (0xff: none). */
void stats_op_call(struct stats *s, const struct rpc_program *pg, unsigned minor,
                   const struct op_item *op);
/* One operation's result (OPI_RESULT) or a call's operation not evaluated
 * (OPI_NOT_EVALUATED) in the reply `msg`. */
void stats_record_op(struct stats *s, const struct op_event *msg, const struct op_item *op);
/* Attribute a first-transmission call to its client, server, file, export
 * and user rows (after stats_call). `cache` (the connection's, or NULL)
 * spares hashing the rows that are the same for every call. */
struct pending_call;
void stats_call_by(struct stats *s, struct pending_call *pc, struct bd_cache *cache);
/* A retransmitted call (same XID on the same connection before its reply). */
void stats_retrans(struct stats *s, const struct rpc_program *pg, uint32_t proc);

/* What a breakdown row is about, for people: an address, "client -> server",
 * a path (or the handle in hex), an export path, "uid 1000", or "(none)".
 * Raw bytes from the wire may be in it: views escape it. Returns buf. */
const char *stats_row_label(const struct stats *s, enum bd_dim d, const struct bd_row *r,
                            char *buf, size_t bufsz);

/* One NFSv4 operation of a file row (stats_file_ops). */
struct file_op {
    const char *name; /* the operation's name; NULL: the rest of the row's */
    uint32_t op;
    uint64_t results;
};

/* The NFSv4 operations that ran with file row r (a row of the file table,
 * or its "other" row) as current file handle: each named operation with its
 * results, most first (ties in operation order), then the rest (operations
 * past the row's room, unnamed ones) as one entry named NULL. Returns how
 * many entries (at most BD_PROCS_PER_ROW); 0 when the table keeps none. */
size_t stats_file_ops(const struct stats *s, const struct bd_row *r,
                      struct file_op out[BD_PROCS_PER_ROW]);

/* Percentiles etc. of one procedure (convenience for views). */
uint64_t stats_latency_us(const struct timespec *a, const struct timespec *b);

#endif
