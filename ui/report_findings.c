/* SPDX-License-Identifier: BSD-3-Clause */
/* report_findings.c: findings as JSON objects and text paragraphs.
 *
 * Every finding is computed once into a `struct item` (kind, count, cost,
 * summary sentence) so the JSON and the text say the same thing. Paths come
 * from the names cache (names_path) and are wire bytes: json_str escapes
 * them for JSON, term_escape for the terminal. */
#include "report_findings.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "names.h"
#include "report_findings_nfs4.h"
#include "slowsrv.h"
#include "serialio.h"
#include "smallio.h"
#include "term_escape.h"

#define TOP 5
#define SUMMARY_MAX 1024

static const char *const stable_names[3] = { "UNSTABLE", "DATA_SYNC", "FILE_SYNC" };

const char *const findings_assumptions[] = {
    "The captured calls stand for what the applications asked for; the model decides which of "
    "them a Linux client with the given mount options would have sent. It never adds calls the "
    "capture does not show (e.g. the LOOKUPs nordirplus would need for entries never looked up).",
    "Attribute cache: attributes from any reply stay valid for acregmin (files) or acdirmin "
    "(directories) seconds. Linux stretches this towards acregmax/acdirmax while nothing "
    "changes, so on long captures the estimate is high.",
    "Close-to-open: a GETATTR the cache could answer is still sent when the same file's data "
    "(or the directory's entries) is read within the window after it, as for an open(); nocto "
    "drops those.",
    "Access cache: one ACCESS per client, user and file answers later checks while the file's "
    "attributes are valid and unchanged (the kernel asks for every access bit at once).",
    "Dentries: a LOOKUP is answered from the cache while its directory's attributes are valid "
    "and unchanged; negative results too, unless lookupcache=positive; lookupcache=none sends "
    "every LOOKUP.",
    "READDIRPLUS fills the attribute and dentry caches of its entries (all of them, also those "
    "beyond the bytes nfsscope keeps of each reply); a listing is read again only when the "
    "directory changed or its attributes expired; nordirplus lists with READDIR.",
    "Page cache: a READ of a range already read is served from memory while the file's "
    "attributes are unchanged (memory assumed large enough).",
    "WRITE, COMMIT and other calls are unchanged; a client's cache never sees another "
    "client's changes; noac also makes Linux writes synchronous, which is not modelled.",
    "NFSv4: a COMPOUND stands for the call of its kind (its main operation): GETATTR, "
    "ACCESS, LOOKUP, READDIR and READ COMPOUNDs go through the same model, with the "
    "attributes their GETATTR returned; every other COMPOUND (OPEN, CLOSE, WRITE, SEQUENCE "
    "...) is sent as captured.",
    "Read delegations (NFSv4): the server grants one at each client's first OPEN of a file "
    "and never recalls it (no other client writes the file); that client's later OPENs of "
    "the file, its CLOSEs but one and its GETATTR COMPOUNDs of the file after the first "
    "OPEN are not sent. An upper bound: a recall, a write open or a server that grants no "
    "delegation brings them back.",
    NULL,
};

struct item {
    enum fkind kind;
    uint64_t count, cost_us;
    char summary[SUMMARY_MAX];
};

/* Append to a NUL-terminated buffer, cutting at its end. */
void
findings_say(char *buf, size_t sz, const char *fmt, ...)
{
    size_t n = strlen(buf);
    va_list ap;

    if (n + 1 >= sz)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + n, sz - n, fmt, ap);
    va_end(ap);
}

void
findings_fmt_dur(char *buf, size_t sz, uint64_t us)
{
    if (us < 1000)
        snprintf(buf, sz, "%" PRIu64 " us", us);
    else if (us < 1000000)
        snprintf(buf, sz, "%.1f ms", (double)us / 1e3);
    else
        snprintf(buf, sz, "%.2f s", (double)us / 1e6);
}

static double
pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void
addr_str(uint8_t af, const uint8_t *a, char *buf, size_t sz)
{
    char tmp[INET6_ADDRSTRLEN] = "?";

    if (af == 4)
        inet_ntop(AF_INET, a, tmp, sizeof tmp);
    else if (af == 6)
        inet_ntop(AF_INET6, a, tmp, sizeof tmp);
    snprintf(buf, sz, "%s", tmp);
}

static void
path_of(const struct stats *s, const uint8_t *fh, size_t len, char *buf, size_t sz)
{
    struct bytes b = { fh, len };

    if (!len)
        snprintf(buf, sz, "(other)");
    else
        names_path(s->names, b, buf, sz);
}

/* The indexes of the TOP files with the most instances of k, most first
 * (ties: first seen first). */
/* Keep idx[0..*n) the indexes of the TOP largest non-zero values seen so far,
 * largest first, earlier ones first among equals; top[] holds their values. */
static void
top_push(size_t *idx, uint64_t *top, size_t *n, size_t i, uint64_t v)
{
    size_t j;

    if (!v || (*n == TOP && top[TOP - 1] >= v))
        return;
    j = *n < TOP ? (*n)++ : TOP - 1;
    for (; j > 0 && top[j - 1] < v; j--) {
        idx[j] = idx[j - 1];
        top[j] = top[j - 1];
    }
    idx[j] = i;
    top[j] = v;
}

static size_t
top_files(const struct findings *f, enum fkind k, size_t *idx)
{
    uint64_t top[TOP];
    size_t n = 0, i;

    for (i = 0; i < f->nfiles; i++)
        top_push(idx, top, &n, i, f->files[i].n[k]);
    return n;
}

static size_t
top_clients(const struct findings *f, enum fkind k, size_t *idx)
{
    uint64_t top[TOP];
    size_t n = 0, i;

    for (i = 0; i < FND_TOP_CLIENTS && f->clients[i].af; i++)
        top_push(idx, top, &n, i, f->clients[i].n[k]);
    return n;
}

static uint64_t
kinds_total(const uint64_t *v, unsigned n)
{
    uint64_t t = 0;
    unsigned p;

    for (p = 0; p < n; p++)
        t += v[p];
    return t;
}

static uint64_t
est_total(const struct findings *f, enum fscen sc)
{
    return kinds_total(f->est[sc], OPK_FILE_COUNT);
}

static uint64_t
now_total(const struct findings *f)
{
    return kinds_total(f->now, OPK_FILE_COUNT);
}

static uint64_t
now4_total(const struct findings *f)
{
    return kinds_total(f->wi4.now, OPK__COUNT);
}

/* "calls 5026 -> ~1014 (getattr 3004 -> ~4, ...)" of n kinds, now and as
 * estimated. */
static void
kinds_line(const char *what, const uint64_t *now, const uint64_t *est, unsigned n, char *buf,
           size_t sz)
{
    unsigned p, shown = 0;

    buf[0] = '\0';
    findings_say(buf, sz, "%s %" PRIu64 " -> ~%" PRIu64, what, kinds_total(now, n),
                 kinds_total(est, n));
    for (p = 0; p < n; p++) {
        if (est[p] == now[p])
            continue;
        findings_say(buf, sz, "%s%s %" PRIu64 " -> ~%" PRIu64, shown++ ? ", " : " (", op_kind_name(p),
            now[p], est[p]);
    }
    if (shown)
        findings_say(buf, sz, ")");
}

static void
scenario_line(const struct findings *f, enum fscen sc, char *buf, size_t sz)
{
    kinds_line("calls", f->now, f->est[sc], OPK_FILE_COUNT, buf, sz);
}

/* The NFSv4 COMPOUNDs by kind had read delegations been granted (an
 * estimate: findings_nfs4.c opens()). */
static void
deleg_estimate(const struct findings *f, uint64_t est[OPK__COUNT])
{
    const struct fnd_whatif4 *wi = &f->wi4;

    memcpy(est, wi->now, sizeof wi->now);
    est[OPK_OPEN] -= wi->deleg_open <= est[OPK_OPEN] ? wi->deleg_open : est[OPK_OPEN];
    est[OPK_CLOSE] -= wi->deleg_close <= est[OPK_CLOSE] ? wi->deleg_close : est[OPK_CLOSE];
    est[OPK_GETATTR] -= wi->deleg_getattr <= est[OPK_GETATTR] ? wi->deleg_getattr
                                                              : est[OPK_GETATTR];
}

static const struct histo *
hnull(const struct histo *h)
{
    return h->count ? h : NULL;
}

static uint64_t
fanout_calls(const struct fnd_dir *d)
{
    return d->lookup + d->getattr + d->access;
}

/* Compute the findings that fired, in report order. Returns how many. */
static size_t
collect(const struct stats *s, const struct findings *f, struct item *it, size_t max)
{
    size_t n = 0, i;
    char a[32], b[32];
    enum fkind k;
    int64_t cap0 = (int64_t)s->cap.first_ts.tv_sec * 1000000000 + s->cap.first_ts.tv_nsec;

    if (!f)
        return 0;
    if (f->n[FK_STABLE_WRITES] && n < max) {
        struct item *x = &it[n++];
        const struct histo *hs = hnull(&f->lat_stable), *hu = hnull(&f->lat_unstable);

        x->kind = FK_STABLE_WRITES;
        x->count = f->n[FK_STABLE_WRITES];
        x->cost_us = f->cost_us[FK_STABLE_WRITES];
        x->summary[0] = '\0';
        findings_fmt_dur(a, sizeof a, x->cost_us);
        findings_say(x->summary, SUMMARY_MAX,
            "%" PRIu64 " of %" PRIu64 " WRITE%s (%.1f %%) %s stable (FILE_SYNC %" PRIu64
            ", DATA_SYNC %" PRIu64 "): each waits until the server has the data on stable "
            "storage; %s %s",
            x->count, f->writes, findings_s(f->writes), pct(x->count, f->writes),
            findings_were(x->count), f->stable[STABLE_FILE_SYNC], f->stable[STABLE_DATA_SYNC],
            x->count == 1 ? "it took" : "together they took", a);
        if (hs && hu) {
            findings_fmt_dur(a, sizeof a, histo_percentile(hs, 50));
            findings_fmt_dur(b, sizeof b, histo_percentile(hu, 50));
            findings_say(x->summary, SUMMARY_MAX, "; median latency %s stable vs %s UNSTABLE", a, b);
        } else if (hs) {
            findings_fmt_dur(a, sizeof a, histo_percentile(hs, 50));
            findings_say(x->summary, SUMMARY_MAX, "; median latency %s (no UNSTABLE writes to compare)",
                a);
        }
        if (f->small_stable)
            findings_say(x->summary, SUMMARY_MAX,
                "; %" PRIu64 " %s smaller than the largest write before %s on %s "
                "connection (a client forcing small synchronous writes: O_SYNC/O_DIRECT, "
                "fsync-heavy code or the sync mount option)",
                f->small_stable, findings_were(f->small_stable),
                findings_them(f->small_stable), findings_their(f->small_stable));
        findings_say(x->summary, SUMMARY_MAX, "; %" PRIu64 " COMMIT%s", f->commits,
                     findings_s(f->commits));
        findings_say(x->summary, SUMMARY_MAX, ".");
    }
    if (f->n[FK_VERIFIER] && n < max) {
        struct item *x = &it[n++];

        x->kind = FK_VERIFIER;
        x->count = f->n[FK_VERIFIER];
        x->cost_us = f->cost_us[FK_VERIFIER];
        x->summary[0] = '\0';
        findings_say(x->summary, SUMMARY_MAX,
            "The server's write verifier changed %" PRIu64 " times: it restarted or lost "
            "uncommitted data, so every UNSTABLE write since the last COMMIT had to be sent "
            "again.",
            x->count);
    }
    if (f->n[FK_REDUNDANT_GETATTR] >= FND_MIN_REPEATS && n < max) {
        struct item *x = &it[n++];

        x->kind = FK_REDUNDANT_GETATTR;
        x->count = f->n[FK_REDUNDANT_GETATTR];
        x->cost_us = f->cost_us[FK_REDUNDANT_GETATTR];
        x->summary[0] = '\0';
        findings_fmt_dur(a, sizeof a, x->cost_us);
        findings_say(x->summary, SUMMARY_MAX,
            "%" PRIu64 " of %" PRIu64 " GETATTRs (%.1f %%) asked for attributes the client "
            "already held from a reply less than %" PRId64 " s old, with no modifying call from "
            "any client in between, and got the same attributes back; they took %s.",
            x->count, f->getattr, pct(x->count, f->getattr), f->window_ns / 1000000000, a);
    }
    if (f->n[FK_REDUNDANT_ACCESS] >= FND_MIN_REPEATS && n < max) {
        struct item *x = &it[n++];

        x->kind = FK_REDUNDANT_ACCESS;
        x->count = f->n[FK_REDUNDANT_ACCESS];
        x->cost_us = f->cost_us[FK_REDUNDANT_ACCESS];
        x->summary[0] = '\0';
        findings_fmt_dur(a, sizeof a, x->cost_us);
        findings_say(x->summary, SUMMARY_MAX,
            "%" PRIu64 " of %" PRIu64 " ACCESS calls (%.1f %%) repeated one the same client "
            "and user made for the same file and mask less than %" PRId64 " s before, with the "
            "same answer and no SETATTR in between; they took %s.",
            x->count, f->access, pct(x->count, f->access), f->window_ns / 1000000000, a);
    }
    {
        uint64_t calls = 0, cost = 0, ndir = 0;

        for (i = 0; i < f->ndirs; i++)
            if (findings_dir_reported(&f->dirs[i])) {
                ndir++;
                calls += fanout_calls(&f->dirs[i]);
                cost += f->dirs[i].cost_us;
            }
        if (ndir && n < max) {
            struct item *x = &it[n++];
            const struct fnd_dir *d = NULL;

            for (i = 0; i < f->ndirs; i++)
                if (findings_dir_reported(&f->dirs[i]) &&
                    (!d || fanout_calls(&f->dirs[i]) > fanout_calls(d)))
                    d = &f->dirs[i];
            x->kind = FK_FANOUT;
            x->count = calls;
            x->cost_us = cost;
            x->summary[0] = '\0';
            findings_fmt_dur(a, sizeof a, (uint64_t)(d->t_last - d->t_first) / 1000);
            findings_say(x->summary, SUMMARY_MAX,
                "%" PRIu64 " directory listing%s followed by per-entry calls (an `ls -l` "
                "storm): %" PRIu64 " call%s. The largest: %u listing%s (%" PRIu64
                " READDIRPLUS + %" PRIu64 " READDIR) + %" PRIu64 " LOOKUP + %" PRIu64
                " GETATTR + %" PRIu64 " ACCESS in %s",
                ndir, ndir == 1 ? " was" : "s were", calls, findings_s(calls), d->listings,
                findings_s(d->listings), d->readdirplus, d->readdir, d->lookup, d->getattr,
                d->access, a);
            if (d->getattr_after_plus)
                findings_say(x->summary, SUMMARY_MAX,
                    "; %" PRIu64 " of its GETATTRs came right after READDIRPLUS replies that "
                    "already carried the entries' attributes",
                    d->getattr_after_plus);
            findings_say(x->summary, SUMMARY_MAX, ".");
        }
    }
    if (f->n[FK_NETWORK_LOSS] && n < max) {
        struct item *x = &it[n++];
        const struct histo *hn = hnull(&f->lat_net), *hc = hnull(&f->lat_clean);

        x->kind = FK_NETWORK_LOSS;
        x->count = f->n[FK_NETWORK_LOSS];
        x->cost_us = f->cost_us[FK_NETWORK_LOSS];
        x->summary[0] = '\0';
        findings_fmt_dur(a, sizeof a, x->cost_us);
        findings_say(x->summary, SUMMARY_MAX,
            "%" PRIu64 " call%s (%.1f %% of those answered) waited while %s connection "
            "recovered from TCP loss (a segment sent again, arriving ahead of a hole, or lost): "
            "%s %s",
            x->count, findings_s(x->count), pct(x->count, f->lat_net.count + f->lat_clean.count),
            findings_their(x->count), x->count == 1 ? "it took" : "together they took", a);
        if (hn && hc) {
            findings_fmt_dur(a, sizeof a, histo_percentile(hn, 99));
            findings_fmt_dur(b, sizeof b, histo_percentile(hc, 99));
            findings_say(x->summary, SUMMARY_MAX, "; p99 %s against %s for the other calls", a, b);
        }
        findings_say(x->summary, SUMMARY_MAX,
            ". Look for drops on the path (interface errors, a full switch buffer, a "
            "policer): each lost segment costs a retransmission timeout.");
    }
    if (f->n[FK_NEGATIVE_LOOKUPS] >= FND_MIN_REPEATS && n < max) {
        struct item *x = &it[n++];
        const struct fnd_neg *g = NULL;

        for (i = 0; i < f->nneg; i++)
            if (!g || f->neg[i].n > g->n)
                g = &f->neg[i];
        x->kind = FK_NEGATIVE_LOOKUPS;
        x->count = f->n[FK_NEGATIVE_LOOKUPS];
        x->cost_us = f->cost_us[FK_NEGATIVE_LOOKUPS];
        x->summary[0] = '\0';
        findings_fmt_dur(a, sizeof a, x->cost_us);
        if (f->opens_by_name)
            findings_say(x->summary, SUMMARY_MAX,
                "%" PRIu64 " of %" PRIu64 " name lookups (%" PRIu64 " LOOKUPs, %" PRIu64
                " NFSv4 OPENs by name; %.1f %%) found no such name (NOENT), for %u name%s in "
                "their directories%s; they took %s",
                x->count, f->lookups + f->opens_by_name, f->lookups, f->opens_by_name,
                pct(x->count, f->lookups + f->opens_by_name), f->nneg, f->nneg == 1 ? "" : "s",
                f->neg_other ? " (and more not kept)" : "", a);
        else
            findings_say(x->summary, SUMMARY_MAX,
                "%" PRIu64 " of %" PRIu64 " LOOKUPs (%.1f %%) found no such name (NOENT), for %u "
                "name%s in their directories%s; they took %s",
                x->count, f->lookups, pct(x->count, f->lookups), f->nneg,
                f->nneg == 1 ? "" : "s", f->neg_other ? " (and more not kept)" : "", a);
        if (g && g->n > 1)
            findings_say(x->summary, SUMMARY_MAX,
                "; the most asked-for missing name was looked up %" PRIu64 " times", g->n);
        findings_say(x->summary, SUMMARY_MAX,
            ". Probes of names that do not exist (include paths, .htaccess, caches): create "
            "them, shorten the search path, or keep lookupcache=all so the client caches the "
            "failures.");
    }
    if (f->n[FK_RPC_RETRANS] && n < max) {
        struct item *x = &it[n++];

        x->kind = FK_RPC_RETRANS;
        x->count = f->n[FK_RPC_RETRANS];
        x->cost_us = f->cost_us[FK_RPC_RETRANS];
        x->summary[0] = '\0';
        findings_fmt_dur(a, sizeof a, x->cost_us);
        findings_say(x->summary, SUMMARY_MAX,
            "%" PRIu64 " call%s %s sent again with the same XID (%" PRIu64 " extra "
            "transmission%s): the client timed out waiting (timeo) or reconnected; %s took "
            "%s. A timeo shorter than the server's latency resends calls the server is still "
            "working on.",
            x->count, findings_s(x->count), findings_were(x->count), f->rpc_resent,
            findings_s(f->rpc_resent), x->count == 1 ? "it" : "they", a);
    }
    for (k = FK_LOCK_CONTENTION; k <= FK_DELEG_RECALLS && n < max; k++) {
        struct item *x;

        if (!findings_nfs4_fired(f, k))
            continue;
        x = &it[n++];
        x->kind = k;
        x->count = f->n[k];
        x->cost_us = f->cost_us[k];
        findings_nfs4_summary(s, f, k, x->summary, SUMMARY_MAX);
    }
    if (f->n[FK_SLOW_SERVER] && f->slow && n < max) {
        struct item *x = &it[n++];
        const struct slow_server *sv = NULL;
        const struct slow_op *op = NULL;
        unsigned sk, worst = 0;

        for (i = 0; i < f->slow->nservers; i++) /* the costliest server and operation */
            for (sk = 0; sk < SLOW_KINDS; sk++)
                if (!op || f->slow->srv[i].op[sk].excess_us > op->excess_us) {
                    sv = &f->slow->srv[i];
                    op = &sv->op[sk];
                    worst = sk;
                }
        x->kind = FK_SLOW_SERVER;
        x->count = f->n[FK_SLOW_SERVER];
        x->cost_us = f->cost_us[FK_SLOW_SERVER];
        x->summary[0] = '\0';
        findings_fmt_dur(a, sizeof a, x->cost_us);
        findings_say(x->summary, SUMMARY_MAX,
            "%" PRIu64 " call%s took at least %u times the median, so far, of %s operation on "
            "%s server (and %u ms more): %s beyond %s",
            x->count, findings_s(x->count), SLOW_FACTOR, findings_their(x->count),
            findings_their(x->count), SLOW_MIN_EXCESS_US / 1000, a,
            x->count == 1 ? "that median" : "those medians");
        if (sv && op && op->outliers) {
            char srv[64];
            struct slow_period p[SLOW_PERIODS];
            unsigned np = slowsrv_periods(sv, p);

            addr_str(sv->af, sv->addr, srv, sizeof srv);
            findings_fmt_dur(a, sizeof a, histo_small_percentile(&op->lat, 50));
            findings_fmt_dur(b, sizeof b, histo_small_percentile(&op->out_lat, 50));
            findings_say(x->summary, SUMMARY_MAX,
                "; the most on %s, %s%s: %" PRIu64 " call%s of median %s (by the end of the "
                "capture the median of all its calls was %s)",
                srv, worst == SLOW_KIND_STABLE_WRITE ? "stable " : "",
                op_kind_name(worst == SLOW_KIND_STABLE_WRITE ? OPK_WRITE : worst),
                op->outliers, findings_s(op->outliers), b, a);
            if (np) {
                findings_fmt_dur(a, sizeof a, p[0].excess_us);
                findings_say(x->summary, SUMMARY_MAX,
                    "; its worst slow period: %.3f s to %.3f s into the capture (%" PRIu64
                    " slow calls, %s)",
                    (double)(p[0].t_first - cap0) / 1e9, (double)(p[0].t_last - cap0) / 1e9,
                    p[0].calls, a);
            }
        }
        findings_say(x->summary, SUMMARY_MAX,
            ". Look at the server at those times: its disks, its load, its own "
            "logs, what else it served.");
    }
    if (f->small && smallio_reported(f->small) && n < max) {
        struct item *x = &it[n++];
        const struct smallio *sm = f->small;
        char rb[32], wb[32];

        x->kind = FK_SMALL_IO;
        x->count = f->n[FK_SMALL_IO];
        x->cost_us = f->cost_us[FK_SMALL_IO];
        x->summary[0] = '\0';
        findings_fmt_dur(a, sizeof a, x->cost_us);
        snprintf(rb, sizeof rb, "%" PRIu64, sm->small_reads ? sm->small_read_bytes /
                                                                  sm->small_reads : 0);
        snprintf(wb, sizeof wb, "%" PRIu64, sm->small_writes ? sm->small_write_bytes /
                                                                   sm->small_writes : 0);
        findings_say(x->summary, SUMMARY_MAX,
            "%" PRIu64 " of %" PRIu64 " READs (%s bytes on average) and %" PRIu64 " of %" PRIu64
            " WRITEs (%s bytes) were at most a %dth of what the server takes (FSINFO "
            "rtmax/wtmax) or of what the same client sent elsewhere: the same data in fewer, "
            "larger calls would have saved about %s",
            sm->small_reads, sm->reads, rb, sm->small_writes, sm->writes, wb, SMALL_RATIO, a);
        for (i = 0; i < sm->nservers; i++)
            if (sm->srv[i].rmax || sm->srv[i].wmax) {
                char srv[64];

                addr_str(sm->srv[i].af, sm->srv[i].addr, srv, sizeof srv);
                findings_say(x->summary, SUMMARY_MAX, "; %s takes READs of %" PRIu32 " and WRITEs of %"
                                             PRIu32 " bytes", srv, sm->srv[i].rmax,
                    sm->srv[i].wmax);
                break;
            }
        findings_say(x->summary, SUMMARY_MAX,
            ". Check rsize/wsize in the mount options and the application's I/O size "
            "(O_DIRECT, small buffers).");
    }
    if (f->serial && serialio_reported(f->serial) && n < max) {
        struct item *x = &it[n++];
        const struct serialio *se = f->serial;
        uint64_t rate = serialio_rate(se->bytes, se->lat_us);

        x->kind = FK_SERIAL_IO;
        x->count = f->n[FK_SERIAL_IO];
        x->cost_us = f->cost_us[FK_SERIAL_IO];
        x->summary[0] = '\0';
        findings_fmt_dur(a, sizeof a, x->cost_us);
        findings_say(x->summary, SUMMARY_MAX,
            "%" PRIu64 " READs and %" PRIu64 " WRITEs (%.1f MB) went one at a time, each "
            "sent when the one before it was answered: %.1f MB/s while waiting on them, "
            "where %d in flight at the same latency would move %.1f MB/s and save about %s",
            se->reads, se->writes, (double)se->bytes / 1e6, (double)rate / 1e6, SER_DEPTH,
            (double)rate * SER_DEPTH / 1e6, a);
        for (i = 0; i < se->npairs; i++)
            if (se->pair[i].calls) {
                char cli[64], srv[64];

                addr_str(se->pair[i].af, se->pair[i].cli, cli, sizeof cli);
                addr_str(se->pair[i].af, se->pair[i].srv, srv, sizeof srv);
                findings_say(x->summary, SUMMARY_MAX, "; %s to %s: %" PRIu64 " call%s", cli, srv,
                             se->pair[i].calls, findings_s(se->pair[i].calls));
                break;
            }
        findings_say(x->summary, SUMMARY_MAX,
            ". Put more calls in flight: nconnect, larger rsize/wsize, asynchronous or "
            "parallel I/O in the application, readahead.");
    }
    /* Ranked by the time they cost, largest first (report order among equals). */
    for (i = 1; i < n; i++) {
        struct item t = it[i];
        size_t j = i;

        while (j > 0 && it[j - 1].cost_us < t.cost_us) {
            it[j] = it[j - 1];
            j--;
        }
        it[j] = t;
    }
    return n;
}

static void
json_histo(struct json_w *w, const char *key, const struct histo *h)
{
    json_key(w, key);
    if (!h || !h->count) {
        json_null(w);
        return;
    }
    json_obj(w);
    json_kv_u64(w, "count", h->count);
    json_kv_u64(w, "p50", histo_percentile(h, 50));
    json_kv_u64(w, "p90", histo_percentile(h, 90));
    json_kv_u64(w, "p99", histo_percentile(h, 99));
    json_key(w, "mean");
    json_fixed(w, histo_mean(h), 1);
    json_close(w);
}

/* directory_fanout's tops come from its directory table: the directories
 * with the most per-entry calls, and the clients (a directory's first seen)
 * summed over the directories they listed. */
static void
json_fanout_tops(struct json_w *w, const struct stats *s, const struct findings *f)
{
    size_t idx[TOP], n = 0, i, j, nc = 0;
    uint64_t top[TOP];
    uint64_t calls[FND_DIRS], cost[FND_DIRS];
    size_t first[FND_DIRS]; /* per client: the first directory that names it */
    char buf[1024];

    json_key(w, "top_files");
    json_arr(w);
    for (i = 0; i < f->ndirs; i++)
        if (findings_dir_reported(&f->dirs[i]))
            top_push(idx, top, &n, i, fanout_calls(&f->dirs[i]));
    for (i = 0; i < n; i++) {
        const struct fnd_dir *d = &f->dirs[idx[i]];
        json_obj(w);
        path_of(s, d->fh, d->fh_len, buf, sizeof buf);
        json_kv_str(w, "path", buf);
        json_kv_u64(w, "count", fanout_calls(d));
        json_kv_u64(w, "cost_us", d->cost_us);
        json_close(w);
    }
    json_close(w);
    for (i = 0; i < f->ndirs && i < FND_DIRS; i++) {
        const struct fnd_dir *d = &f->dirs[i];
        if (!findings_dir_reported(d))
            continue;
        for (j = 0; j < nc; j++) {
            const struct fnd_dir *c = &f->dirs[first[j]];
            if (c->af == d->af && !memcmp(c->addr, d->addr, sizeof d->addr))
                break;
        }
        if (j == nc) {
            first[nc] = i;
            calls[nc] = cost[nc] = 0;
            nc++;
        }
        calls[j] += fanout_calls(d);
        cost[j] += d->cost_us;
    }
    n = 0;
    for (j = 0; j < nc; j++)
        top_push(idx, top, &n, j, calls[j]);
    json_key(w, "top_clients");
    json_arr(w);
    for (i = 0; i < n; i++) {
        const struct fnd_dir *d = &f->dirs[first[idx[i]]];
        json_obj(w);
        addr_str(d->af, d->addr, buf, sizeof buf);
        json_kv_str(w, "client", buf);
        json_kv_u64(w, "count", calls[idx[i]]);
        json_kv_u64(w, "cost_us", cost[idx[i]]);
        json_close(w);
    }
    json_close(w);
}

static void
json_tops(struct json_w *w, const struct stats *s, const struct findings *f, enum fkind k)
{
    size_t idx[TOP], n, i;
    char buf[1024];

    if (k == FK_FANOUT) {
        json_fanout_tops(w, s, f);
        return;
    }
    json_key(w, "top_files");
    json_arr(w);
    n = top_files(f, k, idx);
    for (i = 0; i < n; i++) {
        const struct fnd_file *fl = &f->files[idx[i]];
        json_obj(w);
        path_of(s, fl->fh, fl->fh_len, buf, sizeof buf);
        json_kv_str(w, "path", buf);
        json_kv_u64(w, "count", fl->n[k]);
        json_kv_u64(w, "cost_us", fl->cost_us[k]);
        if (k == FK_STABLE_WRITES) {
            json_key(w, "stable");
            json_obj(w);
            json_kv_u64(w, "DATA_SYNC", fl->stable[STABLE_DATA_SYNC]);
            json_kv_u64(w, "FILE_SYNC", fl->stable[STABLE_FILE_SYNC]);
            json_close(w);
        }
        json_close(w);
    }
    json_close(w);
    json_key(w, "top_clients");
    json_arr(w);
    n = top_clients(f, k, idx);
    for (i = 0; i < n; i++) {
        const struct fnd_client *c = &f->clients[idx[i]];
        json_obj(w);
        addr_str(c->af, c->addr, buf, sizeof buf);
        json_kv_str(w, "client", buf);
        json_kv_u64(w, "count", c->n[k]);
        json_kv_u64(w, "cost_us", c->cost_us[k]);
        json_close(w);
    }
    json_close(w);
}

/* A time in ns since the epoch, as the report's timestamps. */
static void
json_ts(struct json_w *w, const char *key, int64_t ns)
{
    json_key(w, key);
    json_decimal(w, ns, 9);
}

static void
json_slow(struct json_w *w, const struct slowsrv *sl)
{
    unsigned i, k, np, j;
    char buf[64];

    json_kv_u64(w, "min_calls", SLOW_MIN_CALLS);
    json_kv_u64(w, "factor", SLOW_FACTOR);
    json_kv_u64(w, "min_excess_us", SLOW_MIN_EXCESS_US);
    json_kv_u64(w, "calls_not_judged", sl->servers_other_calls);
    json_key(w, "servers");
    json_arr(w);
    for (i = 0; i < sl->nservers; i++) {
        const struct slow_server *sv = &sl->srv[i];
        struct slow_period p[SLOW_PERIODS];

        if (!sv->outliers)
            continue;
        json_obj(w);
        addr_str(sv->af, sv->addr, buf, sizeof buf);
        json_kv_str(w, "server", buf);
        json_kv_u64(w, "slow_calls", sv->outliers);
        json_kv_u64(w, "excess_us", sv->excess_us);
        json_key(w, "ops");
        json_arr(w);
        for (k = 0; k < SLOW_KINDS; k++) {
            const struct slow_op *op = &sv->op[k];

            if (!op->outliers)
                continue;
            json_obj(w);
            json_kv_str(w, "op", op_kind_name(k == SLOW_KIND_STABLE_WRITE ? OPK_WRITE : k));
            json_key(w, "stable");
            json_bool(w, k == SLOW_KIND_STABLE_WRITE);
            json_kv_u64(w, "calls", op->lat.count);
            json_kv_u64(w, "slow_calls", op->outliers);
            json_kv_u64(w, "p50_us", histo_small_percentile(&op->lat, 50));
            json_kv_u64(w, "slow_p50_us", histo_small_percentile(&op->out_lat, 50));
            json_kv_u64(w, "slow_max_us", op->out_lat.max);
            json_kv_u64(w, "excess_us", op->excess_us);
            json_close(w);
        }
        json_close(w);
        json_key(w, "periods");
        json_arr(w);
        np = slowsrv_periods(sv, p);
        for (j = 0; j < np; j++) {
            json_obj(w);
            json_ts(w, "start", p[j].t_first);
            json_ts(w, "end", p[j].t_last);
            json_kv_u64(w, "slow_calls", p[j].calls);
            json_kv_u64(w, "excess_us", p[j].excess_us);
            json_close(w);
        }
        json_close(w);
        json_kv_u64(w, "periods_not_kept", sv->periods_total - np);
        json_close(w);
    }
    json_close(w);
}

static void
json_small(struct json_w *w, const struct smallio *sm)
{
    unsigned i;
    char buf[64];

    json_kv_u64(w, "ratio", SMALL_RATIO);
    json_kv_u64(w, "reads", sm->reads);
    json_kv_u64(w, "small_reads", sm->small_reads);
    json_kv_u64(w, "small_read_bytes", sm->small_read_bytes);
    json_kv_u64(w, "writes", sm->writes);
    json_kv_u64(w, "small_writes", sm->small_writes);
    json_kv_u64(w, "small_write_bytes", sm->small_write_bytes);
    json_kv_u64(w, "calls_not_kept", sm->not_kept);
    json_key(w, "servers");
    json_arr(w);
    for (i = 0; i < sm->nservers; i++) {
        json_obj(w);
        addr_str(sm->srv[i].af, sm->srv[i].addr, buf, sizeof buf);
        json_kv_str(w, "server", buf);
        json_key(w, "rtmax");
        if (sm->srv[i].rmax)
            json_u64(w, sm->srv[i].rmax);
        else
            json_null(w);
        json_key(w, "wtmax");
        if (sm->srv[i].wmax)
            json_u64(w, sm->srv[i].wmax);
        else
            json_null(w);
        json_close(w);
    }
    json_close(w);
    json_key(w, "clients");
    json_arr(w);
    for (i = 0; i < sm->nclients; i++) {
        const struct small_peer *c = &sm->cli[i];

        if (!c->small_reads && !c->small_writes)
            continue;
        json_obj(w);
        addr_str(c->af, c->addr, buf, sizeof buf);
        json_kv_str(w, "client", buf);
        json_kv_u64(w, "small_reads", c->small_reads);
        json_kv_u64(w, "small_writes", c->small_writes);
        json_kv_u64(w, "largest_read", c->rmax);
        json_kv_u64(w, "largest_write", c->wmax);
        json_close(w);
    }
    json_close(w);
}

static void
json_serial(struct json_w *w, const struct serialio *se)
{
    unsigned i;
    char buf[64];

    json_kv_u64(w, "depth", SER_DEPTH);
    json_kv_u64(w, "min_size", SER_MIN_SIZE);
    json_kv_u64(w, "bulk_calls", se->bulk);
    json_kv_u64(w, "reads", se->reads);
    json_kv_u64(w, "writes", se->writes);
    json_kv_u64(w, "bytes", se->bytes);
    json_kv_u64(w, "latency_us", se->lat_us);
    json_kv_u64(w, "throughput_Bps", serialio_rate(se->bytes, se->lat_us));
    json_kv_u64(w, "possible_Bps", serialio_rate(se->bytes, se->lat_us) * SER_DEPTH);
    json_kv_u64(w, "calls_not_kept", se->not_kept);
    json_key(w, "pairs");
    json_arr(w);
    for (i = 0; i < se->npairs; i++) {
        const struct ser_pair *p = &se->pair[i];

        if (!p->calls)
            continue;
        json_obj(w);
        addr_str(p->af, p->cli, buf, sizeof buf);
        json_kv_str(w, "client", buf);
        addr_str(p->af, p->srv, buf, sizeof buf);
        json_kv_str(w, "server", buf);
        json_kv_u64(w, "calls", p->calls);
        json_kv_u64(w, "bytes", p->bytes);
        json_kv_u64(w, "latency_us", p->lat_us);
        json_close(w);
    }
    json_close(w);
}

static void
json_evidence(struct json_w *w, const struct stats *s, const struct findings *f,
              const struct item *x)
{
    unsigned k;
    size_t i;
    char buf[1024];

    json_key(w, "evidence");
    json_obj(w);
    switch (x->kind) {
    case FK_STABLE_WRITES:
        json_kv_u64(w, "writes", f->writes);
        json_key(w, "stable");
        json_obj(w);
        for (k = 0; k < 3; k++)
            json_kv_u64(w, stable_names[k], k ? f->stable[k] : f->writes - f->stable[1] -
                                                                  f->stable[2]);
        json_close(w);
        json_kv_u64(w, "stable_bytes", f->stable_bytes);
        json_kv_u64(w, "small_stable_writes", f->small_stable);
        json_key(w, "size_histogram");
        json_arr(w);
        for (k = 0; k < 22; k++) {
            if (!f->stable_size[k])
                continue;
            json_obj(w);
            json_kv_u64(w, "ge", k ? (uint64_t)1 << (k - 1) : 0);
            json_key(w, "lt");
            if (k < 21)
                json_u64(w, (uint64_t)1 << k);
            else
                json_null(w);
            json_kv_u64(w, "count", f->stable_size[k]);
            json_close(w);
        }
        json_close(w);
        json_key(w, "latency_us");
        json_obj(w);
        json_histo(w, "stable", &f->lat_stable);
        json_histo(w, "unstable", &f->lat_unstable);
        json_close(w);
        json_kv_u64(w, "commits", f->commits);
        json_key(w, "writes_per_commit");
        if (f->commits)
            json_fixed(w, (double)f->writes / (double)f->commits, 1);
        else
            json_null(w);
        json_histo(w, "commit_latency_us", &f->lat_commit);
        json_kv_u64(w, "verifier_changes", f->verf_changes);
        break;
    case FK_NETWORK_LOSS:
        json_kv_u64(w, "calls_delayed", f->lat_net.count);
        json_kv_u64(w, "calls_other", f->lat_clean.count);
        json_key(w, "latency_us");
        json_obj(w);
        json_histo(w, "delayed", &f->lat_net);
        json_histo(w, "other", &f->lat_clean);
        json_close(w);
        json_kv_u64(w, "tcp_retransmit", s->anom.n[ANOM_TCP_RETRANSMIT]);
        json_kv_u64(w, "tcp_gap", s->anom.n[ANOM_TCP_GAP]);
        break;
    case FK_NEGATIVE_LOOKUPS:
        json_kv_u64(w, "lookups", f->lookups);
        if (f->opens_by_name) /* NFSv4 */
            json_kv_u64(w, "opens_by_name", f->opens_by_name);
        json_kv_u64(w, "failures_not_kept", f->neg_other);
        json_key(w, "names");
        json_arr(w);
        for (i = 0; i < f->nneg; i++) {
            const struct fnd_neg *g = &f->neg[i];
            const char *sn = g->pg && g->pg->status_name ? g->pg->status_name(g->status) : NULL;

            json_obj(w);
            path_of(s, g->fh, g->fh_len, buf, sizeof buf);
            json_kv_str(w, "directory", buf);
            json_key(w, "name");
            json_strn(w, g->name, g->name_len);
            json_key(w, "name_cut");
            json_bool(w, g->name_cut);
            json_kv_u64(w, "status", g->status);
            if (sn)
                json_kv_str(w, "status_name", sn);
            json_kv_u64(w, "count", g->n);
            json_kv_u64(w, "cost_us", g->cost_us);
            addr_str(g->af, g->addr, buf, sizeof buf);
            json_kv_str(w, "client", buf);
            json_close(w);
        }
        json_close(w);
        break;
    case FK_RPC_RETRANS:
        json_kv_u64(w, "extra_transmissions", f->rpc_resent);
        break;
    case FK_LOCK_CONTENTION:
    case FK_DELAY_GRACE:
    case FK_STALE_STATE:
    case FK_SESSION_LIMITS:
    case FK_OPEN_CLOSE:
    case FK_DELEG_RECALLS:
        findings_nfs4_evidence(w, s, f, x->kind);
        break;
    case FK_SLOW_SERVER:
        json_slow(w, f->slow);
        break;
    case FK_SMALL_IO:
        json_small(w, f->small);
        break;
    case FK_SERIAL_IO:
        json_serial(w, f->serial);
        break;
    case FK_VERIFIER:
        json_kv_u64(w, "verifiers_seen", f->verf_seen);
        json_kv_u64(w, "changes", f->verf_changes);
        break;
    case FK_REDUNDANT_GETATTR:
        json_kv_u64(w, "getattr_replies", f->getattr);
        json_kv_u64(w, "window_s", (uint64_t)(f->window_ns / 1000000000));
        json_kv_str(w, "rule", "same client and handle; attributes held from any reply (not "
                               "FSSTAT/FSINFO/PATHCONF) within the window; no modifying call "
                               "from any client since; identical attributes (atime aside)");
        break;
    case FK_REDUNDANT_ACCESS:
        json_kv_u64(w, "access_replies", f->access);
        json_kv_u64(w, "window_s", (uint64_t)(f->window_ns / 1000000000));
        json_kv_str(w, "rule", "same client, uid, handle and mask answered within the window "
                               "with the same result; no SETATTR of the handle since");
        break;
    case FK_FANOUT:
        json_kv_u64(w, "min_calls", FND_FANOUT_MIN);
        json_kv_u64(w, "directories_not_tracked", f->dirs_dropped);
        json_close(w);
        json_key(w, "directories");
        json_arr(w);
        for (i = 0; i < f->ndirs; i++) {
            const struct fnd_dir *d = &f->dirs[i];
            unsigned l;

            if (!findings_dir_reported(d))
                continue;
            json_obj(w);
            path_of(s, d->fh, d->fh_len, buf, sizeof buf);
            json_kv_str(w, "path", buf);
            addr_str(d->af, d->addr, buf, sizeof buf);
            json_kv_str(w, "client", buf);
            json_kv_u64(w, "listings", d->listings);
            json_kv_u64(w, "readdir", d->readdir);
            json_kv_u64(w, "readdirplus", d->readdirplus);
            json_kv_u64(w, "lookup", d->lookup);
            json_kv_u64(w, "getattr", d->getattr);
            json_kv_u64(w, "access", d->access);
            json_kv_u64(w, "calls", fanout_calls(d));
            json_kv_u64(w, "span_us", (uint64_t)(d->t_last - d->t_first) / 1000);
            json_kv_u64(w, "cost_us", d->cost_us);
            json_kv_u64(w, "getattr_after_readdirplus", d->getattr_after_plus);
            json_kv_u64(w, "getattr_redundant", d->getattr_redundant);
            json_key(w, "listing");
            json_arr(w);
            for (l = 0; l < d->nl; l++) {
                const struct fnd_listing *li = &d->l[l];
                json_obj(w);
                json_kv_u64(w, "readdir", li->readdir);
                json_kv_u64(w, "readdirplus", li->readdirplus);
                json_kv_u64(w, "lookup", li->lookup);
                json_kv_u64(w, "getattr", li->getattr);
                json_kv_u64(w, "access", li->access);
                json_kv_u64(w, "entries_seen", li->entries_seen);
                json_kv_u64(w, "getattr_after_readdirplus", li->getattr_after_plus);
                json_kv_u64(w, "span_us", (uint64_t)(li->t_last - li->t_first) / 1000);
                json_close(w);
            }
            json_close(w);
            json_close(w);
        }
        json_close(w);
        return; /* "evidence" already closed */
    default:
        break;
    }
    json_close(w);
}

/* The scenarios of one version: now[n], est[SC__COUNT][n], cto[SC__COUNT]. */
static void
json_scenarios(struct json_w *w, const uint64_t *now, const uint64_t *est, const uint64_t *cto,
               unsigned n)
{
    unsigned sc, p;

    json_arr(w);
    for (sc = 0; sc < SC__COUNT; sc++) {
        const uint64_t *e = est + (size_t)sc * n;

        json_obj(w);
        json_kv_str(w, "name", fscen_params[sc].name);
        json_kv_str(w, "options", fscen_params[sc].options);
        json_kv_u64(w, "calls_estimated", kinds_total(e, n));
        json_kv_u64(w, "cto_getattr_kept", cto[sc]);
        json_key(w, "procs");
        json_obj(w);
        for (p = 0; p < n; p++) {
            if (!e[p] && !now[p])
                continue;
            json_key(w, op_kind_name(p));
            json_obj(w);
            json_kv_u64(w, "now", now[p]);
            json_kv_u64(w, "estimated", e[p]);
            json_close(w);
        }
        json_close(w);
        json_close(w);
    }
    json_close(w);
}

static void
json_whatif(struct json_w *w, const struct findings *f)
{
    uint64_t now = now_total(f), def = est_total(f, SC_DEFAULTS);
    uint64_t now4 = now4_total(f), def4 = kinds_total(f->wi4.est[SC_DEFAULTS], OPK__COUNT);
    char line[SUMMARY_MAX], sum[2 * SUMMARY_MAX + 256];
    const char *const *a;

    snprintf(sum, sizeof sum,
             "Estimate, not a measurement: a Linux client with default mount options (%s) "
             "would have made this workload's ", fscen_params[SC_DEFAULTS].options);
    if (now) {
        scenario_line(f, SC_DEFAULTS, line, sizeof line);
        findings_say(sum, sizeof sum, "NFS calls as %s%s", line, now4 ? ", and its " : ".");
    }
    if (now4) {
        kinds_line("COMPOUNDs", f->wi4.now, f->wi4.est[SC_DEFAULTS], OPK__COUNT, line,
                   sizeof line);
        findings_say(sum, sizeof sum, "NFSv4 COMPOUNDs as %s.", line);
    }
    json_obj(w);
    json_kv_str(w, "kind", "mount_option_whatif");
    json_kv_u64(w, "count", (now > def ? now - def : 0) + (now4 > def4 ? now4 - def4 : 0));
    json_kv_str(w, "summary", sum);
    json_key(w, "estimate");
    json_bool(w, true);
    json_kv_u64(w, "calls_now", now);
    json_key(w, "scenarios");
    json_scenarios(w, f->now, &f->est[0][0], f->cto_kept, OPK_FILE_COUNT);
    if (now4_total(f)) {
        const struct fnd_whatif4 *wi = &f->wi4;
        uint64_t est[OPK__COUNT];

        json_key(w, "nfs4");
        json_obj(w);
        json_kv_u64(w, "compounds_now", now4_total(f));
        json_key(w, "scenarios");
        json_scenarios(w, wi->now, &wi->est[0][0], wi->cto_kept, OPK__COUNT);
        deleg_estimate(f, est);
        json_key(w, "read_delegations");
        json_obj(w);
        json_kv_u64(w, "compounds_estimated", kinds_total(est, OPK__COUNT));
        json_kv_u64(w, "open_saved", wi->now[OPK_OPEN] - est[OPK_OPEN]);
        json_kv_u64(w, "close_saved", wi->now[OPK_CLOSE] - est[OPK_CLOSE]);
        json_kv_u64(w, "getattr_saved", wi->now[OPK_GETATTR] - est[OPK_GETATTR]);
        json_close(w);
        json_close(w);
    }
    json_key(w, "assumptions");
    json_arr(w);
    for (a = findings_assumptions; *a; a++)
        json_str(w, *a);
    json_close(w);
    json_close(w);
}

/* What loss, truncation and a mid-stream start do to the numbers; NULL-free
 * sentence into buf, returns the number of calls without a latency. */
static uint64_t
quality(const struct stats *s, const struct findings *f, char *buf, size_t sz, bool *any)
{
    const struct rpc_totals *r = &s->rpc;
    uint64_t untimed = r->unanswered_calls + r->orphan_replies;
    uint64_t gaps = s->anom.n[ANOM_TCP_GAP], resync = s->anom.n[ANOM_RPC_RESYNC];
    uint64_t evicted = f ? f->evicted : 0;
    uint64_t ops = r->calls + r->orphan_replies;

    buf[0] = '\0';
    uint64_t v4_blind = f ? f->v4.undecoded : 0;
    uint64_t rtb_unseen = f ? f->v4.rtb_unseen : 0;

    *any = untimed || s->cap.truncated_packets || s->cap.kernel_drops > 0 || gaps || resync ||
           evicted || r->retransmissions || s->dir_cut || v4_blind || s->tls.connections ||
           r->gss.data[2] || rtb_unseen;
    if (!*any)
        return 0;
    if (untimed)
        findings_say(buf, sz,
            "%" PRIu64 " call%s could not be matched (%" PRIu64 " unanswered, %" PRIu64
            " repl%s without %s call): latency covers %.1f %% of the operations. ",
            untimed, findings_s(untimed), r->unanswered_calls, r->orphan_replies,
            r->orphan_replies == 1 ? "y" : "ies", findings_their(r->orphan_replies),
            pct(ops - untimed, ops));
    if (r->orphan_replies)
        findings_say(buf, sz, "Replies without a call mean the capture started mid-stream or lost calls: "
                     "their procedures and files are unknown, so counts per procedure are low. ");
    if (s->cap.kernel_drops > 0)
        findings_say(buf, sz, "The kernel dropped %" PRId64 " packet%s: every count is a lower bound. ",
            s->cap.kernel_drops, findings_s((uint64_t)s->cap.kernel_drops));
    if (gaps || resync)
        findings_say(buf, sz,
            "%" PRIu64 " hole%s in TCP streams and %" PRIu64 " resync%s: messages in them are "
            "missing, so repeats may be missed (redundancy is a lower bound). ",
            gaps, findings_s(gaps), resync, findings_s(resync));
    if (s->cap.truncated_packets)
        findings_say(buf, sz,
            "%" PRIu64 " packet%s %s cut by the snapshot length: attributes, verifiers and "
            "directory entries beyond the cut are unknown, so findings that need them are "
            "lower bounds. ",
            s->cap.truncated_packets, findings_s(s->cap.truncated_packets),
            findings_were(s->cap.truncated_packets));
    if (r->retransmissions)
        findings_say(buf, sz, "%" PRIu64 " retransmitted call%s %s not timed. ", r->retransmissions,
                     findings_s(r->retransmissions), findings_were(r->retransmissions));
    if (s->dir_cut)
        findings_say(buf, sz,
            "%" PRIu64 " of %" PRIu64 " directory listings (READDIR/READDIRPLUS replies) were "
            "longer than the part nfsscope keeps of a reply: the names and attributes of their "
            "later entries are not seen, so redundant GETATTRs after listings are a lower "
            "bound and those entries' paths may show as handles. ",
            s->dir_cut, s->dir_replies);
    if (v4_blind)
        findings_say(buf, sz,
            "%" PRIu64 " NFSv4 COMPOUND replies could not be decoded (encrypted or cut short): "
            "the NFSv4 findings do not see their operations, statuses or attributes. ",
            v4_blind);
    if (rtb_unseen)
        findings_say(buf, sz,
            "%" PRIu64 " NFSv4 replies too big for their session (REP_TOO_BIG) came on sessions "
            "created before the capture: the maximum reply size their CREATE_SESSION granted "
            "is not known, so session_limits cannot compare the READ sizes with it. ",
            rtb_unseen);
    if (evicted)
        findings_say(buf, sz,
            "The findings' tables were full %" PRIu64 " time%s (oldest entries replaced): "
            "repeats further apart may be missed. ",
            evicted, findings_s(evicted));
    if (s->tls.connections)
        findings_say(buf, sz,
            "%" PRIu64 " connection%s switched to TLS (RPC-over-TLS, RFC 9289) and carried %" PRIu64
            " encrypted byte%s: %s calls are not seen, so every count is a lower bound. ",
            s->tls.connections, findings_s(s->tls.connections), s->tls.bytes,
            findings_s(s->tls.bytes), findings_their(s->tls.connections));
    if (r->gss.data[2])
        findings_say(buf, sz,
            "%" PRIu64 " call%s %s encrypted (RPCSEC_GSS privacy, krb5p): counted and timed, "
            "but %s files, names and statuses are not seen, so findings miss %s. ",
            r->gss.data[2], findings_s(r->gss.data[2]), findings_were(r->gss.data[2]),
            findings_their(r->gss.data[2]), findings_them(r->gss.data[2]));
    return untimed;
}

void
findings_time_json(struct json_w *w, const struct findings *f)
{
    uint64_t sp[FC__COUNT + 1];

    findings_time_split(f, sp);
    json_obj(w);
    json_kv_u64(w, "total_us", f->total_us);
    json_kv_u64(w, "network_us", sp[FC_NETWORK]);
    json_kv_u64(w, "server_us", sp[FC_SERVER]);
    json_kv_u64(w, "client_us", sp[FC_CLIENT]);
    json_kv_u64(w, "unexplained_us", sp[FC__COUNT]);
    json_close(w);
}

void
findings_json(struct json_w *w, const struct stats *s, const struct findings *f)
{
    struct item *it = calloc(FK__COUNT, sizeof *it);
    size_t n = it ? collect(s, f, it, FK__COUNT) : 0, i;
    uint64_t calls = f ? f->nfs3_calls : 0;
    char q[SUMMARY_MAX];
    bool any;
    uint64_t untimed;

    json_arr(w);
    for (i = 0; i < n; i++) {
        const struct item *x = &it[i];
        json_obj(w);
        json_kv_str(w, "kind", findings_kind_key(x->kind));
        json_kv_u64(w, "count", x->count);
        json_kv_str(w, "summary", x->summary);
        json_key(w, "share");
        json_fixed(w, calls ? (double)x->count / (double)calls : 0.0, 4);
        json_kv_u64(w, "cost_us", x->cost_us);
        json_tops(w, s, f, x->kind);
        json_evidence(w, s, f, x);
        json_close(w);
    }
    if (f && (now_total(f) || now4_total(f)))
        json_whatif(w, f);
    untimed = quality(s, f, q, sizeof q, &any);
    if (f && any) { /* only when the findings engine ran */
        uint64_t ops = s->rpc.calls + s->rpc.orphan_replies;
        json_obj(w);
        json_kv_str(w, "kind", "capture_quality");
        json_kv_u64(w, "count", untimed);
        json_kv_str(w, "summary", q);
        json_key(w, "latency_coverage");
        json_fixed(w, ops ? (double)(ops - untimed) / (double)ops : 1.0, 4);
        json_key(w, "evidence");
        json_obj(w);
        json_kv_u64(w, "unanswered_calls", s->rpc.unanswered_calls);
        json_kv_u64(w, "orphan_replies", s->rpc.orphan_replies);
        json_kv_u64(w, "retransmissions", s->rpc.retransmissions);
        json_kv_u64(w, "truncated_packets", s->cap.truncated_packets);
        json_key(w, "kernel_drops");
        if (s->cap.kernel_drops < 0)
            json_null(w);
        else
            json_i64(w, s->cap.kernel_drops);
        json_kv_u64(w, "tcp_gap", s->anom.n[ANOM_TCP_GAP]);
        json_kv_u64(w, "rpc_resync", s->anom.n[ANOM_RPC_RESYNC]);
        json_kv_u64(w, "findings_evicted", f ? f->evicted : 0);
        json_kv_u64(w, "dir_replies", s->dir_replies);
        json_kv_u64(w, "dir_replies_cut", s->dir_cut);
        if (f->v4.undecoded) /* NFSv4 */
            json_kv_u64(w, "nfs4_replies_undecoded", f->v4.undecoded);
        if (f->v4.rtb_unseen) /* NFSv4: REP_TOO_BIG without its session's CREATE_SESSION */
            json_kv_u64(w, "rep_too_big_session_unseen", f->v4.rtb_unseen);
        if (s->tls.connections) { /* RPC-over-TLS seen (RFC 9289) */
            json_kv_u64(w, "tls_connections", s->tls.connections);
            json_kv_u64(w, "tls_bytes", s->tls.bytes);
        }
        if (s->rpc.gss.data[2]) /* RPCSEC_GSS privacy seen */
            json_kv_u64(w, "encrypted_calls", s->rpc.gss.data[2]);
        json_close(w);
        json_close(w);
    }
    json_close(w);
    free(it);
}

static void
put_esc(FILE *out, const char *s)
{
    size_t n = strlen(s), need = 4 * n + 1;
    char *buf = malloc(need);

    if (!buf)
        return;
    term_escape(buf, need, (const uint8_t *)s, n);
    fputs(buf, out);
    free(buf);
}

/* A paragraph wrapped at 78 columns: `lead` first, then indented by two
 * spaces more than lead's width. */
static void
para(FILE *out, const char *lead, const char *text)
{
    size_t col = 0, ind = strlen(lead);
    const char *p = text;

    while (*p) {
        const char *sp = strchr(p, ' ');
        size_t wl = sp ? (size_t)(sp - p) : strlen(p);
        char word[SUMMARY_MAX];

        if (wl >= sizeof word)
            wl = sizeof word - 1;
        memcpy(word, p, wl);
        word[wl] = '\0';
        if (col > ind && col + 1 + wl > 78) {
            fprintf(out, "\n%*s", (int)ind, "");
            col = ind;
        }
        if (col == 0) {
            fputs(lead, out);
            col = ind;
        } else if (col > ind) {
            fputs(" ", out);
            col++;
        }
        put_esc(out, word);
        col += wl;
        p += wl;
        while (*p == ' ')
            p++;
    }
    if (col)
        fputs("\n", out);
}

/* negative_lookups: the most asked-for missing names, each as its
 * directory's path and the name the client looked up (both from the wire,
 * escaped), with the status and how often. */
static void
missing_names(FILE *out, const struct stats *s, const struct findings *f)
{
    uint64_t top[TOP];
    size_t idx[TOP], n = 0, i;
    char dir[1024], name[4 * FND_NEG_NAME + 1];

    for (i = 0; i < f->nneg; i++)
        top_push(idx, top, &n, i, f->neg[i].n);
    for (i = 0; i < n; i++) {
        const struct fnd_neg *g = &f->neg[idx[i]];
        const char *sn = g->pg && g->pg->status_name ? g->pg->status_name(g->status) : NULL;

        path_of(s, g->fh, g->fh_len, dir, sizeof dir);
        term_escape(name, sizeof name, g->name, g->name_len);
        if (!i)
            fputs("  missing names (times asked, status):\n", out);
        fputs("    ", out);
        put_esc(out, dir);
        fprintf(out, "/%s%s: %" PRIu64 " %s\n", name, g->name_cut ? "..." : "", g->n,
                sn ? sn : "");
    }
}

void
findings_text(FILE *out, const struct stats *s, const struct findings *f, bool assumptions)
{
    struct item *it = calloc(FK__COUNT, sizeof *it);
    size_t n = it ? collect(s, f, it, FK__COUNT) : 0, i, j, k;
    char q[SUMMARY_MAX], buf[1024], line[SUMMARY_MAX];
    bool any;
    unsigned sc;

    if (!f) {
        free(it);
        return;
    }
    quality(s, f, q, sizeof q, &any);
    if (!n && !f->nfs3_calls && !any) {
        free(it);
        return;
    }
    fputs("\nFindings\n", out);
    if (!n)
        fputs("  No stable writes, redundant GETATTR/ACCESS or directory fan-out found.\n", out);
    for (i = 0; i < n; i++) {
        size_t idx[TOP];

        fprintf(out, "\n%s (%" PRIu64 ")\n", findings_kind_key(it[i].kind), it[i].count);
        para(out, "  ", it[i].summary);
        if (it[i].kind == FK_NEGATIVE_LOOKUPS)
            missing_names(out, s, f);
        k = top_files(f, it[i].kind, idx);
        if (k && it[i].kind != FK_FANOUT && it[i].kind != FK_NEGATIVE_LOOKUPS) {
            fputs("  top files:", out);
            for (j = 0; j < k; j++) {
                path_of(s, f->files[idx[j]].fh, f->files[idx[j]].fh_len, buf, sizeof buf);
                fputs(j ? ", " : " ", out);
                put_esc(out, buf);
                fprintf(out, " %" PRIu64, f->files[idx[j]].n[it[i].kind]);
            }
            fputs("\n", out);
        }
        if (it[i].kind == FK_FANOUT) {
            for (j = 0; j < f->ndirs; j++) {
                const struct fnd_dir *d = &f->dirs[j];
                if (!findings_dir_reported(d))
                    continue;
                path_of(s, d->fh, d->fh_len, buf, sizeof buf);
                fputs("  ", out);
                put_esc(out, buf);
                fprintf(out,
                        ": %u listing%s, %" PRIu64 " READDIRPLUS + %" PRIu64 " READDIR, %" PRIu64
                        " LOOKUP + %" PRIu64 " GETATTR + %" PRIu64 " ACCESS\n",
                        d->listings, findings_s(d->listings), d->readdirplus, d->readdir,
                        d->lookup, d->getattr, d->access);
            }
        }
        k = top_clients(f, it[i].kind, idx);
        if (k) {
            fputs("  top clients:", out);
            for (j = 0; j < k; j++) {
                addr_str(f->clients[idx[j]].af, f->clients[idx[j]].addr, buf, sizeof buf);
                fprintf(out, "%s%s %" PRIu64, j ? ", " : " ", buf,
                        f->clients[idx[j]].n[it[i].kind]);
            }
            fputs("\n", out);
        }
    }
    if (now_total(f) || now4_total(f)) {
        const char *const *a;

        fputs("\nmount_option_whatif (an ESTIMATE from a model of the Linux client, not a "
              "measurement)\n",
              out);
        for (sc = 0; sc < SC__COUNT && now_total(f); sc++) {
            scenario_line(f, (enum fscen)sc, line, sizeof line);
            fprintf(out, "  %-21s %s\n", fscen_params[sc].name, line);
        }
        if (now4_total(f)) {
            uint64_t est[OPK__COUNT];

            fputs("  NFSv4 COMPOUNDs:\n", out);
            for (sc = 0; sc < SC__COUNT; sc++) {
                kinds_line("COMPOUNDs", f->wi4.now, f->wi4.est[sc], OPK__COUNT, line,
                           sizeof line);
                fprintf(out, "  %-21s %s\n", fscen_params[sc].name, line);
            }
            deleg_estimate(f, est);
            kinds_line("COMPOUNDs", f->wi4.now, est, OPK__COUNT, line, sizeof line);
            fprintf(out, "  %-21s %s\n", "read delegations", line);
        }
        if (assumptions) {
            fputs("  Assumptions:\n", out);
            for (a = findings_assumptions; *a; a++)
                para(out, "    - ", *a);
        } else {
            fputs("  (its assumptions: nfsscope(1), FINDINGS AND THE WHAT-IF MODEL, or -v)\n", out);
        }
    }
    if (any) {
        fputs("\ncapture_quality\n", out);
        para(out, "  ", q);
    }
    free(it);
}

/* One line of advice per kind, for the diagnosis block (at most 45 columns). */
static const char *const advice[FK__COUNT] = {
    [FK_STABLE_WRITES] = "drop O_SYNC/sync; write UNSTABLE, then COMMIT",
    [FK_VERIFIER] = "the server restarted or lost unstable data",
    [FK_REDUNDANT_GETATTR] = "unchanged attributes asked again: actimeo",
    [FK_REDUNDANT_ACCESS] = "the same ACCESS asked again: access cache",
    [FK_FANOUT] = "ls -l storms: fewer stat() per listing",
    [FK_NETWORK_LOSS] = "TCP loss stalls calls: fix drops on the path",
    [FK_NEGATIVE_LOOKUPS] = "missing names probed again: fix search paths",
    [FK_RPC_RETRANS] = "calls resent: timeo below the server's latency?",
    [FK_LOCK_CONTENTION] = "lock conflicts: who holds the lock?",
    [FK_DELAY_GRACE] = "DELAY/GRACE retries: server restart or busy",
    [FK_STALE_STATE] = "lost state: leases, restarts, recovery",
    [FK_SESSION_LIMITS] = "session slots full: raise the slot count",
    [FK_OPEN_CLOSE] = "OPEN/CLOSE per access: enable delegations",
    [FK_DELEG_RECALLS] = "delegations recalled: files shared between clients",
    [FK_SLOW_SERVER] = "the server was slow at times: check it then",
    [FK_SMALL_IO] = "small READ/WRITE: raise rsize/wsize, I/O size",
    [FK_SERIAL_IO] = "one call at a time: nconnect, async/parallel I/O",
};

/* The RPC servers that were sent calls (the server breakdown's rows), and
 * whether that table had to forget some. */
static unsigned
servers_seen(const struct stats *s, bool *more)
{
    const struct bd_table *t = &s->bd[BD_SERVER];
    unsigned n = 0;
    size_t i;

    for (i = 0; t->rows && i < t->count; i++)
        n += t->rows[i].used && t->rows[i].calls;
    *more = t->evicted > 0;
    return n;
}

void
findings_diagnosis(FILE *out, const struct stats *s, const struct findings *f)
{
    struct item *it;
    const struct capture_totals *c = &s->cap;
    uint64_t bytes = 0, us;
    int64_t ns = 0;
    double secs;
    size_t n, i;
    char a[32];
    unsigned nsrv;
    bool more;

    if (!f || !f->nfs3_calls)
        return;
    it = calloc(FK__COUNT, sizeof *it);
    n = it ? collect(s, f, it, FK__COUNT) : 0;
    for (i = 0; i < s->nprogs; i++)
        if (s->progs[i].pg->flags & PGF_IO_DETAIL)
            bytes += s->progs[i].read_bytes + s->progs[i].write.bytes;
    if (c->packets)
        ns = ((int64_t)c->last_ts.tv_sec - (int64_t)c->first_ts.tv_sec) * 1000000000 +
             ((int64_t)c->last_ts.tv_nsec - (int64_t)c->first_ts.tv_nsec);
    secs = ns > 0 ? (double)ns / 1e9 : 0.0;
    us = f->total_us;
    findings_fmt_dur(a, sizeof a, us);
    fprintf(out, "\nDiagnosis: %s in NFS calls, by cause\n", a);
    fprintf(out, "  %.3f s, %" PRIu64 " call%s", secs, f->nfs3_calls, findings_s(f->nfs3_calls));
    if (secs > 0)
        fprintf(out, ", %.1f/s, %.2f MB/s", (double)f->nfs3_calls / secs,
                (double)bytes / secs / 1e6);
    nsrv = servers_seen(s, &more);
    fprintf(out, ", %u client%s%s, %u server%s%s, loss: %" PRIu64 " resent, %" PRIu64 " hole%s\n",
            f->nclients, findings_s(f->nclients), f->nclients >= FND_TOP_CLIENTS ? "+" : "",
            nsrv, findings_s(nsrv), more ? "+" : "", s->anom.n[ANOM_TCP_RETRANSMIT],
            s->anom.n[ANOM_TCP_GAP], findings_s(s->anom.n[ANOM_TCP_GAP]));
    {
        uint64_t sp[FC__COUNT + 1];

        findings_time_split(f, sp);
        fprintf(out, "  time: network %.1f%%, server %.1f%%, client %.1f%%, unexplained %.1f%%\n",
                pct(sp[FC_NETWORK], us), pct(sp[FC_SERVER], us), pct(sp[FC_CLIENT], us),
                pct(sp[FC__COUNT], us));
    }
    if (!n)
        fputs("  no finding: no single cause of slowness stands out\n", out);
    for (i = 0; i < n && i < 9; i++)
        fprintf(out, "  %-22s %5.1f%%  %s\n", findings_kind_key(it[i].kind),
                pct(it[i].cost_us, us), advice[it[i].kind]);
    free(it);
}
