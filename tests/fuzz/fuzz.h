/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz.h: the libFuzzer entry point every target in tests/fuzz/ defines.
 * Built with -fsanitize=fuzzer it is driven by libFuzzer; linked with
 * onefile.c it is a plain program that replays files (ctest, gcc). */
#ifndef NFSSCOPE_FUZZ_H
#define NFSSCOPE_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

/* Run one input. Always returns 0 (libFuzzer reserves other values). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Defaults, then every table shrunk so that eviction, overflow and expiry
 * paths run on small inputs; a fixed hash seed keeps runs reproducible. */
static inline void
fuzz_small_config(struct nfsscope_config *cfg)
{
    config_defaults(cfg);
    cfg->max_flows = 4;
    cfg->max_pending = 8;
    cfg->call_timeout_s = 10;
    cfg->answered_keep_s = 5;
    cfg->flow_idle_s = 30;
    cfg->rpc_head_max = 512;
    cfg->rpc_head_pool = 3;
    cfg->rpc_max_msg = 1u << 20;
    cfg->rpc_wide_max = 2048;
    cfg->rpc_wide_pool = 2;
    cfg->tcp_ooo_pool = 8u << 10;   /* 8 chunks of 1 KiB */
    cfg->tcp_ooo_per_dir = 3u << 10;
    cfg->ipfrag_max = 2;
    cfg->ipfrag_timeout_s = 5;
    cfg->bd_rows = 4;   /* breakdown rows: eviction into "other" */
    cfg->names_max = 8; /* file names learned */
    cfg->findings_max = 64; /* findings' tables: eviction; small, so runs stay fast */
    cfg->hash_seed = 0x6675a2a5eedULL;
}

#endif
