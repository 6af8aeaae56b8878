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
    struct shards *all;
    unsigned i; /* this shard of all->n */
    pthread_t th;
    bool started;
    /* Under all->mu: the thread finished its context (read and
     * pipeline_finish, or failed to set it up), and the main thread merged
     * it, so the thread may free it. */
    bool done, merged;
    bool ctx_ready;
    int st;
    char err[512];
};

struct shards {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    const struct nfsscope_config *cfg;
    const struct capture_run_opts *ro;
    unsigned n;
    struct shard s[SHARDS_MAX]; /* [1 .. n-1] */
};

/* A shard's capture and tables, freed (again: nothing). */
static void
shard_free(struct shard *s)
{
    capture_close(s->cap);
    s->cap = NULL;
    if (s->ctx_ready)
        pipeline_fini(&s->ctx);
    s->ctx_ready = false;
}

/* A shard's thread sets up its own tables, reads and finishes them, in
 * parallel with the others and the main thread (their page faults and
 * clearing are the run's fixed cost); once the main thread merged them it
 * frees them, while the main thread writes the report. */
static void *
run(void *arg)
{
    struct shard *s = arg;
    struct shards *all = s->all;

    prctl(PR_SET_NAME, "decode"); /* as top -H shows it */
    if (pipeline_init(&s->ctx, all->cfg) != 0) {
        snprintf(s->err, sizeof s->err, "out of memory for the tables of %u decoding threads"
                                        " (lower --threads, --max-flows or --max-pending)", all->n);
        s->st = 1;
    } else {
        s->ctx_ready = true;
        pipeline_shard(&s->ctx, s->i, all->n);
        s->st = capture_run(s->cap, &s->ctx, all->ro, s->err, sizeof s->err);
        pipeline_finish(&s->ctx); /* what it read, as far as it got (every shard stops alike) */
    }
    pthread_mutex_lock(&all->mu);
    s->done = true;
    pthread_cond_broadcast(&all->cv);
    while (!s->merged)
        pthread_cond_wait(&all->cv, &all->mu);
    pthread_mutex_unlock(&all->mu);
    shard_free(s);
    return NULL;
}

void
shards_close(struct shards *all)
{
    unsigned i;

    if (!all)
        return;
    for (i = 1; i < all->n; i++) {
        struct shard *s = &all->s[i];

        if (s->started) {
            pthread_mutex_lock(&all->mu);
            s->merged = true; /* whatever became of the merge: free */
            pthread_cond_broadcast(&all->cv);
            pthread_mutex_unlock(&all->mu);
            pthread_join(s->th, NULL);
        }
        shard_free(s); /* what its thread did not free (it never started) */
    }
    pthread_cond_destroy(&all->cv);
    pthread_mutex_destroy(&all->mu);
    free(all);
}

int
shards_run(struct nfsscope_ctx *first, struct capture *cap, const struct nfsscope_config *cfg,
           unsigned n, const struct capture_run_opts *ro, struct shards **out, char *err,
           size_t errlen)
{
    struct shards *all;
    sigset_t set, old;
    unsigned i;
    int st = 0;

    *out = NULL;
    if (n > SHARDS_MAX)
        n = SHARDS_MAX;
    all = calloc(1, sizeof *all);
    if (!all) {
        snprintf(err, errlen, "out of memory for %u decoding threads", n);
        return 1;
    }
    pthread_mutex_init(&all->mu, NULL);
    pthread_cond_init(&all->cv, NULL);
    all->cfg = cfg;
    all->ro = ro;
    all->n = n;
    *out = all;
    /* Every capture is opened here, on one thread (libpcap compiles the
     * filter with global state); each shard's tables on its own (run). */
    for (i = 1; i < n && st == 0; i++) {
        all->s[i].all = all;
        all->s[i].i = i;
        st = capture_open(&all->s[i].cap, cfg, err, errlen);
    }
    pipeline_shard(first, 0, n);
    sigfillset(&set); /* signals go to the main thread */
    pthread_sigmask(SIG_SETMASK, &set, &old);
    for (i = 1; i < n && st == 0; i++) {
        if (pthread_create(&all->s[i].th, NULL, run, &all->s[i]) != 0) {
            snprintf(err, errlen, "cannot start decoding thread %u", i);
            st = 1;
            break;
        }
        all->s[i].started = true;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (st == 0)
        st = capture_run(cap, first, ro, err, errlen);
    pipeline_finish(first);
    for (i = 1; i < n; i++) {
        struct shard *s = &all->s[i];

        if (!s->started)
            continue;
        pthread_mutex_lock(&all->mu);
        while (!s->done)
            pthread_cond_wait(&all->cv, &all->mu);
        pthread_mutex_unlock(&all->mu);
        if (s->st != 0 && st == 0) {
            snprintf(err, errlen, "%s", s->err);
            st = s->st;
        }
        if (s->ctx_ready) /* finished by its thread, which frees it once merged */
            pipeline_merge(first, &s->ctx);
        pthread_mutex_lock(&all->mu);
        s->merged = true;
        pthread_cond_broadcast(&all->cv);
        pthread_mutex_unlock(&all->mu);
    }
    return st;
}
