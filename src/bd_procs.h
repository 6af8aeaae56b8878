/* SPDX-License-Identifier: BSD-3-Clause */
/* bd_procs.h: per breakdown row, per procedure: calls, errors, bytes and
 * latency mean and max (the view's procedure table for one client,
 * server or file).
 *
 * Only the view turns it on (stats_by_proc_init), for the client, server and
 * file tables. Bounded: one fixed block per row of the breakdown table plus
 * one for its "other" row, allocated once; a row holds BD_PROCS_PER_ROW - 1
 * procedures of its own, and calls of any further procedure go to the row's
 * last entry (key BD_PROCS_OTHER, counted in `overflow`). A row's entries
 * belong to the breakdown row's generation: when the slot is given to
 * another key they are first added to the "other" block (bd_procs_evict),
 * as the row's own counts are, so every total still adds up. No latency
 * histogram per entry (it would cost 1 KiB each): mean and max only. */
#ifndef NFSSCOPE_BD_PROCS_H
#define NFSSCOPE_BD_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BD_PROCS_PER_ROW 24        /* entries per row, the overflow entry included */
#define BD_PROCS_OTHER UINT32_MAX  /* key of a row's overflow entry */

/* An entry's key: the program's index in struct stats' progs[], and the
 * procedure number. */
static inline uint32_t
bd_procs_key(size_t prog_idx, uint32_t proc)
{
    return (uint32_t)(prog_idx << 16) | (proc & 0xffffu);
}

struct bd_proc {
    uint32_t key; /* bd_procs_key(), or BD_PROCS_OTHER */
    uint64_t calls, errors, bytes; /* bytes: READ returned, WRITE sent */
    uint64_t lat_count, lat_sum, lat_max; /* microseconds */
};

struct bd_procs_row {
    uint32_t gen; /* the breakdown row's generation these entries count for */
    uint32_t n;   /* entries used */
    struct bd_proc e[BD_PROCS_PER_ROW];
};

struct bd_procs {
    struct bd_procs_row *rows; /* cap + 1: [cap] is the table's "other" row */
    size_t cap;
    uint64_t overflow; /* calls counted in an overflow entry */
};

/* 0, or -1 when the memory cannot be had: (cap + 1) * sizeof(struct bd_procs_row). */
int bd_procs_init(struct bd_procs *bp, size_t cap);
void bd_procs_fini(struct bd_procs *bp);

/* The entry of `key` in slot `slot` (0..cap; cap = "other") for the row at
 * generation `gen`, created if needed (a row of an older generation is
 * cleared first). Never NULL for slot <= cap; NULL beyond. */
struct bd_proc *bd_procs_entry(struct bd_procs *bp, size_t slot, uint32_t gen, uint32_t key);

/* The entries of slot `slot` if they belong to generation `gen` (count in
 * *n), else NULL. */
const struct bd_proc *bd_procs_row(const struct bd_procs *bp, size_t slot, uint32_t gen,
                                   uint32_t *n);

/* Slot `slot` is about to be given to another key: its entries are added to
 * the "other" block's (which has the same bound) and cleared. */
void bd_procs_evict(struct bd_procs *bp, size_t slot);

/* A first-transmission call of `key` (write_bytes: a WRITE's count), and
 * its timed reply (error: status not OK or RPC-level; read_bytes: a READ's
 * count). Slots beyond cap are ignored. */
void bd_procs_call(struct bd_procs *bp, size_t slot, uint32_t gen, uint32_t key,
                   uint64_t write_bytes);
void bd_procs_reply(struct bd_procs *bp, size_t slot, uint32_t gen, uint32_t key, bool error,
                    uint64_t read_bytes, uint64_t lat_us);

/* Add src's counts to dst (same key). */
void bd_proc_add(struct bd_proc *dst, const struct bd_proc *src);

#endif
