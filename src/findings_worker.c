/* SPDX-License-Identifier: BSD-3-Clause */
/* findings_worker.c: findings_record() on a second thread (findings_worker.h).
 *
 * A record in the ring holds what findings_record() reads of an event and
 * nothing else (struct fw_rec: 192 bytes, three cache lines, where the
 * whole struct op_event is 512): each of its cache lines is written by the decoding
 * thread's core and read by the findings thread's, so fewer lines is less
 * traffic between the two. Then the NFSv4 part (struct op_nfs4) for the
 * programs that fill it (NFSv4, its callbacks, NLM's lock holders; the
 * NFSv3 dissector never writes it, so its events leave it out), then the
 * borrowed bytes: fh, name, obj_fh, the conflicting lock's holder, and per
 * kept directory entry its descriptor, name and handle (READ/WRITE data is
 * never in an event).
 * The findings thread rebuilds an op_event from it in memory of its own, in
 * which every field the record does not carry stays zero: fh2/name2, the
 * breakdown rows, the call's scratch, the frames, the XID and the rest are
 * not the findings' business. A field findings.c or findings_nfs4.c starts
 * to read must be added here (findings_worker_test sets the others to other
 * values on the worker's side and would then disagree). */
#include "findings_worker.h"

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "dissector.h"
#include "findings.h"
#include "flow_key.h"
#include "spsc.h"
#include "stats.h"

struct fw_dirent { /* a kept READDIR(PLUS) entry; name and fh bytes follow the descriptors */
    uint64_t digest;
    uint32_t name_len, fh_len;
    bool valid;
    uint8_t type;
};

/* What findings_record reads of an event (findings.c, findings_nfs4.c),
 * widest fields first. */
struct fw_rec {
    const struct rpc_program *pg;
    int64_t t_call, t_reply; /* ns: the findings read a time as ns_of() gives it */
    uint64_t read_bytes, write_bytes, offset;
    uint64_t attr_digest, obj_digest; /* (an attribute set's fileid is not read) */
    uint64_t fh_hash;
    struct flow_key key;
    uint32_t vers, proc, main_ops, status, read_req, rtmax, wtmax, uid;
    uint32_t access_req, access_granted, dir_entries;
    uint16_t fh_len, name_len, obj_len, holder_len; /* at most FW_LEN_MAX */
    uint16_t retrans, ndirent;
    uint8_t outcome, kind, opf, stable, call_dir, attr_type, obj_type;
    bool has_main_ops, has_status, eof, net_delay, has_verf, attr_valid, obj_valid, has_v4;
    bool has_fh_hash;
    uint8_t verf[8];
    /* then: struct op_nfs4 when has_v4; fh, name, obj_fh, lock holder bytes;
     * struct fw_dirent[ndirent] (aligned); their bytes */
};

/* The longest handle, name or lock holder a record carries (dissectors keep
 * far less: PC_FH_MAX, PC_NAME_MAX); an event with a longer one is recorded
 * on the calling thread, as one too large for the ring. */
#define FW_LEN_MAX UINT16_MAX

struct findings_worker {
    struct findings *f;
    struct spsc ring;
    pthread_t th;
    /* The decoding thread's counters, a cache line away from ev[], which
     * the findings thread writes for every record: sharing a line, every
     * call's count made the two cores pass it back and forth. */
    char pad0[SPSC_LINE];
    uint64_t posted, inline_n;
    char pad1[SPSC_LINE];
    /* The event rebuilt from a record and its listing's entries
     * (ev.dirent), for the record being recorded and for the next one,
     * prepared meanwhile: run() alternates between the two. */
    struct op_event ev[2];
    struct op_dirent dirents[2][OP_DIRENT_MAX];
    /* ev[i].v4 is all zero but its lock_holder (set by every decode): an
     * event without its NFSv4 part (NFSv3's) then needs no memset */
    bool v4_clear[2];
};
_Static_assert(offsetof(struct findings_worker, posted) >=
                   offsetof(struct findings_worker, ring) + sizeof(struct spsc) + SPSC_LINE &&
               offsetof(struct findings_worker, ev) >=
                   offsetof(struct findings_worker, inline_n) + sizeof(uint64_t) + SPSC_LINE,
               "the decoding thread's counters share no cache line with what the findings"
               " thread writes");

static size_t
align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static void
put(uint8_t **p, struct bytes b)
{
    if (b.len)
        memcpy(*p, b.p, b.len);
    *p += b.len;
}

static struct bytes
take(const uint8_t **p, uint32_t len)
{
    struct bytes b = { len ? *p : NULL, len };

    *p += len;
    return b;
}

#define SEC 1000000000LL

/* A time as the findings read it (findings.c ns_of), computed without
 * overflow's undefined behaviour; timespec_of gives a timespec whose ns_of
 * is that value again, whatever the original's tv_nsec was. */
static int64_t
ns_of(const struct timespec *t)
{
    return (int64_t)((uint64_t)t->tv_sec * (uint64_t)SEC + (uint64_t)t->tv_nsec);
}

static struct timespec
timespec_of(int64_t ns)
{
    struct timespec t;

#if LONG_MAX >= INT64_MAX
    /* all of it in tv_nsec: ns_of reads tv_sec * SEC + tv_nsec, the same
     * value without a division (the findings read a time only through it) */
    t.tv_sec = 0;
    t.tv_nsec = (long)ns;
#else
    t.tv_sec = (time_t)(ns / SEC);
    t.tv_nsec = (long)(ns % SEC);
#endif
    return t;
}

/* Whether ev's record carries its NFSv4 part: not for NFSv3 (a findings
 * program without an operation table), whose dissector never writes it. */
static bool
has_v4(const struct op_event *ev)
{
    return ev->pg && (ev->pg->ops || !(ev->pg->flags & PGF_FINDINGS));
}

/* Bytes the record of ev takes. */
static size_t
rec_size(const struct op_event *ev)
{
    size_t n = align8(sizeof(struct fw_rec) + (has_v4(ev) ? sizeof(struct op_nfs4) : 0) +
                      ev->fh.len + ev->name.len + ev->obj_fh.len + ev->v4.lock_holder.len);
    unsigned i;

    n += (size_t)ev->ndirent * sizeof(struct fw_dirent);
    for (i = 0; i < ev->ndirent; i++)
        n += ev->dirent[i].name.len + ev->dirent[i].fh.len;
    return n;
}

static void
encode(uint8_t *out, const struct op_event *ev)
{
    struct fw_rec *r = (struct fw_rec *)out;
    uint8_t *p = out + sizeof *r;
    struct fw_dirent *d;
    unsigned i;

    r->pg = ev->pg;
    r->t_call = ns_of(&ev->t_call);
    r->t_reply = ns_of(&ev->t_reply);
    r->read_bytes = ev->read_bytes;
    r->write_bytes = ev->write_bytes;
    r->offset = ev->offset;
    r->attr_digest = ev->attr.digest;
    r->obj_digest = ev->obj_attr.digest;
    r->key = *ev->key;
    r->vers = ev->vers;
    r->proc = ev->proc;
    r->main_ops = ev->main_ops;
    r->status = ev->status;
    r->read_req = ev->read_req;
    r->rtmax = ev->rtmax;
    r->wtmax = ev->wtmax;
    r->uid = ev->uid;
    r->access_req = ev->access_req;
    r->access_granted = ev->access_granted;
    r->dir_entries = ev->dir_entries;
    r->fh_hash = ev->fh_hash;
    r->fh_len = (uint16_t)ev->fh.len;
    r->name_len = (uint16_t)ev->name.len;
    r->obj_len = (uint16_t)ev->obj_fh.len;
    r->holder_len = (uint16_t)ev->v4.lock_holder.len;
    r->retrans = ev->retrans;
    r->ndirent = ev->ndirent;
    r->outcome = (uint8_t)ev->outcome;
    r->kind = ev->kind;
    r->opf = ev->opf;
    r->stable = ev->stable;
    r->call_dir = ev->call_dir;
    r->attr_type = ev->attr.type;
    r->obj_type = ev->obj_attr.type;
    r->has_main_ops = ev->has_main_ops;
    r->has_status = ev->has_status;
    r->eof = ev->eof;
    r->net_delay = ev->net_delay;
    r->has_verf = ev->has_verf;
    r->attr_valid = ev->attr.valid;
    r->obj_valid = ev->obj_attr.valid;
    r->has_v4 = has_v4(ev);
    r->has_fh_hash = ev->has_fh_hash;
    memcpy(r->verf, ev->verf, sizeof r->verf);
    if (r->has_v4) {
        memcpy(p, &ev->v4, sizeof ev->v4);
        p += sizeof ev->v4;
    }
    put(&p, ev->fh);
    put(&p, ev->name);
    put(&p, ev->obj_fh);
    put(&p, ev->v4.lock_holder);
    d = (struct fw_dirent *)(out + align8((size_t)(p - out)));
    p = (uint8_t *)(d + ev->ndirent);
    for (i = 0; i < ev->ndirent; i++) {
        const struct op_dirent *e = &ev->dirent[i];
        d[i].digest = e->attr.digest;
        d[i].valid = e->attr.valid;
        d[i].type = e->attr.type;
        d[i].name_len = (uint32_t)e->name.len;
        d[i].fh_len = (uint32_t)e->fh.len;
        put(&p, e->name);
        put(&p, e->fh);
    }
}

/* The event back, in the worker's own event (the fields the record does
 * not carry stay zero), its pointers into the record (valid until it is
 * released). */
static const struct op_event *
decode(struct findings_worker *w, unsigned which, const uint8_t *in)
{
    const struct fw_rec *r = (const struct fw_rec *)in;
    const uint8_t *p = in + sizeof *r;
    const struct fw_dirent *d;
    struct op_event *ev = &w->ev[which];
    unsigned i;

    ev->pg = r->pg;
    ev->t_call = timespec_of(r->t_call);
    ev->t_reply = timespec_of(r->t_reply);
    ev->read_bytes = r->read_bytes;
    ev->write_bytes = r->write_bytes;
    ev->offset = r->offset;
    ev->attr.digest = r->attr_digest;
    ev->obj_attr.digest = r->obj_digest;
    ev->fh_hash = r->fh_hash;
    ev->has_fh_hash = r->has_fh_hash;
    ev->key = &r->key;
    ev->vers = r->vers;
    ev->proc = r->proc;
    ev->main_ops = r->main_ops;
    ev->status = r->status;
    ev->read_req = r->read_req;
    ev->rtmax = r->rtmax;
    ev->wtmax = r->wtmax;
    ev->uid = r->uid;
    ev->access_req = r->access_req;
    ev->access_granted = r->access_granted;
    ev->dir_entries = r->dir_entries;
    ev->retrans = r->retrans;
    ev->ndirent = r->ndirent;
    ev->outcome = (enum op_outcome)r->outcome;
    ev->kind = r->kind;
    ev->opf = r->opf;
    ev->stable = r->stable;
    ev->call_dir = r->call_dir;
    ev->attr.type = r->attr_type;
    ev->obj_attr.type = r->obj_type;
    ev->has_main_ops = r->has_main_ops;
    ev->has_status = r->has_status;
    ev->eof = r->eof;
    ev->net_delay = r->net_delay;
    ev->has_verf = r->has_verf;
    ev->attr.valid = r->attr_valid;
    ev->obj_attr.valid = r->obj_valid;
    memcpy(ev->verf, r->verf, sizeof ev->verf);
    if (r->has_v4) {
        memcpy(&ev->v4, p, sizeof ev->v4);
        p += sizeof ev->v4;
        w->v4_clear[which] = false;
    } else if (!w->v4_clear[which]) {
        memset(&ev->v4, 0, sizeof ev->v4);
        w->v4_clear[which] = true;
    }
    ev->fh = take(&p, r->fh_len);
    ev->name = take(&p, r->name_len);
    ev->obj_fh = take(&p, r->obj_len);
    ev->v4.lock_holder = take(&p, r->holder_len);
    d = (const struct fw_dirent *)(in + align8((size_t)(p - in)));
    p = (const uint8_t *)(d + ev->ndirent);
    for (i = 0; i < ev->ndirent; i++) {
        struct op_dirent *e = &ev->dirent[i];
        e->attr.digest = d[i].digest;
        e->attr.valid = d[i].valid;
        e->attr.type = d[i].type;
        e->name = take(&p, d[i].name_len);
        e->fh = take(&p, d[i].fh_len);
    }
    return ev;
}

/* Each record is prepared (findings_prepare: its keys hashed, its table
 * rows loading) while the one before it is recorded, if the producer had
 * published it by then: a call's dozen or so cache misses in the findings'
 * tables then overlap the previous call's work instead of stalling its own. */
static void *
run(void *arg)
{
    struct findings_worker *w = arg;
    struct fnd_prep prep[2];
    const struct op_event *ev = NULL, *next;
    const void *rec;
    unsigned cur = 0;
    size_t n;

    prctl(PR_SET_NAME, "findings"); /* as top -H and /proc/PID/task/TID/comm show it */
    for (;;) {
        if (!ev) {
            rec = spsc_peek(&w->ring, &n);
            if (!rec)
                break;
            ev = decode(w, cur, rec);
            findings_prepare(w->f, ev, &prep[cur]);
        }
        next = NULL;
        rec = spsc_peek_next(&w->ring, &n);
        if (rec) {
            next = decode(w, cur ^ 1, rec);
            findings_prepare(w->f, next, &prep[cur ^ 1]);
        }
        findings_record_prepared(w->f, ev, &prep[cur]);
        spsc_release(&w->ring); /* the next record, if any, is now the peeked one */
        ev = next;
        cur ^= 1;
    }
    return NULL;
}

struct findings_worker *
findings_worker_start(struct findings *f, size_t ring_bytes)
{
    struct findings_worker *w;
    sigset_t all, old;
    unsigned i;
    int rc;

    if (!f)
        return NULL;
    w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->f = f;
    for (i = 0; i < 2; i++) { /* ndirent <= OP_DIRENT_MAX: findings_wants */
        w->ev[i].dirent = w->dirents[i];
        w->ev[i].dirent_cap = OP_DIRENT_MAX;
    }
    if (spsc_init(&w->ring, ring_bytes) != 0) {
        free(w);
        return NULL;
    }
    /* The thread blocks every signal (it inherits the mask it is created
     * with), so SIGINT and SIGTERM reach the capture thread, whose blocking
     * read or poll they must interrupt. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&w->th, NULL, run, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        spsc_fini(&w->ring);
        free(w);
        return NULL;
    }
    return w;
}

void
findings_worker_post(struct findings_worker *w, const struct op_event *ev)
{
    size_t n;

    if (!findings_wants(ev))
        return;
    w->posted++;
    n = rec_size(ev);
    if (n > spsc_max_record(&w->ring) || ev->fh.len > FW_LEN_MAX || ev->name.len > FW_LEN_MAX ||
        ev->obj_fh.len > FW_LEN_MAX || ev->v4.lock_holder.len > FW_LEN_MAX) {
        /* see findings_worker.h */
        spsc_wait_empty(&w->ring);
        findings_record(w->f, ev);
        w->inline_n++;
        return;
    }
    encode(spsc_reserve(&w->ring, n), ev);
    spsc_commit(&w->ring);
}

void
findings_worker_sync(struct findings_worker *w)
{
    /* The thread releases a record after recording it, and prepares one
     * only if it is queued: with the ring empty it touches nothing. */
    if (w)
        spsc_wait_empty(&w->ring);
}

void
findings_worker_finish(struct findings_worker *w)
{
    if (!w)
        return;
    spsc_close(&w->ring);
    pthread_join(w->th, NULL);
    spsc_fini(&w->ring);
    free(w);
}

uint64_t
findings_worker_posted(const struct findings_worker *w)
{
    return w ? w->posted : 0;
}

uint64_t
findings_worker_inline(const struct findings_worker *w)
{
    return w ? w->inline_n : 0;
}

size_t
findings_worker_record_bytes(const struct op_event *ev)
{
    return rec_size(ev);
}
