/* SPDX-License-Identifier: BSD-3-Clause */
/* config.h: every limit and option, fixed after the command line is parsed. */
#ifndef NFSSCOPE_CONFIG_H
#define NFSSCOPE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NFSSCOPE_MAX_FILES 64

struct nfsscope_config {
    /* input */
    const char *files[NFSSCOPE_MAX_FILES + 1]; /* -r, NULL-terminated */
    size_t nfiles;
    const char *iface;  /* -i */
    const char *filter; /* BPF expression, or NULL */
    uint64_t max_packets; /* -c, 0 = no limit */
    int reader;           /* --reader: how -r files are read (enum capture_reader) */
    /* output */
    const char *format; /* "text", "json", "csv" */
    /* bounded state (style.md §2.5) */
    size_t max_flows;         /* connections tracked */
    size_t max_pending;       /* calls awaiting a reply */
    unsigned call_timeout_s;  /* a call unanswered this long (packet time) is given up */
    unsigned answered_keep_s; /* answered UDP calls remembered to spot retransmissions */
    unsigned flow_idle_s;     /* idle connections forgotten */
    size_t rpc_head_max;      /* bytes of each RPC message kept */
    size_t rpc_head_pool;     /* head buffers for messages spanning segments */
    uint32_t rpc_max_msg;     /* largest plausible RPC message */
    size_t rpc_wide_max;      /* bytes kept of a reply a program wants whole (listings) */
    size_t rpc_wide_pool;     /* buffers for such replies spanning segments */
    size_t rpc_tail_max;      /* bytes kept at the end of a message longer than its head */
    size_t tcp_ooo_pool;      /* bytes of out-of-order TCP data, all connections */
    size_t tcp_ooo_per_dir;   /* ... per direction */
    size_t ipfrag_max;        /* IP datagrams in reassembly */
    unsigned ipfrag_timeout_s;
    size_t bd_rows;   /* rows per breakdown table (client, server, file, ...) */
    size_t names_max; /* file handles with a known name */
    size_t lock_waits_max; /* NLM blocked locks followed until granted */
    size_t nfs4_clients_max;  /* NFSv4 client ids followed (nfs4_state.h) */
    size_t nfs4_sessions_max; /* NFSv4.1 sessions followed */
    size_t nfs4_stateids_max; /* NFSv4 open, lock and delegation stateids followed */
    size_t findings_max; /* entries per findings table (attributes, access, model); 0 = off */
    unsigned top_n;   /* rows shown per breakdown */
    unsigned by_mask; /* breakdowns shown in the text report (1 << enum bd_dim) */
    int detail;       /* text report: -1 short (-q), 0 default, 1 everything (-v) */
    bool all_rows;    /* text report: procedure rows without calls too (--all) */
    int order;        /* enum bd_order of the top-N lists */
    uint64_t hash_seed; /* 0: from getrandom() */
    unsigned window_s;  /* findings: repeats within this many seconds are redundant */
    unsigned threads;   /* --threads: for -r reports, the findings on a thread of their own
                         * (when on) and the rest decoding shards (main.c, shards.h) */
    /* live capture and the view */
    int snaplen;          /* -s: bytes kept per packet, 0 = 262144 */
    int buffer_kib;       /* -B: kernel buffer in KiB, 0 = libpcap's default */
    bool no_promisc;      /* -p */
    const char *user;     /* -Z: run as this user once the capture is open;
                           * NULL = "nobody" for -i started as root */
    double duration_s;    /* --duration: stop after this long (0 = no limit) */
    double interval_s;    /* --interval: periodic reports without the view (0 = none) */
    int tui;              /* --tui 1, --no-tui 0, -1 = the view for -i on a terminal */
    double speed;         /* --speed: replay speed of -r in the view (0 = fastest) */
    /* --metrics */
    const char *metrics_addr;  /* ADDR:PORT to serve /metrics on, or NULL */
    size_t metrics_clients;    /* connections served at once; more are refused */
    double metrics_timeout_s;  /* a connection's life, accept to close */
};

/* Defaults for every field. */
void config_defaults(struct nfsscope_config *cfg);

#endif
