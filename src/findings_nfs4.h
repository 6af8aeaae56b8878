/* SPDX-License-Identifier: BSD-3-Clause */
/* findings_nfs4.h: the findings only NFSv4 has (RFC 8881): lock contention,
 * NFS4ERR_DELAY / NFS4ERR_GRACE retry loops, stale state and its recovery,
 * session slot limits, OPEN/CLOSE storms without delegations, and
 * delegations recalled from their holders (CB_RECALL to DELEGRETURN).
 *
 * Fed every NFSv4 COMPOUND the findings take (findings_record calls
 * findings_nfs4_record), from the message's event: its kind (the main
 * operation), its status (the first failing operation's, RFC 8881 §16.2.3)
 * and the facts of struct op_nfs4. Bounded: retry episodes and open files
 * live in direct-mapped arrays, a colliding entry replaces the older one
 * (counted in findings.evicted: a replaced episode can only hide a retry,
 * never invent one). */
#ifndef NFSSCOPE_FINDINGS_NFS4_H
#define NFSSCOPE_FINDINGS_NFS4_H

#include <stdbool.h>
#include <stdint.h>

struct findings;
struct op_event;

#define FND_V4_WAITS 1024  /* retry episodes (lock waits, delay/grace loops, recoveries) */
#define FND_V4_OPENS 1024  /* (client, file) open counters */
#define FND_V4_LOCKS 16    /* conflicting locks kept, with their owner and range */
#define FND_V4_OPEN_MIN 3  /* short opens of one file by one client that make a storm */
#define FND_V4_STALE 10    /* the stale-state statuses (findings_nfs4.c stale_codes) */
#define FND_V4_LIMITS 9    /* the session-limit statuses (limit_codes) */
#define FND_V4_WHY 8       /* why_no_delegation4 values counted (RFC 8881 §18.16.3) */
#define FND_V4_DELEG 7     /* open_delegation_type4 values counted, 0..6 */
#define FND_V4_RECALLS 256 /* delegations being recalled, followed to their DELEGRETURN */
#define FND_V4_DELEGS 1024 /* files clients hold delegations of */
#define FND_V4_HOLDERS 4   /* holders followed per file; more are not */
#define FND_V4_SESSIONS 64 /* sessions whose CREATE_SESSION limits are kept */

#define FND_V4_HOLDER 48   /* bytes of a conflicting lock's owner kept */

/* A lock that was in the way: LOCK4denied (RFC 8881 §18.10.4), or the
 * nlm4_holder of an NLM TEST answered denied (X/Open XNFS). */
struct fnd_v4_lock {
    uint64_t owner;          /* hash of its (clientid, owner) */
    uint64_t clientid;       /* its holder's clientid (NLM: svid) */
    uint64_t off, len;
    uint32_t type;           /* nfs_lock_type4 */
    bool nlm;                /* an NLM holder */
    bool holder_cut;         /* the owner was longer than FND_V4_HOLDER */
    uint8_t holder_len, holder[FND_V4_HOLDER]; /* its owner's bytes (NLM: oh) */
    uint8_t fh_len, fh[128]; /* the file (NLM: not known) */
    uint64_t n;              /* denials it caused */
};

struct fnd_v4_wait { /* one retry episode */
    uint64_t key;            /* 0: empty */
    int64_t t_first;         /* ns: the first try's call (stale_state: the error's reply) */
    uint32_t tries;
};

struct fnd_v4_open { /* one client's opens of one file */
    uint64_t key;            /* 0: empty */
    int64_t t_open;          /* ns: the latest OPEN's call */
    uint64_t open_us;        /* its latency */
    uint64_t storm_us;       /* OPEN+CLOSE latency of the short opens so far */
    uint32_t opens, short_opens, closes;
    bool deleg;              /* the latest OPEN got a delegation */
};

struct fnd_v4_session { /* a session and the reply size it allows (RFC 8881 §18.36) */
    uint64_t key;            /* op_nfs4.session; 0: empty */
    uint32_t max_resp;       /* fore channel ca_maxresponsesize */
};

struct fnd_v4_recall { /* a delegation being recalled */
    uint64_t sid;            /* op_nfs4.deleg_sid, 0: empty */
    int64_t t_recall;        /* ns: the CB_RECALL's call */
};

/* A file clients hold delegations of (RFC 8881 §10.4): from an OPEN that
 * granted one, or a CB_RECALL answered; a holder leaves at its DELEGRETURN. */
struct fnd_v4_deleg {
    uint64_t file;           /* hash of its handle; 0: empty */
    uint64_t name;           /* hash of a (directory, name) that led to it; 0: none known */
    uint64_t holder[FND_V4_HOLDERS]; /* the holders' client keys; 0: none */
};

struct fnd_v4 {
    /* lock_contention: LOCK / LOCKT COMPOUNDs (RFC 8881 §18.10, §18.11) */
    uint64_t lock, lock_denied, lockt, lockt_denied;
    uint64_t lock_retries;     /* LOCKs after a denial of the same client and file */
    uint64_t granted_after_wait, wait_us, wait_max_us; /* first denial to grant */
    uint64_t nlm_lock, nlm_denied, nlm_test, nlm_test_denied; /* NLM LOCK and TEST */
    unsigned nlocks;
    uint64_t locks_other;      /* denials by locks beyond FND_V4_LOCKS */
    struct fnd_v4_lock locks[FND_V4_LOCKS];
    /* delay_grace_storms: NFS4ERR_DELAY (§15.1.1.3), NFS4ERR_GRACE (§15.1.9.2) */
    uint64_t delay, grace, retried_ok, lost_us, lost_max_us;
    /* stale_state: stateids, client ids, sessions the server no longer knows */
    uint64_t stale[FND_V4_STALE];
    uint64_t recovery, recovery_us; /* recovery COMPOUNDs within the window after one */
    /* session_limits: SEQUENCE (§18.46) */
    uint64_t seq_replies, at_highest, target_below;
    uint32_t max_highest, max_slot;
    uint64_t limits[FND_V4_LIMITS];
    /* REP_TOO_BIG / REP_TOO_BIG_TO_CACHE (§15.1.10.5-6, §2.10.6.4) against the
     * session's ca_maxresponsesize from its CREATE_SESSION */
    uint64_t rtb;             /* those COMPOUNDs */
    uint64_t rtb_unseen;      /* of them, on a session whose CREATE_SESSION the capture lacks */
    uint64_t rtb_reads;       /* of them, READ COMPOUNDs */
    uint64_t rtb_reads_over;  /* READs whose count alone exceeds the session's maximum */
    uint32_t rtb_max_resp;    /* the smallest maximum of those sessions */
    uint32_t rtb_read_max;    /* the largest READ count answered REP_TOO_BIG */
    uint32_t read_ok_max;     /* the largest READ count answered NFS4_OK on a session */
    struct fnd_v4_session sess[FND_V4_SESSIONS];
    /* open_close_storm */
    uint64_t opens, closes, short_opens, storm_files;
    uint64_t deleg[FND_V4_DELEG];  /* OPENs by delegation granted */
    uint64_t why_none[FND_V4_WHY]; /* OPEN_DELEGATE_NONE_EXT by reason */
    /* delegation_recalls: CB_RECALL (RFC 8881 §20.2) to DELEGRETURN (§18.6) */
    uint64_t recalls;              /* CB_COMPOUNDs recalling a delegation (their replies) */
    uint64_t recall_returned, recall_us, recall_max_us; /* returned after the recall */
    uint64_t recall_delays;        /* OPENs answered NFS4ERR_DELAY while another client held a
                                    * delegation of the file (claimed here) */
    uint64_t recall_waited, recall_wait_us, recall_wait_max_us; /* such an opener's first
                                    * DELAYed try to its OPEN granted */
    uint64_t recalls_unanswered;   /* CB_COMPOUNDs recalling a delegation never answered */
    uint64_t deleg_revoked;        /* results NFS4ERR_DELEG_REVOKED */
    uint64_t recallable_revoked;   /* SEQUENCE replies: SEQ4_STATUS_RECALLABLE_STATE_REVOKED */
    struct fnd_v4_recall recall_t[FND_V4_RECALLS];
    struct fnd_v4_deleg deleg_t[FND_V4_DELEGS];
    uint64_t undecoded;            /* COMPOUND replies whose results were not decoded
                                    * (RPCSEC_GSS privacy, cut short): unseen by all this */
    struct fnd_v4_wait waits[FND_V4_WAITS];
    struct fnd_v4_open open_t[FND_V4_OPENS];
};

/* A callback the server sent (the callback program, RFC 8881 §20): a
 * CB_RECALL starts a delegation's recall. */
void findings_nfs4_callback(struct findings *f, const struct op_event *ev);
/* One NFSv4 COMPOUND (findings_wants(ev), ev->pg has an operation table).
 * *unclaimed: its time no finding has claimed yet (findings.h: time by
 * cause); the first rule here that counts the COMPOUND claims it, in the
 * order lock_contention, delegation_recalls (an OPEN answered
 * NFS4ERR_DELAY while another client holds a delegation of the file),
 * delay_grace_storms, stale_state, session_limits, open_close_storm, and
 * sets *unclaimed to 0. An OPEN's time is claimed by its CLOSE when that
 * makes it a short open of a storm. */
void findings_nfs4_record(struct findings *f, const struct op_event *ev, uint64_t *unclaimed);

/* One NLM LOCK or TEST answered in its reply (X/Open XNFS, nlm4_stats): a
 * denied LOCK counts in lock_contention, a denied TEST is evidence. Its
 * latency counts in the time in calls (total_us) that the causes split. */
void findings_nlm_record(struct findings *f, const struct op_event *ev);

/* The statuses counted apart by stale_state and session_limits, in their
 * evidence order. */
extern const uint32_t findings_nfs4_stale_codes[FND_V4_STALE];
extern const uint32_t findings_nfs4_limit_codes[FND_V4_LIMITS];

#endif
