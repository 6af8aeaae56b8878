/* SPDX-License-Identifier: BSD-3-Clause */
/* reconnects.c: reconnects per client (see reconnects.h). */
#include "reconnects.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow_key.h"

void
reconnects_add(struct reconnects *r, uint8_t af, const uint8_t addr[16])
{
    uint32_t i;

    r->total++;
    for (i = 0; i < r->n; i++)
        if (r->c[i].af == af && memcmp(r->c[i].addr, addr, 16) == 0) {
            r->c[i].count++;
            return;
        }
    if (r->n == RECONNECT_CLIENTS) {
        r->other++;
        return;
    }
    r->c[r->n].af = af;
    memcpy(r->c[r->n].addr, addr, 16);
    r->c[r->n].count = 1;
    r->n++;
}

void
reconnects_merge(struct reconnects *dst, const struct reconnects *src)
{
    uint32_t i, j;

    dst->total += src->total;
    dst->other += src->other;
    for (i = 0; i < src->n; i++) {
        const struct reconnect_client *c = &src->c[i];

        for (j = 0; j < dst->n; j++)
            if (dst->c[j].af == c->af && memcmp(dst->c[j].addr, c->addr, 16) == 0)
                break;
        if (j < dst->n)
            dst->c[j].count += c->count;
        else if (dst->n == RECONNECT_CLIENTS)
            dst->other += c->count;
        else
            dst->c[dst->n++] = *c;
    }
}

static int
by_count(const void *a, const void *b)
{
    const struct reconnect_client *x = *(const struct reconnect_client *const *)a;
    const struct reconnect_client *y = *(const struct reconnect_client *const *)b;

    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    if (x->af != y->af)
        return x->af < y->af ? -1 : 1;
    return memcmp(x->addr, y->addr, 16);
}

size_t
reconnects_top(const struct reconnects *r, const struct reconnect_client **out, size_t n)
{
    size_t k = 0;

    for (uint32_t i = 0; i < r->n; i++)
        out[k++] = &r->c[i];
    qsort(out, k, sizeof *out, by_count);
    return k < n ? k : n;
}

void
reconnect_client_addr(const struct reconnect_client *c, char *buf, size_t sz)
{
    char tmp[INET6_ADDRSTRLEN] = "?";

    if (!inet_ntop(c->af == FLOW_AF_INET6 ? AF_INET6 : AF_INET, c->addr, tmp, sizeof tmp))
        snprintf(tmp, sizeof tmp, "?");
    snprintf(buf, sz, "%s", tmp);
}
