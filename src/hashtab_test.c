/* SPDX-License-Identifier: BSD-3-Clause */
/* hashtab_test.c: insert/find/remove against a reference, with collisions. */
#include "hashtab.h"

#include <stdlib.h>
#include <string.h>

#include "t.h"

#define N 5000

static uint64_t keys[N];
static int present[N];

static int
find(const struct hashtab *h, uint32_t slot)
{
    uint32_t pos, s;

    for (s = hashtab_first(h, keys[slot], &pos); s != HT_NONE; s = hashtab_next(h, keys[slot], &pos))
        if (s == slot)
            return 1;
    return 0;
}

int
main(void)
{
    struct hashtab h;
    unsigned i, round, bad = 0;

    EQ(hashtab_init(&h, N), 0);
    EQ(h.mask, 255);      /* starts at 256 entries ... */
    EQ(h.max_mask, 8191); /* ... and may grow to 8192 >= 4/3 * N */
    srand(7);
    for (i = 0; i < N; i++) /* few distinct hashes: long clusters, many collisions */
        keys[i] = (i % 7 == 0) ? 12345 : hash_u64x2(i, 99, 1);
    for (round = 0; round < 20000; round++) {
        uint32_t s = (uint32_t)rand() % N;
        if (present[s]) {
            hashtab_remove(&h, keys[s], s);
            present[s] = 0;
        } else {
            hashtab_insert(&h, keys[s], s);
            present[s] = 1;
        }
        if (round % 97 == 0)
            for (i = 0; i < N; i++)
                if (find(&h, i) != present[i])
                    bad++;
    }
    EQ(bad, 0);
    CHECK(h.mask > 255 && h.mask <= h.max_mask); /* it grew while entries were found */
    CHECK(h.count * 4 <= ((size_t)h.mask + 1) * 3);
    {
        size_t c = 0;
        for (i = 0; i < N; i++)
            c += (size_t)present[i];
        EQ(h.count, c);
    }
    CHECK(hash_bytes("abc", 3, 1) != hash_bytes("abc", 3, 2));
    CHECK(hash_bytes("abcdefghij", 10, 1) != hash_bytes("abcdefghik", 10, 1));
    { /* every byte of every length counts, whatever the alignment, and nothing
       * past the end is read: the tail is loaded in overlapping words */
        uint8_t buf[96], copy[96];
        size_t n, j, off;
        unsigned ignored = 0, misaligned = 0;

        for (j = 0; j < sizeof buf; j++)
            buf[j] = (uint8_t)(j * 37 + 11);
        for (n = 1; n <= 80; n++) {
            uint64_t h0 = hash_bytes(buf, n, 5);
            for (off = 1; off < 8; off++) {
                memcpy(copy + off, buf, n);
                copy[off + n] = (uint8_t)~buf[n]; /* a different byte just past the end */
                misaligned += hash_bytes(copy + off, n, 5) != h0;
            }
            for (j = 0; j < n; j++) {
                buf[j] ^= 0x40;
                ignored += hash_bytes(buf, n, 5) == h0;
                buf[j] ^= 0x40;
            }
        }
        EQ(ignored, 0);
        EQ(misaligned, 0);
    }
    hashtab_fini(&h);
    { /* filled to its limit: every size on the way, then no growth past it */
        struct hashtab g;
        uint32_t k, lost = 0, pos;

        EQ(hashtab_init(&g, 3000), 0); /* 4096 entries at most */
        for (k = 0; k < 3000; k++)
            hashtab_insert(&g, hash_u64x2(k, 1, 2), k);
        EQ(g.mask, 4095);
        for (k = 0; k < 3000; k++) {
            uint64_t hv = hash_u64x2(k, 1, 2);
            uint32_t s = hashtab_first(&g, hv, &pos);
            while (s != HT_NONE && s != k)
                s = hashtab_next(&g, hv, &pos);
            lost += s != k;
        }
        EQ(lost, 0);
        hashtab_fini(&g);
    }
    return t_done();
}
