/* SPDX-License-Identifier: BSD-3-Clause */
/* ipfrag.c: IPv4 (RFC 791 §3.2) and IPv6 (RFC 8200 §4.5) fragment reassembly.
 *
 * A fixed slab of `cap` slots, each one datagram in progress keyed by
 * (af, src, dst, id, proto), found through a chained hash index of slot ids and
 * linked on an age list in creation order (oldest first: expiry and eviction
 * both take the head). A datagram in progress holds a 65,535-byte buffer, with
 * its coverage bitmaps, from a shared stack of buffers, allocated when first
 * needed and reused, so the memory held is that of the most datagrams ever in
 * progress at once (plus one), and steady state does no malloc. A slot
 * itself is small (about 200 bytes): finished ones, kept a while, hold no
 * buffer.
 *
 * Coverage is tracked per 8-byte block (fragment offsets are multiples of 8,
 * and so are the lengths of all but the last fragment) in two bitmaps:
 * `claimed` (the headers say these bytes were sent) and `have` (we captured
 * them). When `claimed` covers [0, total) the datagram is finished: delivered
 * whole if `have` does too, otherwise (snaplen cut some fragments) as its
 * first bytes with first_frag_only. Its buffer goes back to the stack at the
 * next call (the caller reads the datagram until then). A finished slot stays
 * as DONE, without a buffer (its coverage is [0, total) whole), for
 * DONE_KEEP_S seconds so that late duplicates
 * (network duplication is immediate) are absorbed instead of starting a
 * datagram that could only expire; a fragment outside the finished one's
 * coverage, or later, recycles the slot: at 32 KiB NFS writes a busy client
 * wraps the 16-bit IPv4 ID in seconds.
 *
 * RFC 5722 / RFC 8200 §4.5: an overlap whose bytes differ drops the whole
 * datagram (ANOM_IPFRAG_BAD), as does a datagram over 65,535 bytes or a
 * fragment past the end set by the last one. Identical overlaps are accepted. */
#include "ipfrag.h"

#include <stdlib.h>
#include <string.h>

#include "flow_key.h"

#define IPFRAG_MAX_LEN 65535u
#define IPFRAG_BLOCKS  ((IPFRAG_MAX_LEN + 7u) / 8u) /* 8,192 blocks of 8 bytes */
#define NIL            UINT32_MAX
#define DONE_KEEP_S    2u /* a finished datagram absorbs duplicates this long */

enum slot_state { SLOT_FREE = 0, SLOT_BUSY, SLOT_DONE };

/* A datagram in progress: its bytes and which of them we have. */
struct dgram {
    uint32_t nwords; /* words of claimed/have that may be non-zero (zeroed back at buf_put) */
    uint64_t claimed[IPFRAG_BLOCKS / 64]; /* bit b: block b (8 bytes) */
    uint64_t have[IPFRAG_BLOCKS / 64];
    uint8_t data[IPFRAG_MAX_LEN];
};

struct slot {
    uint8_t state; /* enum slot_state */
    uint8_t af, proto;
    bool have_first; /* the offset-0 fragment was seen */
    bool have_last;  /* the MF=0 fragment was seen: `total` is known */
    uint32_t id;
    uint8_t saddr[16], daddr[16];
    struct timespec t_first, t_last;
    uint32_t total;     /* datagram payload length, once have_last */
    uint32_t max_end;   /* highest end claimed by any fragment */
    uint32_t first_cap; /* captured bytes of the offset-0 fragment */
    uint32_t nclaimed, nhave;
    uint32_t bucket;       /* index bucket of the key */
    uint32_t hnext;        /* hash chain, or free list when FREE */
    uint32_t older, newer; /* age list */
    struct dgram *dg;      /* from the shared stack while BUSY */
    uint8_t done_head[64]; /* DONE: the datagram's first bytes (transport header, RPC xid) */
    uint32_t done_head_len;
};

struct ipfrag {
    struct slot *slots;
    uint32_t cap;
    uint32_t fresh; /* slots [fresh, cap) were never used: off the free list, untouched */
    uint32_t *heads;
    uint32_t hmask;
    uint32_t free_head;
    uint32_t oldest, newest;
    size_t busy;
    unsigned timeout_s;
    struct anomalies *an;
    ipfrag_lost_fn *lost_cb;
    void *lost_ctx;
    struct dgram **spare; /* stack of free buffers, bitmaps zeroed */
    uint32_t nspare;
    struct dgram *done_buf; /* the last finished datagram's buffer, freed at the next call */
    struct ipfrag_frag last; /* the latest fragment added (-w: src/wpcap.h) */
    bool last_valid;
};

static struct dgram *
buf_get(struct ipfrag *fr)
{
    struct dgram *d;

    if (fr->nspare)
        return fr->spare[--fr->nspare];
    d = malloc(sizeof *d); /* the data is written before it is read: not zeroed */
    if (d) {
        d->nwords = 0;
        memset(d->claimed, 0, sizeof d->claimed);
        memset(d->have, 0, sizeof d->have);
    }
    return d;
}

/* The stack holds at most cap + 1 buffers: one per slot and the finished one.
 * Only the bitmap words the datagram used are zeroed again. */
static void
buf_put(struct ipfrag *fr, struct dgram *d)
{
    if (!d)
        return;
    memset(d->claimed, 0, d->nwords * sizeof d->claimed[0]);
    memset(d->have, 0, d->nwords * sizeof d->have[0]);
    d->nwords = 0;
    fr->spare[fr->nspare++] = d;
}

/* The caller is done with the datagram returned last time. */
static void
release_done(struct ipfrag *fr)
{
    buf_put(fr, fr->done_buf);
    fr->done_buf = NULL;
}

/* The key a 64-bit word at a time: multiply and fold, then a final mix
 * (the finaliser of MurmurHash3's 64-bit variant). */
static uint32_t
key_hash(uint8_t af, uint8_t proto, uint32_t id, const uint8_t *s, const uint8_t *d)
{
    uint64_t w[4], h = ((uint64_t)af << 40 | (uint64_t)proto << 32 | id) * 0x9e3779b97f4a7c15ULL;

    memcpy(w, s, 16);
    memcpy(w + 2, d, 16);
    for (size_t i = 0; i < 4; i++)
        h = (h ^ w[i]) * 0xff51afd7ed558ccdULL + (h >> 29);
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return (uint32_t)h;
}

/* The block bitmaps, a 64-bit word at a time: a 1,480-byte fragment is 185
 * blocks, three or four words. Every walk below takes a range of blocks
 * [lo, hi) with lo < hi, and masks its first and last word. */
static inline uint64_t
range_mask(uint32_t w, uint32_t lo, uint32_t hi)
{
    uint64_t m = ~(uint64_t)0;

    if (w == lo >> 6)
        m <<= lo & 63;
    if (w == (hi - 1) >> 6)
        m &= ~(uint64_t)0 >> (63 - ((hi - 1) & 63));
    return m;
}

/* Set bits, counted (SWAR: the baseline x86-64 target has no popcnt
 * instruction, and libgcc's __popcountdi2 is a call per word). */
static uint32_t
popcount64(uint64_t v)
{
    v -= (v >> 1) & 0x5555555555555555ULL;
    v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
    v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (uint32_t)((v * 0x0101010101010101ULL) >> 56);
}

/* Set bits [lo, hi); returns how many were newly set. Only bits already set
 * (an overlap) are counted, so a fresh range costs no popcount. The first and
 * last words take a partial mask, the words between are set whole. */
static uint32_t
bits_set(uint64_t *bm, uint32_t lo, uint32_t hi)
{
    uint32_t w, wl, had = 0;
    uint64_t m, last, old;

    if (lo >= hi)
        return 0;
    w = lo >> 6;
    wl = (hi - 1) >> 6;
    m = ~(uint64_t)0 << (lo & 63);
    last = ~(uint64_t)0 >> (63 - ((hi - 1) & 63));
    for (; w < wl; w++, m = ~(uint64_t)0) {
        old = bm[w] & m;
        if (old)
            had += popcount64(old);
        bm[w] |= m;
    }
    m &= last;
    old = bm[wl] & m;
    if (old)
        had += popcount64(old);
    bm[wl] |= m;
    return hi - lo - had;
}

/* Is any bit of [lo, hi) set? */
static bool
bits_any(const uint64_t *bm, uint32_t lo, uint32_t hi)
{
    uint64_t got = 0;

    if (lo >= hi)
        return false;
    for (uint32_t w = lo >> 6, wl = (hi - 1) >> 6; w <= wl; w++)
        got |= bm[w] & range_mask(w, lo, hi);
    return got != 0;
}


static bool
ts_expired(const struct timespec *t_first, unsigned timeout_s, const struct timespec *now)
{
    time_t dl = t_first->tv_sec + (time_t)timeout_s;

    return now->tv_sec > dl || (now->tv_sec == dl && now->tv_nsec > t_first->tv_nsec);
}

struct ipfrag *
ipfrag_new(size_t max_datagrams, unsigned timeout_s, struct anomalies *an)
{
    struct ipfrag *fr;
    uint32_t nh = 1;

    if (max_datagrams >= (1u << 24))
        return NULL;
    fr = calloc(1, sizeof *fr);
    if (!fr)
        return NULL;
    fr->cap = (uint32_t)max_datagrams;
    while (nh < 2 * fr->cap)
        nh <<= 1;
    fr->hmask = nh - 1;
    fr->heads = malloc(nh * sizeof *fr->heads);
    fr->slots = calloc(fr->cap ? fr->cap : 1, sizeof *fr->slots);
    fr->spare = calloc((size_t)fr->cap + 2, sizeof *fr->spare);
    if (!fr->heads || !fr->slots || !fr->spare) {
        ipfrag_free(fr);
        return NULL;
    }
    for (uint32_t i = 0; i < nh; i++)
        fr->heads[i] = NIL;
    /* No free list to build: slots are taken from `fresh` first, so calloc's
     * pages (2 KiB of bitmaps per slot) are touched only as slots are used. */
    fr->free_head = NIL;
    fr->oldest = fr->newest = NIL;
    fr->timeout_s = timeout_s;
    fr->an = an;
    return fr;
}

void
ipfrag_free(struct ipfrag *fr)
{
    if (!fr)
        return;
    if (fr->slots)
        for (uint32_t i = 0; i < fr->fresh; i++)
            free(fr->slots[i].dg);
    if (fr->spare)
        for (uint32_t i = 0; i < fr->nspare; i++)
            free(fr->spare[i]);
    free(fr->done_buf);
    free(fr->spare);
    free(fr->slots);
    free(fr->heads);
    free(fr);
}

void
ipfrag_set_lost_cb(struct ipfrag *fr, ipfrag_lost_fn *cb, void *ctx)
{
    fr->lost_cb = cb;
    fr->lost_ctx = ctx;
}

size_t
ipfrag_pending(const struct ipfrag *fr)
{
    return fr ? fr->busy : 0;
}

/* The fragment's hash bucket: computed once per fragment, for find() and
 * slot_alloc(). */
static uint32_t
frag_bucket(const struct ipfrag *fr, const struct ipfrag_frag *f)
{
    return key_hash(f->af, f->proto, f->id, f->saddr, f->daddr) & fr->hmask;
}

static uint32_t
find(const struct ipfrag *fr, const struct ipfrag_frag *f, uint32_t b)
{
    for (uint32_t i = fr->heads[b]; i != NIL; i = fr->slots[i].hnext) {
        const struct slot *s = &fr->slots[i];

        if (s->af == f->af && s->proto == f->proto && s->id == f->id &&
            memcmp(s->saddr, f->saddr, 16) == 0 && memcmp(s->daddr, f->daddr, 16) == 0)
            return i;
    }
    return NIL;
}

/* Remove a slot from the index and age list and put it on the free list. */
static void
slot_release(struct ipfrag *fr, uint32_t i)
{
    struct slot *s = &fr->slots[i];
    uint32_t *pp = &fr->heads[s->bucket];

    while (*pp != NIL && *pp != i)
        pp = &fr->slots[*pp].hnext;
    if (*pp == i)
        *pp = s->hnext;
    if (s->older != NIL)
        fr->slots[s->older].newer = s->newer;
    else
        fr->oldest = s->newer;
    if (s->newer != NIL)
        fr->slots[s->newer].older = s->older;
    else
        fr->newest = s->older;
    if (s->state == SLOT_BUSY)
        fr->busy--;
    buf_put(fr, s->dg);
    s->dg = NULL;
    s->state = SLOT_FREE;
    s->hnext = fr->free_head;
    fr->free_head = i;
}

/* Bytes contiguous from offset 0 that we hold. */
static uint32_t
prefix_len(const struct slot *s)
{
    const uint64_t *have = s->dg->have;
    uint32_t b = 0, w = 0, n;

    while (w < IPFRAG_BLOCKS / 64 && have[w] == ~(uint64_t)0)
        w++;
    b = w < IPFRAG_BLOCKS / 64 ? w * 64 + (uint32_t)__builtin_ctzll(~have[w]) : IPFRAG_BLOCKS;
    n = b * 8;
    if (n < s->first_cap)
        n = s->first_cap;
    if (s->have_last && n > s->total)
        n = s->total;
    return n;
}

/* Decode the transport header at the start of the slot's buffer. */
static enum decode_rc
slot_decode(const struct slot *s, uint32_t len, uint32_t wirelen, bool partial,
            struct anomalies *an, struct l4_seg *out)
{
    struct bytes b = { s->dg->data, len };
    enum decode_rc rc;

    memset(out, 0, sizeof *out);
    memcpy(out->key.saddr, s->saddr, 16);
    memcpy(out->key.daddr, s->daddr, 16);
    rc = ip_decode_transport(s->af, s->proto, b, wirelen, partial, an, out);
    out->reassembled = !partial;
    out->first_frag_only = partial;
    return rc;
}

/* Give up on a datagram: count it once and hand its first bytes to the lost
 * callback if the offset-0 fragment was seen. DONE slots go silently.
 * The slot leaves the table before the callback runs, keeping only its
 * buffer (the segment points into it): the callback may call back in through
 * ipfrag_give_up_between() (a lost UDP reply is an orphan, and the orphan
 * hook gives up the calls going the other way), and a datagram still in the
 * table would be found again -- between equal addresses (loopback) that
 * recursed until the stack overflowed. */
static void
give_up(struct ipfrag *fr, uint32_t i, enum anomaly why)
{
    struct slot *s = &fr->slots[i];
    struct l4_seg seg;
    struct timespec t_last = s->t_last;
    struct dgram *buf = NULL;

    if (s->state == SLOT_BUSY) {
        anomaly_add(fr->an, why, 1);
        if (s->have_first && fr->lost_cb) {
            uint32_t n = prefix_len(s);

            if (slot_decode(s, n, s->have_last ? s->total : n, true, NULL, &seg) == DECODE_OK) {
                buf = s->dg;
                s->dg = NULL;
            }
        }
    }
    slot_release(fr, i);
    if (buf) {
        fr->lost_cb(fr->lost_ctx, &seg, &t_last);
        buf_put(fr, buf);
    }
}

/* Take a free slot, making room by expiring or evicting the oldest. */
static uint32_t
slot_alloc(struct ipfrag *fr, const struct ipfrag_frag *f, uint32_t b, const struct timespec *ts)
{
    uint32_t i;
    struct slot *s;

    if (fr->free_head == NIL && fr->fresh < fr->cap) {
        fr->slots[fr->fresh].hnext = NIL;
        fr->free_head = fr->fresh++;
    } else if (fr->free_head == NIL) {
        struct slot *o = &fr->slots[fr->oldest];

        give_up(fr, fr->oldest,
                ts_expired(&o->t_first, fr->timeout_s, ts) ? ANOM_IPFRAG_EXPIRED
                                                           : ANOM_IPFRAG_EVICTED);
    }
    i = fr->free_head;
    s = &fr->slots[i];
    s->dg = buf_get(fr);
    if (!s->dg)
        return NIL;
    fr->free_head = s->hnext;

    s->state = SLOT_BUSY;
    s->af = f->af;
    s->proto = f->proto;
    s->id = f->id;
    memcpy(s->saddr, f->saddr, 16);
    memcpy(s->daddr, f->daddr, 16);
    s->have_first = s->have_last = false;
    s->t_first = s->t_last = *ts;
    s->total = s->max_end = s->first_cap = 0;
    s->nclaimed = s->nhave = 0;

    s->bucket = b;
    s->hnext = fr->heads[b];
    fr->heads[b] = i;
    s->older = fr->newest;
    s->newer = NIL;
    if (fr->newest != NIL)
        fr->slots[fr->newest].newer = i;
    else
        fr->oldest = i;
    fr->newest = i;
    fr->busy++;
    return i;
}

/* Do the captured bytes of `f` agree with what the slot already holds?
 * Compared a run of held blocks at a time (runs found word by word). */
static bool
overlap_consistent(const struct slot *s, const struct ipfrag_frag *f, uint32_t cap)
{
    uint32_t end = f->offset + cap, lo = f->offset / 8, hi = (end + 7) / 8;
    const struct dgram *d = s->dg;

    if (!bits_any(d->have, lo, hi))
        return true; /* nothing held there yet: the usual case */
    for (uint32_t w = lo >> 6, wl = (hi - 1) >> 6; w <= wl; w++) {
        uint64_t m = d->have[w] & range_mask(w, lo, hi);

        while (m) {
            uint32_t b = (uint32_t)__builtin_ctzll(m), n;
            uint64_t rest = ~(m >> b);
            uint32_t blo, bhi;

            n = rest ? (uint32_t)__builtin_ctzll(rest) : 64 - b; /* run of held blocks */
            m = b + n < 64 ? m & (~(uint64_t)0 << (b + n)) : 0;
            blo = (w * 64 + b) * 8;
            bhi = (w * 64 + b + n) * 8;
            if (blo < f->offset)
                blo = f->offset;
            if (bhi > end)
                bhi = end;
            if (memcmp(d->data + blo, f->data.p + (blo - f->offset), bhi - blo) != 0)
                return false;
        }
    }
    return true;
}

static enum decode_rc
bad(struct ipfrag *fr, uint32_t i)
{
    if (i != NIL)
        slot_release(fr, i);
    anomaly_add(fr->an, ANOM_IPFRAG_BAD, 1);
    return DECODE_INVALID;
}

enum decode_rc
ipfrag_add(struct ipfrag *fr, const struct ipfrag_frag *f, const struct timespec *ts,
           struct l4_seg *out)
{
    uint32_t i, b, end, cap, nblk, hb_end;
    struct slot *s;

    fr->last = *f;
    fr->last_valid = true;
    if (fr->cap == 0) {
        anomaly_add(fr->an, ANOM_IPFRAG_EVICTED, 1);
        return DECODE_UNSUPPORTED;
    }
    release_done(fr);
    b = frag_bucket(fr, f);
    i = find(fr, f, b);
    if (i != NIL && ts_expired(&fr->slots[i].t_first, fr->timeout_s, ts)) {
        give_up(fr, i, ANOM_IPFRAG_EXPIRED);
        i = NIL;
    }

    /* Per-fragment checks (RFC 791 §3.2, RFC 8200 §4.5): an over-long datagram
     * kills it; an empty or non-multiple-of-8 middle fragment is dropped alone. */
    if ((uint64_t)f->offset + f->data_wirelen > IPFRAG_MAX_LEN)
        return bad(fr, i != NIL && fr->slots[i].state == SLOT_BUSY ? i : NIL);
    if (f->data_wirelen == 0 || (f->more && f->data_wirelen % 8 != 0))
        return bad(fr, NIL);
    end = f->offset + f->data_wirelen;
    cap = f->data.len < f->data_wirelen ? (uint32_t)f->data.len : f->data_wirelen;
    nblk = (end + 7) / 8;

    if (i != NIL && fr->slots[i].state == SLOT_DONE) {
        s = &fr->slots[i];
        uint32_t k = cap < s->done_head_len ? cap : s->done_head_len;

        /* A finished datagram claimed [0, total) whole: within it is a duplicate. */
        if (end <= s->total && ts->tv_sec - s->t_last.tv_sec <= (time_t)DONE_KEEP_S &&
            (f->offset != 0 || memcmp(s->done_head, f->data.p, k) == 0))
            return DECODE_PENDING; /* late duplicate of a finished datagram */
        slot_release(fr, i);       /* same key, new datagram */
        i = NIL;
    }
    if (i == NIL) {
        i = slot_alloc(fr, f, b, ts);
        if (i == NIL) {
            anomaly_add(fr->an, ANOM_IPFRAG_EVICTED, 1); /* no memory for a buffer */
            return DECODE_UNSUPPORTED;
        }
    }
    s = &fr->slots[i];

    /* The last fragment fixes the length; nothing may reach past it. */
    if (s->have_last && (end > s->total || (!f->more && end != s->total)))
        return bad(fr, i);
    if (!f->more && s->max_end > end)
        return bad(fr, i);
    if (!overlap_consistent(s, f, cap))
        return bad(fr, i);

    if (cap)
        memcpy(s->dg->data + f->offset, f->data.p, cap);
    s->nclaimed += bits_set(s->dg->claimed, f->offset / 8, nblk);
    if ((nblk + 63) / 64 > s->dg->nwords) /* `have` stays within `claimed` */
        s->dg->nwords = (nblk + 63) / 64;
    /* Only whole captured blocks count as held (the final block may be short). */
    hb_end = cap == f->data_wirelen ? nblk : (f->offset + cap) / 8;
    if (hb_end > f->offset / 8)
        s->nhave += bits_set(s->dg->have, f->offset / 8, hb_end);
    if (f->offset == 0) {
        s->have_first = true;
        if (cap > s->first_cap)
            s->first_cap = cap;
    }
    if (!f->more) {
        s->have_last = true;
        s->total = end;
    }
    if (end > s->max_end)
        s->max_end = end;
    s->t_last = *ts;

    if (s->have_last && s->nclaimed == (s->total + 7) / 8) {
        enum decode_rc rc;
        uint32_t n;

        s->state = SLOT_DONE;
        fr->busy--;
        if (s->nhave == s->nclaimed) /* complete */
            rc = slot_decode(s, s->total, s->total, false, fr->an, out);
        else /* every fragment seen but the capture cut some: the first bytes are all we get */
            rc = slot_decode(s, prefix_len(s), s->total, true, fr->an, out);
        n = prefix_len(s);
        s->done_head_len = n < sizeof s->done_head ? n : (uint32_t)sizeof s->done_head;
        memcpy(s->done_head, s->dg->data, s->done_head_len);
        fr->done_buf = s->dg; /* out points into it until the next call */
        s->dg = NULL;
        return rc;
    }
    return DECODE_PENDING;
}

void
ipfrag_expire(struct ipfrag *fr, const struct timespec *now, size_t budget)
{
    size_t n = 0;

    if (!fr)
        return;
    release_done(fr);
    while (fr->oldest != NIL && (budget == 0 || n < budget)) {
        uint32_t i = fr->oldest;

        if (!ts_expired(&fr->slots[i].t_first, fr->timeout_s, now))
            break;
        give_up(fr, i, ANOM_IPFRAG_EXPIRED);
        n++;
    }
}

void
ipfrag_flush(struct ipfrag *fr)
{
    if (!fr)
        return;
    release_done(fr);
    while (fr->oldest != NIL)
        give_up(fr, fr->oldest, ANOM_IPFRAG_EXPIRED);
}

/* Does the datagram's first fragment start a UDP payload with this XID? */
static bool
slot_has_xid(const struct slot *s, uint32_t xid)
{
    const uint8_t *p = s->dg ? s->dg->data : NULL;

    return s->have_first && p && s->first_cap >= 12 &&
           ((uint32_t)p[8] << 24 | (uint32_t)p[9] << 16 | (uint32_t)p[10] << 8 | p[11]) == xid;
}

void
ipfrag_give_up_call(struct ipfrag *fr, uint8_t af, uint8_t proto, const uint8_t *src,
                    const uint8_t *dst, uint32_t xid)
{
    uint32_t i;

    if (!fr)
        return;
    for (i = fr->oldest; i != NIL;) {
        struct slot *s = &fr->slots[i];
        uint32_t next = s->newer;

        if (s->state == SLOT_BUSY && s->af == af && s->proto == proto &&
            memcmp(s->saddr, src, 16) == 0 && memcmp(s->daddr, dst, 16) == 0 &&
            slot_has_xid(s, xid)) {
            give_up(fr, i, ANOM_IPFRAG_EXPIRED);
            /* The lost callback may have given up `next` too: start over
             * (every restart follows a removal, so this ends). */
            if (next != NIL && fr->slots[next].state == SLOT_FREE)
                next = fr->oldest;
        }
        i = next;
    }
}

bool
ipfrag_last(const struct ipfrag *fr, struct ipfrag_frag *out)
{
    if (!fr || !fr->last_valid)
        return false;
    *out = fr->last;
    return true;
}

void
ipfrag_forget_last(struct ipfrag *fr)
{
    if (fr)
        fr->last_valid = false;
}
