/* capture.h: packets in, from capture files (merged in time order) or a live
 * interface, through libpcap, into pipeline_packet(). */
#ifndef NFSSCOPE_CAPTURE_H
#define NFSSCOPE_CAPTURE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "pipeline.h"

struct capture;

/* Open every -r file, or the -i interface, and apply the BPF filter.
 * Returns 0 on success; 1 for a run-time failure (missing or unreadable file,
 * not a capture, unsupported link type, no permission); 2 for a usage error
 * (bad filter expression). On failure, `err` holds one line for the user. */
int capture_open(struct capture **out, const struct nfsscope_config *cfg, char *err, size_t errlen);

/* Feed packets into the pipeline until the input ends, max_packets have been
 * read (0 = no limit) or *stop becomes non-zero. Returns 0, or 1 with `err`
 * set when reading fails part way (a truncated file is not a failure: the
 * packets read so far count, and the cut is reported as an anomaly). */
int capture_run(struct capture *c, struct nfsscope_ctx *ctx, uint64_t max_packets,
                volatile sig_atomic_t *stop, char *err, size_t errlen);

/* Kernel drops for live captures (pcap_stats), or -1. */
int64_t capture_kernel_drops(struct capture *c);

void capture_close(struct capture *c); /* NULL is a no-op */

#endif
