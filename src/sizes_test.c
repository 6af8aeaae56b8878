/* SPDX-License-Identifier: BSD-3-Clause */
/* sizes_test.c: the size of every structure kept or copied per call, so
 * that growth is deliberate: a bound below fails, and its message says
 * what moved. The event (struct op_event) is built once per finished call
 * and copied into the findings ring, a pending call is kept per call in
 * flight (--max-pending of them), an answered call per answered UDP call,
 * a directory entry's descriptor per listed entry, record marking's state
 * per direction of a connection. */
#include <stdio.h>

#include "findings_worker.h"
#include "rpc_rm.h"
#include "stats.h"
#include "t.h"
#include "xid_table.h"

#define SHOW(what, n) printf("%-44s %6zu bytes\n", what, (size_t)(n))

int
main(void)
{
    struct op_event ev;
    size_t rec;

    SHOW("struct op_event", sizeof(struct op_event));
    SHOW("struct op_dirent", sizeof(struct op_dirent));
    SHOW("struct pending_call", sizeof(struct pending_call));
    SHOW("struct answered_call", sizeof(struct answered_call));
    SHOW("struct rpc_rm (per direction of a connection)", sizeof(struct rpc_rm));
    memset(&ev, 0, sizeof ev);
    rec = findings_worker_record_bytes(&ev);
    SHOW("findings ring record, no borrowed bytes", rec);
    SHOW("listing buffer (OP_DIRENT_MAX descriptors)", OP_DIRENT_MAX * sizeof(struct op_dirent));

    /* A listing's entry descriptors sit in the matcher's buffer; the event
     * points to them, so it stays a few hundred bytes. */
    CHECK(sizeof(struct op_event) <= 512);
    CHECK(sizeof(struct op_dirent) <= 64);
    /* 65,536 pending calls by default: 49 MB at 752 bytes each, a file
     * handle of NFS4_FHSIZE (128) bytes, the call's frame number (8, for
     * --records' call_frame) and the NFSv4 call digest (184: its SEQUENCE's
     * session, slot and sequence id for --records and the state, and the
     * argument a state result does not repeat; its PUTFH handles other than
     * the call's own sit in the name's room) included. */
    CHECK(sizeof(struct pending_call) <= 752);
    CHECK(sizeof(struct answered_call) <= 56);
    /* Record marking's state, twice per connection: a message's head and
     * tail sit in the shared head pool, only their lengths here. */
    CHECK(sizeof(struct rpc_rm) <= 48);
    /* The ring holds about FW_RING_BYTES / this many events at least; each
     * of its cache lines crosses from the decoding core to the findings'
     * (the record holds what the findings read, not the whole event). */
    CHECK(rec <= 192);
    /* An entry adds its descriptor, name and handle to the record, nothing else. */
    {
        struct op_dirent d[2];
        static const uint8_t name[] = "file-name", fh[] = "a-64-byte-handle";

        memset(d, 0, sizeof d);
        d[0].name.p = d[1].name.p = name;
        d[0].name.len = d[1].name.len = 9;
        d[0].fh.p = d[1].fh.p = fh;
        d[0].fh.len = d[1].fh.len = 16;
        ev.dirent = d;
        ev.dirent_cap = 2;
        ev.ndirent = 2;
        CHECK(findings_worker_record_bytes(&ev) <= rec + 2 * (24 + 9 + 16));
    }
    return t_done();
}
