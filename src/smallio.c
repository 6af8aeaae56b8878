/* SPDX-License-Identifier: BSD-3-Clause */
/* smallio.c: the small_io finding; see smallio.h. */
#include "smallio.h"

#include <string.h>

static struct small_peer *
peer(struct small_peer *t, struct addr_ix *ix, unsigned *n, unsigned max, uint8_t af,
     const uint8_t *addr)
{
    int r = addr_ix_row(ix, max, af, addr);

    if (r < 0)
        return NULL;
    if ((unsigned)r == *n) {
        t[r].af = af;
        memcpy(t[r].addr, addr, af == 6 ? 16 : 4);
        (*n)++;
    }
    return &t[r];
}

void
smallio_fsinfo(struct smallio *s, uint8_t af, const uint8_t *srv, uint32_t rtmax, uint32_t wtmax)
{
    struct small_peer *p = peer(s->srv, &s->srv_ix, &s->nservers, SMALL_SERVERS, af, srv);

    if (p) {
        p->rmax = rtmax;
        p->wmax = wtmax;
    }
}

bool
smallio_record(struct smallio *s, uint8_t af, const uint8_t *srv, const uint8_t *cli, bool write,
               uint32_t size, bool eof, uint64_t lat_us, uint64_t *saved)
{
    struct small_peer *sv = peer(s->srv, &s->srv_ix, &s->nservers, SMALL_SERVERS, af, srv);
    struct small_peer *cl = peer(s->cli, &s->cli_ix, &s->nclients, SMALL_CLIENTS, af, cli);
    uint32_t ref, *largest;

    *saved = 0;
    if (!sv || !cl) {
        s->not_kept++;
        return false;
    }
    if (write)
        s->writes++;
    else
        s->reads++;
    largest = write ? &cl->wmax : &cl->rmax;
    ref = write ? sv->wmax : sv->rmax;
    if (!ref)
        ref = *largest; /* no FSINFO seen: what the client sent before */
    if (size > *largest)
        *largest = size;
    if (!size || !ref || (uint64_t)size * SMALL_RATIO > ref || (!write && eof))
        return false;
    if (write) {
        s->small_writes++;
        s->small_write_bytes += size;
        cl->small_writes++;
        cl->small_write_bytes += size;
    } else {
        s->small_reads++;
        s->small_read_bytes += size;
        cl->small_reads++;
        cl->small_read_bytes += size;
    }
    *saved = lat_us - lat_us * size / ref;
    return true;
}

bool
smallio_reported(const struct smallio *s)
{
    return s->small_reads + s->small_writes >= SMALL_MIN_CALLS;
}
