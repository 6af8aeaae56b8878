/* SPDX-License-Identifier: BSD-3-Clause */
/* addr_ix.h: a small index from IP addresses (or pairs of them) to the rows
 * of a fixed table.
 *
 * Tables of the first N servers, clients or client/server pairs seen
 * (N <= ADDR_IX_MAX) are searched on every call; a scan compares up to N
 * keys, and every key past the first N scans the whole table. The index
 * finds a row, or that there is none, in one or two probes. Open addressing
 * over ADDR_IX_SLOTS one-byte slots (row + 1, 0 = empty), at most a quarter
 * full; rows are never removed. The hash is not seeded: at most N entries,
 * so even keys chosen to collide cost at most N probes. */
#ifndef NFSSCOPE_ADDR_IX_H
#define NFSSCOPE_ADDR_IX_H

#include <stdint.h>
#include <string.h>

#define ADDR_IX_MAX 64
#define ADDR_IX_SLOTS 256

struct addr_ix {
    unsigned n;
    uint8_t row1[ADDR_IX_SLOTS];
    struct {
        uint64_t w[4]; /* the addresses, IPv4 ones zero-padded; one: w[2..3] 0 */
        uint8_t af;
    } key[ADDR_IX_MAX];
};

/* The row of key words w (af's addresses, zero-padded), probing from slot
 * i: found, else the next row (== n before the call) if fewer than max
 * exist, else -1. Inline in both callers, so that addr_ix_row's zero words
 * are constants here. */
__attribute__((always_inline)) static inline int
addr_ix_find_add(struct addr_ix *x, unsigned max, uint8_t af, const uint64_t w[4], unsigned i)
{
    for (;; i = (i + 1) % ADDR_IX_SLOTS) {
        unsigned r = x->row1[i];
        const uint64_t *kw;
        if (r == 0)
            break;
        kw = x->key[r - 1].w;
        if (((kw[0] ^ w[0]) | (kw[1] ^ w[1]) | (kw[2] ^ w[2]) | (kw[3] ^ w[3])) == 0 &&
            x->key[r - 1].af == af)
            return (int)r - 1;
    }
    if (x->n >= max || x->n >= ADDR_IX_MAX)
        return -1;
    memcpy(x->key[x->n].w, w, 4 * sizeof w[0]);
    x->key[x->n].af = af;
    x->row1[i] = (uint8_t)++x->n;
    return (int)x->n - 1;
}

/* The row of (af, a, b): a and b are 4 bytes for IPv4, 16 for IPv6; b may
 * be NULL (a key of one address). Found, else the next row (== n before the
 * call) if fewer than max exist, else -1. */
static inline int
addr_ix_row2(struct addr_ix *x, unsigned max, uint8_t af, const uint8_t *a, const uint8_t *b)
{
    size_t alen = af == 6 ? 16 : 4;
    uint64_t w[4] = { 0, 0, 0, 0 };

    memcpy(w, a, alen);
    if (b)
        memcpy(w + 2, b, alen);
    return addr_ix_find_add(x, max, af, w,
                            (unsigned)(((w[0] ^ w[1] ^ af) * 0x9e3779b97f4a7c15ULL ^
                                        (w[2] ^ w[3]) * 0xc2b2ae3d27d4eb4fULL) >> 56));
}

/* addr_ix_row2 with b NULL, its key and slots: the address's two words
 * loaded at the lengths the compiler sees, w[2..3] known to be 0. */
static inline int
addr_ix_row(struct addr_ix *x, unsigned max, uint8_t af, const uint8_t *addr)
{
    uint64_t w[4] = { 0, 0, 0, 0 };

    if (af == 6) {
        memcpy(&w[0], addr, 8);
        memcpy(&w[1], addr + 8, 8);
    } else {
        memcpy(&w[0], addr, 4);
    }
    return addr_ix_find_add(x, max, af, w,
                            (unsigned)(((w[0] ^ w[1] ^ af) * 0x9e3779b97f4a7c15ULL) >> 56));
}

#endif
