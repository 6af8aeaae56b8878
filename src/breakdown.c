/* SPDX-License-Identifier: BSD-3-Clause */
/* breakdown.c: bounded per-key statistics tables; see breakdown.h. */
#include "breakdown.h"

#include "hugemem.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *const dim_names[BD__COUNT] = { "client", "server", "pair",
                                                  "export", "file",   "user" };

const char *
bd_dim_name(enum bd_dim d)
{
    return (unsigned)d < BD__COUNT ? dim_names[d] : "unknown";
}

bool
bd_dim_parse(const char *s, enum bd_dim *out)
{
    unsigned i;

    for (i = 0; i < BD__COUNT; i++)
        if (strcmp(s, dim_names[i]) == 0) {
            *out = (enum bd_dim)i;
            return true;
        }
    return false;
}

static const char *const order_names[] = { "calls", "latency", "bytes" };

bool
bd_order_parse(const char *s, enum bd_order *out)
{
    unsigned i;

    for (i = 0; i < 3; i++)
        if (strcmp(s, order_names[i]) == 0) {
            *out = (enum bd_order)i;
            return true;
        }
    return false;
}

const char *
bd_order_name(enum bd_order o)
{
    return (unsigned)o < 3 ? order_names[o] : "unknown";
}

int
bd_table_init(struct bd_table *t, enum bd_dim dim, size_t cap, uint64_t seed)
{
    memset(t, 0, sizeof *t);
    if (cap == 0 || cap >= HT_NONE)
        return -1;
    /* calloc: a row's pages are touched only when the row is first used. */
    t->rows = calloc(cap, sizeof *t->rows);
    if (!t->rows || hashtab_init(&t->idx, cap) != 0) {
        free(t->rows);
        t->rows = NULL;
        return -1;
    }
    t->dim = dim;
    t->cap = cap;
    t->seed = seed;
    t->rng = seed | 1;
    histo_small_init(&t->other.latency);
    return 0;
}

void
bd_table_fini(struct bd_table *t)
{
    hashtab_fini(&t->idx);
    free(t->rows);
    t->rows = NULL;
    if (t->procs)
        bd_procs_fini(t->procs);
    free(t->procs);
    t->procs = NULL;
    if (t->ops)
        bd_procs_fini(t->ops);
    free(t->ops);
    t->ops = NULL;
}

static void
row_add(struct bd_row *dst, const struct bd_row *src)
{
    unsigned i;

    dst->calls += src->calls;
    dst->replies += src->replies;
    dst->errors += src->errors;
    dst->retrans += src->retrans;
    dst->unanswered += src->unanswered;
    dst->read_bytes += src->read_bytes;
    dst->write_bytes += src->write_bytes;
    dst->nfs3_calls += src->nfs3_calls;
    for (i = 0; i < 3; i++)
        dst->stable[i] += src->stable[i];
    histo_small_merge(&dst->latency, &src->latency);
}

_Static_assert(offsetof(struct bd_row, latency) + sizeof(struct histo_small) ==
                   sizeof(struct bd_row),
               "a row given to a new key is cleared up to its histogram, then the histogram");

static uint64_t
xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* Sampled eviction (redis's approximated LFU): of 8 random rows, the one with
 * the fewest calls leaves; O(1) per eviction, so a flood of new keys costs
 * constant time per packet. */
static size_t
pick_victim(struct bd_table *t)
{
    size_t best = (size_t)(xorshift(&t->rng) % t->cap);
    unsigned i;

    for (i = 1; i < 8; i++) {
        size_t c = (size_t)(xorshift(&t->rng) % t->cap);
        if (t->rows[c].calls < t->rows[best].calls)
            best = c;
    }
    return best;
}

/* Rows are given out in order while the table fills: they, and their
 * procedures' and operations' rows, made resident BD_POPULATE_ROWS at a
 * time (mem_populate_run). */
#define BD_POPULATE_ROWS 32

static void
populate_rows(struct bd_table *t, size_t s)
{
    mem_populate_run(t->rows, sizeof *t->rows, s, t->cap, BD_POPULATE_ROWS);
    if (t->procs)
        mem_populate_run(t->procs->rows, sizeof *t->procs->rows, s, t->cap, BD_POPULATE_ROWS);
    if (t->ops)
        mem_populate_run(t->ops->rows, sizeof *t->ops->rows, s, t->cap, BD_POPULATE_ROWS);
}

struct bd_row *
bd_table_row(struct bd_table *t, const uint8_t *key, size_t len)
{
    uint64_t h;
    uint32_t pos, s;
    struct bd_row *r;

    if (len > BD_KEY_MAX)
        len = BD_KEY_MAX;
    h = hash_bytes(key, len, t->seed);
    for (s = hashtab_first(&t->idx, h, &pos); s != HT_NONE; s = hashtab_next(&t->idx, h, &pos)) {
        r = &t->rows[s];
        if (r->key_len == len && memcmp(r->key, key, len) == 0)
            return r;
    }
    if (t->count < t->cap) {
        s = (uint32_t)t->count++;
        populate_rows(t, s);
    } else {
        if (t->before_evict)
            t->before_evict(t->evict_arg);
        s = (uint32_t)pick_victim(t);
        r = &t->rows[s];
        row_add(&t->other, r);
        if (t->procs)
            bd_procs_evict(t->procs, s);
        if (t->ops)
            bd_procs_evict(t->ops, s);
        hashtab_remove(&t->idx, r->hash, s);
        t->evicted++;
    }
    r = &t->rows[s];
    {
        uint32_t gen = r->gen + 1;
        histo_small_clear(&r->latency); /* its buckets in use, not all 1 KiB */
        memset(r, 0, offsetof(struct bd_row, latency));
        r->gen = gen;
    }
    memcpy(r->key, key, len);
    r->key_len = (uint8_t)len;
    r->hash = h;
    r->used = 1;
    hashtab_insert(&t->idx, h, s);
    return r;
}

static uint64_t
metric(const struct bd_row *r, enum bd_order o)
{
    switch (o) {
    case BD_BY_LATENCY:
        return r->latency.sum;
    case BD_BY_BYTES:
        return r->read_bytes + r->write_bytes;
    case BD_BY_CALLS:
    default:
        return r->calls;
    }
}

static enum bd_order sort_order; /* qsort has no context argument in C11 */

static int
cmp_rows(const void *a, const void *b)
{
    const struct bd_row *x = *(const struct bd_row *const *)a;
    const struct bd_row *y = *(const struct bd_row *const *)b;
    uint64_t mx = metric(x, sort_order), my = metric(y, sort_order);
    size_t n;
    int c;

    if (mx != my)
        return mx > my ? -1 : 1;
    if (x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    n = x->key_len < y->key_len ? x->key_len : y->key_len;
    c = memcmp(x->key, y->key, n);
    if (c)
        return c;
    return (int)x->key_len - (int)y->key_len;
}

size_t
bd_table_top(const struct bd_table *t, enum bd_order order, const struct bd_row **out, size_t n)
{
    const struct bd_row **all;
    size_t i, k;

    if (t->count == 0 || n == 0)
        return 0;
    all = malloc(t->count * sizeof *all);
    if (!all)
        return 0;
    for (i = 0; i < t->count; i++)
        all[i] = &t->rows[i];
    sort_order = order;
    qsort(all, t->count, sizeof *all, cmp_rows);
    k = n < t->count ? n : t->count;
    memcpy(out, all, k * sizeof *out);
    free(all);
    return k;
}

void
bd_table_total(const struct bd_table *t, struct bd_row *sum)
{
    size_t i;

    memset(sum, 0, sizeof *sum);
    histo_small_init(&sum->latency);
    for (i = 0; i < t->count; i++)
        row_add(sum, &t->rows[i]);
    row_add(sum, &t->other);
}

/* src's entries of slot `from` (generation gen) into dst's slot `to`. */
static void
procs_merge(struct bd_procs *dst, size_t to, uint32_t to_gen, const struct bd_procs *src,
            size_t from, uint32_t gen)
{
    const struct bd_proc *e;
    uint32_t n, i;

    if (!dst || !src || !(e = bd_procs_row(src, from, gen, &n)))
        return;
    for (i = 0; i < n; i++) {
        struct bd_proc *d = bd_procs_entry(dst, to, to_gen, e[i].key);
        if (d->key == BD_PROCS_OTHER && e[i].key != BD_PROCS_OTHER)
            dst->overflow += e[i].calls;
        bd_proc_add(d, &e[i]);
    }
}

void
bd_table_merge(struct bd_table *dst, const struct bd_table *src)
{
    size_t i;

    for (i = 0; i < src->count; i++) {
        const struct bd_row *s = &src->rows[i];
        struct bd_row *d = bd_table_row(dst, s->key, s->key_len);
        size_t slot = (size_t)(d - dst->rows);

        row_add(d, s);
        procs_merge(dst->procs, slot, d->gen, src->procs, i, s->gen);
        procs_merge(dst->ops, slot, d->gen, src->ops, i, s->gen);
    }
    row_add(&dst->other, &src->other);
    if (src->procs && dst->procs) {
        procs_merge(dst->procs, dst->cap, dst->procs->rows[dst->cap].gen, src->procs, src->cap,
                    src->procs->rows[src->cap].gen);
        dst->procs->overflow += src->procs->overflow;
    }
    if (src->ops && dst->ops) {
        procs_merge(dst->ops, dst->cap, dst->ops->rows[dst->cap].gen, src->ops, src->cap,
                    src->ops->rows[src->cap].gen);
        dst->ops->overflow += src->ops->overflow;
    }
    dst->evicted += src->evicted;
}
