/* SPDX-License-Identifier: BSD-3-Clause */
/* names_test.c: paths from learned names, exports, eviction, hostile chains;
 * two caches merged. */
#include "names.h"

#include <string.h>

#include "t.h"

static struct bytes
B(const char *s)
{
    struct bytes b = { (const uint8_t *)s, strlen(s) };
    return b;
}

/* names_merge: names learned by two caches (two clients of one export),
 * merged: the paths of one cache that learned them all; a handle both know
 * keeps the first cache's name; evictions add. */
static void
test_merge(void)
{
    struct names *a = names_new(16, 5), *b = names_new(16, 5);
    char buf[256];

    names_learn_export(a, B("/export"), B("ROOT"));
    names_learn(a, B("ROOT"), B("dir"), B("DIR"));
    names_learn(b, B("DIR"), B("f1"), B("F1"));
    names_learn(b, B("DIR"), B("gone"), B("GONE"));
    names_unlink(b, B("DIR"), B("gone"));
    names_learn(b, B("ROOT"), B("other"), B("DIR"));
    names_learn(a, B("F1"), B("x"), B("X")); /* a child of a handle only b names */
    names_merge(a, b);
    CHECK(names_path(a, B("X"), buf, sizeof buf));
    STREQ(buf, "/export/dir/f1/x");
    CHECK(names_path(a, B("GONE"), buf, sizeof buf)); /* still labels its object */
    STREQ(buf, "/export/dir/gone");
    names_learn(a, B("DIR"), B("gone"), B("NEW")); /* the name was unlinked in b */
    CHECK(names_path(a, B("GONE"), buf, sizeof buf));
    EQ(names_count(a), 6);
    CHECK(names_export_of(a, B("X")) == names_key(a, B("ROOT")));
    names_free(a);
    names_free(b);
}

int
main(void)
{
    struct names *n = names_new(8, 99);
    char buf[256];
    uint64_t exp;

    test_merge();
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

    /* RENAME and LINK (RFC 1813 §3.3.14, §3.3.15), REMOVE (§3.3.12). */
    n = names_new(8, 7);
    CHECK(n != NULL);
    names_learn_export(n, B("/exp"), B("R"));
    names_learn(n, B("R"), B("d"), B("D"));
    names_learn(n, B("R"), B("e"), B("E"));
    names_learn(n, B("D"), B("a"), B("A"));
    /* Across directories: the object keeps its handle, gets the new path. */
    CHECK(names_rename(n, B("D"), B("a"), B("E"), B("b")));
    names_path(n, B("A"), buf, sizeof buf);
    STREQ(buf, "/exp/e/b");
    /* The old name leads nowhere now; the new one does. */
    CHECK(!names_rename(n, B("D"), B("a"), B("D"), B("z")));
    names_path(n, B("A"), buf, sizeof buf);
    STREQ(buf, "/exp/e/b");
    CHECK(names_rename(n, B("E"), B("b"), B("D"), B("c")));
    names_path(n, B("A"), buf, sizeof buf);
    STREQ(buf, "/exp/d/c");
    /* A renamed directory takes its children along. */
    CHECK(names_rename(n, B("R"), B("d"), B("R"), B("dd")));
    names_path(n, B("A"), buf, sizeof buf);
    STREQ(buf, "/exp/dd/c");
    /* Renamed over an existing name: the replaced object keeps its last
     * label, but the name leads to the moved one. */
    names_learn(n, B("D"), B("old"), B("O"));
    names_learn(n, B("D"), B("new"), B("N"));
    CHECK(names_rename(n, B("D"), B("new"), B("D"), B("old")));
    names_path(n, B("N"), buf, sizeof buf);
    STREQ(buf, "/exp/dd/old");
    names_path(n, B("O"), buf, sizeof buf);
    STREQ(buf, "/exp/dd/old");
    CHECK(names_rename(n, B("D"), B("old"), B("D"), B("moved")));
    names_path(n, B("N"), buf, sizeof buf);
    STREQ(buf, "/exp/dd/moved");
    names_path(n, B("O"), buf, sizeof buf);
    STREQ(buf, "/exp/dd/old");
    /* A RENAME of an unknown object still retires the name it replaced. */
    names_learn(n, B("D"), B("t"), B("T"));
    CHECK(!names_rename(n, B("D"), B("unknown"), B("D"), B("t")));
    CHECK(!names_rename(n, B("D"), B("t"), B("D"), B("t2")));
    names_path(n, B("T"), buf, sizeof buf);
    STREQ(buf, "/exp/dd/t");
    /* LINK: the latest name is kept (both are valid), and found by RENAME. */
    names_learn(n, B("D"), B("hl"), B("N"));
    names_path(n, B("N"), buf, sizeof buf);
    STREQ(buf, "/exp/dd/hl");
    CHECK(names_rename(n, B("D"), B("hl"), B("D"), B("hl2")));
    names_path(n, B("N"), buf, sizeof buf);
    STREQ(buf, "/exp/dd/hl2");
    /* REMOVE: the label stays, the name no longer leads to the object. */
    names_unlink(n, B("D"), B("hl2"));
    names_path(n, B("N"), buf, sizeof buf);
    STREQ(buf, "/exp/dd/hl2");
    CHECK(!names_rename(n, B("D"), B("hl2"), B("D"), B("x")));
    /* A new object under a known name takes the name over. */
    names_learn(n, B("D"), B("reborn"), B("N"));
    names_learn(n, B("D"), B("reborn"), B("N2"));
    CHECK(names_rename(n, B("D"), B("reborn"), B("D"), B("r2")));
    names_path(n, B("N2"), buf, sizeof buf);
    STREQ(buf, "/exp/dd/r2");
    names_path(n, B("N"), buf, sizeof buf);
    STREQ(buf, "/exp/dd/reborn");
    /* Hostile: a directory renamed into itself is refused; empty parts and
     * export roots (not found by name) teach nothing. */
    CHECK(!names_rename(n, B("R"), B("dd"), B("D"), B("loop")));
    names_path(n, B("A"), buf, sizeof buf);
    STREQ(buf, "/exp/dd/c");
    CHECK(!names_rename(n, B("R"), B(""), B("D"), B("x")));
    CHECK(!names_rename(n, B("R"), B("/exp"), B("D"), B("x")));
    names_free(n);

    /* Bounded: both indexes stay consistent through eviction and renames. */
    n = names_new(4, 5);
    CHECK(n != NULL);
    {
        char h[8], nm[8], nm2[8];
        int i;
        for (i = 0; i < 200; i++) {
            snprintf(h, sizeof h, "H%d", i % 9);
            snprintf(nm, sizeof nm, "n%d", i % 7);
            names_learn(n, B("P"), B(nm), B(h));
            snprintf(nm2, sizeof nm2, "m%d", i % 5);
            names_rename(n, B("P"), B(nm), B("P"), B(nm2));
            names_unlink(n, B("P"), B(nm2));
            CHECK(names_count(n) <= 4);
        }
        /* The last object learned, then renamed: found and named. */
        names_learn(n, B("P"), B("last"), B("HL"));
        CHECK(names_rename(n, B("P"), B("last"), B("P"), B("final")));
        names_path(n, B("HL"), buf, sizeof buf);
        STREQ(buf, ".../final");
        CHECK(names_evicted(n) > 0);
    }
    names_free(n);

    /* A NUL inside a name: the path goes on after it, the NUL as C0 80. */
    {
        static const uint8_t nul[] = { 'a', 0, 'b' };
        struct bytes nb = { nul, sizeof nul };
        char p[64];

        n = names_new(8, 5);
        names_learn_export(n, B("/e"), B("R"));
        names_learn(n, B("R"), nb, B("F"));
        CHECK(names_path(n, B("F"), p, sizeof p));
        STREQ(p, "/e/a\xc0\x80" "b");
        /* cut before the pair rather than inside it */
        names_path(n, B("F"), p, 6);
        STREQ(p, "/e/a");
        /* the same name (NUL and all) still leads to the same object */
        names_unlink(n, B("R"), nb);
        names_learn(n, B("R"), B("a"), B("G"));
        names_path(n, B("G"), p, sizeof p);
        STREQ(p, "/e/a");
        names_free(n);
    }
    /* A name longer than 255 bytes: named by its first 255, not the handle,
     * and found again by the same cut (RENAME, REMOVE). */
    {
        char longname[400], p[1024];

        memset(longname, 'x', sizeof longname - 1);
        longname[sizeof longname - 1] = '\0';
        n = names_new(8, 5);
        names_learn_export(n, B("/e"), B("R"));
        names_learn(n, B("R"), B(longname), B("F"));
        CHECK(names_path(n, B("F"), p, sizeof p));
        EQ(strlen(p), 3 + 255);
        CHECK(strncmp(p, "/e/xxx", 6) == 0);
        CHECK(names_rename(n, B("R"), B(longname), B("R"), B("short")));
        names_path(n, B("F"), p, sizeof p);
        STREQ(p, "/e/short");
        names_free(n);
    }
    /* Names of 37 bytes sit in the entry, of 38 and more beside it: both
     * label, are found by (parent, name), and a slot given from one length
     * to the other (RENAME, eviction in a table of two) keeps only the new.
     * The parent is unknown: paths start with "...". */
    {
        char n37[38], n38[39], p[1024];

        memset(n37, 'a', 37);
        n37[37] = '\0';
        memset(n38, 'b', 38);
        n38[38] = '\0';
        n = names_new(2, 6);
        names_learn(n, B("R"), B(n37), B("S"));
        names_learn(n, B("R"), B(n38), B("L"));
        names_path(n, B("S"), p, sizeof p);
        CHECK(strlen(p) == 4 + 37 && strncmp(p, ".../aa", 6) == 0 && p[40] == 'a');
        names_path(n, B("L"), p, sizeof p);
        CHECK(strlen(p) == 4 + 38 && strncmp(p, ".../bb", 6) == 0 && p[41] == 'b');
        /* RENAME finds each by its name, long to short and short to long. */
        CHECK(names_rename(n, B("R"), B(n38), B("R"), B("s")));
        CHECK(names_rename(n, B("R"), B(n37), B("R"), B(n38)));
        names_path(n, B("L"), p, sizeof p);
        STREQ(p, ".../s");
        names_path(n, B("S"), p, sizeof p);
        CHECK(strlen(p) == 4 + 38 && p[41] == 'b');
        CHECK(!names_rename(n, B("R"), B(n37), B("R"), B("x"))); /* that name is gone */
        /* L, the least recent, is evicted: its slot (long, then short) takes n37. */
        names_learn(n, B("R"), B(n37), B("M"));
        CHECK(!names_path(n, B("L"), p, sizeof p));
        names_path(n, B("M"), p, sizeof p);
        CHECK(strlen(p) == 4 + 37 && p[40] == 'a');
        /* Then S: its slot (short, then long) takes a long name again. */
        names_learn(n, B("R"), B(n38), B("N"));
        CHECK(!names_path(n, B("S"), p, sizeof p));
        names_path(n, B("N"), p, sizeof p);
        CHECK(strlen(p) == 4 + 38 && p[41] == 'b');
        names_unlink(n, B("R"), B(n38));
        CHECK(!names_rename(n, B("R"), B(n38), B("R"), B("y"))); /* unlinked */
        names_path(n, B("N"), p, sizeof p); /* the label stays */
        CHECK(strlen(p) == 4 + 38);
        CHECK(names_rename(n, B("R"), B(n37), B("R"), B("z")));
        names_path(n, B("M"), p, sizeof p);
        STREQ(p, ".../z");
        names_free(n);
    }
    /* The export remembered per handle (names_export_of_memo) follows every
     * change that moves a chain: a root arriving, a parent learned where
     * there was none, a move to another parent or export, an entry leaving. */
    {
        struct names_export_memo mf, md;
        uint64_t e1, e2;

        memset(&mf, 0, sizeof mf);
        memset(&md, 0, sizeof md);
        n = names_new(4, 11);
        e1 = names_key(n, B("R1"));
        e2 = names_key(n, B("R2"));
        names_learn(n, B("D"), B("f"), B("F"));
        EQ(names_export_of_memo(n, B("F"), &mf), 0); /* D's parent unknown */
        names_learn_export(n, B("/one"), B("R1"));
        EQ(names_export_of_memo(n, B("F"), &mf), 0); /* still: D has no parent */
        names_learn(n, B("R1"), B("d"), B("D")); /* D, an entry, gets its parent */
        EQ(names_export_of_memo(n, B("F"), &mf), e1);
        EQ(names_export_of_memo(n, B("D"), &md), e1);
        names_learn_export(n, B("/two"), B("R2"));
        EQ(names_export_of_memo(n, B("F"), &mf), e1);
        CHECK(names_rename(n, B("R1"), B("d"), B("R2"), B("d"))); /* D moves */
        EQ(names_export_of_memo(n, B("F"), &mf), e2);
        EQ(names_export_of_memo(n, B("D"), &md), e2);
        names_learn(n, B("R1"), B("f2"), B("F")); /* F moves by LOOKUP */
        EQ(names_export_of_memo(n, B("F"), &mf), e1);
        names_learn_export(n, B("/d"), B("D")); /* D becomes a root */
        EQ(names_export_of_memo(n, B("D"), &md), names_key(n, B("D")));
        /* Four entries: R2, the least recent, leaves; D is under it. */
        names_learn_export(n, B("/d"), B("R1")); /* R1 most recent again */
        names_learn(n, B("R1"), B("g"), B("G"));
        names_learn(n, B("D"), B("h"), B("H"));
        CHECK(names_evicted(n) >= 1);
        EQ(names_export_of_memo(n, B("D"), &md), names_export_of(n, B("D")));
        EQ(names_export_of_memo(n, B("F"), &mf), names_export_of(n, B("F")));
        names_free(n);
    }
    /* A merge that makes an entry an export root (the other cache saw it
     * mounted) moves the export of what lies under it. */
    {
        struct names *src = names_new(8, 11);
        struct names_export_memo mf;

        memset(&mf, 0, sizeof mf);
        n = names_new(8, 11); /* the same seed: the same keys, as shards have */
        names_learn_export(n, B("/one"), B("R1"));
        names_learn(n, B("R1"), B("d"), B("D"));
        names_learn(n, B("D"), B("f"), B("F"));
        EQ(names_export_of_memo(n, B("F"), &mf), names_key(n, B("R1")));
        names_learn_export(src, B("/one/d"), B("D"));
        names_merge(n, src);
        EQ(names_export_of(n, B("F")), names_key(n, B("D")));
        EQ(names_export_of_memo(n, B("F"), &mf), names_key(n, B("D")));
        names_free(src);
        names_free(n);
    }
    /* Any sequence of changes: the memo's answer is names_export_of's. */
    {
        static const char *const h[] = { "A", "B", "C", "D", "E", "F", "G" };
        struct names_export_memo m[7];
        uint64_t rng = 88172645463325252ULL;
        unsigned i, k;

        memset(m, 0, sizeof m);
        n = names_new(5, 12);
        for (i = 0; i < 4000; i++) {
            unsigned a, b, op;

            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            a = (unsigned)(rng % 7);
            b = (unsigned)(rng >> 8) % 7;
            op = (unsigned)(rng >> 16) % 8;
            if (op == 0)
                names_learn_export(n, B("/x"), B(h[a]));
            else if (op == 1)
                names_rename(n, B(h[a]), B(h[b]), B(h[b]), B(h[a]));
            else if (op == 2)
                names_unlink(n, B(h[a]), B(h[b]));
            else
                names_learn(n, B(h[a]), B(h[b]), B(h[b]));
            for (k = 0; k < 7; k++)
                if (names_export_of_memo(n, B(h[k]), &m[k]) != names_export_of(n, B(h[k])))
                    break;
            if (k < 7)
                break;
        }
        EQ(i, 4000);
        CHECK(names_evicted(n) > 0);
        names_free(n);
    }
    return t_done();
}
