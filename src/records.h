/* SPDX-License-Identifier: BSD-3-Clause */
/* records.h: one row per finished call (--records FILE).
 *
 * Streamed: the file is opened once; every matched or unanswered call
 * becomes one line (CSV, RFC 4180, CRLF; or one JSON object per line),
 * formatted into a fixed buffer and written with one fwrite. Orphan replies
 * (no call in the capture) are not records: they are counted in the report's
 * rpc.orphan_replies. So the number of records is rpc.calls (every first
 * transmission ends as matched or unanswered exactly once). Wire strings
 * (paths, names) are made terminal-safe (term_escape.h) and then CSV-quoted, or
 * JSON-escaped. Columns: RECORDS_COLUMNS below; the last eight are those of
 * a message with operations (NFSv4 COMPOUND): its minor version, its
 * operations, its kind, the first operation that failed and its status,
 * the session slot of its SEQUENCE. */
#ifndef NFSSCOPE_RECORDS_H
#define NFSSCOPE_RECORDS_H

#include <stddef.h>

struct records;
struct stats;
struct op_event;
struct op_item;

enum records_format { RECORDS_CSV, RECORDS_JSONL };

#define RECORDS_COLUMNS                                                                     \
    "time,client,server,client_port,server_port,transport,xid,program,program_name,version," \
    "procedure,uid,gid,fh,path,offset,count,stable_how,status,latency_us,call_bytes,"       \
    "reply_bytes,outcome,retransmissions,call_frame,reply_frame,name,community_id,"        \
    "minor_version,ops,kind,first_error_op,first_error_status,sessionid,slotid,sequenceid"

/* "csv" or "jsonl" into *f; false if neither. */
int records_format_parse(const char *name, enum records_format *f);
/* Create/truncate path and write the CSV header. NULL with a one-line reason
 * in err (no "nfsscope:" prefix) when it cannot be opened. */
struct records *records_open(const char *path, enum records_format f, char *err, size_t errsz);
/* One record for a finished call; orphan replies are skipped; NULL r: no-op. */
void records_write(struct records *r, const struct stats *s, const struct op_event *ev);
/* One operation of the message records_write() is handed next (its result
 * or its not being evaluated, consumer.h order): the first that failed is
 * the record's first_error_op and first_error_status. NULL r: no-op. */
void records_op(struct records *r, const struct op_event *msg, const struct op_item *op);
/* Flush and close. 0, or -1 with a reason in err (a write failed). NULL: 0. */
int records_close(struct records *r, char *err, size_t errsz);

#endif
