/* SPDX-License-Identifier: BSD-3-Clause */
/* capfile.h: capture files read without libpcap.
 *
 * Formats: pcap (either byte order; the microsecond and nanosecond magics and
 * the patched 24-byte record header) and pcapng (sections in either byte
 * order; interfaces each with their own link type, snapshot length,
 * if_tsresol (powers of 10 and of 2) and if_tsoffset; the Enhanced, Simple
 * and obsolete Packet Blocks; every other block skipped), plain or gzip,
 * zstd, xz or bzip2 compressed (found by their magic bytes, also on standard
 * input; several concatenated members or frames are read as one stream).
 * Damaged compressed data gives every packet decoded before the damage, the
 * same ones however the bytes arrive (from a file, a pipe or memory).
 *
 * Zero copy: a packet's data points into the reader's one buffer, filled by
 * 1 MiB reads (or by the decompressor). Only a record cut by the end of that
 * buffer is moved, once, to its front. Memory is bounded: the buffer grows to the largest block
 * (CAPFILE_BLOCK_MAX at most), the interface table to CAPFILE_IFACES_MAX.
 *
 * Every packet is what libpcap 1.10 gives for the same file with nanosecond
 * precision (the same timestamps, lengths, cuts to the snapshot length and
 * the same point where a damaged file stops), so that reports are the same
 * with either reader; except that pcapng interfaces may differ in link type
 * and snapshot length, and sections in byte order (libpcap stops there). */
#ifndef NFSSCOPE_CAPFILE_H
#define NFSSCOPE_CAPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define CAPFILE_BLOCK_MAX (16u << 20) /* largest pcapng block (libpcap's limit) */
#define CAPFILE_IFACES_MAX 4096u      /* pcapng interfaces per section */

struct capfile;

struct capfile_pkt {
    struct timespec ts;  /* as read: not range-checked (pipeline.c does that) */
    const uint8_t *data; /* valid until the next capfile_next() or capfile_close() */
    uint32_t caplen, wirelen;
    int dlt;             /* the packet's interface's link type (a DLT_ value) */
    uint32_t iface;      /* pcapng interface id in its section; 0 for pcap */
};

enum capfile_rc {
    CAPFILE_PKT = 1,  /* *p holds the next packet */
    CAPFILE_EOF = 0,  /* the input ended between two records */
    CAPFILE_CUT = -1, /* the input ends inside a record, or a record is damaged:
                       * nothing more is read (capfile_error() says why) */
};

/* Open `path` ("-": standard input). `name` is how messages call it. Reads the
 * headers, and in pcapng every block up to the first packet (so that the
 * interfaces described before it are known). Returns 0, or 1 with one line in
 * err (no file name in it): cannot open, not a capture, unknown compression,
 * damaged header. */
int capfile_open(struct capfile **out, const char *path, char *err, size_t errlen);

/* The same over bytes in memory (tests, fuzzing). chunk 0: the packets point
 * into `data` itself; chunk > 0: read through a small
 * buffer, at most `chunk` bytes at a time (the paths of standard input).
 * Compressed data always goes through the buffer. */
int capfile_open_mem(struct capfile **out, const uint8_t *data, size_t len, size_t chunk,
                     char *err, size_t errlen);

enum capfile_rc capfile_next(struct capfile *f, struct capfile_pkt *p);

/* After CAPFILE_CUT: why, as one line. */
const char *capfile_error(const struct capfile *f);
/* After CAPFILE_CUT: a line worth showing the user (damaged compressed data,
 * a block over CAPFILE_BLOCK_MAX, too many interfaces), or NULL when the file
 * just ends inside a record or a record is malformed (counted, not said). */
const char *capfile_warning(const struct capfile *f);

/* "gzip", "zstd", "xz", "bzip2", or NULL for an uncompressed file. */
const char *capfile_compression(const struct capfile *f);
/* "pcap" or "pcapng". */
const char *capfile_format(const struct capfile *f);

/* The interfaces known so far (pcap: one; pcapng: those of the current
 * section described up to the last block read, at least one after open). */
size_t capfile_ifaces(const struct capfile *f);
int capfile_iface_dlt(const struct capfile *f, size_t i);
/* The largest snapshot length of the interfaces known so far, as libpcap's
 * pcap_snapshot() gives it. */
int capfile_snaplen(const struct capfile *f);

void capfile_close(struct capfile *f); /* NULL is a no-op */

/* libpcap's LINKTYPE_ to DLT_ mapping (the values that differ on Linux). */
int capfile_linktype_to_dlt(uint32_t linktype);

#endif
