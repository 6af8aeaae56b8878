/* SPDX-License-Identifier: BSD-3-Clause */
/* hugemem_test.c: memory of any size comes zeroed, writable and 64-byte
 * aligned; from 2 MiB on it is mapped at a 2 MiB boundary with the huge page
 * advice on exactly its range, and unmapped when freed; below that, or when
 * the mapping fails (an address-space limit in a child process), it comes
 * from calloc. */
#include "hugemem.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif

/* The kernel has transparent huge pages (in whatever mode): then
 * madvise(MADV_HUGEPAGE) succeeds. */
static bool
thp_kernel(void)
{
    return access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0;
}

/* The VmFlags of the mapping [p, p + len) in /proc/self/smaps hold "hg"
 * (MADV_HUGEPAGE), and the mapping is exactly that range. */
static bool
advised_huge(const void *p, size_t len)
{
    FILE *fp = fopen("/proc/self/smaps", "r");
    char line[512];
    bool in = false, hg = false, found = false;

    if (!fp)
        return false;
    while (fgets(line, sizeof line, fp)) {
        unsigned long lo, hi;

        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = lo == (uintptr_t)p && hi == (uintptr_t)p + len;
            found = found || in;
        } else if (in && strncmp(line, "VmFlags:", 8) == 0) {
            hg = strstr(line, " hg") != NULL;
        }
    }
    fclose(fp);
    return found && hg;
}

/* Zeroed, aligned, writable end to end, freed. */
static void
check_size(size_t size, bool mapped)
{
    struct hugemem m;
    const uint8_t *b;
    size_t i, nonzero = 0;

    CHECK(hugemem_alloc(&m, size));
    if (!m.p)
        return;
    b = m.p;
    EQ((uintptr_t)m.p % 64, 0);
    for (i = 0; i < size; i++)
        nonzero += b[i] != 0;
    EQ(nonzero, 0);
    memset(m.p, 0xa5, size);
    EQ(m.len != 0, mapped);
    if (m.len) {
        EQ((uintptr_t)m.p % HUGEMEM_PAGE, 0);
        CHECK(m.len >= size);
        CHECK(m.len - size < (size_t)sysconf(_SC_PAGESIZE));
        EQ(m.raw, NULL);
        CHECK(advised_huge(m.p, m.len));
    } else {
        CHECK(m.raw != NULL);
        CHECK((uint8_t *)m.p - (uint8_t *)m.raw < 64);
    }
    {
        static unsigned char vec[8192]; /* a byte per small page */
        void *p = m.p;
        size_t len = m.len;

        hugemem_free(&m);
        EQ(m.p, NULL);
        EQ(m.raw, NULL);
        EQ(m.len, 0);
        if (len) { /* no longer mapped: mincore fails with ENOMEM */
            CHECK(len / 4096 < sizeof vec);
            errno = 0;
            CHECK(mincore(p, len, vec) != 0 && errno == ENOMEM);
        }
    }
}

static void
test_sizes(void)
{
    bool huge = thp_kernel();

    check_size(0, false);
    check_size(1, false);
    check_size(4096 * 3 + 5, false);
    check_size(HUGEMEM_PAGE - 1, false);
    check_size(HUGEMEM_PAGE, huge);
    check_size(HUGEMEM_PAGE * 6 + 3 * 4096 + 100, huge); /* a tail of small pages */
}

#ifndef UNDER_SANITIZER
/* What the process has mapped, in bytes (VmSize), or 0. */
static size_t
vm_size(void)
{
    FILE *fp = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long kb = 0;

    if (!fp)
        return 0;
    while (fgets(line, sizeof line, fp))
        if (sscanf(line, "VmSize: %lu kB", &kb) == 1)
            break;
    fclose(fp);
    return (size_t)kb * 1024;
}
#endif

/* An address-space limit that leaves room for the 8 MiB and 1 MiB more,
 * not for the mapping's extra 2 MiB to align it: mmap fails, calloc must
 * serve. In a child, so the limit does not last. Not under ASan or TSan,
 * whose shadow memory such a limit breaks. */
static void
test_fallback(void)
{
#ifdef UNDER_SANITIZER
    printf("fallback under an address-space limit: skipped under a sanitizer\n");
#else
    size_t size = (size_t)8 << 20;
    int status = -1;
    pid_t pid;

    fflush(NULL);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        size_t now = vm_size();
        struct rlimit rl;
        struct hugemem m;
        const uint8_t *b;
        size_t i;

        if (!now)
            _exit(10);
        rl.rlim_cur = rl.rlim_max = now + size + HUGEMEM_PAGE / 2;
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(11);
        if (!hugemem_alloc(&m, size))
            _exit(12);
        if (m.len != 0 || !m.raw || (uintptr_t)m.p % 64)
            _exit(13);
        b = m.p;
        for (i = 0; i < size; i++)
            if (b[i])
                _exit(14);
        memset(m.p, 1, size);
        hugemem_free(&m);
        /* and more than the limit: none at all */
        if (hugemem_alloc(&m, 4 * size) || m.p)
            _exit(15);
        _exit(0);
    }
    if (pid > 0)
        waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status));
    EQ(WEXITSTATUS(status), 0);
#endif
}

/* mem_populate makes resident exactly the pages its range touches, and
 * changes no byte: what was written stays, the rest reads zero. */
static void
test_populate(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    size_t page = ps > 0 ? (size_t)ps : 4096, len = 16 * page, i, bad = 0;
    unsigned char res[16];
    uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    CHECK(p != MAP_FAILED);
    if (p == MAP_FAILED)
        return;
    p[0] = 1; /* page 0 touched; pages 1..15 not */
    p[5 * page + 7] = 2;
    CHECK(!mem_populate(p + 2 * page, 0));
    if (mem_populate(p + 2 * page + 100, 10 * page)) { /* pages 2..12 */
        CHECK(mincore(p, len, res) == 0);
        for (i = 0; i < 16; i++)
            if ((res[i] & 1) != (i == 0 || (i >= 2 && i <= 12)))
                bad++;
        EQ(bad, 0);
    } else {
        printf("# MADV_POPULATE_WRITE unsupported here: residency not checked\n");
    }
    for (i = 0; i < len; i++)
        bad += p[i] != (i == 0 ? 1 : i == 5 * page + 7 ? 2 : 0);
    EQ(bad, 0);
    munmap(p, len);
}

/* mem_populate_run: element i = 0, 1, ... of an array that ends inside a
 * mapping; only each chunk's first element populates, and never past the
 * array. */
static void
test_populate_run(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    size_t page = ps > 0 ? (size_t)ps : 4096, len = 16 * page, elem = page, i, j;
    size_t cap = 10, bad = 0; /* a page each: a page too many shows */
    unsigned char res[16];
    uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    CHECK(p != MAP_FAILED);
    if (p == MAP_FAILED)
        return;
    if (!mem_populate(p + 15 * page, 1)) { /* the last page: the probe itself */
        printf("# MADV_POPULATE_WRITE unsupported here: mem_populate_run not checked\n");
        munmap(p, len);
        return;
    }
    for (i = 0; i < cap + 3; i++) { /* past cap: nothing */
        size_t end = i < cap ? ((i / 4 + 1) * 4 < cap ? (i / 4 + 1) * 4 : cap) : cap;

        mem_populate_run(p, elem, i, cap, 4);
        CHECK(mincore(p, len, res) == 0);
        /* resident: the pages of elements [0, end), and page 15 */
        for (j = 0; j < 16; j++)
            if ((res[j] & 1) != (j == 15 || j * page < end * elem))
                bad++;
    }
    EQ(bad, 0);
    munmap(p, len);
}

int
main(void)
{
    test_sizes();
    test_fallback();
    test_populate();
    test_populate_run();
    return t_done();
}
