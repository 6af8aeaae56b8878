/* SPDX-License-Identifier: BSD-3-Clause */
/* capfile_test.c: the capture reader against libpcap 1.10, the oracle.
 *
 * Captures are built here (pcap in both byte orders and both magics, the
 * patched header, old versions; pcapng in both byte orders with several
 * sections, if_tsresol powers of 10 and 2, if_tsoffset, EPB, SPB, PB and
 * blocks to skip), then read by both readers: every packet (time, lengths,
 * bytes) and the way the file ends (end, or error/cut) must be the same, for
 * the whole file and for every prefix of it (a file cut at each byte), read
 * in place and through buffers fed 1, 7 and 4096 bytes at a time. Then what
 * libpcap cannot read: interfaces of different link types and snapshot
 * lengths, sections of different byte orders; compressed files (gzip with two
 * members, zstd, xz, bzip2) and their damage; hostile lengths. */
#include "capfile.h"

#include <bzlib.h>
#include <lzma.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdlib.h>
#include <zlib.h>
#include <zstd.h>

#include "t.h"

/* ---- a byte builder ------------------------------------------------------ */

struct bb {
    uint8_t *p;
    size_t n, cap;
    bool be;      /* write big-endian */
    size_t blk;   /* offset of the open pcapng block */
};

static void
put(struct bb *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            abort();
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void
put8(struct bb *b, uint8_t v)
{
    put(b, &v, 1);
}

static void
put16(struct bb *b, uint16_t v)
{
    uint8_t x[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

    if (b->be) {
        x[0] = (uint8_t)(v >> 8);
        x[1] = (uint8_t)v;
    }
    put(b, x, 2);
}

static void
put32(struct bb *b, uint32_t v)
{
    if (b->be) {
        put16(b, (uint16_t)(v >> 16));
        put16(b, (uint16_t)v);
    } else {
        put16(b, (uint16_t)v);
        put16(b, (uint16_t)(v >> 16));
    }
}

static void
put64(struct bb *b, uint64_t v)
{
    if (b->be) {
        put32(b, (uint32_t)(v >> 32));
        put32(b, (uint32_t)v);
    } else {
        put32(b, (uint32_t)v);
        put32(b, (uint32_t)(v >> 32));
    }
}

static void
pad4(struct bb *b)
{
    while (b->n % 4)
        put8(b, 0);
}

static void
set32(struct bb *b, size_t at, uint32_t v)
{
    size_t n = b->n;

    b->n = at;
    put32(b, v);
    b->n = n;
}

/* A frame of n bytes whose content says which one it is. */
static const uint8_t *
frame(unsigned id, size_t n)
{
    static uint8_t f[300000];
    size_t i;

    for (i = 0; i < n && i < sizeof f; i++)
        f[i] = (uint8_t)(id * 31 + i * 7);
    return f;
}

/* ---- pcap ------------------------------------------------------------------ */

static void
pcap_hdr(struct bb *b, uint32_t magic, uint16_t major, uint16_t minor, uint32_t snaplen,
         uint32_t linktype)
{
    put32(b, magic);
    put16(b, major);
    put16(b, minor);
    put32(b, 0);
    put32(b, 0);
    put32(b, snaplen);
    put32(b, linktype);
}

static bool lengths_swapped; /* write len before caplen (pcap before 2.3) */

static void
pcap_rec(struct bb *b, uint32_t sec, uint32_t frac, uint32_t caplen, uint32_t len, unsigned id,
         bool patched)
{
    put32(b, sec);
    put32(b, frac);
    put32(b, lengths_swapped ? len : caplen);
    put32(b, lengths_swapped ? caplen : len);
    if (patched) {
        put32(b, 3);
        put16(b, 0x800);
        put8(b, 0);
        put8(b, 0);
    }
    put(b, frame(id, caplen), caplen);
}

/* ---- pcapng ---------------------------------------------------------------- */

static void
blk_open(struct bb *b, uint32_t type)
{
    b->blk = b->n;
    put32(b, type);
    put32(b, 0);
}

static void
blk_close(struct bb *b)
{
    uint32_t len;

    pad4(b);
    len = (uint32_t)(b->n - b->blk + 4);
    put32(b, len);
    set32(b, b->blk + 4, len);
}

static void
shb(struct bb *b, uint16_t minor)
{
    blk_open(b, 0x0a0d0d0a);
    put32(b, 0x1a2b3c4d);
    put16(b, 1);
    put16(b, minor);
    put64(b, ~0ull);
    /* a comment option, skipped */
    put16(b, 1);
    put16(b, 5);
    put(b, "hello", 5);
    pad4(b);
    put16(b, 0);
    put16(b, 0);
    blk_close(b);
}

/* tsresol < 0: no if_tsresol option; has_off: an if_tsoffset option. */
static void
idb(struct bb *b, uint16_t linktype, uint32_t snaplen, int tsresol, bool has_off, int64_t off)
{
    blk_open(b, 1);
    put16(b, linktype);
    put16(b, 0);
    put32(b, snaplen);
    put16(b, 2); /* if_name */
    put16(b, 4);
    put(b, "eth0", 4);
    if (tsresol >= 0) {
        put16(b, 9);
        put16(b, 1);
        put8(b, (uint8_t)tsresol);
        pad4(b);
    }
    if (has_off) {
        put16(b, 14);
        put16(b, 8);
        put64(b, (uint64_t)off);
    }
    put16(b, 0);
    put16(b, 0);
    blk_close(b);
}

static void
epb(struct bb *b, uint32_t iface, uint64_t t, uint32_t caplen, uint32_t len, unsigned id)
{
    blk_open(b, 6);
    put32(b, iface);
    put32(b, (uint32_t)(t >> 32));
    put32(b, (uint32_t)t);
    put32(b, caplen);
    put32(b, len);
    put(b, frame(id, caplen), caplen);
    pad4(b);
    put16(b, 1); /* opt_comment, skipped */
    put16(b, 3);
    put(b, "abc", 3);
    pad4(b);
    blk_close(b);
}

static void
spb(struct bb *b, uint32_t len, uint32_t inblock, unsigned id)
{
    blk_open(b, 3);
    put32(b, len);
    put(b, frame(id, inblock), inblock);
    blk_close(b);
}

static void
pb(struct bb *b, uint16_t iface, uint64_t t, uint32_t caplen, uint32_t len, unsigned id)
{
    blk_open(b, 2);
    put16(b, iface);
    put16(b, 0);
    put32(b, (uint32_t)(t >> 32));
    put32(b, (uint32_t)t);
    put32(b, caplen);
    put32(b, len);
    put(b, frame(id, caplen), caplen);
    blk_close(b);
}

static void
other(struct bb *b, uint32_t type, size_t n)
{
    blk_open(b, type);
    put(b, frame(99, n), n);
    blk_close(b);
}

/* ---- the comparison with libpcap ------------------------------------------ */

static const size_t chunks[] = { 0, 1, 7, 4096 };

/* Both readers over d[0..n): the same packets, the same end. Returns the
 * number of packets; *quiet counts mismatches to keep the output short. */
static long
same_as_libpcap(const uint8_t *d, size_t n, size_t chunk, const char *what, unsigned *bad)
{
    char eb[PCAP_ERRBUF_SIZE], err[256];
    struct capfile *f = NULL;
    uint8_t *copy = malloc(n ? n : 1);
    FILE *fp = NULL;
    pcap_t *p = NULL;
    long k = 0;
    int orc;

    if (!copy)
        abort();
    memcpy(copy, d, n);
    if (n)
        fp = fmemopen(copy, n, "rb");
    if (fp) {
        p = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, eb);
        if (!p)
            fclose(fp);
    }
    orc = capfile_open_mem(&f, d, n, chunk, err, sizeof err);
    if (!p || orc != 0) {
        if (!p != (orc != 0) && (*bad)++ < 5)
            fprintf(stderr, "%s (%zu bytes, chunk %zu): libpcap %s, capfile %s (%s)\n", what, n,
                    chunk, p ? "opens" : "fails", orc ? "fails" : "opens", err);
        CHECK(!p == (orc != 0));
        goto out;
    }
    CHECK(capfile_iface_dlt(f, 0) == pcap_datalink(p));
    CHECK(capfile_snaplen(f) == pcap_snapshot(p));
    for (;;) {
        struct pcap_pkthdr *h;
        const u_char *pd;
        struct capfile_pkt pk;
        int r = pcap_next_ex(p, &h, &pd);
        enum capfile_rc rc = capfile_next(f, &pk);
        bool ok;

        if (r == 1)
            ok = rc == CAPFILE_PKT && pk.ts.tv_sec == h->ts.tv_sec &&
                 pk.ts.tv_nsec == h->ts.tv_usec && pk.caplen == h->caplen &&
                 pk.wirelen == h->len && memcmp(pk.data, pd, h->caplen) == 0 &&
                 pk.dlt == pcap_datalink(p);
        else if (r == PCAP_ERROR_BREAK)
            ok = rc == CAPFILE_EOF;
        else
            ok = rc == CAPFILE_CUT;
        if (!ok && (*bad)++ < 5)
            fprintf(stderr, "%s (%zu bytes, chunk %zu): packet %ld: libpcap %d (%s) %lld.%lld,"
                            " capfile %d (%s) %lld.%lld\n",
                    what, n, chunk, k, r, r == PCAP_ERROR ? pcap_geterr(p) : "",
                    r == 1 ? (long long)h->ts.tv_sec : 0, r == 1 ? (long long)h->ts.tv_usec : 0,
                    (int)rc, capfile_error(f), (long long)pk.ts.tv_sec, (long long)pk.ts.tv_nsec);
        CHECK(ok);
        if (r != 1 || rc != CAPFILE_PKT)
            break;
        k++;
    }
out:
    if (p)
        pcap_close(p);
    capfile_close(f);
    free(copy);
    return k;
}

/* The whole file at every chunk size, then every prefix of it. */
static void
differential(const struct bb *b, const char *what, long want_packets)
{
    unsigned bad = 0;
    size_t c, cut;

    for (c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
        EQ(same_as_libpcap(b->p, b->n, chunks[c], what, &bad), want_packets);
    /* every cut of a small file; about 2,000 spread over a large one */
    for (cut = 0; cut < b->n; cut += b->n <= 8192 ? 1 : b->n / 2000 + 1)
        (void)same_as_libpcap(b->p, cut, chunks[cut % 4], what, &bad);
    EQ(bad, 0);
}

static void
test_pcap(void)
{
    static const struct {
        uint32_t magic;
        bool be, patched;
        uint16_t minor;
        const char *what;
    } kinds[] = {
        { 0xa1b2c3d4, false, false, 4, "pcap usec LE" },
        { 0xa1b2c3d4, true, false, 4, "pcap usec BE" },
        { 0xa1b23c4d, false, false, 4, "pcap nsec LE" },
        { 0xa1b23c4d, true, false, 4, "pcap nsec BE" },
        { 0xa1b2cd34, false, true, 4, "pcap patched LE" },
        { 0xa1b2c3d4, true, false, 2, "pcap 2.2 (lengths swapped)" },
        { 0xa1b2c3d4, false, false, 3, "pcap 2.3 (lengths maybe swapped)" },
    };
    size_t i;

    for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        struct bb b = { .be = kinds[i].be };

        lengths_swapped = kinds[i].minor < 3;
        pcap_hdr(&b, kinds[i].magic, 2, kinds[i].minor, 200, 1);
        pcap_rec(&b, 1700000000, 123456, 60, 60, 1, kinds[i].patched);
        /* captured over the snapshot length: cut to it */
        pcap_rec(&b, 1700000001, 999999, 250, 1514, 2, kinds[i].patched);
        /* a second's fraction over a second, a time past 2038 (negative) */
        pcap_rec(&b, 0xfffffff0u, 0xfffffffeu, 14, 14, 3, kinds[i].patched);
        pcap_rec(&b, 5, 7, 0, 100, 4, kinds[i].patched);
        if (kinds[i].minor == 3) {
            lengths_swapped = true; /* caplen > len: taken as swapped */
            pcap_rec(&b, 6, 8, 20, 30, 5, kinds[i].patched);
        }
        differential(&b, kinds[i].what, kinds[i].minor == 3 ? 5 : 4);
        lengths_swapped = false;
        free(b.p);
    }
    /* Snapshot length 0 and over INT_MAX: the maximum; raw IP (LINKTYPE 101
     * is DLT_RAW 12); a record over 262144 bytes stops the file. */
    {
        struct bb b = { 0 };

        pcap_hdr(&b, 0xa1b2c3d4, 2, 4, 0x80000000u, 101);
        pcap_rec(&b, 1, 2, 262144, 262144, 6, false);
        pcap_rec(&b, 1, 3, 262145, 262145, 7, false);
        pcap_rec(&b, 1, 4, 10, 10, 8, false);
        differential(&b, "pcap giant", 1);
        free(b.p);
    }
    /* Not pcap: archaic and unknown versions. */
    {
        struct bb b = { 0 };

        pcap_hdr(&b, 0xa1b2c3d4, 1, 0, 100, 1);
        differential(&b, "pcap 1.0", 0);
        b.n = 0;
        pcap_hdr(&b, 0xa1b2c3d4, 2, 5, 100, 1);
        differential(&b, "pcap 2.5", 0);
        free(b.p);
    }
}

/* One section: interfaces of one link type and snapshot length (libpcap's
 * limit), the block types, timestamps in many resolutions. */
static void
ng_section(struct bb *b, uint16_t minor, unsigned base)
{
    shb(b, minor);
    other(b, 4, 12);   /* name resolution */
    idb(b, 1, 1600, -1, false, 0);      /* microseconds */
    idb(b, 1, 1600, 9, true, -5);       /* nanoseconds, 5 s earlier */
    idb(b, 1, 1600, 3, true, 100);      /* milliseconds */
    idb(b, 1, 1600, 0x80 | 20, false, 0); /* 2^-20 s */
    idb(b, 1, 1600, 0x80 | 40, true, 1);  /* 2^-40 s: finer than 1 ns */
    idb(b, 1, 1600, 12, false, 0);      /* picoseconds */
    epb(b, 0, 1700000000123456ull, 60, 60, base + 1);
    epb(b, 1, 1700000000123456789ull, 1600, 9000, base + 2);
    epb(b, 2, 1700000000123ull, 0, 0, base + 3);
    other(b, 5, 20);   /* interface statistics */
    epb(b, 3, (1700000000ull << 20) | 0x7ffff, 61, 61, base + 4);
    epb(b, 4, (1700000000ull << 40) | 0xffffffffffull, 62, 62, base + 5);
    epb(b, 5, 17000000001234567890ull, 63, 63, base + 6);
    spb(b, 2000, 1600, base + 7);        /* cut to interface 0's snapshot length */
    spb(b, 40, 40, base + 8);
    pb(b, 1, 1700000001000000000ull, 64, 64, base + 9);
    other(b, 0x0bad, 8); /* custom */
    other(b, 10, 0);     /* decryption secrets, empty */
}

static void
test_pcapng(void)
{
    int be;

    for (be = 0; be < 2; be++) {
        struct bb b = { .be = be };

        ng_section(&b, 0, 0);
        ng_section(&b, 2, 10); /* a second section in the same byte order */
        differential(&b, be ? "pcapng BE" : "pcapng LE", 18);
        free(b.p);
    }
    /* Damaged blocks: lengths that lie, a packet on no interface, a packet
     * before any interface, no interface at all. */
    {
        struct bb b = { 0 };
        size_t at;

        shb(&b, 0);
        idb(&b, 1, 0, -1, false, 0);
        epb(&b, 0, 1, 10, 10, 1);
        at = b.n;
        epb(&b, 0, 2, 10, 10, 2);
        set32(&b, at + 20, 3); /* a caplen the block cannot hold is fine: 3 < 10 */
        epb(&b, 0, 3, 10, 10, 3);
        differential(&b, "pcapng caplen shorter", 3);
        set32(&b, at + 20, 100); /* caplen beyond the block */
        differential(&b, "pcapng caplen beyond the block", 1);
        set32(&b, at + 20, 10);
        set32(&b, at + 8, 1); /* interface 1: not described */
        differential(&b, "pcapng unknown interface", 1);
        set32(&b, at + 8, 0);
        set32(&b, at + 4, 30); /* total length not the trailer's */
        differential(&b, "pcapng lengths differ", 1);
        set32(&b, at + 4, 7);
        differential(&b, "pcapng length 7", 1);
        set32(&b, at + 4, 0xfffffff0u);
        differential(&b, "pcapng length 4 GiB", 1);
        free(b.p);
    }
    {
        struct bb b = { 0 };

        shb(&b, 0);
        epb(&b, 0, 1, 10, 10, 1);
        idb(&b, 1, 0, -1, false, 0);
        differential(&b, "pcapng packet before any interface", 0);
        b.n = 0;
        shb(&b, 0);
        other(&b, 4, 8);
        differential(&b, "pcapng without interfaces", 0);
        b.n = 0;
        shb(&b, 1); /* version 1.1 */
        idb(&b, 1, 0, -1, false, 0);
        differential(&b, "pcapng 1.1", 0);
        b.n = 0;
        shb(&b, 0);
        idb(&b, 1, 0, 0x80 | 64, false, 0); /* 2^-64: too fine */
        differential(&b, "pcapng tsresol 2^-64", 0);
        free(b.p);
    }
}

/* What the builtin reader does that libpcap does not. */
static void
test_beyond_libpcap(void)
{
    struct bb b = { 0 };
    struct capfile *f;
    struct capfile_pkt pk;
    char err[256];
    size_t c;

    shb(&b, 0);
    idb(&b, 1, 262144, 9, false, 0);   /* Ethernet */
    idb(&b, 276, 100, -1, false, 0);   /* Linux cooked v2, snapshot 100 */
    epb(&b, 0, 1000000001, 60, 60, 1);
    epb(&b, 1, 2000002, 100, 200, 2);
    b.be = true; /* a second section, big-endian */
    shb(&b, 0);
    idb(&b, 101, 0, -1, false, 0); /* LINKTYPE_RAW */
    epb(&b, 0, 3000003, 40, 40, 3);
    for (c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        CHECK(capfile_open_mem(&f, b.p, b.n, chunks[c], err, sizeof err) == 0);
        STREQ(capfile_format(f), "pcapng");
        EQ(capfile_ifaces(f), 2); /* both described before the first packet */
        EQ(capfile_iface_dlt(f, 1), 276);
        EQ(capfile_snaplen(f), 262144);
        CHECK(capfile_next(f, &pk) == CAPFILE_PKT);
        CHECK(pk.dlt == 1 && pk.ts.tv_sec == 1 && pk.ts.tv_nsec == 1 && pk.caplen == 60);
        CHECK(memcmp(pk.data, frame(1, 60), 60) == 0);
        CHECK(capfile_next(f, &pk) == CAPFILE_PKT);
        CHECK(pk.dlt == 276 && pk.iface == 1 && pk.ts.tv_sec == 2 && pk.ts.tv_nsec == 2000 &&
              pk.caplen == 100 && pk.wirelen == 200);
        CHECK(capfile_next(f, &pk) == CAPFILE_PKT);
        CHECK(pk.dlt == 12 && pk.iface == 0 && pk.ts.tv_sec == 3 && pk.ts.tv_nsec == 3000 &&
              pk.caplen == 40 && memcmp(pk.data, frame(3, 40), 40) == 0);
        CHECK(capfile_next(f, &pk) == CAPFILE_EOF);
        CHECK(capfile_next(f, &pk) == CAPFILE_EOF);
        capfile_close(f);
    }
    /* An EPB over its own interface's snapshot length stops the file. */
    b.n = 0;
    b.be = false;
    shb(&b, 0);
    idb(&b, 1, 262144, -1, false, 0);
    idb(&b, 276, 100, -1, false, 0);
    epb(&b, 1, 1, 101, 200, 1);
    CHECK(capfile_open_mem(&f, b.p, b.n, 0, err, sizeof err) == 0);
    CHECK(capfile_next(f, &pk) == CAPFILE_CUT);
    CHECK(capfile_warning(f) == NULL); /* malformed: counted, not said */
    capfile_close(f);
    /* A block over the limit: stopped there, and said. */
    b.n = 0;
    shb(&b, 0);
    idb(&b, 1, 0, -1, false, 0);
    epb(&b, 0, 1, 10, 10, 1);
    blk_open(&b, 0x0bad);
    set32(&b, b.blk + 4, CAPFILE_BLOCK_MAX + 4);
    CHECK(capfile_open_mem(&f, b.p, b.n, 7, err, sizeof err) == 0);
    CHECK(capfile_next(f, &pk) == CAPFILE_PKT);
    CHECK(capfile_next(f, &pk) == CAPFILE_CUT);
    CHECK(capfile_warning(f) && strstr(capfile_warning(f), "limit"));
    capfile_close(f);
    free(b.p);
}

/* ---- compressed ------------------------------------------------------------ */

static size_t
gz(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    z_stream z;

    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        abort();
    z.next_in = (uint8_t *)(uintptr_t)in;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END)
        abort();
    deflateEnd(&z);
    return cap - z.avail_out;
}

static size_t
compress_as(const char *kind, const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    if (strcmp(kind, "gzip") == 0) { /* two members: the halves */
        size_t k = gz(in, n / 2, out, cap);

        return k + gz(in + n / 2, n - n / 2, out + k, cap - k);
    }
    if (strcmp(kind, "zstd") == 0) { /* two frames */
        size_t k = ZSTD_compress(out, cap, in, n / 3, 3);

        if (ZSTD_isError(k))
            abort();
        return k + ZSTD_compress(out + k, cap - k, in + n / 3, n - n / 3, 3);
    }
    if (strcmp(kind, "xz") == 0) {
        size_t pos = 0;

        if (lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, in, n, out, &pos, cap) != LZMA_OK)
            abort();
        return pos;
    }
    {
        unsigned int k = (unsigned)cap;

        if (BZ2_bzBuffToBuffCompress((char *)out, &k, (char *)(uintptr_t)in, (unsigned)n, 1, 0,
                                     0) != BZ_OK)
            abort();
        return k;
    }
}

/* 2,000 packets of 1,500 bytes (3 MB: several buffers' worth) in *b, and
 * room for any compression of them: *z of *cap bytes. */
static void
big_capture(struct bb *b, uint8_t **z, size_t *cap)
{
    unsigned k;

    pcap_hdr(b, 0xa1b23c4d, 2, 4, 262144, 1);
    for (k = 0; k < 2000; k++)
        pcap_rec(b, 1000 + k, k, 1500, 1500, k, false);
    *cap = b->n + (1u << 20);
    *z = malloc(*cap);
    if (!*z)
        abort();
}

static void
test_compressed(void)
{
    static const char *const kinds[] = { "gzip", "zstd", "xz", "bzip2" };
    struct bb b = { 0 };
    size_t cap, i, c;
    uint8_t *z;
    char err[256];

    big_capture(&b, &z, &cap);
    for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t zn = compress_as(kinds[i], b.p, b.n, z, cap);

        for (c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
            struct capfile *f;
            struct capfile_pkt pk;
            unsigned got = 0, same = 0;
            enum capfile_rc rc;

            if (chunks[c] == 1)
                continue; /* a byte at a time: slow, and no other path */
            CHECK(capfile_open_mem(&f, z, zn, chunks[c], err, sizeof err) == 0);
            STREQ(capfile_compression(f), kinds[i]);
            while ((rc = capfile_next(f, &pk)) == CAPFILE_PKT) {
                same += pk.ts.tv_sec == 1000 + got && pk.ts.tv_nsec == got && pk.caplen == 1500 &&
                        memcmp(pk.data, frame(got, 1500), 1500) == 0;
                got++;
            }
            EQ(rc, CAPFILE_EOF);
            EQ(got, 2000);
            EQ(same, 2000);
            capfile_close(f);
            /* cut short: the packets before the cut, then CUT, said */
            CHECK(capfile_open_mem(&f, z, zn * 3 / 4, chunks[c], err, sizeof err) == 0);
            got = 0;
            while ((rc = capfile_next(f, &pk)) == CAPFILE_PKT)
                got++;
            EQ(rc, CAPFILE_CUT);
            CHECK(got > 0 && got < 2000);
            CHECK(capfile_warning(f) != NULL);
            capfile_close(f);
        }
        /* damaged in the middle */
        z[zn / 2] ^= 0x55;
        z[zn / 2 + 1] ^= 0x55;
        {
            struct capfile *f;
            struct capfile_pkt pk;
            enum capfile_rc rc;

            if (capfile_open_mem(&f, z, zn, 4096, err, sizeof err) == 0) {
                while ((rc = capfile_next(f, &pk)) == CAPFILE_PKT)
                    ;
                /* xz and bzip2 check every block; gzip and zstd at the end */
                CHECK(rc == CAPFILE_CUT || rc == CAPFILE_EOF);
            }
            capfile_close(f);
        }
    }
    /* compressed, but not a capture inside; and not compressed, not a capture */
    {
        struct capfile *f;
        size_t zn = compress_as("gzip", (const uint8_t *)"hello, world, not a capture", 27, z, cap);

        CHECK(capfile_open_mem(&f, z, zn, 0, err, sizeof err) == 1);
        CHECK(strstr(err, "gzip-compressed") && strstr(err, "not a pcap"));
        capfile_close(f);
        CHECK(capfile_open_mem(&f, (const uint8_t *)"GIF89a......", 12, 0, err, sizeof err) == 1);
        CHECK(strstr(err, "not a pcap or pcapng capture") && strstr(err, "47 49 46 38"));
        capfile_close(f);
        CHECK(capfile_open_mem(&f, (const uint8_t *)"", 0, 0, err, sizeof err) == 1);
        capfile_close(f);
    }
    free(z);
    free(b.p);
}

/* A compressed capture read back: its packets (a sum of their times,
 * lengths and bytes) and how it ends. */
struct readback {
    int open_rc;
    unsigned got;
    uint64_t sum;
    enum capfile_rc end;
    bool warned;
};

static struct readback
read_back(const uint8_t *z, size_t zn, size_t chunk)
{
    struct readback r = { 0, 0, 0, CAPFILE_EOF, false };
    struct capfile *f;
    struct capfile_pkt pk;
    char err[256];

    r.open_rc = capfile_open_mem(&f, z, zn, chunk, err, sizeof err);
    if (r.open_rc == 0) {
        while ((r.end = capfile_next(f, &pk)) == CAPFILE_PKT) {
            uint32_t i;

            r.sum = r.sum * 31 + (uint64_t)pk.ts.tv_sec * 1000000000u + (uint64_t)pk.ts.tv_nsec;
            r.sum = r.sum * 31 + pk.caplen;
            for (i = 0; i < pk.caplen; i++)
                r.sum = r.sum * 131 + pk.data[i];
            r.got++;
        }
        r.warned = capfile_warning(f) != NULL;
    }
    capfile_close(f);
    return r;
}

/* The same packets and the same end in place and through buffers fed 7 and
 * 4096 bytes at a time (not always the same warning: reading ahead, one may
 * reach the damage before a garbled record stops the reading). Returns the
 * in-place reading. */
static struct readback
read_back_alike(const uint8_t *z, size_t zn, const char *what)
{
    static const size_t feeds[] = { 7, 4096 };
    struct readback a = read_back(z, zn, 0);
    size_t i;

    for (i = 0; i < sizeof feeds / sizeof feeds[0]; i++) {
        struct readback b = read_back(z, zn, feeds[i]);

        if (a.open_rc != b.open_rc || a.got != b.got || a.sum != b.sum || a.end != b.end) {
            fprintf(stderr, "%s, fed %zu bytes at a time: open %d, %u packets, end %d;"
                            " in place: open %d, %u packets, end %d\n",
                    what, feeds[i], b.open_rc, b.got, b.end, a.open_rc, a.got, a.end);
            CHECK(false);
        }
    }
    return a;
}

/* Damaged compressed data: every packet decoded before the damage is given,
 * the same ones however the bytes arrive, then CUT with a warning. */
static void
test_damaged(void)
{
    static const char *const kinds[] = { "gzip", "zstd", "xz", "bzip2" };
    struct bb b = { 0 };
    size_t cap, i, j, per = 16 + 1500;
    uint8_t *z;
    char what[64];

    big_capture(&b, &z, &cap);
    for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t zn = compress_as(kinds[i], b.p, b.n, z, cap);
        size_t at[] = { zn - 2, zn - 6, zn - 12, zn - 30, zn * 3 / 4, zn / 2 };

        for (j = 0; j < sizeof at / sizeof at[0]; j++) {
            struct readback r;

            z[at[j]] ^= 0xff;
            snprintf(what, sizeof what, "%s damaged at %zu of %zu", kinds[i], at[j], zn);
            r = read_back_alike(z, zn, what);
            z[at[j]] ^= 0xff;
            /* the end of a gzip member (its size), of a bzip2 stream (its
             * CRC), of an xz stream (the footer): after every packet */
            if (j == 0 && strcmp(kinds[i], "zstd") != 0) {
                EQ(r.open_rc, 0);
                EQ(r.got, 2000);
                EQ(r.end, CAPFILE_CUT);
                CHECK(r.warned);
            }
        }
    }
    /* zstd, by hand: one frame of raw blocks of 100,000 bytes (RFC 8878
     * §3.1.1), the last one's Block_Header of the reserved type. Every
     * packet of the blocks before it is given. */
    {
        size_t zn = 0, o, blk = 100000, before = 0;
        struct readback r;

        memcpy(z, "\x28\xb5\x2f\xfd\x00\x38", 6); /* no size or checksum; 128 KiB window */
        zn = 6;
        for (o = 0; o < b.n; o += blk) {
            size_t n = b.n - o < blk ? b.n - o : blk;
            uint32_t h = (uint32_t)(n << 3) | (o + n == b.n ? 1u : 0u);

            if (o + n == b.n) {
                h |= 3u << 1; /* Block_Type 3: reserved, corrupted data */
                before = o;
            }
            z[zn++] = (uint8_t)h;
            z[zn++] = (uint8_t)(h >> 8);
            z[zn++] = (uint8_t)(h >> 16);
            memcpy(z + zn, b.p + o, n);
            zn += n;
        }
        r = read_back_alike(z, zn, "zstd raw blocks, the last one's header damaged");
        EQ(r.open_rc, 0);
        EQ(r.got, (before - 24) / per);
        EQ(r.end, CAPFILE_CUT);
        CHECK(r.warned);
    }
    free(z);
    free(b.p);
}

int
main(void)
{
    EQ(capfile_linktype_to_dlt(101), 12);
    EQ(capfile_linktype_to_dlt(276), 276);
    test_pcap();
    test_pcapng();
    test_beyond_libpcap();
    test_compressed();
    test_damaged();
    return t_done();
}
