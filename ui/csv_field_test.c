/* SPDX-License-Identifier: BSD-3-Clause */
/* csv_field_test: RFC 4180 quoting and formula neutralising. */
#include "csv_field.h"

#include "t.h"

static const char *
f(const char *s, bool wire)
{
    static char buf[256];

    csv_field(buf, sizeof buf, s, wire);
    return buf;
}

int
main(void)
{
    char small[8];

    STREQ(f("plain", false), "plain");
    STREQ(f("", true), "");
    STREQ(f("a,b", false), "\"a,b\"");
    STREQ(f("say \"hi\"", false), "\"say \"\"hi\"\"\"");
    STREQ(f("two\r\nlines", false), "\"two\r\nlines\"");
    STREQ(f(" lead", false), "\" lead\"");
    STREQ(f("trail ", false), "\"trail \"");
    /* Strings from the wire that a spreadsheet would evaluate. */
    STREQ(f("=HYPERLINK(\"x\")", true), "\"'=HYPERLINK(\"\"x\"\")\"");
    STREQ(f("+1", true), "'+1");
    STREQ(f("-2+3", true), "'-2+3");
    STREQ(f("@SUM(A1)", true), "'@SUM(A1)");
    STREQ(f("\tx", true), "'\tx");
    STREQ(f("\rx", true), "\"'\rx\"");
    STREQ(f("/export/=x", true), "/export/=x"); /* only the first byte matters */
    /* Fixed strings (procedure names, numbers) are never changed. */
    STREQ(f("-1", false), "-1");
    /* Cut to fit, quoting still closed. */
    EQ(csv_field(small, sizeof small, "abcdefghij", false), 7);
    STREQ(small, "abcdefg");
    EQ(csv_field(small, sizeof small, "a,bcdefgh", false), 7);
    STREQ(small, "\"a,bcd\"");
    EQ(csv_field(small, sizeof small, "\"\"\"\"", false), 6);
    STREQ(small, "\"\"\"\"\"\"");
    EQ(csv_field(small, 2, "abc", false), 0);
    STREQ(small, "");
    return t_done();
}
