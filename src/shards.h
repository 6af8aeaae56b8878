/* SPDX-License-Identifier: BSD-3-Clause */
/* shards.h: --threads: the decoding of -r files shared by several threads.
 *
 * Each thread runs a context of its own (pipeline.h) and a capture of its
 * own over the same files, and keeps one shard of the packets (pipeline.h:
 * by the pair of IP addresses); at the end the shards are finished and
 * merged into the first context, which then holds what one context reading
 * every packet would (the reports are the same while no table fills: each
 * shard has the configured sizes, so memory is the decoding tables' times
 * the shards). No packet is handed between threads: the files are read
 * once per shard, from the page cache. */
#ifndef NFSSCOPE_SHARDS_H
#define NFSSCOPE_SHARDS_H

#include <stddef.h>

#include "capture.h"
#include "config.h"
#include "pipeline.h"

struct shards;

/* Read the input of `cap` (files, opened with cfg) into `first` and n - 1
 * more contexts on as many more threads, then pipeline_finish() them all
 * and merge them into `first`. cfg->hash_seed must not be 0 (every shard
 * hashes alike). Returns 0, or 1 with err set (a shard could not be set
 * up, or reading failed). *out (NULL: nothing to close) holds the threads,
 * which free their contexts meanwhile: shards_close() once the report is
 * written, whatever shards_run returned; cfg must live until then. */
int shards_run(struct nfsscope_ctx *first, struct capture *cap, const struct nfsscope_config *cfg,
               unsigned n, const struct capture_run_opts *ro, struct shards **out, char *err,
               size_t errlen);
/* Wait for the threads, free what is left; NULL: nothing. */
void shards_close(struct shards *sh);

#endif
