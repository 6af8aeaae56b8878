/* SPDX-License-Identifier: BSD-3-Clause */
/* addr_ix.h: a small index from IP addresses to the rows of a fixed table.
 *
 * Tables of the first N servers or clients seen (N <= ADDR_IX_MAX) are
 * searched on every call; a scan compares up to N addresses, and every
 * address past the first N scans the whole table. The index finds a row,
 * or that there is none, in one or two probes. Open addressing over
 * ADDR_IX_SLOTS one-byte slots (row + 1, 0 = empty), at most a quarter
 * full; rows are never removed. The hash is not seeded: at most N entries,
 * so even addresses chosen to collide cost at most N probes. */
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
        uint64_t w[2]; /* the address, an IPv4 one zero-padded */
        uint8_t af;
    } key[ADDR_IX_MAX];
};

/* The row of (af, addr) (4 bytes for IPv4, 16 for IPv6): found, else the
 * next row (== n before the call) if fewer than max exist, else -1. */
static inline int
addr_ix_row(struct addr_ix *x, unsigned max, uint8_t af, const uint8_t *addr)
{
    uint64_t w[2] = { 0, 0 };
    unsigned i;

    memcpy(w, addr, af == 6 ? 16 : 4);
    i = (unsigned)(((w[0] ^ w[1] ^ af) * 0x9e3779b97f4a7c15ULL) >> 56);
    for (;; i = (i + 1) % ADDR_IX_SLOTS) {
        unsigned r = x->row1[i];
        if (r == 0)
            break;
        if (x->key[r - 1].w[0] == w[0] && x->key[r - 1].w[1] == w[1] && x->key[r - 1].af == af)
            return (int)r - 1;
    }
    if (x->n >= max || x->n >= ADDR_IX_MAX)
        return -1;
    x->key[x->n].w[0] = w[0];
    x->key[x->n].w[1] = w[1];
    x->key[x->n].af = af;
    x->row1[i] = (uint8_t)++x->n;
    return (int)x->n - 1;
}

#endif
