/* SPDX-License-Identifier: BSD-3-Clause */
/* capture.c: packets in. Several files are read as one capture: each
 * source keeps its next packet, and the earliest is taken first (a k-way
 * merge, k = number of files). Files are read by src/capfile.c, where every
 * packet carries its own interface's link type, and the BPF filter runs with
 * pcap_offline_filter(), compiled once per link type met; or, with --reader
 * libpcap, by pcap_fopen_offline(), filtered the same way. A live
 * interface is read through poll() on its selectable descriptor, in blocks
 * the kernel hands over when full or 100 ms old (TPACKET_V3, as tcpdump
 * reads), so periodic reports, the --duration deadline and the stop flag are
 * served on time.
 *
 * Every packet carries its frame number, 1-based, as Wireshark counts them:
 * the packets read, in the order fed, so a file's own numbers, and for
 * several files the numbers of their merge in time order (as `mergecap -w`
 * merges them). So that packets the BPF filter drops still count, files are
 * filtered here, per packet, by either reader; live, the kernel filters and
 * the number counts the packets captured. */
#include "capture.h"

#include <errno.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "capfile.h"
#include "decode_link.h"
#include "term_escape.h"

struct source {
    pcap_t *p;           /* live, or a file with --reader libpcap */
    struct capfile *cf;  /* a file with the builtin reader */
    const char *name;
    int dlt;             /* the first interface's link type */
    struct pkt next;     /* files: the next packet, valid until the next read */
    int done;
    int cut, cut_counted; /* the file stopped inside a record (file_truncated) */
    int nano; /* timestamps in nanoseconds (files always; live when supported) */
    char *iobuf; /* files: the stdio buffer, freed after pcap_close */
    const struct bpf_program *prog; /* files: the filter for prog_dlt */
    int prog_dlt;
    int next_match;      /* files: the next packet passes the filter */
};

#define FILE_READ_BUF (256u << 10) /* per -r file: 256 KiB reads instead of 4 KiB */
#define FILTER_DLTS 16            /* link types a filter is compiled for, at most */
#define LIVE_TIMEOUT_MS 100       /* a live block is handed over when full or this old */

/* The filter compiled for one link type (builtin reader). */
struct dlt_filter {
    int dlt;
    struct bpf_program prog;
};

struct capture {
    struct source src[NFSSCOPE_MAX_FILES];
    size_t n;
    int live;
    int nonblock; /* live: handle switched to non-blocking */
    int snaplen;
    uint64_t frames; /* packets read so far: the frame number of the last */
    char warning[PCAP_ERRBUF_SIZE + 64]; /* pcap_activate's warning, if any */
    const char *filter;
    struct dlt_filter filt[FILTER_DLTS];
    size_t nfilt;
    struct nfsscope_ctx *ctx; /* files: where the stop reason is counted */
    char fatal[2048];         /* files: why reading stopped part way (capture_run fails) */
};

bool
capture_reader_parse(const char *s, int *out)
{
    if (strcmp(s, "builtin") == 0)
        *out = CAPTURE_READER_BUILTIN;
    else if (strcmp(s, "libpcap") == 0)
        *out = CAPTURE_READER_LIBPCAP;
    else
        return false;
    return true;
}

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

/* A file name made safe for the error line (term_escape.h: a name from a
 * glob over a directory others write to may hold escape sequences). */
static const char *
esc_name(char *buf, size_t sz, const char *name)
{
    term_escape(buf, sz, (const uint8_t *)name, strlen(name));
    return buf;
}

static int
check_link(struct source *s, char *err, size_t errlen)
{
    char nb[256];

    if (!link_supported(s->dlt)) {
        snprintf(err, errlen, "%s: unsupported link type %s (%d)", esc_name(nb, sizeof nb, s->name),
                 link_name(s->dlt), s->dlt);
        return 1;
    }
    return 0;
}

/* A loopback interface hands a packet socket every packet twice: as it is
 * sent (PACKET_OUTGOING) and as it comes back in, and libpcap throws the
 * first copy away only after the kernel has copied it into the ring, in the
 * sender's context. Told to leave outgoing packets out (packet(7),
 * PACKET_IGNORE_OUTGOING, Linux 4.20), the kernel copies each packet once:
 * the ring holds twice as many, the sender does half the copying, and the
 * drop count counts packets, not copies. The packets read are the same. */
static void
skip_looped_copies(struct source *s)
{
#ifdef PACKET_IGNORE_OUTGOING
    struct ifreq ifr;
    int fd = pcap_fileno(s->p), one = 1;

    if (strlen(s->name) >= sizeof ifr.ifr_name)
        return;
    memset(&ifr, 0, sizeof ifr);
    memcpy(ifr.ifr_name, s->name, strlen(s->name));
    if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 && (ifr.ifr_flags & IFF_LOOPBACK))
        (void)setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
#else
    (void)s;
#endif
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
        snprintf(err, errlen, "%s: cannot capture: %s", cfg->iface, ebuf);
        return 1;
    }
    c->n = 1;
    c->live = 1;
    c->snaplen = cfg->snaplen > 0 ? cfg->snaplen : 262144;
    pcap_set_snaplen(s->p, c->snaplen);
    pcap_set_promisc(s->p, !cfg->no_promisc);
    /* Not immediate mode: there every packet takes a ring slot of the
     * snapshot length (32 MiB held about 128 packets, and a short stall
     * dropped packets from 10,000 per second). In blocks, packets are packed
     * as they come and a block is handed over when full or after the 100 ms
     * timeout, which the view's refresh and --interval easily allow. */
    pcap_set_buffer_size(s->p, (cfg->buffer_kib > 0 ? cfg->buffer_kib : 32768) * 1024);
    pcap_set_timeout(s->p, LIVE_TIMEOUT_MS);
    (void)pcap_set_tstamp_precision(s->p, PCAP_TSTAMP_PRECISION_NANO); /* else micro */
    st = pcap_activate(s->p);
    if (st < 0) {
        switch (st) {
        case PCAP_ERROR_NO_SUCH_DEVICE:
            snprintf(err, errlen, "%s: no such interface (see 'ip link'; -i any captures on all)",
                     cfg->iface);
            break;
        case PCAP_ERROR_PERM_DENIED:
            snprintf(err, errlen, "%s: no permission to capture: run as root, or give nfsscope"
                                  " CAP_NET_RAW (setcap cap_net_raw=ep nfsscope; see the"
                                  " man page, PRIVILEGES)",
                     cfg->iface);
            break;
        case PCAP_ERROR_IFACE_NOT_UP:
            snprintf(err, errlen, "%s: interface is down", cfg->iface);
            break;
        default:
            snprintf(err, errlen, "%s: cannot capture: %s: %s", cfg->iface, pcap_statustostr(st),
                     pcap_geterr(s->p));
        }
        return 1;
    }
    if (st > 0) /* a warning, not an error (libpcap's capturetest) */
        snprintf(c->warning, sizeof c->warning, "%s: %s", pcap_statustostr(st),
                 pcap_geterr(s->p));
    skip_looped_copies(s);
    s->nano = pcap_get_tstamp_precision(s->p) == PCAP_TSTAMP_PRECISION_NANO;
    s->dlt = pcap_datalink(s->p);
    st = check_link(s, err, errlen);
    if (st == 0)
        st = apply_filter(s, cfg->filter, err, errlen);
    return st;
}

/* Builtin reader: the filter compiled for link type `dlt` (once per link
 * type, for every source), or NULL with `err` set when it does not compile. */
static const struct bpf_program *
filter_for(struct capture *c, int dlt, int snaplen, bool first, char *err, size_t errlen)
{
    struct dlt_filter *df;
    pcap_t *dead;
    size_t i;

    for (i = 0; i < c->nfilt; i++)
        if (c->filt[i].dlt == dlt)
            return &c->filt[i].prog;
    if (c->nfilt == FILTER_DLTS) {
        snprintf(err, errlen, "the filter is compiled for at most %d link types", FILTER_DLTS);
        return NULL;
    }
    dead = pcap_open_dead_with_tstamp_precision(dlt, snaplen > 0 ? snaplen : 262144,
                                                PCAP_TSTAMP_PRECISION_NANO);
    if (!dead) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    df = &c->filt[c->nfilt];
    if (pcap_compile(dead, &df->prog, c->filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
        if (first)
            snprintf(err, errlen, "bad filter expression \"%s\": %s", c->filter, pcap_geterr(dead));
        else
            snprintf(err, errlen, "bad filter expression \"%s\" for link type %s (%d): %s",
                     c->filter, link_name(dlt), dlt, pcap_geterr(dead));
        pcap_close(dead);
        return NULL;
    }
    pcap_close(dead);
    df->dlt = dlt;
    c->nfilt++;
    return &df->prog;
}

/* A file through src/capfile.c: the filter compiled for every interface
 * described before its first packet. */
static int
open_builtin(struct capture *c, struct source *s, const char *path, char *err, size_t errlen)
{
    char ebuf[256], nb[256];
    size_t k;
    int st;

    if (capfile_open(&s->cf, path, ebuf, sizeof ebuf) != 0) {
        snprintf(err, errlen, "%s: %s", esc_name(nb, sizeof nb, s->name), ebuf);
        return 1;
    }
    s->nano = 1;
    s->dlt = capfile_iface_dlt(s->cf, 0);
    s->prog_dlt = -1;
    st = check_link(s, err, errlen);
    for (k = 0; st == 0 && c->filter && k < capfile_ifaces(s->cf); k++) {
        int dlt = capfile_iface_dlt(s->cf, k);
        char fe[PCAP_ERRBUF_SIZE + 512];

        if (!filter_for(c, dlt, capfile_snaplen(s->cf), c->nfilt == 0, fe, sizeof fe)) {
            if (c->nfilt == 0) {
                snprintf(err, errlen, "%s", fe);
            } else {
                snprintf(err, errlen, "%s: interface %zu: %s", esc_name(nb, sizeof nb, s->name),
                         k, fe);
            }
            st = 2;
        }
    }
    return st;
}

/* A file through libpcap (--reader libpcap). */
static int
open_libpcap(struct capture *c, struct source *s, const char *path, char *err, size_t errlen)
{
    char ebuf[PCAP_ERRBUF_SIZE] = "";
    char nb[256];
    FILE *fp;
    int st;

    if (strcmp(path, "-") == 0) {
        fp = stdin;
    } else {
        fp = fopen(path, "rb");
        if (!fp) {
            const char *why = strerror(errno);

            snprintf(err, errlen, "%s: cannot open: %s", esc_name(nb, sizeof nb, s->name), why);
            return 1;
        }
    }
    /* Large reads: a capture is read once, front to back. (glibc ignores
     * setvbuf's size without a buffer, and its own is st_blksize: 4 KiB,
     * a system call per 4 KiB.) Without memory, the default buffer. */
    if (fp == stdin) {
        static char stdin_buf[FILE_READ_BUF]; /* stdin is never closed: never freed */
        setvbuf(fp, stdin_buf, _IOFBF, sizeof stdin_buf);
    } else if ((s->iobuf = malloc(FILE_READ_BUF)) != NULL) {
        setvbuf(fp, s->iobuf, _IOFBF, FILE_READ_BUF);
    }
    /* pcap_fopen_offline takes ownership of fp (closed by pcap_close). */
    s->p = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, ebuf);
    if (!s->p) {
        if (fp != stdin)
            fclose(fp);
        free(s->iobuf);
        s->iobuf = NULL;
        snprintf(err, errlen, "%s: not a pcap or pcapng capture: %s%s",
                 esc_name(nb, sizeof nb, s->name), ebuf,
                 strstr(ebuf, "unknown file format")
                     ? " (the libpcap reader reads no compressed files: drop --reader libpcap)"
                     : "");
        return 1;
    }
    s->nano = 1;
    s->dlt = s->prog_dlt = pcap_datalink(s->p);
    st = check_link(s, err, errlen);
    if (st == 0 && c->filter) { /* per packet, not on the handle: see the top */
        char fe[PCAP_ERRBUF_SIZE + 512];

        s->prog = filter_for(c, s->dlt, pcap_snapshot(s->p), c->nfilt == 0, fe, sizeof fe);
        if (!s->prog) {
            snprintf(err, errlen, "%s", fe);
            st = 2;
        }
    }
    return st;
}

static int advance(struct capture *c, struct source *s);

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
    c->filter = cfg->filter;
    for (i = 0; i < cfg->nfiles && st == 0; i++) {
        struct source *s = &c->src[i];

        s->name = strcmp(cfg->files[i], "-") == 0 ? "standard input" : cfg->files[i];
        c->n = i + 1;
        if (cfg->reader == CAPTURE_READER_LIBPCAP)
            st = open_libpcap(c, s, cfg->files[i], err, errlen);
        else
            st = open_builtin(c, s, cfg->files[i], err, errlen);
    }
    /* Every source's first packet, so that a file libpcap cannot read past
     * its first blocks fails here, before any report. */
    for (i = 0; i < c->n && st == 0; i++)
        advance(c, &c->src[i]);
    if (st == 0 && c->fatal[0]) {
        snprintf(err, errlen, "%s", c->fatal);
        st = 1;
    }
    return st;
}

/* The builtin reader meets a link type: the filter for it, and -w's check
 * that it is the one the output file holds. 0, or -1 with c->fatal set. */
static int
new_link(struct capture *c, struct source *s, int dlt, uint32_t iface)
{
    char nb[256], fe[PCAP_ERRBUF_SIZE + 128];

    s->prog_dlt = dlt;
    s->prog = NULL;
    if (c->filter) {
        s->prog = filter_for(c, dlt, capfile_snaplen(s->cf), false, fe, sizeof fe);
        if (!s->prog) {
            snprintf(c->fatal, sizeof c->fatal, "%s: interface %u: %s",
                     esc_name(nb, sizeof nb, s->name), iface, fe);
            return -1;
        }
    }
    if (c->ctx && c->ctx->wpcap && dlt != c->src[0].dlt) {
        snprintf(c->fatal, sizeof c->fatal,
                 "-w: %s: interface %u has link type %s, not %s; a pcap file holds one link type",
                 esc_name(nb, sizeof nb, s->name), iface, link_name(dlt), link_name(c->src[0].dlt));
        return -1;
    }
    return 0;
}

/* The file ends inside a record (or a record is damaged): counted once the
 * pipeline is there (the first packets are read at open). */
static void
count_cut(struct capture *c, struct source *s)
{
    if (s->cut && !s->cut_counted && c->ctx) {
        anomaly_add(&c->ctx->stats.anom, ANOM_FILE_TRUNCATED, 1);
        s->cut_counted = 1;
    }
}

/* Does the packet just read into s->next pass the filter? */
static int
next_matches(const struct source *s)
{
    struct pcap_pkthdr h;

    if (!s->prog)
        return 1;
    memset(&h, 0, sizeof h);
    h.caplen = s->next.caplen;
    h.len = s->next.wirelen;
    return pcap_offline_filter(s->prog, &h, s->next.data) != 0;
}

static int
advance_builtin(struct capture *c, struct source *s)
{
    struct capfile_pkt p;

    for (;;) {
        enum capfile_rc rc = capfile_next(s->cf, &p);

        if (rc != CAPFILE_PKT) {
            if (rc == CAPFILE_CUT) {
                const char *w = capfile_warning(s->cf);
                char nb[256];

                s->cut = 1;
                if (w)
                    fprintf(stderr, "nfsscope: %s: %s; the rest of the file is not read\n",
                            esc_name(nb, sizeof nb, s->name), w);
            }
            s->done = 1;
            return 0;
        }
        if (p.dlt != s->prog_dlt && new_link(c, s, p.dlt, p.iface) != 0) {
            s->done = 1;
            return 0;
        }
        s->next.ts = p.ts;
        s->next.data = p.data;
        s->next.caplen = p.caplen;
        s->next.wirelen = p.wirelen;
        s->next.dlt = p.dlt;
        s->next_match = next_matches(s);
        return 1;
    }
}

/* Read the next packet of a source into s->next; at the end of the file,
 * or when it stops part way, mark it done. A read error after some packets
 * (a truncated file) is counted through the anomaly counters, not a failure;
 * what the reader cannot go on with is (c->fatal). */
static int
advance(struct capture *c, struct source *s)
{
    struct pcap_pkthdr *h;
    const u_char *data;
    int r;

    if (s->cf) {
        r = advance_builtin(c, s);
        count_cut(c, s);
        return r;
    }
    r = pcap_next_ex(s->p, &h, &data);
    if (r == 1) {
        s->next.ts.tv_sec = h->ts.tv_sec;
        s->next.ts.tv_nsec = h->ts.tv_usec; /* nanoseconds: opened with NANO precision */
        s->next.data = data;
        s->next.caplen = h->caplen;
        s->next.wirelen = h->len;
        s->next.dlt = s->dlt;
        s->next_match = next_matches(s);
        return 1;
    }
    if (r == PCAP_ERROR) {
        const char *e = pcap_geterr(s->p);
        char nb[256];

        if (strstr(e, "different from the type of the first interface") ||
            strstr(e, "different from the snapshot length of the first interface"))
            snprintf(c->fatal, sizeof c->fatal,
                     "%s: %s: the libpcap reader cannot read pcapng files whose interfaces differ"
                     " in link type or snapshot length (the builtin reader can: drop --reader"
                     " libpcap)",
                     esc_name(nb, sizeof nb, s->name), e);
        else
            s->cut = 1;
    }
    s->done = 1;
    count_cut(c, s);
    return 0;
}

/* The merge's next packet, from `best`: counted as a frame, fed to the
 * pipeline unless the filter drops it, then the source reads on. 1 if fed. */
static int
take(struct capture *c, struct nfsscope_ctx *ctx, struct source *best)
{
    int fed = best->next_match;

    best->next.frame = ++c->frames;
    if (fed)
        pipeline_packet(ctx, &best->next);
    advance(c, best);
    return fed;
}

static int
earlier(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static double
mono_now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double
ts_sec(const struct timespec *t)
{
    return (double)t->tv_sec + (double)t->tv_nsec / 1e9;
}

struct dispatch_arg {
    struct capture *c;
    struct nfsscope_ctx *ctx;
    struct source *s;
};

static void
on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
    struct dispatch_arg *a = (struct dispatch_arg *)(void *)user;
    struct pkt p;

    p.ts.tv_sec = h->ts.tv_sec;
    p.ts.tv_nsec = a->s->nano ? h->ts.tv_usec : h->ts.tv_usec * 1000;
    p.data = bytes;
    p.caplen = h->caplen;
    p.wirelen = h->len;
    p.dlt = a->s->dlt;
    p.frame = ++a->c->frames;
    pipeline_packet(a->ctx, &p);
}

/* A live read failed: say whether the interface went away, which is the
 * usual reason (libpcap's own words vary by version). */
static void
live_error(struct source *s, char *err, size_t errlen)
{
    if (strcmp(s->name, "any") != 0 && if_nametoindex(s->name) == 0)
        snprintf(err, errlen, "%s: the interface went away: %s", s->name, pcap_geterr(s->p));
    else
        snprintf(err, errlen, "%s: capture failed: %s", s->name, pcap_geterr(s->p));
}

static int
set_nonblock(struct capture *c, char *err, size_t errlen)
{
    char ebuf[PCAP_ERRBUF_SIZE] = "";

    if (c->nonblock)
        return 0;
    if (pcap_setnonblock(c->src[0].p, 1, ebuf) != 0) {
        snprintf(err, errlen, "%s: %s", c->src[0].name, ebuf);
        return 1;
    }
    c->nonblock = 1;
    return 0;
}

/* At the end of a live run: what the kernel still holds in a block that is
 * not handed over yet (at most LIVE_TIMEOUT_MS old) is read, so that packets
 * that arrived before the stop are counted. */
static uint64_t
drain_live(struct source *s, struct dispatch_arg *a, int fd, uint64_t room)
{
    uint64_t n = 0;
    struct pollfd pfd = { fd, POLLIN, 0 };
    int r;

    if (fd < 0 || room == 0)
        return 0;
    (void)poll(&pfd, 1, LIVE_TIMEOUT_MS + 20);
    do {
        int cnt = room - n < 4096 ? (int)(room - n) : 4096;

        r = pcap_dispatch(s->p, cnt, on_packet, (u_char *)a);
        if (r > 0)
            n += (uint64_t)r;
    } while (r > 0 && n < room);
    return n;
}

static int
run_live(struct capture *c, struct nfsscope_ctx *ctx, const struct capture_run_opts *o, char *err,
         size_t errlen)
{
    struct source *s = &c->src[0];
    struct dispatch_arg a = { c, ctx, s };
    int fd = pcap_get_selectable_fd(s->p);
    double t0 = mono_now(), next_tick = t0 + o->interval_s;
    uint64_t n = 0;

    if (fd >= 0 && set_nonblock(c, err, errlen) != 0)
        return 1;
    while (!*o->stop && (o->max_packets == 0 || n < o->max_packets)) {
        double now = mono_now(), wait = 0.25; /* at most: the stop flag is looked at */
        struct pollfd pfd[1 + CAPTURE_IO_MAX];
        size_t np = 0, nio = 0;
        int cnt = -1, r;

        if (o->duration_s > 0 && now - t0 >= o->duration_s)
            break;
        if (o->interval_s > 0 && o->tick && now >= next_tick) {
            struct timespec wall;

            ctx->stats.cap.kernel_drops = capture_kernel_drops(c);
            clock_gettime(CLOCK_REALTIME, &wall);
            o->tick(o->tick_arg, ctx, &wall);
            while (next_tick <= now)
                next_tick += o->interval_s;
        }
        if (o->interval_s > 0 && o->tick && next_tick - now < wait)
            wait = next_tick - now;
        if (o->duration_s > 0 && t0 + o->duration_s - now < wait)
            wait = t0 + o->duration_s - now;
        if (fd >= 0) {
            pfd[0].fd = fd;
            pfd[0].events = POLLIN;
            pfd[0].revents = 0;
            np = 1;
        }
        if (o->io_fill)
            nio = o->io_fill(o->io_arg, pfd + np, CAPTURE_IO_MAX, &wait);
        if (np + nio) {
            /* Without a selectable descriptor pcap_dispatch waits (100 ms at
             * most), so the other descriptors are only looked at here. */
            int ms = fd >= 0 && wait > 0 ? (int)(wait * 1000) + 1 : 0;

            if (poll(pfd, (nfds_t)(np + nio), ms) < 0 && errno != EINTR) {
                snprintf(err, errlen, "%s: poll: %s", s->name, strerror(errno));
                return 1;
            }
            if (nio)
                o->io_serve(o->io_arg, pfd + np, nio);
        }
        if (o->max_packets)
            cnt = (int)(o->max_packets - n < 4096 ? o->max_packets - n : 4096);
        r = pcap_dispatch(s->p, cnt, on_packet, (u_char *)&a);
        if (r == PCAP_ERROR_BREAK)
            break;
        if (r < 0) {
            live_error(s, err, errlen);
            ctx->stats.cap.kernel_drops = capture_kernel_drops(c);
            return 1;
        }
        n += (uint64_t)r;
    }
    n += drain_live(s, &a, fd, o->max_packets ? o->max_packets - n : UINT64_MAX);
    ctx->stats.cap.kernel_drops = capture_kernel_drops(c);
    return 0;
}

/* The pipeline is there: what was read at open is counted, and c->fatal
 * (a source that cannot go on) is looked at after every read. */
static void
prime(struct capture *c, struct nfsscope_ctx *ctx)
{
    size_t i;

    c->ctx = ctx;
    for (i = 0; i < c->n; i++)
        count_cut(c, &c->src[i]);
}

static struct source *
next_source(struct capture *c)
{
    struct source *best = NULL;
    size_t i;

    for (i = 0; i < c->n; i++)
        if (!c->src[i].done && (!best || earlier(&c->src[i].next.ts, &best->next.ts)))
            best = &c->src[i];
    return best;
}

/* Poll the other descriptors for at most `wait` seconds and serve them. */
static void
serve_io(const struct capture_run_opts *o, double wait)
{
    struct pollfd pfd[CAPTURE_IO_MAX];
    size_t n = o->io_fill(o->io_arg, pfd, CAPTURE_IO_MAX, &wait);
    int ms = wait > 0 ? (int)(wait * 1000) + 1 : 0;

    if (poll(pfd, (nfds_t)n, ms) >= 0)
        o->io_serve(o->io_arg, pfd, n);
}

#define IO_BATCH 256 /* packets fed between two looks at the other descriptors */

/* Files while other descriptors are served (--metrics): a packet is fed once
 * its time has come at o->speed times the file's pace; until then, and at
 * least every IO_BATCH packets, the descriptors are polled. The stop flag is
 * looked at between waits of at most 250 ms. */
static int
run_files_io(struct capture *c, struct nfsscope_ctx *ctx, const struct capture_run_opts *o,
             char *err, size_t errlen)
{
    uint64_t n = 0;
    double first = -1, t0 = mono_now();
    unsigned batch = 0;

    prime(c, ctx);
    while (!*o->stop && (o->max_packets == 0 || n < o->max_packets)) {
        struct source *best = next_source(c);
        double t, due = 0, now;

        if (!best)
            break;
        t = ts_sec(&best->next.ts);
        if (first < 0)
            first = t;
        if (o->duration_s > 0 && t - first >= o->duration_s)
            break;
        if (o->speed > 0)
            due = t0 + (t - first) / o->speed;
        now = mono_now();
        if (due > now || ++batch >= IO_BATCH) {
            serve_io(o, due - now > 0.25 ? 0.25 : due > now ? due - now : 0);
            batch = 0;
            if (due > mono_now())
                continue;
        }
        n += (unsigned)take(c, ctx, best);
        if (c->fatal[0]) {
            snprintf(err, errlen, "%s", c->fatal);
            return 1;
        }
    }
    return 0;
}

/* --interval with files: a tick at each multiple of the interval after the
 * first packet, by packet time, before the first packet at or after it; an
 * interval without packets gets no tick of its own (as a live run that
 * could not keep up gets one late tick). */
struct file_ticks {
    int64_t every_ns, next_ns; /* next_ns 0: no packet yet */
};

static void
file_tick(struct file_ticks *ft, const struct capture_run_opts *o, struct nfsscope_ctx *ctx,
          const struct timespec *ts)
{
    int64_t t = (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;

    if (ft->every_ns <= 0)
        return;
    if (!ft->next_ns) {
        ft->next_ns = t + ft->every_ns;
        return;
    }
    if (t < ft->next_ns)
        return;
    {
        struct timespec at = { (time_t)(ft->next_ns / 1000000000),
                               (long)(ft->next_ns % 1000000000) };

        o->tick(o->tick_arg, ctx, &at);
    }
    while (ft->next_ns <= t)
        ft->next_ns += ft->every_ns;
}

int
capture_run(struct capture *c, struct nfsscope_ctx *ctx, const struct capture_run_opts *o,
            char *err, size_t errlen)
{
    uint64_t n = 0;
    double first = -1;
    struct file_ticks ft = { o->interval_s > 0 && o->tick ? (int64_t)(o->interval_s * 1e9 + 0.5) : 0,
                            0 };

    if (c->live)
        return run_live(c, ctx, o, err, errlen);
    if (o->io_fill)
        return run_files_io(c, ctx, o, err, errlen);
    prime(c, ctx);
    if (c->n == 1 && o->duration_s <= 0 && !ft.every_ns) { /* one file: nothing to merge or time */
        struct source *s = &c->src[0];

        while (!s->done && !*o->stop && (o->max_packets == 0 || n < o->max_packets)) {
            n += (unsigned)take(c, ctx, s);
            if (c->fatal[0]) {
                snprintf(err, errlen, "%s", c->fatal);
                return 1;
            }
        }
        return 0;
    }
    while (!*o->stop && (o->max_packets == 0 || n < o->max_packets)) {
        struct source *best = next_source(c);

        if (!best)
            break;
        if (o->duration_s > 0) { /* packet time */
            double t = ts_sec(&best->next.ts);
            if (first < 0)
                first = t;
            if (t - first >= o->duration_s)
                break;
        }
        file_tick(&ft, o, ctx, &best->next.ts);
        n += (unsigned)take(c, ctx, best);
        if (c->fatal[0]) {
            snprintf(err, errlen, "%s", c->fatal);
            return 1;
        }
    }
    return 0;
}

bool
capture_is_live(const struct capture *c)
{
    return c && c->live;
}

int
capture_selectable_fd(struct capture *c)
{
    char err[PCAP_ERRBUF_SIZE + 64];
    int fd;

    if (!c->live)
        return -1;
    fd = pcap_get_selectable_fd(c->src[0].p);
    if (fd >= 0 && set_nonblock(c, err, sizeof err) != 0)
        return -1;
    return fd;
}

int
capture_poll(struct capture *c, struct nfsscope_ctx *ctx, int max, const struct timespec *until,
             char *err, size_t errlen)
{
    int n = 0;

    if (c->live) {
        struct dispatch_arg a = { c, ctx, &c->src[0] };
        int r;

        /* Without a selectable descriptor the handle stays blocking and the
         * 100 ms read timeout bounds the wait. */
        (void)capture_selectable_fd(c);
        r = pcap_dispatch(c->src[0].p, max > 0 ? max : -1, on_packet, (u_char *)&a);
        if (r == PCAP_ERROR_BREAK)
            return 0;
        if (r < 0) {
            live_error(&c->src[0], err, errlen);
            return CAPTURE_ERR;
        }
        return r;
    }
    prime(c, ctx);
    while (max <= 0 || n < max) {
        struct source *best = next_source(c);

        if (!best)
            return n > 0 ? n : CAPTURE_EOF;
        if (until && earlier(until, &best->next.ts))
            break;
        n += (unsigned)take(c, ctx, best);
        if (c->fatal[0]) {
            snprintf(err, errlen, "%s", c->fatal);
            return CAPTURE_ERR;
        }
    }
    return n;
}

bool
capture_next_ts(struct capture *c, struct nfsscope_ctx *ctx, struct timespec *ts)
{
    struct source *best;

    if (c->live)
        return false;
    prime(c, ctx);
    best = next_source(c);
    if (!best)
        return false;
    *ts = best->next.ts;
    return true;
}

void
capture_describe(const struct capture *c, char *buf, size_t len)
{
    const struct source *s = &c->src[0];

    if (!len)
        return;
    buf[0] = '\0';
    if (!c->live)
        return;
    snprintf(buf, len, "listening on %s, link type %s, snapshot length %d bytes%s%s", s->name,
             link_name(s->dlt), c->snaplen, c->warning[0] ? "; warning: " : "", c->warning);
}

int
capture_link_type(const struct capture *c)
{
    size_t i, k;

    for (i = 0; i < c->n; i++) {
        if (c->src[i].dlt != c->src[0].dlt)
            return -1;
        for (k = 0; c->src[i].cf && k < capfile_ifaces(c->src[i].cf); k++)
            if (capfile_iface_dlt(c->src[i].cf, k) != c->src[0].dlt)
                return -1;
    }
    return c->n ? c->src[0].dlt : -1;
}

int
capture_snaplen(const struct capture *c)
{
    int m = 0;
    size_t i;

    for (i = 0; i < c->n; i++) {
        int s = c->src[i].cf ? capfile_snaplen(c->src[i].cf) : pcap_snapshot(c->src[i].p);
        if (s > m)
            m = s;
    }
    return m;
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
    for (i = 0; i < c->n; i++) {
        if (c->src[i].p)
            pcap_close(c->src[i].p);
        free(c->src[i].iobuf); /* after the FILE that used it is closed */
        capfile_close(c->src[i].cf);
    }
    for (i = 0; i < c->nfilt; i++)
        pcap_freecode(&c->filt[i].prog);
    free(c);
}
