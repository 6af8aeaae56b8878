/* SPDX-License-Identifier: BSD-3-Clause */
/* consumer.h: who is handed each finished RPC message, and in which order.
 *
 * The call/reply matcher (rpc_match.c) turns every finished call (matched,
 * refused, unanswered) and every orphan reply into one op_event and hands it
 * to a list of consumers that the pipeline builds once at start-up
 * (pipeline.c: the findings, the view's findings, --records, the NLM lock
 * waits, the counters, the NFSv4 state, the breakdowns). Each consumer sees
 * each event once, in list order; none of them calls another, so the
 * modules that consume know nothing of each other and nothing below the
 * pipeline calls one above it. The event and what it borrows are valid only during the call.
 *
 * A message of a program with an operation table (NFSv4 COMPOUND) also
 * hands each operation's result to the consumers that take operations,
 * with the message's event (its outcome, times and who), before the
 * message itself: op 0 .. op N-1, then the message. Each operation of the
 * call (phase OPI_CALL) is handed to them too, as the call is seen, with an
 * event of the call alone (its times, who; outcome OP_NO_REPLY, nothing of
 * a reply): what follows a call while it is pending (an NFSv4.1 session's
 * slots in flight) is known only then. A consumer may take some phases only
 * (consumers_op_phases): the pipeline's counters and records take no call
 * operations. */
#ifndef NFSSCOPE_CONSUMER_H
#define NFSSCOPE_CONSUMER_H

#include <stdbool.h>

struct op_event;
struct op_item;

typedef void consumer_fn(void *self, const struct op_event *ev);
typedef void consumer_op_fn(void *self, const struct op_event *msg, const struct op_item *op);

struct consumer {
    const char *name; /* "stats", "records", ...: for tests and messages */
    consumer_fn *fn;
    consumer_op_fn *op; /* NULL: the consumer takes whole messages only */
    void *self;
};

#define CONSUMERS_MAX 12 /* the pipeline's list has 7; room for the next programs' state */

#define CONSUMER_PHASES 3 /* enum op_phase: OPI_CALL, OPI_RESULT, OPI_NOT_EVALUATED */

struct consumers {
    unsigned n;
    struct consumer c[CONSUMERS_MAX];
    /* Per phase, the consumers that take its operations, in list order. */
    unsigned nop[CONSUMER_PHASES];
    unsigned char op_ix[CONSUMER_PHASES][CONSUMERS_MAX];
};

/* Empty the list. */
void consumers_init(struct consumers *l);
/* Append a consumer (op may be NULL); false (and nothing added) when the
 * list is full or fn is NULL. */
bool consumers_add(struct consumers *l, const char *name, consumer_fn *fn, consumer_op_fn *op,
                   void *self);
/* The consumer added last takes the operations of the phases in `phases`
 * only (bit 1u << enum op_phase); by default it takes every phase. */
void consumers_op_phases(struct consumers *l, unsigned phases);
/* Hand ev to every consumer, in the order they were added. */
void consumers_emit(const struct consumers *l, const struct op_event *ev);
/* Hand one operation of the message msg to every consumer that takes its phase. */
void consumers_emit_op(const struct consumers *l, const struct op_event *msg,
                       const struct op_item *op);

#endif
