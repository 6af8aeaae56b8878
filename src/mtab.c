/* SPDX-License-Identifier: BSD-3-Clause */
/* mtab.c: the what-if model's table (mtab.h): allocation and placing a new
 * key. */
#include "mtab.h"

#include <stdlib.h>

_Static_assert(sizeof(struct mslot) == 64, "a slot's key and entries are one line");
_Static_assert(MTAB_N <= 8, "a slot's entries are the bits of a byte");

struct mtab *
mtab_new(size_t cap, uint64_t *evicted)
{
    struct mtab *t = calloc(1, sizeof *t);
    size_t rows = 16;

    if (!t)
        return NULL;
    while (rows < cap && rows < ((size_t)1 << 30))
        rows <<= 1;
    if (rows > SIZE_MAX / MTAB_ROW || !hugemem_alloc(&t->mem, rows * MTAB_ROW)) {
        free(t);
        return NULL;
    }
    /* as ftab_groups_new: below 2 MiB made resident at once */
    if (!t->mem.len)
        mem_populate(t->mem.p, rows * MTAB_ROW);
    t->base = t->mem.p;
    t->mask = (uint32_t)(rows - 1);
    t->evicted = evicted;
    return t;
}

void
mtab_free(struct mtab *t)
{
    if (!t)
        return;
    hugemem_free(&t->mem);
    free(t);
}

/* The bits set in a byte, without a call (__builtin_popcount is one to
 * libgcc where the CPU's instruction is not assumed). */
static unsigned
bits8(unsigned x)
{
    x -= x >> 1 & 0x55u;
    x = (x & 0x33u) + (x >> 2 & 0x33u);
    return (x + (x >> 4)) & 0x0fu;
}

/* Of a full window, the slot of the fewest entries, the least recently
 * used of those. The fewest first: evicting a slot drops every member's
 * entry there, and the keys only one or two members hold (in the model,
 * those only the scenarios sending more calls refresh) would otherwise
 * evict the keys all hold at the rate of every member's new keys. */
struct mslot *
mtab_place(struct mtab *t, uint64_t key)
{
    uint32_t home = (uint32_t)key & t->mask, i;
    struct mslot *victim = NULL;
    int64_t vlatest = 0;
    unsigned vn = 0;

    for (i = 0; i < FTAB_PROBE; i++) {
        struct mslot *s = mtab_slot_at(t, (home + i) & t->mask);
        unsigned n;
        int64_t l;

        if (s->key == 0) {
            victim = s;
            vn = 0;
            break;
        }
        n = bits8(s->has);
        l = s->latest;
        if (!victim || n < vn || (n == vn && l < vlatest)) {
            victim = s;
            vn = n;
            vlatest = l;
        }
    }
    *t->evicted += vn;
    victim->key = key | FTAB_USED;
    victim->has = 0;
    victim->latest = MTAB_NONE;
    t->placed++;
    return victim;
}
