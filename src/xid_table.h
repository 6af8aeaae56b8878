/* SPDX-License-Identifier: BSD-3-Clause */
/* xid_table.h: calls waiting for their reply, keyed by (flow id, direction
 * the call was sent in, XID).
 *
 * RFC 5531 §9: a reply carries its call's XID; XIDs are only unique per
 * client transport endpoint, so the key includes the connection (for UDP the
 * address/port pair) and the direction: a call from the server to the client
 * (an NLM GRANTED callback, an NFSv4.1 back-channel call, RFC 8881 §2.10.3.1)
 * draws its XIDs from the server's own sequence, so it may carry the XID of
 * a pending client call and must not replace it. Fixed capacity; entries kept in arrival order so the
 * oldest is evicted when full and calls older than the timeout expire, both
 * by packet time with a per-call budget. Answered UDP calls are remembered a
 * short while, so that retransmitted calls and duplicate replies after a
 * reply are recognised instead of being counted as new calls or orphans:
 * apart from the pending calls, in a ring in answer order of as many entries,
 * each a few dozen bytes (a pending call carries its arguments: 752), so they
 * neither hold a pending call's memory nor push pending calls out. */
#ifndef NFSSCOPE_XID_TABLE_H
#define NFSSCOPE_XID_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "flow_key.h"
#include "hashtab.h"

struct rpc_program;

#define PC_PRIV_SIZE 184 /* dissector scratch: NFSv4's call digest (nfs4.h) is the largest */
#define PC_FH_MAX 128   /* NFS4_FHSIZE (RFC 8881 §3.2); NFSv3's is 64 (RFC 1813 §2.4) */
#define PC_NAME_MAX 255 /* longest name kept for learning paths */
#define PC_BD_DIMS 6    /* = BD__COUNT (breakdown.h) */

enum pc_state { PC_PENDING = 1 };

struct pending_call {
    uint64_t flow_id;
    struct flow_key key;          /* the connection, as the flow first saw it */
    uint32_t xid, prog, vers, proc;
    const struct rpc_program *pg; /* NULL: program not decoded, still matched */
    struct timespec t_call;       /* packet that completed the call message */
    uint64_t frame;               /* and its frame number (struct pkt), 0: unknown */
    uint32_t call_len;
    uint32_t uid, gid;            /* AUTH_SYS, else UINT32_MAX */
    uint16_t retrans;
    uint8_t dir;                  /* flow direction from the client to the server: the
                                   * connection's role, the same for calls both ways */
    uint8_t sent_dir;             /* flow direction the call travelled in (the key) */
    uint8_t state : 7;            /* enum pc_state */
    uint8_t in_index : 1;         /* in the index (else found through its xid_conn) */
    /* The credential, in one byte: gss_wrapped, arguments not decoded
     * (RPCSEC_GSS privacy, a control message, a credential that did not
     * parse); gss_service (rpc.h RPC_GSS_SVC_*, 0: not RPCSEC_GSS); gss_proc,
     * a control message (RPCSEC_GSS_INIT ..., 0: none); tls_probe, a NULL
     * call with an AUTH_TLS credential (RFC 9289 §4.1). */
    uint8_t gss_wrapped : 1, gss_service : 2, gss_proc : 2, tls_probe : 1;
    uint8_t stable;               /* set by the dissector: WRITE stable_how, or STABLE_NONE */
    uint8_t partial;              /* arguments were cut short */
    uint8_t kind;                 /* enum op_kind: the procedure's, or the dissector's
                                   * main operation (NFSv4 COMPOUND) */
    uint8_t fh2_len, name2_len;   /* a second handle and name, packed in name[] (below) */
    uint8_t minor;                /* set by the dissector: the message's minor version
                                   * (NFSv4), or 0xff: the program has none */
    uint32_t write_count;         /* set by the dissector: WRITE count */
    uint32_t seq_prev, seq_next;  /* arrival order (slot ids), internal */
    /* Set by the dissector for the breakdowns and the names: the
     * handle the call acts on (for LOOKUP, CREATE, ... the directory) and the
     * name it gives in that directory (MOUNT: the export path). RENAME's
     * to.dir and to.name, LINK's link.dir and link.name follow the first name
     * in name[] (fh2_len, name2_len bytes) when all fit, else they are not
     * kept (lengths 0) and nothing is learned from the call. A dissector
     * may keep more in the bytes after them until the reply (NFSv4: a
     * COMPOUND's PUTFH handles, dissectors/nfs4_putfh.c). */
    uint8_t fh_len, name_len;
    uint8_t fh[PC_FH_MAX];
    uint8_t name[PC_NAME_MAX];
    uint32_t bd_idx[PC_BD_DIMS], bd_gen[PC_BD_DIMS]; /* breakdown rows of the call */
    _Alignas(8) uint8_t priv[PC_PRIV_SIZE]; /* dissector scratch: e.g. READ offset/count */
};
/* xid_table_add zeroes all but fh[] and name[], which sit together. */
_Static_assert(offsetof(struct pending_call, name) == offsetof(struct pending_call, fh) + PC_FH_MAX &&
                   offsetof(struct pending_call, bd_idx) >=
                       offsetof(struct pending_call, name) + PC_NAME_MAX &&
                   offsetof(struct pending_call, bd_idx) < offsetof(struct pending_call, priv),
               "fh[] and name[] end the part of a pending call that is not zeroed");

/* An answered call, remembered answered_keep_s (see the top of the file). */
struct answered_call {
    uint64_t flow_id;
    const struct rpc_program *pg;
    struct timespec t_answer; /* when the reply was seen */
    uint32_t xid, prog, vers, proc;
    uint8_t sent_dir;         /* flow direction the call travelled in */
    uint8_t live;             /* 0: forgotten (its XID was reused), slot not yet reclaimed */
};

/* Called for every call leaving the table unanswered (expired, evicted). */
typedef void xid_lost_fn(void *ctx, const struct pending_call *pc, bool evicted);

struct xid_table {
    struct pending_call *slab;
    size_t cap, count;
    uint32_t free_head, old_head, old_tail; /* arrival order: old_head is the oldest */
    size_t fresh;                           /* slots [fresh, cap) have never been used */
    struct hashtab idx;
    uint64_t seed;
    uint64_t last_flow, last_word, last_hash; /* the last key hashed (xid_table.c) */
    xid_lost_fn *on_lost;
    void *ctx;
    uint64_t evicted, expired;
    /* Answered calls: a ring of cap entries, ans_head the oldest. */
    struct answered_call *ans;
    size_t ans_head, ans_count; /* ans_count includes forgotten entries */
    size_t ans_fresh;           /* ans[] given out below this (its first lap) */
    struct hashtab ans_idx;     /* live entries only */
};

/* What one connection knows of its own pending calls, kept with it (struct
 * flow), so that its calls need not enter the index. Per XID bucket: the
 * slot of the bucket's latest call, found there without the index (XIDs
 * mostly count up by one, so the calls a connection has in flight fall in
 * different buckets), and how many calls were added under the connection's
 * id and not yet seen leaving through these functions, a count that only
 * errs high (a call that expires or is evicted is not taken off; at 255 it
 * stays), so that a bucket at 0 proves that no call of that bucket is
 * pending. A call enters the index only when a newer call of its bucket
 * takes its slot, or when the connection gets a new id (flow_table_renew;
 * the old id's calls stay findable by xid_table_find for a reconnecting
 * client's resent calls). A connection that is forgotten (its flow evicted)
 * takes the way to its slot-held calls with it: they are never looked for
 * again, and leave by expiry or eviction as before. All zero is a valid
 * start; it starts again by itself when the connection's id changes. */
#define XC_BUCKETS 16 /* a power of two */
struct xid_conn {
    uint64_t id;                 /* the connection id the rest is about */
    uint32_t slot[XC_BUCKETS];   /* per XID bucket: the slot of its latest call (checked) */
    uint8_t maybe[XC_BUCKETS];   /* per XID bucket: calls possibly pending */
};

int xid_table_init(struct xid_table *t, size_t cap, uint64_t seed, xid_lost_fn *on_lost, void *ctx);
void xid_table_fini(struct xid_table *t);

/* The pending call for (flow_id, sent_dir, xid), or NULL. sent_dir: the flow
 * direction the call travelled in (a reply travels the other way). Calls
 * added by xid_conn_add are found here once in the index (see struct
 * xid_conn); xid_conn_find finds every call of its connection. */
struct pending_call *xid_table_find(struct xid_table *t, uint64_t flow_id, unsigned sent_dir,
                                    uint32_t xid);
/* The answered call remembered for (flow_id, sent_dir, xid), or NULL. */
const struct answered_call *xid_answered_find(struct xid_table *t, uint64_t flow_id,
                                              unsigned sent_dir, uint32_t xid);
/* Forget an answered call (its XID was reused for another call). */
void xid_answered_forget(struct xid_table *t, const struct answered_call *a);

/* A new pending entry (zeroed but for the key, and for the bytes of fh[] and
 * name[], whose lengths are 0). When full the oldest entry is evicted first:
 * reported through on_lost if still pending. Never NULL. */
struct pending_call *xid_table_add(struct xid_table *t, uint64_t flow_id, unsigned sent_dir,
                                   uint32_t xid, const struct timespec *now);

/* pc moves to another connection: the call was sent again, with its XID, on
 * a new connection between the same ports (a client reconnecting). */
void xid_table_rekey(struct xid_table *t, struct pending_call *pc, uint64_t flow_id);

/* pc was answered at `now`: it leaves the pending calls and is remembered
 * as answered until answered_keep_s has passed (the oldest answered call
 * makes room when all cap are remembered). */
void xid_table_answer(struct xid_table *t, struct pending_call *pc, const struct timespec *now);

/* Remove one entry. */
void xid_table_remove(struct xid_table *t, struct pending_call *pc);

/* Expire by packet time: answered calls older than answered_keep_s, oldest
 * first, then pending calls older than timeout_s (reported as lost); at most
 * `budget` entries looked at in all (0 = no limit). */
void xid_table_expire(struct xid_table *t, const struct timespec *now, unsigned timeout_s,
                      unsigned answered_keep_s, size_t budget);

/* xid_table_find, xid_table_add, xid_table_remove, xid_table_answer and
 * xid_table_rekey for the calls of connection `flow_id`, whose xid_conn is
 * c (every call of a connection goes through these with the same c): the
 * same answers, and c kept up to date; a call added here is in the index
 * only as said at struct xid_conn. */
static inline struct pending_call *xid_conn_find(struct xid_table *t, struct xid_conn *c,
                                                 uint64_t flow_id, unsigned sent_dir,
                                                 uint32_t xid);
struct pending_call *xid_conn_add(struct xid_table *t, struct xid_conn *c, uint64_t flow_id,
                                  unsigned sent_dir, uint32_t xid, const struct timespec *now);
void xid_conn_remove(struct xid_table *t, struct xid_conn *c, struct pending_call *pc);
void xid_conn_answer(struct xid_table *t, struct xid_conn *c, struct pending_call *pc,
                     const struct timespec *now);
void xid_conn_rekey(struct xid_table *t, struct xid_conn *c, struct pending_call *pc,
                    uint64_t flow_id);

/* Inline, as every RPC message looks its call up: the bucket's count and
 * slot here, the rest (a new id, the index) in xid_conn_find_more. */
struct pending_call *xid_conn_find_more(struct xid_table *t, struct xid_conn *c,
                                        uint64_t flow_id, unsigned sent_dir, uint32_t xid);

static inline unsigned
xid_conn_bucket(unsigned sent_dir, uint32_t xid)
{
    return (xid ^ (sent_dir & 1) << 3) & (XC_BUCKETS - 1);
}

static inline struct pending_call *
xid_conn_find(struct xid_table *t, struct xid_conn *c, uint64_t flow_id, unsigned sent_dir,
              uint32_t xid)
{
    unsigned b = xid_conn_bucket(sent_dir, xid);
    struct pending_call *pc;

    if (c->id != flow_id)
        return xid_conn_find_more(t, c, flow_id, sent_dir, xid);
    if (c->maybe[b] == 0)
        return NULL;
    /* Keys are unique among pending calls: the slot's call, if it has this
     * key, is the one; else it is in the index or nowhere. */
    pc = &t->slab[c->slot[b]];
    if (pc->state == PC_PENDING && pc->xid == xid && pc->flow_id == flow_id &&
        pc->sent_dir == (sent_dir & 1))
        return pc;
    return xid_table_find(t, flow_id, sent_dir, xid);
}

/* Remove everything, reporting pending calls as lost (end of input) and
 * forgetting the answered ones. */
void xid_table_flush(struct xid_table *t);

#endif
