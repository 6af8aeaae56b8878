/* SPDX-License-Identifier: BSD-3-Clause */
/* ftab.h: a bounded table of 64-bit keys and fixed-size values, the
 * findings' memory.
 *
 * Open addressing over a power-of-two array; a key lives in one of the
 * FTAB_PROBE slots after its home. Entries are never deleted, only replaced:
 * a new key takes the first empty slot of its window, else the one touched
 * longest ago (counted in *evicted). So lookups stop at an empty slot, and
 * both operations touch at most FTAB_PROBE slots. */
#ifndef NFSSCOPE_FTAB_H
#define NFSSCOPE_FTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hugemem.h"

#define FTAB_PROBE 8

/* A slot's key and stamp side by side, its value after the slots of its
 * row: a hit reads one cache line, or two adjacent ones. */
struct fslot {
    uint64_t key; /* 0 = empty */
    int64_t stamp;
};

/* Tables of a group (ftab_group_new) share their memory row by row: row j
 * holds slot j of each member, then their values. Their keys are the same
 * hashes (mod and parent, both keyed by the handle), so the members'
 * probes of a key read the same few cache lines instead of a line or two
 * each. Each member still places, finds and
 * evicts exactly as a table of its own. */
struct ftab {
    uint8_t *base;  /* slot j at base + j * row */
    size_t row;     /* bytes per row */
    size_t voff;    /* from a slot to its value */
    size_t vsize;
    uint32_t mask;
    uint64_t *evicted;
    struct hugemem mem; /* the allocation, held by its first table */
};

static inline struct fslot *
slot_at(const struct ftab *t, uint32_t j)
{
    return (struct fslot *)(t->base + (size_t)j * t->row);
}

static inline void *
val_of(const struct ftab *t, struct fslot *s)
{
    return (uint8_t *)s + t->voff;
}

/* n tables of cap entries each (rounded up to a power of two, 16 at
 * least), member i's values of vsize[i] bytes, sharing rows (see struct
 * ftab); evictions are counted in *evicted. False if out of memory. The
 * memory is hugemem's (hugemem.h): from 2 MiB on, on huge pages, which suits
 * the tables that fill up entirely; the others are smaller. */
bool ftab_group_new(struct ftab **out, unsigned n, size_t cap, const size_t *vsize,
                    uint64_t *evicted);

/* A group's shape, for ftab_groups_new: ftab_group_new's arguments. */
struct ftab_group {
    struct ftab **out;
    unsigned n;
    size_t cap;
    const size_t *vsize;
};

/* ng groups (ng >= 1, n >= 1 each) in one allocation, one after another,
 * each as ftab_group_new makes it: for tables that all fill up entirely,
 * which use more of the whole 2 MiB pages together than each alone. All or
 * none: false if out of memory (or a group has no table), every table NULL.
 * The first group's first table holds the memory; any order of ftab_free
 * frees them. */
bool ftab_groups_new(const struct ftab_group *g, unsigned ng, uint64_t *evicted);
/* One table of its own, or NULL. */
struct ftab *ftab_new(size_t cap, size_t vsize, uint64_t *evicted);
void ftab_free(struct ftab *t);

/* Set in every stored key, so that 0 marks an empty slot: the top bit, which
 * no home uses (the low bit would make every home odd, leaving half the
 * slots no key's home). */
#define FTAB_USED ((uint64_t)1 << 63)

/* The home slot of `key`: its low bits. */
static inline uint32_t
ftab_home(const struct ftab *t, uint64_t key)
{
    return (uint32_t)key & t->mask;
}

/* The slot holding `key`, or NULL. */
static inline struct fslot *
ftab_find(const struct ftab *t, uint64_t key)
{
    uint32_t home = ftab_home(t, key), i;

    key |= FTAB_USED;
    for (i = 0; i < FTAB_PROBE; i++) {
        struct fslot *s = slot_at(t, (home + i) & t->mask);
        if (s->key == key)
            return s;
        if (s->key == 0)
            return NULL;
    }
    return NULL;
}

/* The value of `key`, or NULL; its slot in *slot (NULL if none), which a
 * put of the same key may reuse (ftab_put_at). */
static inline void *
ftab_get_slot(const struct ftab *t, uint64_t key, struct fslot **slot)
{
    *slot = ftab_find(t, key);
    return *slot ? val_of(t, *slot) : NULL;
}

static inline void *
ftab_get(const struct ftab *t, uint64_t key)
{
    struct fslot *s;

    return ftab_get_slot(t, key, &s);
}

/* Start loading the home row of `key`, `lines` cache lines from its
 * start: the tables are too big for the cache, and a call's lookups go to
 * several of them, so their misses overlap instead of following one another.
 * t is a table or a group's first member (ftab_group_new), whose rows hold
 * every member's home slot and value of the key; a row is within one line,
 * or whole lines from a line boundary (ftab_lines). `lines` is a constant
 * of the caller's, so the loop unrolls.
 * Always inlined: GCC finds a function that only prefetches "const" (a
 * prefetch is no side effect to it) and deletes its calls, prefetches and
 * all, unless it was inlined first. */
__attribute__((always_inline)) static inline void
ftab_prefetch(const struct ftab *t, uint64_t key, unsigned lines)
{
    const uint8_t *row = t->base + (size_t)ftab_home(t, key) * t->row;
    unsigned i;

#pragma GCC unroll 16
    for (i = 0; i < lines; i++)
        __builtin_prefetch(row + 64 * i);
}

/* The cache lines of one of t's rows. */
static inline unsigned
ftab_lines(const struct ftab *t)
{
    return (unsigned)((t->row + 63) / 64);
}

/* Find or add `key` (a new value is zeroed); `now` marks it recently used.
 * Returns its slot. */
static inline struct fslot *
ftab_put_slot(struct ftab *t, uint64_t key, int64_t now, bool *fresh)
{
    struct fslot *victim = NULL;
    uint32_t home = ftab_home(t, key), i;

    key |= FTAB_USED;
    for (i = 0; i < FTAB_PROBE; i++) {
        struct fslot *s = slot_at(t, (home + i) & t->mask);
        if (s->key == key) {
            if (s->stamp < now)
                s->stamp = now;
            if (fresh)
                *fresh = false;
            return s;
        }
        if (s->key == 0) {
            victim = s;
            break;
        }
        if (!victim || s->stamp < victim->stamp)
            victim = s;
    }
    if (victim->key != 0)
        (*t->evicted)++;
    victim->key = key;
    victim->stamp = now;
    if (t->vsize == 64) /* a line: stores inline, no call */
        memset(val_of(t, victim), 0, 64);
    else
        memset(val_of(t, victim), 0, t->vsize);
    if (fresh)
        *fresh = true;
    return victim;
}

static inline void *
ftab_put(struct ftab *t, uint64_t key, int64_t now, bool *fresh)
{
    return val_of(t, ftab_put_slot(t, key, now, fresh));
}

/* ftab_put with the slot a lookup of the same call found: `hint` (or NULL)
 * is trusted while it still holds the key. A key is in at most one slot of
 * its window and never moves, so the probe would find that very slot. */
static inline struct fslot *
ftab_put_at(struct ftab *t, struct fslot *hint, uint64_t key, int64_t now)
{
    if (hint && hint->key == (key | FTAB_USED)) {
        if (hint->stamp < now)
            hint->stamp = now;
        return hint;
    }
    return ftab_put_slot(t, key, now, NULL);
}

#endif
