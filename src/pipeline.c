/* SPDX-License-Identifier: BSD-3-Clause */
/* pipeline.c: the per-packet path through every stage (see pipeline.h). */
#include "pipeline.h"

#include <string.h>
#include <sys/random.h>

#include "decode_ip.h"
#include "decode_link.h"
#include "findings.h"
#include "findings_worker.h"
#include "hashtab.h"
#include "lockwait.h"
#include "nfs4_state.h"
#include "records.h"
#include "rpc.h"

/* The consumers of finished calls, in the order pipeline.h gives. */
static void
to_findings(void *vctx, const struct op_event *ev)
{
    struct nfsscope_ctx *ctx = vctx;

    if (ctx->findings_worker) /* on the second thread, same order */
        findings_worker_post(ctx->findings_worker, ev);
    else if (ctx->findings) /* NULL: --no-findings */
        findings_record(ctx->findings, ev);
}

static void
to_view_findings(void *vctx, const struct op_event *ev)
{
    struct nfsscope_ctx *ctx = vctx;

    if (ctx->findings_view) /* NULL: no view, or its findings are not kept */
        findings_record(ctx->findings_view, ev);
}

static void
to_records(void *vctx, const struct op_event *ev)
{
    struct nfsscope_ctx *ctx = vctx;

    if (ctx->records) /* NULL: no --records */
        records_write(ctx->records, &ctx->stats, ev);
}

static void
to_records_op(void *vctx, const struct op_event *msg, const struct op_item *op)
{
    struct nfsscope_ctx *ctx = vctx;

    records_op(ctx->records, msg, op);
}

static void
to_lockwait(void *vctx, const struct op_event *ev)
{
    struct nfsscope_ctx *ctx = vctx;

    if (ev->nlm_has_lock) /* only NLM calls with a lock concern the lock waits */
        lockwait_record(ctx->lockwait, ev);
}

static void
to_stats(void *vctx, const struct op_event *ev)
{
    struct nfsscope_ctx *ctx = vctx;

    stats_record(&ctx->stats, ev);
}

static void
to_stats_op(void *vctx, const struct op_event *msg, const struct op_item *op)
{
    struct nfsscope_ctx *ctx = vctx;

    stats_record_op(&ctx->stats, msg, op);
}

static void
to_nfs4_state(void *vctx, const struct op_event *ev)
{
    (void)vctx; /* the state changes with operations only */
    (void)ev;
}

static void
to_nfs4_state_op(void *vctx, const struct op_event *msg, const struct op_item *op)
{
    struct nfsscope_ctx *ctx = vctx;

    nfs4_state_record_op(ctx->nfs4_state, msg, op);
}

static void
to_breakdowns(void *vctx, const struct op_event *ev)
{
    struct nfsscope_ctx *ctx = vctx;

    stats_record_by(&ctx->stats, ev);
}

static void
consumers_build(struct nfsscope_ctx *ctx)
{
    consumers_init(&ctx->out);
    consumers_add(&ctx->out, "findings", to_findings, NULL, ctx);
    consumers_add(&ctx->out, "view_findings", to_view_findings, NULL, ctx);
    consumers_add(&ctx->out, "records", to_records, to_records_op, ctx);
    consumers_op_phases(&ctx->out, 1u << OPI_RESULT); /* the first failed result */
    consumers_add(&ctx->out, "lockwait", to_lockwait, NULL, ctx);
    consumers_add(&ctx->out, "stats", to_stats, to_stats_op, ctx);
    /* a call's operations are counted at call time (rpc_match.c stats_op_call) */
    consumers_op_phases(&ctx->out, 1u << OPI_RESULT | 1u << OPI_NOT_EVALUATED);
    consumers_add(&ctx->out, "nfs4_state", to_nfs4_state, to_nfs4_state_op, ctx);
    consumers_add(&ctx->out, "breakdowns", to_breakdowns, NULL, ctx);
}

static void
deliver_rpc(void *vctx, void *flow, unsigned dir, const struct rpc_msg_view *m)
{
    struct nfsscope_ctx *ctx = vctx;
    struct flow *f = flow;

    rpc_match_message(&ctx->match, f, dir, m, false);
    if (f->tls) /* the message was the STARTTLS reply: TLS follows it */
        rpc_rm_stop(&f->rm[dir]);
}

static bool
wide_reply(void *vctx, void *flow, unsigned dir, uint32_t xid)
{
    struct nfsscope_ctx *ctx = vctx;

    return rpc_match_wide_reply(&ctx->match, flow, dir, xid);
}

/* Stream bytes of the packet being read complete their messages in its frame;
 * bytes delivered for another stream (held data flushed past a hole, or at
 * the end, or of an evicted flow) were carried by frames not kept. */
static void
stream_data(void *vctx, void *flow, unsigned dir, struct bytes chunk, const struct timespec *ts)
{
    struct nfsscope_ctx *ctx = vctx;
    struct flow *f = flow;

    size_t used = 0;

    ctx->match.frame = flow == ctx->pkt_flow && dir == ctx->pkt_dir ? ctx->pkt_frame : 0;
    if (!f->tls)
        used = rpc_rm_feed(ctx->rm_pool, &f->rm[dir], f, dir, chunk, ts, deliver_rpc, ctx);
    if (f->tls && used < chunk.len) /* RPC-over-TLS (RFC 9289): records, not RPC */
        rpc_tls_data(&ctx->stats.tls, f->tls_idx, dir, &f->tls_half[dir], chunk.p + used,
                     chunk.len - used);
}

static void
stream_gap(void *vctx, void *flow, unsigned dir, uint64_t nbytes, const struct timespec *ts)
{
    struct nfsscope_ctx *ctx = vctx;
    struct flow *f = flow;

    ctx->match.frame = flow == ctx->pkt_flow && dir == ctx->pkt_dir ? ctx->pkt_frame : 0;
    if (f->tls)
        rpc_tls_gap(&ctx->stats.tls, f->tls_idx, dir, &f->tls_half[dir], nbytes);
    else
        rpc_rm_gap(ctx->rm_pool, &f->rm[dir], f, dir, nbytes, ts, deliver_rpc, ctx);
}

/* What the TCP connection did (tcp_reasm.h): the SYN says who the client
 * is, a half-sent record dies with its stream, and a new connection on the
 * same ports is a new connection for matching (its client reconnected). */
static void
stream_event(void *vctx, void *flow, unsigned dir, enum tcp_event ev, const struct timespec *ts)
{
    struct nfsscope_ctx *ctx = vctx;
    struct flow *f = flow;

    (void)ts;
    switch (ev) {
    case TCP_EV_OPEN:
    case TCP_EV_ACCEPT:
        /* The first record is still found by the probe: a stream on any
         * port is RPC only if its first header validates. */
        flow_note_syn(f, dir, ev == TCP_EV_ACCEPT);
        break;
    case TCP_EV_END:
        rpc_rm_end(ctx->rm_pool, &f->rm[dir]);
        break;
    case TCP_EV_NEW:
        if (f->tls) /* the new connection starts with RPC again */
            for (unsigned d = 0; d < 2; d++)
                rpc_rm_release(ctx->rm_pool, &f->rm[d]);
        flow_table_renew(&ctx->flows, f);
        anomaly_add(&ctx->stats.anom, ANOM_TCP_RECONNECT, 1);
        reconnects_add(&ctx->stats.reconnects, f->key.af, dir == 0 ? f->key.saddr : f->key.daddr);
        break;
    }
}

/* A flow leaves the table: deliver what its streams still hold, then free. */
static void
flow_evicted(void *vctx, struct flow *f)
{
    struct nfsscope_ctx *ctx = vctx;
    unsigned d;

    if (f->key.proto != FLOW_PROTO_TCP)
        return;
    for (d = 0; d < 2; d++) {
        tcp_reasm_flush(ctx->tcp, &f->tcp[d], f, d, &ctx->now, &ctx->sink);
        tcp_reasm_release(ctx->tcp, &f->tcp[d]);
        rpc_rm_release(ctx->rm_pool, &f->rm[d]);
    }
}

/* A datagram; `frame` completed it (0: not known). */
static struct flow *
udp_message(struct nfsscope_ctx *ctx, const struct l4_seg *seg, const struct timespec *ts,
            uint64_t frame)
{
    struct rpc_msg_view m;
    unsigned dir;
    struct flow *f = flow_table_get(&ctx->flows, &seg->key, ts, &dir);

    memset(&m, 0, sizeof m);
    m.head = seg->payload;
    m.msg_len = seg->payload_wirelen;
    m.head_partial = seg->payload.len < seg->payload_wirelen;
    m.ts_first = m.ts_last = *ts;
    ctx->match.frame = frame;
    rpc_match_message(&ctx->match, f, dir, &m, true);
    return f;
}

/* ipfrag gave up on a datagram whose first fragment we have: the RPC header
 * is there, so the call or reply can still be counted (partial). */
static void
frag_lost(void *vctx, const struct l4_seg *seg, const struct timespec *ts)
{
    struct nfsscope_ctx *ctx = vctx;

    if (seg->key.proto == FLOW_PROTO_UDP) /* the first fragment's frame is not kept */
        (void)udp_message(ctx, seg, ts, 0);
}

/* A UDP reply with no call: the call may sit in an incomplete datagram going
 * the other way (its tail fragments lost). Give that datagram up now, so the call is
 * counted from its first fragment before the reply is matched. */
static void
orphan_hook(void *vctx, struct flow *f, unsigned reply_dir, uint32_t xid)
{
    struct nfsscope_ctx *ctx = vctx;
    const struct flow_key *k = &f->key;

    /* The call went from the reply's destination to its source. */
    if (reply_dir == 0)
        ipfrag_give_up_call(ctx->frag, k->af, k->proto, k->daddr, k->saddr, xid);
    else
        ipfrag_give_up_call(ctx->frag, k->af, k->proto, k->saddr, k->daddr, xid);
}

int
pipeline_init(struct nfsscope_ctx *ctx, const struct nfsscope_config *cfg)
{
    struct tcp_reasm_config tc = { cfg->tcp_ooo_pool, cfg->tcp_ooo_per_dir };
    struct rpc_rm_config rc = { cfg->rpc_head_max, cfg->rpc_head_pool, cfg->rpc_max_msg, rpc_probe,
                                cfg->rpc_wide_max, cfg->rpc_wide_pool, wide_reply,
                                cfg->rpc_tail_max };
    uint64_t seed = cfg->hash_seed;

    memset(ctx, 0, sizeof *ctx);
    ctx->cfg = cfg;
    if (seed == 0 && getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
        seed = 0x6e66737363706531ULL;
    if (stats_init(&ctx->stats) != 0)
        return -1;
    if (stats_breakdowns_init(&ctx->stats, cfg->bd_rows, cfg->names_max, seed) != 0) {
        stats_fini(&ctx->stats);
        return -1;
    }
    /* Every reader settles first: pipeline_finish, pipeline_settle; the
     * view turns it off (stats_by_proc_init). */
    stats_bd_defer(&ctx->stats, true);
    if (cfg->findings_max) /* 0 turns the findings off */
        ctx->findings = findings_new(cfg->findings_max, cfg->window_s, seed ^ 0x66696e64ULL);
    ctx->lockwait = lockwait_new(cfg->lock_waits_max, seed ^ 0x6c6f636bULL);
    ctx->nfs4_state = nfs4_state_new(cfg->nfs4_clients_max, cfg->nfs4_sessions_max,
                                     cfg->nfs4_stateids_max, seed ^ 0x6e667334ULL);
    if ((cfg->findings_max && !ctx->findings) || !ctx->lockwait || !ctx->nfs4_state)
        goto fail;
    /* The decoder hashes each call's handle for its file row: with the
     * findings' seed, the findings take that hash as their handle key. */
    if (ctx->findings && stats_file_hash_seed(&ctx->stats, ctx->findings->seed))
        ctx->findings->fh_hash_ours = true;
    consumers_build(ctx);
    ctx->frag = ipfrag_new(cfg->ipfrag_max, cfg->ipfrag_timeout_s, &ctx->stats.anom);
    ctx->tcp = tcp_reasm_new(&tc, &ctx->stats.anom);
    ctx->rm_pool = rpc_rm_pool_new(&rc, &ctx->stats.anom);
    if (!ctx->frag || !ctx->tcp || !ctx->rm_pool)
        goto fail;
    ipfrag_set_lost_cb(ctx->frag, frag_lost, ctx);
    if (flow_table_init(&ctx->flows, cfg->max_flows, seed, flow_evicted, ctx) != 0)
        goto fail;
    if (rpc_match_init(&ctx->match, cfg, &ctx->stats, seed ^ 0x5bd1e995) != 0) {
        flow_table_fini(&ctx->flows);
        goto fail;
    }
    ctx->match.out = &ctx->out;
    ctx->match.before_orphan = orphan_hook;
    ctx->match.hook_ctx = ctx;
    ctx->sink.data = stream_data;
    ctx->sink.gap = stream_gap;
    ctx->sink.ctx = ctx;
    ctx->sink.event = stream_event;
    return 0;
fail:
    ipfrag_free(ctx->frag);
    tcp_reasm_free(ctx->tcp);
    rpc_rm_pool_free(ctx->rm_pool);
    findings_free(ctx->findings);
    lockwait_free(ctx->lockwait);
    nfs4_state_free(ctx->nfs4_state);
    stats_fini(&ctx->stats);
    memset(ctx, 0, sizeof *ctx);
    return -1;
}

void
pipeline_fini(struct nfsscope_ctx *ctx)
{
    findings_worker_finish(ctx->findings_worker); /* before the findings are freed */
    ctx->findings_worker = NULL;
    rpc_match_fini(&ctx->match);
    flow_table_fini(&ctx->flows);
    ipfrag_free(ctx->frag);
    tcp_reasm_free(ctx->tcp);
    rpc_rm_pool_free(ctx->rm_pool);
    findings_free(ctx->findings);
    ctx->findings = NULL;
    lockwait_free(ctx->lockwait);
    ctx->lockwait = NULL;
    nfs4_state_free(ctx->nfs4_state);
    ctx->nfs4_state = NULL;
    stats_fini(&ctx->stats);
}

void
pipeline_shard(struct nfsscope_ctx *ctx, unsigned shard, unsigned nshards)
{
    ctx->shard = shard;
    ctx->nshards = nshards > 1 ? nshards : 0;
}

void
pipeline_merge(struct nfsscope_ctx *dst, const struct nfsscope_ctx *src)
{
    uint64_t cut = dst->stats.anom.n[ANOM_FILE_TRUNCATED];

    stats_merge(&dst->stats, &src->stats);
    dst->stats.anom.n[ANOM_FILE_TRUNCATED] = cut; /* counted by every shard */
    lockwait_merge(dst->lockwait, src->lockwait);
    nfs4_state_merge(dst->nfs4_state, src->nfs4_state);
}

/* An address folded to 64 bits (an IPv6 one's halves XORed). */
static uint64_t
addr_fold(const uint8_t *p, size_t len)
{
    uint64_t a, b;
    uint32_t v4;

    if (len == 4) {
        memcpy(&v4, p, 4);
        return v4;
    }
    memcpy(&a, p, 8);
    memcpy(&b, p + 8, 8);
    return a ^ b;
}

static inline unsigned
shard_of(const struct l3_view *l3, unsigned nshards)
{
    size_t off, len;
    uint64_t a, b;

    if (l3->kind == L3_IPV4) {
        off = 12;
        len = 4;
    } else if (l3->kind == L3_IPV6) {
        off = 8;
        len = 16;
    } else {
        return 0;
    }
    if (l3->l3.len < off + 2 * len)
        return 0;
    a = addr_fold(l3->l3.p + off, len);
    b = addr_fold(l3->l3.p + off + len, len);
    if (a > b) { /* the same both ways */
        uint64_t t = a;
        a = b;
        b = t;
    }
    return (unsigned)(hash_u64x2(a, b, 0) % nshards);
}

unsigned
pipeline_shard_of(const struct l3_view *l3, unsigned nshards)
{
    return shard_of(l3, nshards);
}

void
pipeline_findings_thread(struct nfsscope_ctx *ctx, size_t ring_bytes)
{
    if (ctx->findings && !ctx->findings_worker)
        ctx->findings_worker = findings_worker_start(ctx->findings, ring_bytes);
}

static int
ts_before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Packet times come from the capture file and may be anything: pcapng has
 * 64-bit timestamps, and libpcap passes a pcap record's fraction unchecked
 * (>= 1 s). Every time is kept in [0, 2^33) s with tv_nsec < 1e9 (years
 * 1970..2242), so that any difference of two times in nanoseconds fits in an
 * int64_t (latencies, capture duration, JSON timestamps). Out-of-range times
 * saturate, so their order is kept. (Found by fuzz_pcap:
 * tests/fuzz/regressions/fuzz_pcap/ovf_pcapng_ts_duration.) */
#define PKT_TS_MAX_SEC (((int64_t)1 << 33) - 1)

static struct timespec
ts_sane(const struct timespec *t)
{
    int64_t sec = (int64_t)t->tv_sec;
    long nsec = t->tv_nsec;
    struct timespec r;

    if (nsec < 0) {
        nsec = 0;
    } else if (nsec >= 1000000000L) {
        if (sec <= PKT_TS_MAX_SEC)
            sec += nsec / 1000000000L;
        nsec %= 1000000000L;
    }
    if (sec < 0) {
        sec = 0;
        nsec = 0;
    } else if (sec > PKT_TS_MAX_SEC) {
        sec = PKT_TS_MAX_SEC;
        nsec = 999999999L;
    }
    r.tv_sec = (time_t)sec;
    r.tv_nsec = nsec;
    return r;
}

/* -w: is the connection RPC (wpcap.h)? A message decoded on it, or a TCP
 * direction in step with the record marks (RFC 5531 §11). */
static bool
flow_is_rpc(const struct flow *f)
{
    return f->rpc_seen || (f->key.proto == FLOW_PROTO_TCP &&
                           (rpc_rm_synced(&f->rm[0]) || rpc_rm_synced(&f->rm[1])));
}

/* -w: does the first fragment of a datagram carry RPC? Its connection is
 * already known as RPC, or (UDP: one datagram, one message) its payload
 * starts with a header that passes the strict resync test. */
static bool
first_frag_rpc(struct nfsscope_ctx *ctx, const struct ipfrag_frag *fi)
{
    struct l4_seg s;
    const struct flow *f;

    memset(&s, 0, sizeof s);
    if (ip_decode_transport(fi->af, fi->proto, fi->data, fi->data_wirelen, true, NULL, &s) !=
        DECODE_OK)
        return false;
    memcpy(s.key.saddr, fi->saddr, 16);
    memcpy(s.key.daddr, fi->daddr, 16);
    f = flow_table_find(&ctx->flows, &s.key);
    if (f && flow_is_rpc(f))
        return true;
    return s.key.proto == FLOW_PROTO_UDP &&
           rpc_probe(s.payload.p, s.payload.len, s.payload_wirelen);
}

/* -w: after the packet went through, write it if it carried RPC (wpcap.h
 * says which packets those are). `f`: the connection it reached, if any. */
static void
write_if_rpc(struct nfsscope_ctx *ctx, const struct pkt *p, enum decode_rc rc,
             const struct l4_seg *seg, const struct flow *f, const struct timespec *ts)
{
    struct ipfrag_frag fi;
    bool keep;

    if (ipfrag_last(ctx->frag, &fi))
        keep = wpcap_frag(ctx->wpcap, &fi, fi.offset == 0 && first_frag_rpc(ctx, &fi),
                          rc == DECODE_OK || rc == DECODE_TRUNCATED, ts);
    else if (f && flow_is_rpc(f))
        keep = true;
    else
        keep = rc == DECODE_OK && seg->key.proto == FLOW_PROTO_TCP &&
               (seg->tcp_flags & TCPF_SYN) && wpcap_rpc_port(seg->key.sport, seg->key.dport);
    if (keep)
        wpcap_write(ctx->wpcap, &p->ts, p->caplen, p->wirelen, p->data);
}

void
pipeline_packet(struct nfsscope_ctx *ctx, const struct pkt *p)
{
    struct capture_totals *cap = &ctx->stats.cap;
    struct l3_view l3;
    struct l4_seg seg;
    struct flow *f = NULL;
    enum decode_rc rc;
    uint32_t caplen = p->caplen;
    const struct timespec ts = ts_sane(&p->ts);

    /* Count first, decode second (style.md §3.3). */
    if (cap->packets == 0) {
        cap->first_ts = ts;
        timeline_start(&ctx->stats.tl, ts.tv_sec);
    } else if (ts_before(&ts, &cap->last_ts))
        cap->ts_backwards++;
    if (cap->packets == 0 || ts_before(&cap->last_ts, &ts))
        cap->last_ts = ts;
    cap->packets++;
    cap->bytes += p->wirelen;
    if (caplen > p->wirelen) {
        if (ctx->shard == 0)
            anomaly_add(&ctx->stats.anom, ANOM_PKT_CAPLEN_BAD, 1);
        caplen = p->wirelen; /* never trust bytes past the wire length */
    }
    if (caplen < p->wirelen)
        cap->truncated_packets++;
    /* Time only moves forward for expiry, whatever the capture's order. */
    if (ts_before(&ctx->now, &ts))
        ctx->now = ts;

    if (ctx->wpcap)
        ipfrag_forget_last(ctx->frag);
    rc = link_decode_fast(p->dlt, p->data, caplen, p->wirelen, &l3);
    if (rc != DECODE_OK) {
        if (ctx->shard == 0)
            anomaly_add(&ctx->stats.anom, link_anomaly(rc), 1);
    } else if (ctx->nshards && shard_of(&l3, ctx->nshards) != ctx->shard) {
        rc = DECODE_UNSUPPORTED; /* another shard's: only the clock moves */
    } else {
        rc = ip_decode(ctx->frag, &l3, &ts, &ctx->stats.anom, &seg);
    }
    if (rc == DECODE_OK) {
        if (seg.key.proto == FLOW_PROTO_TCP) {
            unsigned dir;
            f = flow_table_get(&ctx->flows, &seg.key, &ts, &dir);
            ctx->pkt_flow = f;
            ctx->pkt_dir = dir;
            ctx->pkt_frame = p->frame;
            tcp_reasm_push(ctx->tcp, f->tcp, f, dir, &seg, &ts, &ctx->sink);
            ctx->pkt_flow = NULL;
        } else if (seg.key.proto == FLOW_PROTO_UDP) {
            f = udp_message(ctx, &seg, &ts, p->frame);
        }
    }
    if (ctx->wpcap)
        write_if_rpc(ctx, p, rc, &seg, f, &ts);

    /* Bounded housekeeping by packet time. */
    if ((cap->packets & 63) == 0) {
        rpc_match_expire(&ctx->match, &ctx->now);
        flow_table_expire(&ctx->flows, &ctx->now, ctx->cfg->flow_idle_s, 4);
        ipfrag_expire(ctx->frag, &ctx->now, 16);
    }
}

static void
finish_flow(void *vctx, struct flow *f)
{
    flow_evicted(vctx, f);
}

void
pipeline_settle(struct nfsscope_ctx *ctx)
{
    stats_settle(&ctx->stats);
    findings_worker_sync(ctx->findings_worker);
}

void
pipeline_finish(struct nfsscope_ctx *ctx)
{
    flow_table_foreach(&ctx->flows, finish_flow, ctx);
    ipfrag_flush(ctx->frag);
    rpc_match_flush(&ctx->match);
    ctx->stats.anom.n[ANOM_FLOW_EVICTED] = ctx->flows.evicted;
    stats_settle(&ctx->stats); /* the breakdown rows complete */
    findings_worker_finish(ctx->findings_worker); /* the findings are complete */
    ctx->findings_worker = NULL;
}
