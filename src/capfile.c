/* SPDX-License-Identifier: BSD-3-Clause */
/* capfile.c: the pcap and pcapng reader (see capfile.h).
 *
 * Layers, bottom up: raw bytes (a descriptor, or memory); an optional
 * decompressor; a window [pos, end) over one growable buffer filled by 1 MiB
 * reads (or over memory read in place); the two record parsers. Files are
 * read, not mapped: a mapped file cut short by another process while it is
 * read kills the reader (SIGBUS), and its pages count in the resident size. Each length is checked
 * against what the window holds before any byte is read. */
#include "capfile.h"

#include <bzlib.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lzma.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "hugemem.h"

#define BUF_INIT (1u << 20)    /* stream buffer: 1 MiB reads */
#define CIN_SIZE (256u << 10)  /* compressed input, per read */
#define DEC_IN (4u << 10)      /* xz and bzip2: input pieces (dec_pieces) */
#define DEC_OUT (64u << 10)    /* ... and output pieces */
#define READ_MIN (64u << 10)   /* compact the buffer when less room is left */
#define BUF_MAX (CAPFILE_BLOCK_MAX + (64u << 10))
#define XZ_MEMLIMIT (128u << 20) /* xz -9 needs 65 MiB */

/* pcap (libpcap's savefile format, pcap-savefile(5)) */
#define PCAP_MAGIC 0xa1b2c3d4u      /* microseconds */
#define PCAP_MAGIC_NSEC 0xa1b23c4du /* nanoseconds */
#define PCAP_MAGIC_KUZ 0xa1b2cd34u  /* patched libpcap: 24-byte records */
#define MAXIMUM_SNAPLEN 262144u     /* libpcap's, for most link types */

/* pcapng (draft-ietf-opsawg-pcapng) */
#define BT_SHB 0x0a0d0d0au
#define BT_IDB 0x00000001u
#define BT_PB 0x00000002u
#define BT_SPB 0x00000003u
#define BT_EPB 0x00000006u
#define BOM 0x1a2b3c4du
#define SHB_MAX (1u << 20) /* libpcap: a larger first SHB is not a capture */
#define OPT_ENDOFOPT 0
#define IF_TSRESOL 9
#define IF_TSOFFSET 14

enum comp { C_NONE, C_GZIP, C_ZSTD, C_XZ, C_BZIP2 };
enum kind { K_PCAP, K_PCAPNG };
enum lswap { NOT_SWAPPED, SWAPPED, MAYBE_SWAPPED };
enum scale { PASS_THROUGH, SCALE_UP_DEC, SCALE_DOWN_DEC, SCALE_UP_BIN, SCALE_DOWN_BIN };

struct ng_if {
    int dlt;
    uint32_t snaplen; /* adjusted as libpcap does */
    uint64_t tsresol; /* units per second */
    uint64_t factor;  /* power-of-10 scaling to nanoseconds */
    int64_t tsoffset; /* seconds */
    enum scale scale;
};

struct capfile {
    /* raw input */
    int fd; /* -1: memory */
    bool own_fd;
    const uint8_t *mem;
    size_t memlen, mempos, chunk;
    bool raw_eof;
    /* decompression: cin holds compressed bytes [cin_pos, cin_len), cin[0]
     * being the input's byte cin_off; dout what a decoder gave and was not
     * yet taken, [dout_pos, dout_len) */
    enum comp comp;
    bool dec_live, member_end;
    z_stream z;
    ZSTD_DStream *zs;
    size_t zs_hint; /* ZSTD_decompressStream's last return: the input it wants next */
    bool zs_full;   /* its last call filled dst: decoded bytes may wait to be flushed */
    lzma_stream lz;
    bz_stream bz;
    uint8_t *cin;
    size_t cin_pos, cin_len, cin_cap;
    uint64_t cin_off;
    uint8_t *dout;
    size_t dout_pos, dout_len;
    uint64_t dec_total; /* bytes decompressed */
    /* the window */
    uint8_t *buf; /* the buffer (NULL: memory read in place) */
    size_t cap;
    size_t read_max; /* a read's most bytes; 0: the room left */
    bool populated;  /* buf's pages made resident (mem_populate) */
    const uint8_t *win;
    size_t pos, end;
    bool eof;      /* nothing more will come into the window */
    bool read_err; /* ... because reading or decompressing failed */
    /* format */
    enum kind kind;
    bool swapped;
    /* pcap */
    unsigned hdrsize;
    bool nsec;
    enum lswap lswap;
    uint32_t snapshot;
    uint32_t caplen_max; /* max_snaplen_for_dlt(dlt) */
    int dlt;
    /* pcapng: the current section's interfaces */
    struct ng_if *ifs;
    size_t nifs, ifs_cap;
    int snap_max;
    /* the first packet, read ahead at open */
    bool have_first;
    enum capfile_rc first_rc;
    struct capfile_pkt first;
    bool done;
    char err[256];
    char warn[256];
};

/* ---- helpers ----------------------------------------------------------- */

static void err_set(struct capfile *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn_set(struct capfile *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
err_set(struct capfile *f, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(f->err, sizeof f->err, fmt, ap);
    va_end(ap);
}

/* A damage worth telling the user: also the error. */
static void
warn_set(struct capfile *f, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(f->warn, sizeof f->warn, fmt, ap);
    va_end(ap);
    memcpy(f->err, f->warn, sizeof f->err);
}

static inline uint32_t
sw32(uint32_t v)
{
    return __builtin_bswap32(v);
}

static inline uint32_t
rd32(const struct capfile *f, const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, 4);
    return f->swapped ? sw32(v) : v;
}

static inline uint16_t
rd16(const struct capfile *f, const uint8_t *p)
{
    uint16_t v;

    memcpy(&v, p, 2);
    return f->swapped ? __builtin_bswap16(v) : v;
}

int
capfile_linktype_to_dlt(uint32_t lt)
{
    switch (lt) { /* libpcap pcap-common.c, values that are not the DLT on Linux */
    case 100:
        return 11; /* ATM_RFC1483 */
    case 101:
        return 12; /* RAW */
    case 102:
        return 15; /* SLIP_BSDOS */
    case 103:
        return 16; /* PPP_BSDOS */
    case 106:
        return 19; /* ATM_CLIP */
    default:
        return (int)lt;
    }
}

static uint32_t
max_snaplen_for_dlt(int dlt)
{
    switch (dlt) {
    case 231: /* DBUS */
        return 128u << 20;
    case 279: /* EBHSCR */
        return 8u << 20;
    case 249: /* USBPCAP */
        return 1u << 20;
    default:
        return MAXIMUM_SNAPLEN;
    }
}

/* libpcap's pcap_adjust_snapshot(): 0 and > INT_MAX mean the maximum. */
static uint32_t
adjust_snapshot(int dlt, uint32_t snaplen)
{
    return snaplen == 0 || snaplen > INT_MAX ? max_snaplen_for_dlt(dlt) : snaplen;
}

/* ---- raw input and decompression ----------------------------------------- */

static ssize_t
raw_read(struct capfile *f, uint8_t *dst, size_t n)
{
    if (f->fd < 0) {
        size_t k = f->memlen - f->mempos;

        if (k > n)
            k = n;
        if (f->chunk && k > f->chunk)
            k = f->chunk;
        memcpy(dst, f->mem + f->mempos, k);
        f->mempos += k;
        return (ssize_t)k;
    }
    for (;;) {
        ssize_t r = read(f->fd, dst, n);

        if (r >= 0 || errno != EINTR)
            return r;
    }
}

static const char *
comp_name(enum comp c)
{
    static const char *const names[] = { NULL, "gzip", "zstd", "xz", "bzip2" };

    return names[c];
}

static int
dec_init(struct capfile *f)
{
    switch (f->comp) {
    case C_GZIP:
        memset(&f->z, 0, sizeof f->z);
        if (inflateInit2(&f->z, 15 + 16) != Z_OK) /* gzip wrapper only (RFC 1952) */
            return -1;
        break;
    case C_ZSTD:
        f->zs = ZSTD_createDStream();
        if (!f->zs || ZSTD_isError(ZSTD_initDStream(f->zs)))
            return -1;
        f->zs_hint = 0;
        f->zs_full = false;
        break;
    case C_XZ: {
        lzma_stream init = LZMA_STREAM_INIT;

        f->lz = init;
        if (lzma_stream_decoder(&f->lz, XZ_MEMLIMIT, LZMA_CONCATENATED) != LZMA_OK)
            return -1;
        break;
    }
    case C_BZIP2:
        memset(&f->bz, 0, sizeof f->bz);
        if (BZ2_bzDecompressInit(&f->bz, 0, 0) != BZ_OK)
            return -1;
        break;
    case C_NONE:
        return 0;
    }
    f->dec_live = true;
    return 0;
}

static void
dec_end(struct capfile *f)
{
    if (!f->dec_live)
        return;
    switch (f->comp) {
    case C_GZIP:
        inflateEnd(&f->z);
        break;
    case C_ZSTD:
        ZSTD_freeDStream(f->zs);
        f->zs = NULL;
        break;
    case C_XZ:
        lzma_end(&f->lz);
        break;
    case C_BZIP2:
        BZ2_bzDecompressEnd(&f->bz);
        break;
    case C_NONE:
        break;
    }
    f->dec_live = false;
}

/* A damaged file must give the same packets however its bytes arrive (in
 * place, from a file, from a pipe), so what a decoder gives before it finds
 * the damage must not depend on how its input and output are cut. zlib
 * reports every byte up to the damage, and zstd is given one block a call
 * (dec_step). liblzma finds damage at a point that depends on where its
 * input was cut, and libbz2 does not report the output of a call that finds
 * a block damaged: those two are called on fixed pieces, the input up to
 * the end of its aligned DEC_IN piece once that is whole (or the input
 * ended), asking for the rest of the aligned DEC_OUT piece of output. Not
 * the fast two: calls of a few KiB would cost zlib a copy into its window
 * each. */
static bool
dec_pieces(const struct capfile *f)
{
    return f->comp == C_XZ || f->comp == C_BZIP2;
}

/* Make input available: the rest of the current DEC_IN piece under
 * dec_pieces(), else at least a byte; less only where the input ends.
 * False when nothing is left. */
static bool
cin_fill(struct capfile *f)
{
    uint64_t at = f->cin_off + f->cin_pos;
    uint64_t piece_end = dec_pieces(f) ? (at / DEC_IN + 1) * DEC_IN : at + 1;

    while (f->cin_off + f->cin_len < piece_end && !f->raw_eof) {
        ssize_t r;

        if (f->cin_pos == f->cin_len || f->cin_len == f->cin_cap) {
            /* what is left, moved to the front, is less than a piece */
            memmove(f->cin, f->cin + f->cin_pos, f->cin_len - f->cin_pos);
            f->cin_off += f->cin_pos;
            f->cin_len -= f->cin_pos;
            f->cin_pos = 0;
        }
        r = raw_read(f, f->cin + f->cin_len, f->cin_cap - f->cin_len);
        if (r <= 0) {
            f->raw_eof = true;
            if (r < 0)
                warn_set(f, "read error: %s", strerror(errno));
            break;
        }
        f->cin_len += (size_t)r;
    }
    return f->cin_pos < f->cin_len;
}

/* One decoder step into dst; returns bytes produced (with f->warn set when
 * the damage was found after them) or -1 (f->warn set).
 * Sets f->member_end at the end of a gzip member, zstd frame, bzip2 stream or
 * (concatenated) xz streams. Under dec_pieces(), the input given stops at
 * the end of its DEC_IN piece (and n is set by src_read). */
static ssize_t
dec_step(struct capfile *f, uint8_t *dst, size_t n)
{
    size_t piece = dec_pieces(f) ? DEC_IN - (size_t)((f->cin_off + f->cin_pos) % DEC_IN)
                                 : SIZE_MAX;
    size_t in = f->cin_len - f->cin_pos < piece ? f->cin_len - f->cin_pos : piece;
    size_t left = in, out = n;
    const char *why = NULL, *limit = NULL;

    switch (f->comp) {
    case C_GZIP: {
        int rc;

        f->z.next_in = f->cin + f->cin_pos;
        f->z.avail_in = (uInt)in;
        f->z.next_out = dst;
        f->z.avail_out = (uInt)n;
        rc = inflate(&f->z, Z_NO_FLUSH);
        left = f->z.avail_in;
        out = f->z.avail_out;
        if (rc == Z_STREAM_END)
            f->member_end = true;
        else if (rc != Z_OK && rc != Z_BUF_ERROR)
            why = f->z.msg ? f->z.msg : "data error";
        break;
    }
    case C_ZSTD: {
        /* A failing ZSTD_decompressStream() does not report the output of
         * that call (output->pos stays), so the blocks it decoded before the
         * damage would be lost, as many as the input given at once held. So
         * one call decodes at most one block: its hint is the rest of the
         * block plus the next Block_Header (3 bytes, RFC 8878 §3.1.1.2),
         * and only the rest is given (a byte at a time for headers and
         * checksums). A call that filled dst may leave decoded bytes to
         * flush: the next one gets no input, so it cannot fail. */
        size_t give = f->zs_full ? 0 : f->zs_hint > 3 ? f->zs_hint - 3 : 1;
        ZSTD_inBuffer ib = { f->cin + f->cin_pos, give < in ? give : in, 0 };
        ZSTD_outBuffer ob = { dst, n, 0 };
        size_t rc = ZSTD_decompressStream(f->zs, &ob, &ib);

        left = in - ib.pos;
        out = n - ob.pos;
        f->zs_full = ob.pos == n;
        if (ZSTD_isError(rc)) {
            why = ZSTD_getErrorName(rc);
        } else {
            f->zs_hint = rc; /* 0: a new frame next */
            if (rc == 0)
                f->member_end = true;
        }
        break;
    }
    case C_XZ: {
        lzma_ret rc;

        f->lz.next_in = f->cin + f->cin_pos;
        f->lz.avail_in = in;
        f->lz.next_out = dst;
        f->lz.avail_out = n;
        rc = lzma_code(&f->lz, in == 0 && f->raw_eof ? LZMA_FINISH : LZMA_RUN);
        left = f->lz.avail_in;
        out = f->lz.avail_out;
        if (rc == LZMA_STREAM_END)
            f->member_end = true;
        else if (rc == LZMA_MEMLIMIT_ERROR)
            limit = "the file needs more than 128 MiB of memory to decompress";
        else if (rc != LZMA_OK && rc != LZMA_BUF_ERROR)
            why = rc == LZMA_FORMAT_ERROR || rc == LZMA_DATA_ERROR ? "data error" : "decoder error";
        break;
    }
    case C_BZIP2: {
        int rc;

        f->bz.next_in = (char *)(f->cin + f->cin_pos);
        f->bz.avail_in = (unsigned)in;
        f->bz.next_out = (char *)dst;
        f->bz.avail_out = (unsigned)n;
        rc = BZ2_bzDecompress(&f->bz);
        left = f->bz.avail_in;
        out = f->bz.avail_out;
        if (rc == BZ_STREAM_END)
            f->member_end = true;
        else if (rc != BZ_OK)
            why = rc == BZ_MEM_ERROR ? "out of memory" : "data error";
        break;
    }
    case C_NONE:
        break;
    }
    f->cin_pos += in - left;
    if (limit)
        warn_set(f, "%s: %s", comp_name(f->comp), limit);
    else if (why)
        warn_set(f, "%s data damaged after %llu bytes of capture: %s", comp_name(f->comp),
                 (unsigned long long)(f->dec_total + (n - out)), why);
    /* What the decoder gave before it found the damage (a gzip or bzip2
     * checksum is checked after the data it covers) is returned first;
     * src_read() returns -1 on the next call, f->warn being set. Else how
     * much of it is read would depend on the sizes of the reads. */
    if (f->warn[0] && n == out)
        return -1;
    f->dec_total += n - out;
    return (ssize_t)(n - out);
}

/* Decompressed bytes into dst: > 0, 0 at the end of the input, -1 on damage
 * (f->warn set; a compressed stream cut short counts as damage). Under
 * dec_pieces() the decoder is asked for the rest of the current DEC_OUT
 * piece: straight into dst when n has room for it, else into dout, from
 * which dst takes what fits. */
static ssize_t
src_read(struct capfile *f, uint8_t *dst, size_t n)
{
    if (f->comp == C_NONE)
        return raw_read(f, dst, n);
    if (f->dout_pos < f->dout_len) {
        size_t k = f->dout_len - f->dout_pos < n ? f->dout_len - f->dout_pos : n;

        memcpy(dst, f->dout + f->dout_pos, k);
        f->dout_pos += k;
        return (ssize_t)k;
    }
    for (;;) {
        bool more = cin_fill(f);
        size_t want = dec_pieces(f) ? DEC_OUT - (size_t)(f->dec_total % DEC_OUT) : n;
        ssize_t r;

        if (f->warn[0])
            return -1;
        if (f->member_end) {
            if (!more)
                return 0; /* the last member ended with the input */
            f->member_end = false;
            if (f->comp != C_ZSTD && f->comp != C_XZ) { /* next member: a new decoder */
                dec_end(f);
                if (dec_init(f) != 0) {
                    warn_set(f, "%s: out of memory", comp_name(f->comp));
                    return -1;
                }
            }
        }
        if (n >= want) {
            r = dec_step(f, dst, want);
        } else {
            if (!f->dout && !(f->dout = malloc(DEC_OUT))) {
                warn_set(f, "%s: out of memory", comp_name(f->comp));
                return -1;
            }
            r = dec_step(f, f->dout, want);
            if (r > 0) {
                f->dout_len = (size_t)r;
                f->dout_pos = 0;
                return src_read(f, dst, n);
            }
        }
        if (r != 0)
            return r;
        if (f->member_end)
            continue;
        if (!more && f->cin_pos == f->cin_len) {
            warn_set(f, "%s data ends early (the compressed file is cut short)",
                     comp_name(f->comp));
            return -1;
        }
    }
}

/* ---- the window ----------------------------------------------------------- */

/* Make at least n bytes (n <= BUF_MAX) available at win + pos. Returns how
 * many are: fewer than n only at the end of the input (or on a read error,
 * f->read_err). Moves the unread tail to the front of the buffer only when
 * the record being read does not fit in what is left of it. */
static size_t
need(struct capfile *f, size_t n)
{
    size_t have = f->end - f->pos;

    if (have >= n || f->eof)
        return have;
    if (f->cap - f->pos < n || f->cap - f->end < READ_MIN) {
        if (n > f->cap) {
            size_t ncap = f->cap * 2 > n ? f->cap * 2 : n;
            uint8_t *nb;

            if (ncap > BUF_MAX)
                ncap = BUF_MAX;
            if (ncap < n)
                return have;
            nb = malloc(ncap);
            if (!nb) {
                warn_set(f, "out of memory for a record of %zu bytes", n);
                f->eof = f->read_err = true;
                return have;
            }
            memcpy(nb, f->buf + f->pos, have);
            free(f->buf);
            f->buf = nb;
            f->cap = ncap;
            f->populated = false;
        } else if (f->pos > 0) {
            memmove(f->buf, f->buf + f->pos, have);
        }
        f->win = f->buf;
        f->pos = 0;
        f->end = have;
    }
    /* The first read into the whole buffer, on the thread that reads the
     * capture: the kernel's copy would fault its pages in one by one. */
    if (!f->populated && !f->read_max && f->buf) {
        mem_populate(f->buf, f->cap);
        f->populated = true;
    }
    while (f->end - f->pos < n) {
        size_t room = f->cap - f->end;
        ssize_t r = src_read(f, f->buf + f->end,
                             f->read_max && room > f->read_max ? f->read_max : room);

        if (r <= 0) {
            if (r < 0) {
                f->read_err = true;
                if (!f->warn[0])
                    warn_set(f, "read error: %s", strerror(errno));
            }
            f->eof = true;
            break;
        }
        f->end += (size_t)r;
    }
    return f->end - f->pos;
}

/* The input ends inside a record, or a read failed: CAPFILE_CUT. */
static enum capfile_rc
cut_short(struct capfile *f, const char *what, size_t want, size_t have)
{
    if (!f->read_err)
        err_set(f, "truncated %s: %zu bytes wanted, %zu there", what, want, have);
    return CAPFILE_CUT;
}

/* ---- pcap ------------------------------------------------------------------- */

static int
pcap_open_hdr(struct capfile *f, uint32_t magic, char *err, size_t errlen)
{
    const uint8_t *h;
    uint16_t major, minor;
    uint32_t snaplen, linktype;

    if (need(f, 24) < 24) {
        snprintf(err, errlen, "truncated pcap file header (%zu of 24 bytes)", f->end - f->pos);
        return 1;
    }
    h = f->win + f->pos;
    f->swapped = magic != PCAP_MAGIC && magic != PCAP_MAGIC_NSEC && magic != PCAP_MAGIC_KUZ;
    if (f->swapped)
        magic = sw32(magic);
    major = rd16(f, h + 4);
    minor = rd16(f, h + 6);
    snaplen = rd32(f, h + 16);
    linktype = rd32(f, h + 20);
    if (major < 2) {
        snprintf(err, errlen, "archaic pcap savefile format");
        return 1;
    }
    if (!((major == 2 && minor <= 4) || (major == 543 && minor == 0))) {
        snprintf(err, errlen, "unsupported pcap savefile version %u.%u", major, minor);
        return 1;
    }
    f->kind = K_PCAP;
    f->nsec = magic == PCAP_MAGIC_NSEC;
    f->dlt = capfile_linktype_to_dlt(linktype & 0x03ffffffu);
    f->snapshot = adjust_snapshot(f->dlt, snaplen);
    f->caplen_max = max_snaplen_for_dlt(f->dlt);
    /* Lengths were swapped before 2.3 (and by DG/UX's 543.0); 2.3 files may be
     * either way (libpcap's sf-pcap.c). */
    if (major == 543 || (major == 2 && minor < 3))
        f->lswap = SWAPPED;
    else if (major == 2 && minor == 3)
        f->lswap = MAYBE_SWAPPED;
    else
        f->lswap = NOT_SWAPPED;
    f->hdrsize = 16;
    if (magic == PCAP_MAGIC_KUZ) {
        f->hdrsize = 24; /* + ifindex, protocol, pkt_type, pad */
        if (f->dlt == 1) /* EN10MB: maybe cooked with a faked header (libpcap) */
            f->snapshot = f->snapshot <= INT_MAX - 14 ? f->snapshot + 14 : INT_MAX;
    }
    f->snap_max = (int)f->snapshot;
    f->pos += 24;
    return 0;
}

/* need() is called only when the window does not already hold the bytes:
 * the common case costs a compare. */
static enum capfile_rc
pcap_next_rec(struct capfile *f, struct capfile_pkt *p)
{
    size_t have = f->end - f->pos, total;
    const uint8_t *h;
    uint32_t caplen, len, t;

    if (have < f->hdrsize && (have = need(f, f->hdrsize)) < f->hdrsize) {
        if (have == 0 && !f->read_err)
            return CAPFILE_EOF;
        return cut_short(f, "pcap record header", f->hdrsize, have);
    }
    h = f->win + f->pos;
    /* As libpcap 1.10 reads them: 32-bit signed in the file's byte order,
     * unsigned once byte-swapped. */
    if (f->swapped) {
        p->ts.tv_sec = (time_t)rd32(f, h);
        p->ts.tv_nsec = (long)rd32(f, h + 4);
    } else {
        p->ts.tv_sec = (time_t)(int32_t)rd32(f, h);
        p->ts.tv_nsec = (long)(int32_t)rd32(f, h + 4);
    }
    if (!f->nsec)
        p->ts.tv_nsec *= 1000;
    caplen = rd32(f, h + 8);
    len = rd32(f, h + 12);
    if (f->lswap == SWAPPED || (f->lswap == MAYBE_SWAPPED && caplen > len)) {
        t = caplen;
        caplen = len;
        len = t;
    }
    if (caplen > f->caplen_max) {
        err_set(f, "invalid packet capture length %u, bigger than %u", caplen, f->caplen_max);
        return CAPFILE_CUT;
    }
    total = (size_t)f->hdrsize + caplen;
    if (total > BUF_MAX) {
        warn_set(f, "a pcap record of %zu bytes is over the %u MiB limit", total,
                 CAPFILE_BLOCK_MAX >> 20);
        return CAPFILE_CUT;
    }
    if (have < total) {
        have = need(f, total);
        if (have < total)
            return cut_short(f, "pcap record", total, have);
        h = f->win + f->pos;
    }
    p->data = h + f->hdrsize;
    /* Bytes past the file's snapshot length are skipped (libpcap). */
    p->caplen = caplen > f->snapshot ? f->snapshot : caplen;
    p->wirelen = len;
    p->dlt = f->dlt;
    p->iface = 0;
    f->pos += total;
    return CAPFILE_PKT;
}

/* ---- pcapng ----------------------------------------------------------------- */

/* An IDB's options: if_tsresol and if_tsoffset (checked as libpcap does). */
static int
idb_options(struct capfile *f, const uint8_t *o, size_t n, struct ng_if *ifc)
{
    bool saw_res = false, saw_off = false;

    while (n) {
        uint16_t code, olen;
        size_t padded;

        if (n < 4) {
            err_set(f, "interface description block: option header cut");
            return -1;
        }
        code = rd16(f, o);
        olen = rd16(f, o + 2);
        padded = ((size_t)olen + 3) & ~(size_t)3;
        if (n - 4 < padded) {
            err_set(f, "interface description block: option %u longer than the block", code);
            return -1;
        }
        o += 4;
        n -= 4;
        if (code == OPT_ENDOFOPT) {
            if (olen != 0) {
                err_set(f, "interface description block: opt_endofopt of length %u", olen);
                return -1;
            }
            return 0;
        }
        if (code == IF_TSRESOL) {
            uint8_t r = o[0];

            if (olen != 1 || saw_res) {
                err_set(f, "interface description block: bad if_tsresol");
                return -1;
            }
            saw_res = true;
            if (r & 0x80) { /* a negative power of 2 */
                if ((r & 0x7f) > 63) {
                    err_set(f, "if_tsresol 2^-%u is too fine", r & 0x7f);
                    return -1;
                }
                ifc->tsresol = (uint64_t)1 << (r & 0x7f);
                ifc->scale = SCALE_UP_BIN; /* up or down: set below */
            } else { /* a negative power of 10 */
                unsigned i;

                if (r > 19) {
                    err_set(f, "if_tsresol 10^-%u is too fine", r);
                    return -1;
                }
                ifc->tsresol = 1;
                for (i = 0; i < r; i++)
                    ifc->tsresol *= 10;
                ifc->scale = SCALE_UP_DEC;
            }
        } else if (code == IF_TSOFFSET) {
            uint64_t v;

            if (olen != 8 || saw_off) {
                err_set(f, "interface description block: bad if_tsoffset");
                return -1;
            }
            saw_off = true;
            memcpy(&v, o, 8);
            if (f->swapped)
                v = __builtin_bswap64(v);
            ifc->tsoffset = (int64_t)v;
        }
        o += padded;
        n -= padded;
    }
    return 0;
}

static int
add_iface(struct capfile *f, const uint8_t *b, size_t n)
{
    struct ng_if ifc;
    const uint64_t want = 1000000000u; /* nanoseconds, as libpcap is asked for */
    bool bin;

    if (n < 8) {
        err_set(f, "interface description block too short");
        return -1;
    }
    if (f->nifs >= CAPFILE_IFACES_MAX) {
        warn_set(f, "more than %u interfaces in one pcapng section", CAPFILE_IFACES_MAX);
        return -1;
    }
    memset(&ifc, 0, sizeof ifc);
    ifc.dlt = capfile_linktype_to_dlt(rd16(f, b));
    ifc.snaplen = adjust_snapshot(ifc.dlt, rd32(f, b + 4));
    ifc.tsresol = 1000000; /* microseconds unless said otherwise */
    ifc.scale = SCALE_UP_DEC;
    if (idb_options(f, b + 8, n - 8, &ifc) != 0)
        return -1;
    bin = ifc.scale == SCALE_UP_BIN;
    if (ifc.tsresol == want) {
        ifc.scale = PASS_THROUGH;
    } else if (ifc.tsresol > want) {
        ifc.scale = bin ? SCALE_DOWN_BIN : SCALE_DOWN_DEC;
        ifc.factor = ifc.tsresol / want;
    } else {
        ifc.scale = bin ? SCALE_UP_BIN : SCALE_UP_DEC;
        ifc.factor = want / ifc.tsresol;
    }
    if (f->nifs == f->ifs_cap) {
        size_t nc = f->ifs_cap ? f->ifs_cap * 2 : 4;
        struct ng_if *ni = realloc(f->ifs, nc * sizeof *ni);

        if (!ni) {
            warn_set(f, "out of memory for %zu interfaces", nc);
            return -1;
        }
        f->ifs = ni;
        f->ifs_cap = nc;
    }
    f->ifs[f->nifs++] = ifc;
    if ((int)ifc.snaplen > f->snap_max) /* adjusted: at most INT_MAX */
        f->snap_max = (int)ifc.snaplen;
    return 0;
}

/* libpcap's conversion of a pcapng timestamp to seconds and nanoseconds,
 * overflows and all, so that both readers give the same times. */
static struct timespec
ng_time(const struct ng_if *ifc, uint64_t t)
{
    uint64_t sec = t / ifc->tsresol + (uint64_t)ifc->tsoffset, frac = t % ifc->tsresol;
    struct timespec ts;

    switch (ifc->scale) {
    case PASS_THROUGH:
        break;
    case SCALE_UP_DEC:
        frac *= ifc->factor;
        break;
    case SCALE_DOWN_DEC:
        frac /= ifc->factor;
        break;
    case SCALE_UP_BIN:
    case SCALE_DOWN_BIN:
        frac = frac * 1000000000u / ifc->tsresol;
        break;
    }
    ts.tv_sec = (time_t)sec;
    ts.tv_nsec = (long)(int)frac;
    return ts;
}

/* Read one block: its type, body and body length (trailer excluded).
 * CAPFILE_PKT when there is one, CAPFILE_EOF at the end, CAPFILE_CUT. The
 * body stays valid until the next need(). */
static enum capfile_rc
ng_block(struct capfile *f, uint32_t *type, const uint8_t **body, size_t *blen)
{
    size_t have = need(f, 12);
    const uint8_t *b = f->win + f->pos;
    uint32_t len;

    if (have < 8) {
        if (have == 0 && !f->read_err)
            return CAPFILE_EOF;
        return cut_short(f, "pcapng block header", 8, have);
    }
    memcpy(type, b, 4); /* BT_SHB reads the same in either byte order */
    if (*type == BT_SHB) { /* a new section: its own byte order */
        uint32_t bom;

        if (have < 12)
            return cut_short(f, "pcapng section header", 12, have);
        memcpy(&bom, b + 8, 4);
        if (bom == BOM) {
            f->swapped = false;
        } else if (sw32(bom) == BOM) {
            f->swapped = true;
        } else {
            err_set(f, "a section header with a bad byte-order magic");
            return CAPFILE_CUT;
        }
    } else {
        *type = rd32(f, b);
    }
    len = rd32(f, b + 4);
    if (len < 12 || len % 4) {
        err_set(f, "a pcapng block of length %u", len);
        return CAPFILE_CUT;
    }
    if (len > CAPFILE_BLOCK_MAX) {
        warn_set(f, "a pcapng block of %u bytes is over the %u MiB limit", len,
                 CAPFILE_BLOCK_MAX >> 20);
        return CAPFILE_CUT;
    }
    have = need(f, len);
    if (have < len)
        return cut_short(f, "pcapng block", len, have);
    b = f->win + f->pos;
    if (rd32(f, b + len - 4) != len) {
        err_set(f, "pcapng block lengths differ: %u before, %u after", len, rd32(f, b + len - 4));
        return CAPFILE_CUT;
    }
    *body = b + 8;
    *blen = len - 12;
    f->pos += len;
    return CAPFILE_PKT;
}

static enum capfile_rc
ng_next(struct capfile *f, struct capfile_pkt *p)
{
    for (;;) {
        uint32_t type, iface, caplen, len;
        const uint8_t *b;
        size_t n, hl;
        uint64_t t;
        enum capfile_rc rc = ng_block(f, &type, &b, &n);

        if (rc != CAPFILE_PKT)
            return rc;
        switch (type) {
        case BT_EPB:
        case BT_PB:
            if (n < 20) {
                err_set(f, "packet block too short");
                return CAPFILE_CUT;
            }
            if (type == BT_EPB) {
                iface = rd32(f, b);
            } else {
                iface = rd16(f, b); /* then a drops count */
            }
            t = (uint64_t)rd32(f, b + 4) << 32 | rd32(f, b + 8);
            caplen = rd32(f, b + 12);
            len = rd32(f, b + 16);
            hl = 20;
            break;
        case BT_SPB:
            if (n < 4) {
                err_set(f, "simple packet block too short");
                return CAPFILE_CUT;
            }
            iface = 0; /* SPBs belong to the first interface */
            len = rd32(f, b);
            caplen = len;
            if (f->nifs && caplen > f->ifs[0].snaplen)
                caplen = f->ifs[0].snaplen;
            t = 0; /* no timestamp */
            hl = 4;
            break;
        case BT_IDB:
            if (add_iface(f, b, n) != 0)
                return CAPFILE_CUT;
            continue;
        case BT_SHB:
            if (n < 16) {
                err_set(f, "section header block too short");
                return CAPFILE_CUT;
            }
            if (rd16(f, b + 4) != 1) {
                err_set(f, "unknown pcapng major version %u", rd16(f, b + 4));
                return CAPFILE_CUT;
            }
            f->nifs = 0; /* each section describes its own interfaces */
            continue;
        default:
            continue; /* name resolution, statistics, secrets, custom, ... */
        }
        if (iface >= f->nifs) {
            err_set(f, "a packet on interface %u, which no block describes", iface);
            return CAPFILE_CUT;
        }
        if (caplen > f->ifs[iface].snaplen) {
            err_set(f, "packet capture length %u over the snapshot length %u", caplen,
                    f->ifs[iface].snaplen);
            return CAPFILE_CUT;
        }
        if (caplen > n - hl) {
            err_set(f, "packet block shorter than its capture length %u", caplen);
            return CAPFILE_CUT;
        }
        p->ts = ng_time(&f->ifs[iface], t);
        p->data = b + hl;
        p->caplen = caplen;
        p->wirelen = len;
        p->dlt = f->ifs[iface].dlt;
        p->iface = iface;
        return CAPFILE_PKT;
    }
}

/* The first section header, then blocks up to the first interface. */
static int
ng_open_hdr(struct capfile *f, char *err, size_t errlen)
{
    size_t have = need(f, 12);
    const uint8_t *b = f->win + f->pos;
    uint32_t bom, len;
    uint16_t major, minor;

    if (have < 12) {
        snprintf(err, errlen, "not a pcap or pcapng capture (%zu bytes)", have);
        return 1;
    }
    memcpy(&bom, b + 8, 4);
    if (bom == BOM) {
        f->swapped = false;
    } else if (sw32(bom) == BOM) {
        f->swapped = true;
    } else {
        snprintf(err, errlen, "not a pcap or pcapng capture (a pcapng block type with a bad"
                              " byte-order magic)");
        return 1;
    }
    len = rd32(f, b + 4);
    if (len < 28 || len > SHB_MAX) {
        snprintf(err, errlen, "pcapng section header block of invalid length %u", len);
        return 1;
    }
    have = need(f, len);
    if (have < len) {
        snprintf(err, errlen, "truncated pcapng section header (%zu of %u bytes)", have, len);
        return 1;
    }
    b = f->win + f->pos;
    major = rd16(f, b + 12);
    minor = rd16(f, b + 14);
    if (!(major == 1 && (minor == 0 || minor == 2))) {
        snprintf(err, errlen, "unsupported pcapng savefile version %u.%u", major, minor);
        return 1;
    }
    f->kind = K_PCAPNG;
    f->pos += len;
    for (;;) {
        uint32_t type;
        const uint8_t *body;
        size_t n;
        enum capfile_rc rc = ng_block(f, &type, &body, &n);

        if (rc == CAPFILE_EOF) {
            snprintf(err, errlen, "the pcapng file has no interface description block");
            return 1;
        }
        if (rc == CAPFILE_CUT) {
            snprintf(err, errlen, "%s", f->err);
            return 1;
        }
        if (type == BT_EPB || type == BT_SPB || type == BT_PB) {
            snprintf(err, errlen, "the pcapng file has a packet block before any interface"
                                  " description block");
            return 1;
        }
        if (type == BT_IDB) {
            if (add_iface(f, body, n) != 0) {
                snprintf(err, errlen, "%s", f->err);
                return 1;
            }
            return 0;
        }
        if (type == BT_SHB && n >= 16 && rd16(f, body + 4) == 1)
            f->nifs = 0;
    }
}

/* ---- opening ----------------------------------------------------------------- */

static enum comp
comp_magic(const uint8_t *m, size_t n)
{
    if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b)
        return C_GZIP;
    if (n >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd)
        return C_ZSTD;
    if (n >= 6 && memcmp(m, "\xfd" "7zXZ\0", 6) == 0)
        return C_XZ;
    if (n >= 4 && m[0] == 'B' && m[1] == 'Z' && m[2] == 'h' && m[3] >= '1' && m[3] <= '9')
        return C_BZIP2;
    return C_NONE;
}

static void
describe_start(char *out, size_t len, const uint8_t *m, size_t n)
{
    size_t i, o = 0;

    out[0] = '\0';
    for (i = 0; i < n && i < 4 && o + 4 < len; i++)
        o += (size_t)snprintf(out + o, len - o, "%s%02x", i ? " " : "", m[i]);
}

/* Magic bytes, then the headers, then the first packet read ahead. */
static int
open_common(struct capfile *f, char *err, size_t errlen)
{
    size_t have = need(f, 6);
    uint32_t magic;
    int rc;

    if (f->read_err) {
        snprintf(err, errlen, "%s", f->err);
        return 1;
    }
    if (have == 0) {
        snprintf(err, errlen, "empty file: not a pcap or pcapng capture");
        return 1;
    }
    f->comp = comp_magic(f->win + f->pos, have);
    if (f->comp != C_NONE) {
        size_t k = f->end - f->pos;

        f->cin_cap = CIN_SIZE > k ? CIN_SIZE : k;
        f->cin = malloc(f->cin_cap);
        if (!f->cin || dec_init(f) != 0) {
            snprintf(err, errlen, "out of memory");
            return 1;
        }
        memcpy(f->cin, f->win + f->pos, k); /* what was read is compressed input */
        f->cin_pos = 0;
        f->cin_len = k;
        f->raw_eof = f->eof && !f->read_err;
        if (f->fd < 0 && !f->buf) { /* memory read in place: the rest is still there */
            f->mempos = f->pos + k;
            f->raw_eof = f->mempos >= f->memlen;
        }
        if (!f->buf) {
            f->buf = malloc(BUF_INIT);
            if (!f->buf) {
                snprintf(err, errlen, "out of memory");
                return 1;
            }
            f->cap = BUF_INIT;
        }
        f->win = f->buf;
        f->pos = f->end = 0;
        f->eof = false;
        have = need(f, 6);
        if (f->read_err && have < 6) {
            snprintf(err, errlen, "%s", f->err);
            return 1;
        }
    }
    if (have < 4) {
        if (f->comp)
            snprintf(err, errlen, "%s-compressed, but not a pcap or pcapng capture inside"
                                  " (%zu bytes)", comp_name(f->comp), have);
        else
            snprintf(err, errlen, "not a pcap or pcapng capture (%zu bytes)", have);
        return 1;
    }
    memcpy(&magic, f->win + f->pos, 4);
    if (magic == PCAP_MAGIC || magic == PCAP_MAGIC_NSEC || magic == PCAP_MAGIC_KUZ ||
        sw32(magic) == PCAP_MAGIC || sw32(magic) == PCAP_MAGIC_NSEC ||
        sw32(magic) == PCAP_MAGIC_KUZ) {
        rc = pcap_open_hdr(f, magic, err, errlen);
    } else if (magic == BT_SHB) {
        rc = ng_open_hdr(f, err, errlen);
    } else {
        char start[32];

        describe_start(start, sizeof start, f->win + f->pos, have);
        if (f->comp)
            snprintf(err, errlen, "%s-compressed, but not a pcap or pcapng capture inside"
                                  " (it starts with %s)",
                     comp_name(f->comp), start);
        else
            snprintf(err, errlen, "not a pcap or pcapng capture, nor gzip, zstd, xz or bzip2"
                                  " compressed (it starts with %s)",
                     start);
        return 1;
    }
    if (rc != 0)
        return rc;
    f->first_rc = f->kind == K_PCAP ? pcap_next_rec(f, &f->first) : ng_next(f, &f->first);
    f->have_first = true;
    return 0;
}

static struct capfile *
capfile_new(void)
{
    struct capfile *f = calloc(1, sizeof *f);

    if (!f)
        return NULL;
    f->fd = -1;
    return f;
}

int
capfile_open(struct capfile **out, const char *path, char *err, size_t errlen)
{
    struct capfile *f = capfile_new();
    struct stat st;
    int rc;

    *out = f;
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    if (strcmp(path, "-") == 0) {
        f->fd = STDIN_FILENO;
    } else {
        f->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (f->fd < 0) {
            snprintf(err, errlen, "cannot open: %s", strerror(errno));
            return 1;
        }
        f->own_fd = true;
        if (fstat(f->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "cannot read: %s", strerror(EISDIR));
            return 1;
        }
    }
    f->buf = malloc(BUF_INIT);
    if (!f->buf) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    f->cap = BUF_INIT;
    f->win = f->buf;
    /* Opening needs the headers and the first packet: small reads, so the
     * thread that opens (the main thread, for every decoding thread's
     * capture: shards.c) does not fault in a whole buffer the thread
     * reading it will fill. */
    f->read_max = READ_MIN;
    rc = open_common(f, err, errlen);
    f->read_max = 0;
    return rc;
}

int
capfile_open_mem(struct capfile **out, const uint8_t *data, size_t len, size_t chunk, char *err,
                 size_t errlen)
{
    struct capfile *f = capfile_new();

    *out = f;
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    f->mem = data;
    f->memlen = len;
    f->chunk = chunk;
    if (chunk == 0) { /* in place, as a mapping */
        f->win = data;
        f->end = len;
        f->eof = true;
        f->mempos = len;
        f->raw_eof = true;
        return open_common(f, err, errlen);
    }
    f->cap = 4096; /* small, so that growing and moving records runs */
    f->buf = malloc(f->cap);
    if (!f->buf) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    f->win = f->buf;
    return open_common(f, err, errlen);
}

enum capfile_rc
capfile_next(struct capfile *f, struct capfile_pkt *p)
{
    enum capfile_rc rc;

    if (f->have_first) {
        f->have_first = false;
        rc = f->first_rc;
        *p = f->first;
    } else if (f->done) {
        return CAPFILE_EOF;
    } else {
        rc = f->kind == K_PCAP ? pcap_next_rec(f, p) : ng_next(f, p);
    }
    if (rc != CAPFILE_PKT)
        f->done = true;
    return rc;
}

const char *
capfile_error(const struct capfile *f)
{
    return f->err;
}

const char *
capfile_warning(const struct capfile *f)
{
    return f->warn[0] ? f->warn : NULL;
}

const char *
capfile_compression(const struct capfile *f)
{
    return comp_name(f->comp);
}

const char *
capfile_format(const struct capfile *f)
{
    return f->kind == K_PCAP ? "pcap" : "pcapng";
}

size_t
capfile_ifaces(const struct capfile *f)
{
    return f->kind == K_PCAP ? 1 : f->nifs;
}

int
capfile_iface_dlt(const struct capfile *f, size_t i)
{
    if (f->kind == K_PCAP)
        return f->dlt;
    return i < f->nifs ? f->ifs[i].dlt : -1;
}

int
capfile_snaplen(const struct capfile *f)
{
    return f->snap_max;
}

void
capfile_close(struct capfile *f)
{
    if (!f)
        return;
    dec_end(f);
    if (f->own_fd)
        close(f->fd);
    free(f->buf);
    free(f->cin);
    free(f->dout);
    free(f->ifs);
    free(f);
}
