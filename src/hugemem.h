/* SPDX-License-Identifier: BSD-3-Clause */
/* hugemem.h: memory at fewer page faults: zeroed memory on transparent huge
 * pages for tables that fill entirely (hugemem_alloc), and pages made
 * resident in one call ahead of writes in order (mem_populate).
 *
 * On the VMs this runs on, a first touch of a 4 KiB page of anonymous memory
 * costs about 10 us (measured: 13 MB of calloc'd memory took 33-36 ms to
 * touch, 3.5-22 ms on 2 MiB pages), and the findings' hash-placed tables
 * touch every page of their ~13 MB within a big capture. Here such a table
 * is mapped at a 2 MiB boundary and advised MADV_HUGEPAGE, so the kernel
 * backs each aligned 2 MiB of it with one page, at one fault. Only tables
 * that fill up entirely belong here: a huge page is resident as a whole, so
 * a sparsely used table would cost that much more memory. */
#ifndef NFSSCOPE_HUGEMEM_H
#define NFSSCOPE_HUGEMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HUGEMEM_PAGE ((size_t)2 << 20)

struct hugemem {
    void *p;     /* zeroed, 64-byte aligned; at a HUGEMEM_PAGE boundary when mapped */
    void *raw;   /* what calloc returned, when it did */
    size_t len;  /* bytes mapped; 0 = from calloc */
};

/* size bytes of zeroed memory at m->p. Sizes of HUGEMEM_PAGE or more are
 * mapped (mmap, then madvise MADV_HUGEPAGE); smaller ones, or if either
 * call fails, or off Linux, come from calloc, whose large blocks stay
 * unmapped until touched as well. False (m->p NULL) if out of memory. */
bool hugemem_alloc(struct hugemem *m, size_t size);
/* Frees it (either way); a zeroed struct hugemem is fine too. */
void hugemem_free(struct hugemem *m);

/* The pages of [p, p + len) made resident at once, their content unchanged
 * (Linux's MADV_POPULATE_WRITE, 5.14): for memory that is about to be
 * written in order, such as a table's rows given out one after another. On
 * the VMs this runs on a page's first-touch fault costs ~12 us and this
 * ~0.5 us a page, plus ~6 us at the first touch that follows (measured with
 * 16-64 MiB of anonymous memory). True if they were: where the call is
 * unsupported nothing happens. */
bool mem_populate(void *p, size_t len);

/* An array of cap elements of elem bytes given out in order, element i
 * next: when i starts a run of `chunk` elements, that run (or what is left
 * of the array) is made resident (mem_populate), so filling the array costs
 * a call per chunk instead of a fault per page. Inline: it is on the path
 * of every call, and only the chunk's first element calls out. */
static inline void
mem_populate_run(void *base, size_t elem, size_t i, size_t cap, size_t chunk)
{
    if (i < cap && i % chunk == 0)
        mem_populate((uint8_t *)base + i * elem, (cap - i < chunk ? cap - i : chunk) * elem);
}

#endif
