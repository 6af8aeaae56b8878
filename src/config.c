/* SPDX-License-Identifier: BSD-3-Clause */
/* config.c: default limits (style.md §2.5). */
#include "config.h"

#include <string.h>

void
config_defaults(struct nfsscope_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->format = "text";
    cfg->max_flows = 65536;
    cfg->max_pending = 65536;
    cfg->call_timeout_s = 120;
    cfg->answered_keep_s = 10; /* UDP only: client retransmission window */
    cfg->flow_idle_s = 600;
    cfg->rpc_head_max = 4096; /* READDIRPLUS entries for the findings */
    cfg->rpc_head_pool = 4096;
    cfg->rpc_max_msg = 16u << 20;
    cfg->rpc_wide_max = 65535; /* a READDIRPLUS reply of up to 64 KiB whole */
    cfg->rpc_wide_pool = 16;
    cfg->rpc_tail_max = 256; /* what follows READ/WRITE data in a COMPOUND (a GETATTR) */
    cfg->tcp_ooo_pool = 8u << 20;
    cfg->tcp_ooo_per_dir = 256u << 10;
    cfg->ipfrag_max = 1024; /* a 64 KiB buffer each, allocated on first use */
    cfg->ipfrag_timeout_s = 30;
    cfg->bd_rows = 1024;
    cfg->names_max = 65536;
    cfg->lock_waits_max = 4096; /* NLM blocked locks waiting for GRANTED */
    cfg->nfs4_clients_max = 1024;
    cfg->nfs4_sessions_max = 1024;
    cfg->nfs4_stateids_max = 16384;
    cfg->findings_max = 16384;
    cfg->top_n = 10;
    cfg->threads = 2;
    cfg->window_s = 3; /* findings: like acregmin */
    cfg->tui = -1;
    cfg->speed = 1.0;
    cfg->metrics_clients = 8;
    cfg->metrics_timeout_s = 10;
}
