/* stats_test.c: what a finished operation teaches the names cache. */
#include "stats.h"

#include <string.h>

#include "t.h"

static struct bytes
B(const char *s)
{
    struct bytes b = { (const uint8_t *)s, strlen(s) };
    return b;
}

int
main(void)
{
    struct stats s;
    struct op_event ev;
    struct flow_key key;
    char path[256];

    EQ(stats_init(&s), 0);
    EQ(stats_breakdowns_init(&s, 16, 64, 7), 0);
    memset(&key, 0, sizeof key);
    key.af = FLOW_AF_INET;
    key.proto = FLOW_PROTO_TCP;

    /* MNT: the export's root. */
    memset(&ev, 0, sizeof ev);
    ev.outcome = OP_REPLIED;
    ev.key = &key;
    ev.uid = ev.gid = UINT32_MAX;
    ev.stable = ev.committed = STABLE_NONE;
    ev.name = B("/export");
    ev.obj_fh = B("ROOTFH");
    ev.obj_is_export = true;
    stats_record(&s, &ev);

    /* READDIRPLUS of the root: entries with handles are learned. */
    memset(&ev, 0, sizeof ev);
    ev.outcome = OP_REPLIED;
    ev.key = &key;
    ev.uid = ev.gid = UINT32_MAX;
    ev.stable = ev.committed = STABLE_NONE;
    ev.fh = B("ROOTFH");
    ev.ndirent = 2;
    ev.dirent[0].name = B("a.txt");
    ev.dirent[0].fh = B("FH-A");
    ev.dirent[1].name = B("b.txt"); /* READDIR: no handle, nothing learned */
    stats_record(&s, &ev);

    CHECK(names_path(s.names, B("FH-A"), path, sizeof path));
    STREQ(path, "/export/a.txt");
    EQ(names_count(s.names), 2);

    /* An unanswered call teaches nothing. */
    ev.outcome = OP_NO_REPLY;
    ev.dirent[0].fh = B("FH-C");
    stats_record(&s, &ev);
    CHECK(!names_path(s.names, B("FH-C"), path, sizeof path));
    stats_fini(&s);
    return t_done();
}
