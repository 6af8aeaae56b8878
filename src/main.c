/* SPDX-License-Identifier: BSD-3-Clause */
/* main.c: the subcommands, then a run in three steps: set-up (tables,
 * capture, metrics server, privilege drop, output files), the capture loop
 * or the view, and the output (final report, exit status: contract.md).
 * The command line itself is cli.c. */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "cli.h"
#include "config.h"
#include "diff.h"
#include "findings_worker.h"
#include "merge.h"
#include "metrics.h"
#include "privdrop.h"
#include "records.h"
#include "pipeline.h"
#include "shards.h"
#include "report_prom.h"
#include "tui.h"
#include "view.h"
#include "wpcap.h"

static volatile sig_atomic_t stop_requested;

#define PCAP_LINE_MAX 512

static void
on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* --interval: a periodic report from the live loop. */
struct tick_arg {
    const struct view_ops *view;
    const struct view_info *vi;
};

static void
on_tick(void *arg, struct nfsscope_ctx *ctx, const struct timespec *now)
{
    const struct tick_arg *t = arg;

    pipeline_settle(ctx);
    t->view->tick(stdout, &ctx->stats, t->vi, now);
}

/* --metrics: the exposition is rendered from the stats between
 * two packets, in the capture's own loop. */
struct metrics_arg {
    struct metrics *m;
    struct nfsscope_ctx *ctx;
    struct capture *cap;
    bool input_done;
};

static double
mono_now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int
render_metrics(FILE *out, void *arg)
{
    struct metrics_arg *a = arg;

    if (capture_is_live(a->cap)) {
        int64_t drops = capture_kernel_drops(a->cap);
        if (drops >= 0)
            a->ctx->stats.cap.kernel_drops = drops;
    }
    pipeline_settle(a->ctx);
    return report_prom(out, &a->ctx->stats, a->ctx->findings, a->input_done);
}

static size_t
metrics_io_fill(void *arg, struct pollfd *fds, size_t max, double *wait_s)
{
    struct metrics_arg *a = arg;

    return metrics_fill(a->m, fds, max, mono_now(), wait_s);
}

static void
metrics_io_serve(void *arg, const struct pollfd *fds, size_t n)
{
    struct metrics_arg *a = arg;

    metrics_serve(a->m, fds, n, mono_now());
}

/* -r with --metrics: the input has ended; serve the final counters until
 * SIGINT or SIGTERM, so that the last scrape sees them. */
static void
metrics_linger(struct metrics_arg *a, volatile sig_atomic_t *stop)
{
    char url[128];

    metrics_url(a->m, url, sizeof url);
    fprintf(stderr, "nfsscope: input ended; the final counters stay at %s until interrupted\n",
            url);
    while (!*stop) {
        struct pollfd fds[CAPTURE_IO_MAX];
        double wait = 0.25;
        size_t n = metrics_io_fill(a, fds, CAPTURE_IO_MAX, &wait);

        if (poll(fds, (nfds_t)n, (int)(wait * 1000) + 1) >= 0)
            metrics_io_serve(a, fds, n);
    }
}

/* What a run opens, closed by run_close() however far set-up got. */
struct run {
    struct nfsscope_ctx ctx;
    bool ctx_ready;          /* pipeline_init() succeeded */
    struct capture *cap;
    struct records *records; /* --records */
    struct metrics_arg ma;   /* --metrics */
    struct view_info vi;
    const char *iface_source[2]; /* -i: vi.sources */
    int finished;            /* pipeline_finish() already called */
    unsigned decoders;       /* decoding threads (decoding_threads()) */
    struct shards *shards;   /* their threads, freeing their tables (shards_run) */
    char err[512];
};

/* How many threads decode a one-shot report from files (shards.h): the
 * threads --threads allows beside the findings' own; 1 for everything that
 * reads the state as it goes or writes packets or calls in capture order
 * (a live interface, the view, --metrics, --interval, -w, --records), and
 * for input that cannot be read once per thread (standard input, a pipe). */
static unsigned
decoding_threads(const struct cli *c)
{
    const struct nfsscope_config *cfg = &c->cfg;
    size_t i;

    if (cfg->iface || c->use_tui || cfg->metrics_addr || cfg->interval_s > 0 || c->wpcap_path ||
        c->records_path || cfg->findings_max) /* the findings: one decoding thread */
        return 1;
    for (i = 0; i < cfg->nfiles; i++) {
        struct stat st;

        if (strcmp(cfg->files[i], "-") == 0 || stat(cfg->files[i], &st) != 0 ||
            !S_ISREG(st.st_mode))
            return 1;
    }
    return cfg->threads;
}

/* Everything before the first packet, in this order. Returns 0, or the
 * exit status (1, or 2 for a usage error) with r->err set. */
static int
run_open(struct run *r, struct cli *c)
{
    const struct nfsscope_config *cfg = &c->cfg;
    int st;

    r->iface_source[0] = cfg->iface;
    r->vi.sources = cfg->iface ? r->iface_source : cfg->files;
    r->vi.filter = cfg->filter;
    r->vi.top_n = cfg->top_n;
    r->vi.by_mask = cfg->by_mask;
    r->vi.order = cfg->order;
    r->vi.detail = cfg->detail;
    r->vi.all = cfg->all_rows;
    r->decoders = decoding_threads(c);
    if (r->decoders > 1 && c->cfg.hash_seed == 0 &&
        getrandom(&c->cfg.hash_seed, sizeof c->cfg.hash_seed, 0) != sizeof c->cfg.hash_seed)
        c->cfg.hash_seed = 0x6e66737363706531ULL; /* every shard hashes alike */
    if (pipeline_init(&r->ctx, cfg) != 0) {
        snprintf(r->err, sizeof r->err, "out of memory for the configured tables (lower"
                                         " --max-flows or --max-pending)");
        return 1;
    }
    r->ctx_ready = true;
    r->vi.findings = r->ctx.findings;
    r->vi.lockwait = r->ctx.lockwait;
    r->vi.nfs4_state = r->ctx.nfs4_state;
    st = capture_open(&r->cap, cfg, r->err, sizeof r->err);
    if (st != 0)
        return st;
    if (cfg->metrics_addr) { /* bound before -Z, so ports below 1024 work */
        r->ma.ctx = &r->ctx;
        r->ma.cap = r->cap;
        st = metrics_open(&r->ma.m, cfg->metrics_addr, cfg->metrics_clients,
                          cfg->metrics_timeout_s, render_metrics, &r->ma, r->err, sizeof r->err);
        if (st != 0)
            return st;
    }
    st = privdrop_after_open(capture_is_live(r->cap), cfg->user, r->err, sizeof r->err);
    if (st != 0)
        return st;
    /* Output files are opened as the user the capture runs as, so the kernel
     * refuses places that user could not write (as tcpdump -w after -Z). */
    if (c->records_path) {
        r->records = records_open(c->records_path, c->records_fmt, r->err, sizeof r->err);
        if (!r->records)
            return 1;
        r->ctx.records = r->records;
    }
    if (c->wpcap_path) { /* after the drop, so the file is the user's (tcpdump -w) */
        int dlt = capture_link_type(r->cap);

        if (dlt < 0) {
            snprintf(r->err, sizeof r->err,
                     "-w: the input has several link types; a pcap file holds one");
            return 2;
        }
        r->ctx.wpcap = wpcap_open(c->wpcap_path, dlt, capture_snaplen(r->cap), cfg->ipfrag_max,
                                  cfg->ipfrag_timeout_s, cfg->hash_seed, r->err, sizeof r->err);
        if (!r->ctx.wpcap)
            return 1;
    }
    return 0;
}

/* The packets: the view, or the capture loop (with --interval reports and
 * the --metrics server). Returns 0, or 1 with r->err set. */
static int
run_capture(struct run *r, const struct cli *c)
{
    const struct nfsscope_config *cfg = &c->cfg;
    struct capture_run_opts ro;
    struct tick_arg ta;
    struct sigaction sa;
    int st;

    /* No SA_RESTART: a signal wakes poll() so the run ends at once. */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    /* The findings on a thread of their own (findings_worker.h), off the
     * thread that must keep up with a live interface too; the view, a
     * periodic report or a scrape waits for it to catch up before it reads
     * them (pipeline_settle). */
    if (cfg->threads > 1)
        pipeline_findings_thread(&r->ctx, FW_RING_BYTES);
    if (c->use_tui)
        return tui_run(r->cap, &r->ctx, cfg, &r->vi, &stop_requested, &r->finished, r->err,
                       sizeof r->err);
    if (capture_is_live(r->cap)) {
        char line[PCAP_LINE_MAX];
        capture_describe(r->cap, line, sizeof line);
        fprintf(stderr, "nfsscope: %s\n", line);
    }
    memset(&ro, 0, sizeof ro);
    if (r->ma.m) {
        char url[128];

        metrics_url(r->ma.m, url, sizeof url);
        fprintf(stderr, "nfsscope: metrics at %s\n", url);
        ro.io_fill = metrics_io_fill;
        ro.io_serve = metrics_io_serve;
        ro.io_arg = &r->ma;
        ro.speed = cfg->speed;
    }
    ta.view = c->view;
    ta.vi = &r->vi;
    ro.max_packets = cfg->max_packets;
    ro.duration_s = cfg->duration_s;
    ro.interval_s = cfg->interval_s;
    ro.tick = on_tick;
    ro.tick_arg = &ta;
    ro.stop = &stop_requested;
    /* With --no-findings, a one-shot report from files: the decoding shared
     * by r->decoders threads (shards.h). */
    if (r->decoders > 1) {
        st = shards_run(&r->ctx, r->cap, cfg, r->decoders, &ro, &r->shards, r->err,
                        sizeof r->err);
        r->finished = 1;
        return st;
    }
    st = capture_run(r->cap, &r->ctx, &ro, r->err, sizeof r->err);
    if (r->ma.m && st == 0 && !capture_is_live(r->cap) && !stop_requested) {
        pipeline_finish(&r->ctx); /* unanswered calls counted before the last scrape */
        r->finished = 1;
        r->ma.input_done = true;
        metrics_linger(&r->ma, &stop_requested);
    }
    return st;
}

/* After the packets: the last counts, the output files closed, the final
 * report on standard output. Returns the exit status: st, or 1 when writing
 * failed. */
static int
run_output(struct run *r, const struct cli *c, int st)
{
    char rerr[512];

    if (st != 0) /* the capture's own failure, before those of the files */
        cli_say("%s", r->err);
    if (capture_is_live(r->cap)) {
        int64_t drops = capture_kernel_drops(r->cap); /* -1 once the interface is gone */
        if (drops >= 0)
            r->ctx.stats.cap.kernel_drops = drops;
    }
    if (!r->finished)
        pipeline_finish(&r->ctx);
    r->ctx.records = NULL;
    if (records_close(r->records, rerr, sizeof rerr) != 0) {
        cli_say("%s", rerr);
        st = 1;
    }
    r->records = NULL;
    if (r->ctx.wpcap) {
        struct wpcap_counts wc;

        wpcap_counts(r->ctx.wpcap, &wc);
        if (wc.frags_missed || wc.frags_evicted)
            fprintf(stderr, "nfsscope: -w: %" PRIu64 " IP fragments not written (they came before"
                            " the first fragment of their RPC datagram), %" PRIu64
                            " datagrams forgotten (--max-frags)\n",
                    wc.frags_missed, wc.frags_evicted);
        if (wpcap_close(r->ctx.wpcap, rerr, sizeof rerr) != 0) {
            cli_say("%s", rerr);
            st = 1;
        }
        r->ctx.wpcap = NULL;
    }
    if (c->view->report(stdout, &r->ctx.stats, &r->vi) != 0 || fflush(stdout) != 0) {
        fprintf(stderr, "nfsscope: standard output: write failed: %s\n", strerror(errno));
        st = 1;
    }
    return st;
}

static void
run_close(struct run *r)
{
    char rerr[512];

    shards_close(r->shards); /* the threads freed their tables while the report was written */
    r->shards = NULL;
    (void)records_close(r->records, rerr, sizeof rerr);
    r->records = NULL;
    metrics_close(r->ma.m);
    capture_close(r->cap);
    if (r->ctx_ready)
        pipeline_fini(&r->ctx);
}

int
main(int argc, char **argv)
{
    struct run r;
    struct cli c;
    int st;

    if (argc >= 2 && strcmp(argv[1], "diff") == 0) /* src/diff.c */
        return diff_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "merge") == 0) /* src/merge.c */
        return merge_main(argc - 1, argv + 1);
    if (!cli_parse(argc, argv, &c))
        return 0; /* --help, --version */
    /* The tables (all allocated before the first packet, none per packet)
     * from 16 KiB up are mapped, not carved from the heap: glibc's calloc
     * clears heap memory (a decoding thread's arena: all of it), touching
     * every page of a table that rows are meant to reach only when used;
     * mapped memory comes zeroed and stays untouched until then. */
    mallopt(M_MMAP_THRESHOLD, 16 * 1024);
    memset(&r, 0, sizeof r);
    st = run_open(&r, &c);
    if (st == 0) {
        st = run_output(&r, &c, run_capture(&r, &c));
    } else { /* before any packet: what was opened is closed, one line, exit st */
        if (st == 2)
            cli_usage_error("%s", r.err);
        cli_say("%s", r.err);
    }
    run_close(&r);
    cli_fini(&c);
    return st;
}
