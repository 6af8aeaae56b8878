/* SPDX-License-Identifier: BSD-3-Clause */
/* rpc_rm.c: ONC RPC record marking over TCP (RFC 5531 §11).
 *
 *   +--------------------+----------------------+--------------------+---
 *   | L | len (31 bits)  | fragment bytes ...   | L | len (31 bits)  | ...
 *   +--------------------+----------------------+--------------------+---
 *   L = 1 on the last fragment of a record. A record is one RPC message.
 *
 * Per direction, a small state machine:
 *  1. PROBE (a zeroed rpc_rm, or after loss): slide one byte at a time until a
 *     4-byte mark is followed by a message that cfg->probe accepts. Fragments
 *     may have any length (RFC 5531 §11 sets no minimum), so when the first
 *     fragment is shorter than RM_PROBE_BODY the candidate's next marks are
 *     followed (at most RM_PROBE_BODY fragments) and the message bytes joined
 *     for the probe. The probe is given at least min(len, RM_PROBE_BODY)
 *     message bytes; a candidate closer than the stream bytes that takes to
 *     the end of a chunk is carried over (at most RM_CARRY_MAX bytes, kept in
 *     a head slot) and probed again when the next chunk arrives.
 *  2. MARK: collect the 4 mark bytes (they may be split across chunks) and
 *     check them: a message longer than max_msg_len, or a whole message
 *     shorter than RM_MIN_MSG, is a bad mark -> PROBE.
 *  3. FRAG: consume fragment bytes. The first head_max bytes of the message are
 *     kept: as a view into the chunk while the message lies in one chunk (zero
 *     copy), otherwise copied into a slot of the shared head pool. The rest is
 *     skipped by arithmetic, so in sync a chunk costs O(records), not O(bytes).
 *     At the end of the last fragment the message is delivered, stamped with
 *     the chunk that completed it. A reply that runs past head_max is asked
 *     about once (cfg->wide, by xid): a directory listing keeps up to
 *     wide_max bytes in one of a few wide slots, its head copied over.
 *     Of a message longer than its head, the last tail_max bytes of each
 *     fragment past the head are kept too (the fragment's end is known from
 *     its mark, so nothing before them is copied): as a view while they lie
 *     in one chunk, else in the tail part of the message's slot. Those of
 *     the last fragment, joined to the previous ones' when it is shorter,
 *     are the message's tail.
 * Gaps: inside a fragment, the bytes are accounted for and the message flagged
 * (head_partial if the gap touches the head, body_gap if it touches the rest);
 * a gap running over a record mark or hitting an unknown position -> PROBE. */
#include "rpc_rm.h"

#include <stdlib.h>
#include <string.h>

#define RM_PROBE_MIN  20u /* shortest RPC message: a rejected AUTH_ERROR reply (RFC 5531 §9) */
#define RM_PROBE_BODY 24u /* message bytes the probe is guaranteed to see: a
                            * call's xid..proc, a reply's header (RFC 5531 §9) */
/* Stream bytes those may take: one-byte fragments, each behind its mark. */
#define RM_PROBE_SPAN (5u * RM_PROBE_BODY)
#define RM_CARRY_MAX  (RM_PROBE_SPAN - 1u) /* bytes carried across chunks */
#define RM_MIN_MSG    8u  /* a whole message holds at least xid and msg_type */
#define RM_TAIL_DEF   256u
#define RM_TAIL_MAX   4096u

enum { ST_PROBE = 0, ST_MARK, ST_FRAG, ST_STOP };

enum {
    F_LAST = 0x01,         /* current fragment is the last */
    F_HEAD_PARTIAL = 0x02, /* head cut by a gap or the pool */
    F_BODY_GAP = 0x04,     /* bytes past the head lost */
    F_SLOT = 0x08,         /* head_slot is ours (head, or carry in PROBE) */
    F_IN_MSG = 0x10,       /* a message is in progress */
    F_LOST = 0x20,         /* PROBE after loss: the next sync is a resync */
    F_SKIPPED = 0x40,      /* PROBE skipped bytes: the next sync is a resync */
    F_WIDE = 0x80,         /* the message has a wide slot: its head may reach wide_max */
};
#define F_MSG (F_LAST | F_HEAD_PARTIAL | F_BODY_GAP | F_IN_MSG | F_WIDE)

struct rpc_rm_pool {
    size_t head_max;
    size_t tail_max; /* each slot: its head part, then tail_max bytes of tail */
    uint32_t max_msg_len;
    rpc_probe_fn *probe;
    uint8_t *heads;  /* nslots * head_max */
    uint32_t *stack; /* free slot indexes */
    uint32_t nslots, nfree;
    /* Wide slots: indexes nslots.. nslots + nwide - 1, wide_max bytes each. */
    size_t wide_max;
    uint8_t *wide;
    uint32_t *wide_stack;
    uint32_t nwide, nwide_free;
    rpc_wide_fn *wide_fn;
    struct anomalies *an;
};

/* One call of feed or gap: the arguments that pass through. */
struct feed {
    struct rpc_rm_pool *pool;
    struct rpc_rm *rm;
    void *flow;
    unsigned dir;
    rpc_msg_fn *deliver;
    void *ctx;
    const uint8_t *view; /* zero-copy head: the message's head so far, in this chunk */
    size_t view_len;
    const uint8_t *tview; /* zero-copy tail: bytes in this chunk after the slot's tail */
    size_t tview_len;
    uint32_t tview_end;   /* message offset just past tview's last byte */
};

static uint8_t *
slot_ptr(const struct rpc_rm_pool *pool, uint32_t i)
{
    if (i >= pool->nslots)
        return pool->wide + (size_t)(i - pool->nslots) * (pool->wide_max + pool->tail_max);
    return pool->heads + (size_t)i * (pool->head_max + pool->tail_max);
}

/* The tail part of slot i. */
static uint8_t *
slot_tail(const struct rpc_rm_pool *pool, uint32_t i)
{
    return slot_ptr(pool, i) + (i >= pool->nslots ? pool->wide_max : pool->head_max);
}

static bool
slot_get(struct rpc_rm_pool *pool, struct rpc_rm *rm)
{
    if (rm->flags & F_SLOT)
        return true;
    if (pool->nfree == 0)
        return false;
    rm->head_slot = pool->stack[--pool->nfree];
    rm->head_len = 0;
    rm->flags |= F_SLOT;
    return true;
}

static void
slot_put(struct rpc_rm_pool *pool, struct rpc_rm *rm)
{
    if ((rm->flags & F_SLOT) && rm->head_slot >= pool->nslots)
        pool->wide_stack[pool->nwide_free++] = rm->head_slot;
    else if (rm->flags & F_SLOT)
        pool->stack[pool->nfree++] = rm->head_slot;
    rm->flags &= (uint8_t)~F_SLOT;
    rm->head_slot = RPC_RM_NONE;
    rm->head_len = 0;
    rm->tail_len = 0;
}

static void
skipped(struct feed *f, size_t n)
{
    if (n > 0) {
        anomaly_add(f->pool->an, ANOM_RPC_SKIPPED_BYTES, n);
        f->rm->flags |= F_SKIPPED;
    }
}

static void
drop_msg(struct feed *f)
{
    slot_put(f->pool, f->rm);
    f->rm->flags &= (uint8_t)~F_MSG;
    f->rm->msg_len = 0;
    f->rm->frag_left = 0;
    f->rm->tail_end = 0;
    f->view = NULL;
    f->view_len = 0;
    f->tview = NULL;
    f->tview_len = 0;
}

/* Lost position: back to PROBE (step 1); the next sync counts as a resync. */
static void
lose(struct feed *f)
{
    drop_msg(f);
    f->rm->state = ST_PROBE;
    f->rm->mark_have = 0;
    f->rm->flags |= F_LOST;
}

/* How many bytes of the current message are kept. */
static size_t
head_limit(const struct feed *f)
{
    return (f->rm->flags & F_WIDE) ? f->pool->wide_max : f->pool->head_max;
}

/* Append head bytes to the slot (copy path). */
static void
slot_append(struct feed *f, const uint8_t *q, size_t k)
{
    struct rpc_rm *rm = f->rm;

    if (rm->flags & F_HEAD_PARTIAL)
        return;
    if (!slot_get(f->pool, rm)) {
        anomaly_add(f->pool->an, ANOM_RPC_HEAD_POOL_FULL, 1);
        rm->flags |= F_HEAD_PARTIAL;
        return;
    }
    if (k > head_limit(f) - rm->head_len)
        k = head_limit(f) - rm->head_len;
    memcpy(slot_ptr(f->pool, rm->head_slot) + rm->head_len, q, k);
    rm->head_len = (uint16_t)(rm->head_len + k);
}

/* The head can no longer be a view into the chunk: copy it to a slot. */
static void
commit_view(struct feed *f)
{
    if (f->view) {
        slot_append(f, f->view, f->view_len);
        f->view = NULL;
        f->view_len = 0;
    }
}

/* k head bytes at q, contiguous in the message after the ones so far. */
static inline void
head_add(struct feed *f, const uint8_t *q, size_t k)
{
    if (f->view && f->view + f->view_len == q) {
        f->view_len += k;
        return;
    }
    if (f->rm->msg_len == 0 && !(f->rm->flags & F_SLOT)) {
        f->view = q;
        f->view_len = k;
        return;
    }
    commit_view(f);
    slot_append(f, q, k);
}

/* Move the tail view to the slot's tail part, after the tail kept there
 * (the view continues it), keeping the last tail_max bytes. No slot: the
 * tail is lost (the head pool is full; counted with the head). */
static void
commit_tail(struct feed *f)
{
    struct rpc_rm *rm = f->rm;
    const uint8_t *v = f->tview;
    size_t max = f->pool->tail_max, n = f->tview_len, keep;
    uint8_t *t;

    if (!v)
        return;
    f->tview = NULL;
    f->tview_len = 0;
    if (!slot_get(f->pool, rm)) {
        rm->tail_len = 0;
        return;
    }
    t = slot_tail(f->pool, rm->head_slot);
    keep = rm->tail_len < max - n ? rm->tail_len : max - n; /* n <= max: tail_add trims */
    memmove(t, t + rm->tail_len - keep, keep);
    memcpy(t + keep, v, n);
    rm->tail_len = (uint16_t)(keep + n);
    rm->tail_end = f->tview_end;
}

/* k tail bytes at q, at message offset off. */
static void
tail_add(struct feed *f, const uint8_t *q, size_t k, uint32_t off)
{
    struct rpc_rm *rm = f->rm;
    size_t max = f->pool->tail_max;

    if (f->tview && f->tview_end == off && f->tview + f->tview_len == q) {
        f->tview_len += k;
    } else {
        commit_tail(f);
        if (rm->tail_len && rm->tail_end != off)
            rm->tail_len = 0; /* not contiguous with the kept tail */
        f->tview = q;
        f->tview_len = k;
    }
    f->tview_end = off + (uint32_t)k;
    if (f->tview_len >= max) { /* the view alone is the whole tail */
        rm->tail_len = 0;
        f->tview += f->tview_len - max;
        f->tview_len = max;
    }
}

static void
deliver(struct feed *f, const struct timespec *ts)
{
    struct rpc_rm *rm = f->rm;
    struct rpc_msg_view m;
    size_t want = rm->msg_len < head_limit(f) ? rm->msg_len : head_limit(f);

    memset(&m, 0, sizeof m);
    if (f->view) {
        m.head.p = f->view;
        m.head.len = f->view_len;
    } else if (rm->flags & F_SLOT) {
        m.head.p = slot_ptr(f->pool, rm->head_slot);
        m.head.len = rm->head_len;
    }
    if (f->tview && rm->tail_len)
        commit_tail(f); /* the view continues the kept tail: join them */
    if (f->tview && f->tview_end == rm->msg_len) {
        m.tail.p = f->tview;
        m.tail.len = f->tview_len;
    } else if (!f->tview && rm->tail_len && rm->tail_end == rm->msg_len && (rm->flags & F_SLOT)) {
        m.tail.p = slot_tail(f->pool, rm->head_slot);
        m.tail.len = rm->tail_len;
    }
    m.tail_off = rm->msg_len - (uint32_t)m.tail.len;
    m.msg_len = rm->msg_len;
    m.head_partial = (rm->flags & F_HEAD_PARTIAL) || m.head.len < want;
    m.body_gap = (rm->flags & F_BODY_GAP) != 0;
    m.ts_first = rm->ts_first;
    m.ts_last = *ts;
    if (f->deliver)
        f->deliver(f->ctx, f->flow, f->dir, &m);
    drop_msg(f);
    if (rm->state != ST_STOP) /* rpc_rm_stop() from the callback */
        rm->state = ST_MARK;
}

/* The usual message: one fragment (its mark's last-fragment bit set),
 * wholly in this chunk at q[0..len), no longer than its head, and nothing
 * in progress (no message, no slot). Delivered as a view of the chunk,
 * with what steps 2 and 3 would give it (head: all of it; no tail; ts_first
 * and ts_last this chunk's), without walking them byte range by range. */
static void
deliver_whole(struct feed *f, const uint8_t *q, uint32_t len, const struct timespec *ts)
{
    struct rpc_rm *rm = f->rm;
    struct rpc_msg_view m = { .head = { q, len }, .msg_len = len, .tail_off = len,
                              .ts_first = *ts, .ts_last = *ts };

    rm->flags |= F_IN_MSG | F_LAST; /* as the steps leave them for the callback */
    rm->state = ST_FRAG;
    rm->msg_len = len;
    rm->ts_first = *ts;
    if (f->deliver)
        f->deliver(f->ctx, f->flow, f->dir, &m);
    rm->flags &= (uint8_t)~F_MSG; /* drop_msg(): no slot, no views were taken */
    rm->msg_len = 0;
    if (rm->state != ST_STOP) /* rpc_rm_stop() from the callback */
        rm->state = ST_MARK;
}

/* The current fragment is complete. */
static void
end_frag(struct feed *f, const struct timespec *ts)
{
    if (f->rm->flags & F_LAST)
        deliver(f, ts);
    else
        f->rm->state = ST_MARK;
}

/* A gap of k bytes at message offset off: flag what it hit. */
static void
note_gap(struct feed *f, uint32_t off, uint64_t k)
{
    if (off < head_limit(f))
        f->rm->flags |= F_HEAD_PARTIAL;
    if (off + k > head_limit(f))
        f->rm->flags |= F_BODY_GAP;
}

static uint32_t
be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

enum scan_rc { SCAN_NONE, SCAN_FOUND, SCAN_NEED };

/* Does a record start at q[0..avail)? The probe sees the message's first
 * bytes: those of the first fragment as far as the chunk holds them (as
 * before any fragment was shorter than RM_PROBE_BODY), or, for a shorter
 * first fragment, the first RM_PROBE_BODY message bytes joined across the
 * fragments that follow. SCAN_NEED: avail is too short to decide. */
static enum scan_rc
candidate(const struct rpc_rm_pool *pool, const uint8_t *q, size_t avail)
{
    uint8_t msg[RM_PROBE_BODY];
    size_t off = 0, have = 0;
    uint64_t total = 0;
    uint32_t m, len;

    if (avail < 4)
        return SCAN_NEED;
    m = be32(q);
    len = m & 0x7fffffffu;
    if (len >= RM_PROBE_MIN) { /* the common case: one fragment holds the header */
        size_t n = avail - 4 < len ? avail - 4 : len;

        if (len > pool->max_msg_len)
            return SCAN_NONE;
        if (n < (len < RM_PROBE_BODY ? len : RM_PROBE_BODY))
            return SCAN_NEED;
        return !pool->probe || pool->probe(q + 4, n, len) ? SCAN_FOUND : SCAN_NONE;
    }
    if (len == 0 || (m & 0x80000000u))
        return SCAN_NONE; /* empty first fragment, or a whole record too short for RPC */
    for (unsigned nfrag = 0; nfrag < RM_PROBE_BODY; nfrag++) {
        size_t take;

        if (avail - off < 4)
            return SCAN_NEED;
        m = be32(q + off);
        len = m & 0x7fffffffu;
        total += len;
        if (total > pool->max_msg_len)
            return SCAN_NONE;
        off += 4;
        take = RM_PROBE_BODY - have < len ? RM_PROBE_BODY - have : len;
        if (avail - off < take)
            return SCAN_NEED;
        memcpy(msg + have, q + off, take);
        have += take;
        off += take;
        if (m & 0x80000000u) { /* the last fragment: the message length is known */
            if (total < RM_PROBE_MIN)
                return SCAN_NONE;
            return !pool->probe || pool->probe(msg, have, (uint32_t)total) ? SCAN_FOUND
                                                                          : SCAN_NONE;
        }
        if (have == RM_PROBE_BODY) /* more fragments follow: the length is not known */
            return !pool->probe || pool->probe(msg, have, pool->max_msg_len) ? SCAN_FOUND
                                                                            : SCAN_NONE;
    }
    return SCAN_NONE; /* RM_PROBE_BODY fragments without RM_PROBE_BODY bytes */
}

/* Step 1: find a record start among the first `limit` positions of q[0..n).
 * *at is the candidate (FOUND) or the first position that needs more bytes
 * than q holds to be decided (NEED; then n - *at <= RM_CARRY_MAX). */
static enum scan_rc
scan(const struct rpc_rm_pool *pool, const uint8_t *q, size_t n, size_t limit, size_t *at)
{
    for (size_t i = 0; i < limit; i++) {
        enum scan_rc rc = candidate(pool, q + i, n - i);

        if (rc == SCAN_NONE)
            continue;
        *at = i;
        return rc;
    }
    return SCAN_NONE;
}

/* A record start was found: enter MARK at it. */
static void
synced(struct feed *f)
{
    struct rpc_rm *rm = f->rm;

    if (rm->flags & (F_LOST | F_SKIPPED))
        anomaly_add(f->pool->an, ANOM_RPC_RESYNC, 1);
    rm->flags &= (uint8_t)~(F_LOST | F_SKIPPED);
    rm->state = ST_MARK;
    rm->mark_have = 0;
}

/* Keep q[0..n) (n <= RM_CARRY_MAX) to probe with the next chunk. */
static void
carry(struct feed *f, const uint8_t *q, size_t n, const struct timespec *ts)
{
    struct rpc_rm *rm = f->rm;

    if (n == 0)
        return;
    if (n > f->pool->head_max || !slot_get(f->pool, rm)) {
        skipped(f, n);
        return;
    }
    memcpy(slot_ptr(f->pool, rm->head_slot), q, n);
    rm->head_len = (uint16_t)n;
    rm->ts_first = *ts;
}

/* The head has reached head_max and the message goes on: if it is a reply
 * (RFC 5531 §9: xid, then msg_type 1) that cfg->wide wants kept wide, move
 * the head to a free wide slot. The head is a view from the message's
 * first byte, or in a normal slot. */
static bool
widen(struct feed *f)
{
    struct rpc_rm_pool *pool = f->pool;
    struct rpc_rm *rm = f->rm;
    const uint8_t *h = f->view;
    size_t hl = f->view_len;
    uint32_t w;

    if (!pool->wide_fn || pool->nwide_free == 0)
        return false;
    if (!h && (rm->flags & F_SLOT)) {
        h = slot_ptr(pool, rm->head_slot);
        hl = rm->head_len;
    }
    if (!h || hl < 8 || be32(h + 4) != 1 || !pool->wide_fn(f->ctx, f->flow, f->dir, be32(h)))
        return false;
    w = pool->wide_stack[--pool->nwide_free];
    if (f->view) { /* the view stays; it is copied to the wide slot if the message goes on */
        rm->head_len = 0;
    } else {
        memcpy(slot_ptr(pool, w), h, hl);
        pool->stack[pool->nfree++] = rm->head_slot;
    }
    rm->head_slot = w;
    rm->flags |= F_SLOT | F_WIDE;
    rm->tail_len = 0; /* none yet: the tail starts past the head */
    return true;
}

/* Run the state machine over p[0..n); returns the bytes consumed (n unless
 * the stream stopped being RPC). */
static size_t
run(struct feed *f, const uint8_t *p, size_t n, const struct timespec *ts)
{
    struct rpc_rm *rm = f->rm;
    size_t pos = 0;

    f->view = NULL;
    f->view_len = 0;
    while (pos < n) {
        switch (rm->state) {
        case ST_STOP:
            return pos;
        case ST_MARK: {
            uint32_t m, len;
            bool first = !(rm->flags & F_IN_MSG);

            if (rm->mark_have == 0 && n - pos >= 4) { /* the usual case: a whole mark here */
                m = be32(p + pos);
                len = m & 0x7fffffffu;
                if ((m & 0x80000000u) && !(rm->flags & (F_MSG | F_SLOT)) && len >= RM_MIN_MSG &&
                    len <= f->pool->head_max && len <= f->pool->max_msg_len &&
                    len <= n - pos - 4) { /* and the whole message */
                    deliver_whole(f, p + pos + 4, len, ts);
                    pos += 4 + (size_t)len;
                    break;
                }
                pos += 4;
            } else {
                while (rm->mark_have < 4 && pos < n)
                    rm->mark[rm->mark_have++] = p[pos++];
                if (rm->mark_have < 4)
                    break;
                rm->mark_have = 0;
                m = be32(rm->mark);
            }
            len = m & 0x7fffffffu;
            /* Any fragment length is legal (RFC 5531 §11), but a whole
             * record without room for xid and msg_type means the marks are
             * not where we think. */
            if (len > f->pool->max_msg_len - rm->msg_len ||
                ((m & 0x80000000u) && (first ? 0 : rm->msg_len) + len < RM_MIN_MSG)) {
                anomaly_add(f->pool->an, ANOM_RPC_BAD_MARK, 1);
                lose(f);
                break;
            }
            if (first) {
                rm->flags |= F_IN_MSG;
                rm->msg_len = 0;
                rm->ts_first = *ts;
            }
            if (m & 0x80000000u)
                rm->flags |= F_LAST;
            else
                rm->flags &= (uint8_t)~F_LAST;
            rm->frag_left = len;
            rm->state = ST_FRAG;
            if (len == 0)
                end_frag(f, ts); /* an empty fragment (legal, pointless) */
            break;
        }
        case ST_FRAG: {
            size_t take = n - pos < rm->frag_left ? n - pos : rm->frag_left;

            if (rm->msg_len == 0)
                rm->ts_first = *ts; /* the first message byte */
            if (!(rm->flags & F_HEAD_PARTIAL)) {
                size_t lim = head_limit(f), k = 0;

                if (rm->msg_len < lim) {
                    k = lim - rm->msg_len < take ? lim - rm->msg_len : take;
                    head_add(f, p + pos, k);
                }
                /* Crossing head_max (once per message): maybe a wide head. */
                if (!(rm->flags & (F_WIDE | F_HEAD_PARTIAL)) && rm->msg_len <= f->pool->head_max &&
                    rm->msg_len + take > f->pool->head_max && widen(f)) {
                    size_t more = take - k, room = f->pool->wide_max - f->pool->head_max;

                    head_add(f, p + pos + k, more < room ? more : room);
                }
            }
            { /* the fragment's last tail_max bytes past the head: maybe the tail */
                uint32_t end = rm->msg_len + rm->frag_left, lim = (uint32_t)head_limit(f);
                uint32_t from = end - rm->msg_len > f->pool->tail_max
                                    ? end - (uint32_t)f->pool->tail_max : rm->msg_len;

                if (from < lim)
                    from = lim;
                if (from < rm->msg_len + take)
                    tail_add(f, p + pos + (from - rm->msg_len), rm->msg_len + take - from, from);
            }
            rm->msg_len += (uint32_t)take;
            rm->frag_left -= (uint32_t)take;
            pos += take;
            if (rm->frag_left == 0)
                end_frag(f, ts);
            break;
        }
        default: { /* ST_PROBE */
            size_t at = 0;
            enum scan_rc rc = scan(f->pool, p + pos, n - pos, n - pos, &at);

            if (rc == SCAN_FOUND) {
                skipped(f, at);
                pos += at;
                synced(f);
                break;
            }
            if (rc == SCAN_NEED) {
                skipped(f, at);
                carry(f, p + pos + at, n - pos - at, ts);
            } else {
                skipped(f, n - pos);
            }
            return n;
        }
        }
    }
    if (rm->flags & F_IN_MSG) { /* the message continues in a later chunk */
        commit_view(f);
        commit_tail(f);
    }
    f->view = NULL;
    f->tview = NULL;
    return n;
}

size_t
rpc_rm_feed(struct rpc_rm_pool *pool, struct rpc_rm *rm, void *flow, unsigned dir,
            struct bytes chunk, const struct timespec *ts, rpc_msg_fn *deliver_fn, void *ctx)
{
    struct feed f = { pool, rm, flow, dir, deliver_fn, ctx, NULL, 0, NULL, 0, 0 };
    const uint8_t *p = chunk.p;
    size_t n = chunk.len;

    if (!pool || !p || n == 0 || rm->state == ST_STOP)
        return 0;

    /* Step 1 across chunks: probe the carried bytes with the new chunk's first bytes. */
    if (rm->state == ST_PROBE && (rm->flags & F_SLOT)) {
        uint8_t tmp[2 * (RM_CARRY_MAX + 1)];
        size_t c = rm->head_len, take, tl, at = 0;
        struct timespec cts = rm->ts_first;
        enum scan_rc rc;

        if (c > RM_CARRY_MAX)
            c = RM_CARRY_MAX;
        memcpy(tmp, slot_ptr(pool, rm->head_slot), c);
        slot_put(pool, rm);
        take = n < sizeof tmp - c ? n : sizeof tmp - c;
        memcpy(tmp + c, p, take);
        tl = c + take;
        rc = scan(pool, tmp, tl, c, &at);
        if (rc == SCAN_FOUND) {
            skipped(&f, at);
            synced(&f);
            run(&f, tmp + at, c - at, &cts); /* the carried part of the record */
            if (rm->state == ST_STOP)
                return 0;
        } else if (rc == SCAN_NEED && tl == c + n) {
            skipped(&f, at); /* the whole chunk is still too short to decide */
            carry(&f, tmp + at, tl - at, at < c ? &cts : ts);
            return n;
        } else {
            skipped(&f, c);
        }
    }
    return run(&f, p, n, ts);
}

void
rpc_rm_gap(struct rpc_rm_pool *pool, struct rpc_rm *rm, void *flow, unsigned dir,
           uint64_t nbytes, const struct timespec *ts, rpc_msg_fn *deliver_fn, void *ctx)
{
    struct feed f = { pool, rm, flow, dir, deliver_fn, ctx, NULL, 0, NULL, 0, 0 };

    if (!pool || nbytes == 0)
        return;
    switch (rm->state) {
    case ST_STOP:
        return;
    case ST_FRAG:
        if (nbytes <= rm->frag_left) { /* inside this fragment: position still known */
            note_gap(&f, rm->msg_len, nbytes);
            rm->msg_len += (uint32_t)nbytes;
            rm->frag_left -= (uint32_t)nbytes;
            if (rm->frag_left == 0)
                end_frag(&f, ts);
            return;
        }
        /* Past the end of the fragment: the next mark is lost. A last fragment
         * still completes its message. */
        if (rm->flags & F_LAST) {
            note_gap(&f, rm->msg_len, rm->frag_left);
            rm->msg_len += rm->frag_left;
            rm->frag_left = 0;
            deliver(&f, ts);
        }
        lose(&f);
        return;
    case ST_MARK:
        lose(&f); /* the gap hides a record mark */
        return;
    default: /* ST_PROBE: carried bytes can no longer be continued */
        if (rm->flags & F_SLOT) {
            skipped(&f, rm->head_len);
            slot_put(pool, rm);
        }
        rm->flags |= F_LOST;
        return;
    }
}

void
rpc_rm_release(struct rpc_rm_pool *pool, struct rpc_rm *rm)
{
    if (pool) {
        if (rm->state == ST_PROBE && (rm->flags & F_SLOT))
            anomaly_add(pool->an, ANOM_RPC_SKIPPED_BYTES, rm->head_len);
        else if (rm->flags & F_IN_MSG)
            anomaly_add(pool->an, ANOM_RPC_TRUNCATED, 1);
        slot_put(pool, rm);
    }
    memset(rm, 0, sizeof *rm);
    rm->head_slot = RPC_RM_NONE;
}

void
rpc_rm_end(struct rpc_rm_pool *pool, struct rpc_rm *rm)
{
    if (pool && rm->state != ST_PROBE && ((rm->flags & F_IN_MSG) || rm->mark_have)) {
        anomaly_add(pool->an, ANOM_RPC_RECORD_CUT, 1);
        slot_put(pool, rm);
        rm->flags &= (uint8_t)~F_IN_MSG;
    }
    rpc_rm_release(pool, rm);
}

struct rpc_rm_pool *
rpc_rm_pool_new(const struct rpc_rm_config *cfg, struct anomalies *an)
{
    struct rpc_rm_pool *pool = calloc(1, sizeof *pool);
    size_t nslots = cfg && cfg->pool_heads ? cfg->pool_heads : 4096;

    if (!pool)
        return NULL;
    pool->head_max = cfg && cfg->head_max ? cfg->head_max : 1024;
    if (pool->head_max > UINT16_MAX)
        pool->head_max = UINT16_MAX;
    pool->tail_max = cfg && cfg->tail_max ? cfg->tail_max : RM_TAIL_DEF;
    if (pool->tail_max > RM_TAIL_MAX)
        pool->tail_max = RM_TAIL_MAX;
    pool->max_msg_len = cfg && cfg->max_msg_len ? cfg->max_msg_len : 16u << 20;
    if (pool->max_msg_len > 0x7fffffffu)
        pool->max_msg_len = 0x7fffffffu;
    pool->probe = cfg ? cfg->probe : NULL;
    pool->an = an;
    pool->wide_max = cfg && cfg->wide_max ? cfg->wide_max : 0;
    if (pool->wide_max > UINT16_MAX)
        pool->wide_max = UINT16_MAX;
    if (cfg && cfg->wide && cfg->wide_slots && pool->wide_max > pool->head_max &&
        cfg->wide_slots < 1024) {
        pool->wide = malloc(cfg->wide_slots * (pool->wide_max + pool->tail_max));
        pool->wide_stack = malloc(cfg->wide_slots * sizeof *pool->wide_stack);
        if (!pool->wide || !pool->wide_stack) {
            rpc_rm_pool_free(pool);
            return NULL;
        }
        pool->nwide = pool->nwide_free = (uint32_t)cfg->wide_slots;
        pool->wide_fn = cfg->wide;
    }
    if (nslots > UINT32_MAX - 2048) /* room for the wide slots' indexes and RPC_RM_NONE */
        nslots = UINT32_MAX - 2048;
    pool->heads = malloc(nslots * (pool->head_max + pool->tail_max));
    pool->stack = malloc(nslots * sizeof *pool->stack);
    if (!pool->heads || !pool->stack) {
        rpc_rm_pool_free(pool);
        return NULL;
    }
    pool->nslots = (uint32_t)nslots;
    for (uint32_t i = 0; i < pool->nslots; i++)
        pool->stack[i] = pool->nslots - 1 - i;
    pool->nfree = pool->nslots;
    for (uint32_t i = 0; i < pool->nwide; i++)
        pool->wide_stack[i] = pool->nslots + pool->nwide - 1 - i;
    return pool;
}

void
rpc_rm_pool_free(struct rpc_rm_pool *pool)
{
    if (!pool)
        return;
    free(pool->heads);
    free(pool->stack);
    free(pool->wide);
    free(pool->wide_stack);
    free(pool);
}

bool
rpc_rm_synced(const struct rpc_rm *rm)
{
    return rm->state != ST_PROBE;
}

void
rpc_rm_stop(struct rpc_rm *rm)
{
    rm->state = ST_STOP;
}
