/* SPDX-License-Identifier: BSD-3-Clause */
/* hugemem.c: memory at fewer page faults (hugemem.h). */
#include "hugemem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define LINE 64

#if defined(__linux__)
static size_t
page_size(void)
{
    long ps = sysconf(_SC_PAGESIZE);

    return ps > 0 ? (size_t)ps : 4096;
}
#endif

/* size bytes at a HUGEMEM_PAGE boundary, advised to use huge pages: the
 * mapping is over-allocated by one huge page, then its unaligned head and
 * its tail are unmapped. Its length is size rounded to whole small pages
 * (not to huge ones): a last part shorter than 2 MiB keeps small pages,
 * so the memory is no larger than asked. */
static bool
map_huge(struct hugemem *m, size_t size)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    size_t page = page_size(), len, head;
    uint8_t *p, *a;

    if (size < HUGEMEM_PAGE || size > SIZE_MAX - 2 * HUGEMEM_PAGE)
        return false;
    len = (size + page - 1) & ~(page - 1);
    p = mmap(NULL, len + HUGEMEM_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return false;
    a = (uint8_t *)(((uintptr_t)p + HUGEMEM_PAGE - 1) & ~(uintptr_t)(HUGEMEM_PAGE - 1));
    head = (size_t)(a - p);
    if (head)
        munmap(p, head);
    if (HUGEMEM_PAGE - head)
        munmap(a + len, HUGEMEM_PAGE - head);
    if (madvise(a, len, MADV_HUGEPAGE) != 0) {
        munmap(a, len);
        return false;
    }
    m->p = a;
    m->raw = NULL;
    m->len = len;
    return true;
#else
    (void)m;
    (void)size;
    return false;
#endif
}

bool
hugemem_alloc(struct hugemem *m, size_t size)
{
    memset(m, 0, sizeof *m);
    if (map_huge(m, size))
        return true;
    if (size > SIZE_MAX - LINE)
        return false;
    m->raw = calloc(1, size + LINE - 1); /* + room to align */
    if (!m->raw)
        return false;
    m->p = (void *)(((uintptr_t)m->raw + LINE - 1) & ~(uintptr_t)(LINE - 1));
    return true;
}

void
hugemem_free(struct hugemem *m)
{
#if defined(__linux__)
    if (m->len)
        munmap(m->p, m->len);
#endif
    free(m->raw);
    memset(m, 0, sizeof *m);
}

bool
mem_populate(void *p, size_t len)
{
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* linux/mman.h, 5.14 */
#endif
    uintptr_t page = page_size(), a = (uintptr_t)p & ~(page - 1),
              end = ((uintptr_t)p + len + page - 1) & ~(page - 1);

    return len && madvise((void *)a, end - a, MADV_POPULATE_WRITE) == 0; /* EINVAL before 5.14 */
#else
    (void)p;
    (void)len;
    return false;
#endif
}
