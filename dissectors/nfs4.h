/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs4.h: the NFSv4 decoder (RFC 7530 v4.0, RFC 8881 v4.1, RFC 7862 v4.2,
 * RFC 8276 xattrs): COMPOUND and CB_COMPOUND calls and replies into
 * self-contained, bounded structs.
 *
 * The decoder is pure: it reads through a bounded xdr_cur, keeps no state,
 * never allocates and never copies READ/WRITE data. Every `struct bytes` in
 * the decoded structs borrows the message's buffer and is valid only while
 * that buffer is (a call's views die with the call message: what the reply
 * needs from its call goes through the small struct nfs4_digest).
 *
 * Use:
 *   call:  nfs4_compound_call() -> struct nfs4_call; nfs4_digest_make() keeps
 *          what the reply cannot tell (op list, PUTFH handle digests, ...)
 *          in at most NFS4_DIGEST_BYTES for the pending call;
 *   reply: nfs4_compound_reply(digest or NULL) -> struct nfs4_reply, each
 *          result with its op, status and the handle it acted on.
 * The callback side (CB_COMPOUND, RFC 8881 §20, RFC 7530 §16) uses the same
 * structs with op numbers from enum nfs_cb_opnum4 (nfs4_cb_compound_*). */
#ifndef NFSSCOPE_NFS4_H
#define NFSSCOPE_NFS4_H

#include <stdbool.h>
#include <stdint.h>

#include "bytes.h"
#include "dissector.h"
#include "xdr_cur.h"

#define NFS4_PROGRAM 100003
#define NFS4_VERSION 4
#define NFS4_CB_VERSION 1          /* NFS_CB (RFC 7530 §16.2.1, RFC 8881 §20) */
#define NFS4_CB_PROGRAM 0x40000000 /* the 4.1 back channel's usual number (RFC 8881 §20) */
#define NFS4_FHSIZE 128            /* RFC 7530 §2.2, RFC 8881 §3.2 */
#define NFS4_OPAQUE_LIMIT 1024
#define NFS4_SESSIONID_SIZE 16
#define NFS4_VERIFIER_SIZE 8
#define NFS4_OPS_MAX 64     /* operations decoded per COMPOUND; the rest are counted */
#define NFS4_KIND_MAX 4     /* distinct main operations kept per COMPOUND */
#define NFS4_DIGEST_BYTES 256

enum nfs4_proc { NFSPROC4_NULL = 0, NFSPROC4_COMPOUND = 1 }; /* also CB_NULL, CB_COMPOUND */

/* nfs_opnum4 (RFC 8881 §16.2.3, RFC 7862 §15.2, RFC 8276 §8.3). */
enum nfs_opnum4 {
    OP_ACCESS = 3, OP_CLOSE, OP_COMMIT, OP_CREATE, OP_DELEGPURGE, OP_DELEGRETURN,
    OP_GETATTR, OP_GETFH, OP_LINK, OP_LOCK, OP_LOCKT, OP_LOCKU, OP_LOOKUP, OP_LOOKUPP,
    OP_NVERIFY, OP_OPEN, OP_OPENATTR, OP_OPEN_CONFIRM, OP_OPEN_DOWNGRADE, OP_PUTFH,
    OP_PUTPUBFH, OP_PUTROOTFH, OP_READ, OP_READDIR, OP_READLINK, OP_REMOVE, OP_RENAME,
    OP_RENEW, OP_RESTOREFH, OP_SAVEFH, OP_SECINFO, OP_SETATTR, OP_SETCLIENTID,
    OP_SETCLIENTID_CONFIRM, OP_VERIFY, OP_WRITE, OP_RELEASE_LOCKOWNER,
    /* 4.1 */
    OP_BACKCHANNEL_CTL = 40, OP_BIND_CONN_TO_SESSION, OP_EXCHANGE_ID, OP_CREATE_SESSION,
    OP_DESTROY_SESSION, OP_FREE_STATEID, OP_GET_DIR_DELEGATION, OP_GETDEVICEINFO,
    OP_GETDEVICELIST, OP_LAYOUTCOMMIT, OP_LAYOUTGET, OP_LAYOUTRETURN, OP_SECINFO_NO_NAME,
    OP_SEQUENCE, OP_SET_SSV, OP_TEST_STATEID, OP_WANT_DELEGATION, OP_DESTROY_CLIENTID,
    OP_RECLAIM_COMPLETE,
    /* 4.2 */
    OP_ALLOCATE = 59, OP_COPY, OP_COPY_NOTIFY, OP_DEALLOCATE, OP_IO_ADVISE, OP_LAYOUTERROR,
    OP_LAYOUTSTATS, OP_OFFLOAD_CANCEL, OP_OFFLOAD_STATUS, OP_READ_PLUS, OP_SEEK,
    OP_WRITE_SAME, OP_CLONE,
    /* RFC 8276 */
    OP_GETXATTR = 72, OP_SETXATTR, OP_LISTXATTRS, OP_REMOVEXATTR,
    NFS4_OP_LAST = OP_REMOVEXATTR,
    OP_ILLEGAL = 10044
};

/* nfs_cb_opnum4 (RFC 8881 §20, RFC 7530 §16.2, RFC 7862 §16). */
enum nfs_cb_opnum4 {
    OP_CB_GETATTR = 3, OP_CB_RECALL, OP_CB_LAYOUTRECALL, OP_CB_NOTIFY, OP_CB_PUSH_DELEG,
    OP_CB_RECALL_ANY, OP_CB_RECALLABLE_OBJ_AVAIL, OP_CB_RECALL_SLOT, OP_CB_SEQUENCE,
    OP_CB_WANTS_CANCELLED, OP_CB_NOTIFY_LOCK, OP_CB_NOTIFY_DEVICEID, OP_CB_OFFLOAD,
    NFS4_CB_OP_LAST = OP_CB_OFFLOAD,
    OP_CB_ILLEGAL = 10044
};

enum { NFS4_OK = 0, NFS4ERR_DENIED = 10010, NFS4ERR_CLID_INUSE = 10017,
       NFS4ERR_MINOR_VERS_MISMATCH = 10021, NFS4ERR_OP_ILLEGAL = 10044,
       NFS4ERR_TOOSMALL = 10005, NFS4ERR_LAYOUTTRYLATER = 10058,
       NFS4ERR_OFFLOAD_NO_REQS = 10094 };

enum stable_how4 { UNSTABLE4 = 0, DATA_SYNC4 = 1, FILE_SYNC4 = 2 };
enum open_delegation_type4 { OPEN_DELEGATE_NONE = 0, OPEN_DELEGATE_READ, OPEN_DELEGATE_WRITE,
                             OPEN_DELEGATE_NONE_EXT, /* 4.1: why_no_delegation4 follows */
                             OPEN_DELEGATE_READ_ATTRS_DELEG, OPEN_DELEGATE_WRITE_ATTRS_DELEG };
enum open_claim_type4 { CLAIM_NULL = 0, CLAIM_PREVIOUS, CLAIM_DELEGATE_CUR, CLAIM_DELEGATE_PREV,
                        CLAIM_FH, CLAIM_DELEG_CUR_FH, CLAIM_DELEG_PREV_FH };

/* Why a COMPOUND's op list stopped before its count (nfs4_call.stop,
 * nfs4_reply.stop). Each is counted by the caller, never fatal. */
enum nfs4_stop {
    NFS4_STOP_NONE = 0,  /* every op decoded */
    NFS4_STOP_UNKNOWN,   /* an op number outside every table: named op<N>, rest not decodable */
    NFS4_STOP_BOUND,     /* more than NFS4_OPS_MAX ops: the rest counted in ops_beyond */
    NFS4_STOP_MALFORMED, /* an op's arguments or results broke a bound, or the bytes ended */
};

struct nfs4_stateid { /* stateid4 (RFC 8881 §3.3.12) */
    uint32_t seqid;
    uint8_t other[12];
};

struct nfs4_chan { /* channel_attrs4 (RFC 8881 §18.36) */
    uint32_t headerpadsize, maxrequestsize, maxresponsesize, maxresponsesize_cached;
    uint32_t maxoperations, maxrequests;
};

/* The attributes of a fattr4 the findings use (RFC 8881 §5.8): from them
 * nfs4_event.c makes the digest that tells whether two attribute sets of one
 * file differ. `have` says which were present (NFS4_ATTR_* bits). */
enum { NFS4_ATTR_TYPE = 1, NFS4_ATTR_CHANGE = 2, NFS4_ATTR_SIZE = 4, NFS4_ATTR_FILEID = 8,
       NFS4_ATTR_MTIME = 16, NFS4_ATTR_CTIME = 32 };
struct nfs4_attrs {
    uint8_t have;       /* NFS4_ATTR_* */
    bool walked;        /* every attribute in the bitmap was decoded (else: one this decoder
                         * does not know ended the walk; the list itself is skipped exactly) */
    uint32_t type;      /* nfs_ftype4 */
    uint64_t change, size, fileid;
    int64_t mtime_s, ctime_s;
    uint32_t mtime_ns, ctime_ns;
    struct bytes fh;    /* FATTR4_FILEHANDLE (a READDIR entry's handle), borrowed; empty: none */
};

/* SEQUENCE / CB_SEQUENCE (RFC 8881 §18.46, §20.9). */
struct nfs4_seq {
    uint8_t sessionid[NFS4_SESSIONID_SIZE];
    uint32_t sequenceid, slotid, highest_slotid;
    uint32_t target_highest_slotid, status_flags; /* results only */
    bool cachethis;                                /* arguments only */
    uint32_t nreferring;                           /* CB_SEQUENCE referring calls */
};

/* One operation's arguments: the fields the op has, the rest zero. */
struct nfs4_argop {
    uint32_t op;            /* nfs_opnum4 or nfs_cb_opnum4 as on the wire */
    uint8_t fh_gen;         /* current-FH generation the op ran with (nfs4_call.gen) */
    uint8_t saved_gen;      /* saved-FH generation (RENAME/LINK/COPY/CLONE sources) */
    bool has_stateid;
    uint8_t stable;         /* WRITE, WRITE_SAME: stable_how4 */
    struct nfs4_stateid stateid; /* the op's (first) stateid: READ, WRITE, CLOSE, LOCKU,
                                  * SETATTR, DELEGRETURN, LOCK (open or lock), COPY (src),
                                  * CB_RECALL, ... */
    struct bytes fh;        /* PUTFH; the callbacks' file handle */
    struct bytes name;      /* LOOKUP, OPEN by name, CREATE, REMOVE, RENAME old, LINK new,
                             * SECINFO, xattr key; SETCLIENTID cb netid */
    struct bytes name2;     /* RENAME new name, CREATE symlink text; SETCLIENTID cb addr */
    struct bytes owner;     /* OPEN open owner, LOCK/LOCKT/RELEASE_LOCKOWNER lock owner,
                             * SETCLIENTID/EXCHANGE_ID client id, CB_NOTIFY_LOCK owner */
    struct bytes data;      /* WRITE data, SETXATTR value: a borrowed view, never copied */
    uint64_t clientid;      /* the owner's clientid; RENEW, DELEGPURGE, SETCLIENTID_CONFIRM,
                             * CREATE_SESSION, DESTROY_CLIENTID */
    uint64_t offset, length; /* READ, WRITE, COMMIT, LOCK*, SEEK, ALLOCATE, DEALLOCATE,
                              * LAYOUT*, COPY/CLONE (source offset, count) */
    uint64_t offset2;       /* COPY, CLONE destination offset */
    uint32_t count;         /* READ/READ_PLUS count, WRITE data length, COMMIT count,
                             * READDIR maxcount, LISTXATTRS maxcount */
    uint32_t bitmap[3];     /* GETATTR/READDIR/CB_GETATTR attr_request, first words */
    union {
        uint32_t access;    /* ACCESS */
        struct {            /* OPEN (RFC 8881 §18.16) */
            uint32_t seqid, share_access, share_deny, opentype, createmode, claim;
            uint32_t delegate_type; /* CLAIM_PREVIOUS */
        } open;
        struct {            /* LOCK, LOCKT, LOCKU */
            uint32_t locktype, seqid;
            bool reclaim, new_lock_owner;
        } lock;
        struct {            /* CREATE */
            uint32_t type, specdata1, specdata2;
        } create;
        struct nfs4_seq seq; /* SEQUENCE, CB_SEQUENCE */
        struct {            /* CREATE_SESSION */
            uint32_t sequence, flags, cb_program;
            struct nfs4_chan fore, back;
        } cs;
        struct {            /* EXCHANGE_ID, SETCLIENTID */
            uint8_t verifier[NFS4_VERIFIER_SIZE];
            uint32_t flags;       /* EXCHANGE_ID eia_flags */
            uint32_t state_protect; /* EXCHANGE_ID spa_how */
            uint32_t cb_program, callback_ident; /* SETCLIENTID */
        } cid;
        struct {            /* LAYOUTGET, LAYOUTRETURN, LAYOUTCOMMIT, GETDEVICEINFO, CB_LAYOUTRECALL */
            uint32_t type, iomode, returntype;
        } layout;
        struct {            /* READDIR */
            uint64_t cookie;
            uint32_t dircount;
        } readdir;
        struct {            /* COPY */
            bool consecutive, synchronous;
            uint32_t nsource_servers;
        } copy;
        struct {            /* CB_RECALL, CB_RECALL_ANY */
            bool truncate;
            uint32_t objects_to_keep;
        } recall;
        uint32_t style;     /* SECINFO_NO_NAME secinfo_style4, SEEK data_content4 */
        uint32_t callback_program; /* BACKCHANNEL_CTL */
    } u;
};

/* One operation's result. */
struct nfs4_resop {
    uint32_t op, status;
    uint8_t fh_gen, saved_gen; /* as in nfs4_argop, from the call's op list */
    bool has_status;        /* the status was captured (else the result is cut short) */
    bool has_stateid, has_attrs, has_verf, eof;
    uint8_t committed;      /* WRITE, COPY, WRITE_SAME, CB_OFFLOAD: stable_how4; else 0xff */
    struct nfs4_stateid stateid; /* OPEN, OPEN_CONFIRM, OPEN_DOWNGRADE, CLOSE, LOCK, LOCKU,
                                  * LAYOUTGET, LAYOUTRETURN, COPY_NOTIFY */
    struct bytes fh;        /* GETFH */
    struct bytes data;      /* READ data, READLINK text, GETXATTR value, READDIR's entry4
                             * list (from its first value_follows to eof): borrowed */
    uint64_t offset, length; /* LOCK/LOCKT denied range, SEEK offset, LAYOUTCOMMIT new size,
                              * COPY/WRITE_SAME/OFFLOAD_STATUS bytes; READ_PLUS: first data
                              * segment's offset, holes' bytes */
    uint32_t count;         /* READ/READ_PLUS data bytes, WRITE count, READDIR/LISTXATTRS
                             * entries, TEST_STATEID codes */
    uint8_t verf[NFS4_VERIFIER_SIZE]; /* WRITE, COMMIT, COPY: write verifier */
    struct nfs4_attrs attrs; /* GETATTR, CB_GETATTR; READDIR: its first entry's */
    union {
        struct { uint32_t supported, access; } access;
        struct {            /* OPEN, WANT_DELEGATION, (CB_PUSH_DELEG args) */
            uint32_t rflags;
            uint32_t delegation;   /* open_delegation_type4 */
            uint32_t why_none;     /* OPEN_DELEGATE_NONE_EXT: why_no_delegation4 */
            bool recall;
            struct nfs4_stateid deleg_stateid;
        } open;
        struct nfs4_seq seq; /* SEQUENCE, CB_SEQUENCE */
        struct {            /* CREATE_SESSION */
            uint8_t sessionid[NFS4_SESSIONID_SIZE];
            uint32_t sequence, flags;
            struct nfs4_chan fore, back;
        } cs;
        struct {            /* EXCHANGE_ID, SETCLIENTID */
            uint64_t clientid;
            uint32_t sequenceid, flags, state_protect; /* EXCHANGE_ID */
            uint8_t confirm[NFS4_VERIFIER_SIZE];      /* SETCLIENTID */
        } cid;
        struct {            /* LOCK, LOCKT: NFS4ERR_DENIED (LOCK4denied) */
            uint32_t locktype;
            uint64_t clientid;
            struct bytes owner;
        } denied;
        uint32_t mincount;  /* GETDEVICEINFO: NFS4ERR_TOOSMALL */
    } u;
};

/* A current or saved file handle generation: a new one starts at each op
 * that sets the current FH (PUTFH, PUTROOTFH, PUTPUBFH, LOOKUP, LOOKUPP,
 * OPEN by name, CREATE, OPENATTR, SECINFO*); SAVEFH/RESTOREFH copy one.
 * Generation 0: no current FH yet. */
struct nfs4_fhgen {
    struct bytes fh;      /* call: the PUTFH argument; reply: the one the call kept
                           * (nfs4_putfh_restore), else a GETFH result of this generation */
    uint8_t set_by;       /* op index that started it, or 0xff */
};

/* The main operations of a COMPOUND (Wireshark's nfs.main_opcode): every op
 * of the lowest tier (nfs4_op_tier()), distinct, in call order. */
struct nfs4_kind {
    uint8_t n;
    uint32_t op[NFS4_KIND_MAX];
};

struct nfs4_call {
    bool cb;                /* CB_COMPOUND (op numbers are nfs_cb_opnum4) */
    struct bytes tag;       /* utf8str_cs, borrowed: escape before printing */
    uint32_t minorversion;
    bool minor_unknown;     /* > 2: the server answers NFS4ERR_MINOR_VERS_MISMATCH; the ops
                             * are still decoded with the 4.2 tables */
    uint32_t callback_ident; /* CB_COMPOUND only */
    uint32_t nops;          /* argarray count on the wire */
    uint32_t ndecoded;      /* ops in op[] */
    uint32_t ops_beyond;    /* ops after the NFS4_OPS_MAX bound, not decoded */
    enum nfs4_stop stop;
    uint32_t stop_op;       /* NFS4_STOP_UNKNOWN: the unknown op number (it is op[ndecoded-1]) */
    struct nfs4_kind kind;
    uint64_t newgen;        /* bit i: op i started a new current-FH generation */
    bool data_cut;          /* a WRITE/WRITE_SAME/SETXATTR's data ran past the head (the op's
                             * data view holds what was captured, count the full length) */
    uint8_t ngen;           /* generations in gen[] */
    struct nfs4_fhgen gen[NFS4_OPS_MAX + 1];
    struct nfs4_argop op[NFS4_OPS_MAX];
};

/* What survives from call to reply: small, no pointers. */
struct nfs4_digest {
    uint32_t minorversion;
    uint32_t nops, ops_beyond, stop_op;
    uint8_t ndecoded, stop, cb;
    uint8_t fh_pool;        /* bytes of pending_call.name[] after the names holding the
                             * call's other PUTFH handles (nfs4_putfh_keep) */
    struct nfs4_kind kind;
    uint64_t newgen;        /* bit i: op i started a new current-FH generation */
    uint64_t putfh_own;     /* bit i: op i is a PUTFH of the pending call's handle (fh[]) */
    uint64_t offset;        /* first READ/WRITE/COMMIT/READ_PLUS/COPY: offset; READDIR: cookie */
    uint32_t count;         /* its count (WRITE: data length) */
    uint8_t stable;         /* first WRITE/WRITE_SAME stable_how4, 0xff: none */
    uint8_t op[NFS4_OPS_MAX]; /* nfs4_op_pack() of each decoded op */
    bool has_seq;           /* the call has a SEQUENCE / CB_SEQUENCE (its first one): */
    uint8_t sessionid[NFS4_SESSIONID_SIZE];
    uint32_t slotid, sequenceid;
    /* For the state a reply changes (src/nfs4_state.h), besides the
     * SEQUENCE's session and slot above (a failed SEQUENCE result carries
     * neither, RFC 8881 §18.46.2): the argument of the first op whose result
     * does not repeat it (st_op: its index, 0xff: none): SETCLIENTID_CONFIRM,
     * RENEW, DESTROY_CLIENTID, CREATE_SESSION, and a 4.0 OPEN or new-owner
     * LOCK: the clientid in st_arg[0..7] (host order); CLOSE, DELEGRETURN,
     * FREE_STATEID: the stateid's other (12 bytes); DESTROY_SESSION: the
     * sessionid; on the back channel the first CB_RECALL's stateid. */
    uint8_t st_op;
    uint8_t st_arg[NFS4_SESSIONID_SIZE];
    uint32_t cb_program;    /* the callback program the call announces, 0: none
                             * (nfs4_call_cb_program) */
};

/* What nfs4.c hands with each operation it emits (op_item.detail). */
struct nfs4_op_detail {
    uint32_t minorversion;
    const struct nfs4_argop *arg;   /* OPI_CALL: the op's arguments; else NULL */
    const struct nfs4_resop *res;   /* OPI_RESULT: its result; else NULL */
    const struct nfs4_digest *call; /* the call's digest (struct nfs4_digest) */
};

struct nfs4_reply {
    bool cb;
    uint32_t status;        /* the COMPOUND's status: that of the last result */
    struct bytes tag;
    uint32_t nres;          /* resarray count on the wire */
    uint32_t ndecoded;      /* results in res[] */
    uint32_t res_beyond;    /* results after the bound, not decoded */
    enum nfs4_stop stop;
    uint32_t stop_op;
    uint32_t not_evaluated; /* call ops with no result (from the digest; 0 without one) */
    bool ops_mismatch;      /* a result's op differs from the call's op at its index */
    bool data_cut;          /* a READ/READLINK/GETXATTR's data ran past the head */
    int32_t first_error;    /* index of the first result with status != NFS4_OK, or -1 */
    uint8_t ngen;
    struct nfs4_fhgen gen[NFS4_OPS_MAX + 1];
    struct nfs4_resop res[NFS4_OPS_MAX];
};

/* The last bytes of a message whose middle was not kept (the RPC layer keeps
 * a head and a tail of long messages: WRITE data sits between them). When
 * the head ends inside the data of a WRITE, WRITE_SAME or SETXATTR call, or
 * of a READ, READLINK or GETXATTR result, decoding resumes in the tail just
 * after the data, whose length the head gave. */
struct nfs4_tail {
    struct bytes b; /* borrowed */
    uint32_t off;   /* offset of b.p[0] from the cursor's buffer start */
};

/* COMPOUND4args (RFC 8881 §16.2.1) from x (after the RPC call header);
 * tail may be NULL. DECODE_OK, or TRUNCATED/INVALID with what was decoded
 * before kept (stop says where). An unknown op ends the list with
 * NFS4_STOP_UNKNOWN and DECODE_OK: it is decoded as far as its number. */
enum decode_rc nfs4_compound_call(struct xdr_cur *x, const struct nfs4_tail *tail,
                                  struct nfs4_call *c);
/* CB_COMPOUND4args (RFC 8881 §20.2, RFC 7530 §16.2.3). */
enum decode_rc nfs4_cb_compound_call(struct xdr_cur *x, struct nfs4_call *c);
/* COMPOUND4res / CB_COMPOUND4res from x (after an accepted reply header).
 * d: the call's digest, or NULL for a reply whose call was not seen. */
enum decode_rc nfs4_compound_reply(struct xdr_cur *x, const struct nfs4_tail *tail,
                                   const struct nfs4_digest *d, struct nfs4_reply *r);
enum decode_rc nfs4_cb_compound_reply(struct xdr_cur *x, const struct nfs4_digest *d,
                                      struct nfs4_reply *r);
/* The callback program a call announces (RFC 7530 §16.1, RFC 8881 §18.33,
 * §18.36): SETCLIENTID's cb_program, CREATE_SESSION's csa_cb_program or
 * BACKCHANNEL_CTL's bca_cb_program, the last of them; 0 if none. The 4.0
 * callbacks come on a connection the server opens, the 4.1 ones on the
 * client's own (the back channel), both with this program number. */
uint32_t nfs4_call_cb_program(const struct nfs4_call *c);
/* The first op of the call's kind (its main operation), or NULL (no op):
 * the one whose file handle (c->gen[op->fh_gen]) and name a per-call
 * record shows. */
const struct nfs4_argop *nfs4_call_main_op(const struct nfs4_call *c);

/* Fill ev from a COMPOUND's reply: the main operation's attributes, the
 * object it named, ACCESS masks, the write verifier, the modifying flags of
 * the operations that succeeded, and ev->v4 (nfs4_event.c). */
struct op_event;
void nfs4_event_fill(const struct nfs4_digest *d, const struct nfs4_reply *r,
                     struct op_event *ev);

/* What a CB_COMPOUND's call says, answered or not: the delegation a
 * CB_RECALL recalls (op_nfs4.deleg_sid). */
void nfs4_cb_event_call(const struct nfs4_digest *d, struct op_event *ev);

/* The same for a CB_COMPOUND's reply: the main operation's status, the
 * first failing operation, the stateid a CB_RECALL recalls. */
void nfs4_cb_event_fill(const struct nfs4_digest *d, const struct nfs4_reply *r,
                        struct op_event *ev);

/* The NFSv4 messages for the RPC layer (nfs4.c), forward channel (cb false:
 * program 100003 version 4) or callbacks (cb true: CB_NULL and CB_COMPOUND,
 * RFC 7530 §16, RFC 8881 §20), as struct rpc_program's call, reply and
 * detail. */
struct pending_call;
enum decode_rc nfs4_msg_call(struct xdr_cur *x, struct pending_call *pc,
                             const struct op_sink *sub, bool cb);
enum decode_rc nfs4_msg_reply(struct xdr_cur *x, const struct pending_call *pc,
                              struct op_event *ev, const struct op_sink *sub);
bool nfs4_msg_detail(uint32_t proc, const uint8_t *priv, struct msg_detail *out);
/* A kind (op_event.main_ops) by name, forward or callback operations. */
const char *nfs4_kind_key_name(uint32_t key, bool cb, char *buf, size_t size);
/* The callback program (nfs4_callback.c): its number is 0x40000000 or the
 * one a client's SETCLIENTID / CREATE_SESSION / BACKCHANNEL_CTL announced. */
extern const struct rpc_program nfs4_callback_program;

/* The call's digest, for its pending-call scratch. */
void nfs4_digest_make(const struct nfs4_call *c, struct nfs4_digest *d);
/* The handles of the call's PUTFH operations, kept for its reply in the
 * pending call (after nfs4_digest_make and after pc's handle and names are
 * set): a PUTFH of pc->fh is a bit of d->putfh_own; every other distinct
 * handle is copied once into pc->name[] after the names (d->fh_pool bytes),
 * as far as its 255 bytes go. Returns the PUTFHs whose handle found no room
 * (their results will count under no handle). */
uint32_t nfs4_putfh_keep(const struct nfs4_call *c, struct nfs4_digest *d,
                         struct pending_call *pc);
/* Give each generation of the reply that a PUTFH of the call started the
 * handle nfs4_putfh_keep kept for it (borrowed from pc). */
void nfs4_putfh_restore(const struct nfs4_digest *d, const struct pending_call *pc,
                        struct nfs4_reply *r);
/* The op of decoded call op i (0 <= i < d->ndecoded) as on the wire. */
uint32_t nfs4_digest_op(const struct nfs4_digest *d, uint32_t i);

/* An op number in one byte (the digest's op list): itself up to 253, 254
 * for any other unknown number, 255 for ILLEGAL. */
uint8_t nfs4_op_pack(uint32_t op);
uint32_t nfs4_op_unpack(uint8_t b, uint32_t unknown_op);

/* The ops' names, kinds and flags (struct rpc_op, op_kind.h), indexed by
 * op number (NULL name: a gap); ILLEGAL / CB_ILLEGAL apart. nfs4_op() and
 * nfs4_cb_op(): the entry of a number, or NULL for an unknown one. */
extern const struct rpc_op nfs4_op_table[NFS4_OP_LAST + 1];
extern const struct rpc_op nfs4_cb_op_table[NFS4_CB_OP_LAST + 1];
extern const struct rpc_op nfs4_illegal_op, nfs4_cb_illegal_op;
const struct rpc_op *nfs4_op(uint32_t op);
/* READ, WRITE, READ_PLUS, COPY: the operations whose file data the reports
 * count (op_item.io; bytes: WRITE data sent, READ and READ_PLUS data
 * returned, COPY bytes copied). */
static inline bool
nfs4_op_moves_data(uint32_t op)
{
    return op == OP_READ || op == OP_WRITE || op == OP_READ_PLUS || op == OP_COPY;
}
/* The name of row `row` of an NFSv4 program's operation rows (the forward
 * or the callback table): ILLEGAL's or CB_ILLEGAL's in row 0; NULL: a gap. */
const char *nfs4_row_name(const struct rpc_program *pg, uint32_t row);
const struct rpc_op *nfs4_cb_op(uint32_t op);

/* Names. Operations are lower case (RFC names: "putfh", "cb_recall", ...);
 * an unknown number is "op<N>", written into buf (at least 16 bytes). */
const char *nfs4_op_name(uint32_t op, char *buf, size_t size);
const char *nfs4_cb_op_name(uint32_t op, char *buf, size_t size);
bool nfs4_op_known(uint32_t op);
bool nfs4_cb_op_known(uint32_t op);
/* nfsstat4 names (RFC 8881 §15.1, RFC 7862 §11.1, RFC 8276 §8.2):
 * "NFS4_OK", "NFS4ERR_NOENT", ...; NULL if the number has none. */
const char *nfs4_status_name(uint32_t status);
const char *nfs4_stable_name(uint32_t stable);     /* "UNSTABLE4" ...; NULL out of range */
const char *nfs4_delegation_name(uint32_t type);   /* "OPEN_DELEGATE_READ" ... */
const char *nfs4_why_no_delegation_name(uint32_t why); /* "WND4_CONTENTION" ... */

/* The op's tier for the COMPOUND's kind, as Wireshark's nfs.main_opcode
 * (checked against tshark 4.0.17): 0 ILLEGAL; 1 every op not listed; 2
 * ACCESS, NVERIFY; 3 GETATTR, PUTPUBFH, PUTROOTFH; 4 GETFH, PUTFH,
 * RESTOREFH, SAVEFH, SEQUENCE. The kind is every op of the lowest tier. */
unsigned nfs4_op_tier(uint32_t op);
/* "lookup", "putrootfh+getattr", "none" (no op): the kind's name, lower case. */
const char *nfs4_kind_name(const struct nfs4_kind *k, bool cb, char *buf, size_t size);

#endif
