/* SPDX-License-Identifier: BSD-3-Clause */
/* bd_procs.c: bounded per-row, per-procedure counters; see bd_procs.h. */
#include "bd_procs.h"

#include <stdlib.h>
#include <string.h>

int
bd_procs_init(struct bd_procs *bp, size_t cap)
{
    memset(bp, 0, sizeof *bp);
    /* calloc: a row's pages are touched only when the row is first used. */
    bp->rows = calloc(cap + 1, sizeof *bp->rows);
    if (!bp->rows)
        return -1;
    bp->cap = cap;
    return 0;
}

void
bd_procs_fini(struct bd_procs *bp)
{
    free(bp->rows);
    memset(bp, 0, sizeof *bp);
}

/* Specific procedures take at most BD_PROCS_PER_ROW - 1 entries; the one
 * left is for the overflow entry, created when first needed. */
static struct bd_proc *
row_entry(struct bd_procs_row *r, uint32_t key)
{
    uint32_t i;

    for (i = 0; i < r->n; i++)
        if (r->e[i].key == key)
            return &r->e[i];
    if (key != BD_PROCS_OTHER && r->n >= BD_PROCS_PER_ROW - 1)
        return row_entry(r, BD_PROCS_OTHER); /* full: the overflow entry */
    i = r->n++;
    memset(&r->e[i], 0, sizeof r->e[i]);
    r->e[i].key = key;
    return &r->e[i];
}

struct bd_proc *
bd_procs_entry(struct bd_procs *bp, size_t slot, uint32_t gen, uint32_t key)
{
    struct bd_procs_row *r;

    if (!bp->rows || slot > bp->cap)
        return NULL;
    r = &bp->rows[slot];
    if (r->gen != gen) { /* the slot has another key since: start over */
        r->gen = gen;
        r->n = 0;
    }
    return row_entry(r, key);
}

const struct bd_proc *
bd_procs_row(const struct bd_procs *bp, size_t slot, uint32_t gen, uint32_t *n)
{
    const struct bd_procs_row *r;

    *n = 0;
    if (!bp->rows || slot > bp->cap)
        return NULL;
    r = &bp->rows[slot];
    if (r->gen != gen || r->n == 0)
        return NULL;
    *n = r->n;
    return r->e;
}

void
bd_procs_call(struct bd_procs *bp, size_t slot, uint32_t gen, uint32_t key, uint64_t write_bytes)
{
    struct bd_proc *e = bd_procs_entry(bp, slot, gen, key);

    if (!e)
        return;
    e->calls++;
    e->bytes += write_bytes;
    if (e->key != key)
        bp->overflow++;
}

void
bd_procs_reply(struct bd_procs *bp, size_t slot, uint32_t gen, uint32_t key, bool error,
               uint64_t read_bytes, uint64_t lat_us)
{
    struct bd_proc *e = bd_procs_entry(bp, slot, gen, key);

    if (!e)
        return;
    e->errors += error;
    e->bytes += read_bytes;
    e->lat_count++;
    e->lat_sum += lat_us;
    if (lat_us > e->lat_max)
        e->lat_max = lat_us;
}

void
bd_proc_add(struct bd_proc *dst, const struct bd_proc *src)
{
    dst->calls += src->calls;
    dst->errors += src->errors;
    dst->bytes += src->bytes;
    dst->lat_count += src->lat_count;
    dst->lat_sum += src->lat_sum;
    if (src->lat_max > dst->lat_max)
        dst->lat_max = src->lat_max;
}

void
bd_procs_evict(struct bd_procs *bp, size_t slot)
{
    struct bd_procs_row *r, *o;
    uint32_t i;

    if (!bp->rows || slot >= bp->cap)
        return;
    r = &bp->rows[slot];
    o = &bp->rows[bp->cap];
    for (i = 0; i < r->n; i++) {
        struct bd_proc *d = row_entry(o, r->e[i].key);
        if (d->key == BD_PROCS_OTHER && r->e[i].key != BD_PROCS_OTHER)
            bp->overflow += r->e[i].calls;
        bd_proc_add(d, &r->e[i]);
    }
    r->n = 0;
}
