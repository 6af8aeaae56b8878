/* SPDX-License-Identifier: BSD-3-Clause */
/* nlm3_test.c: unit tests for the NLM v3 dissector (XNFS chapters 10-11). */
#include "dissector_test.h"

enum { P_NULL = 0, P_LOCK = 2, P_UNLOCK_MSG = 9, P_UNLOCK_RES = 14, P_SHARE = 20 };

static const struct rpc_program *pg;

/* nlm_unlockargs (v1/v3: 32-bit offsets) */
static const uint8_t unlock_args[] = {
    0x00, 0x00, 0x00, 0x02,                         /* cookie length 2 */
    0xab, 0xcd, 0x00, 0x00,                         /* cookie data + 2 pad bytes */
    0x00, 0x00, 0x00, 0x03,                         /* alock.caller_name length 3 */
    0x63, 0x6c, 0x31, 0x00,                         /* "cl1" + 1 pad byte */
    0x00, 0x00, 0x00, 0x20,                         /* alock.fh length 32 */
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* fh data */
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
    0x00, 0x00, 0x00, 0x00,                         /* alock.oh length 0 */
    0x00, 0x00, 0x00, 0x07,                         /* alock.svid 7 */
    0x00, 0x00, 0x00, 0x00,                         /* alock.l_offset 0 */
    0x00, 0x00, 0x00, 0x00,                         /* alock.l_len 0 */
};

/* nlm_res: LCK_DENIED */
static const uint8_t res_denied[] = {
    0x00, 0x00, 0x00, 0x02, /* cookie length 2 */
    0xab, 0xcd, 0x00, 0x00, /* cookie data + 2 pad bytes */
    0x00, 0x00, 0x00, 0x01, /* stat LCK_DENIED */
};

static void
test_registry(void)
{
    pg = dt_program("nlm3", 100021, 3, 24);
    if (!pg)
        return;
    STREQ(pg->title, "NLM v3");
    STREQ(pg->procs[P_LOCK].name, "lock");
    STREQ(pg->procs[P_UNLOCK_RES].name, "unlock_res");
    CHECK(pg->procs[16].name == NULL && pg->procs[19].name == NULL);
    STREQ(pg->procs[P_SHARE].name, "share");
    STREQ(pg->procs[23].name, "free_all");
    STREQ(pg->status_name(0), "LCK_GRANTED");
    STREQ(pg->status_name(1), "LCK_DENIED");
    STREQ(pg->status_name(2), "LCK_DENIED_NOLOCKS");
    STREQ(pg->status_name(3), "LCK_BLOCKED");
    STREQ(pg->status_name(4), "LCK_DENIED_GRACE_PERIOD");
    STREQ(pg->status_name(5), "LCK_DEADLCK");
    CHECK(pg->status_name(6) == NULL);
}

static void
test_ops(void)
{
    struct pending_call pc;
    struct op_event ev;

    dt_pc(&pc, pg, P_UNLOCK_MSG);
    EQ(dt_call(pg, unlock_args, sizeof unlock_args, &pc), DECODE_OK);
    EQ(dt_call_cuts(pg, P_UNLOCK_MSG, unlock_args, 0, 8), 0);
    dt_ev(&ev);
    EQ(dt_reply(pg, unlock_args, 0, &pc, &ev), DECODE_OK); /* void */
    CHECK(!ev.has_status);

    dt_pc(&pc, pg, P_UNLOCK_RES);
    EQ(dt_call(pg, res_denied, sizeof res_denied, &pc), DECODE_OK);
    dt_ev(&ev);
    EQ(dt_reply(pg, res_denied, 0, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 1);

    dt_pc(&pc, pg, P_LOCK);
    dt_ev(&ev);
    EQ(dt_reply(pg, res_denied, sizeof res_denied, &pc, &ev), DECODE_OK);
    CHECK(ev.has_status);
    EQ(ev.status, 1);
    EQ(dt_reply_cuts(pg, &pc, res_denied, 0, sizeof res_denied, sizeof res_denied, 0), 0);
}

int
main(void)
{
    test_registry();
    if (!pg)
        return t_done();
    test_ops();
    return t_done();
}
