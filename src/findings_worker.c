/* SPDX-License-Identifier: BSD-3-Clause */
/* findings_worker.c: findings_record() on a second thread (findings_worker.h).
 *
 * A record in the ring is the event (struct op_event, borrowed pointers
 * included but replaced on the other side, in the record itself: the
 * consumer owns it until it releases it), the connection's flow key, then
 * the borrowed bytes: fh, name, obj_fh, the conflicting lock's holder, and
 * per kept directory entry its descriptor, name and handle (READ/WRITE data
 * is never in an event).
 * fh2/name2 and the breakdown rows are not the findings' business and are
 * not sent. */
#include "findings_worker.h"

#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "findings.h"
#include "flow_key.h"
#include "spsc.h"
#include "stats.h"

struct fw_dirent { /* a kept READDIR(PLUS) entry; name and fh bytes follow the descriptors */
    struct op_attr attr;
    uint64_t fileid;
    uint32_t name_len, fh_len;
};

struct fw_rec {
    struct op_event ev;
    struct flow_key key;
    uint32_t fh_len, name_len, obj_len, holder_len;
    /* then: fh, name, obj_fh, lock holder bytes; struct fw_dirent[ndirent] (aligned);
     * their bytes */
};

struct findings_worker {
    struct findings *f;
    struct spsc ring;
    pthread_t th;
    uint64_t posted, inline_n;
    struct op_dirent dirents[OP_DIRENT_MAX]; /* its listing's entries (ev.dirent) */
};

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

/* Bytes the record of ev takes. */
static size_t
rec_size(const struct op_event *ev)
{
    size_t n = align8(sizeof(struct fw_rec) + ev->fh.len + ev->name.len + ev->obj_fh.len +
                      ev->v4.lock_holder.len);
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

    r->ev = *ev;
    r->key = *ev->key;
    r->fh_len = (uint32_t)ev->fh.len;
    r->name_len = (uint32_t)ev->name.len;
    r->obj_len = (uint32_t)ev->obj_fh.len;
    r->holder_len = (uint32_t)ev->v4.lock_holder.len;
    put(&p, ev->fh);
    put(&p, ev->name);
    put(&p, ev->obj_fh);
    put(&p, ev->v4.lock_holder);
    d = (struct fw_dirent *)(out + align8((size_t)(p - out)));
    p = (uint8_t *)(d + ev->ndirent);
    for (i = 0; i < ev->ndirent; i++) {
        const struct op_dirent *e = &ev->dirent[i];
        d[i].attr = e->attr;
        d[i].fileid = e->fileid;
        d[i].name_len = (uint32_t)e->name.len;
        d[i].fh_len = (uint32_t)e->fh.len;
        put(&p, e->name);
        put(&p, e->fh);
    }
}

/* The event back, in place, its pointers into the record (valid until it is
 * released). */
static const struct op_event *
decode(struct findings_worker *w, uint8_t *in)
{
    struct fw_rec *r = (struct fw_rec *)in;
    const uint8_t *p = in + sizeof *r;
    const struct fw_dirent *d;
    struct op_event *ev = &r->ev;
    unsigned i;

    ev->key = &r->key;
    ev->bd_idx = ev->bd_gen = NULL;
    ev->fh2.p = ev->name2.p = NULL;
    ev->fh2.len = ev->name2.len = 0;
    ev->fh = take(&p, r->fh_len);
    ev->name = take(&p, r->name_len);
    ev->obj_fh = take(&p, r->obj_len);
    ev->v4.lock_holder = take(&p, r->holder_len);
    ev->dirent = w->dirents;
    ev->dirent_cap = OP_DIRENT_MAX; /* ndirent <= OP_DIRENT_MAX: findings_wants */
    d = (const struct fw_dirent *)(in + align8((size_t)(p - in)));
    p = (const uint8_t *)(d + ev->ndirent);
    for (i = 0; i < ev->ndirent; i++) {
        struct op_dirent *e = &ev->dirent[i];
        e->attr = d[i].attr;
        e->fileid = d[i].fileid;
        e->name = take(&p, d[i].name_len);
        e->fh = take(&p, d[i].fh_len);
    }
    return ev;
}

static void *
run(void *arg)
{
    struct findings_worker *w = arg;
    const void *rec;
    size_t n;

    prctl(PR_SET_NAME, "findings"); /* as top -H and /proc/PID/task/TID/comm show it */
    while ((rec = spsc_peek(&w->ring, &n)) != NULL) {
        findings_record(w->f, decode(w, (uint8_t *)(uintptr_t)rec));
        spsc_release(&w->ring);
    }
    return NULL;
}

struct findings_worker *
findings_worker_start(struct findings *f, size_t ring_bytes)
{
    struct findings_worker *w;
    sigset_t all, old;
    int rc;

    if (!f)
        return NULL;
    w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->f = f;
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
    if (n > spsc_max_record(&w->ring)) { /* see findings_worker.h */
        spsc_wait_empty(&w->ring);
        findings_record(w->f, ev);
        w->inline_n++;
        return;
    }
    encode(spsc_reserve(&w->ring, n), ev);
    spsc_commit(&w->ring);
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
