/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_capfile.c: the capture reader (src/capfile.c) on any bytes.
 *
 * The input is a capture file, plain or compressed. It is read three ways:
 * in place (as a mapped file), and through the stream buffer fed a few
 * bytes at a time and a larger chunk at a time (the paths of standard input
 * and of records cut by the buffer's end). Every packet's bytes are read
 * (so ASan sees a read past the buffer), and the three must give the same
 * packets and the same end. An uncompressed input is also read by libpcap
 * (fmemopen, nanosecond precision): while libpcap reads on, the packets must
 * be the same; the reader may only go further where libpcap stops at what it
 * does not support (interfaces of different link types or snapshot lengths,
 * sections of different byte orders). Any difference aborts. */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capfile.h"
#include "fuzz.h"

#define FUZZ_MAX_PACKETS 20000

struct run {
    int open_rc;
    enum capfile_rc end;
    unsigned long n;
    uint64_t sum; /* of every packet's fields and bytes */
};

static uint64_t
pkt_sum(const struct capfile_pkt *p)
{
    uint64_t s = (uint64_t)p->ts.tv_sec * 1000003u + (uint64_t)p->ts.tv_nsec;
    uint32_t i;

    s = s * 31 + p->caplen;
    s = s * 31 + p->wirelen;
    s = s * 31 + (uint64_t)p->dlt;
    s = s * 31 + p->iface;
    for (i = 0; i < p->caplen; i++)
        s = s * 131 + p->data[i];
    return s;
}

static struct run
read_all(const uint8_t *data, size_t size, size_t chunk)
{
    struct run r = { 0, CAPFILE_EOF, 0, 0 };
    struct capfile *f;
    struct capfile_pkt p;
    char err[256];

    r.open_rc = capfile_open_mem(&f, data, size, chunk, err, sizeof err);
    if (r.open_rc == 0) {
        while (r.n < FUZZ_MAX_PACKETS && (r.end = capfile_next(f, &p)) == CAPFILE_PKT) {
            if (chunk == 0 && !capfile_compression(f) &&
                (p.data < data || p.data + p.caplen > data + size))
                abort(); /* in place: the packet must lie inside the input */
            r.sum = r.sum * 7 + pkt_sum(&p);
            r.n++;
        }
        (void)capfile_ifaces(f);
        (void)capfile_snaplen(f);
    }
    capfile_close(f);
    return r;
}

/* libpcap stops where the reader goes on, by design. */
static bool
libpcap_limit(const char *e)
{
    return strstr(e, "different from the") || strstr(e, "different byte orders") ||
           strstr(e, "bad byte order magic") || strstr(e, "major version");
}

static void
against_libpcap(const uint8_t *data, size_t size)
{
    char eb[PCAP_ERRBUF_SIZE], err[256];
    struct capfile *f = NULL;
    uint8_t *copy;
    FILE *fp;
    pcap_t *p;
    unsigned long n = 0;

    if (size == 0)
        return;
    copy = malloc(size);
    if (!copy)
        return;
    memcpy(copy, data, size);
    fp = fmemopen(copy, size, "rb");
    if (!fp) {
        free(copy);
        return;
    }
    /* fp is libpcap's once it opens (pcap_close closes it), else ours */
    p = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, eb);
    if (capfile_open_mem(&f, data, size, 0, err, sizeof err) != 0) {
        if (p && !capfile_compression(f))
            abort(); /* libpcap reads what the reader refuses */
        if (p)
            pcap_close(p);
        else
            fclose(fp);
        goto out;
    }
    if (!p) {
        fclose(fp);
        if (!capfile_compression(f) && !libpcap_limit(eb))
            abort(); /* the reader opens what libpcap refuses */
        goto out;
    }
    while (n++ < FUZZ_MAX_PACKETS) {
        struct pcap_pkthdr *h;
        const u_char *pd;
        struct capfile_pkt pk;
        int r = pcap_next_ex(p, &h, &pd);
        enum capfile_rc rc = capfile_next(f, &pk);

        if (r == 1 && rc == CAPFILE_PKT) {
            if (pk.ts.tv_sec != h->ts.tv_sec || pk.ts.tv_nsec != h->ts.tv_usec ||
                pk.caplen != h->caplen || pk.wirelen != h->len ||
                memcmp(pk.data, pd, h->caplen) != 0)
                abort();
            continue;
        }
        if (r == PCAP_ERROR_BREAK && rc == CAPFILE_EOF)
            break;
        if (r == PCAP_ERROR && rc == CAPFILE_CUT)
            break;
        if (r == PCAP_ERROR && libpcap_limit(pcap_geterr(p)))
            break;
        if (rc == CAPFILE_CUT && capfile_warning(f))
            break; /* the reader's own bounds */
        abort();
    }
    pcap_close(p);
out:
    capfile_close(f);
    free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct run a = read_all(data, size, 0);
    struct run b = read_all(data, size, 1 + size % 13);
    struct run c = read_all(data, size, 4096);

    if (a.open_rc != b.open_rc || a.open_rc != c.open_rc)
        abort();
    if (a.open_rc == 0 && (a.n != b.n || a.n != c.n || a.sum != b.sum || a.sum != c.sum ||
                           a.end != b.end || a.end != c.end))
        abort();
    against_libpcap(data, size);
    return 0;
}
