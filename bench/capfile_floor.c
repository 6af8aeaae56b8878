/* SPDX-License-Identifier: BSD-3-Clause */
/* capfile_floor: the cost of just reading a capture with nfsscope's own
 * reader (src/capfile.c), as pcap_floor.c measures libpcap's: every packet
 * read, caplen and the wire length added up, nothing else.
 *
 * usage: capfile_floor FILE [--touch-all]
 *   --touch-all  also read every captured byte (a 64-bit sum)
 * Built by bench/run with the reader's source and its libraries. */
#include <stdio.h>
#include <string.h>

#include "capfile.h"

int
main(int argc, char **argv)
{
    struct capfile *f;
    struct capfile_pkt p;
    char err[256];
    unsigned long long pkts = 0, cap = 0, wire = 0, sum = 0;
    int touch = argc > 2 && strcmp(argv[2], "--touch-all") == 0;
    enum capfile_rc rc;

    if (argc < 2) {
        fprintf(stderr, "usage: capfile_floor FILE [--touch-all]\n");
        return 2;
    }
    if (capfile_open(&f, argv[1], err, sizeof err) != 0) {
        fprintf(stderr, "capfile_floor: %s: %s\n", argv[1], err);
        capfile_close(f);
        return 1;
    }
    while ((rc = capfile_next(f, &p)) == CAPFILE_PKT) {
        pkts++;
        cap += p.caplen;
        wire += p.wirelen;
        if (touch) {
            uint32_t i = 0;

            for (; i + 8 <= p.caplen; i += 8) {
                unsigned long long w;

                memcpy(&w, p.data + i, 8);
                sum += w;
            }
            for (; i < p.caplen; i++)
                sum += p.data[i];
        }
    }
    printf("%llu packets, %llu captured bytes, %llu wire bytes%s (sum %llx)\n", pkts, cap, wire,
           rc == CAPFILE_CUT ? ", cut short" : "", sum);
    capfile_close(f);
    return 0;
}
