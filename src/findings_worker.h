/* SPDX-License-Identifier: BSD-3-Clause */
/* findings_worker.h: the findings engine on a second thread.
 *
 * The findings cost about as much per call as everything before them
 * (bench/README.md), and they read nothing but the operation. So a report
 * from a file can hand each operation to a thread of its own: what the
 * findings read of the event is copied, with the bytes it borrows (handles,
 * names, directory entries, never READ/WRITE data), into a fixed ring
 * (spsc.h), and that thread calls findings_record() in the same order. The results are the same as on one
 * thread; memory is the ring, allocated once. Whoever reads them before the
 * end first waits for the thread to catch up (findings_worker_sync). */
#ifndef NFSSCOPE_FINDINGS_WORKER_H
#define NFSSCOPE_FINDINGS_WORKER_H

#include <stddef.h>
#include <stdint.h>

struct findings;
struct op_event;

#define FW_RING_BYTES (512u << 10) /* over 2,000 calls between the threads; in L2 */

struct findings_worker;

/* Start the thread that records into f; NULL if it cannot be started (out
 * of memory, no thread): the caller then calls findings_record() itself.
 * Until findings_worker_finish, only the worker touches f. */
struct findings_worker *findings_worker_start(struct findings *f, size_t ring_bytes);
/* Queue ev (a no-op unless findings_wants(ev)). ev and what it borrows need
 * not outlive the call. An event too large for the ring (it cannot happen
 * with FW_RING_BYTES and the dissector's bounds) waits for the ring to empty
 * and is recorded on the calling thread. */
void findings_worker_post(struct findings_worker *w, const struct op_event *ev);
/* Wait until the thread has recorded everything queued (NULL: a no-op): the
 * caller may then read the findings until it queues the next event (a
 * periodic report, a scrape, a draw of the view). */
void findings_worker_sync(struct findings_worker *w);
/* Record everything queued, stop the thread, free w (NULL: a no-op). The
 * findings are then the caller's again. */
void findings_worker_finish(struct findings_worker *w);
/* Events taken so far (posted and accepted by findings_wants), and of
 * those the ones recorded on the calling thread (too large for the ring). */
uint64_t findings_worker_posted(const struct findings_worker *w);
uint64_t findings_worker_inline(const struct findings_worker *w);
/* Bytes of the ring one event takes (its record: the fields the findings
 * read, the flow key, the NFSv4 part unless NFSv3, its handles, names and
 * kept directory entries). */
size_t findings_worker_record_bytes(const struct op_event *ev);

#endif
