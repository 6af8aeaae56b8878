/* SPDX-License-Identifier: BSD-3-Clause */
/* rpc_tls.h: RPC-over-TLS connections (RFC 9289).
 *
 * A client asks for TLS with an AUTH_TLS NULL call (credential flavor 7); a
 * server that agrees answers with the verifier AUTH_NONE "STARTTLS" (§4.1),
 * and from then on the connection carries TLS records (RFC 8446 §5.1:
 * content type, legacy version, 16-bit length, then the fragment), not RPC
 * record marks: its calls and replies are encrypted. Those bytes are counted
 * per connection and in total, never parsed as RPC. Fixed size: the first
 * RPC_TLS_CONNS connections are listed, the rest counted together. */
#ifndef NFSSCOPE_RPC_TLS_H
#define NFSSCOPE_RPC_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "flow_key.h"

#define RPC_TLS_CONNS 64

/* One direction's place in its TLS records, kept in the flow. */
struct rpc_tls_half {
    uint32_t left;    /* bytes left in the current record's fragment */
    uint8_t hdr[5];   /* a record header split across chunks */
    uint8_t have;     /* bytes of hdr so far */
    bool lost;        /* bytes were lost: record boundaries are no longer known */
};

/* Per connection: [0] client to server, [1] server to client. */
struct rpc_tls_conn {
    struct flow_key key;    /* as the flow first saw it */
    uint8_t client_dir;     /* flow direction from the client */
    struct timespec t_start; /* the STARTTLS reply */
    uint64_t bytes[2];      /* TLS bytes (headers included) */
    uint64_t records[2];    /* records that started (while boundaries were known) */
    uint64_t lost_bytes[2]; /* bytes missing from the capture (TCP holes) */
};

struct rpc_tls {
    uint64_t connections;   /* that switched to TLS */
    uint64_t bytes, records, lost_bytes; /* all of them */
    uint32_t n;             /* listed in c[] */
    struct rpc_tls_conn c[RPC_TLS_CONNS];
};

/* A connection switched to TLS at t (the STARTTLS reply); returns its index
 * in c[], or RPC_TLS_CONNS when not listed (the table is full). */
unsigned rpc_tls_start(struct rpc_tls *t, const struct flow_key *key, unsigned client_dir,
                       const struct timespec *at);

/* n stream bytes of the connection `idx` (rpc_tls_start), travelling in flow
 * direction dir; h is that direction's record state. */
void rpc_tls_data(struct rpc_tls *t, unsigned idx, unsigned dir, struct rpc_tls_half *h,
                  const uint8_t *p, size_t n);

/* n bytes of that stream are missing: counted, and the record boundaries lost. */
void rpc_tls_gap(struct rpc_tls *t, unsigned idx, unsigned dir, struct rpc_tls_half *h,
                 uint64_t n);

/* Add src's counts to dst's and its listed connections, in order of their
 * STARTTLS replies, while dst has room (the shards of one run). */
void rpc_tls_merge(struct rpc_tls *dst, const struct rpc_tls *src);
/* The connection's client and server addresses (printable, inet_ntop) and
 * ports. */
void rpc_tls_conn_ends(const struct rpc_tls_conn *c, char *client, char *server, size_t sz,
                       uint16_t *client_port, uint16_t *server_port);

#endif
