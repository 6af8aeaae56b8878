/* SPDX-License-Identifier: BSD-3-Clause */
/* hashtab.c: open addressing with linear probing and backward-shift delete. */
#include "hashtab.h"

#include <stdlib.h>
#include <string.h>

#define HT_MIN_N 256 /* entries of the first index: 2 KiB */

int
hashtab_init(struct hashtab *h, size_t max_entries)
{
    size_t n = 16, min_n;

    while (n < max_entries + max_entries / 3 + 1)
        n <<= 1;
    min_n = n < HT_MIN_N ? n : HT_MIN_N;
    /* all empty; pages touched only when used */
    h->base = calloc(2 * n - min_n, sizeof *h->base);
    if (!h->base)
        return -1;
    h->e = h->base;
    h->min_n = (uint32_t)min_n;
    h->mask = (uint32_t)(min_n - 1);
    h->max_mask = (uint32_t)(n - 1);
    h->count = 0;
    return 0;
}

void
hashtab_fini(struct hashtab *h)
{
    free(h->base);
    h->base = h->e = NULL;
    h->count = 0;
}

static void
place(struct ht_ent *e, uint32_t mask, struct ht_ent x)
{
    uint32_t i = x.hash & mask;

    while (e[i].slot1 != 0)
        i = (i + 1) & mask;
    e[i] = x;
}

/* The next size up: its own part of base, so the old index can be read
 * while the new one is filled. */
static void
grow(struct hashtab *h)
{
    uint32_t n = h->mask + 1, i;
    struct ht_ent *e = h->base + (2 * (size_t)n - h->min_n);

    for (i = 0; i < n; i++)
        if (h->e[i].slot1 != 0)
            place(e, 2 * n - 1, h->e[i]);
    h->e = e;
    h->mask = 2 * n - 1;
}

uint32_t
hashtab_next(const struct hashtab *h, uint64_t hash, uint32_t *pos)
{
    uint32_t hv = (uint32_t)hash;

    for (;;) {
        const struct ht_ent *e = &h->e[*pos];
        if (e->slot1 == 0)
            return HT_NONE;
        *pos = (*pos + 1) & h->mask;
        if (e->hash == hv)
            return e->slot1 - 1;
    }
}

uint32_t
hashtab_first(const struct hashtab *h, uint64_t hash, uint32_t *pos)
{
    *pos = (uint32_t)hash & h->mask;
    return hashtab_next(h, hash, pos);
}

void
hashtab_insert(struct hashtab *h, uint64_t hash, uint32_t slot)
{
    struct ht_ent x = { slot + 1, (uint32_t)hash };

    if (h->mask < h->max_mask && (h->count + 1) * 4 > ((size_t)h->mask + 1) * 3)
        grow(h);
    place(h->e, h->mask, x);
    h->count++;
}

void
hashtab_remove(struct hashtab *h, uint64_t hash, uint32_t slot)
{
    uint32_t i = (uint32_t)hash & h->mask, j;

    for (;;) {
        if (h->e[i].slot1 == 0)
            return;
        if (h->e[i].slot1 == slot + 1)
            break;
        i = (i + 1) & h->mask;
    }
    /* Backward shift: pull later entries of the cluster into the hole unless
     * their home position lies cyclically in (hole, j]. */
    j = i;
    for (;;) {
        uint32_t home;
        j = (j + 1) & h->mask;
        if (h->e[j].slot1 == 0)
            break;
        home = h->e[j].hash & h->mask;
        if (((j - home) & h->mask) >= ((j - i) & h->mask)) {
            h->e[i] = h->e[j];
            i = j;
        }
    }
    h->e[i].slot1 = 0;
    h->count--;
}

/* The n (1..8) bytes at b as the word memcpy(&x, b, n) gives on a
 * little-endian machine, in two loads instead of a byte loop. */
static uint64_t
tail_word(const uint8_t *b, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n >= 4) {
        uint32_t lo, hi;
        memcpy(&lo, b, 4);
        memcpy(&hi, b + n - 4, 4); /* overlaps lo by 8 - n bytes: same values */
        return lo | (uint64_t)hi << (8 * (n - 4));
    }
    return b[0] | (uint64_t)b[n >> 1] << (8 * (n >> 1)) | (uint64_t)b[n - 1] << (8 * (n - 1));
#else
    uint64_t x = 0;
    memcpy(&x, b, n);
    return x;
#endif
}

/* 16 bytes per multiply: keys here are 8 to 72 bytes (addresses, handles). */
uint64_t
hash_bytes(const void *p, size_t n, uint64_t seed)
{
    const uint8_t *b = p;
    uint64_t h = seed ^ hash_mum(n ^ 0xa0761d6478bd642fULL, 0xe7037ed1a0b428dbULL);

    while (n >= 16) {
        uint64_t x, y;
        memcpy(&x, b, 8);
        memcpy(&y, b + 8, 8);
        h = hash_mum(x ^ h ^ 0xa0761d6478bd642fULL, y ^ 0x8ebc6af09c88c6e3ULL);
        b += 16;
        n -= 16;
    }
    if (n) {
        uint64_t x, y = 0;
        if (n > 8) {
            memcpy(&x, b, 8);
            y = tail_word(b + 8, n - 8);
        } else {
            x = tail_word(b, n);
        }
        h = hash_mum(x ^ h ^ 0xa0761d6478bd642fULL, y ^ 0x589965cc75374cc3ULL ^ n);
    }
    return hash_mix(h);
}

