/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs4_truth.c: a test-only driver for the NFSv4 decoder: reads a capture,
 * reassembles TCP (src/tcp_reasm.c), splits RPC records itself keeping
 * whole messages, decodes every COMPOUND call and reply of program 100003
 * version 4 and every CB_COMPOUND, matches replies to calls by connection
 * and XID, and prints per-minor-version and per-operation tallies as
 * "key value" lines for tests/nfs4_truth_test.py to compare with tshark's
 * truth (../shared/pcaps/public/truth-v4/).
 *
 *   nfs4_truth FILE [HEAD TAIL]
 * With HEAD and TAIL, each message longer than HEAD + TAIL is decoded from
 * its first HEAD and last TAIL bytes only (as the RPC layer keeps them),
 * through struct nfs4_tail: the tallies must not change. */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_ip.h"
#include "decode_link.h"
#include "nfs4.h"
#include "rpc.h"
#include "tcp_reasm.h"

#define MAX_CONN 256
#define MAX_MSG (16u << 20)
#define NMINOR 3
#define NOPS 76 /* op numbers 0..75; ILLEGAL tallied at 0 */
#define NSTAT 128

struct dir_state {
    uint8_t *buf; /* the message being assembled, marks removed */
    uint32_t have, frag_left;
    uint8_t mark[4];
    uint8_t mark_have;
    bool last, lost; /* last fragment; lost: resynchronising after a gap */
};

#define NAMED_OPS 8 /* names kept per call: the first ops' LOOKUP/OPEN/REMOVE/CREATE names */
#define NAME_KEEP 48

struct pend {
    uint32_t xid;
    bool used, cb;
    struct nfs4_digest d;
    char name[NAMED_OPS][NAME_KEEP]; /* the call's names, for the reply's NFS4ERR_NOENT */
};

/* "key" -> count, for the names answered NOENT and the holders of DENIED locks. */
struct strcount {
    char key[96];
    uint64_t n;
};
static struct strcount noent[256], denied[256];
static uint64_t per_compound[NFS4_OPS_MAX + 1], deleg[8], why_none[16];
static struct strcount shapes[512];
static unsigned nshapes;
static unsigned nnoent, ndenied;

static void
strcount_add(struct strcount *t, unsigned *n, unsigned max, const char *key)
{
    unsigned i;

    for (i = 0; i < *n; i++)
        if (strcmp(t[i].key, key) == 0)
            break;
    if (i == *n) {
        if (*n == max)
            return;
        snprintf(t[i].key, sizeof t[i].key, "%s", key);
        (*n)++;
    }
    t[i].n++;
}

struct conn {
    struct flow_key key; /* as first seen */
    struct tcp_half half[2];
    struct dir_state dir[2];
    struct pend *pend;   /* open addressing on xid */
    uint32_t npend_slots;
};

/* Tallies. Status values are indexed through a small table of seen values. */
struct tally {
    uint64_t calls, replies;
    uint64_t status[NSTAT];
    uint64_t op_count[NOPS], op_in_replies[NOPS], op_not_eval[NOPS];
    uint64_t op_status[NOPS][NSTAT];
};

static struct conn conns[MAX_CONN];
static unsigned nconns;
static struct tally by_minor[NMINOR], cb_tally;
static uint32_t status_val[NSTAT];
static unsigned nstatus;
static uint64_t null_calls, null_replies, stable[3], committed[3], malformed, orphans;
static uint64_t write_bytes, read_bytes, sequence_ops;
static uint32_t max_slotid;
static uint8_t sessionids[64][NFS4_SESSIONID_SIZE];
static unsigned nsessionids;
static struct nfs4_chan fore[16];
static unsigned nfore;
static char kind_names[256][64];
static uint64_t kind_count[256];
static unsigned nkinds;
static size_t cut_head, cut_tail;
static struct tcp_reasm *tr;
static struct anomalies an;

static const char *opname(uint32_t i, bool cb, char *b, size_t n);

static unsigned
status_idx(uint32_t st)
{
    unsigned i;

    for (i = 0; i < nstatus; i++)
        if (status_val[i] == st)
            return i;
    if (nstatus == NSTAT)
        return NSTAT - 1;
    status_val[nstatus] = st;
    return nstatus++;
}

static unsigned
op_idx(uint32_t op)
{
    return op < NOPS ? op : 0;
}

static struct pend *
pend_slot(struct conn *c, uint32_t xid, bool cb, bool add)
{
    uint32_t i, h;

    if (!c->pend) {
        c->npend_slots = 1u << 14;
        c->pend = calloc(c->npend_slots, sizeof *c->pend);
    }
    h = (xid * 2654435761u) & (c->npend_slots - 1);
    for (i = 0; i < c->npend_slots; i++) {
        struct pend *p = &c->pend[(h + i) & (c->npend_slots - 1)];
        if (p->used && p->xid == xid && p->cb == cb)
            return p;
        if (!p->used) {
            if (!add)
                return NULL;
            p->used = true;
            p->xid = xid;
            p->cb = cb;
            return p;
        }
    }
    return NULL;
}

static void
count_kind(const struct nfs4_kind *k)
{
    char buf[64], up[64];
    unsigned i;
    size_t j;

    nfs4_kind_name(k, false, buf, sizeof buf);
    for (j = 0; buf[j] && j < sizeof up - 1; j++)
        up[j] = (char)(buf[j] >= 'a' && buf[j] <= 'z' ? buf[j] - 32 : buf[j]);
    up[j] = '\0';
    for (i = 0; i < nkinds; i++)
        if (strcmp(kind_names[i], up) == 0)
            break;
    if (i == nkinds && nkinds < 256)
        memcpy(kind_names[nkinds++], up, sizeof up);
    if (i < 256)
        kind_count[i]++;
}

/* Decode from the message's bytes, whole or as head + tail. */
static void
cursor_for(const uint8_t *msg, uint32_t len, struct bytes body, struct xdr_cur *x,
           struct nfs4_tail *t, bool *use_tail)
{
    size_t body_off = (size_t)(body.p - msg);

    *use_tail = false;
    if (cut_head && len > cut_head + cut_tail && body_off < cut_head) {
        struct bytes h = { body.p, cut_head - body_off };
        xdr_cur_init(x, h);
        t->b.p = msg + len - cut_tail;
        t->b.len = cut_tail;
        t->off = (uint32_t)(len - cut_tail - body_off);
        *use_tail = true;
        return;
    }
    xdr_cur_init(x, body);
}

static void
handle_msg(struct conn *c, unsigned dir, const uint8_t *msg, uint32_t len)
{
    static struct nfs4_call call;
    static struct nfs4_reply reply;
    struct bytes m = { msg, len };
    struct rpc_hdr h;
    struct xdr_cur x;
    struct nfs4_tail tail;
    bool use_tail;
    enum decode_rc rc = rpc_hdr_parse(m, &h);

    (void)dir;
    if (rc != DECODE_OK)
        return;
    if (h.msg_type == RPC_CALL) {
        bool fwd = h.prog == NFS4_PROGRAM && h.vers == NFS4_VERSION;
        bool cb = !fwd && (h.prog == NFS4_CB_PROGRAM || (h.prog >= 0x40000000 && h.prog <= 0x5fffffff)) &&
                  h.vers == 1;
        struct pend *p;
        if (!fwd && !cb)
            return;
        if (h.proc == NFSPROC4_NULL) {
            if (fwd)
                null_calls++;
            p = pend_slot(c, h.xid, cb, true);
            if (p)
                memset(&p->d, 0, sizeof p->d), p->d.nops = UINT32_MAX; /* NULL marker */
            return;
        }
        if (h.proc != NFSPROC4_COMPOUND || h.gss_wrapped)
            return;
        cursor_for(msg, len, h.body, &x, &tail, &use_tail);
        rc = cb ? nfs4_cb_compound_call(&x, &call)
                : nfs4_compound_call(&x, use_tail ? &tail : NULL, &call);
        if (rc != DECODE_OK)
            malformed++;
        p = pend_slot(c, h.xid, cb, true);
        if (!p)
            return;
        nfs4_digest_make(&call, &p->d);
        memset(p->name, 0, sizeof p->name);
        for (uint32_t k = 0; !cb && k < call.ndecoded && k < NAMED_OPS; k++) {
            const struct bytes *nm = &call.op[k].name;
            if (nm->len && nm->len < NAME_KEEP)
                memcpy(p->name[k], nm->p, nm->len);
        }
        {
            struct tally *tl = cb ? &cb_tally : &by_minor[call.minorversion < NMINOR ? call.minorversion : 0];
            uint32_t i;
            tl->calls++;
            if (!cb) {
                char shape[96], b[32];
                size_t used = 0;
                per_compound[call.ndecoded]++;
                shape[0] = '\0';
                for (i = 0; i < call.ndecoded && used < sizeof shape; i++) {
                    int w = snprintf(shape + used, sizeof shape - used, "%s%s", i ? " " : "",
                                     opname(call.op[i].op, false, b, sizeof b));
                    used += w > 0 ? (size_t)w : 0;
                }
                strcount_add(shapes, &nshapes, 512, shape);
            }
            for (i = 0; i < call.ndecoded; i++) {
                if (call.stop == NFS4_STOP_UNKNOWN && i + 1 == call.ndecoded)
                    break;
                tl->op_count[op_idx(call.op[i].op)]++;
                if (!cb && call.op[i].op == OP_WRITE) {
                    if (call.op[i].stable < 3)
                        stable[call.op[i].stable]++;
                    write_bytes += call.op[i].count;
                }
                if (!cb && call.op[i].op == OP_SEQUENCE) {
                    const struct nfs4_seq *q = &call.op[i].u.seq;
                    unsigned k;
                    sequence_ops++;
                    if (q->slotid > max_slotid)
                        max_slotid = q->slotid;
                    for (k = 0; k < nsessionids; k++)
                        if (memcmp(sessionids[k], q->sessionid, NFS4_SESSIONID_SIZE) == 0)
                            break;
                    if (k == nsessionids && k < 64)
                        memcpy(sessionids[nsessionids++], q->sessionid, NFS4_SESSIONID_SIZE);
                }
            }
        }
        return;
    }
    /* a reply */
    {
        bool cb = false;
        struct pend *p = pend_slot(c, h.xid, false, false);
        struct tally *tl;
        uint32_t i;
        if (!p) {
            p = pend_slot(c, h.xid, true, false);
            cb = p != NULL;
        }
        if (!p) {
            orphans++;
            return;
        }
        if (p->d.nops == UINT32_MAX - 1)
            return; /* a second reply to an answered call */
        if (p->d.nops == UINT32_MAX) { /* NULL */
            if (!cb)
                null_replies++;
            p->d.nops = UINT32_MAX - 1;
            return;
        }
        tl = cb ? &cb_tally : &by_minor[p->d.minorversion < NMINOR ? p->d.minorversion : 0];
        if (h.reply_stat != MSG_ACCEPTED || h.accept_stat != RPC_SUCCESS) {
            tl->replies++; /* refused at the RPC level: no COMPOUND4res, no op evaluated or not */
            p->d.nops = UINT32_MAX - 1;
            return;
        }
        cursor_for(msg, len, h.body, &x, &tail, &use_tail);
        rc = cb ? nfs4_cb_compound_reply(&x, &p->d, &reply)
                : nfs4_compound_reply(&x, use_tail ? &tail : NULL, &p->d, &reply);
        if (rc != DECODE_OK)
            malformed++;
        tl->replies++;
        tl->status[status_idx(reply.status)]++;
        if (!cb)
            count_kind(&p->d.kind);
        for (i = 0; i < reply.ndecoded; i++) {
            const struct nfs4_resop *r = &reply.res[i];
            if (!r->has_status)
                continue;
            tl->op_in_replies[op_idx(r->op)]++;
            tl->op_status[op_idx(r->op)][status_idx(r->status)]++;
            if (!cb && r->op == OP_WRITE && r->status == NFS4_OK && r->committed < 3)
                committed[r->committed]++;
            if (!cb && r->status == 2 /* NFS4ERR_NOENT */ && i < NAMED_OPS &&
                (r->op == OP_LOOKUP || r->op == OP_OPEN || r->op == OP_REMOVE ||
                 r->op == OP_CREATE)) {
                char key[96], b[32];
                snprintf(key, sizeof key, "%s\t%s", opname(r->op, false, b, sizeof b), p->name[i]);
                strcount_add(noent, &nnoent, 256, key);
            }
            if (!cb && (r->op == OP_LOCK || r->op == OP_LOCKT) && r->status == 10010) {
                static const char *const lt[] = { "0", "READ_LT", "WRITE_LT", "READW_LT",
                                                  "WRITEW_LT" };
                char key[96], b[32];
                int ow = (int)(r->u.denied.owner.len < 40 ? r->u.denied.owner.len : 40);
                snprintf(key, sizeof key, "%s\t%.*s %s %llu+%llu", opname(r->op, false, b, sizeof b),
                         ow, (const char *)r->u.denied.owner.p,
                         r->u.denied.locktype < 5 ? lt[r->u.denied.locktype] : "?",
                         (unsigned long long)r->offset, (unsigned long long)r->length);
                strcount_add(denied, &ndenied, 256, key);
            }
            if (!cb && r->op == OP_OPEN && r->status == NFS4_OK && r->u.open.delegation < 8)
                deleg[r->u.open.delegation]++;
            if (!cb && r->op == OP_OPEN && r->status == NFS4_OK &&
                r->u.open.delegation == OPEN_DELEGATE_NONE_EXT && r->u.open.why_none < 16)
                why_none[r->u.open.why_none]++;
            if (!cb && r->op == OP_READ && r->status == NFS4_OK)
                read_bytes += r->count;
            if (!cb && r->op == OP_CREATE_SESSION && r->status == NFS4_OK && nfore < 16)
                fore[nfore++] = r->u.cs.fore;
        }
        for (i = reply.ndecoded; i < p->d.ndecoded; i++)
            tl->op_not_eval[op_idx(nfs4_digest_op(&p->d, i))]++;
        p->d.nops = UINT32_MAX - 1; /* answered: a second reply is not counted */
    }
}

/* Record marking (RFC 5531 §11) over in-order bytes; whole messages kept. */
static void
feed(struct conn *c, unsigned dir, const uint8_t *p, size_t n)
{
    struct dir_state *d = &c->dir[dir];

    if (!d->buf)
        d->buf = malloc(MAX_MSG);
    while (n) {
        if (d->lost) { /* find a record mark followed by a valid header */
            size_t i;
            for (i = 0; i + 4 <= n; i++) {
                uint32_t mk = (uint32_t)p[i] << 24 | (uint32_t)p[i + 1] << 16 |
                              (uint32_t)p[i + 2] << 8 | p[i + 3];
                uint32_t fl = mk & 0x7fffffff;
                if (fl >= 24 && fl < MAX_MSG && rpc_probe(p + i + 4, n - i - 4, fl))
                    break;
            }
            if (i + 4 > n)
                return;
            p += i;
            n -= i;
            d->lost = false;
            d->have = d->frag_left = d->mark_have = 0;
        }
        if (d->frag_left == 0) {
            while (d->mark_have < 4 && n) {
                d->mark[d->mark_have++] = *p++;
                n--;
            }
            if (d->mark_have < 4)
                return;
            d->mark_have = 0;
            d->last = d->mark[0] & 0x80;
            d->frag_left = ((uint32_t)d->mark[0] & 0x7f) << 24 | (uint32_t)d->mark[1] << 16 |
                           (uint32_t)d->mark[2] << 8 | d->mark[3];
            if (d->frag_left > MAX_MSG - d->have) {
                d->lost = true;
                continue;
            }
            if (d->frag_left == 0 && d->last) {
                d->have = 0;
                continue;
            }
        }
        {
            size_t take = n < d->frag_left ? n : d->frag_left;
            memcpy(d->buf + d->have, p, take);
            d->have += (uint32_t)take;
            d->frag_left -= (uint32_t)take;
            p += take;
            n -= take;
            if (d->frag_left == 0 && d->last) {
                handle_msg(c, dir, d->buf, d->have);
                d->have = 0;
            }
        }
    }
}

static void
sink_data(void *ctx, void *flow, unsigned dir, struct bytes chunk, const struct timespec *ts)
{
    (void)ctx;
    (void)ts;
    feed(flow, dir, chunk.p, chunk.len);
}

static void
sink_gap(void *ctx, void *flow, unsigned dir, uint64_t nbytes, const struct timespec *ts)
{
    struct conn *c = flow;

    (void)ctx;
    (void)nbytes;
    (void)ts;
    c->dir[dir].lost = true;
}

static struct conn *
conn_for(const struct flow_key *k, unsigned *dir)
{
    struct flow_key r = flow_key_reverse(k);
    unsigned i;

    for (i = 0; i < nconns; i++) {
        if (flow_key_eq(&conns[i].key, k)) {
            *dir = 0;
            return &conns[i];
        }
        if (flow_key_eq(&conns[i].key, &r)) {
            *dir = 1;
            return &conns[i];
        }
    }
    if (nconns == MAX_CONN)
        return NULL;
    memset(&conns[nconns], 0, sizeof conns[0]);
    conns[nconns].key = *k;
    *dir = 0;
    return &conns[nconns++];
}

static const char *
opname(uint32_t i, bool cb, char *b, size_t n)
{
    const char *s = cb ? nfs4_cb_op_name(i ? i : OP_CB_ILLEGAL, b, n)
                       : nfs4_op_name(i ? i : OP_ILLEGAL, b, n);
    size_t j;

    if (s != b)
        snprintf(b, n, "%s", s);
    for (j = 0; b[j]; j++)
        if (b[j] >= 'a' && b[j] <= 'z')
            b[j] = (char)(b[j] - 32);
    return b;
}

static const char *
stname(unsigned k, char *b, size_t n)
{
    const char *s = nfs4_status_name(status_val[k]);

    if (s)
        return s;
    snprintf(b, n, "%u", (unsigned)status_val[k]);
    return b;
}

static void
print_tally(const char *pre, const struct tally *t, bool cb)
{
    unsigned i, k;
    char b[32], sb[32];

    if (!t->calls && !t->replies)
        return;
    printf("%s calls %llu\n%s replies %llu\n", pre, (unsigned long long)t->calls, pre,
           (unsigned long long)t->replies);
    for (k = 0; k < nstatus; k++)
        if (t->status[k])
            printf("%s status %s %llu\n", pre, stname(k, sb, sizeof sb),
                   (unsigned long long)t->status[k]);
    for (i = 0; i < NOPS; i++) {
        if (!t->op_count[i] && !t->op_in_replies[i])
            continue;
        opname(i, cb, b, sizeof b);
        printf("%s op %s count %llu\n", pre, b, (unsigned long long)t->op_count[i]);
        printf("%s op %s in_replies %llu\n", pre, b, (unsigned long long)t->op_in_replies[i]);
        printf("%s op %s not_evaluated %llu\n", pre, b, (unsigned long long)t->op_not_eval[i]);
        for (k = 0; k < nstatus; k++)
            if (t->op_status[i][k])
                printf("%s opstatus %s %s %llu\n", pre, b, stname(k, sb, sizeof sb),
                       (unsigned long long)t->op_status[i][k]);
    }
}

int
main(int argc, char **argv)
{
    static const char *const sname[] = { "UNSTABLE4", "DATA_SYNC4", "FILE_SYNC4" };
    char err[PCAP_ERRBUF_SIZE];
    struct tcp_reasm_config tc = { 8u << 20, 1u << 20 };
    struct stream_sink sink = { sink_data, sink_gap, NULL, NULL };
    struct pcap_pkthdr *ph;
    const u_char *pkt;
    pcap_t *pc;
    int dlt, r;
    unsigned i;

    if (argc != 2 && argc != 4) {
        fprintf(stderr, "usage: nfs4_truth FILE [HEAD TAIL]\n");
        return 2;
    }
    if (argc == 4) {
        cut_head = strtoul(argv[2], NULL, 10);
        cut_tail = strtoul(argv[3], NULL, 10);
    }
    pc = pcap_open_offline(argv[1], err);
    if (!pc) {
        fprintf(stderr, "nfs4_truth: %s: %s\n", argv[1], err);
        return 1;
    }
    dlt = pcap_datalink(pc);
    tr = tcp_reasm_new(&tc, &an);
    while ((r = pcap_next_ex(pc, &ph, &pkt)) >= 0) {
        struct l3_view l3;
        struct l4_seg seg;
        struct timespec ts;
        struct conn *c;
        unsigned dir;

        if (r == 0)
            continue;
        ts.tv_sec = ph->ts.tv_sec;
        ts.tv_nsec = (long)ph->ts.tv_usec * 1000;
        if (link_decode(dlt, pkt, ph->caplen, ph->len, &l3) != DECODE_OK)
            continue;
        if (ip_decode(NULL, &l3, &ts, &an, &seg) != DECODE_OK || seg.key.proto != FLOW_PROTO_TCP)
            continue;
        c = conn_for(&seg.key, &dir);
        if (c)
            tcp_reasm_push(tr, c->half, c, dir, &seg, &ts, &sink);
    }
    for (i = 0; i < NMINOR; i++) {
        char pre[16];
        snprintf(pre, sizeof pre, "minor %u", i);
        print_tally(pre, &by_minor[i], false);
    }
    print_tally("cb", &cb_tally, true);
    for (i = 0; i < nkinds; i++)
        printf("kind %s %llu\n", kind_names[i], (unsigned long long)kind_count[i]);
    for (i = 0; i < 3; i++) {
        if (stable[i])
            printf("stable %s %llu\n", sname[i], (unsigned long long)stable[i]);
        if (committed[i])
            printf("committed %s %llu\n", sname[i], (unsigned long long)committed[i]);
    }
    printf("bytes write %llu\nbytes read %llu\n", (unsigned long long)write_bytes,
           (unsigned long long)read_bytes);
    printf("sessions distinct_sessionids %u\nsessions sequence_ops %llu\n", nsessionids,
           (unsigned long long)sequence_ops);
    if (sequence_ops) /* no SEQUENCE: no slot (tshark's truth: null) */
        printf("sessions max_slotid %u\n", (unsigned)max_slotid);
    for (i = 0; i < nfore; i++)
        printf("fore %u %u %u %u %u\n", (unsigned)fore[i].maxrequestsize,
               (unsigned)fore[i].maxresponsesize, (unsigned)fore[i].maxresponsesize_cached,
               (unsigned)fore[i].maxoperations, (unsigned)fore[i].maxrequests);
    for (i = 0; i <= NFS4_OPS_MAX; i++)
        if (per_compound[i])
            printf("per_compound %u %llu\n", i, (unsigned long long)per_compound[i]);
    for (i = 0; i < 8; i++)
        if (deleg[i])
            printf("deleg %s %llu\n", nfs4_delegation_name(i), (unsigned long long)deleg[i]);
    for (i = 0; i < 16; i++)
        if (why_none[i])
            printf("why_none %s %llu\n", nfs4_why_no_delegation_name(i) ? nfs4_why_no_delegation_name(i) : "?",
                   (unsigned long long)why_none[i]);
    for (i = 0; i < nshapes; i++)
        printf("shape\t%s\t%llu\n", shapes[i].key, (unsigned long long)shapes[i].n);
    for (i = 0; i < nnoent; i++)
        printf("noent\t%s\t%llu\n", noent[i].key, (unsigned long long)noent[i].n);
    for (i = 0; i < ndenied; i++)
        printf("denied\t%s\t%llu\n", denied[i].key, (unsigned long long)denied[i].n);
    printf("null calls %llu\nnull replies %llu\nmalformed %llu\norphans %llu\n",
           (unsigned long long)null_calls, (unsigned long long)null_replies,
           (unsigned long long)malformed, (unsigned long long)orphans);
    pcap_close(pc);
    tcp_reasm_free(tr);
    for (i = 0; i < nconns; i++) {
        free(conns[i].pend);
        free(conns[i].dir[0].buf);
        free(conns[i].dir[1].buf);
    }
    return 0;
}
