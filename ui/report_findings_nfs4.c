/* SPDX-License-Identifier: BSD-3-Clause */
/* report_findings_nfs4.c: the NFSv4 findings' sentences and evidence
 * (report_findings_nfs4.h), from struct fnd_v4 (findings_nfs4.h). Status
 * names come from the program's table; paths from the names cache. */
#include "report_findings_nfs4.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "findings.h"
#include "names.h"
#include "nfs4.h"
#include "term_escape.h"

static const char *
status_name(uint32_t st)
{
    const char *n = nfs4_status_name(st);

    return n ? n : "?";
}

static const char *const lock_types[5] = { "?", "READ_LT", "WRITE_LT", "READW_LT",
                                           "WRITEW_LT" };

static const char *
lock_type(uint32_t t)
{
    return t < 5 ? lock_types[t] : "?";
}

/* The conflicting lock's owner bytes, escaped ("..." when cut). */
static const char *
holder_owner(const struct fnd_v4_lock *l, char *buf, size_t sz)
{
    size_t n = term_escape(buf, sz, l->holder, l->holder_len);

    if (l->holder_cut && n + 4 < sz)
        memcpy(buf + n, "...", 4);
    return buf;
}

static uint64_t
sum(const uint64_t *v, unsigned n)
{
    uint64_t t = 0;
    unsigned i;

    for (i = 0; i < n; i++)
        t += v[i];
    return t;
}

/* "BAD_STATEID 1, BADSESSION 2" of the non-zero counts. */
static void
codes(char *buf, size_t sz, const uint32_t *code, const uint64_t *n, unsigned cnt)
{
    unsigned i, shown = 0;

    for (i = 0; i < cnt; i++)
        if (n[i])
            findings_say(buf, sz, "%s%s %" PRIu64, shown++ ? ", " : "", status_name(code[i]), n[i]);
}

/* The same as JSON: "status": {"NFS4ERR_BAD_STATEID": 1, ...}. */
static void
json_statuses(struct json_w *w, const uint32_t *code, const uint64_t *n, unsigned cnt)
{
    unsigned i;

    json_key(w, "status");
    json_obj(w);
    for (i = 0; i < cnt; i++)
        if (n[i])
            json_kv_u64(w, status_name(code[i]), n[i]);
    json_close(w);
}

static const struct fnd_v4_lock *
top_lock(const struct fnd_v4 *v)
{
    const struct fnd_v4_lock *t = NULL;
    unsigned i;

    for (i = 0; i < v->nlocks; i++)
        if (!t || v->locks[i].n > t->n)
            t = &v->locks[i];
    return t;
}

bool
findings_nfs4_fired(const struct findings *f, enum fkind k)
{
    const struct fnd_v4 *v = &f->v4;

    switch (k) {
    case FK_LOCK_CONTENTION:
        return v->lock_denied || v->lockt_denied || v->nlm_denied || v->nlm_test_denied;
    case FK_DELAY_GRACE:
        return v->delay || v->grace;
    case FK_STALE_STATE:
        return sum(v->stale, FND_V4_STALE) != 0;
    case FK_SESSION_LIMITS:
        return f->n[FK_SESSION_LIMITS] != 0;
    case FK_OPEN_CLOSE:
        return f->n[FK_OPEN_CLOSE] != 0;
    case FK_DELEG_RECALLS:
        return v->recalls || v->recalls_unanswered || v->deleg_revoked || v->recallable_revoked;
    default:
        return false;
    }
}

void
findings_nfs4_summary(const struct stats *s, const struct findings *f, enum fkind k, char *buf,
                      size_t sz)
{
    const struct fnd_v4 *v = &f->v4;
    char a[32], b[32], path[512];
    unsigned i, shown;

    buf[0] = '\0';
    switch (k) {
    case FK_LOCK_CONTENTION: {
        const struct fnd_v4_lock *l = top_lock(v);

        if (v->lock || v->lockt)
            findings_say(buf, sz,
                "%" PRIu64 " of %" PRIu64 " NFSv4 LOCKs were denied by a conflicting lock "
                "(NFS4ERR_DENIED), and %" PRIu64 " of %" PRIu64 " LOCKT tests",
                v->lock_denied, v->lock, v->lockt_denied, v->lockt);
        if (v->nlm_lock || v->nlm_test)
            findings_say(buf, sz,
                "%s%" PRIu64 " of %" PRIu64 " NLM LOCKs were denied, and %" PRIu64 " of %" PRIu64
                " NLM TESTs",
                v->lock || v->lockt ? "; " : "", v->nlm_denied, v->nlm_lock,
                v->nlm_test_denied, v->nlm_test);
        if (v->lock_retries)
            findings_say(buf, sz, "; %" PRIu64 " LOCK%s retried after a denial", v->lock_retries,
                v->lock_retries == 1 ? " was" : "s were");
        if (v->granted_after_wait) {
            findings_fmt_dur(a, sizeof a, v->wait_us);
            findings_fmt_dur(b, sizeof b, v->wait_max_us);
            findings_say(buf, sz, "; %" PRIu64 " granted after waiting %s in all (longest %s)",
                v->granted_after_wait, a, b);
        }
        if (l) {
            struct bytes fh = { l->fh, l->fh_len };
            if (l->fh_len)
                names_path(s->names, fh, path, sizeof path);
            else
                snprintf(path, sizeof path, "(unknown file)");
            char own[4 * FND_V4_HOLDER + 8];

            findings_say(buf, sz,
                "; the lock most in the way: %s %" PRIu64 "+%" PRIu64 " on %s, held by ",
                lock_type(l->type), l->off, l->len, path);
            if (l->nlm)
                findings_say(buf, sz, "NLM svid %" PRIu64, l->clientid);
            else
                findings_say(buf, sz, "clientid 0x%016" PRIx64, l->clientid);
            findings_say(buf, sz, " owner \"%s\" (%" PRIu64 " denial%s)",
                holder_owner(l, own, sizeof own), l->n, findings_s(l->n));
        }
        findings_say(buf, sz, ". Applications wait on each other's byte-range locks: polling with "
                     "LOCK/LOCKT retries adds a delay per try; find who holds the lock.");
        break;
    }
    case FK_DELAY_GRACE:
        findings_fmt_dur(a, sizeof a, v->lost_us);
        findings_fmt_dur(b, sizeof b, v->lost_max_us);
        findings_say(buf, sz,
            "%" PRIu64 " COMPOUND%s %s answered NFS4ERR_DELAY (%" PRIu64 ") or NFS4ERR_GRACE "
            "(%" PRIu64 ") and had to be sent again; %" PRIu64 " retry loop%s ended in success, "
            "%s from first try to success in all (longest %s). GRACE: the server restarted and "
            "holds new state back for its grace period; DELAY: it was busy (a delegation "
            "being recalled, a file offline).",
            v->delay + v->grace, findings_s(v->delay + v->grace), findings_were(v->delay + v->grace),
            v->delay, v->grace, v->retried_ok, findings_s(v->retried_ok), a, b);
        break;
    case FK_STALE_STATE:
        findings_say(buf, sz, "%" PRIu64 " COMPOUND%s failed on state the server did not know (",
            sum(v->stale, FND_V4_STALE), findings_s(sum(v->stale, FND_V4_STALE)));
        codes(buf, sz, findings_nfs4_stale_codes, v->stale, FND_V4_STALE);
        findings_fmt_dur(a, sizeof a, v->recovery_us);
        findings_say(buf, sz,
            "); %" PRIu64 " recovery COMPOUND%s (new client id or session, TEST_STATEID, "
            "FREE_STATEID, reclaims) followed within %" PRId64 " s, taking %s. The server "
            "restarted, a lease expired (the client did not renew in time), or the client used "
            "a stateid it had already given up.",
            v->recovery, findings_s(v->recovery), f->window_ns / 1000000000, a);
        break;
    case FK_SESSION_LIMITS: {
        uint64_t errs = sum(v->limits, FND_V4_LIMITS);

        findings_say(buf, sz, "%" PRIu64 " COMPOUND%s ran into the session's limits (", errs,
                     findings_s(errs));
        codes(buf, sz, findings_nfs4_limit_codes, v->limits, FND_V4_LIMITS);
        findings_say(buf, sz,
            "); %" PRIu64 " call%s on the server's highest slot (%" PRIu32 "), %" PRIu64
            " of %" PRIu64 " SEQUENCE replies with the target below the highest slot. A "
            "client with every slot busy waits for one.",
            v->at_highest, findings_s(v->at_highest), v->max_highest, v->target_below,
            v->seq_replies);
        if (v->rtb && v->rtb_max_resp)
            findings_say(buf, sz,
                " REP_TOO_BIG: %" PRIu64 " repl%s larger than the session allows "
                "(ca_maxresponsesize %" PRIu32 " bytes); %" PRIu64 " of them READs of up to %"
                PRIu32 " bytes (%" PRIu64 " asking for more than the maximum alone), READs of "
                "up to %" PRIu32 " bytes went through: mount with an rsize below the session's "
                "maximum, or have the server grant a larger one.",
                v->rtb, v->rtb == 1 ? "y" : "ies", v->rtb_max_resp, v->rtb_reads, v->rtb_read_max, v->rtb_reads_over,
                v->read_ok_max);
        if (v->rtb_unseen)
            findings_say(buf, sz,
                " %" PRIu64 " REP_TOO_BIG on sessions created before the capture: their "
                "maximum reply size is unknown.", v->rtb_unseen);
        break;
    }
    case FK_OPEN_CLOSE:
        findings_say(buf, sz,
            "%" PRIu64 " short opens (OPEN then CLOSE within %" PRId64 " s, no delegation) of "
            "%" PRIu64 " file%s that the same client opened again and again (%" PRIu64
            " OPENs, %" PRIu64 " CLOSEs in all); delegations granted: ",
            f->n[FK_OPEN_CLOSE], f->window_ns / 1000000000, v->storm_files,
            v->storm_files == 1 ? "" : "s", v->opens, v->closes);
        shown = 0;
        for (i = 0; i < FND_V4_DELEG; i++) {
            const char *n = nfs4_delegation_name(i);
            if (v->deleg[i])
                findings_say(buf, sz, "%s%s %" PRIu64, shown++ ? ", " : "", n ? n : "?", v->deleg[i]);
        }
        if (!shown)
            findings_say(buf, sz, "none seen");
        for (i = 0, shown = 0; i < FND_V4_WHY; i++) {
            const char *n = nfs4_why_no_delegation_name(i);
            if (v->why_none[i])
                findings_say(buf, sz, "%s%s %" PRIu64, shown++ ? ", " : "; why not: ", n ? n : "?",
                    v->why_none[i]);
        }
        findings_fmt_dur(a, sizeof a, f->cost_us[FK_OPEN_CLOSE]);
        findings_say(buf, sz,
            ". A read delegation would let the client open and close these files locally, "
            "saving about %" PRIu64 " OPEN and %" PRIu64 " CLOSE COMPOUNDs (%s in calls): "
            "enable delegations on the server (NFSv4.0 also needs a callback path the server "
            "can reach).",
            f->n[FK_OPEN_CLOSE], f->n[FK_OPEN_CLOSE], a);
        break;
    case FK_DELEG_RECALLS: {
        char c[32], d[32];

        findings_fmt_dur(a, sizeof a, v->recall_us);
        findings_fmt_dur(b, sizeof b, v->recall_max_us);
        findings_fmt_dur(c, sizeof c, v->recall_wait_us);
        findings_fmt_dur(d, sizeof d, v->recall_wait_max_us);
        findings_say(buf, sz,
            "The server recalled %" PRIu64 " delegation%s (CB_RECALL); %" PRIu64 " came back "
            "by DELEGRETURN, %s from recall to return in all (longest %s), %" PRIu64
            " not in the capture; %" PRIu64 " CB_RECALL%s never answered; %" PRIu64
            " OPENs were answered NFS4ERR_DELAY while another client held a delegation of "
            "the file (their time is this finding's), %" PRIu64 " of those openers got the "
            "file %s after their first try in all (longest %s); revoked: %" PRIu64
            " NFS4ERR_DELEG_REVOKED, %" PRIu64
            " SEQUENCE replies with SEQ4_STATUS_RECALLABLE_STATE_REVOKED. Another client "
            "opened a file one client held a delegation on: each recall makes the opener wait "
            "until the holder writes back and returns it; a holder that does not answer in "
            "time loses it (revoked).",
            v->recalls, v->recalls == 1 ? "" : "s", v->recall_returned, a, b,
            v->recalls > v->recall_returned ? v->recalls - v->recall_returned : 0,
            v->recalls_unanswered, v->recalls_unanswered == 1 ? " was" : "s were",
            v->recall_delays, v->recall_waited, c, d, v->deleg_revoked, v->recallable_revoked);
        break;
    }
    default:
        break;
    }
}

void
findings_nfs4_evidence(struct json_w *w, const struct stats *s, const struct findings *f,
                       enum fkind k)
{
    const struct fnd_v4 *v = &f->v4;
    char buf[512];
    unsigned i;

    switch (k) {
    case FK_LOCK_CONTENTION:
        json_kv_u64(w, "lock", v->lock);
        json_kv_u64(w, "lock_denied", v->lock_denied);
        json_kv_u64(w, "lockt", v->lockt);
        json_kv_u64(w, "lockt_denied", v->lockt_denied);
        json_kv_u64(w, "lock_retries", v->lock_retries);
        json_kv_u64(w, "nlm_lock", v->nlm_lock);
        json_kv_u64(w, "nlm_denied", v->nlm_denied);
        json_kv_u64(w, "nlm_test", v->nlm_test);
        json_kv_u64(w, "nlm_test_denied", v->nlm_test_denied);
        json_kv_u64(w, "granted_after_wait", v->granted_after_wait);
        json_kv_u64(w, "wait_us", v->wait_us);
        json_kv_u64(w, "wait_max_us", v->wait_max_us);
        json_kv_u64(w, "conflicts_not_kept", v->locks_other);
        json_key(w, "conflicts");
        json_arr(w);
        for (i = 0; i < v->nlocks; i++) {
            const struct fnd_v4_lock *l = &v->locks[i];
            struct bytes fh = { l->fh, l->fh_len };
            json_obj(w);
            if (l->fh_len)
                names_path(s->names, fh, buf, sizeof buf);
            else
                snprintf(buf, sizeof buf, "(other)");
            json_kv_str(w, "path", buf);
            json_kv_str(w, "type", lock_type(l->type));
            json_kv_u64(w, "offset", l->off);
            json_kv_u64(w, "length", l->len);
            snprintf(buf, sizeof buf, "%016" PRIx64, l->owner);
            json_kv_str(w, "owner", buf);
            json_kv_u64(w, "denials", l->n);
            json_key(w, "holder");
            json_obj(w);
            json_kv_str(w, "program", l->nlm ? "nlm" : "nfs4");
            if (l->nlm) {
                json_kv_u64(w, "svid", l->clientid);
            } else {
                snprintf(buf, sizeof buf, "%016" PRIx64, l->clientid);
                json_kv_str(w, "clientid", buf);
            }
            json_kv_str(w, "owner", holder_owner(l, buf, sizeof buf));
            json_key(w, "owner_cut");
            json_bool(w, l->holder_cut);
            json_close(w);
            json_close(w);
        }
        json_close(w);
        break;
    case FK_DELAY_GRACE:
        json_kv_u64(w, "delay", v->delay);
        json_kv_u64(w, "grace", v->grace);
        json_kv_u64(w, "retried_ok", v->retried_ok);
        json_kv_u64(w, "lost_us", v->lost_us);
        json_kv_u64(w, "lost_max_us", v->lost_max_us);
        break;
    case FK_STALE_STATE:
        json_statuses(w, findings_nfs4_stale_codes, v->stale, FND_V4_STALE);
        json_kv_u64(w, "recovery_compounds", v->recovery);
        json_kv_u64(w, "recovery_us", v->recovery_us);
        break;
    case FK_SESSION_LIMITS:
        json_statuses(w, findings_nfs4_limit_codes, v->limits, FND_V4_LIMITS);
        json_kv_u64(w, "sequence_replies", v->seq_replies);
        json_kv_u64(w, "at_highest_slot", v->at_highest);
        json_kv_u64(w, "highest_slotid_max", v->max_highest);
        json_kv_u64(w, "slotid_max", v->max_slot);
        json_kv_u64(w, "target_below_highest", v->target_below);
        if (v->rtb) {
            json_key(w, "rep_too_big");
            json_obj(w);
            json_kv_u64(w, "compounds", v->rtb);
            json_kv_u64(w, "session_unseen", v->rtb_unseen);
            json_kv_u64(w, "max_response_size", v->rtb_max_resp);
            json_kv_u64(w, "reads", v->rtb_reads);
            json_kv_u64(w, "read_count_max", v->rtb_read_max);
            json_kv_u64(w, "reads_over_max", v->rtb_reads_over);
            json_kv_u64(w, "read_ok_max", v->read_ok_max);
            json_close(w);
        }
        break;
    case FK_DELEG_RECALLS:
        json_kv_u64(w, "cb_recall", v->recalls);
        json_kv_u64(w, "returned", v->recall_returned);
        json_kv_u64(w, "recall_to_return_us", v->recall_us);
        json_kv_u64(w, "recall_to_return_max_us", v->recall_max_us);
        json_kv_u64(w, "recalls_unanswered", v->recalls_unanswered);
        json_kv_u64(w, "opens_delayed", v->recall_delays);
        json_kv_u64(w, "opens_granted_after_delay", v->recall_waited);
        json_kv_u64(w, "open_wait_us", v->recall_wait_us);
        json_kv_u64(w, "open_wait_max_us", v->recall_wait_max_us);
        json_kv_u64(w, "deleg_revoked", v->deleg_revoked);
        json_kv_u64(w, "recallable_state_revoked", v->recallable_revoked);
        break;
    case FK_OPEN_CLOSE:
        json_kv_u64(w, "opens", v->opens);
        json_kv_u64(w, "closes", v->closes);
        json_kv_u64(w, "short_opens", v->short_opens);
        json_kv_u64(w, "files", v->storm_files);
        json_key(w, "delegations");
        json_obj(w);
        for (i = 0; i < FND_V4_DELEG; i++)
            if (v->deleg[i]) {
                const char *n = nfs4_delegation_name(i);
                json_kv_u64(w, n ? n : "?", v->deleg[i]);
            }
        json_close(w);
        json_key(w, "why_no_delegation");
        json_obj(w);
        for (i = 0; i < FND_V4_WHY; i++)
            if (v->why_none[i]) {
                const char *n = nfs4_why_no_delegation_name(i);
                json_kv_u64(w, n ? n : "?", v->why_none[i]);
            }
        json_close(w);
        break;
    default:
        break;
    }
}
