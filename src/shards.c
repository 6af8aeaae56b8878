/* SPDX-License-Identifier: BSD-3-Clause */
/* shards.c: the decoding shards of a -r run (shards.h). */
#include "shards.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#define SHARDS_MAX 16 /* --threads' bound */

struct shard {
    struct nfsscope_ctx ctx;
    struct capture *cap;
    const struct nfsscope_config *cfg;
    const struct capture_run_opts *ro;
    unsigned i, n; /* this shard of n */
    pthread_t th;
    bool ctx_ready, started;
    int st;
    char err[512];
};

/* A shard's thread sets up its own tables, reads and finishes them, in
 * parallel with the others and the main thread (their page faults and
 * clearing are the run's fixed cost); the main thread merges. */
static void *
run(void *arg)
{
    struct shard *s = arg;

    prctl(PR_SET_NAME, "decode"); /* as top -H shows it */
    if (pipeline_init(&s->ctx, s->cfg) != 0) {
        snprintf(s->err, sizeof s->err, "out of memory for the tables of %u decoding threads"
                                        " (lower --threads, --max-flows or --max-pending)", s->n);
        s->st = 1;
        return NULL;
    }
    s->ctx_ready = true;
    pipeline_shard(&s->ctx, s->i, s->n);
    s->st = capture_run(s->cap, &s->ctx, s->ro, s->err, sizeof s->err);
    pipeline_finish(&s->ctx); /* what it read, as far as it got (every shard stops alike) */
    return NULL;
}

static void
shard_close(struct shard *s)
{
    capture_close(s->cap);
    if (s->ctx_ready)
        pipeline_fini(&s->ctx);
}

int
shards_run(struct nfsscope_ctx *first, struct capture *cap, const struct nfsscope_config *cfg,
           unsigned n, const struct capture_run_opts *ro, char *err, size_t errlen)
{
    struct shard *more; /* shards 1 .. n-1 */
    sigset_t all, old;
    unsigned i;
    int st = 0;

    if (n > SHARDS_MAX)
        n = SHARDS_MAX;
    more = calloc(n, sizeof *more);
    if (!more) {
        snprintf(err, errlen, "out of memory for %u decoding threads", n);
        return 1;
    }
    /* Every capture is opened here, on one thread (libpcap compiles the
     * filter with global state); each shard's tables on its own (run). */
    for (i = 1; i < n && st == 0; i++) {
        struct shard *s = &more[i];

        st = capture_open(&s->cap, cfg, err, errlen);
        s->cfg = cfg;
        s->ro = ro;
        s->i = i;
        s->n = n;
    }
    pipeline_shard(first, 0, n);
    sigfillset(&all); /* signals go to the main thread */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (i = 1; i < n && st == 0; i++) {
        if (pthread_create(&more[i].th, NULL, run, &more[i]) != 0) {
            snprintf(err, errlen, "cannot start decoding thread %u", i);
            st = 1;
            break;
        }
        more[i].started = true;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (st == 0)
        st = capture_run(cap, first, ro, err, errlen);
    for (i = 1; i < n; i++)
        if (more[i].started) {
            pthread_join(more[i].th, NULL);
            if (more[i].st != 0 && st == 0) {
                snprintf(err, errlen, "%s", more[i].err);
                st = more[i].st;
            }
        }
    pipeline_finish(first);
    for (i = 1; i < n; i++) {
        if (more[i].ctx_ready) /* finished by its thread */
            pipeline_merge(first, &more[i].ctx);
        shard_close(&more[i]);
    }
    free(more);
    return st;
}
