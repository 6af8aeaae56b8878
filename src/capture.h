/* SPDX-License-Identifier: BSD-3-Clause */
/* capture.h: packets in, from capture files (merged in time order) or a live
 * interface, into pipeline_packet(). Files are read by src/capfile.c (or,
 * with --reader libpcap, by libpcap); live capture, BPF and -w use libpcap.
 *
 * Two ways to drive it: capture_run() reads until the end (files) or until
 * stopped (live), calling a tick every interval; capture_poll() reads what is
 * there now without blocking, for the ncurses view's own loop. */
#ifndef NFSSCOPE_CAPTURE_H
#define NFSSCOPE_CAPTURE_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "config.h"
#include "pipeline.h"

struct capture;

/* --reader: how -r files are read. */
enum capture_reader {
    CAPTURE_READER_BUILTIN = 0, /* src/capfile.c: per-interface link types, compressed files */
    CAPTURE_READER_LIBPCAP,     /* pcap_fopen_offline(): one link type, uncompressed */
};

/* "builtin" or "libpcap" to enum capture_reader; false for anything else. */
bool capture_reader_parse(const char *s, int *out);

/* Open every -r file, or the -i interface (snaplen, buffer, promiscuous
 * mode from cfg; blocks, not immediate mode), and apply the BPF filter (compiled for
 * each link type of the files' interfaces known at open; an interface met
 * later gets it compiled then).
 * Returns 0 on success; 1 for a run-time failure (missing or unreadable file,
 * not a capture, unsupported link type, no such interface, no permission);
 * 2 for a usage error (bad filter expression). On failure, `err` holds one
 * line for the user. */
int capture_open(struct capture **out, const struct nfsscope_config *cfg, char *err, size_t errlen);

/* One line for stderr when a live capture starts: "listening on IFACE, link
 * type ..., snapshot length N bytes" (tcpdump's). Empty for files. */
void capture_describe(const struct capture *c, char *buf, size_t len);

struct capture_run_opts {
    uint64_t max_packets;          /* 0 = no limit */
    double duration_s;             /* live: wall clock; files: packet time. 0 = no limit */
    double interval_s;             /* call tick this often (0 = never): live by the wall
                                    * clock, files by packet time (without io_fill) */
    void (*tick)(void *arg, struct nfsscope_ctx *ctx, const struct timespec *now);
    void *tick_arg;
    volatile sig_atomic_t *stop;   /* set from a signal handler */
    /* Other descriptors served by the same loop (the --metrics server), or
     * io_fill NULL: io_fill adds at most `max` pollfds and may lower *wait_s;
     * io_serve handles what poll() found in them (never blocking). With
     * files, packets are then fed at `speed` times the pace of their
     * timestamps (0: as fast as they can be read), so that the descriptors
     * are served while the file plays. */
    size_t (*io_fill)(void *arg, struct pollfd *fds, size_t max, double *wait_s);
    void (*io_serve)(void *arg, const struct pollfd *fds, size_t n);
    void *io_arg;
    double speed;
};

#define CAPTURE_IO_MAX 65 /* pollfds io_fill may add */

/* Feed packets into the pipeline until the input ends, a limit is reached
 * or *stop becomes non-zero. Returns 0, or 1 with `err` set when reading
 * fails part way (a truncated file is not a failure: the packets read so far
 * count, and the cut is reported as an anomaly; an interface that goes away
 * is, with a message saying so; so is an interface met part way whose link
 * type the filter does not compile for or -w cannot write, and with
 * --reader libpcap a pcapng file whose interfaces differ in link type).
 * Live: stats->cap.kernel_drops is kept current at every tick and at the end. */
int capture_run(struct capture *c, struct nfsscope_ctx *ctx, const struct capture_run_opts *o,
                char *err, size_t errlen);

/* --- Stepwise reading (the ncurses view) --- */

bool capture_is_live(const struct capture *c);
/* Live: a descriptor that polls readable when packets may be there (the
 * handle is non-blocking from then on). Files: -1. */
int capture_selectable_fd(struct capture *c);

#define CAPTURE_EOF (-1) /* input ended (files) */
#define CAPTURE_ERR (-2) /* reading failed; err is set */

/* Feed what can be had without waiting: live, what the kernel holds (at most
 * `max` packets); files, at most `max` packets whose time is no later than
 * *until (NULL: no time limit). Returns how many were fed (0: none ready),
 * CAPTURE_EOF or CAPTURE_ERR. */
int capture_poll(struct capture *c, struct nfsscope_ctx *ctx, int max,
                 const struct timespec *until, char *err, size_t errlen);
/* Files: the time of the next packet; false at the end (or live). */
bool capture_next_ts(struct capture *c, struct nfsscope_ctx *ctx, struct timespec *ts);

/* -w (src/wpcap.h): the link type shared by every source (every interface
 * known at open), or -1 when they differ; and the largest snapshot length. */
int capture_link_type(const struct capture *c);
int capture_snaplen(const struct capture *c);

/* Kernel drops for live captures (pcap_stats), or -1. */
int64_t capture_kernel_drops(struct capture *c);

void capture_close(struct capture *c); /* NULL is a no-op */

#endif
