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
#include <stddef.h>
#include <stdint.h>

#include "bytes.h"
#include "op_kind.h"
#include "xdr_cur.h"

struct anomalies;
struct pending_call;
struct op_event;

/* What file data an operation moved (op_item.io). */
enum op_io { OPIO_NONE = 0, OPIO_READ, OPIO_WRITE, OPIO_READ_PLUS, OPIO_COPY };

/* One operation inside a message of a program that carries several per
 * call (NFSv4 COMPOUND, RFC 8881 §16.2), emitted by its dissector through
 * the op_sink it is given: from the call, once per operation asked for
 * (OPI_CALL: counted as that operation's call), and from the reply, once
 * per result (OPI_RESULT: its status, and the message's latency). A program
 * whose operations are its procedures emits nothing: the message is the
 * operation. Borrowed bytes (fh) are valid only during emit. */
enum op_phase {
    OPI_CALL,
    OPI_RESULT,
    OPI_NOT_EVALUATED, /* from the reply: an operation of the call with no result, the
                        * server having stopped at an earlier failure (RFC 8881 §16.2.3) */
};

struct op_item {
    uint32_t op;     /* index in the program's operation table (rpc_program.ops) */
    uint32_t index;  /* position in the message, from 0 */
    uint8_t kind;    /* enum op_kind: normally the table's */
    uint8_t flags;   /* OPF_* */
    uint8_t phase;   /* enum op_phase */
    bool has_status; /* OPI_RESULT: the status was decoded */
    bool repeat;     /* an earlier operation of the message has the same number: the
                      * message's latency is not counted again for it */
    uint32_t status; /* the operation's own status (nfsstat4) */
    struct bytes fh; /* the handle it acted on, when known (empty: not known) */
    /* The file data it moved (OPIO_NONE: none): OPI_CALL a WRITE's data
     * length and stable_how; OPI_RESULT (status OK) a READ's or READ_PLUS's
     * data returned (READ_PLUS holes in `holes`, not in `bytes`), a WRITE's
     * count and committed, a COPY's bytes copied. */
    uint8_t io;      /* enum op_io */
    uint8_t stable;  /* OPIO_WRITE: stable_how (call) or committed (result), 0..2 */
    bool eof;        /* OPIO_READ, OPIO_READ_PLUS: the result said eof */
    uint64_t bytes, holes;
    /* The operation as the program decoded it, in the program's own types
     * (NFSv4: struct nfs4_op_detail, nfs4.h); NULL: none. Borrowed, valid
     * only during emit. */
    const void *detail;
};

/* The last bytes of a message whose middle the RPC layer did not keep
 * (rpc_rm keeps a head and a tail of long messages: READ/WRITE data sits
 * between them). */
struct msg_tail {
    struct bytes b; /* borrowed, valid only during the call */
    uint32_t off;   /* offset of b.p[0] from the start of the decoder's cursor buffer */
};

/* What a dissector is handed besides its cursor: where its operations go,
 * the message's tail (NULL: the cursor holds all that was kept), and the
 * anomaly counters for what it counts without decoding (NULL: none). */
struct op_sink {
    void (*emit)(void *ctx, const struct op_item *op);
    void *ctx;
    const struct msg_tail *tail;
    struct anomalies *anom;
};

/* Emit op through sub (NULL: nobody listens, e.g. in a unit test). */
static inline void
op_sink_emit(const struct op_sink *sub, const struct op_item *op)
{
    if (sub && sub->emit)
        sub->emit(sub->ctx, op);
}

/* What a per-call record (--records) says about a message that carries
 * operations, from its call: the operations in call order, the message's
 * kind, and the session slot it used (NFSv4.1 SEQUENCE, RFC 8881 §18.46). */
#define MSG_DETAIL_OPS_TEXT 1600 /* NFS4_OPS_MAX names of up to 20 bytes, and "+N more" */
struct msg_detail {
    char ops[MSG_DETAIL_OPS_TEXT]; /* "sequence putfh read", space-separated */
    char kind[96];                 /* rpc_program.kind_name of the call's main operations */
    bool has_session;
    uint8_t sessionid[16];
    uint32_t slotid, sequenceid;
};

/* One operation of a program's table: for every program today the table is
 * its procedure table, indexed by procedure number. */
struct rpc_op {
    const char *name; /* lower-case RFC name; NULL: the number is not assigned (a gap) */
    uint8_t kind;     /* enum op_kind (op_kind.h) */
    uint8_t flags;    /* OPF_* (op_kind.h) */
};

/* What the shared layers do with a program (struct rpc_program.flags). */
enum {
    PGF_PRIMARY = 1u << 0,   /* the report's main program: the text report says it had
                              * no calls when no NFS version had any, its calls are a breakdown row's nfs3_calls, the
                              * view's per-row procedure table lists all its procedures */
    PGF_IO_DETAIL = 1u << 1, /* the report gives its WRITE stable_how and committed, READ
                              * and WRITE volumes and sizes */
    PGF_FINDINGS = 1u << 2,  /* the findings analyse its operations: its dissector fills
                              * attributes, access masks, listings and verifiers */
    PGF_LOCK_WAITS = 1u << 3, /* the lock-wait tracker follows it (lockwait.h) */
    PGF_ANNOUNCED = 1u << 4, /* another program's calls announce its number (that program's
                              * `announces`): it is decoded under any number learned so, and
                              * reported inside that program's object, not on its own */
    PGF_CALLBACK = 1u << 5,  /* its calls go from the server to the client (a callback
                              * program): the roles its calls are reported under, in
                              * breakdowns, records and findings, are the receiver as client
                              * and the caller as server, whatever the connection's role */
};

struct rpc_program {
    const char *name;               /* "nfs3": JSON key and report label */
    const char *title;              /* "NFS v3": report heading */
    uint32_t prog, vers;            /* 100003, 3 */
    uint32_t nprocs;                /* procedures 0..nprocs-1 */
    const struct rpc_op *procs;     /* nprocs entries: names, kinds, flags */
    /* The operations a message carries, when they are not the procedures
     * (NFSv4: the COMPOUND's operations, by operation number; gaps have a
     * NULL name). NULL (nops 0): each procedure is one operation. */
    uint32_t nops;
    const struct rpc_op *ops;
    uint32_t flags;                 /* PGF_* */
    /* Minor versions counted apart (NFSv4: 0, 1, 2), 0: none. The
     * dissector sets pending_call.minor; a message of a higher minor version
     * counts in the totals only. */
    uint32_t nminor;
    /* The name of a message's kind (op_event.main_ops), NULL: no kinds. */
    const char *(*kind_name)(uint32_t main_ops, char *buf, size_t size);
    const char *(*status_name)(uint32_t status); /* NULL if the program has no status word */
    /* The record detail of a call from its scratch (pending_call.priv, as
     * the call decoder left it); NULL: the program has none. False: no
     * detail for this procedure. */
    bool (*detail)(uint32_t proc, const uint8_t *priv, struct msg_detail *d);
    /* Is this status a failure? NULL: every status but 0. (NLM's BLOCKED is a
     * lock wait, not an error.) */
    bool (*status_error)(uint32_t status);
    /* Decode call arguments (x positioned after the RPC call header) into
     * the pending call; a program with an operation table emits each
     * operation (OPI_CALL) to sub, and may set pc->kind to the message's
     * main operation. */
    enum decode_rc (*call)(struct xdr_cur *x, struct pending_call *pc, const struct op_sink *sub);
    /* Decode reply results (x positioned after an accepted reply header)
     * into ev; a program with an operation table emits each result
     * (OPI_RESULT) to sub, and may set ev->kind to the main operation. */
    enum decode_rc (*reply)(struct xdr_cur *x, const struct pending_call *pc,
                            struct op_event *ev, const struct op_sink *sub);
    /* What a call never answered still tells its event (outcome no reply),
     * from its scratch as the call decoder left it (NFSv4 callbacks: the
     * delegation a CB_RECALL recalls). NULL: nothing. */
    void (*unanswered)(const struct pending_call *pc, struct op_event *ev);
    /* Procedures (bit n: procedure n < 64) whose replies keep a wide head
     * (rpc_rm: cfg rpc_wide_max bytes): the ones whose results the findings
     * read deep into, the directory listings. */
    uint64_t wide_replies;
    /* The program whose number this program's calls may announce, for
     * calls that come later (NFSv4: the callback program, named in
     * SETCLIENTID, CREATE_SESSION, BACKCHANNEL_CTL), and the number a call
     * announced, read from its scratch as the call decoder left it (0:
     * none); the RPC layer learns it (stats_learn_program). NULL: none. */
    const struct rpc_program *announces;
    uint32_t (*announced)(uint32_t proc, const uint8_t *priv);
};

/* Generated: NULL-terminated table of every compiled-in program. */
extern const struct rpc_program *const rpc_programs[];

/* Procedure `proc` of pg, or NULL (no program, a number past the table). */
static inline const struct rpc_op *
rpc_proc(const struct rpc_program *pg, uint32_t proc)
{
    return pg && proc < pg->nprocs ? &pg->procs[proc] : NULL;
}

/* Operation `op` of pg's operation table, or NULL (no table, past it). */
static inline const struct rpc_op *
rpc_op(const struct rpc_program *pg, uint32_t op)
{
    return pg && pg->ops && op < pg->nops ? &pg->ops[op] : NULL;
}

/* Its name, or NULL (unknown, or a gap in the table). */
static inline const char *
rpc_proc_name(const struct rpc_program *pg, uint32_t proc)
{
    const struct rpc_op *op = rpc_proc(pg, proc);

    return op ? op->name : NULL;
}

#endif
