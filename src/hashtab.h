/* SPDX-License-Identifier: BSD-3-Clause */
/* hashtab.h: an open-addressing index from hashes to slab slot ids.
 *
 * The index stores (hash, slot) pairs only; entries live in the caller's
 * fixed slab and never move, so pointers into the slab stay valid. Linear
 * probing, backward-shift deletion without tombstones (khashl). Callers walk
 * the candidates with a matching hash and compare keys themselves.
 *
 * The index starts small and doubles while it is more than 3/4 full, up to
 * its capacity (a power of two at least 4/3 of the most entries, so the load
 * stays <= 0.75): a table sized for 65,536 calls that holds a few hundred
 * stays a few KiB and in the cache, instead of one miss per lookup in 1 MiB.
 * Every size is carved from one allocation made at init (twice the largest
 * index, touched only as it grows), so there is no allocation after init. */
#ifndef NFSSCOPE_HASHTAB_H
#define NFSSCOPE_HASHTAB_H

#include <stddef.h>
#include <stdint.h>

#define HT_NONE UINT32_MAX

struct ht_ent {
    uint32_t slot1; /* slot id + 1; 0 when empty (so calloc'd pages stay untouched) */
    uint32_t hash;  /* low 32 bits of the key's hash */
};

struct hashtab {
    struct ht_ent *e;    /* the index in use: mask + 1 entries */
    struct ht_ent *base; /* every size, smallest first: size n at base + n - min_n */
    uint32_t mask, max_mask, min_n;
    size_t count;
};

/* Room for at least max_entries. 0, or -1 on allocation failure. */
int hashtab_init(struct hashtab *h, size_t max_entries);
void hashtab_fini(struct hashtab *h);
/* Candidate walk: *pos is the probe state; returns the next slot whose stored
 * hash matches, or HT_NONE when there are no more. Start with hashtab_first. */
uint32_t hashtab_first(const struct hashtab *h, uint64_t hash, uint32_t *pos);
uint32_t hashtab_next(const struct hashtab *h, uint64_t hash, uint32_t *pos);
/* The caller guarantees count < max_entries. */
void hashtab_insert(struct hashtab *h, uint64_t hash, uint32_t slot);
/* Remove the pair (hash, slot); a no-op if absent. */
void hashtab_remove(struct hashtab *h, uint64_t hash, uint32_t slot);

/* A seeded 64-bit hash of a byte string and of two words (keys are
 * attacker-controlled: the seed comes from getrandom() in the ctx). */
uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);

/* 64x64 -> 128-bit multiply, folded (the wyhash "mum" step). */
static inline uint64_t
hash_mum(uint64_t a, uint64_t b)
{
    __extension__ typedef unsigned __int128 u128;
    u128 r = (u128)a * b;

    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

/* Multiply-xorshift mixing (splitmix64 finaliser). */
static inline uint64_t
hash_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* Inline: the findings hash several word pairs per call. */
static inline uint64_t
hash_u64x2(uint64_t a, uint64_t b, uint64_t seed)
{
    return hash_mix(hash_mix(a ^ seed) ^ (b * 0x9e3779b97f4a7c15ULL));
}

#endif
