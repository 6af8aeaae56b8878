/* SPDX-License-Identifier: BSD-3-Clause */
/* records.c: --records FILE, one row per finished call (see records.h). */
#include "records.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "community_id.h"
#include "csv_field.h"
#include "dissector.h"
#include "json.h"
#include "nfs4.h"
#include "stats.h"
#include "term_escape.h"

#define REC_PATH_MAX 4096                       /* names_path() result */
#define REC_ESC_MAX (4 * REC_PATH_MAX + 1)      /* term_escape worst case */
#define REC_NAME_MAX 255                        /* a name kept by the call (PC_NAME_MAX) */
#define REC_NAME_ESC_MAX (4 * REC_NAME_MAX + 1)
#define REC_LINE_MAX (2 * REC_ESC_MAX + 2 * REC_NAME_ESC_MAX + 2 * MSG_DETAIL_OPS_TEXT + 1024)
                                                /* CSV quoting doubles */
#define REC_FILEBUF (1u << 16)

struct records {
    FILE *fp;
    char *name; /* for messages */
    enum records_format fmt;
    char *iobuf;
    size_t len;                 /* bytes used in line */
    char path[REC_PATH_MAX];
    char esc[REC_ESC_MAX];
    char name_esc[REC_NAME_ESC_MAX];
    char line[REC_LINE_MAX];
    /* The first failed operation of the message to be written next
     * (records_op), cleared by each records_write. */
    bool err_set;
    char err_op[24], err_status[40];
};

static const char *const stable_names[3] = { "UNSTABLE", "DATA_SYNC", "FILE_SYNC" };
/* RFC 5531 §9 accept_stat */
static const char *const accept_names[] = { "SUCCESS",      "PROG_UNAVAIL", "PROG_MISMATCH",
                                            "PROC_UNAVAIL", "GARBAGE_ARGS", "SYSTEM_ERR" };

int
records_format_parse(const char *name, enum records_format *f)
{
    if (strcmp(name, "csv") == 0)
        *f = RECORDS_CSV;
    else if (strcmp(name, "jsonl") == 0)
        *f = RECORDS_JSONL;
    else
        return 0;
    return 1;
}

struct records *
records_open(const char *path, enum records_format f, char *err, size_t errsz)
{
    struct records *r = calloc(1, sizeof *r);

    if (!r || !(r->name = strdup(path)) || !(r->iobuf = malloc(REC_FILEBUF))) {
        snprintf(err, errsz, "--records: out of memory");
        goto fail;
    }
    r->fmt = f;
    r->fp = fopen(path, "wb");
    if (!r->fp) {
        snprintf(err, errsz, "--records: cannot write %s: %s", path, strerror(errno));
        goto fail;
    }
    setvbuf(r->fp, r->iobuf, _IOFBF, REC_FILEBUF);
    if (f == RECORDS_CSV)
        fputs(RECORDS_COLUMNS "\r\n", r->fp);
    return r;
fail:
    if (r) {
        free(r->iobuf);
        free(r->name);
        free(r);
    }
    return NULL;
}

/* Append to the line buffer (never overflows: REC_LINE_MAX covers a row). */
static void
put(struct records *r, const char *s, size_t n)
{
    if (n > sizeof r->line - r->len)
        n = sizeof r->line - r->len;
    memcpy(r->line + r->len, s, n);
    r->len += n;
}

static void putf(struct records *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void
putf(struct records *r, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(r->line + r->len, sizeof r->line - r->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        r->len += (size_t)n < sizeof r->line - r->len ? (size_t)n : sizeof r->line - r->len - 1;
}

/* A CSV field (csv_field.h); `wire`: a path from the network. */
static void
rec_field(struct records *r, const char *s, bool wire)
{
    char buf[CSV_FIELD_MAX(REC_ESC_MAX)];

    put(r, buf, csv_field(buf, sizeof buf, s, wire));
}

/* What a record holds, as text (empty: none); numbers stay numbers in JSON. */
struct rec {
    char time[48], client[INET6_ADDRSTRLEN], server[INET6_ADDRSTRLEN];
    const char *transport, *prog_name, *proc, *stable, *status, *outcome;
    char procbuf[24], statusbuf[40], fh[2 * 64 + 1], community_id[COMMUNITY_ID_LEN];
    uint16_t cport, sport, retrans;
    bool has_key, has_uid, has_gid, has_path, has_offset, has_count, has_latency, has_reply;
    uint32_t xid, prog, vers, uid, gid, call_len, reply_len;
    uint64_t offset, count, latency, call_frame, reply_frame; /* frames: 0 unknown */
    struct bytes name; /* raw, from the call */
    int64_t time_ns;
    /* A message with operations (rpc_program.detail). */
    bool has_minor, has_detail;
    unsigned minor;
    struct msg_detail d;
    char sessionid[2 * sizeof ((struct msg_detail *)0)->sessionid + 1];
};

static void
addr(char *dst, uint8_t af, const uint8_t *a)
{
    if (!inet_ntop(af == FLOW_AF_INET6 ? AF_INET6 : AF_INET, a, dst, INET6_ADDRSTRLEN))
        dst[0] = '\0';
}

static void
fill(struct records *r, const struct stats *s, const struct op_event *ev, struct rec *c)
{
    const struct flow_key *k = ev->key;
    size_t i, n;

    memset(c, 0, sizeof *c);
    c->time_ns = (int64_t)ev->t_call.tv_sec * 1000000000 + (int64_t)ev->t_call.tv_nsec;
    snprintf(c->time, sizeof c->time, "%" PRId64 ".%09ld", (int64_t)ev->t_call.tv_sec,
             (long)ev->t_call.tv_nsec);
    c->transport = "";
    if (k) {
        const uint8_t *ca = ev->call_dir ? k->daddr : k->saddr;
        const uint8_t *sa = ev->call_dir ? k->saddr : k->daddr;

        c->has_key = true;
        addr(c->client, k->af, ca);
        addr(c->server, k->af, sa);
        c->cport = ev->call_dir ? k->dport : k->sport;
        c->sport = ev->call_dir ? k->sport : k->dport;
        c->transport = k->proto == FLOW_PROTO_UDP ? "udp" : "tcp";
        community_id_v1(k, 0, c->community_id);
    }
    c->retrans = ev->retrans;
    c->call_frame = ev->call_frame;
    c->reply_frame = ev->outcome == OP_NO_REPLY ? 0 : ev->reply_frame;
    /* The name the call gave: LOOKUP, CREATE, MKDIR, SYMLINK, MKNOD, REMOVE,
     * RMDIR, RENAME (the old name) in its directory; LINK the new link's;
     * MNT the export path. The call keeps a name's first 255 bytes. */
    c->name = ev->name.len ? ev->name : ev->name2;
    if (c->name.len > REC_NAME_MAX)
        c->name.len = REC_NAME_MAX;
    if (c->name.len)
        term_escape(r->name_esc, sizeof r->name_esc, c->name.p, c->name.len);
    c->xid = ev->xid;
    c->prog = ev->prog;
    c->vers = ev->vers;
    c->prog_name = ev->pg ? ev->pg->name : "";
    c->proc = rpc_proc_name(ev->pg, ev->proc);
    if (ev->gss_proc >= 1 && ev->gss_proc <= 3) { /* RPCSEC_GSS control (RFC 2203 §5.2) */
        static const char *const ctl[3] = { "rpcsec_gss_init", "rpcsec_gss_continue_init",
                                            "rpcsec_gss_destroy" };
        c->proc = ctl[ev->gss_proc - 1];
    }
    if (!c->proc) {
        snprintf(c->procbuf, sizeof c->procbuf, "proc%" PRIu32, ev->proc);
        c->proc = c->procbuf;
    }
    c->uid = ev->uid;
    c->gid = ev->gid;
    c->has_uid = ev->uid != UINT32_MAX;
    c->has_gid = ev->gid != UINT32_MAX;
    n = ev->fh.len < 64 ? ev->fh.len : 64;
    for (i = 0; i < n; i++)
        snprintf(c->fh + 2 * i, 3, "%02x", ev->fh.p[i]);
    c->fh[2 * n] = '\0';
    if (ev->fh.len && s->names && names_path(s->names, ev->fh, r->path, sizeof r->path)) {
        c->has_path = true;
        term_escape(r->esc, sizeof r->esc, (const uint8_t *)r->path, strlen(r->path));
    }
    if ((ev->opf & OPF_RANGE) && ev->has_status) { /* the dissector fills offset with the status */
        c->has_offset = true;
        c->offset = ev->offset;
    }
    if (ev->write_bytes || (ev->stable <= STABLE_FILE_SYNC)) {
        c->has_count = true;
        c->count = ev->write_bytes;
    } else if (ev->read_bytes || (ev->kind == OPK_READ && ev->has_status && ev->status == 0)) {
        c->has_count = true;
        c->count = ev->read_bytes;
    }
    c->stable = ev->stable <= STABLE_FILE_SYNC ? stable_names[ev->stable] : "";
    c->status = "";
    if (ev->outcome == OP_RPC_ERROR) {
        if (ev->reply_stat != 0)
            c->status = "MSG_DENIED";
        else if (ev->accept_stat < sizeof accept_names / sizeof accept_names[0])
            c->status = accept_names[ev->accept_stat];
        else {
            snprintf(c->statusbuf, sizeof c->statusbuf, "accept_stat(%" PRIu32 ")",
                     ev->accept_stat);
            c->status = c->statusbuf;
        }
    } else if (ev->outcome == OP_REPLIED && ev->has_status) {
        const char *nm = ev->pg && ev->pg->status_name ? ev->pg->status_name(ev->status) : NULL;

        if (!nm) {
            snprintf(c->statusbuf, sizeof c->statusbuf, "unknown(%" PRIu32 ")", ev->status);
            nm = c->statusbuf;
        }
        c->status = nm;
    }
    c->call_len = ev->call_len;
    if (ev->outcome == OP_REPLIED || ev->outcome == OP_RPC_ERROR) {
        c->has_latency = c->has_reply = true;
        c->latency = stats_latency_us(&ev->t_call, &ev->t_reply);
        c->reply_len = ev->reply_len;
    }
    c->outcome = ev->outcome == OP_REPLIED     ? "replied"
                 : ev->outcome == OP_RPC_ERROR ? "rpc_error"
                                               : "no_reply";
    c->has_minor = ev->minor != 0xff;
    c->minor = ev->minor;
    if (ev->pg && ev->pg->detail && ev->call_priv &&
        ev->pg->detail(ev->proc, ev->call_priv, &c->d)) {
        c->has_detail = true;
        for (i = 0; c->d.has_session && i < sizeof c->d.sessionid; i++)
            snprintf(c->sessionid + 2 * i, 3, "%02x", c->d.sessionid[i]);
    }
}

void
records_op(struct records *r, const struct op_event *msg, const struct op_item *op)
{
    const struct rpc_program *pg = msg->pg;
    const char *nm;

    if (!r || r->err_set || op->phase != OPI_RESULT || !op->has_status || !pg)
        return;
    if (pg->status_error ? !pg->status_error(op->status) : op->status == 0)
        return;
    r->err_set = true;
    nm = nfs4_row_name(pg, op->op);
    if (nm)
        snprintf(r->err_op, sizeof r->err_op, "%s", nm);
    else
        snprintf(r->err_op, sizeof r->err_op, "op%" PRIu32, op->op);
    nm = pg->status_name ? pg->status_name(op->status) : NULL;
    if (nm)
        snprintf(r->err_status, sizeof r->err_status, "%s", nm);
    else
        snprintf(r->err_status, sizeof r->err_status, "unknown(%" PRIu32 ")", op->status);
}

#define OPT_U(has, fmtv) ((has) ? (fmtv) : "")

static void
write_csv(struct records *r, const struct rec *c)
{
    char num[8][24];

    snprintf(num[0], 24, "%" PRIu32, c->uid);
    snprintf(num[1], 24, "%" PRIu32, c->gid);
    snprintf(num[2], 24, "%" PRIu64, c->offset);
    snprintf(num[3], 24, "%" PRIu64, c->count);
    snprintf(num[4], 24, "%" PRIu64, c->latency);
    snprintf(num[5], 24, "%" PRIu32, c->reply_len);
    r->len = 0;
    putf(r, "%s,%s,%s,", c->time, c->client, c->server);
    if (c->has_key)
        putf(r, "%u,%u,", (unsigned)c->cport, (unsigned)c->sport);
    else
        put(r, ",,", 2);
    putf(r, "%s,%" PRIu32 ",%" PRIu32 ",", c->transport, c->xid, c->prog);
    rec_field(r, c->prog_name, false);
    putf(r, ",%" PRIu32 ",", c->vers);
    rec_field(r, c->proc, false);
    putf(r, ",%s,%s,%s,", OPT_U(c->has_uid, num[0]), OPT_U(c->has_gid, num[1]), c->fh);
    if (c->has_path)
        rec_field(r, r->esc, true);
    putf(r, ",%s,%s,%s,", OPT_U(c->has_offset, num[2]), OPT_U(c->has_count, num[3]), c->stable);
    rec_field(r, c->status, false);
    snprintf(num[6], 24, "%" PRIu64, c->call_frame);
    snprintf(num[7], 24, "%" PRIu64, c->reply_frame);
    putf(r, ",%s,%" PRIu32 ",%s,%s,%u,%s,%s,", OPT_U(c->has_latency, num[4]), c->call_len,
         OPT_U(c->has_reply, num[5]), c->outcome, (unsigned)c->retrans,
         OPT_U(c->call_frame != 0, num[6]), OPT_U(c->reply_frame != 0, num[7]));
    if (c->name.len)
        rec_field(r, r->name_esc, true);
    putf(r, ",%s,", c->community_id);
    if (c->has_minor)
        putf(r, "%u", c->minor);
    put(r, ",", 1);
    if (c->has_detail) {
        rec_field(r, c->d.ops, false);
        put(r, ",", 1);
        rec_field(r, c->d.kind, false);
    } else {
        put(r, ",", 1);
    }
    putf(r, ",%s,%s,%s,", r->err_set ? r->err_op : "", r->err_set ? r->err_status : "",
         c->sessionid);
    if (c->d.has_session)
        putf(r, "%" PRIu32 ",%" PRIu32, c->d.slotid, c->d.sequenceid);
    else
        put(r, ",", 1);
    put(r, "\r\n", 2);
    fwrite(r->line, 1, r->len, r->fp);
}

static void
kv_str_or_null(struct json_w *w, const char *key, bool has, const char *v)
{
    json_key(w, key);
    if (has)
        json_str(w, v);
    else
        json_null(w);
}

static void
kv_u64_or_null(struct json_w *w, const char *key, bool has, uint64_t v)
{
    json_key(w, key);
    if (has)
        json_u64(w, v);
    else
        json_null(w);
}

static void
write_jsonl(struct records *r, const struct rec *c)
{
    struct json_w w;

    json_begin(&w, r->fp, false);
    json_obj(&w);
    json_key(&w, "time");
    json_decimal(&w, c->time_ns, 9);
    kv_str_or_null(&w, "client", c->has_key, c->client);
    kv_str_or_null(&w, "server", c->has_key, c->server);
    kv_u64_or_null(&w, "client_port", c->has_key, c->cport);
    kv_u64_or_null(&w, "server_port", c->has_key, c->sport);
    kv_str_or_null(&w, "transport", c->has_key, c->transport);
    json_kv_u64(&w, "xid", c->xid);
    json_kv_u64(&w, "program", c->prog);
    kv_str_or_null(&w, "program_name", c->prog_name[0] != '\0', c->prog_name);
    json_kv_u64(&w, "version", c->vers);
    json_kv_str(&w, "procedure", c->proc);
    kv_u64_or_null(&w, "uid", c->has_uid, c->uid);
    kv_u64_or_null(&w, "gid", c->has_gid, c->gid);
    kv_str_or_null(&w, "fh", c->fh[0] != '\0', c->fh);
    json_key(&w, "path");
    if (c->has_path) /* raw bytes: the writer escapes controls, replaces bad UTF-8 */
        json_strn(&w, (const uint8_t *)r->path, strlen(r->path));
    else
        json_null(&w);
    kv_u64_or_null(&w, "offset", c->has_offset, c->offset);
    kv_u64_or_null(&w, "count", c->has_count, c->count);
    kv_str_or_null(&w, "stable_how", c->stable[0] != '\0', c->stable);
    kv_str_or_null(&w, "status", c->status[0] != '\0', c->status);
    kv_u64_or_null(&w, "latency_us", c->has_latency, c->latency);
    json_kv_u64(&w, "call_bytes", c->call_len);
    kv_u64_or_null(&w, "reply_bytes", c->has_reply, c->reply_len);
    json_kv_str(&w, "outcome", c->outcome);
    json_kv_u64(&w, "retransmissions", c->retrans);
    kv_u64_or_null(&w, "call_frame", c->call_frame != 0, c->call_frame);
    kv_u64_or_null(&w, "reply_frame", c->reply_frame != 0, c->reply_frame);
    json_key(&w, "name");
    if (c->name.len) /* raw bytes, as path */
        json_strn(&w, c->name.p, c->name.len);
    else
        json_null(&w);
    kv_str_or_null(&w, "community_id", c->has_key, c->community_id);
    kv_u64_or_null(&w, "minor_version", c->has_minor, c->minor);
    kv_str_or_null(&w, "ops", c->has_detail, c->d.ops);
    kv_str_or_null(&w, "kind", c->has_detail, c->d.kind);
    kv_str_or_null(&w, "first_error_op", r->err_set, r->err_op);
    kv_str_or_null(&w, "first_error_status", r->err_set, r->err_status);
    kv_str_or_null(&w, "sessionid", c->d.has_session, c->sessionid);
    kv_u64_or_null(&w, "slotid", c->d.has_session, c->d.slotid);
    kv_u64_or_null(&w, "sequenceid", c->d.has_session, c->d.sequenceid);
    json_close(&w);
    json_flush(&w);
    fputc('\n', r->fp); /* not json_end(): that flushes every line */
}

void
records_write(struct records *r, const struct stats *s, const struct op_event *ev)
{
    struct rec c;

    if (!r)
        return;
    if (ev->outcome != OP_ORPHAN_REPLY) {
        fill(r, s, ev, &c);
        if (r->fmt == RECORDS_CSV)
            write_csv(r, &c);
        else
            write_jsonl(r, &c);
    }
    r->err_set = false;
}

int
records_close(struct records *r, char *err, size_t errsz)
{
    int rc = 0;

    if (!r)
        return 0;
    if (fflush(r->fp) != 0 || ferror(r->fp)) {
        snprintf(err, errsz, "--records: %s: write failed: %s", r->name, strerror(errno));
        rc = -1;
    }
    if (fclose(r->fp) != 0 && rc == 0) {
        snprintf(err, errsz, "--records: %s: write failed: %s", r->name, strerror(errno));
        rc = -1;
    }
    free(r->iobuf);
    free(r->name);
    free(r);
    return rc;
}
