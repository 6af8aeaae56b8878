/* SPDX-License-Identifier: BSD-3-Clause */
/* dissector.h: the contract between the RPC layer and one program's decoder.
 *
 * Adding a protocol is adding one file: dissectors/NAME.c defines
 * `const struct rpc_program NAME_program` and nothing else with external
 * linkage; CMake lists it in the generated registry. Dissectors are pure:
 * they decode from an xdr_cur into the pending call's scratch (call) or into
 * the op_event (reply), keep no state and never allocate. */
#ifndef NFSSCOPE_DISSECTOR_H
#define NFSSCOPE_DISSECTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "bytes.h"
#include "xdr_cur.h"

struct pending_call;
struct op_event;

struct op_sink { /* per-operation events inside one RPC (NFSv4 COMPOUND); v3 ignores it */
    void (*emit)(void *ctx, const struct op_event *ev);
    void *ctx;
};

struct rpc_program {
    const char *name;               /* "nfs3": JSON key and report label */
    const char *title;              /* "NFS v3": report heading */
    uint32_t prog, vers;            /* 100003, 3 */
    uint32_t nprocs;                /* procedures 0..nprocs-1 */
    const char *const *proc_names;  /* lower-case RFC names, nprocs entries */
    const char *(*status_name)(uint32_t status); /* NULL if the program has no status word */
    /* Is this status a failure? NULL: every status but 0. (NLM's BLOCKED is a
     * lock wait, not an error.) */
    bool (*status_error)(uint32_t status);
    /* Decode call arguments (x positioned after the RPC call header). */
    enum decode_rc (*call)(struct xdr_cur *x, struct pending_call *pc);
    /* Decode reply results (x positioned after an accepted reply header). */
    enum decode_rc (*reply)(struct xdr_cur *x, const struct pending_call *pc,
                            struct op_event *ev, const struct op_sink *sub);
    /* Procedures (bit n: procedure n < 64) whose replies keep a wide head
     * (rpc_rm: cfg rpc_wide_max bytes): the ones whose results the findings
     * read deep into, the directory listings. */
    uint64_t wide_replies;
};

/* Generated: NULL-terminated table of every compiled-in program. */
extern const struct rpc_program *const rpc_programs[];

#endif
