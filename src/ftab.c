/* SPDX-License-Identifier: BSD-3-Clause */
/* ftab.c: allocating the findings' bounded tables (ftab.h). */
#include "ftab.h"

#include <stdint.h>
#include <stdlib.h>

/* A group's rows (a power of two) and bytes per row: the n slots, then the
 * values (from a cache line boundary when they are whole lines). A row is
 * 16, 32 or 64 bytes, or whole lines, so that none straddles a line it need
 * not. False if the group's bytes overflow a size_t. */
static bool
group_shape(const struct ftab_group *g, size_t *rows_out, size_t *row_out, size_t *vstart_out)
{
    size_t rows = 16, slots = g->n * sizeof(struct fslot), vstart = slots, row;
    bool lines = true;
    unsigned i;

    while (rows < g->cap && rows < ((size_t)1 << 30))
        rows <<= 1;
    for (i = 0; i < g->n; i++)
        lines = lines && g->vsize[i] % 64 == 0;
    if (lines)
        vstart = (slots + 63) & ~(size_t)63;
    row = vstart;
    for (i = 0; i < g->n; i++)
        row += (g->vsize[i] + 7) & ~(size_t)7;
    if (row <= 64) {
        size_t p = 16;
        while (p < row)
            p <<= 1;
        row = p;
    } else {
        row = (row + 63) & ~(size_t)63;
    }
    *rows_out = rows;
    *row_out = row;
    *vstart_out = vstart;
    return row <= SIZE_MAX / rows;
}

static void
free_members(const struct ftab_group *g, unsigned ng)
{
    unsigned k, i;

    for (k = 0; k < ng; k++) {
        for (i = 0; i < g[k].n; i++) {
            free(g[k].out[i]);
            g[k].out[i] = NULL;
        }
    }
}

/* The groups' memory one after another, each from a line boundary (a
 * group's bytes are whole lines: 16 rows of 16 bytes at least). Zeroed. */
bool
ftab_groups_new(const struct ftab_group *g, unsigned ng, uint64_t *evicted)
{
    size_t total = 0, rows, row, vstart, off;
    struct hugemem mem;
    uint8_t *base;
    unsigned k, i;
    bool ok;

    for (k = 0; k < ng; k++) {
        for (i = 0; i < g[k].n; i++)
            g[k].out[i] = NULL;
    }
    ok = ng > 0;
    for (k = 0; k < ng && ok; k++) {
        ok = g[k].n > 0 && group_shape(&g[k], &rows, &row, &vstart) &&
             rows * row <= SIZE_MAX - total;
        if (ok)
            total += rows * row;
    }
    if (!ok || !hugemem_alloc(&mem, total))
        return false;
    /* Below 2 MiB (no huge pages) the keys' homes scatter the first probes
     * over every page, each a read fault and then a write fault: made
     * resident at once instead (mem_populate). */
    if (!mem.len)
        mem_populate(mem.p, total);
    for (k = 0; k < ng; k++) {
        for (i = 0; i < g[k].n; i++) {
            g[k].out[i] = calloc(1, sizeof **g[k].out);
            ok = ok && g[k].out[i];
        }
    }
    if (!ok) {
        free_members(g, ng);
        hugemem_free(&mem);
        return false;
    }
    base = mem.p;
    for (k = 0; k < ng; k++) {
        group_shape(&g[k], &rows, &row, &vstart);
        for (i = 0, off = vstart; i < g[k].n; i++) {
            struct ftab *t = g[k].out[i];

            t->base = base + i * sizeof(struct fslot);
            t->row = row;
            t->voff = off - i * sizeof(struct fslot);
            t->vsize = g[k].vsize[i];
            t->mask = (uint32_t)(rows - 1);
            t->evicted = evicted;
            off += (g[k].vsize[i] + 7) & ~(size_t)7;
        }
        base += rows * row;
    }
    g[0].out[0]->mem = mem;
    return true;
}

bool
ftab_group_new(struct ftab **out, unsigned n, size_t cap, const size_t *vsize,
               uint64_t *evicted)
{
    const struct ftab_group g = { out, n, cap, vsize };

    return ftab_groups_new(&g, 1, evicted);
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
    hugemem_free(&t->mem);
    free(t);
}
