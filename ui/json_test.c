/* SPDX-License-Identifier: BSD-3-Clause */
/* json_test.c: unit tests for the streaming JSON writer. */
#include "json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"

struct buf {
    char *p;
    size_t n;
    FILE *f;
};

static void
buf_open(struct buf *b)
{
    b->p = NULL;
    b->n = 0;
    b->f = open_memstream(&b->p, &b->n);
}

/* Close the stream and keep the text (freed by the next buf_take). */
static const char *
buf_take(struct buf *b)
{
    static char *last;

    fclose(b->f);
    free(last);
    last = b->p;
    return last;
}

/* One string value, compact, as the writer renders it (without the newline). */
static const char *
str_json(const char *s, size_t n)
{
    static char out[512];
    struct buf b;
    struct json_w w;
    const char *t;

    buf_open(&b);
    json_begin(&w, b.f, false);
    json_strn(&w, (const uint8_t *)s, n);
    EQ(json_end(&w), 0);
    t = buf_take(&b);
    snprintf(out, sizeof out, "%.*s", (int)(strlen(t) - 1), t);
    return out;
}

#define SJ(lit) str_json(lit, sizeof(lit) - 1)

static void
test_strings(void)
{
    STREQ(SJ(""), "\"\"");
    STREQ(SJ("plain"), "\"plain\"");
    STREQ(SJ("say \"hi\""), "\"say \\\"hi\\\"\"");
    STREQ(SJ("back\\slash"), "\"back\\\\slash\"");
    STREQ(SJ("a\nb\rc\td\be\ff"), "\"a\\nb\\rc\\td\\be\\ff\"");
    STREQ(SJ("\x1b[2J"), "\"\\u001b[2J\"");
    STREQ(SJ("\x01\x1f"), "\"\\u0001\\u001f\"");
    STREQ(SJ("nul\0byte"), "\"nul\\u0000byte\"");
    STREQ(SJ("del\x7f"), "\"del\\u007f\"");
    STREQ(SJ("/"), "\"/\"");
    /* valid UTF-8 passes through */
    STREQ(SJ("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
    /* C1 control escaped */
    STREQ(SJ("\xc2\x9b" "2J"), "\"\\u009b2J\"");
    /* bidirectional controls escaped, their neighbours kept */
    STREQ(SJ("a\xe2\x80\xae" "b"), "\"a\\u202eb\"");
    STREQ(SJ("\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9"), "\"\\u202a\\u2066\\u2069\"");
    STREQ(SJ("\xe2\x80\xa9\xe2\x81\xaa"), "\"\xe2\x80\xa9\xe2\x81\xaa\"");
    /* C0 80, a NUL inside a name (names.h), is the NUL */
    STREQ(SJ("a\xc0\x80" "b"), "\"a\\u0000b\"");
    /* invalid UTF-8: one U+FFFD escape per bad byte */
    STREQ(SJ("\xff"), "\"\\ufffd\"");
    STREQ(SJ("a\x80z"), "\"a\\ufffdz\"");
    STREQ(SJ("\xc3("), "\"\\ufffd(\"");
    STREQ(SJ("\xc0\xaf"), "\"\\ufffd\\ufffd\"");
    STREQ(SJ("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");
    STREQ(SJ("\xe2\x82"), "\"\\ufffd\\ufffd\"");
    STREQ(SJ("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
    /* everything nasty at once */
    STREQ(SJ("\"\x1b[2J\n\xfe\\"), "\"\\\"\\u001b[2J\\n\\ufffd\\\\\"");
}

static void
test_compact(void)
{
    struct buf b;
    struct json_w w;

    buf_open(&b);
    json_begin(&w, b.f, false);
    json_obj(&w);
    json_kv_str(&w, "schema", "nfsscope/1");
    json_key(&w, "n");
    json_u64(&w, 18446744073709551615u);
    json_key(&w, "i");
    json_i64(&w, INT64_MIN);
    json_key(&w, "neg");
    json_i64(&w, -42);
    json_key(&w, "t");
    json_bool(&w, true);
    json_key(&w, "f");
    json_bool(&w, false);
    json_key(&w, "z");
    json_null(&w);
    json_key(&w, "e");
    json_obj(&w);
    json_close(&w);
    json_key(&w, "a");
    json_arr(&w);
    json_u64(&w, 1);
    json_arr(&w);
    json_close(&w);
    json_obj(&w);
    json_kv_u64(&w, "k", 0);
    json_close(&w);
    json_str(&w, NULL);
    json_close(&w);
    json_key(&w, "k\"ey\n");
    json_u64(&w, 2);
    json_close(&w);
    EQ(json_end(&w), 0);
    STREQ(buf_take(&b), "{\"schema\":\"nfsscope/1\",\"n\":18446744073709551615,"
                        "\"i\":-9223372036854775808,\"neg\":-42,\"t\":true,\"f\":false,"
                        "\"z\":null,\"e\":{},\"a\":[1,[],{\"k\":0},null],\"k\\\"ey\\n\":2}\n");
}

static void
test_pretty(void)
{
    struct buf b;
    struct json_w w;

    buf_open(&b);
    json_begin(&w, b.f, true);
    json_obj(&w);
    json_kv_u64(&w, "a", 1);
    json_key(&w, "b");
    json_obj(&w);
    json_key(&w, "c");
    json_arr(&w);
    json_u64(&w, 1);
    json_u64(&w, 2);
    json_close(&w);
    json_key(&w, "d");
    json_obj(&w);
    json_close(&w);
    json_close(&w);
    json_key(&w, "findings");
    json_arr(&w);
    json_close(&w);
    json_close(&w);
    EQ(json_end(&w), 0);
    STREQ(buf_take(&b), "{\n"
                        "  \"a\": 1,\n"
                        "  \"b\": {\n"
                        "    \"c\": [\n"
                        "      1,\n"
                        "      2\n"
                        "    ],\n"
                        "    \"d\": {}\n"
                        "  },\n"
                        "  \"findings\": []\n"
                        "}\n");
}

static const char *
num(void (*fn)(struct json_w *, double, unsigned), double v, unsigned d)
{
    static char out[64];
    struct buf b;
    struct json_w w;
    const char *t;

    buf_open(&b);
    json_begin(&w, b.f, false);
    if (fn)
        fn(&w, v, d);
    else
        json_double(&w, v);
    EQ(json_end(&w), 0);
    t = buf_take(&b);
    snprintf(out, sizeof out, "%.*s", (int)(strlen(t) - 1), t);
    return out;
}

static const char *
dec(int64_t units, unsigned scale)
{
    static char out[64];
    struct buf b;
    struct json_w w;
    const char *t;

    buf_open(&b);
    json_begin(&w, b.f, false);
    json_decimal(&w, units, scale);
    EQ(json_end(&w), 0);
    t = buf_take(&b);
    snprintf(out, sizeof out, "%.*s", (int)(strlen(t) - 1), t);
    return out;
}

static void
test_numbers(void)
{
    STREQ(num(NULL, 0.0, 0), "0");
    STREQ(num(NULL, 0.1, 0), "0.1");
    STREQ(num(NULL, -2.5, 0), "-2.5");
    STREQ(num(NULL, 1e20, 0), "1e+20");
    STREQ(num(NULL, 123456.789, 0), "123456.789");
    STREQ(num(NULL, NAN, 0), "null");
    STREQ(num(NULL, INFINITY, 0), "null");
    STREQ(num(NULL, -INFINITY, 0), "null");
    STREQ(num(json_fixed, 12.345, 1), "12.3");
    STREQ(num(json_fixed, 12.35, 1), "12.4");
    STREQ(num(json_fixed, 7.0, 1), "7.0");
    STREQ(num(json_fixed, -0.04, 1), "0.0");
    STREQ(num(json_fixed, -1.25, 2), "-1.25");
    STREQ(num(json_fixed, 3.7, 0), "4");
    STREQ(num(json_fixed, NAN, 1), "null");
    STREQ(num(json_fixed, 1e300, 1), "null");
    STREQ(dec(1700000000123456789, 9), "1700000000.123456789");
    STREQ(dec(1000000005, 9), "1.000000005");
    STREQ(dec(5, 9), "0.000000005");
    STREQ(dec(0, 9), "0.000000000");
    STREQ(dec(-1500000000, 9), "-1.500000000");
    STREQ(dec(42, 0), "42");
    STREQ(dec(INT64_MIN, 0), "-9223372036854775808");
}

static void
test_misuse(void)
{
    struct buf b;
    struct json_w w;

    /* value without a key inside an object */
    buf_open(&b);
    json_begin(&w, b.f, false);
    json_obj(&w);
    json_u64(&w, 1);
    json_close(&w);
    EQ(json_end(&w), -1);
    buf_take(&b);

    /* key inside an array */
    buf_open(&b);
    json_begin(&w, b.f, false);
    json_arr(&w);
    json_key(&w, "x");
    json_close(&w);
    EQ(json_end(&w), -1);
    buf_take(&b);

    /* unbalanced */
    buf_open(&b);
    json_begin(&w, b.f, false);
    json_obj(&w);
    EQ(json_end(&w), -1);
    buf_take(&b);

    /* close too many, key without value, two top-level values, nothing */
    buf_open(&b);
    json_begin(&w, b.f, false);
    json_arr(&w);
    json_close(&w);
    json_close(&w);
    EQ(json_end(&w), -1);
    buf_take(&b);

    buf_open(&b);
    json_begin(&w, b.f, false);
    json_obj(&w);
    json_key(&w, "k");
    json_close(&w);
    EQ(json_end(&w), -1);
    buf_take(&b);

    buf_open(&b);
    json_begin(&w, b.f, false);
    json_u64(&w, 1);
    json_u64(&w, 2);
    EQ(json_end(&w), -1);
    buf_take(&b);

    buf_open(&b);
    json_begin(&w, b.f, false);
    EQ(json_end(&w), -1);
    buf_take(&b);

    /* depth limit */
    {
        int i;

        buf_open(&b);
        json_begin(&w, b.f, false);
        for (i = 0; i < JSON_MAX_DEPTH + 2; i++)
            json_arr(&w);
        for (i = 0; i < JSON_MAX_DEPTH + 2; i++)
            json_close(&w);
        EQ(json_end(&w), -1);
        buf_take(&b);
    }

    /* write error is reported */
    {
        FILE *f = fopen("/dev/full", "w");

        if (f) {
            int i;

            json_begin(&w, f, true);
            json_arr(&w);
            for (i = 0; i < 10000; i++)
                json_str(&w, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
            json_close(&w);
            EQ(json_end(&w), -1);
            fclose(f);
        }
    }
}

/* Output larger than the writer's buffer, a string longer than it, and
 * lines with direct writes between them (json_flush) come out whole and in
 * order: the same text built by hand. */
static void
test_buffering(void)
{
    struct buf b;
    struct json_w w;
    static char big[3 * JSON_BUF + 17], want[8 * JSON_BUF];
    size_t o = 0;
    int i;

    memset(big, 'b', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    buf_open(&b);
    json_begin(&w, b.f, false);
    json_arr(&w);
    o += (size_t)snprintf(want + o, sizeof want - o, "[");
    for (i = 0; i < 700; i++) { /* ~7 bytes each: across the buffer's end */
        json_u64(&w, (uint64_t)i * 1001);
        o += (size_t)snprintf(want + o, sizeof want - o, "%s%d", i ? "," : "", i * 1001);
    }
    json_str(&w, big);
    json_str(&w, "tab\there");
    json_close(&w);
    o += (size_t)snprintf(want + o, sizeof want - o, ",\"%s\",\"tab\\there\"]\n", big);
    EQ(json_end(&w), 0);
    STREQ(buf_take(&b), want);

    buf_open(&b); /* JSON Lines: each line's newline written by the caller */
    for (i = 0; i < 3; i++) {
        json_begin(&w, b.f, false);
        json_obj(&w);
        json_kv_u64(&w, "n", (uint64_t)i);
        json_close(&w);
        json_flush(&w);
        fputc('\n', b.f);
    }
    STREQ(buf_take(&b), "{\"n\":0}\n{\"n\":1}\n{\"n\":2}\n");
}

int
main(void)
{
    test_strings();
    test_compact();
    test_pretty();
    test_numbers();
    test_misuse();
    test_buffering();
    buf_take(&(struct buf){ .f = tmpfile() });
    return t_done();
}
