/* SPDX-License-Identifier: BSD-3-Clause */
/* mtab.h: a bounded table of 64-bit keys holding, per key, an entry of each
 * of MTAB_N members: the what-if scenarios' model, whose members all look
 * up the same keys, so a call finds a key's slot once for all of them.
 *
 * Placed as ftab.h's tables: open addressing over a power-of-two array, a
 * key in one of the FTAB_PROBE slots after its home, never moved, only
 * replaced. Each member has its own entry of the key, or none, and its own
 * value; the slot keeps which members have one and when any of them was
 * last used. A member's put of a key that has a slot uses that slot; a new
 * key takes the first empty slot of its window, else the one holding the
 * fewest members' entries, of those the one last used the longest ago, and
 * every member's entry there is evicted (each counted in *evicted). */
#ifndef NFSSCOPE_MTAB_H
#define NFSSCOPE_MTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ftab.h"
#include "hugemem.h"

#define MTAB_N 7
#define MTAB_VSIZE 64
/* The last use of a slot without entries: not 0, a capture's time may be
 * 0. */
#define MTAB_NONE INT64_MIN

/* A row: this line, then the members' values, a line each. The latest use
 * of any entry, not one per member: a member's own would only ever be
 * compared through their maximum (the victim), so the count and the
 * maximum are read from two fields instead of worked out from seven. */
struct mslot {
    _Alignas(64) uint64_t key; /* FTAB_USED | key; 0 = empty */
    int64_t latest;            /* the newest `now` of a put of any member; MTAB_NONE: none */
    uint8_t has;               /* bit m: member m has an entry */
};

#define MTAB_ROW (sizeof(struct mslot) + MTAB_N * MTAB_VSIZE)

struct mtab {
    uint8_t *base; /* row j at base + j * MTAB_ROW */
    uint32_t mask;
    uint64_t placed; /* keys placed so far: an absence found stands while it is unchanged */
    uint64_t *evicted;
    struct hugemem mem;
};

/* cap rows (rounded up to a power of two, 16 at least), on huge pages from
 * 2 MiB on (hugemem.h); evictions counted in *evicted. NULL if out of
 * memory. */
struct mtab *mtab_new(size_t cap, uint64_t *evicted);
void mtab_free(struct mtab *t);

static inline struct mslot *
mtab_slot_at(const struct mtab *t, uint32_t j)
{
    return (struct mslot *)(t->base + (size_t)j * MTAB_ROW);
}

/* Member m's value in slot s (whether it has an entry or not). */
static inline void *
mtab_val(struct mslot *s, unsigned m)
{
    return (uint8_t *)s + sizeof(struct mslot) + (size_t)m * MTAB_VSIZE;
}

static inline bool
mtab_has(const struct mslot *s, unsigned m)
{
    return s->has >> m & 1;
}

/* The cache lines of a row. */
static inline unsigned
mtab_lines(void)
{
    return (unsigned)(MTAB_ROW / 64);
}

/* Start loading `lines` lines of key's home row (see ftab_prefetch). */
__attribute__((always_inline)) static inline void
mtab_prefetch(const struct mtab *t, uint64_t key, unsigned lines)
{
    const uint8_t *row = t->base + (size_t)((uint32_t)key & t->mask) * MTAB_ROW;
    unsigned i;

#pragma GCC unroll 16
    for (i = 0; i < lines; i++)
        __builtin_prefetch(row + 64 * i);
}

/* The slot holding `key` (any member's entry), or NULL. */
static inline struct mslot *
mtab_find(const struct mtab *t, uint64_t key)
{
    uint32_t home = (uint32_t)key & t->mask, i;

    key |= FTAB_USED;
    for (i = 0; i < FTAB_PROBE; i++) {
        struct mslot *s = mtab_slot_at(t, (home + i) & t->mask);
        if (s->key == key)
            return s;
        if (s->key == 0)
            return NULL;
    }
    return NULL;
}

/* A slot for `key`, which has none: the window's first empty one, else the
 * one of the fewest entries, the least recently used of those, its entries
 * evicted. No member has an entry there yet. */
struct mslot *mtab_place(struct mtab *t, uint64_t key);

/* Member m's entry in s made recent (`now`), created (zeroed) if m had
 * none: what ftab_put does to a key's slot. Returns its value. */
static inline void *
mtab_touch(struct mslot *s, unsigned m, int64_t now)
{
    void *v = mtab_val(s, m);

    if (!(s->has >> m & 1)) {
        s->has |= (uint8_t)(1u << m);
        memset(v, 0, MTAB_VSIZE);
    }
    if (s->latest < now)
        s->latest = now;
    return v;
}

/* Member m's value of `key`, or NULL. */
static inline void *
mtab_get(const struct mtab *t, uint64_t key, unsigned m)
{
    struct mslot *s = mtab_find(t, key);

    return s && mtab_has(s, m) ? mtab_val(s, m) : NULL;
}

/* Find or add member m's entry of `key` (a new value is zeroed); `now`
 * marks it recently used. */
static inline void *
mtab_put(struct mtab *t, uint64_t key, unsigned m, int64_t now)
{
    struct mslot *s = mtab_find(t, key);

    return mtab_touch(s ? s : mtab_place(t, key), m, now);
}

/* A key and what a lookup found of it, for the members' lookups and puts
 * of the same call: the slot is trusted while it still holds the key (a key
 * never moves), and an absence while no key was placed since. */
struct mref {
    uint64_t key;
    struct mslot *s;
    uint64_t placed; /* t->placed when s was found; UINT64_MAX: not looked up */
};

static inline void
mref_init(struct mref *r, uint64_t key)
{
    r->key = key;
    r->s = NULL;
    r->placed = UINT64_MAX;
}

/* r's slot, or NULL: probed only when what was found may have changed. */
static inline struct mslot *
mref_slot(const struct mtab *t, struct mref *r)
{
    if (r->s ? r->s->key != (r->key | FTAB_USED) : r->placed != t->placed) {
        r->s = mtab_find(t, r->key);
        r->placed = t->placed;
    }
    return r->s;
}

/* mtab_get and mtab_put through r. */
static inline void *
mref_get(const struct mtab *t, struct mref *r, unsigned m)
{
    struct mslot *s = mref_slot(t, r);

    return s && mtab_has(s, m) ? mtab_val(s, m) : NULL;
}

static inline void *
mref_put(struct mtab *t, struct mref *r, unsigned m, int64_t now)
{
    struct mslot *s = mref_slot(t, r);

    if (!s)
        r->s = s = mtab_place(t, r->key);
    return mtab_touch(s, m, now);
}

#endif
