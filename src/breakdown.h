/* SPDX-License-Identifier: BSD-3-Clause */
/* breakdown.h: the core statistics per client, server, client-server pair,
 * export, file handle or user.
 *
 * One table per dimension, each with a fixed number of rows allocated once.
 * When a table is full, a new key replaces the row with the fewest calls
 * among a few sampled rows, whose counts move into the table's "other" row:
 * nothing is lost, every total still adds up, and memory does not grow with
 * the capture. Rows are reported as top-N lists by calls, total latency or
 * bytes. */
#ifndef NFSSCOPE_BREAKDOWN_H
#define NFSSCOPE_BREAKDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bd_procs.h"
#include "hashtab.h"
#include "histo.h"
#include "names.h"

enum bd_dim { BD_CLIENT, BD_SERVER, BD_PAIR, BD_EXPORT, BD_FILE, BD_USER, BD__COUNT };

#define BD_KEY_MAX 128 /* the longest key: a file handle of NFS4_FHSIZE bytes (RFC 8881 §3.2) */

struct bd_row {
    uint8_t key[BD_KEY_MAX];
    uint8_t key_len;
    uint8_t used;
    uint32_t gen; /* bumped each time the slot is given to another key */
    uint64_t hash; /* hash_bytes(key, key_len, the table's seed) */
    uint64_t calls, replies, errors, retrans, unanswered;
    uint64_t read_bytes, write_bytes;
    uint64_t stable[3];  /* NFSv3 WRITE calls by stable_how */
    uint64_t nfs3_calls; /* calls of NFS v3 (a row may mix programs) */
    /* File table: the export the row's handle lies in, and that export's
     * row (stats.c), as last found: a call finds them without walking the
     * names or hashing again while they hold. */
    struct names_export_memo export;
    uint32_t export_idx, export_gen;
    /* Pair table: the accumulator (bd_acc.h) holding calls not yet added
     * to this row and its client, server and user rows, while acc_gen is
     * that accumulator's generation (0: none). */
    uint32_t acc, acc_gen;
    struct histo_small latency; /* percentiles within 12.5 % (histo.h) */
};

struct bd_table {
    enum bd_dim dim;
    struct bd_row *rows; /* cap entries */
    struct bd_row other; /* what was evicted */
    size_t cap, count;
    struct hashtab idx;
    uint64_t seed, rng, evicted; /* seed: the keys' hash */
    struct bd_procs *procs; /* per row and procedure (the view's), or NULL */
    struct bd_procs *ops;   /* file table: per row, the NFSv4 operations that ran with the
                             * row's handle as current file handle (bd_procs_key of the
                             * program and operation; calls = results), or NULL */
    /* Called before a row is evicted (it picks the row with the fewest
     * calls: counts kept elsewhere must be in the rows first), or NULL. */
    void (*before_evict)(void *arg);
    void *evict_arg;
};

/* The JSON key / text label of a dimension: "client", "server", ... */
const char *bd_dim_name(enum bd_dim d);
/* Parse a dimension name; returns false if unknown. */
bool bd_dim_parse(const char *s, enum bd_dim *out);

int bd_table_init(struct bd_table *t, enum bd_dim dim, size_t cap, uint64_t seed);
void bd_table_fini(struct bd_table *t);

/* The row for `key` (created, evicting if full). Never NULL for len <= BD_KEY_MAX. */
struct bd_row *bd_table_row(struct bd_table *t, const uint8_t *key, size_t len);

/* The row at slot idx if it still belongs to the key it had at generation
 * gen (a caller may remember a row between a call and its reply), else NULL. */
static inline struct bd_row *
bd_table_at(struct bd_table *t, uint32_t idx, uint32_t gen)
{
    return idx < t->count && t->rows[idx].gen == gen ? &t->rows[idx] : NULL;
}

/* Per connection: the rows its last call went to. Client, server and pair
 * are the same for every call of a connection (in one direction), and the
 * user mostly is: found again without hashing while their rows live. */
struct bd_cache {
    uint32_t idx[BD__COUNT], gen[BD__COUNT];
    uint32_t uid; /* of the user row */
    uint32_t acc, acc_gen; /* the accumulator counting for the client, server, pair and
                            * user rows (bd_acc.h) while acc_gen is its generation, 0: none */
    uint32_t max_write; /* largest WRITE count seen on the connection */
    uint8_t dir;  /* call direction the address rows were found for */
    uint8_t valid;
};

enum bd_order { BD_BY_CALLS, BD_BY_LATENCY, BD_BY_BYTES };
bool bd_order_parse(const char *s, enum bd_order *out);
const char *bd_order_name(enum bd_order o);

/* Up to n rows, best first by `order` (ties: by key bytes, so output never
 * depends on hash order). Returns how many were written to out[]. */
size_t bd_table_top(const struct bd_table *t, enum bd_order order, const struct bd_row **out,
                    size_t n);

/* Add src's rows to dst's by key (created, evicting if dst fills), its
 * "other" row to dst's, and the per-procedure entries of both (the shards
 * of one run, pipeline.h: same dimension and seed). */
void bd_table_merge(struct bd_table *dst, const struct bd_table *src);

/* Sum of every row plus "other" (tests: totals add up). */
void bd_table_total(const struct bd_table *t, struct bd_row *sum);

#endif
