/* names_test.c: paths from learned names, exports, eviction, hostile chains. */
#include "names.h"

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
    struct names *n = names_new(8, 99);
    char buf[256];
    uint64_t exp;

    CHECK(n != NULL);
    /* Nothing known: the handle in hex. */
    CHECK(!names_path(n, B("\x01\x02"), buf, sizeof buf));
    STREQ(buf, "0102");
    /* A chain without its export: a partial path. */
    names_learn(n, B("ROOT"), B("dir"), B("DIR1"));
    names_learn(n, B("DIR1"), B("file.txt"), B("FILE1"));
    CHECK(names_path(n, B("FILE1"), buf, sizeof buf));
    STREQ(buf, ".../dir/file.txt");
    EQ(names_export_of(n, B("FILE1")), 0);
    /* The export root arrives (MOUNT): full paths. */
    names_learn_export(n, B("/export/home"), B("ROOT"));
    names_path(n, B("FILE1"), buf, sizeof buf);
    STREQ(buf, "/export/home/dir/file.txt");
    exp = names_export_of(n, B("FILE1"));
    EQ(exp, names_key(n, B("ROOT")));
    CHECK(names_export_path(n, exp, buf, sizeof buf));
    STREQ(buf, "/export/home");
    /* "." and ".." teach nothing; a LOOKUP of a root does not rename it. */
    names_learn(n, B("DIR1"), B(".."), B("ROOT"));
    names_path(n, B("ROOT"), buf, sizeof buf);
    STREQ(buf, "/export/home");
    /* A rename of the file (same handle, new name) wins. */
    names_learn(n, B("DIR1"), B("new.txt"), B("FILE1"));
    names_path(n, B("FILE1"), buf, sizeof buf);
    STREQ(buf, "/export/home/dir/new.txt");
    /* Hostile: a parent cycle ends (bounded walk), never loops. */
    names_learn(n, B("X"), B("a"), B("Y"));
    names_learn(n, B("Y"), B("b"), B("X"));
    names_path(n, B("Y"), buf, sizeof buf);
    CHECK(strlen(buf) > 0 && strlen(buf) < sizeof buf);
    /* Cut to the buffer. */
    names_path(n, B("FILE1"), buf, 10);
    EQ(strlen(buf), 9);
    /* Bounded: 8 entries; older ones are evicted and counted. */
    {
        char h[8], nm[8];
        int i;
        for (i = 0; i < 20; i++) {
            snprintf(h, sizeof h, "H%d", i);
            snprintf(nm, sizeof nm, "n%d", i);
            names_learn(n, B("ROOT"), B(nm), B(h));
        }
        EQ(names_count(n), 8);
        CHECK(names_evicted(n) >= 12);
        names_path(n, B("H19"), buf, sizeof buf);
        CHECK(strstr(buf, "n19") != NULL);
    }
    names_free(n);
    names_free(NULL);
    return t_done();
}
