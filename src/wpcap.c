/* SPDX-License-Identifier: BSD-3-Clause */
/* wpcap.c: -w FILE, the RPC packets to a pcap file (see wpcap.h).
 *
 * The file is written through libpcap (pcap_open_dead + pcap_dump_fopen), so
 * the header and records are exactly what tcpdump -w would write; nanosecond
 * precision keeps the input's timestamps whatever their resolution.
 *
 * Fragments: a datagram is keyed by (af, proto, source, destination,
 * identification), as in ipfrag.c. Its entry says UNDECIDED (fragments seen,
 * first not yet: how many), KEEP or DROP (the first fragment decided). */
#include "wpcap.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "flow_key.h"
#include "hashtab.h"
#include "term_escape.h"

#define WPCAP_FILEBUF (1u << 20)
#define WPCAP_SNAPLEN 262144

enum { FE_FREE = 0, FE_UNDECIDED, FE_KEEP, FE_DROP };

struct fent {
    uint8_t state, af, proto;
    uint32_t id;
    uint32_t early; /* UNDECIDED: fragments seen before the first */
    uint8_t saddr[16], daddr[16];
    struct timespec t; /* first seen */
};

struct wpcap {
    pcap_t *dead;
    pcap_dumper_t *d;
    FILE *fp;
    char *iobuf;
    char name[256]; /* escaped, for messages */
    struct fent *fe;
    uint32_t mask;
    unsigned timeout_s;
    uint64_t seed;
    struct wpcap_counts n;
};

struct wpcap *
wpcap_open(const char *path, int dlt, int snaplen, size_t frag_slots, unsigned frag_timeout_s,
           uint64_t seed, char *err, size_t errsz)
{
    struct wpcap *w = calloc(1, sizeof *w);
    size_t n = 16;

    if (w)
        term_escape(w->name, sizeof w->name, (const uint8_t *)path, strlen(path));
    while (w && n < 2 * frag_slots && n < (1u << 26))
        n <<= 1;
    if (!w || !(w->fe = calloc(n, sizeof *w->fe)) || !(w->iobuf = malloc(WPCAP_FILEBUF))) {
        snprintf(err, errsz, "-w: out of memory");
        goto fail;
    }
    w->mask = (uint32_t)(n - 1);
    w->timeout_s = frag_timeout_s;
    w->seed = seed;
    if (w->seed == 0 && getrandom(&w->seed, sizeof w->seed, 0) != (ssize_t)sizeof w->seed)
        w->seed = 0x7770636170736565ULL;
    w->dead = pcap_open_dead_with_tstamp_precision(dlt, snaplen > 0 ? snaplen : WPCAP_SNAPLEN,
                                                   PCAP_TSTAMP_PRECISION_NANO);
    if (!w->dead) {
        snprintf(err, errsz, "-w: out of memory");
        goto fail;
    }
    w->fp = fopen(path, "wb");
    if (!w->fp) {
        snprintf(err, errsz, "-w: cannot write %s: %s", w->name, strerror(errno));
        goto fail;
    }
    setvbuf(w->fp, w->iobuf, _IOFBF, WPCAP_FILEBUF);
    w->d = pcap_dump_fopen(w->dead, w->fp); /* writes the file header */
    if (!w->d) {
        snprintf(err, errsz, "-w: cannot write %s: %s", w->name, pcap_geterr(w->dead));
        goto fail;
    }
    return w;
fail:
    if (w) {
        if (w->fp)
            fclose(w->fp);
        if (w->dead)
            pcap_close(w->dead);
        free(w->iobuf);
        free(w->fe);
        free(w);
    }
    return NULL;
}

void
wpcap_write(struct wpcap *w, const struct timespec *ts, uint32_t caplen, uint32_t wirelen,
            const uint8_t *data)
{
    struct pcap_pkthdr h;

    h.ts.tv_sec = ts->tv_sec;
    h.ts.tv_usec = (suseconds_t)ts->tv_nsec; /* nanoseconds: the dead handle is NANO */
    h.caplen = caplen;
    h.len = wirelen;
    pcap_dump((u_char *)w->d, &h, data);
    w->n.written++;
}

bool
wpcap_rpc_port(uint16_t sport, uint16_t dport)
{
    /* IANA: 111 sunrpc (RFC 1833 portmap/rpcbind), 2049 nfs (RFC 1813 §3). */
    return sport == 111 || dport == 111 || sport == 2049 || dport == 2049;
}

static bool
fent_live(const struct wpcap *w, const struct fent *e, const struct timespec *now)
{
    time_t dl;

    if (e->state == FE_FREE)
        return false;
    dl = e->t.tv_sec + (time_t)w->timeout_s;
    return now->tv_sec < dl || (now->tv_sec == dl && now->tv_nsec <= e->t.tv_nsec);
}

static bool
fent_is(const struct fent *e, const struct ipfrag_frag *f)
{
    return e->af == f->af && e->proto == f->proto && e->id == f->id &&
           memcmp(e->saddr, f->saddr, 16) == 0 && memcmp(e->daddr, f->daddr, 16) == 0;
}

bool
wpcap_frag(struct wpcap *w, const struct ipfrag_frag *f, bool first_is_rpc, bool finished,
           const struct timespec *ts)
{
    uint8_t key[40] = { f->af, f->proto, 0, 0, (uint8_t)(f->id >> 24), (uint8_t)(f->id >> 16),
                        (uint8_t)(f->id >> 8), (uint8_t)f->id };
    struct fent *e;
    bool live, keep;

    memcpy(key + 8, f->saddr, 16);
    memcpy(key + 24, f->daddr, 16);
    e = &w->fe[hash_bytes(key, sizeof key, w->seed) & w->mask];
    live = fent_live(w, e, ts);
    if (live && !fent_is(e, f)) {
        if (e->state != FE_DROP) /* losing a DROP loses nothing */
            w->n.frags_evicted++;
        live = false;
    }
    if (!live) {
        memset(e, 0, sizeof *e);
        e->state = FE_UNDECIDED;
        e->af = f->af;
        e->proto = f->proto;
        e->id = f->id;
        memcpy(e->saddr, f->saddr, 16);
        memcpy(e->daddr, f->daddr, 16);
        e->t = *ts;
    }
    if (f->offset == 0) {
        if (first_is_rpc && e->state == FE_UNDECIDED)
            w->n.frags_missed += e->early;
        e->state = first_is_rpc ? FE_KEEP : FE_DROP;
        e->early = 0;
    } else if (e->state == FE_UNDECIDED && e->early < UINT32_MAX) {
        e->early++;
    }
    keep = e->state == FE_KEEP;
    if (finished) /* the slot is free for the next datagram */
        e->state = FE_FREE;
    return keep;
}

void
wpcap_counts(const struct wpcap *w, struct wpcap_counts *out)
{
    memset(out, 0, sizeof *out);
    if (w)
        *out = w->n;
}

int
wpcap_close(struct wpcap *w, char *err, size_t errsz)
{
    int rc = 0;

    if (!w)
        return 0;
    if (pcap_dump_flush(w->d) != 0 || ferror(w->fp)) {
        snprintf(err, errsz, "-w: %s: write failed: %s", w->name, strerror(errno));
        rc = -1;
    }
    pcap_dump_close(w->d); /* closes w->fp */
    pcap_close(w->dead);
    free(w->iobuf);
    free(w->fe);
    free(w);
    return rc;
}
