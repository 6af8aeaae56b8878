/* SPDX-License-Identifier: BSD-3-Clause */
/* rpc_tls.c: RPC-over-TLS connections (RFC 9289) and their TLS records. */
#include "rpc_tls.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

unsigned
rpc_tls_start(struct rpc_tls *t, const struct flow_key *key, unsigned client_dir,
              const struct timespec *at)
{
    struct rpc_tls_conn *c;

    t->connections++;
    if (t->n == RPC_TLS_CONNS)
        return RPC_TLS_CONNS;
    c = &t->c[t->n];
    memset(c, 0, sizeof *c);
    c->key = *key;
    c->client_dir = (uint8_t)client_dir;
    c->t_start = *at;
    return t->n++;
}

/* [0] client to server, [1] server to client, of flow direction dir. */
static unsigned
side(const struct rpc_tls *t, unsigned idx, unsigned dir)
{
    return idx < t->n && dir != t->c[idx].client_dir;
}

void
rpc_tls_data(struct rpc_tls *t, unsigned idx, unsigned dir, struct rpc_tls_half *h,
             const uint8_t *p, size_t n)
{
    uint64_t records = 0;
    size_t pos = 0;

    t->bytes += n;
    /* TLSPlaintext/TLSCiphertext (RFC 8446 §5.1, RFC 5246 §6.2): type(1),
     * legacy_record_version(2), length(2), then length bytes. */
    while (!h->lost && pos < n) {
        size_t take;

        if (h->left == 0) {
            while (h->have < 5 && pos < n)
                h->hdr[h->have++] = p[pos++];
            if (h->have < 5)
                break;
            h->have = 0;
            h->left = (uint32_t)h->hdr[3] << 8 | h->hdr[4];
            records++;
            continue;
        }
        take = n - pos < h->left ? n - pos : h->left;
        h->left -= (uint32_t)take;
        pos += take;
    }
    t->records += records;
    if (idx < t->n) {
        unsigned s = side(t, idx, dir);

        t->c[idx].bytes[s] += n;
        t->c[idx].records[s] += records;
    }
}

void
rpc_tls_gap(struct rpc_tls *t, unsigned idx, unsigned dir, struct rpc_tls_half *h, uint64_t n)
{
    t->lost_bytes += n;
    if (!h->lost && h->have == 0 && n <= h->left)
        h->left -= (uint32_t)n; /* inside one record: its end is still known */
    else
        h->lost = true;
    if (idx < t->n)
        t->c[idx].lost_bytes[side(t, idx, dir)] += n;
}

static void
addr(uint8_t af, const uint8_t *a, char *buf, size_t sz)
{
    char tmp[64];

    if (!inet_ntop(af == FLOW_AF_INET6 ? AF_INET6 : AF_INET, a, tmp, sizeof tmp))
        snprintf(tmp, sizeof tmp, "?");
    snprintf(buf, sz, "%s", tmp);
}

void
rpc_tls_conn_ends(const struct rpc_tls_conn *c, char *client, char *server, size_t sz,
                  uint16_t *client_port, uint16_t *server_port)
{
    const struct flow_key *k = &c->key;
    bool fwd = c->client_dir == 0; /* the key's source is the client */

    addr(k->af, fwd ? k->saddr : k->daddr, client, sz);
    addr(k->af, fwd ? k->daddr : k->saddr, server, sz);
    *client_port = fwd ? k->sport : k->dport;
    *server_port = fwd ? k->dport : k->sport;
}

static bool
started_before(const struct rpc_tls_conn *a, const struct rpc_tls_conn *b)
{
    return a->t_start.tv_sec < b->t_start.tv_sec ||
           (a->t_start.tv_sec == b->t_start.tv_sec && a->t_start.tv_nsec < b->t_start.tv_nsec);
}

void
rpc_tls_merge(struct rpc_tls *dst, const struct rpc_tls *src)
{
    uint32_t i;

    dst->connections += src->connections;
    dst->bytes += src->bytes;
    dst->records += src->records;
    dst->lost_bytes += src->lost_bytes;
    for (i = 0; i < src->n && dst->n < RPC_TLS_CONNS; i++) { /* in order of their start */
        uint32_t j = dst->n++;

        while (j > 0 && started_before(&src->c[i], &dst->c[j - 1])) {
            dst->c[j] = dst->c[j - 1];
            j--;
        }
        dst->c[j] = src->c[i];
    }
}
