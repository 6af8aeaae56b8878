/* SPDX-License-Identifier: BSD-3-Clause */
/* jsonr.c: a small bounded JSON reader (RFC 8259); see jsonr.h. */
#include "jsonr.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pstate {
    struct jsonr *j;
    size_t pos;
    uint32_t max_nodes;
    unsigned depth;
};

static int
fail(struct pstate *p, const char *what)
{
    if (!p->j->err[0])
        snprintf(p->j->err, sizeof p->j->err, "%s at byte %zu", what, p->pos);
    return -1;
}

static void
ws(struct pstate *p)
{
    while (p->pos < p->j->len) {
        char c = p->j->text[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

static uint32_t
new_node(struct pstate *p)
{
    struct jsonr *j = p->j;

    if (j->count >= p->max_nodes)
        return JSONR_NONE;
    if (j->count == j->cap) {
        uint32_t cap = j->cap ? j->cap * 2 : 256;
        struct jsonr_node *n;

        if (cap > p->max_nodes)
            cap = p->max_nodes;
        n = realloc(j->n, (size_t)cap * sizeof *n);
        if (!n)
            return JSONR_NONE;
        j->n = n;
        j->cap = cap;
    }
    memset(&j->n[j->count], 0, sizeof j->n[0]);
    j->n[j->count].first = j->n[j->count].next = JSONR_NONE;
    return j->count++;
}

static bool
is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A string starting at the opening quote: its raw contents, checked against
 * RFC 8259 §7 (no raw control character; an escape is one of \" \\ \/ \b
 * \f \n \r \t or \u and four hex digits). */
static int
string(struct pstate *p, uint32_t *off, uint32_t *len)
{
    const char *t = p->j->text;
    size_t start, n = p->j->len;

    if (p->pos >= n || t[p->pos] != '"')
        return fail(p, "expected a string");
    start = ++p->pos;
    while (p->pos < n && t[p->pos] != '"') {
        if ((unsigned char)t[p->pos] < 0x20)
            return fail(p, "control character in a string");
        if (t[p->pos] == '\\') {
            char e = ++p->pos < n ? t[p->pos] : '\0';

            if (e == 'u') {
                size_t k;

                for (k = 1; k <= 4; k++)
                    if (p->pos + k >= n || !is_hex(t[p->pos + k]))
                        return fail(p, "bad \\u escape");
                p->pos += 4;
            } else if (!e || !strchr("\"\\/bfnrt", e)) {
                return fail(p, "bad escape");
            }
        }
        p->pos++;
    }
    if (p->pos >= n)
        return fail(p, "unterminated string");
    *off = (uint32_t)start;
    *len = (uint32_t)(p->pos - start);
    p->pos++;
    return 0;
}

static bool
digit(const struct pstate *p)
{
    return p->pos < p->j->len && p->j->text[p->pos] >= '0' && p->j->text[p->pos] <= '9';
}

/* RFC 8259 §6: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int
number(struct pstate *p)
{
    const char *t = p->j->text;

    if (p->pos < p->j->len && t[p->pos] == '-')
        p->pos++;
    if (!digit(p))
        return fail(p, "unexpected character");
    if (t[p->pos] == '0')
        p->pos++;
    else
        while (digit(p))
            p->pos++;
    if (p->pos < p->j->len && t[p->pos] == '.') {
        p->pos++;
        if (!digit(p))
            return fail(p, "bad number");
        while (digit(p))
            p->pos++;
    }
    if (p->pos < p->j->len && (t[p->pos] == 'e' || t[p->pos] == 'E')) {
        p->pos++;
        if (p->pos < p->j->len && (t[p->pos] == '+' || t[p->pos] == '-'))
            p->pos++;
        if (!digit(p))
            return fail(p, "bad number");
        while (digit(p))
            p->pos++;
    }
    return 0;
}

static int
lit(struct pstate *p, const char *word)
{
    size_t n = strlen(word);

    if (p->j->len - p->pos < n || memcmp(p->j->text + p->pos, word, n) != 0)
        return fail(p, "unexpected character");
    p->pos += n;
    return 0;
}

static int value(struct pstate *p, uint32_t *out);

static int
container(struct pstate *p, uint32_t self, bool obj)
{
    uint32_t prev = JSONR_NONE;
    char close = obj ? '}' : ']';

    if (++p->depth > JSONR_MAX_DEPTH)
        return fail(p, "nested too deep");
    p->pos++;
    ws(p);
    if (p->pos < p->j->len && p->j->text[p->pos] == close) {
        p->pos++;
        p->depth--;
        return 0;
    }
    for (;;) {
        uint32_t koff = 0, klen = 0, child;

        ws(p);
        if (obj) {
            if (string(p, &koff, &klen) != 0)
                return -1;
            ws(p);
            if (p->pos >= p->j->len || p->j->text[p->pos] != ':')
                return fail(p, "expected ':'");
            p->pos++;
        }
        if (value(p, &child) != 0)
            return -1;
        p->j->n[child].key_off = koff;
        p->j->n[child].key_len = klen;
        if (prev == JSONR_NONE)
            p->j->n[self].first = child;
        else
            p->j->n[prev].next = child;
        prev = child;
        ws(p);
        if (p->pos < p->j->len && p->j->text[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->j->len && p->j->text[p->pos] == close) {
            p->pos++;
            p->depth--;
            return 0;
        }
        return fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static int
value(struct pstate *p, uint32_t *out)
{
    uint32_t self;
    char c;

    ws(p);
    if (p->pos >= p->j->len)
        return fail(p, "unexpected end");
    self = new_node(p);
    if (self == JSONR_NONE)
        return fail(p, "too many values");
    *out = self;
    c = p->j->text[p->pos];
    switch (c) {
    case '{':
    case '[':
        p->j->n[self].type = c == '{' ? JR_OBJ : JR_ARR;
        return container(p, self, c == '{');
    case '"':
        p->j->n[self].type = JR_STR;
        return string(p, &p->j->n[self].off, &p->j->n[self].len);
    case 't':
        p->j->n[self].type = JR_BOOL;
        p->j->n[self].bval = true;
        return lit(p, "true");
    case 'f':
        p->j->n[self].type = JR_BOOL;
        return lit(p, "false");
    case 'n':
        p->j->n[self].type = JR_NULL;
        return lit(p, "null");
    default: {
        size_t start = p->pos;

        if (number(p) != 0)
            return -1;
        p->j->n[self].type = JR_NUM;
        p->j->n[self].off = (uint32_t)start;
        p->j->n[self].len = (uint32_t)(p->pos - start);
        return 0;
    }
    }
}

int
jsonr_parse(struct jsonr *j, const char *text, size_t len, uint32_t max_nodes)
{
    struct pstate p = { j, 0, max_nodes, 0 };
    uint32_t root;

    memset(j, 0, sizeof *j);
    j->text = text;
    j->len = len;
    if (len >= UINT32_MAX) {
        snprintf(j->err, sizeof j->err, "document too large");
        return -1;
    }
    if (value(&p, &root) != 0)
        return -1;
    ws(&p);
    if (p.pos != len)
        return fail(&p, "trailing characters");
    return 0;
}

void
jsonr_free(struct jsonr *j)
{
    free(j->n);
    j->n = NULL;
    j->count = j->cap = 0;
}

uint32_t
jsonr_get(const struct jsonr *j, uint32_t obj, const char *key)
{
    size_t kl = strlen(key);
    uint32_t c;

    if (obj >= j->count || j->n[obj].type != JR_OBJ)
        return JSONR_NONE;
    for (c = j->n[obj].first; c != JSONR_NONE; c = j->n[c].next) {
        const struct jsonr_node *n = &j->n[c];
        char buf[256];

        if (n->key_len == kl && memcmp(j->text + n->key_off, key, kl) == 0)
            return c;
        /* An escaped member name ("get\u0061ttr"): compare its value. */
        if (n->key_len > kl && kl < sizeof buf - 1 &&
            memchr(j->text + n->key_off, '\\', n->key_len) &&
            jsonr_unescape(j->text + n->key_off, n->key_len, buf, sizeof buf) == kl &&
            memcmp(buf, key, kl) == 0)
            return c;
    }
    return JSONR_NONE;
}

uint32_t
jsonr_path(const struct jsonr *j, uint32_t from, const char *path)
{
    char part[128];
    const char *p = path;

    while (from != JSONR_NONE && *p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);

        if (n >= sizeof part)
            return JSONR_NONE;
        memcpy(part, p, n);
        part[n] = '\0';
        from = jsonr_get(j, from, part);
        p += n + (dot ? 1 : 0);
    }
    return from;
}

double
jsonr_num(const struct jsonr *j, uint32_t node, double def)
{
    char buf[64];
    const struct jsonr_node *n;

    if (node >= j->count)
        return def;
    n = &j->n[node];
    if (n->type != JR_NUM || n->len >= sizeof buf)
        return def;
    memcpy(buf, j->text + n->off, n->len);
    buf[n->len] = '\0';
    return strtod(buf, NULL);
}

bool
jsonr_str(const struct jsonr *j, uint32_t node, char *buf, size_t bufsz)
{
    const struct jsonr_node *n;

    if (node >= j->count || !bufsz)
        return false;
    n = &j->n[node];
    if (n->type != JR_STR)
        return false;
    (void)jsonr_unescape(j->text + n->off, n->len, buf, bufsz);
    return true;
}

static unsigned
hexv(char c)
{
    return c >= '0' && c <= '9' ? (unsigned)(c - '0')
           : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                                  : (unsigned)(c - 'A' + 10);
}

static uint32_t
hex4(const char *p)
{
    return hexv(p[0]) << 12 | hexv(p[1]) << 8 | hexv(p[2]) << 4 | hexv(p[3]);
}

static size_t
utf8_len(uint32_t cp)
{
    return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

static void
put_utf8(char *o, uint32_t cp, size_t len)
{
    static const uint8_t lead[5] = { 0, 0, 0xc0, 0xe0, 0xf0 };
    size_t i;

    if (len == 1) {
        o[0] = (char)cp;
        return;
    }
    for (i = len - 1; i > 0; i--, cp >>= 6)
        o[i] = (char)(0x80 | (cp & 0x3f));
    o[0] = (char)(lead[len] | cp);
}

size_t
jsonr_unescape(const char *p, size_t n, char *dst, size_t cap)
{
    size_t k = 0, o = 0;

    if (!cap)
        return 0;
    while (k < n) {
        uint32_t cp = (unsigned char)p[k];
        size_t used = 1, len;

        if (p[k] == '\\' && k + 1 < n) {
            used = 2;
            switch (p[k + 1]) {
            case 'b': cp = '\b'; break;
            case 'f': cp = '\f'; break;
            case 'n': cp = '\n'; break;
            case 'r': cp = '\r'; break;
            case 't': cp = '\t'; break;
            case 'u':
                if (k + 6 > n) {
                    cp = 0xfffd;
                    used = n - k;
                    break;
                }
                cp = hex4(p + k + 2);
                used = 6;
                if (cp >= 0xd800 && cp < 0xdc00 && k + 12 <= n && p[k + 6] == '\\' &&
                    p[k + 7] == 'u' && hex4(p + k + 8) >= 0xdc00 && hex4(p + k + 8) < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (hex4(p + k + 8) - 0xdc00);
                    used = 12;
                } else if (cp >= 0xd800 && cp < 0xe000) {
                    cp = 0xfffd; /* a lone surrogate is not a character */
                }
                break;
            default: cp = (unsigned char)p[k + 1]; break;
            }
            len = utf8_len(cp);
        } else {
            len = 1; /* raw bytes (UTF-8 already) are copied as they are */
        }
        if (o + len + 1 > cap)
            break;
        if (len == 1)
            dst[o] = (char)cp;
        else
            put_utf8(dst + o, cp, len);
        o += len;
        k += used;
    }
    dst[o] = '\0';
    return o;
}
