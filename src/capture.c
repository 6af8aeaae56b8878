/* capture.c: libpcap input. Several files are read as one capture: each
 * handle keeps its next packet, and the earliest is taken first (a k-way
 * merge, k = number of files). */
#include "capture.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_link.h"

struct source {
    pcap_t *p;
    const char *name;
    int dlt;
    struct pcap_pkthdr *hdr; /* next packet, valid until the next read */
    const u_char *data;
    int done;
};

struct capture {
    struct source src[NFSSCOPE_MAX_FILES];
    size_t n;
    int live;
};

static int
apply_filter(struct source *s, const char *filter, char *err, size_t errlen)
{
    struct bpf_program prog;

    if (!filter)
        return 0;
    if (pcap_compile(s->p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
        snprintf(err, errlen, "bad filter expression \"%s\": %s", filter, pcap_geterr(s->p));
        return 2;
    }
    if (pcap_setfilter(s->p, &prog) != 0) {
        snprintf(err, errlen, "%s: cannot set filter: %s", s->name, pcap_geterr(s->p));
        pcap_freecode(&prog);
        return 1;
    }
    pcap_freecode(&prog);
    return 0;
}

static int
check_link(struct source *s, char *err, size_t errlen)
{
    s->dlt = pcap_datalink(s->p);
    if (!link_supported(s->dlt)) {
        snprintf(err, errlen, "%s: unsupported link type %s (%d)", s->name, link_name(s->dlt),
                 s->dlt);
        return 1;
    }
    return 0;
}

static int
open_live(struct capture *c, const struct nfsscope_config *cfg, char *err, size_t errlen)
{
    char ebuf[PCAP_ERRBUF_SIZE] = "";
    struct source *s = &c->src[0];
    int st;

    s->name = cfg->iface;
    s->p = pcap_create(cfg->iface, ebuf);
    if (!s->p) {
        snprintf(err, errlen, "%s: %s", cfg->iface, ebuf);
        return 1;
    }
    c->n = 1;
    c->live = 1;
    pcap_set_snaplen(s->p, 262144);
    pcap_set_promisc(s->p, 1);
    pcap_set_timeout(s->p, 100);
    pcap_set_immediate_mode(s->p, 1);
    pcap_set_tstamp_precision(s->p, PCAP_TSTAMP_PRECISION_NANO);
    st = pcap_activate(s->p);
    if (st < 0) {
        const char *hint = (st == PCAP_ERROR_PERM_DENIED)
                               ? " (run as root or grant CAP_NET_RAW and CAP_NET_ADMIN)"
                               : "";
        snprintf(err, errlen, "%s: %s: %s%s", cfg->iface, pcap_statustostr(st),
                 pcap_geterr(s->p), hint);
        return 1;
    }
    st = check_link(s, err, errlen);
    if (st == 0)
        st = apply_filter(s, cfg->filter, err, errlen);
    return st;
}

int
capture_open(struct capture **out, const struct nfsscope_config *cfg, char *err, size_t errlen)
{
    struct capture *c = calloc(1, sizeof *c);
    size_t i;
    int st = 0;

    *out = c;
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    if (cfg->iface)
        return open_live(c, cfg, err, errlen);
    for (i = 0; i < cfg->nfiles && st == 0; i++) {
        char ebuf[PCAP_ERRBUF_SIZE] = "";
        struct source *s = &c->src[i];
        FILE *fp;

        s->name = cfg->files[i];
        if (strcmp(s->name, "-") == 0) {
            s->name = "standard input";
            fp = stdin;
        } else {
            fp = fopen(s->name, "rb");
            if (!fp) {
                snprintf(err, errlen, "%s: cannot open: %s", s->name, strerror(errno));
                return 1;
            }
        }
        /* Large reads: a capture is read once, front to back. */
        setvbuf(fp, NULL, _IOFBF, 1u << 20);
        /* pcap_fopen_offline takes ownership of fp (closed by pcap_close). */
        s->p = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, ebuf);
        if (!s->p) {
            if (fp != stdin)
                fclose(fp);
            snprintf(err, errlen, "%s: not a pcap or pcapng capture: %s", s->name, ebuf);
            return 1;
        }
        c->n = i + 1;
        st = check_link(s, err, errlen);
        if (st == 0)
            st = apply_filter(s, cfg->filter, err, errlen);
    }
    return st;
}

/* Read the next packet of a source; on end of file or error mark it done.
 * A read error after some packets (a truncated file) is reported by the
 * caller through the anomaly counters, not as a failure. */
static int
advance(struct source *s, struct nfsscope_ctx *ctx)
{
    int r = pcap_next_ex(s->p, &s->hdr, &s->data);

    if (r == 1)
        return 1;
    if (r == PCAP_ERROR)
        anomaly_add(&ctx->stats.anom, ANOM_FILE_TRUNCATED, 1);
    s->done = 1;
    return 0;
}

static void
feed(struct nfsscope_ctx *ctx, const struct source *s)
{
    struct pkt p;

    p.ts.tv_sec = s->hdr->ts.tv_sec;
    p.ts.tv_nsec = s->hdr->ts.tv_usec; /* nanoseconds: opened with NANO precision */
    p.data = s->data;
    p.caplen = s->hdr->caplen;
    p.wirelen = s->hdr->len;
    p.dlt = s->dlt;
    pipeline_packet(ctx, &p);
}

static int
earlier(const struct pcap_pkthdr *a, const struct pcap_pkthdr *b)
{
    return a->ts.tv_sec < b->ts.tv_sec ||
           (a->ts.tv_sec == b->ts.tv_sec && a->ts.tv_usec < b->ts.tv_usec);
}

int
capture_run(struct capture *c, struct nfsscope_ctx *ctx, uint64_t max_packets,
            volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    uint64_t n = 0;
    size_t i;

    if (c->live) {
        struct source *s = &c->src[0];
        while (!*stop && (max_packets == 0 || n < max_packets)) {
            int r = pcap_next_ex(s->p, &s->hdr, &s->data);
            if (r == 0)
                continue; /* timeout: check the stop flag */
            if (r < 0) {
                if (r == PCAP_ERROR_BREAK)
                    break;
                snprintf(err, errlen, "%s: capture failed: %s", s->name, pcap_geterr(s->p));
                return 1;
            }
            feed(ctx, s);
            n++;
        }
        return 0;
    }
    for (i = 0; i < c->n; i++)
        advance(&c->src[i], ctx);
    while (!*stop && (max_packets == 0 || n < max_packets)) {
        struct source *best = NULL;
        for (i = 0; i < c->n; i++)
            if (!c->src[i].done && (!best || earlier(c->src[i].hdr, best->hdr)))
                best = &c->src[i];
        if (!best)
            break;
        feed(ctx, best);
        n++;
        advance(best, ctx);
    }
    return 0;
}

int64_t
capture_kernel_drops(struct capture *c)
{
    struct pcap_stat ps;

    if (!c || !c->live || pcap_stats(c->src[0].p, &ps) != 0)
        return -1;
    return (int64_t)ps.ps_drop + (int64_t)ps.ps_ifdrop;
}

void
capture_close(struct capture *c)
{
    size_t i;

    if (!c)
        return;
    for (i = 0; i < c->n; i++)
        if (c->src[i].p)
            pcap_close(c->src[i].p);
    free(c);
}
