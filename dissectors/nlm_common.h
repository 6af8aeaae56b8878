/* SPDX-License-Identifier: BSD-3-Clause */
/* nlm_common.h: what NLM versions 1, 3 and 4 share at the depth nfsscope
 * decodes (Open Group XNFS 3W "Protocols for Interworking: XNFS", chapters
 * 10-11 and 14; Linux fs/lockd). Included by nlm1.c, nlm3.c and nlm4.c only;
 * everything here is static.
 *
 * Every result (nlm_res, nlm_testres, nlm_shareres and their v4 forms)
 * starts with a netobj cookie followed by the nlm_stats word, which is the
 * status reported. The asynchronous procedures split one operation into two
 * calls: a *_MSG call (void reply) from the requester and later a *_RES call
 * from the other side carrying the result as its arguments (void reply).
 * The status of a *_RES operation is therefore taken from its call and
 * reported when that call is answered, so denied or blocked asynchronous
 * locks show up as errors of lock_res just as synchronous ones do of lock. */
#ifndef NFSSCOPE_NLM_COMMON_H
#define NFSSCOPE_NLM_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "dissector.h"
#include "stats.h"
#include "xdr_cur.h"
#include "xid_table.h"

/* The operation table rows every NLM version shares: procedures 0-15 of
 * version 1 (XNFS 3W chapter 10), and 16-23 that versions 3 and 4 add
 * (SHARE, UNSHARE, NM_LOCK, FREE_ALL; chapter 11). */
#define NLM_OPS_V1 \
    { "null", OPK_NULL, 0 }, \
    { "test", OPK_LOCK_TEST, OPF_FH }, \
    { "lock", OPK_LOCK, OPF_FH }, \
    { "cancel", OPK_LOCK_CANCEL, OPF_FH }, \
    { "unlock", OPK_UNLOCK, OPF_FH }, \
    { "granted", OPK_LOCK_GRANTED, OPF_FH | OPF_CALLBACK }, \
    { "test_msg", OPK_LOCK_TEST, OPF_FH | OPF_MSG }, \
    { "lock_msg", OPK_LOCK, OPF_FH | OPF_MSG }, \
    { "cancel_msg", OPK_LOCK_CANCEL, OPF_FH | OPF_MSG }, \
    { "unlock_msg", OPK_UNLOCK, OPF_FH | OPF_MSG }, \
    { "granted_msg", OPK_LOCK_GRANTED, OPF_FH | OPF_MSG | OPF_CALLBACK }, \
    { "test_res", OPK_LOCK_RESULT, OPF_MSG | OPF_CALLBACK }, \
    { "lock_res", OPK_LOCK_RESULT, OPF_MSG | OPF_CALLBACK }, \
    { "cancel_res", OPK_LOCK_RESULT, OPF_MSG | OPF_CALLBACK }, \
    { "unlock_res", OPK_LOCK_RESULT, OPF_MSG | OPF_CALLBACK }, \
    { "granted_res", OPK_LOCK_RESULT, OPF_MSG }
#define NLM_OPS_V3 \
    { NULL, OPK_OTHER, 0 }, \
    { NULL, OPK_OTHER, 0 }, \
    { NULL, OPK_OTHER, 0 }, \
    { NULL, OPK_OTHER, 0 }, /* 16-19: not assigned (procN) */ \
    { "share", OPK_SHARE, OPF_FH }, \
    { "unshare", OPK_UNSHARE, OPF_FH }, \
    { "nm_lock", OPK_LOCK, OPF_FH }, \
    { "free_all", OPK_FREE_ALL, 0 }

#define NLM_MAXNETOBJ 1024 /* XNFS: MAXNETOBJ_SZ, netobj opaque<> bound */
#define NLM_MAXNAMELEN 1025 /* XNFS: LM_MAXNAMELEN (1024) + 1, nlm_notify name */

enum { /* XNFS procedure numbers (16-19 are not assigned) */
    NLM_NULL = 0, NLM_TEST, NLM_LOCK, NLM_CANCEL, NLM_UNLOCK, NLM_GRANTED, NLM_TEST_MSG,
    NLM_LOCK_MSG, NLM_CANCEL_MSG, NLM_UNLOCK_MSG, NLM_GRANTED_MSG, NLM_TEST_RES, NLM_LOCK_RES,
    NLM_CANCEL_RES, NLM_UNLOCK_RES, NLM_GRANTED_RES,
    NLM_SHARE = 20, NLM_UNSHARE, NLM_NM_LOCK, NLM_FREE_ALL
};

#define NLM_MAXSTRLEN 1024 /* XNFS: LM_MAXSTRLEN, caller_name string<> bound */

/* A *_RES call's result, and the lock of a LOCK, CANCEL or GRANTED call
 * (for the lock waits, src/lockwait.h), kept for the reply (in pc->priv). */
struct nlm_priv {
    uint64_t lock; /* digest of fh, oh, svid, l_offset, l_len */
    uint32_t res_stat;
    uint8_t has_res_stat;
    uint8_t has_lock, block;
};

_Static_assert(sizeof(struct nlm_priv) <= PC_PRIV_SIZE, "nlm_priv fits the pending call");

static inline struct nlm_priv *
nlm_priv(struct pending_call *pc)
{
    return (struct nlm_priv *)(void *)pc->priv;
}

static inline const struct nlm_priv *
nlm_cpriv(const struct pending_call *pc)
{
    return (const struct nlm_priv *)(const void *)pc->priv;
}

static inline bool
nlm_is_res(uint32_t proc)
{
    return proc >= NLM_TEST_RES && proc <= NLM_GRANTED_RES;
}

/* A 64-bit FNV-1a digest of n bytes, continued from h. Not seeded: the lock
 * waits table hashes it again with its seed. */
static inline uint64_t
nlm_fnv(uint64_t h, const uint8_t *p, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static inline uint64_t
nlm_fnv_u64(uint64_t h, uint64_t v)
{
    uint8_t b[8];
    unsigned i;

    for (i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (56 - 8 * i));
    return nlm_fnv(h, b, 8);
}

/* nlm4_lock (XNFS 14: caller_name, fh, oh, svid, l_offset, l_len, offsets
 * 64-bit) or nlm_lock (v1, v3: 32-bit offsets), digested without
 * caller_name (a GRANTED callback names the server there). */
static inline bool
nlm_lock_digest(struct xdr_cur *x, uint32_t vers, uint64_t *out)
{
    struct bytes name, fh, oh;
    uint32_t svid;
    uint64_t off, len, h = 0xcbf29ce484222325ULL;

    xdr_cur_opaque(x, NLM_MAXSTRLEN, &name);
    xdr_cur_opaque(x, NLM_MAXNETOBJ, &fh);
    xdr_cur_opaque(x, NLM_MAXNETOBJ, &oh);
    svid = xdr_cur_u32(x);
    off = vers == 4 ? xdr_cur_u64(x) : xdr_cur_u32(x);
    len = vers == 4 ? xdr_cur_u64(x) : xdr_cur_u32(x);
    if (!xdr_cur_ok(x))
        return false;
    h = nlm_fnv_u64(h, fh.len);
    h = nlm_fnv(h, fh.p, fh.len);
    h = nlm_fnv_u64(h, oh.len);
    h = nlm_fnv(h, oh.p, oh.len);
    h = nlm_fnv_u64(h, svid);
    h = nlm_fnv_u64(h, off);
    *out = nlm_fnv_u64(h, len);
    return true;
}

/* The lock after the cookie, decoded on a copy of the cursor: best effort,
 * never changes the call's decode result (a cut head leaves has_lock 0). */
static inline void
nlm_call_lock(struct xdr_cur y, const struct pending_call *pc, struct nlm_priv *pv)
{
    bool block = false;

    switch (pc->proc) {
    case NLM_LOCK:     /* nlm4_lockargs: cookie, block, exclusive, alock, ... */
    case NLM_LOCK_MSG:
    case NLM_CANCEL:   /* nlm4_cancargs: cookie, block, exclusive, alock */
    case NLM_CANCEL_MSG:
        block = xdr_cur_bool(&y);
        xdr_cur_bool(&y);
        break;
    case NLM_GRANTED:  /* nlm4_testargs: cookie, exclusive, alock */
    case NLM_GRANTED_MSG:
        xdr_cur_bool(&y);
        break;
    default:
        return;
    }
    if (nlm_lock_digest(&y, pc->vers, &pv->lock)) {
        pv->has_lock = 1;
        pv->block = block;
    }
}

static inline enum decode_rc
nlm_common_call(struct xdr_cur *x, struct pending_call *pc)
{
    struct nlm_priv *pv = nlm_priv(pc);
    struct bytes b;
    uint32_t stat;

    if (pc->proc == NLM_NULL)
        return DECODE_OK;
    if (pc->proc == NLM_FREE_ALL) { /* nlm_notify: name, state */
        xdr_cur_opaque(x, NLM_MAXNAMELEN, &b);
        xdr_cur_u32(x);
        return xdr_cur_status(x);
    }
    /* Every other argument starts with the cookie; the lock of LOCK,
     * CANCEL and GRANTED is digested for the lock waits, the share and
     * holder structures are not needed. */
    xdr_cur_opaque(x, NLM_MAXNETOBJ, &b);
    if (xdr_cur_ok(x))
        nlm_call_lock(*x, pc, pv);
    if (nlm_is_res(pc->proc)) { /* nlm_res / nlm_testres: cookie, stat */
        stat = xdr_cur_u32(x);
        if (xdr_cur_ok(x)) {
            pv->res_stat = stat;
            pv->has_res_stat = 1;
        }
    }
    return xdr_cur_status(x);
}

#define NLM_STAT_DENIED 1 /* nlm4_stats NLM4_DENIED, nlm_stats LCK_DENIED */

/* A TEST denied: the lock in the way (nlm4_holder: exclusive, svid, oh,
 * l_offset, l_len; XNFS 14, 32-bit offsets before v4), into the event's
 * conflicting-lock fields (stats.h struct op_nfs4); nothing if cut short. */
static inline void
nlm_holder(struct xdr_cur *x, uint32_t vers, struct op_event *ev)
{
    bool excl = xdr_cur_bool(x);
    uint32_t svid = xdr_cur_u32(x);
    struct bytes oh;
    uint64_t off, len;

    xdr_cur_opaque(x, NLM_MAXNETOBJ, &oh);
    off = vers == 4 ? xdr_cur_u64(x) : xdr_cur_u32(x);
    len = vers == 4 ? xdr_cur_u64(x) : xdr_cur_u32(x);
    if (!xdr_cur_ok(x))
        return;
    ev->v4.lock_type = excl ? 2 : 1; /* WRITE_LT, READ_LT */
    ev->v4.lock_off = off;
    ev->v4.lock_len = len;
    ev->v4.lock_clientid = svid;
    ev->v4.lock_holder = oh;
    ev->v4.lock_owner = nlm_fnv(nlm_fnv_u64(0xcbf29ce484222325ULL, svid), oh.p, oh.len) | 1;
}

static inline enum decode_rc
nlm_common_reply(struct xdr_cur *x, const struct pending_call *pc, struct op_event *ev)
{
    const struct nlm_priv *pv = nlm_cpriv(pc);
    struct bytes cookie;
    uint32_t stat;

    ev->nlm_has_lock = pv->has_lock;
    ev->nlm_block = pv->block;
    ev->nlm_lock = pv->lock;
    switch (pc->proc) {
    case NLM_TEST:    /* nlm_testres: cookie, test_stat (stat, holder if DENIED) */
    case NLM_LOCK:    /* nlm_res: cookie, stat */
    case NLM_CANCEL:
    case NLM_UNLOCK:
    case NLM_GRANTED:
    case NLM_NM_LOCK:
    case NLM_SHARE:   /* nlm_shareres: cookie, stat, sequence */
    case NLM_UNSHARE:
        xdr_cur_opaque(x, NLM_MAXNETOBJ, &cookie);
        stat = xdr_cur_u32(x);
        if (xdr_cur_ok(x)) {
            ev->has_status = true;
            ev->status = stat;
            if (pc->proc == NLM_TEST && stat == NLM_STAT_DENIED) {
                struct xdr_cur y = *x; /* best effort: never changes the decode result */
                nlm_holder(&y, pc->vers, ev);
            }
        }
        return xdr_cur_status(x);
    default:
        /* NULL, *_MSG, *_RES, FREE_ALL: void results. A *_RES operation
         * reports the result its call carried. */
        if (nlm_is_res(pc->proc) && pv->has_res_stat) {
            ev->has_status = true;
            ev->status = pv->res_stat;
        }
        return DECODE_OK;
    }
}

/* GRANTED (0) and BLOCKED (3: the server will call back when the lock is
 * free, a wait) are not failures; every other nlm_stats value is. */
static inline bool
nlm_status_error(uint32_t status)
{
    return status != 0 && status != 3;
}

#endif
