/* SPDX-License-Identifier: BSD-3-Clause */
/* wpcap_test.c: -w bookkeeping: which fragments follow their first one, what
 * is counted as missed or evicted, and that packets come back from the file
 * exactly as written (read back with libpcap). */
#include "wpcap.h"

#include <pcap/pcap.h>
#include <stdlib.h>
#include <unistd.h>

#include "flow_key.h"
#include "t.h"

static struct ipfrag_frag
frag(uint32_t id, uint32_t offset, uint8_t last_src_byte)
{
    struct ipfrag_frag f;

    memset(&f, 0, sizeof f);
    f.af = FLOW_AF_INET;
    f.proto = FLOW_PROTO_UDP;
    f.id = id;
    f.saddr[0] = 10;
    f.saddr[3] = last_src_byte;
    f.daddr[0] = 10;
    f.daddr[3] = 2;
    f.offset = offset;
    f.more = true;
    return f;
}

static void
tmpname(char *buf, size_t n)
{
    snprintf(buf, n, "/tmp/wpcap_test.%ld.pcap", (long)getpid());
}

static void
test_frag_decisions(void)
{
    char path[64], err[256];
    struct timespec t = { 1000, 0 };
    struct wpcap_counts c;
    struct wpcap *w;
    struct ipfrag_frag f;

    tmpname(path, sizeof path);
    w = wpcap_open(path, DLT_EN10MB, 0, 16, 30, 42, err, sizeof err);
    CHECK(w != NULL);
    if (!w)
        return;
    /* In order, RPC: every fragment. */
    f = frag(7, 0, 1);
    CHECK(wpcap_frag(w, &f, true, false, &t));
    f = frag(7, 1480, 1);
    CHECK(wpcap_frag(w, &f, false, false, &t)); /* first_is_rpc ignored off 0 */
    f = frag(7, 2960, 1);
    CHECK(wpcap_frag(w, &f, false, true, &t));
    /* Finished: the entry is gone; a late duplicate is not written. */
    f = frag(7, 1480, 1);
    CHECK(!wpcap_frag(w, &f, false, false, &t));
    /* Not RPC: nothing; another source with the same id is another datagram. */
    f = frag(8, 0, 1);
    CHECK(!wpcap_frag(w, &f, false, false, &t));
    f = frag(8, 1480, 1);
    CHECK(!wpcap_frag(w, &f, true, false, &t));
    f = frag(8, 1480, 3);
    CHECK(!wpcap_frag(w, &f, true, false, &t));
    /* Two fragments before the first: not written, counted once it says RPC. */
    f = frag(9, 1480, 1);
    CHECK(!wpcap_frag(w, &f, false, false, &t));
    f = frag(9, 2960, 1);
    CHECK(!wpcap_frag(w, &f, false, false, &t));
    f = frag(9, 0, 1);
    CHECK(wpcap_frag(w, &f, true, true, &t));
    wpcap_counts(w, &c);
    EQ(c.frags_missed, 2);
    EQ(c.written, 0); /* wpcap_frag decides; only wpcap_write writes */
    /* Forgotten after the timeout: a later fragment no longer follows it. */
    f = frag(10, 0, 1);
    CHECK(wpcap_frag(w, &f, true, false, &t));
    t.tv_sec += 31;
    f = frag(10, 1480, 1);
    CHECK(!wpcap_frag(w, &f, true, false, &t));
    CHECK(wpcap_close(w, err, sizeof err) == 0);
    unlink(path);
}

/* More datagrams in progress than the table holds: evictions are counted, and
 * never more than the datagrams that could not be held. */
static void
test_frag_evictions(void)
{
    char path[64], err[256];
    struct timespec t = { 1000, 0 };
    struct wpcap_counts c;
    struct wpcap *w;
    uint32_t i, kept = 0;

    tmpname(path, sizeof path);
    w = wpcap_open(path, DLT_EN10MB, 0, 8, 30, 42, err, sizeof err); /* 16 entries */
    CHECK(w != NULL);
    if (!w)
        return;
    for (i = 0; i < 1000; i++) {
        struct ipfrag_frag f = frag(i, 0, 1);
        (void)wpcap_frag(w, &f, true, false, &t);
    }
    for (i = 1000; i-- > 0;) { /* newest first: the last one is surely held */
        struct ipfrag_frag f = frag(i, 1480, 1);
        kept += wpcap_frag(w, &f, false, false, &t);
    }
    wpcap_counts(w, &c);
    CHECK(c.frags_evicted >= 1000 - 16);
    CHECK(kept <= 16);
    CHECK(kept >= 1);
    CHECK(wpcap_close(w, err, sizeof err) == 0);
    unlink(path);
}

static void
test_roundtrip(void)
{
    char path[64], err[256], ebuf[PCAP_ERRBUF_SIZE];
    uint8_t a[60], b[200];
    struct timespec t1 = { 1700000000, 123456789 }, t2 = { 1700000001, 5 };
    struct pcap_pkthdr *h;
    const u_char *d;
    struct wpcap_counts c;
    struct wpcap *w;
    pcap_t *p;

    memset(a, 0xa5, sizeof a);
    memset(b, 0x5a, sizeof b);
    tmpname(path, sizeof path);
    w = wpcap_open(path, DLT_LINUX_SLL, 1500, 16, 30, 0, err, sizeof err);
    CHECK(w != NULL);
    if (!w)
        return;
    wpcap_write(w, &t1, sizeof a, sizeof a, a);
    wpcap_write(w, &t2, 96, sizeof b + 1000, b); /* snapped: caplen < len */
    wpcap_counts(w, &c);
    EQ(c.written, 2);
    CHECK(wpcap_close(w, err, sizeof err) == 0);

    p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
    CHECK(p != NULL);
    if (!p)
        return;
    EQ(pcap_datalink(p), DLT_LINUX_SLL);
    EQ(pcap_snapshot(p), 1500);
    EQ(pcap_get_tstamp_precision(p), PCAP_TSTAMP_PRECISION_NANO);
    EQ(pcap_next_ex(p, &h, &d), 1);
    EQ(h->ts.tv_sec, t1.tv_sec);
    EQ(h->ts.tv_usec, t1.tv_nsec);
    EQ(h->caplen, sizeof a);
    EQ(h->len, sizeof a);
    CHECK(memcmp(d, a, sizeof a) == 0);
    EQ(pcap_next_ex(p, &h, &d), 1);
    EQ(h->ts.tv_usec, 5);
    EQ(h->caplen, 96);
    EQ(h->len, sizeof b + 1000);
    CHECK(memcmp(d, b, 96) == 0);
    EQ(pcap_next_ex(p, &h, &d), PCAP_ERROR_BREAK); /* end of file */
    pcap_close(p);
    unlink(path);
}

static void
test_errors(void)
{
    char err[256] = "";
    struct wpcap *w;

    w = wpcap_open("/nonexistent-dir/x\033[2J.pcap", DLT_EN10MB, 0, 16, 30, 0, err, sizeof err);
    CHECK(w == NULL);
    CHECK(strncmp(err, "-w: cannot write ", 17) == 0);
    CHECK(strchr(err, '\033') == NULL); /* the name is escaped */
    if (access("/dev/full", W_OK) == 0) {
        uint8_t pkt[1500];
        struct timespec t = { 1, 0 };
        int i;

        memset(pkt, 0, sizeof pkt);
        w = wpcap_open("/dev/full", DLT_EN10MB, 0, 16, 30, 0, err, sizeof err);
        CHECK(w != NULL);
        if (!w)
            return;
        for (i = 0; i < 1000; i++)
            wpcap_write(w, &t, sizeof pkt, sizeof pkt, pkt);
        EQ(wpcap_close(w, err, sizeof err), -1);
        CHECK(strstr(err, "write failed") != NULL);
    }
    EQ(wpcap_close(NULL, err, sizeof err), 0);
    CHECK(wpcap_rpc_port(800, 2049) && wpcap_rpc_port(111, 900) && !wpcap_rpc_port(80, 4045));
}

int
main(void)
{
    test_frag_decisions();
    test_frag_evictions();
    test_roundtrip();
    test_errors();
    return t_done();
}
