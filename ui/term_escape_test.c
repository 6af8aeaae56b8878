/* SPDX-License-Identifier: BSD-3-Clause */
/* term_escape_test.c: unit tests for term_escape(). */
#include "term_escape.h"

#include <string.h>

#include "t.h"

static const char *
esc(const char *s, size_t n)
{
    static char buf[256];

    term_escape(buf, sizeof buf, (const uint8_t *)s, n);
    return buf;
}

#define ESC(lit) esc(lit, sizeof(lit) - 1)

int
main(void)
{
    char small[8];
    size_t r;

    STREQ(ESC(""), "");
    STREQ(ESC("report.pcap"), "report.pcap");
    STREQ(ESC("a b~"), "a b~");
    /* terminal control sequences are neutralised */
    STREQ(ESC("\x1b[2J"), "\\x1b[2J");
    STREQ(ESC("\x1b]0;pwned\x07"), "\\x1b]0;pwned\\x07");
    STREQ(ESC("a\nb\rc\td"), "a\\x0ab\\x0dc\\x09d");
    STREQ(ESC("nul\0x"), "nul\\x00x");
    STREQ(ESC("\x7f"), "\\x7f");
    /* backslash doubled so the output is unambiguous */
    STREQ(ESC("a\\x41"), "a\\\\x41");
    /* valid UTF-8 is kept */
    STREQ(ESC("caf\xc3\xa9"), "caf\xc3\xa9");
    STREQ(ESC("\xe2\x82\xac"), "\xe2\x82\xac");             /* U+20AC */
    STREQ(ESC("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");     /* U+1F600 */
    STREQ(ESC("\xc2\xa0"), "\xc2\xa0");                     /* U+00A0, first non-C1 */
    /* C1 controls (U+0080..U+009F) are shown */
    STREQ(ESC("\xc2\x9b" "2J"), "\\xc2\\x9b2J");
    STREQ(ESC("\xc2\x80"), "\\xc2\\x80");
    /* bidirectional controls (U+202A..U+202E, U+2066..U+2069) are shown */
    STREQ(ESC("a\xe2\x80\xae" "b"), "a\\xe2\\x80\\xaeb");           /* U+202E RLO */
    STREQ(ESC("\xe2\x80\xaa"), "\\xe2\\x80\\xaa");                /* U+202A LRE */
    STREQ(ESC("\xe2\x81\xa6" "x" "\xe2\x81\xa9"), "\\xe2\\x81\\xa6x\\xe2\\x81\\xa9");
    STREQ(ESC("\xe2\x80\xa9\xe2\x80\xaf"), "\xe2\x80\xa9\xe2\x80\xaf"); /* neighbours kept */
    STREQ(ESC("\xe2\x81\xa5\xe2\x81\xaa"), "\xe2\x81\xa5\xe2\x81\xaa");
    STREQ(ESC("\xe2\x80"), "\\xe2\\x80");                           /* cut: bytes */
    EQ(term_escape(NULL, 0, (const uint8_t *)"\xe2\x80\xae", 3), 12);
    /* C0 80, a NUL inside a name (names.h), shown as the NUL */
    STREQ(ESC("a\xc0\x80" "b"), "a\\x00b");
    STREQ(ESC("\xc0"), "\\xc0");
    /* invalid UTF-8: each bad byte shown */
    STREQ(ESC("\xff"), "\\xff");
    STREQ(ESC("\x80"), "\\x80");
    STREQ(ESC("\xc3"), "\\xc3");                    /* truncated sequence at end */
    STREQ(ESC("\xc3(x"), "\\xc3(x");                /* bad continuation */
    STREQ(ESC("\xc0\xaf"), "\\xc0\\xaf");           /* overlong '/' */
    STREQ(ESC("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");  /* overlong 3-byte */
    STREQ(ESC("\xed\xa0\x80"), "\\xed\\xa0\\x80");  /* surrogate D800 */
    STREQ(ESC("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80"); /* > U+10FFFF */
    STREQ(ESC("\xf5\x80"), "\\xf5\\x80");
    STREQ(ESC("\xe2\x82"), "\\xe2\\x82");           /* cut 3-byte sequence */

    /* return value = full length; output cut between whole pieces */
    r = term_escape(small, sizeof small, (const uint8_t *)"ab\x1b" "cd", 5);
    EQ(r, 8);
    STREQ(small, "ab\\x1bc"); /* 7 bytes + NUL; "d" would need a 9th */
    r = term_escape(small, sizeof small, (const uint8_t *)"abc\xe2\x82\xac" "def", 9);
    EQ(r, 9);
    STREQ(small, "abc\xe2\x82\xac" "d");
    r = term_escape(small, 4, (const uint8_t *)"abc\xe2\x82\xac", 6);
    EQ(r, 6);
    STREQ(small, "abc");
    r = term_escape(NULL, 0, (const uint8_t *)"\xff\xff", 2);
    EQ(r, 8);
    r = term_escape(small, 1, (const uint8_t *)"x", 1);
    EQ(r, 1);
    STREQ(small, "");
    r = term_escape(small, sizeof small, NULL, 0);
    EQ(r, 0);
    STREQ(small, "");

    /* utf8_len */
    EQ(term_escape_utf8_len((const uint8_t *)"A", 1), 1);
    EQ(term_escape_utf8_len((const uint8_t *)"\xc3\xa9", 2), 2);
    EQ(term_escape_utf8_len((const uint8_t *)"\xc3\xa9", 1), 0);
    EQ(term_escape_utf8_len((const uint8_t *)"\xef\xbf\xbd", 3), 3);
    EQ(term_escape_utf8_len((const uint8_t *)"\xf4\x8f\xbf\xbf", 4), 4);
    EQ(term_escape_utf8_len((const uint8_t *)"", 0), 0);
    return t_done();
}
