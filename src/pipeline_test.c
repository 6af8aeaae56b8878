/* SPDX-License-Identifier: BSD-3-Clause */
/* pipeline_test.c: the shard of a packet (pipeline_shard_of): both
 * directions and every fragment of a datagram in one shard; one client's
 * connections to several servers spread over the shards (what the e2e
 * test e2e_shards.py builds); short and non-IP headers in shard 0. */
#include "pipeline.h"

#include <string.h>

#include "decode_link.h"
#include "t.h"

/* An IPv4 header (RFC 791 §3.1) from a to b; frag: a fragment after the
 * first (offset 185, no transport header). */
static struct l3_view
v4(uint8_t *buf, const uint8_t a[4], const uint8_t b[4], int frag)
{
    struct l3_view l;

    memset(buf, 0, 28);
    buf[0] = 0x45;
    buf[9] = 17;
    if (frag) {
        buf[6] = 0;
        buf[7] = 185;
    }
    memcpy(buf + 12, a, 4);
    memcpy(buf + 16, b, 4);
    memset(&l, 0, sizeof l);
    l.kind = L3_IPV4;
    l.l3.p = buf;
    l.l3.len = 28;
    l.l3_wirelen = 28;
    return l;
}

int
main(void)
{
    static const uint8_t client[4] = { 10, 9, 0, 1 };
    uint8_t buf[28], buf2[28], six[40];
    struct l3_view l, r;
    unsigned n, s;

    for (n = 2; n <= 4; n++) {
        unsigned seen = 0;

        for (s = 1; s <= 8; s++) { /* the servers of e2e_shards.py */
            uint8_t server[4] = { 10, 9, 1, (uint8_t)s };
            unsigned k;

            l = v4(buf, client, server, 0);
            r = v4(buf2, server, client, 1);
            k = pipeline_shard_of(&l, n);
            CHECK(k < n);
            EQ(pipeline_shard_of(&r, n), k); /* the reply, a later fragment */
            seen |= 1u << k;
        }
        CHECK(seen != 0 && (seen & (seen - 1)) != 0); /* at least two shards */
    }
    l = v4(buf, client, client, 0);
    l.l3.len = 19; /* the destination cut short */
    EQ(pipeline_shard_of(&l, 4), 0);
    l.kind = L3_NONE;
    l.l3.len = 28;
    EQ(pipeline_shard_of(&l, 4), 0);
    memset(six, 0, sizeof six); /* IPv6 (RFC 8200 §3): addresses at 8 and 24 */
    six[0] = 0x60;
    six[23] = 1;
    six[39] = 2;
    l.kind = L3_IPV6;
    l.l3.p = six;
    l.l3.len = 40;
    s = pipeline_shard_of(&l, 3);
    six[23] = 2;
    six[39] = 1;
    EQ(pipeline_shard_of(&l, 3), s);
    l.l3.len = 39;
    EQ(pipeline_shard_of(&l, 3), 0);
    return t_done();
}
