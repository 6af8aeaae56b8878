/* SPDX-License-Identifier: BSD-3-Clause */
/* t.h: a tiny unit-test harness. Each test program ends with t_done(), which
 * prints "N passed, N failed" and returns the exit status for main(). */
#ifndef NFSSCOPE_T_H
#define NFSSCOPE_T_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static unsigned t_pass, t_fail;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (cond) {                                                                                \
            t_pass++;                                                                              \
        } else {                                                                                   \
            t_fail++;                                                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);              \
        }                                                                                          \
    } while (0)

#define EQ(a, b)                                                                                   \
    do {                                                                                           \
        long long t_a_ = (long long)(a), t_b_ = (long long)(b);                                    \
        if (t_a_ == t_b_) {                                                                        \
            t_pass++;                                                                              \
        } else {                                                                                   \
            t_fail++;                                                                              \
            fprintf(stderr, "%s:%d: EQ failed: %s == %lld, expected %s == %lld\n", __FILE__,       \
                    __LINE__, #a, t_a_, #b, t_b_);                                                 \
        }                                                                                          \
    } while (0)

#define STREQ(a, b)                                                                                \
    do {                                                                                           \
        const char *t_a_ = (a), *t_b_ = (b);                                                       \
        if (t_a_ && t_b_ && strcmp(t_a_, t_b_) == 0) {                                             \
            t_pass++;                                                                              \
        } else {                                                                                   \
            t_fail++;                                                                              \
            fprintf(stderr, "%s:%d: STREQ failed: \"%s\" vs \"%s\"\n", __FILE__, __LINE__,         \
                    t_a_ ? t_a_ : "(null)", t_b_ ? t_b_ : "(null)");                               \
        }                                                                                          \
    } while (0)

/* A xorshift64 step (Marsaglia 2003) reduced to [0, n): the tests' reproducible
 * random input; *s is the generator's state, never 0. */
static inline uint32_t
t_rnd(uint64_t *s, uint32_t n)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s % n);
}

static inline int
t_done(void)
{
    printf("%u passed, %u failed\n", t_pass, t_fail);
    return t_fail ? 1 : 0;
}

#endif
