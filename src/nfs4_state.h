/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs4_state.h: NFSv4 state as the wire shows it (RFC 7530 §9, RFC 8881
 * §2.4, §2.10, §8, §10): client ids, sessions and their slots, open, lock
 * and delegation stateids, lease renewals, delegations granted and refused.
 *
 * A pipeline consumer of NFSv4 operations (consumer.h): each call's
 * operations as the call is seen, each result with the call's digest
 * (nfs4.h struct nfs4_op_detail). It follows:
 *   - client ids: SETCLIENTID (4.0, unconfirmed until SETCLIENTID_CONFIRM,
 *     RFC 7530 §16.33-34) and EXCHANGE_ID (4.1, confirmed by its first
 *     CREATE_SESSION, RFC 8881 §18.35-36), DESTROY_CLIENTID; lease renewals
 *     by RENEW (4.0, §16.29) and by SEQUENCE (4.1, RFC 8881 §8.1.3);
 *   - sessions: CREATE_SESSION's fore and back channel limits as granted;
 *     per session the SEQUENCE calls, their errors by status, the highest
 *     slot a call used against the server's highest and target slots, the
 *     slots in flight (a call's slot is busy until its reply; a call on a
 *     busy slot, a retransmission or a reply lost to the capture, is
 *     counted in slot_busy and frees nothing), the SEQ4_STATUS flags the
 *     replies raised (§18.46.3); DESTROY_SESSION;
 *   - stateids by their `other` field (§8.2.2: seqid changes, other does
 *     not): opens (OPEN), locks (LOCK), delegations (OPEN's delegation),
 *     ended by CLOSE, FREE_STATEID, DELEGRETURN;
 *   - delegations granted by type, OPEN_DELEGATE_NONE answers, refusals by
 *     why_no_delegation4 (OPEN_DELEGATE_NONE_EXT, §18.16.3), DELEGRETURNs;
 *   - the state errors any result gave (NFS4ERR_BAD_STATEID, ..._EXPIRED);
 *   - from the callbacks (CB_COMPOUND, either channel): each CB_RECALL of
 *     a delegation granted in the capture, and the time to the DELEGRETURN
 *     that gives it back.
 * Client ids, sessions and stateids are each server's own (RFC 8881 §2.4,
 * §2.10.3, §8.2.1): every table is keyed by the server's address and the
 * identifier, so servers that reuse values stay apart.
 * Each table has a fixed size given at creation, allocated once; when full
 * the least recently used entry is dropped (counted in `evicted`). Nothing
 * is allocated per packet. Single-threaded: one owner, the pipeline. */
#ifndef NFSSCOPE_NFS4_STATE_H
#define NFSSCOPE_NFS4_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "histo.h"
#include "nfs4.h"

#define NFS4_STATE_SLOTS 128   /* slots per session followed in flight (0..127) */
#define NFS4_STATE_STATUS 8    /* error statuses kept per map; the rest in `other` */
#define NFS4_STATE_FLAGS 13    /* SEQ4_STATUS_* bits 0..12 (RFC 8881 §18.46.3) */
#define NFS4_STATE_WHY 9       /* why_no_delegation4 values 0..8 (RFC 8881 §18.16.3) */
#define NFS4_STATE_DELEG 6     /* open_delegation_type4 values 0..5 */

struct nfs4_status_map { /* errors by status, the first NFS4_STATE_STATUS distinct ones */
    uint32_t n;
    uint32_t status[NFS4_STATE_STATUS];
    uint64_t count[NFS4_STATE_STATUS];
    uint64_t other;
};

enum nfs4_client_how { NFS4_CLIENT_SEEN, NFS4_CLIENT_SETCLIENTID, NFS4_CLIENT_EXCHANGE_ID };

struct nfs4_client {
    uint64_t clientid;
    uint8_t af, addr[16];    /* FLOW_AF_*: the client's address (the first seen) */
    uint8_t server[16];      /* the server's (of af), whose client id it is */
    uint8_t how;             /* enum nfs4_client_how */
    uint8_t minor;           /* the minor version it was learned with */
    bool confirmed, destroyed;
    uint32_t sessions;       /* sessions created for it */
    uint64_t renewals;       /* RENEW calls naming it */
    uint64_t sequences;      /* SEQUENCE calls on its sessions */
    uint64_t opens, locks, delegations; /* stateids granted to it */
    struct timespec t_first, t_last;
};

struct nfs4_session {
    uint8_t sessionid[NFS4_SESSIONID_SIZE];
    uint8_t af, server[16];  /* FLOW_AF_*: the server's address, whose session it is */
    uint64_t clientid;
    bool has_clientid, created, destroyed;
    bool has_slot, has_target;
    struct nfs4_chan fore, back; /* as granted (CREATE_SESSION result); 0: not seen */
    uint64_t calls, replies, errors; /* SEQUENCE */
    struct nfs4_status_map status;   /* SEQUENCE errors */
    uint32_t max_slot;        /* highest sa_slotid a call used */
    uint32_t client_highest;  /* highest sa_highest_slotid a call gave */
    uint32_t highest_slotid;  /* highest sr_highest_slotid a reply gave */
    uint32_t target_min, target_max, target_last; /* sr_target_highest_slotid */
    uint32_t in_flight, max_in_flight;
    uint64_t slot_busy;       /* calls on a slot whose previous call had no reply yet */
    uint64_t slots_beyond;    /* calls on slots >= NFS4_STATE_SLOTS (not followed) */
    uint32_t flags;           /* SEQ4_STATUS bits the replies raised */
    uint32_t flag_replies[NFS4_STATE_FLAGS]; /* replies raising each bit */
    uint64_t busy[NFS4_STATE_SLOTS / 64];
    struct timespec t_first, t_last;
};

/* A delegation as granted (for the callbacks: CB_RECALL names its stateid). */
struct nfs4_deleg_info {
    uint32_t type;           /* open_delegation_type4 */
    struct timespec t_granted; /* the OPEN's reply */
    uint8_t af, addr[16];    /* the client it was granted to */
    uint64_t clientid;       /* its clientid, 0: not known */
    bool returning;          /* a DELEGRETURN for it was sent */
    struct timespec t_return; /* when (the call) */
    bool recalled;           /* a CB_RECALL named it (RFC 8881 §20.2) */
    struct timespec t_recall; /* the first one (the call) */
};

struct nfs4_state_stats {
    struct {
        uint64_t setclientid, exchange_id, confirmed, destroyed, evicted;
    } clients;
    struct {
        uint64_t renew, renew_errors, sequence;
        struct nfs4_status_map status; /* RENEW errors */
    } renewals;
    struct {
        uint64_t created, destroyed, evicted;
        uint64_t calls, replies, errors, slot_busy, slots_beyond;
        struct nfs4_status_map status;  /* SEQUENCE errors */
        uint64_t flags[NFS4_STATE_FLAGS]; /* replies raising each SEQ4_STATUS bit */
    } sessions;
    struct {
        uint64_t opens, open_confirms, closes, locks, unlocks, freed, evicted;
        struct nfs4_status_map errors; /* state errors of any result */
    } stateids;
    struct {
        uint64_t granted[NFS4_STATE_DELEG]; /* OPEN results by open_delegation_type4 */
        uint64_t why[NFS4_STATE_WHY], why_other; /* OPEN_DELEGATE_NONE_EXT by reason */
        uint64_t recall;         /* OPEN results with the recall flag (ond_recall/rd_recall) */
        uint64_t delegreturn, returned, return_unknown; /* calls, answered OK, for no
                                                         * delegation granted in the capture */
        struct nfs4_status_map return_errors;
        uint64_t evicted;
    } delegations;
    struct { /* CB_RECALL (RFC 8881 §20.2, RFC 7530 §16.2.2) and the DELEGRETURN it asks for */
        uint64_t calls;      /* CB_RECALL operations sent */
        uint64_t known;      /* naming a delegation granted in the capture (first recall) */
        uint64_t returned;   /* of those, DELEGRETURNs sent after the recall */
        uint64_t pending;    /* recalled, not returned (yet, or before the table dropped it) */
        struct histo to_return; /* first CB_RECALL call to the DELEGRETURN call, us */
    } recalls;
};

struct nfs4_state;

/* NULL on allocation failure or a size 0. */
struct nfs4_state *nfs4_state_new(size_t clients, size_t sessions, size_t stateids,
                                  uint64_t seed);
void nfs4_state_free(struct nfs4_state *st); /* NULL is a no-op */

/* Who and when, for the functions below. */
struct nfs4_state_who {
    uint8_t af, addr[16]; /* the client (the connection's client side) */
    uint8_t server[16];   /* the server (the other side; a callback's sender) */
    struct timespec t;    /* the call (nfs4_state_call) or its reply (nfs4_state_result) */
};

/* One operation of a call as it is seen. */
void nfs4_state_call(struct nfs4_state *st, const struct nfs4_state_who *who,
                     const struct nfs4_op_detail *d);
/* One result (d->res) of a reply, with its call's digest (d->call). */
void nfs4_state_result(struct nfs4_state *st, const struct nfs4_state_who *who,
                       const struct nfs4_op_detail *d, uint32_t index);

/* The consumer (consumer.h consumer_op_fn): NFSv4 operations of calls and
 * replies; a no-op for other programs and when st is NULL. */
struct op_event;
struct op_item;
void nfs4_state_record_op(struct nfs4_state *st, const struct op_event *msg,
                          const struct op_item *op);

const struct nfs4_state_stats *nfs4_state_stats(const struct nfs4_state *st);
/* Entries in each table now. */
size_t nfs4_state_clients_active(const struct nfs4_state *st);
size_t nfs4_state_sessions_active(const struct nfs4_state *st);
/* Stateids in the table now, by kind: 0 open, 1 lock, 2 delegation. */
size_t nfs4_state_stateids_active(const struct nfs4_state *st, unsigned kind);

/* The tables' entries (for the report), up to max, busiest first (SEQUENCE
 * calls; clients: sessions' calls, then renewals), ties in order of first
 * sight; returns how many were written. Borrowed, valid until the next
 * record. */
size_t nfs4_state_sessions(const struct nfs4_state *st, const struct nfs4_session **out, size_t max);
size_t nfs4_state_clients(const struct nfs4_state *st, const struct nfs4_client **out, size_t max);

/* The delegation the server (af, server) granted whose stateid has this
 * `other` (RFC 8881 §8.2.2), if it was granted in the capture and is still
 * held (not returned with success, not evicted): true and *out filled. */
bool nfs4_state_delegation(const struct nfs4_state *st, uint8_t af, const uint8_t server[16],
                           const uint8_t other[12], struct nfs4_deleg_info *out);

/* Add src's counts to dst's and its clients, sessions and stateids to dst's
 * tables (the shards of one run, pipeline.h): an entry both hold adds its
 * counts and keeps the first-seen one's identity; ties in the report's order
 * are by first sight, the frame that showed the entry. */
void nfs4_state_merge(struct nfs4_state *dst, const struct nfs4_state *src);

/* Names: "SEQ4_STATUS_CB_PATH_DOWN" for bit 0 ...; NULL past the table. */
const char *nfs4_seq_flag_name(unsigned bit);

#endif
