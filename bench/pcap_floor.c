/* SPDX-License-Identifier: BSD-3-Clause */
/* pcap_floor: the cost of just reading a capture with libpcap.
 *
 * Reads every packet with pcap_next_ex(), adds up caplen and the wire
 * length, and prints packets, captured bytes and wire bytes. This is the
 * floor nfsscope is measured against in bench/run: libpcap's own read
 * (fread into its buffer) is the only pass over the data.
 *
 * usage: pcap_floor FILE [--touch-headers | --touch-all] [--buffer KIB]
 *   --touch-headers  also read the first 64 bytes of each packet (what any
 *                    header parser needs at least)
 *   --touch-all      also read every captured byte (a 64-bit sum), i.e. one
 *                    more pass over the data, as a full dissector makes
 *   --buffer KIB     give the FILE a stdio buffer of KIB KiB, as nfsscope
 *                    does (256); without it, pcap_open_offline() as most
 *                    tools call it, and glibc reads 4 KiB per system call
 */
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(int argc, char **argv)
{
    char err[PCAP_ERRBUF_SIZE];
    struct pcap_pkthdr *h;
    const u_char *d;
    uint64_t pkts = 0, cap = 0, wire = 0, sum = 0;
    uint32_t touch = 0; /* bytes of each packet to read */
    unsigned long buf_kib = 0;
    char *buf = NULL;
    int rc, i;
    pcap_t *p;

    if (argc < 2) {
        fprintf(stderr, "usage: pcap_floor FILE [--touch-headers | --touch-all] [--buffer KIB]\n");
        return 2;
    }
    for (i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--touch-headers") == 0) {
            touch = 64;
        } else if (strcmp(argv[i], "--touch-all") == 0) {
            touch = UINT32_MAX;
        } else if (strcmp(argv[i], "--buffer") == 0 && i + 1 < argc) {
            buf_kib = strtoul(argv[++i], NULL, 10);
            if (buf_kib == 0 || buf_kib > (1ul << 20)) {
                fprintf(stderr, "pcap_floor: --buffer: 1 to 1048576 KiB\n");
                return 2;
            }
        } else {
            fprintf(stderr, "pcap_floor: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (buf_kib) {
        FILE *fp = fopen(argv[1], "rb");

        buf = malloc(buf_kib << 10);
        if (!fp || !buf) {
            fprintf(stderr, "pcap_floor: %s: cannot open\n", argv[1]);
            return 1;
        }
        setvbuf(fp, buf, _IOFBF, buf_kib << 10);
        p = pcap_fopen_offline(fp, err);
    } else {
        p = pcap_open_offline(argv[1], err);
    }
    if (!p) {
        fprintf(stderr, "pcap_floor: %s\n", err);
        return 1;
    }
    while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
        uint32_t n = h->caplen < touch ? h->caplen : touch, i = 0;
        for (; i + 8 <= n; i += 8) {
            uint64_t w;
            memcpy(&w, d + i, 8);
            sum += w;
        }
        for (; i < n; i++)
            sum += d[i];
        pkts++;
        cap += h->caplen;
        wire += h->len;
    }
    if (rc == -1) {
        fprintf(stderr, "pcap_floor: %s\n", pcap_geterr(p));
        pcap_close(p);
        return 1;
    }
    pcap_close(p);
    free(buf);
    printf("packets %llu caplen_bytes %llu wire_bytes %llu checksum %016llx\n",
           (unsigned long long)pkts, (unsigned long long)cap, (unsigned long long)wire,
           (unsigned long long)sum);
    return 0;
}
