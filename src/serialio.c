/* SPDX-License-Identifier: BSD-3-Clause */
/* serialio.c: the serialized_io finding; see serialio.h. */
#include "serialio.h"

#include <string.h>

static struct ser_pair *
pair_of(struct serialio *s, uint8_t af, const uint8_t *srv, const uint8_t *cli)
{
    size_t alen = af == 6 ? 16 : 4;
    int r = addr_ix_row2(&s->ix, SER_PAIRS, af, srv, cli);
    struct ser_pair *p;

    if (r < 0)
        return NULL;
    p = &s->pair[r];
    if ((unsigned)r == s->npairs) {
        p->af = af;
        memcpy(p->srv, srv, alen);
        memcpy(p->cli, cli, alen);
        s->npairs++;
    }
    return p;
}

/* Add (add true) or take back a counted call's numbers. */
static void
count(struct serialio *s, struct ser_pair *p, const struct ser_mark *m, bool add)
{
    if (add) {
        p->calls++;
        p->bytes += m->bytes;
        p->lat_us += m->lat_us;
        *(m->write ? &s->writes : &s->reads) += 1;
        s->bytes += m->bytes;
        s->lat_us += m->lat_us;
        return;
    }
    p->calls--;
    p->bytes -= m->bytes;
    p->lat_us -= m->lat_us;
    *(m->write ? &s->writes : &s->reads) -= 1;
    s->bytes -= m->bytes;
    s->lat_us -= m->lat_us;
}

struct ser_mark *
serialio_record(struct serialio *s, uint8_t af, const uint8_t *srv, const uint8_t *cli,
                bool write, uint64_t bytes, int64_t t_call, int64_t t_reply, uint64_t lat_us,
                uint64_t *saved, struct ser_mark undo[SER_MARKS], unsigned *nundo)
{
    struct ser_pair *p = pair_of(s, af, srv, cli);
    struct ser_mark *m;
    bool alone, waiting;
    unsigned i;

    *saved = 0;
    *nundo = 0;
    if (!p) {
        s->not_kept++;
        return NULL;
    }
    /* counted calls still in flight when this one was sent: not alone */
    for (i = 0; i < SER_MARKS; i++) {
        m = &p->mark[i];
        if (m->t_reply && m->t_reply > t_call && m->t_call < t_reply) {
            count(s, p, m, false);
            undo[(*nundo)++] = *m;
            m->t_reply = 0;
        }
    }
    alone = p->last_reply && t_call >= p->last_reply;
    waiting = alone && (t_call - p->last_reply <= t_reply - t_call ||
                        t_call - p->last_reply <= (int64_t)SER_GAP_US * 1000);
    if (t_reply > p->last_reply)
        p->last_reply = t_reply;
    if (bytes < SER_MIN_SIZE)
        return NULL;
    s->bulk++;
    if (!waiting)
        return NULL;
    m = &p->mark[p->next_mark];
    p->next_mark = (p->next_mark + 1) % SER_MARKS;
    memset(m, 0, sizeof *m);
    m->t_call = t_call;
    m->t_reply = t_reply;
    m->bytes = bytes;
    m->lat_us = lat_us;
    m->write = write;
    count(s, p, m, true);
    *saved = lat_us - lat_us / SER_DEPTH;
    return m;
}

bool
serialio_reported(const struct serialio *s)
{
    return s->reads + s->writes >= SER_MIN_CALLS && s->bytes >= SER_MIN_BYTES;
}

uint64_t
serialio_rate(uint64_t bytes, uint64_t lat_us)
{
    return lat_us ? (uint64_t)((double)bytes * 1e6 / (double)lat_us) : 0;
}
