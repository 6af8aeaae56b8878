/* SPDX-License-Identifier: BSD-3-Clause */
/* decode_link_test.c: unit tests for decode_link.c on hand-annotated frames. */
#include "decode_link.h"

#include <pcap/pcap.h>
#include <stdlib.h>

#include "t.h"

/* Start of an IPv4 header (enough for link tests: version nibble matters). */
#define IPV4_START 0x45, 0x00, 0x00, 0x14
#define IPV6_START 0x60, 0x00, 0x00, 0x00

static const uint8_t eth_ipv4[] = {
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, /* dst MAC */
    0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, /* src MAC */
    0x08, 0x00,                         /* EtherType IPv4 */
    IPV4_START,                         /* IP header begins */
};

static const uint8_t eth_vlan_ipv6[] = {
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, /* dst MAC */
    0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, /* src MAC */
    0x81, 0x00,                         /* TPID 802.1Q */
    0x20, 0x64,                         /* TCI: PCP 1, VID 100 */
    0x86, 0xdd,                         /* EtherType IPv6 */
    IPV6_START,
};

static const uint8_t eth_qinq_ipv4[] = {
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, /* dst MAC */
    0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, /* src MAC */
    0x88, 0xa8,                         /* TPID 802.1ad S-tag */
    0x00, 0x0a,                         /* TCI: VID 10 */
    0x81, 0x00,                         /* TPID 802.1Q C-tag */
    0x0f, 0xff,                         /* TCI: VID 4095 */
    0x08, 0x00,                         /* EtherType IPv4 */
    IPV4_START,
};

static const uint8_t eth_9100_ipv4[] = {
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, /* dst MAC */
    0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, /* src MAC */
    0x91, 0x00,                         /* TPID pre-standard QinQ */
    0x01, 0x2c,                         /* TCI: VID 300 */
    0x08, 0x00,                         /* EtherType IPv4 */
    IPV4_START,
};

static const uint8_t eth_8023[] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x00, /* dst MAC (STP) */
    0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, /* src MAC */
    0x00, 0x26,                         /* 802.3 length 38 */
    0x42, 0x42, 0x03,                   /* LLC */
};

static const uint8_t eth_arp[] = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* dst MAC broadcast */
    0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, /* src MAC */
    0x08, 0x06,                         /* EtherType ARP */
    0x00, 0x01, 0x08, 0x00,             /* ARP htype, ptype */
};

static const uint8_t sll_ipv4[] = {
    0x00, 0x00,                                     /* packet type: to us */
    0x00, 0x01,                                     /* ARPHRD_ETHER */
    0x00, 0x06,                                     /* address length */
    0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0x00, 0x00, /* address + pad */
    0x08, 0x00,                                     /* protocol IPv4 */
    IPV4_START,
};

static const uint8_t sll_vlan_ipv6[] = {
    0x00, 0x04,                                     /* packet type: outgoing */
    0x00, 0x01,                                     /* ARPHRD_ETHER */
    0x00, 0x06,                                     /* address length */
    0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0x00, 0x00, /* address + pad */
    0x81, 0x00,                                     /* protocol: 802.1Q */
    0x00, 0x07,                                     /* TCI: VID 7 */
    0x86, 0xdd,                                     /* EtherType IPv6 */
    IPV6_START,
};

static const uint8_t sll2_ipv6[] = {
    0x86, 0xdd,                                     /* protocol IPv6 */
    0x00, 0x00,                                     /* reserved */
    0x00, 0x00, 0x00, 0x02,                         /* interface index */
    0x00, 0x01,                                     /* ARPHRD_ETHER */
    0x00,                                           /* packet type */
    0x06,                                           /* address length */
    0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0x00, 0x00, /* address + pad */
    IPV6_START,
};

static const uint8_t sll2_arp[] = {
    0x08, 0x06,                                     /* protocol ARP */
    0x00, 0x00,                                     /* reserved */
    0x00, 0x00, 0x00, 0x02,                         /* interface index */
    0x00, 0x01,                                     /* ARPHRD_ETHER */
    0x00,                                           /* packet type */
    0x06,                                           /* address length */
    0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0x00, 0x00, /* address + pad */
    0x00, 0x01,
};

static const uint8_t raw_ipv4[] = { IPV4_START, 0x00, 0x00 };
static const uint8_t raw_ipv6[] = { IPV6_START, 0x00, 0x00 };
static const uint8_t raw_bad[] = { 0x55, 0x00, 0x00, 0x14 }; /* version 5 */

/* Decode `len` bytes copied into an exactly-sized heap buffer, so ASan sees any over-read. */
static enum decode_rc
decode_exact(int dlt, const uint8_t *frame, size_t len, uint32_t wirelen, struct l3_view *v)
{
    uint8_t *buf = malloc(len ? len : 1);
    enum decode_rc rc;

    if (!buf)
        return DECODE_INVALID;
    if (len)
        memcpy(buf, frame, len);
    rc = link_decode(dlt, buf, (uint32_t)len, wirelen, v);
    if (rc == DECODE_OK && v->l3.len)
        CHECK(v->l3.p >= buf && v->l3.p + v->l3.len <= buf + len);
    free(buf);
    return rc;
}

/* Every caplen shorter than the link header is TRUNCATED, without a crash. */
static void
check_truncation(int dlt, const uint8_t *frame, size_t hdr)
{
    struct l3_view v;

    for (size_t n = 0; n < hdr; n++) {
        enum decode_rc rc = decode_exact(dlt, frame, n, 1500, &v);

        EQ(rc, DECODE_TRUNCATED);
        EQ(v.kind, L3_NONE);
    }
}

static void
test_ethernet(void)
{
    struct l3_view v;

    EQ(link_decode(DLT_EN10MB, eth_ipv4, sizeof eth_ipv4, 60, &v), DECODE_OK);
    EQ(v.kind, L3_IPV4);
    CHECK(v.l3.p == eth_ipv4 + 14);
    EQ(v.l3.len, sizeof eth_ipv4 - 14);
    EQ(v.l3_wirelen, 60 - 14);
    EQ(v.vlan_depth, 0);
    EQ(v.vlan_outer, 0);

    EQ(link_decode(DLT_EN10MB, eth_vlan_ipv6, sizeof eth_vlan_ipv6, 100, &v), DECODE_OK);
    EQ(v.kind, L3_IPV6);
    CHECK(v.l3.p == eth_vlan_ipv6 + 18);
    EQ(v.l3_wirelen, 100 - 18);
    EQ(v.vlan_depth, 1);
    EQ(v.vlan_outer, 100);

    EQ(link_decode(DLT_EN10MB, eth_qinq_ipv4, sizeof eth_qinq_ipv4, 200, &v), DECODE_OK);
    EQ(v.kind, L3_IPV4);
    CHECK(v.l3.p == eth_qinq_ipv4 + 22);
    EQ(v.l3.len, 4);
    EQ(v.vlan_depth, 2);
    EQ(v.vlan_outer, 10);

    EQ(link_decode(DLT_EN10MB, eth_9100_ipv4, sizeof eth_9100_ipv4, 64, &v), DECODE_OK);
    EQ(v.kind, L3_IPV4);
    EQ(v.vlan_outer, 300);
    EQ(v.vlan_depth, 1);

    EQ(link_decode(DLT_EN10MB, eth_8023, sizeof eth_8023, 60, &v), DECODE_UNSUPPORTED);
    EQ(link_decode(DLT_EN10MB, eth_arp, sizeof eth_arp, 60, &v), DECODE_UNSUPPORTED);
    EQ(link_anomaly(DECODE_UNSUPPORTED), ANOM_LINK_OTHER);

    check_truncation(DLT_EN10MB, eth_ipv4, 14);
    check_truncation(DLT_EN10MB, eth_vlan_ipv6, 18);
    check_truncation(DLT_EN10MB, eth_qinq_ipv4, 22);
}

static void
test_vlan_depth_bound(void)
{
    uint8_t f[14 + 4 * 9 + 4];
    struct l3_view v;
    size_t n = 12;

    memset(f, 0, sizeof f);
    for (unsigned t = 0; t < 9; t++) {
        f[n++] = 0x81; /* TPID 802.1Q */
        f[n++] = 0x00;
        f[n++] = 0x00; /* TCI */
        f[n++] = (uint8_t)(t + 1);
    }
    f[n++] = 0x08; /* EtherType IPv4 */
    f[n++] = 0x00;
    f[n++] = 0x45;
    EQ(link_decode(DLT_EN10MB, f, (uint32_t)n, (uint32_t)n, &v), DECODE_INVALID);
    EQ(link_anomaly(DECODE_INVALID), ANOM_LINK_MALFORMED);

    /* Eight tags are fine. */
    memmove(f + 12, f + 16, n - 16);
    n -= 4;
    EQ(link_decode(DLT_EN10MB, f, (uint32_t)n, (uint32_t)n, &v), DECODE_OK);
    EQ(v.vlan_depth, 8);
    EQ(v.vlan_outer, 2);
}

static void
test_cooked(void)
{
    struct l3_view v;

    EQ(link_decode(DLT_LINUX_SLL, sll_ipv4, sizeof sll_ipv4, 80, &v), DECODE_OK);
    EQ(v.kind, L3_IPV4);
    CHECK(v.l3.p == sll_ipv4 + 16);
    EQ(v.l3_wirelen, 64);

    EQ(link_decode(DLT_LINUX_SLL, sll_vlan_ipv6, sizeof sll_vlan_ipv6, 80, &v), DECODE_OK);
    EQ(v.kind, L3_IPV6);
    CHECK(v.l3.p == sll_vlan_ipv6 + 20);
    EQ(v.vlan_outer, 7);

    EQ(link_decode(DLT_LINUX_SLL2, sll2_ipv6, sizeof sll2_ipv6, 90, &v), DECODE_OK);
    EQ(v.kind, L3_IPV6);
    CHECK(v.l3.p == sll2_ipv6 + 20);
    EQ(v.l3_wirelen, 70);
    EQ(link_decode(DLT_LINUX_SLL2, sll2_arp, sizeof sll2_arp, 90, &v), DECODE_UNSUPPORTED);

    check_truncation(DLT_LINUX_SLL, sll_ipv4, 16);
    check_truncation(DLT_LINUX_SLL, sll_vlan_ipv6, 20);
    check_truncation(DLT_LINUX_SLL2, sll2_ipv6, 20);
}

static void
test_raw(void)
{
    struct l3_view v;
    const int raw_dlts[] = { DLT_RAW, 101, 14 };

    for (size_t i = 0; i < sizeof raw_dlts / sizeof raw_dlts[0]; i++) {
        EQ(link_decode(raw_dlts[i], raw_ipv4, sizeof raw_ipv4, 20, &v), DECODE_OK);
        EQ(v.kind, L3_IPV4);
        CHECK(v.l3.p == raw_ipv4);
        EQ(v.l3.len, sizeof raw_ipv4);
        EQ(v.l3_wirelen, 20);
        EQ(link_decode(raw_dlts[i], raw_ipv6, sizeof raw_ipv6, 40, &v), DECODE_OK);
        EQ(v.kind, L3_IPV6);
        EQ(link_decode(raw_dlts[i], raw_bad, sizeof raw_bad, 20, &v), DECODE_INVALID);
        EQ(decode_exact(raw_dlts[i], raw_ipv4, 0, 20, &v), DECODE_TRUNCATED);
    }
    EQ(link_decode(DLT_IPV4, raw_ipv4, sizeof raw_ipv4, 20, &v), DECODE_OK);
    EQ(v.kind, L3_IPV4);
    EQ(link_decode(DLT_IPV6, raw_ipv6, sizeof raw_ipv6, 40, &v), DECODE_OK);
    EQ(v.kind, L3_IPV6);
    /* DLT_IPV4 with nothing captured: the IP layer reports the truncation. */
    EQ(decode_exact(DLT_IPV4, raw_ipv4, 0, 20, &v), DECODE_OK);
    EQ(v.l3.len, 0);
    EQ(v.l3_wirelen, 20);
}

static void
test_null_loop(void)
{
    static const struct {
        uint8_t af[4];
        enum l3_kind kind;
    } cases[] = {
        { { 0x02, 0x00, 0x00, 0x00 }, L3_IPV4 }, /* AF_INET, little-endian host */
        { { 0x00, 0x00, 0x00, 0x02 }, L3_IPV4 }, /* AF_INET, network order */
        { { 0x18, 0x00, 0x00, 0x00 }, L3_IPV6 }, /* 24: NetBSD/OpenBSD AF_INET6, LE */
        { { 0x00, 0x00, 0x00, 0x18 }, L3_IPV6 }, /* 24, BE */
        { { 0x1c, 0x00, 0x00, 0x00 }, L3_IPV6 }, /* 28: FreeBSD, LE */
        { { 0x00, 0x00, 0x00, 0x1c }, L3_IPV6 }, /* 28, BE */
        { { 0x1e, 0x00, 0x00, 0x00 }, L3_IPV6 }, /* 30: Darwin, LE */
        { { 0x00, 0x00, 0x00, 0x1e }, L3_IPV6 }, /* 30, BE */
    };
    const int dlts[] = { DLT_NULL, DLT_LOOP };
    struct l3_view v;

    for (size_t d = 0; d < 2; d++) {
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            uint8_t f[8];

            memcpy(f, cases[i].af, 4);
            memcpy(f + 4, cases[i].kind == L3_IPV4 ? raw_ipv4 : raw_ipv6, 4);
            EQ(link_decode(dlts[d], f, sizeof f, 44, &v), DECODE_OK);
            EQ(v.kind, cases[i].kind);
            CHECK(v.l3.p == f + 4);
            EQ(v.l3_wirelen, 40);
        }
        {
            const uint8_t other[8] = { 0x07, 0, 0, 0, 0x45, 0, 0, 0 }; /* AF 7: not IP */
            EQ(link_decode(dlts[d], other, sizeof other, 8, &v), DECODE_UNSUPPORTED);
        }
        check_truncation(dlts[d], (const uint8_t[]){ 0x02, 0x00, 0x00, 0x00 }, 4);
    }
}

static void
test_misc(void)
{
    struct l3_view v;

    CHECK(link_supported(DLT_EN10MB));
    CHECK(link_supported(DLT_LINUX_SLL));
    CHECK(link_supported(DLT_LINUX_SLL2));
    CHECK(link_supported(DLT_RAW));
    CHECK(link_supported(101));
    CHECK(link_supported(DLT_IPV4));
    CHECK(link_supported(DLT_IPV6));
    CHECK(link_supported(DLT_NULL));
    CHECK(link_supported(DLT_LOOP));
    CHECK(!link_supported(DLT_IEEE802_11));
    STREQ(link_name(DLT_EN10MB), "EN10MB");
    STREQ(link_name(DLT_LINUX_SLL2), "LINUX_SLL2");
    STREQ(link_name(101), "RAW");
    STREQ(link_name(123456), "unknown");
    EQ(link_decode(DLT_IEEE802_11, eth_ipv4, sizeof eth_ipv4, 60, &v), DECODE_UNSUPPORTED);
    EQ(link_decode(DLT_EN10MB, NULL, 0, 0, &v), DECODE_TRUNCATED);
    EQ(link_anomaly(DECODE_TRUNCATED), ANOM_PKT_TRUNCATED);

    /* caplen > wirelen (broken capture): the captured bytes win. */
    EQ(link_decode(DLT_EN10MB, eth_ipv4, sizeof eth_ipv4, 10, &v), DECODE_OK);
    EQ(v.l3_wirelen, sizeof eth_ipv4 - 14);
}

int
main(void)
{
    test_ethernet();
    test_vlan_depth_bound();
    test_cooked();
    test_raw();
    test_null_loop();
    test_misc();
    return t_done();
}
