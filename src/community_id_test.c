/* SPDX-License-Identifier: BSD-3-Clause */
/* community_id_test.c: the spec's published baseline values
 * (corelight/community-id-spec, baseline/README.md "Default settings" and
 * "A custom seed=1 value", and baseline/baseline_deflt.json), each flow in
 * both directions. */
#include "community_id.h"

#include <arpa/inet.h>
#include <string.h>

#include "t.h"

static struct flow_key
key(int af, const char *s, const char *d, uint16_t sp, uint16_t dp, uint8_t proto)
{
    struct flow_key k;

    memset(&k, 0, sizeof k);
    k.af = (uint8_t)af;
    CHECK(inet_pton(af == FLOW_AF_INET6 ? AF_INET6 : AF_INET, s, k.saddr) == 1);
    CHECK(inet_pton(af == FLOW_AF_INET6 ? AF_INET6 : AF_INET, d, k.daddr) == 1);
    k.sport = sp;
    k.dport = dp;
    k.proto = proto;
    return k;
}

static void
both_ways(int af, const char *s, const char *d, uint16_t sp, uint16_t dp, uint8_t proto,
          uint16_t seed, const char *want)
{
    struct flow_key k = key(af, s, d, sp, dp, proto), r = flow_key_reverse(&k);
    char id[COMMUNITY_ID_LEN];

    community_id_v1(&k, seed, id);
    STREQ(id, want);
    community_id_v1(&r, seed, id);
    STREQ(id, want);
    CHECK(strlen(id) == COMMUNITY_ID_LEN - 1);
}

int
main(void)
{
    const int v4 = FLOW_AF_INET, v6 = FLOW_AF_INET6;

    /* baseline/README.md, default settings (seed 0) and seed=1 */
    both_ways(v4, "1.2.3.4", "5.6.7.8", 1122, 3344, 6, 0, "1:wCb3OG7yAFWelaUydu0D+125CLM=");
    both_ways(v4, "1.2.3.4", "5.6.7.8", 1122, 3344, 17, 0, "1:0Mu9InQx6z4ZiCZM/7HXi2WMhOg=");
    both_ways(v4, "1.2.3.4", "5.6.7.8", 1122, 3344, 132, 0, "1:EKt4MsxuyaE6mL+hmrEkQ9csDD8=");
    both_ways(v4, "1.2.3.4", "5.6.7.8", 1122, 3344, 6, 1, "1:HhA1B+6CoLbiKPEs5nhNYN4XWfk=");
    both_ways(v4, "1.2.3.4", "5.6.7.8", 1122, 3344, 17, 1, "1:OShq+iKDAMVouh/4bMxB9Sz4amw=");
    /* baseline/baseline_deflt.json: IPv6, and the larger address first */
    both_ways(v6, "2001:470:e5bf:dead:4957:2174:e82c:4887", "2607:f8b0:400c:c03::1a", 63943, 25,
              6, 0, "1:/qFaeAR+gFe1KYjMzVDsMv+wgU4=");
    both_ways(v4, "128.232.110.120", "66.35.250.204", 34855, 80, 6, 0,
              "1:LQU9qZlK+B5F3KDmev6m5PMibrg=");
    both_ways(v4, "192.168.1.52", "8.8.8.8", 54585, 53, 17, 0, "1:d/FP5EW3wiY1vCndhwleRRKHowQ=");
    both_ways(v4, "192.168.170.8", "192.168.170.56", 7, 7, 132, 0,
              "1:MP2EtRCAUIZvTw6MxJHLV7N7JDs=");
    /* equal addresses: the ports decide (checked against the Python
     * recomputation of the spec, tests/e2e_records.py's) */
    {
        struct flow_key a = key(v4, "10.0.0.1", "10.0.0.1", 2049, 800, 6);
        struct flow_key b = flow_key_reverse(&a);
        char x[COMMUNITY_ID_LEN], y[COMMUNITY_ID_LEN];

        community_id_v1(&a, 0, x);
        community_id_v1(&b, 0, y);
        STREQ(x, y);
        STREQ(x, "1:kb/NGH9T/HzEqi9spb1eiHzCROY=");
    }
    return t_done();
}
