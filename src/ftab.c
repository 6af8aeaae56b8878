/* SPDX-License-Identifier: BSD-3-Clause */
/* ftab.c: allocating the findings' bounded tables (ftab.h). */
#include "ftab.h"

#include <stdlib.h>

/* n tables of cap entries, member i's values of vsize[i] bytes, in shared
 * rows: the n slots, then the values (from a cache line boundary when they
 * are whole lines). A row is 16, 32 or 64 bytes, or whole lines, so that
 * none straddles a line it need not. The memory is zeroed (calloc: pages
 * no table has touched stay unmapped). */
bool
ftab_group_new(struct ftab **out, unsigned n, size_t cap, const size_t *vsize,
               uint64_t *evicted)
{
    size_t rows = 16, slots = n * sizeof(struct fslot), vstart = slots, row, off;
    bool lines = true;
    uint8_t *base;
    void *mem;
    unsigned i;
    bool ok;

    while (rows < cap && rows < ((size_t)1 << 30))
        rows <<= 1;
    for (i = 0; i < n; i++)
        lines = lines && vsize[i] % 64 == 0;
    if (lines)
        vstart = (slots + 63) & ~(size_t)63;
    row = vstart;
    for (i = 0; i < n; i++)
        row += (vsize[i] + 7) & ~(size_t)7;
    if (row <= 64) {
        size_t p = 16;
        while (p < row)
            p <<= 1;
        row = p;
    } else {
        row = (row + 63) & ~(size_t)63;
    }
    mem = calloc(rows + (64 + row - 1) / row, row); /* + 64 bytes or more to align */
    base = (uint8_t *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);
    ok = mem != NULL;
    for (i = 0; i < n; i++) {
        out[i] = calloc(1, sizeof **out);
        ok = ok && out[i];
    }
    if (!ok) {
        for (i = 0; i < n; i++) {
            free(out[i]);
            out[i] = NULL;
        }
        free(mem);
        return false;
    }
    for (i = 0, off = vstart; i < n; i++) {
        out[i]->base = base + i * sizeof(struct fslot);
        out[i]->row = row;
        out[i]->voff = off - i * sizeof(struct fslot);
        out[i]->vsize = vsize[i];
        out[i]->mask = (uint32_t)(rows - 1);
        out[i]->evicted = evicted;
        off += (vsize[i] + 7) & ~(size_t)7;
    }
    out[0]->mem = mem;
    return true;
}

struct ftab *
ftab_new(size_t cap, size_t vsize, uint64_t *evicted)
{
    struct ftab *t;

    return ftab_group_new(&t, 1, cap, &vsize, evicted) ? t : NULL;
}

void
ftab_free(struct ftab *t)
{
    if (!t)
        return;
    free(t->mem);
    free(t);
}
