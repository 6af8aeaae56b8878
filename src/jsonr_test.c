/* SPDX-License-Identifier: BSD-3-Clause */
/* jsonr_test: the bounded JSON reader against RFC 8259's grammar (§2-§7). */
#include "jsonr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"

static int
parse(struct jsonr *j, const char *text)
{
    return jsonr_parse(j, text, strlen(text), 1000);
}

/* 0 when `text` parses; frees. */
static int
ok(const char *text)
{
    struct jsonr j;
    int r = parse(&j, text);

    jsonr_free(&j);
    return r;
}

static void
test_documents(void)
{
    struct jsonr j;
    char buf[64];
    uint32_t a, c;
    int n;

    EQ(parse(&j, " {\"rpc\": {\"calls\": 12, \"ratio\": -0.5e+1}, \"list\": [1, \"two\", true,"
                 " false, null, [], {}], \"name\": \"x\"}\n"),
       0);
    EQ(j.n[0].type, JR_OBJ);
    EQ(jsonr_num(&j, jsonr_path(&j, 0, "rpc.calls"), -1), 12);
    CHECK(jsonr_num(&j, jsonr_path(&j, 0, "rpc.ratio"), 0) == -5.0);
    CHECK(isnan(jsonr_num(&j, jsonr_path(&j, 0, "rpc.nosuch"), NAN)));
    CHECK(isnan(jsonr_num(&j, jsonr_get(&j, 0, "name"), NAN))); /* a string is not a number */
    EQ(jsonr_path(&j, 0, "name.deeper"), JSONR_NONE);
    a = jsonr_get(&j, 0, "list");
    EQ(j.n[a].type, JR_ARR);
    n = 0;
    for (c = j.n[a].first; c != JSONR_NONE; c = j.n[c].next)
        n++;
    EQ(n, 7);
    c = j.n[j.n[a].first].next;
    CHECK(jsonr_str(&j, c, buf, sizeof buf));
    STREQ(buf, "two");
    CHECK(!jsonr_str(&j, j.n[a].first, buf, sizeof buf));
    EQ(j.n[j.n[c].next].type, JR_BOOL);
    CHECK(j.n[j.n[c].next].bval);
    jsonr_free(&j);

    EQ(ok("0"), 0);
    EQ(ok("-0.0e0"), 0);
    EQ(ok("\"\""), 0);
    EQ(ok("[[[]]]"), 0);
}

static void
test_bad_documents(void)
{
    static const char *const bad[] = {
        "",          "   ",        "{",          "[1,]",       "{\"a\" 1}", "{\"a\":1,}",
        "{1:2}",     "[1 2]",      "tru",        "nul",        "01",        "1.",
        ".5",        "1e",         "+1",         "--1",        "1-2",       "0x10",
        "\"abc",     "\"a\nb\"",   "\"\\x\"",    "\"\\u12\"",  "\"\\u12g4\"", "\"\\",
        "{} {}",     "[1] x",
    };
    size_t i;

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct jsonr j;
        int r = parse(&j, bad[i]);

        if (r != -1 || !j.err[0])
            fprintf(stderr, "accepted: %s\n", bad[i]);
        EQ(r, -1);
        CHECK(j.err[0] != '\0');
        jsonr_free(&j);
    }
}

static void
test_bounds(void)
{
    struct jsonr j;
    char deep[2 * (JSONR_MAX_DEPTH + 2) + 1];
    size_t k;

    for (k = 0; k < JSONR_MAX_DEPTH; k++)
        deep[k] = '[';
    for (k = 0; k < JSONR_MAX_DEPTH; k++)
        deep[JSONR_MAX_DEPTH + k] = ']';
    deep[2 * JSONR_MAX_DEPTH] = '\0';
    EQ(parse(&j, deep), 0); /* exactly the limit */
    jsonr_free(&j);
    memmove(deep + 1, deep, strlen(deep) + 1);
    deep[0] = '[';
    strcat(deep, "]");
    EQ(parse(&j, deep), -1); /* one level more */
    CHECK(strstr(j.err, "deep") != NULL);
    jsonr_free(&j);

    EQ(jsonr_parse(&j, "[1,2,3,4]", 9, 4), -1); /* 5 values, 4 allowed */
    CHECK(strstr(j.err, "too many") != NULL);
    jsonr_free(&j);
    EQ(jsonr_parse(&j, "[1,2,3]", 9 - 2, 4), 0);
    jsonr_free(&j);
    /* Length is honoured: no NUL needed, nothing read past it. */
    EQ(jsonr_parse(&j, "[1]xxxx", 3, 10), 0);
    jsonr_free(&j);
}

static void
test_unescape(void)
{
    struct jsonr j;
    char buf[64], small[5];
    size_t n;

    EQ(parse(&j, "{\"s\": \"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\", \"u\": \"\\u00e9t\\u00C9\\u20ac\","
                 " \"pair\": \"\\ud83d\\ude00\", \"lone\": \"x\\ud800y\", \"raw\": \"\xc3\xa9\","
                 " \"get\\u0061ttr\": 7, \"nul\": \"a\\u0000b\"}"),
       0);
    CHECK(jsonr_str(&j, jsonr_get(&j, 0, "s"), buf, sizeof buf));
    STREQ(buf, "a\"b\\c/d\b\f\n\r\t");
    CHECK(jsonr_str(&j, jsonr_get(&j, 0, "u"), buf, sizeof buf));
    STREQ(buf, "\xc3\xa9t\xc3\x89\xe2\x82\xac");
    CHECK(jsonr_str(&j, jsonr_get(&j, 0, "pair"), buf, sizeof buf));
    STREQ(buf, "\xf0\x9f\x98\x80"); /* U+1F600 */
    CHECK(jsonr_str(&j, jsonr_get(&j, 0, "lone"), buf, sizeof buf));
    STREQ(buf, "x\xef\xbf\xbdy"); /* U+FFFD */
    CHECK(jsonr_str(&j, jsonr_get(&j, 0, "raw"), buf, sizeof buf));
    STREQ(buf, "\xc3\xa9");
    /* A member name is found by its value, escaped or not. */
    EQ(jsonr_num(&j, jsonr_get(&j, 0, "getattr"), -1), 7);
    n = jsonr_unescape("a\\u0000b", 8, buf, sizeof buf);
    EQ(n, 3);
    CHECK(memcmp(buf, "a\0b", 4) == 0);
    /* Cut between characters, never inside one. */
    CHECK(jsonr_str(&j, jsonr_get(&j, 0, "u"), small, sizeof small));
    STREQ(small, "\xc3\xa9t"); /* U+00C9 (2 bytes) and the NUL would need 6 */
    n = jsonr_unescape("\\u20ac\\u20ac", 12, small, sizeof small);
    EQ(n, 3);
    STREQ(small, "\xe2\x82\xac");
    EQ(jsonr_unescape("abc", 3, small, 1), 0);
    EQ(small[0], '\0');
    jsonr_free(&j);
}

int
main(void)
{
    test_documents();
    test_bad_documents();
    test_bounds();
    test_unescape();
    return t_done();
}
