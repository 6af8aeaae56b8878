/* SPDX-License-Identifier: BSD-3-Clause */
/* lockwait.h: NLM lock waits.
 *
 * A blocking LOCK (block = TRUE) answered NLM4_BLOCKED is queued by the
 * server, which calls the client back with GRANTED or GRANTED_MSG (Open
 * Group XNFS 3W, chapter 14: nlm4_lockargs, nlm4_testargs) for the same lock
 * when it is free, on another connection and in the other direction. The wait
 * is the time from the LOCK call to the GRANTED call. Locks are matched by
 * (client address, a digest of the lock: fh, oh, svid, l_offset, l_len);
 * caller_name is left out (in GRANTED it names the server).
 *
 * A bounded table of the blocked locks still waiting, allocated once; when
 * full the oldest is dropped (counted in `evicted`). A client that sends the
 * blocking LOCK again while waiting (Linux lockd polls) keeps its first time;
 * a LOCK of a waiting lock answered NLM4_GRANTED ends the wait too. A CANCEL
 * ends it as cancelled. Waits still open at the end of the capture are
 * `pending`. Blocking LOCK_MSG calls are not followed: their result
 * (LOCK_RES) carries only the cookie. The lock of a call reaches the event
 * through its reply's decoder, so a GRANTED_MSG whose (void) reply is never
 * seen ends no wait (the wait stays pending). */
#ifndef NFSSCOPE_LOCKWAIT_H
#define NFSSCOPE_LOCKWAIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "histo.h"

struct lockwait_stats {
    uint64_t blocked;   /* distinct blocked locks (a repeated LOCK counts once) */
    uint64_t granted;   /* waits ended by GRANTED (or a LOCK answered NLM4_GRANTED) */
    uint64_t cancelled; /* waits ended by CANCEL */
    uint64_t evicted;   /* waits dropped because the table was full */
    uint64_t unmatched_grants; /* GRANTED callbacks for no wait seen (blocked before the capture) */
    struct histo wait;  /* granted waits, microseconds */
};

struct lockwait;

/* NULL on allocation failure or cap 0. */
struct lockwait *lockwait_new(size_t cap, uint64_t seed);
void lockwait_free(struct lockwait *w); /* NULL is a no-op */

/* `client` is the client's address bytes (any fixed form); `lock` the
 * dissector's digest of the lock. */
void lockwait_blocked(struct lockwait *w, const void *client, size_t client_len, uint64_t lock,
                      const struct timespec *t);
/* The lock was granted at t: a callback (GRANTED, GRANTED_MSG) counts as
 * unmatched when no wait is open; a LOCK reply does not. True if a wait ended. */
bool lockwait_granted(struct lockwait *w, const void *client, size_t client_len, uint64_t lock,
                      const struct timespec *t, bool callback);
/* The client cancelled the lock: true if a wait ended. */
bool lockwait_cancelled(struct lockwait *w, const void *client, size_t client_len, uint64_t lock);

/* One finished NLM v4 operation (a pipeline consumer): a blocking LOCK answered
 * NLM4_BLOCKED opens a wait for its client (the caller); GRANTED and
 * GRANTED_MSG calls (any outcome: the server has granted) end it for their
 * client (the callee); CANCEL and CANCEL_MSG end it as cancelled. A no-op
 * for other programs, for events with no lock decoded, and when w is NULL. */
struct op_event;
void lockwait_record(struct lockwait *w, const struct op_event *ev);

size_t lockwait_pending(const struct lockwait *w);
/* Add src's counts and its open waits to dst's (the shards of one run,
 * pipeline.h: a client's waits and the server's grants travel between the
 * same two addresses, so each wait is in one shard). */
void lockwait_merge(struct lockwait *dst, const struct lockwait *src);
const struct lockwait_stats *lockwait_stats(const struct lockwait *w);

#endif
