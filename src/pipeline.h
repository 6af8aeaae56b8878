/* SPDX-License-Identifier: BSD-3-Clause */
/* pipeline.h: one packet in, through every stage, into the stats.
 *
 *   capture -> link -> IP (+fragments) -> flow -> TCP reassembly | UDP datagram
 *   -> RPC record marking -> call/reply matching -> dissector -> consumers
 *
 * The consumers of finished calls (consumer.h) are listed once, in
 * pipeline_init(), in this order: the findings (on this thread, or queued to
 * the findings thread), the view's findings, --records, the NLM lock waits,
 * the per-program counters, the NFSv4 state, the breakdowns. --records comes before the
 * breakdowns because those learn names from the call, and a record shows the
 * path as it was known before the call (a RENAME's old name).
 *
 * Single-threaded, driven by packet time. struct nfsscope_ctx owns every
 * table; all memory is allocated in pipeline_init(), none per packet.
 *
 * Shards (--threads): several contexts, each on its own thread, read the
 * same input; each decodes the link header of every packet but goes on only
 * with the packets whose unordered pair of IP addresses hashes to it, so
 * both directions of a connection, its IP fragments (no ports after the
 * first), a client's other connections to the same server and the server's
 * callbacks stay in one shard. Every shard counts every packet in the
 * capture totals and moves its clock with it, so time-based expiry runs at
 * the same packets as with one context (its work per check is bounded per
 * shard, so a backlog clears sooner); pipeline_merge() adds the shards'
 * results into the first. */
#ifndef NFSSCOPE_PIPELINE_H
#define NFSSCOPE_PIPELINE_H

#include <stdint.h>
#include <time.h>

#include "config.h"
#include "consumer.h"
#include "flow.h"
#include "ipfrag.h"
#include "rpc_match.h"
#include "rpc_rm.h"
#include "stats.h"
#include "tcp_reasm.h"
#include "wpcap.h"

/* One captured frame; `data` is borrowed for the duration of the call.
 * `frame`: its number in the input, 1-based, as Wireshark counts frames
 * (capture.c); 0: not known. */
struct pkt {
    uint64_t frame;
    struct timespec ts;
    const uint8_t *data;
    uint32_t caplen, wirelen;
    int dlt;
};

struct nfsscope_ctx {
    const struct nfsscope_config *cfg;
    struct stats stats;
    struct ipfrag *frag;
    struct tcp_reasm *tcp;
    struct rpc_rm_pool *rm_pool;
    struct flow_table flows;
    struct rpc_match match;
    struct timespec now; /* latest packet time */
    struct stream_sink sink;
    struct wpcap *wpcap; /* -w (src/wpcap.h): the RPC packets to a file; NULL: off */
    /* What consumes finished calls beside the stats; NULL: off. */
    struct findings *findings;     /* findings.h; the worker's while it runs */
    struct findings_worker *findings_worker; /* findings_worker.h; NULL: this thread */
    struct findings *findings_view; /* the view's since its reset, owned by the view */
    struct records *records;       /* records.h: --records, owned by the caller */
    struct lockwait *lockwait;     /* lockwait.h: NLM v4 lock waits */
    struct nfs4_state *nfs4_state; /* nfs4_state.h: NFSv4 clients, sessions, stateids */
    struct consumers out;          /* the list, in the order above (top of the file) */
    /* The TCP stream of the packet being read and its frame: messages its
     * bytes complete get that frame number (pipeline.c stream_data). */
    const struct flow *pkt_flow;
    unsigned pkt_dir;
    uint64_t pkt_frame;
    unsigned shard, nshards; /* this context's share of the packets; nshards 0: all */
};

/* 0, or -1 when memory for the configured tables cannot be had. */
int pipeline_init(struct nfsscope_ctx *ctx, const struct nfsscope_config *cfg);
void pipeline_fini(struct nfsscope_ctx *ctx);

void pipeline_packet(struct nfsscope_ctx *ctx, const struct pkt *p);

/* This context keeps shard `shard` of `nshards` (see the top of the file);
 * before the first packet. Every shard's configuration must have the same
 * hash_seed (not 0). */
void pipeline_shard(struct nfsscope_ctx *ctx, unsigned shard, unsigned nshards);
/* The shard (0 .. nshards-1) of a packet whose link header gave l3: a hash
 * of its two IP addresses, the same both ways (RFC 791 §3.1, RFC 8200 §3:
 * source and destination at fixed offsets, in fragments too). Anything
 * else, or a header too short to hold them, goes to shard 0, which counts
 * it. */
struct l3_view;
unsigned pipeline_shard_of(const struct l3_view *l3, unsigned nshards);
/* After pipeline_finish() of both: src's results added into dst (stats,
 * NLM lock waits, NFSv4 state); the anomalies of the files themselves,
 * which every shard counts, once. */
void pipeline_merge(struct nfsscope_ctx *dst, const struct nfsscope_ctx *src);

/* Run the findings on a second thread from now on (findings_worker.h)
 * until pipeline_finish(); on failure they stay on this thread. */
void pipeline_findings_thread(struct nfsscope_ctx *ctx, size_t ring_bytes);

/* The results complete up to the latest packet, for a reader between
 * packets (the view, a periodic report, a scrape): the breakdown rows
 * settled, and the findings thread caught up with every call queued. */
void pipeline_settle(struct nfsscope_ctx *ctx);

/* End of input: flush streams, fragments and pending calls into the stats. */
void pipeline_finish(struct nfsscope_ctx *ctx);

#endif
