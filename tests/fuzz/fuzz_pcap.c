/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_pcap.c: a whole capture file through the whole program, in memory.
 *
 * The input is a pcap or pcapng file. It is opened with fmemopen() +
 * pcap_fopen_offline_with_tstamp_precision(NANO) (no temp file, unlike
 * libpcap's own harness), every packet goes through pipeline_packet() as
 * capture.c feeds it, then pipeline_finish() and the text, JSON and CSV
 * reports are written to /dev/null so the report code is fuzzed too.
 * The tables are tiny (fuzz_small_config) so bounds and eviction run.
 * Unlike nfsscope, unsupported link types are fed anyway (counted).
 * With NFSSCOPE_FUZZ_REPORT set in the environment the reports go to stdout
 * (to see what a corpus file exercises). */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "pipeline.h"
#include "view.h"

#define FUZZ_MAX_PACKETS 20000 /* keeps every run fast whatever the input */

static FILE *
null_out(void)
{
    static FILE *devnull;

    if (!devnull) {
        devnull = fopen("/dev/null", "w");
        if (!devnull)
            abort();
    }
    return devnull;
}

static void
run_reports(const struct nfsscope_ctx *ctx)
{
    static const char *const names[] = { "text", "json", "csv" };
    static const char *const sources[] = { "fuzz.pcap", NULL };
    struct view_info vi = { .sources = sources, .filter = "port 2049" };
    const struct stats *s = &ctx->stats;
    FILE *out = getenv("NFSSCOPE_FUZZ_REPORT") ? stdout : null_out();
    size_t i;

    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        const struct view_ops *v = view_find(names[i]);
        if (!v)
            abort(); /* the registry lost a view */
        vi.findings = ctx->findings;
        vi.lockwait = ctx->lockwait;
        vi.nfs4_state = ctx->nfs4_state;
        v->report(out, s, &vi);
        fflush(out);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct nfsscope_config cfg;
    static struct nfsscope_ctx ctx;
    char errbuf[PCAP_ERRBUF_SIZE];
    struct pcap_pkthdr *hdr;
    const u_char *pdata;
    unsigned long n = 0;
    uint8_t *copy;
    FILE *fp;
    pcap_t *p;
    int dlt;

    if (size == 0)
        return 0;
    /* fmemopen wants a writable buffer; ours is the fuzzer's, const. */
    copy = malloc(size);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    fp = fmemopen(copy, size, "rb");
    if (!fp) {
        free(copy);
        return 0;
    }
    p = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, errbuf);
    if (!p) { /* on failure the FILE stays ours */
        fclose(fp);
        free(copy);
        return 0;
    }
    dlt = pcap_datalink(p);

    fuzz_small_config(&cfg);
    if (pipeline_init(&ctx, &cfg) != 0)
        abort();
    while (n++ < FUZZ_MAX_PACKETS) {
        struct pkt pk;
        int r = pcap_next_ex(p, &hdr, &pdata);
        if (r != 1) {
            if (r == PCAP_ERROR)
                anomaly_add(&ctx.stats.anom, ANOM_FILE_TRUNCATED, 1);
            break;
        }
        pk.frame = n;
        pk.ts.tv_sec = hdr->ts.tv_sec;
        pk.ts.tv_nsec = hdr->ts.tv_usec; /* nanoseconds: NANO precision */
        pk.data = pdata;
        pk.caplen = hdr->caplen;
        pk.wirelen = hdr->len;
        pk.dlt = dlt;
        pipeline_packet(&ctx, &pk);
    }
    pipeline_finish(&ctx);
    run_reports(&ctx);
    pipeline_fini(&ctx);
    pcap_close(p); /* closes fp */
    free(copy);
    return 0;
}
