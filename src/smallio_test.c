/* SPDX-License-Identifier: BSD-3-Clause */
/* smallio_test.c: small_io's rule on hand-made sizes, each saving worked
 * out by hand. */
#include "smallio.h"

#include "t.h"

static const uint8_t S[4] = { 10, 0, 0, 2 }, C[4] = { 10, 0, 0, 1 }, C2[4] = { 10, 0, 0, 3 };

int
main(void)
{
    struct smallio s = { 0 };
    uint64_t saved;
    unsigned i;

    /* before FSINFO: the client's own largest READ is the reference */
    CHECK(!smallio_record(&s, 4, S, C, false, 65536, false, 1000, &saved));
    CHECK(smallio_record(&s, 4, S, C, false, 16384, false, 1000, &saved)); /* 1/4 */
    EQ(saved, 750);                                                         /* 1000 - 250 */
    CHECK(!smallio_record(&s, 4, S, C, false, 16385, false, 1000, &saved)); /* above 1/4 */
    CHECK(!smallio_record(&s, 4, S, C, false, 4096, true, 1000, &saved));   /* end of file */
    CHECK(!smallio_record(&s, 4, S, C2, false, 4096, false, 1000, &saved)); /* C2: no history */
    /* FSINFO: rtmax 1 MiB, wtmax 512 KiB */
    smallio_fsinfo(&s, 4, S, 1048576, 524288);
    CHECK(smallio_record(&s, 4, S, C2, false, 262144, false, 2000, &saved));
    EQ(saved, 1500);
    CHECK(!smallio_record(&s, 4, S, C2, true, 262144, false, 2000, &saved)); /* 1/2 of wtmax */
    CHECK(smallio_record(&s, 4, S, C2, true, 131072, false, 2000, &saved));
    EQ(saved, 1500);
    EQ(s.reads, 6);
    EQ(s.writes, 2);
    EQ(s.small_reads, 2);
    EQ(s.small_read_bytes, 16384 + 262144);
    EQ(s.small_writes, 1);
    EQ(s.cli[0].small_reads, 1);
    EQ(s.cli[0].rmax, 65536);
    EQ(s.cli[1].wmax, 262144);
    CHECK(!smallio_reported(&s));
    for (i = 0; i < 5; i++)
        smallio_record(&s, 4, S, C, false, 8192, false, 100, &saved);
    CHECK(smallio_reported(&s)); /* 8 small calls */
    /* bounded: servers beyond the table are counted, not kept */
    for (i = 0; i < SMALL_SERVERS + 2; i++) {
        uint8_t a[4] = { 10, 9, 0, (uint8_t)i };
        smallio_record(&s, 4, a, C, false, 8192, false, 100, &saved);
    }
    EQ(s.nservers, SMALL_SERVERS);
    EQ(s.not_kept, 3); /* S holds one row */
    return t_done();
}
