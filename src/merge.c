/* SPDX-License-Identifier: BSD-3-Clause */
/* merge.c: `nfsscope merge A.json B.json ...`.
 *
 * Combines saved JSON reports (nfsscope -o json) exactly, so captures from
 * several points or files can be analysed in parallel and added up:
 *   - counts add (any integer not named below), status maps add;
 *   - latency histograms ("histogram": [[bucket_lo_us, count], ...]) merge
 *     bucket by bucket; "latency_us" is recomputed from the merged histogram
 *     with the report's own code (histo.h: the bucket is histo_index(lo)),
 *     min = min of mins, max = max of maxes, mean from "latency_sum_us", so
 *     p50/p90/p99 equal those of one report over all the traffic;
 *   - capture first_ts/last_ts: min/max; "sources" concatenate;
 *   - breakdown rows merge by their "key" (sums; min/max; mean from
 *     latency_total_us); their percentiles come from compact histograms the
 *     report does not carry, so a row merged from several reports has null
 *     p50/p90/p99; "distinct" adds (an upper bound); "other" rows add;
 *   - timeline buckets merge by "t" (p99_us: the larger, an upper bound);
 *   - NFSv4 client and session rows merge by their "key" (the clientid,
 *     the sessionid) and "server": counts add, {"max"}/{"min"} keep the larger/smaller,
 *     channel attributes and strings are the first report's;
 *   - anomalies add; "findings" are not merged (they need the packets: run
 *     nfsscope on the captures together) and are left out.
 * A report is refused (one line, exit 1) unless its "schema" is this
 * build's (nfsscope/1) and, outside "findings", every number is a
 * non-negative integer or decimal that fits 64 bits (timestamps may be
 * negative), every other value is null, an object, an array or a string
 * where the report has strings (string_members), and the same member holds
 * the same kind of value in every report; a sum that would pass 2^64 - 1 is
 * refused too, never wrapped.
 * Reports are read with the bounded reader (jsonr.h) also used by diff. */
#include "merge.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histo.h"
#include "json.h"
#include "jsonr.h"
#include "nfs4.h"
#include "term_escape.h"

#define MERGE_MAX_INPUT (256u << 20)
#define MERGE_MAX_NODES (8u << 20)
#define MERGE_SCHEMA "nfsscope/1" /* report_json.c */

/* N_BAD: a number no report holds (negative, too large, not a timestamp);
 * N_OVERFLOW: a sum past 2^64 - 1. Both are refused (check_tree). */
enum nkind { N_NULL, N_BOOL, N_UINT, N_INT, N_TS, N_DBL, N_STR, N_ARR, N_OBJ, N_BAD, N_OVERFLOW };

struct mnode {
    enum nkind kind;
    bool bval;
    unsigned nsrc; /* reports merged into this node */
    char *key;     /* member name (unescaped), NULL in arrays */
    uint64_t u;    /* N_UINT */
    int64_t i;     /* N_INT; N_TS: nanoseconds */
    double d;      /* N_DBL */
    char *s;       /* N_STR (unescaped) */
    size_t slen;
    struct mnode *first, *last, *next;
};

static const char merge_usage[] =
    "usage: nfsscope merge [-o text|json|csv] A.json B.json ...\n"
    "  A.json ...: saved JSON reports (nfsscope -o json); - is standard input\n";

/* ---- reading ------------------------------------------------------------ */

static char *
read_all(const char *path, size_t *len, char *err, size_t errsz)
{
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    size_t cap = 1 << 16, n = 0;
    char *buf;

    if (!fp) {
        snprintf(err, errsz, "%s: %s", path, strerror(errno));
        return NULL;
    }
    buf = malloc(cap + 1);
    while (buf) {
        size_t k;

        if (n == cap) {
            char *b2 = NULL;

            if (cap < MERGE_MAX_INPUT) {
                cap *= 2;
                b2 = realloc(buf, cap + 1);
            }
            if (!b2) {
                free(buf);
                buf = NULL;
                snprintf(err, errsz, "%s: too large or out of memory", path);
                break;
            }
            buf = b2;
        }
        k = fread(buf + n, 1, cap - n, fp);
        n += k;
        if (k == 0)
            break;
    }
    if (buf && ferror(fp)) {
        snprintf(err, errsz, "%s: read error", path);
        free(buf);
        buf = NULL;
    }
    if (fp != stdin)
        fclose(fp);
    if (buf) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

/* A JSON string's raw contents, unescaped (jsonr_unescape), malloc'd. */
static char *
unescape(const char *p, size_t n, size_t *outlen)
{
    char *o = malloc(n + 1);

    if (o)
        *outlen = jsonr_unescape(p, n, o, n + 1);
    return o;
}

static bool
is_ts_key(const char *key)
{
    return key && (strcmp(key, "first_ts") == 0 || strcmp(key, "last_ts") == 0 ||
                   strcmp(key, "time") == 0);
}

/* "1796043977.732261000" -> nanoseconds, exactly; false unless the text is
 * [-]digits[.digits] and fits. */
static bool
parse_ts(const char *t, size_t n, int64_t *ns)
{
    int64_t sec = 0, frac = 0;
    size_t k = 0;
    unsigned digits = 0;
    bool neg = n && t[0] == '-';

    if (neg)
        k++;
    if (k == n || t[k] < '0' || t[k] > '9')
        return false;
    for (; k < n && t[k] != '.'; k++) {
        if (t[k] < '0' || t[k] > '9' || sec > (INT64_MAX / 1000000000 - 1) / 10)
            return false;
        sec = sec * 10 + (t[k] - '0');
    }
    if (k < n)
        k++;
    for (; k < n; k++, digits++) {
        if (t[k] < '0' || t[k] > '9')
            return false;
        if (digits < 9)
            frac = frac * 10 + (t[k] - '0');
    }
    for (; digits < 9; digits++)
        frac *= 10;
    *ns = (neg ? -1 : 1) * (sec * 1000000000 + frac);
    return true;
}

static void mnode_free(struct mnode *m);

static struct mnode *
convert(const struct jsonr *j, uint32_t idx, bool in_obj)
{
    const struct jsonr_node *n = &j->n[idx];
    struct mnode *m = calloc(1, sizeof *m);
    size_t dummy;

    if (!m)
        return NULL;
    m->nsrc = 1;
    if (in_obj && !(m->key = unescape(j->text + n->key_off, n->key_len, &dummy)))
        goto fail;
    switch (n->type) {
    case JR_NULL: m->kind = N_NULL; break;
    case JR_BOOL: m->kind = N_BOOL; m->bval = n->bval; break;
    case JR_NUM: {
        const char *t = j->text + n->off;
        char buf[64];
        size_t len = n->len < sizeof buf - 1 ? n->len : sizeof buf - 1;

        memcpy(buf, t, len);
        buf[len] = '\0';
        errno = 0;
        if (n->len >= sizeof buf) {
            m->kind = N_BAD;
        } else if (is_ts_key(m->key)) {
            m->kind = parse_ts(buf, len, &m->i) ? N_TS : N_BAD;
        } else if (buf[0] == '-') {
            m->kind = N_BAD; /* no count, byte or latency is negative */
        } else if (strpbrk(buf, ".eE")) {
            m->d = strtod(buf, NULL);
            m->kind = errno || !(m->d <= (double)UINT64_MAX) ? N_BAD : N_DBL;
        } else {
            m->u = strtoull(buf, NULL, 10);
            m->kind = errno ? N_BAD : N_UINT;
        }
        break;
    }
    case JR_STR:
        m->kind = N_STR;
        if (!(m->s = unescape(j->text + n->off, n->len, &m->slen)))
            goto fail;
        break;
    case JR_ARR:
    case JR_OBJ: {
        uint32_t c;

        m->kind = n->type == JR_ARR ? N_ARR : N_OBJ;
        for (c = n->first; c != JSONR_NONE; c = j->n[c].next) {
            struct mnode *ch = convert(j, c, n->type == JR_OBJ);

            if (!ch)
                goto fail;
            if (m->last)
                m->last->next = ch;
            else
                m->first = ch;
            m->last = ch;
        }
        break;
    }
    }
    return m;
fail:
    mnode_free(m);
    return NULL;
}

static void
mnode_free(struct mnode *m)
{
    while (m) {
        struct mnode *next = m->next, *c = m->first;

        m->first = NULL;
        mnode_free(c);
        free(m->key);
        free(m->s);
        free(m);
        m = next;
    }
}

static struct mnode *
child(const struct mnode *m, const char *key)
{
    struct mnode *c;

    if (!m || m->kind != N_OBJ)
        return NULL;
    for (c = m->first; c; c = c->next)
        if (c->key && strcmp(c->key, key) == 0)
            return c;
    return NULL;
}

static void
append(struct mnode *parent, struct mnode *c)
{
    c->next = NULL;
    if (parent->last)
        parent->last->next = c;
    else
        parent->first = c;
    parent->last = c;
}

/* ---- merging ------------------------------------------------------------ */

static bool
key_is(const struct mnode *m, const char *k)
{
    return m->key && strcmp(m->key, k) == 0;
}

/* Keys whose value is the same in every report (layout, not counts). */
static bool
key_kept(const struct mnode *m)
{
    static const char *const kept[] = { "top", "interval_s", "t", "lo", "hi",
                                        /* an NFSv4.1 session's channel_attrs4 */
                                        "headerpadsize", "maxrequestsize", "maxresponsesize",
                                        "maxresponsesize_cached", "maxoperations",
                                        "maxrequests" };
    size_t i;

    for (i = 0; i < sizeof kept / sizeof kept[0]; i++)
        if (key_is(m, kept[i]))
            return true;
    return false;
}

static double
num_d(const struct mnode *m)
{
    switch (m->kind) {
    case N_UINT: return (double)m->u;
    case N_INT: return (double)m->i;
    case N_TS: return (double)m->i / 1e9;
    case N_DBL: return m->d;
    default: return 0;
    }
}

static bool
is_num(const struct mnode *m)
{
    return m->kind == N_UINT || m->kind == N_INT || m->kind == N_TS || m->kind == N_DBL;
}

static void merge_into(struct mnode *d, struct mnode *s);

static bool
same_item(const struct mnode *a, const struct mnode *b, const char *by)
{
    const struct mnode *x, *y;

    if (!by) { /* [[lo, count]]: the first element */
        x = a->kind == N_ARR ? a->first : NULL;
        y = b->kind == N_ARR ? b->first : NULL;
    } else {
        x = child(a, by);
        y = child(b, by);
    }
    if (!x || !y || x->kind != y->kind)
        return false;
    if (x->kind == N_STR)
        return x->slen == y->slen && memcmp(x->s, y->s, x->slen) == 0;
    if (x->kind == N_UINT)
        return x->u == y->u;
    if (x->kind == N_INT)
        return x->i == y->i;
    return false;
}

/* NFSv4 client and session rows are each server's (their "server"): two
 * rows with the same key and different servers stay apart. Rows without
 * one match by key alone. */
static bool
same_server(const struct mnode *a, const struct mnode *b)
{
    if (a->kind != N_OBJ || b->kind != N_OBJ || !child(a, "server") || !child(b, "server"))
        return true;
    return same_item(a, b, "server");
}

/* Arrays of items matched by a member (rows by "key", buckets by "t", size
 * buckets by "lo") or histogram pairs by their first element (by == NULL). */
static void
merge_items(struct mnode *d, struct mnode *s, const char *by)
{
    struct mnode *c = s->first, *next;

    s->first = s->last = NULL;
    for (; c; c = next) {
        struct mnode *t;

        next = c->next;
        for (t = d->first; t; t = t->next)
            if (same_item(t, c, by) && same_server(t, c))
                break;
        if (!t) {
            append(d, c);
            continue;
        }
        if (!by) { /* [lo, count]: add the counts */
            if (t->first && t->first->next && c->first && c->first->next)
                merge_into(t->first->next, c->first->next);
        } else {
            merge_into(t, c);
        }
        c->next = NULL;
        mnode_free(c);
    }
}

static void
merge_into(struct mnode *d, struct mnode *s)
{
    d->nsrc += s->nsrc;
    if (d->kind == N_NULL && s->kind != N_NULL) { /* take the other side's value */
        struct mnode tmp = *s;

        tmp.key = d->key;
        tmp.next = d->next;
        tmp.nsrc = d->nsrc;
        s->first = NULL;
        s->s = NULL;
        *d = tmp;
        return;
    }
    if (is_num(d) && is_num(s)) {
        if (key_is(d, "first_ts") || key_is(d, "min") || key_is(d, "start")) {
            if (num_d(s) < num_d(d)) {
                d->u = s->u;
                d->i = s->i;
                d->d = s->d;
            }
        } else if (key_is(d, "last_ts") || key_is(d, "max") || key_is(d, "p99_us")) {
            if (num_d(s) > num_d(d)) {
                d->u = s->u;
                d->i = s->i;
                d->d = s->d;
            }
        } else if (key_kept(d)) {
            /* layout: the same everywhere */
        } else if (d->kind == N_UINT && s->kind == N_UINT) {
            if (s->u > UINT64_MAX - d->u)
                d->kind = N_OVERFLOW;
            d->u += s->u;
        } else if (d->kind == N_INT || s->kind == N_INT) {
            d->i = (d->kind == N_UINT ? (int64_t)d->u : d->i) +
                   (s->kind == N_UINT ? (int64_t)s->u : s->i);
            d->kind = N_INT;
        } else {
            d->d = num_d(d) + num_d(s);
            d->kind = N_DBL;
        }
        return;
    }
    if (d->kind == N_OBJ && s->kind == N_OBJ) {
        struct mnode *c = s->first, *next;

        s->first = s->last = NULL;
        for (; c; c = next) {
            struct mnode *t = child(d, c->key);

            next = c->next;
            if (!t) {
                append(d, c);
                continue;
            }
            merge_into(t, c);
            c->next = NULL;
            mnode_free(c);
        }
        return;
    }
    if (d->kind == N_ARR && s->kind == N_ARR) {
        if (key_is(d, "histogram"))
            merge_items(d, s, NULL);
        else if (key_is(d, "rows"))
            merge_items(d, s, "key");
        else if (key_is(d, "buckets"))
            merge_items(d, s, "t");
        else if (key_is(d, "read") || key_is(d, "write") || key_is(d, "read_plus") ||
                 key_is(d, "copy")) /* io_sizes */
            merge_items(d, s, "lo");
        else { /* sources and anything else: concatenate */
            struct mnode *c = s->first, *next;

            s->first = s->last = NULL;
            for (; c; c = next) {
                next = c->next;
                append(d, c);
            }
        }
        return;
    }
    /* strings, booleans, mismatched kinds: the first report's value */
}

/* ---- recomputing what does not add -------------------------------------- */

static void
set_uint(struct mnode *m, uint64_t v)
{
    if (!m)
        return;
    m->kind = N_UINT;
    m->u = v;
}

static void
set_dbl(struct mnode *m, double v)
{
    if (!m)
        return;
    m->kind = N_DBL;
    m->d = v;
}

static void
set_null(struct mnode *m)
{
    if (m)
        m->kind = N_NULL;
}

static uint64_t
get_u(const struct mnode *m)
{
    return m && m->kind == N_UINT ? m->u : 0;
}

static int
cmp_lo(const void *a, const void *b)
{
    const struct mnode *x = *(struct mnode *const *)a, *y = *(struct mnode *const *)b;
    uint64_t u = x->first ? x->first->u : 0, v = y->first ? y->first->u : 0;

    return u < v ? -1 : u > v;
}

static int
cmp_t(const void *a, const void *b)
{
    const struct mnode *x = child(*(struct mnode *const *)a, "t");
    const struct mnode *y = child(*(struct mnode *const *)b, "t");
    double u = x ? num_d(x) : 0, v = y ? num_d(y) : 0;

    return u < v ? -1 : u > v;
}

static int
cmp_calls_desc(const void *a, const void *b)
{
    uint64_t u = get_u(child(*(struct mnode *const *)a, "calls"));
    uint64_t v = get_u(child(*(struct mnode *const *)b, "calls"));

    return u > v ? -1 : u < v;
}

static void
sort_children(struct mnode *arr, int (*cmp)(const void *, const void *))
{
    size_t n = 0, i;
    struct mnode *c, **v;

    for (c = arr->first; c; c = c->next)
        n++;
    if (n < 2 || !(v = malloc(n * sizeof *v)))
        return;
    for (i = 0, c = arr->first; c; c = c->next)
        v[i++] = c;
    qsort(v, n, sizeof *v, cmp);
    arr->first = v[0];
    for (i = 0; i + 1 < n; i++)
        v[i]->next = v[i + 1];
    v[n - 1]->next = NULL;
    arr->last = v[n - 1];
    free(v);
}

/* An object with "latency_us" and "histogram": the percentiles again. */
static void
fix_latency_histo(struct mnode *obj, struct mnode *lat, struct mnode *hist)
{
    static struct histo h; /* 8 KiB: one at a time */
    struct mnode *c;

    sort_children(hist, cmp_lo);
    if (lat->nsrc < 2)
        return;
    histo_init(&h);
    for (c = hist->first; c; c = c->next)
        if (c->first && c->first->next) {
            h.bucket[histo_index(c->first->u)] += c->first->next->u;
            h.count += c->first->next->u;
        }
    h.sum = get_u(child(obj, "latency_sum_us"));
    h.min = get_u(child(lat, "min"));
    h.max = get_u(child(lat, "max"));
    set_uint(child(lat, "count"), h.count);
    if (h.count == 0)
        return;
    set_dbl(child(lat, "mean"), (double)h.sum / (double)h.count);
    set_uint(child(lat, "p50"), histo_percentile(&h, 50));
    set_uint(child(lat, "p90"), histo_percentile(&h, 90));
    set_uint(child(lat, "p99"), histo_percentile(&h, 99));
}

/* A breakdown row: mean from the total; percentiles are not mergeable. */
static void
fix_latency_row(struct mnode *obj, struct mnode *lat)
{
    uint64_t count = get_u(child(lat, "count"));

    if (lat->nsrc < 2 || count == 0)
        return;
    set_dbl(child(lat, "mean"), (double)get_u(child(obj, "latency_total_us")) / (double)count);
    set_null(child(lat, "p50"));
    set_null(child(lat, "p90"));
    set_null(child(lat, "p99"));
}

static void
fixup(struct mnode *m)
{
    struct mnode *c;

    if (m->kind != N_OBJ && m->kind != N_ARR)
        return;
    for (c = m->first; c; c = c->next)
        fixup(c);
    if (m->kind == N_OBJ) {
        struct mnode *lat = child(m, "latency_us"), *hist = child(m, "histogram");

        if (lat && lat->kind == N_OBJ && hist && hist->kind == N_ARR)
            fix_latency_histo(m, lat, hist);
        else if (lat && lat->kind == N_OBJ)
            fix_latency_row(m, lat);
    } else if (key_is(m, "rows") && m->nsrc > 1) {
        sort_children(m, cmp_calls_desc);
    } else if (key_is(m, "buckets") && m->nsrc > 1) {
        sort_children(m, cmp_t);
    }
}

/* ---- output ------------------------------------------------------------- */

static void
emit(struct json_w *w, const struct mnode *m)
{
    const struct mnode *c;

    if (m->key)
        json_key(w, m->key);
    switch (m->kind) {
    case N_NULL: json_null(w); break;
    case N_BOOL: json_bool(w, m->bval); break;
    case N_UINT: json_u64(w, m->u); break;
    case N_INT: json_i64(w, m->i); break;
    case N_TS: json_decimal(w, m->i, 9); break;
    case N_DBL:
        if (key_is(m, "mean"))
            json_fixed(w, m->d, 1);
        else
            json_double(w, m->d);
        break;
    case N_STR: json_strn(w, (const uint8_t *)m->s, m->slen); break;
    case N_ARR:
    case N_OBJ:
        if (m->kind == N_ARR)
            json_arr(w);
        else
            json_obj(w);
        for (c = m->first; c; c = c->next)
            emit(w, c);
        json_close(w);
        break;
    case N_BAD:
    case N_OVERFLOW: /* refused before any output (check_tree) */
        json_null(w);
        break;
    }
}

static void
txt_num(FILE *out, const struct mnode *m, int width)
{
    if (m && m->kind == N_UINT)
        fprintf(out, " %*" PRIu64, width, m->u);
    else if (m && m->kind == N_DBL)
        fprintf(out, " %*.1f", width, m->d);
    else
        fprintf(out, " %*s", width, "-");
}

static void
csv_num(FILE *out, const struct mnode *m)
{
    if (m && m->kind == N_UINT)
        fprintf(out, ",%" PRIu64, m->u);
    else if (m && m->kind == N_DBL)
        fprintf(out, ",%.1f", m->d);
    else
        fputc(',', out);
}

/* The columns of the report's CSV (ui/report_csv.c), in its order. */
static const char *const op_cols[] = { "calls", "replies", "errors", "retransmissions",
                                       "unanswered", "bytes" };
static const char *const lat_cols[] = { "count", "min", "mean", "p50", "p90", "p99", "max" };
#define NCOLS(a) (sizeof(a) / sizeof(a)[0])

/* What a CSV row is (the report's last three columns: row, minor_version,
 * not_evaluated) and where its counts are: a procedure or NFSv4 COMPOUND
 * row has every column of op_cols; an NFSv4 kind row has its COMPOUNDs
 * ("compounds") as calls and replies, an operation row "count" as calls;
 * neither has retransmissions, unanswered or bytes. */
struct row_as {
    const char *row;  /* "procedure", "compound", "kind", "operation" */
    const char *minor; /* the minor version's key, or NULL: all */
};

static void
csv_counts(FILE *out, const struct mnode *op, const struct row_as *as)
{
    size_t i;

    if (strcmp(as->row, "kind") == 0) {
        csv_num(out, child(op, "compounds"));
        csv_num(out, child(op, "compounds"));
        csv_num(out, child(op, "errors"));
        fputs(",,,", out);
    } else if (strcmp(as->row, "operation") == 0) {
        csv_num(out, child(op, "count"));
        csv_num(out, child(op, "replies"));
        csv_num(out, child(op, "errors"));
        fputs(",,", out);
        csv_num(out, child(op, "bytes")); /* the data operations' in total, else empty */
    } else {
        for (i = 0; i < NCOLS(op_cols); i++)
            csv_num(out, child(op, op_cols[i]));
    }
}

/* One procedure's row of program pg: in the text table if it has calls or
 * replies, in CSV always (as the report's). */
static void
emit_row(FILE *out, const struct mnode *pg, const struct mnode *op, bool csv,
         const struct row_as *as)
{
    static const struct row_as proc_row = { "procedure", NULL };
    const struct mnode *lat;
    char esc[512];
    size_t i;

    if (!op || op->kind != N_OBJ || !op->key)
        return;
    if (!as)
        as = &proc_row;
    lat = child(op, "latency_us");
    if (!csv && !get_u(child(op, "calls")) && !get_u(child(op, "replies")))
        return;
    if (csv) {
        term_escape(esc, sizeof esc, (const uint8_t *)pg->key, strlen(pg->key));
        fprintf(out, "%s,", esc);
        term_escape(esc, sizeof esc, (const uint8_t *)op->key, strlen(op->key));
        fputs(esc, out);
        csv_counts(out, op, as);
        for (i = 0; i < NCOLS(lat_cols); i++)
            csv_num(out, child(lat, lat_cols[i]));
        fprintf(out, ",%s,", as->row);
        if (as->minor) {
            term_escape(esc, sizeof esc, (const uint8_t *)as->minor, strlen(as->minor));
            fputs(esc, out);
        }
        if (strcmp(as->row, "operation") == 0)
            csv_num(out, child(op, "not_evaluated"));
        else
            fputc(',', out);
        fputs("\r\n", out);
    } else {
        term_escape(esc, sizeof esc, (const uint8_t *)pg->key, strlen(pg->key));
        fprintf(out, "%-10s ", esc);
        term_escape(esc, sizeof esc, (const uint8_t *)op->key, strlen(op->key));
        fprintf(out, "%-12s", esc);
        for (i = 0; i < 3; i++)
            txt_num(out, child(op, op_cols[i]), 10);
        for (i = 3; i < NCOLS(lat_cols); i++)
            txt_num(out, child(lat, lat_cols[i]), 8);
        fputc('\n', out);
    }
}

/* The rows of every member of an NFSv4 "kinds" or "ops" object. */
static void
emit_members(FILE *out, const struct mnode *pg, const struct mnode *obj, const struct row_as *as)
{
    const struct mnode *c;

    if (!obj || obj->kind != N_OBJ)
        return;
    for (c = obj->first; c; c = c->next)
        emit_row(out, pg, c, true, as);
}

/* The report's NFSv4 CSV rows after NULL and COMPOUND (ui/report_csv.c):
 * COMPOUNDs per minor version, then kinds and operations in total and per
 * minor version. */
static void
emit_nfs4_csv(FILE *out, const struct mnode *pg)
{
    const struct mnode *mv = child(pg, "minor_versions"), *m;
    struct row_as as = { "compound", NULL };

    for (m = mv && mv->kind == N_OBJ ? mv->first : NULL; m; m = m->next) {
        const struct mnode *c = child(m, "compound");

        if (c && c->kind == N_OBJ && m->key) {
            struct mnode row = *c; /* named "compound", as the report's row */

            as.minor = m->key;
            row.key = (char *)"compound";
            emit_row(out, pg, &row, true, &as);
        }
    }
    as.minor = NULL;
    as.row = "kind";
    emit_members(out, pg, child(pg, "kinds"), &as);
    as.row = "operation";
    emit_members(out, pg, child(pg, "ops"), &as);
    for (m = mv && mv->kind == N_OBJ ? mv->first : NULL; m; m = m->next) {
        as.minor = m->key;
        as.row = "kind";
        emit_members(out, pg, child(m, "kinds"), &as);
        as.row = "operation";
        emit_members(out, pg, child(m, "ops"), &as);
    }
}

/* An NFSv4 program's rows (the nfs4 object, or its callbacks): NULL and
 * COMPOUND, then (CSV) the rest. */
static void
emit_nfs4(FILE *out, const struct mnode *pg, bool csv)
{
    emit_row(out, pg, child(pg, "null"), csv, NULL);
    emit_row(out, pg, child(pg, "compound"), csv, NULL);
    if (csv)
        emit_nfs4_csv(out, pg);
}

/* ---- the text report's NFSv4 tables (ui/report_text.c), from the merge ---- */

/* The latency columns p50 .. max of a row, in microseconds. */
static void
txt_lat(FILE *out, const struct mnode *row)
{
    const struct mnode *lat = child(row, "latency_us");
    size_t i;

    for (i = 3; i < NCOLS(lat_cols); i++)
        txt_num(out, child(lat, lat_cols[i]), 8);
    fputc('\n', out);
}

static void
txt_label(FILE *out, const char *label, int width)
{
    char esc[256];

    term_escape(esc, sizeof esc, (const uint8_t *)label, strlen(label));
    fprintf(out, "%-*s", width, esc);
}

/* A COMPOUND (or NULL) row: calls, replies, unanswered, errors, latency. */
static void
txt_msg(FILE *out, const char *label, const struct mnode *m)
{
    if (!m || m->kind != N_OBJ)
        return;
    txt_label(out, label, 10);
    txt_num(out, child(m, "calls"), 10);
    txt_num(out, child(m, "replies"), 10);
    txt_num(out, child(m, "unanswered"), 10);
    txt_num(out, child(m, "errors"), 8);
    txt_lat(out, m);
}

/* COMPOUNDs by kind, then operations (rows with calls or results), as the
 * report's; `title` names a minor version ("" for the total). */
static void
txt_nfs4_tables(FILE *out, const struct mnode *obj, uint64_t compounds, const char *title)
{
    const struct mnode *kinds = child(obj, "kinds"), *ops = child(obj, "ops"), *c;

    fprintf(out, "COMPOUNDs by kind%s (main operations; sequence, putfh, getfh, savefh, "
                 "restorefh are glue):\n", title);
    fprintf(out, "%-16s %10s %6s %8s %8s %8s %8s %8s\n", "kind", "compounds", "%", "errors",
            "p50", "p90", "p99", "max");
    for (c = kinds && kinds->kind == N_OBJ ? kinds->first : NULL; c; c = c->next) {
        uint64_t n = get_u(child(c, "compounds"));

        if (!c->key || !n)
            continue;
        txt_label(out, c->key, 16);
        txt_num(out, child(c, "compounds"), 10);
        fprintf(out, " %5.1f%%", compounds ? 100.0 * (double)n / (double)compounds : 0.0);
        txt_num(out, child(c, "errors"), 8);
        txt_lat(out, c);
    }
    fprintf(out, "operations%s (latency: of the COMPOUNDs containing the operation):\n", title);
    fprintf(out, "%-16s %10s %10s %10s %8s %8s %8s %8s %8s\n", "op", "count", "results",
            "not eval", "errors", "p50", "p90", "p99", "max");
    for (c = ops && ops->kind == N_OBJ ? ops->first : NULL; c; c = c->next) {
        if (!c->key || (!get_u(child(c, "count")) && !get_u(child(c, "replies"))))
            continue;
        txt_label(out, c->key, 16);
        txt_num(out, child(c, "count"), 10);
        txt_num(out, child(c, "replies"), 10);
        txt_num(out, child(c, "not_evaluated"), 10);
        txt_num(out, child(c, "errors"), 8);
        txt_lat(out, c);
    }
}

/* The "NFS v4.x" section of an NFSv4 program: COMPOUNDs per minor version,
 * in total and NULL, then kinds and operations in total and per minor
 * version (when more than one was seen). Latency in microseconds. */
static void
txt_nfs4(FILE *out, const struct mnode *pg)
{
    const struct mnode *mv = child(pg, "minor_versions"), *m;
    uint64_t total = get_u(child(child(pg, "compound"), "calls"));
    unsigned seen = 0;
    char label[64];

    fputc('\n', out);
    txt_label(out, "NFS v4.x (", 0);
    txt_label(out, pg->key ? pg->key : "?", 0);
    fputs("): latency in us; - = no replies\n", out);
    fprintf(out, "%-10s %10s %10s %10s %8s %8s %8s %8s %8s\n", "COMPOUND", "calls", "replies",
            "unanswered", "errors", "p50", "p90", "p99", "max");
    for (m = mv && mv->kind == N_OBJ ? mv->first : NULL; m; m = m->next) {
        if (!m->key || !get_u(child(child(m, "compound"), "calls")))
            continue;
        snprintf(label, sizeof label, "v4.%.40s", m->key);
        txt_msg(out, label, child(m, "compound"));
        seen++;
    }
    txt_msg(out, "total", child(pg, "compound"));
    txt_msg(out, "null", child(pg, "null"));
    txt_nfs4_tables(out, pg, total, "");
    if (seen < 2)
        return;
    for (m = mv->first; m; m = m->next) {
        uint64_t n = get_u(child(child(m, "compound"), "calls"));

        if (!m->key || !n)
            continue;
        snprintf(label, sizeof label, " in v4.%.40s", m->key);
        txt_nfs4_tables(out, m, n, label);
    }
}

/* Per program and procedure: the text table (procedures with calls), or the
 * CSV rows of the report's CSV (every procedure, zero rows too). */
static void
emit_table(FILE *out, const struct mnode *root, bool csv)
{
    const struct mnode *pg, *op;
    size_t i;

    if (csv) {
        fputs("program,procedure", out);
        for (i = 0; i < NCOLS(op_cols); i++)
            fprintf(out, ",%s", op_cols[i]);
        for (i = 0; i < NCOLS(lat_cols); i++)
            fprintf(out, i == 0 ? ",lat_%s" : ",lat_%s_us", lat_cols[i]);
        fputs(",row,minor_version,not_evaluated\r\n", out);
    } else {
        const struct mnode *cap = child(root, "capture"), *rpc = child(root, "rpc");

        fprintf(out, "nfsscope merge: packets %" PRIu64 ", RPC calls %" PRIu64
                     ", replies %" PRIu64 ", unanswered %" PRIu64 "\n",
                get_u(child(cap, "packets")), get_u(child(rpc, "calls")),
                get_u(child(rpc, "replies")), get_u(child(rpc, "unanswered_calls")));
        fprintf(out, "%-10s %-12s", "program", "procedure");
        for (i = 0; i < 3; i++)
            fprintf(out, " %10s", op_cols[i]);
        for (i = 3; i < NCOLS(lat_cols); i++)
            fprintf(out, " %8s", lat_cols[i]);
        fputs("  (latency in us)\n", out);
    }
    for (pg = root->first; pg; pg = pg->next) {
        const struct mnode *ops = child(pg, "ops"), *msg = child(pg, "compound");

        if (msg && msg->kind == N_OBJ) { /* NFSv4: its messages ("ops" are the operations) */
            const struct mnode *cb = child(pg, "callbacks");

            emit_nfs4(out, pg, csv);
            if (cb && cb->kind == N_OBJ) { /* the callback program's rows, by its name */
                struct mnode named = *cb;
                char name[32];

                snprintf(name, sizeof name, "%s", nfs4_callback_program.name);
                named.key = name;
                emit_nfs4(out, &named, csv);
            }
            continue;
        }
        if (!ops || ops->kind != N_OBJ)
            continue;
        for (op = ops->first; op; op = op->next)
            emit_row(out, pg, op, csv, NULL);
    }
    for (pg = root->first; pg && !csv; pg = pg->next) /* NFSv4 sections after the table */
        if (child(pg, "compound") && child(pg, "compound")->kind == N_OBJ &&
            child(pg, "minor_versions"))
            txt_nfs4(out, pg);
}

/* ---- checking ------------------------------------------------------------ */

/* The members whose values are strings in a report (outside "findings");
 * every other leaf is a number or null. */
static const char *const string_members[] = { "schema", "key", "fh", "order", "filter",
                                               /* NFSv4 clients and sessions */
                                               "clientid", "address", "learned_by", "server",
                                               "client" /* rpc.tls.listed[] */ };

static bool
string_allowed(const struct mnode *m, const struct mnode *parent)
{
    size_t i;

    if (!m->key) /* an array element: the file names in "sources" */
        return parent && key_is(parent, "sources");
    for (i = 0; i < sizeof string_members / sizeof string_members[0]; i++)
        if (key_is(m, string_members[i]))
            return true;
    return false;
}

static const char *
kind_name(enum nkind k)
{
    switch (k) {
    case N_NULL: return "null";
    case N_BOOL: return "true or false";
    case N_STR: return "a string";
    case N_ARR: return "an array";
    case N_OBJ: return "an object";
    default: return "a number";
    }
}

/* The path of m below the root ("nfs3.ops.read.calls", "sources[2]"). */
static void
path_push(char *path, size_t sz, size_t at, const struct mnode *m, size_t idx)
{
    if (m->key)
        snprintf(path + at, sz - at, "%s%s", at ? "." : "", m->key);
    else
        snprintf(path + at, sz - at, "[%zu]", idx);
}

/* The first value in m (a report, or the merge so far) that merge refuses,
 * as "PATH: WHY" in err; false if there is none. `other`: the same member
 * in the reports merged so far (kinds must agree), or NULL. */
static bool
check_tree(const struct mnode *m, const struct mnode *parent, const struct mnode *other,
           char *path, size_t sz, char *err, size_t errsz)
{
    size_t at = strlen(path), idx = 0;
    const struct mnode *c;
    const char *why = NULL;
    char buf[96];

    if (m->kind == N_BAD) {
        why = "not a count (negative, too large or malformed)";
    } else if (m->kind == N_OVERFLOW) {
        why = "the sum passes 2^64 - 1";
    } else if ((m->kind == N_STR && !string_allowed(m, parent)) || m->kind == N_BOOL) {
        snprintf(buf, sizeof buf, "%s where a report has a number", kind_name(m->kind));
        why = buf;
    } else if (other && other->kind != N_NULL && m->kind != N_NULL &&
               (is_num(m) != is_num(other) || (!is_num(m) && m->kind != other->kind))) {
        snprintf(buf, sizeof buf, "%s, but %s in the reports before", kind_name(m->kind),
                 kind_name(other->kind));
        why = buf;
    }
    if (why) {
        char esc[4 * 128 + 1];

        term_escape(esc, sizeof esc, (const uint8_t *)path, at < 128 ? at : 128);
        snprintf(err, errsz, "\"%s\": %s", esc, why);
        return true;
    }
    if (m->kind != N_OBJ && m->kind != N_ARR)
        return false;
    for (c = m->first; c; c = c->next, idx++) {
        const struct mnode *o = NULL;

        if (!parent && key_is(c, "findings"))
            continue; /* not merged */
        if (other && other->kind == N_OBJ && c->key)
            o = child(other, c->key);
        path_push(path, sz, at, c, idx);
        if (check_tree(c, m, o, path, sz, err, errsz))
            return true;
        path[at] = '\0';
    }
    return false;
}

/* ---- main --------------------------------------------------------------- */

/* A report, checked (check_tree) alone and against `acc`, the reports
 * merged so far (NULL for the first). */
static struct mnode *
load(const char *path, const struct mnode *acc, char *err, size_t errsz)
{
    char schema[64], esc[4 * 64 + 1], tpath[512] = "", tperr[1024];
    size_t len = 0;
    char *text = read_all(path, &len, err, errsz);
    struct jsonr j;
    struct mnode *m = NULL;

    if (!text)
        return NULL;
    memset(&j, 0, sizeof j);
    if (jsonr_parse(&j, text, len, MERGE_MAX_NODES) != 0)
        snprintf(err, errsz, "%s: not a JSON report: %s", path, j.err);
    else if (j.n[0].type != JR_OBJ || jsonr_get(&j, 0, "rpc") == JSONR_NONE ||
             jsonr_get(&j, 0, "capture") == JSONR_NONE)
        snprintf(err, errsz, "%s: not an nfsscope JSON report (no \"capture\" and \"rpc\")",
                 path);
    else if (!jsonr_str(&j, jsonr_get(&j, 0, "schema"), schema, sizeof schema))
        snprintf(err, errsz, "%s: no \"schema\" (not an nfsscope JSON report)", path);
    else if (strcmp(schema, MERGE_SCHEMA) != 0)
        snprintf(err, errsz, "%s: schema \"%s\" is not %s, the one this nfsscope reads", path,
                 term_escape(esc, sizeof esc, (const uint8_t *)schema, strlen(schema)) < sizeof esc
                     ? esc
                     : "(too long)",
                 MERGE_SCHEMA);
    else if (!(m = convert(&j, 0, false)))
        snprintf(err, errsz, "%s: out of memory", path);
    jsonr_free(&j);
    free(text);
    if (m && check_tree(m, NULL, acc, tpath, sizeof tperr, tperr, sizeof tperr)) {
        snprintf(err, errsz, "%s: %s", path, tperr);
        mnode_free(m);
        m = NULL;
    }
    return m;
}

int
merge_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *fmt = "text"; /* as the report's */
    struct mnode *acc = NULL;
    char err[2048];
    int opt, i, rc = 0;

    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (opt) {
        case 'o':
            fmt = optarg;
            break;
        case 'h':
            fputs(merge_usage, stdout);
            return 0;
        default:
            fprintf(stderr, "nfsscope: merge: unknown option or missing value: %s\n%s",
                    argv[optind - 1], merge_usage);
            return 2;
        }
    }
    if (strcmp(fmt, "json") != 0 && strcmp(fmt, "text") != 0 && strcmp(fmt, "csv") != 0) {
        fprintf(stderr, "nfsscope: merge: -o \"%s\" is not one of json, text, csv\n%s", fmt,
                merge_usage);
        return 2;
    }
    if (argc - optind < 1) {
        fprintf(stderr, "nfsscope: merge: no reports given\n%s", merge_usage);
        return 2;
    }
    for (i = optind; i < argc; i++) {
        struct mnode *m = load(argv[i], acc, err, sizeof err);
        char path[512] = "", why[1024];

        if (!m) {
            fprintf(stderr, "nfsscope: merge: %s\n", err);
            mnode_free(acc);
            return 1;
        }
        if (!acc) {
            acc = m;
            continue;
        }
        merge_into(acc, m);
        mnode_free(m);
        if (check_tree(acc, NULL, NULL, path, sizeof path, why, sizeof why)) {
            fprintf(stderr, "nfsscope: merge: %s: %s\n", argv[i], why);
            mnode_free(acc);
            return 1;
        }
    }
    {   /* findings need the packets: not merged (see the top of this file) */
        struct mnode **pp = &acc->first, *prev = NULL;

        while (*pp && !key_is(*pp, "findings")) {
            prev = *pp;
            pp = &(*pp)->next;
        }
        if (*pp) {
            struct mnode *f = *pp;

            *pp = f->next;
            if (acc->last == f)
                acc->last = prev;
            f->next = NULL;
            mnode_free(f);
        }
    }
    fixup(acc);
    if (strcmp(fmt, "json") == 0) {
        struct json_w w;

        json_begin(&w, stdout, true);
        emit(&w, acc);
        if (json_end(&w) != 0)
            rc = 1;
    } else {
        emit_table(stdout, acc, strcmp(fmt, "csv") == 0);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "nfsscope: merge: standard output: write failed\n");
        rc = 1;
    }
    mnode_free(acc);
    return rc;
}
