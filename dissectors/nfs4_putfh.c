/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs4_putfh.c: the handles a COMPOUND's PUTFH operations set, kept from the
 * call for its reply. Each result runs with the current file handle (RFC
 * 8881 §16.2.3.1.1), which a PUTFH sets to its argument; the reply carries
 * no handle but in GETFH results, so the call's PUTFH arguments travel in
 * the pending call: a PUTFH of the pending call's own handle (fh[], the
 * main operation's) as a bit of the digest, every other distinct handle
 * once in name[] after the names, in a list of entries
 *
 *     op index, handle length, offset of the handle's bytes in name[]
 *
 * whose bytes follow the entry unless an earlier entry or the second handle
 * (RENAME's target directory, LINK's, COPY's or CLONE's source) already
 * holds them. The room is what the names leave of PC_NAME_MAX: a handle
 * that no longer fits is not kept and counted by the caller. */
#include <string.h>

#include "nfs4.h"
#include "xid_table.h"

_Static_assert(PC_NAME_MAX <= 255 && NFS4_FHSIZE <= 255 && NFS4_OPS_MAX <= 255,
               "an entry's offset, length and op index fit a byte each");

#define ENTRY 3 /* op index, length, offset */

/* The start of the handle list in pc->name[]: after the name, the second
 * handle and the second name. */
static size_t
list_start(const struct pending_call *pc)
{
    return (size_t)pc->name_len + pc->fh2_len + pc->name2_len;
}

static bool
same(struct bytes a, const uint8_t *p, size_t len)
{
    return a.len == len && memcmp(a.p, p, len) == 0;
}

/* Where in pc->name[] the bytes of fh already are, among the second handle
 * and the entries in [start, end); -1: nowhere. */
static int
find_kept(const struct pending_call *pc, struct bytes fh, size_t start, size_t end)
{
    size_t p = start;

    if (pc->fh2_len && same(fh, pc->name + pc->name_len, pc->fh2_len))
        return pc->name_len;
    while (end - p >= ENTRY) {
        uint8_t len = pc->name[p + 1], off = pc->name[p + 2];

        p += ENTRY;
        if (off == p) {
            if (same(fh, pc->name + off, len))
                return off;
            if (end - p < len)
                break;
            p += len;
        }
    }
    return -1;
}

uint32_t
nfs4_putfh_keep(const struct nfs4_call *c, struct nfs4_digest *d, struct pending_call *pc)
{
    struct bytes own = { pc->fh, pc->fh_len };
    size_t start = list_start(pc), end = start;
    uint32_t i, lost = 0;

    d->putfh_own = 0;
    d->fh_pool = 0;
    if (c->cb || start > PC_NAME_MAX)
        return 0;
    for (i = 0; i < c->ndecoded; i++) {
        struct bytes fh = c->op[i].fh;
        size_t at;
        int off;

        if (c->op[i].op != OP_PUTFH || !fh.len)
            continue;
        if (same(own, fh.p, fh.len)) {
            d->putfh_own |= (uint64_t)1 << i;
            continue;
        }
        off = find_kept(pc, fh, start, end);
        if (PC_NAME_MAX - end < ENTRY + (off < 0 ? fh.len : 0)) {
            lost++;
            continue;
        }
        at = end;
        end += ENTRY;
        if (off < 0) { /* the bytes follow the entry */
            off = (int)end;
            memcpy(pc->name + end, fh.p, fh.len);
            end += fh.len;
        }
        pc->name[at] = (uint8_t)i;
        pc->name[at + 1] = (uint8_t)fh.len;
        pc->name[at + 2] = (uint8_t)off;
    }
    d->fh_pool = (uint8_t)(end - start);
    return lost;
}

void
nfs4_putfh_restore(const struct nfs4_digest *d, const struct pending_call *pc,
                   struct nfs4_reply *r)
{
    size_t p = list_start(pc), end = p + d->fh_pool;
    uint8_t g;

    for (g = 1; g < r->ngen; g++) {
        uint8_t i = r->gen[g].set_by;

        if (i < NFS4_OPS_MAX && (d->putfh_own >> i & 1))
            r->gen[g].fh = (struct bytes){ pc->fh, pc->fh_len };
    }
    if (end > PC_NAME_MAX)
        return;
    /* Generations are numbered in the order their ops started them, as the
     * entries are listed: one pass over both. */
    g = 1;
    while (end - p >= ENTRY) {
        uint8_t i = pc->name[p], len = pc->name[p + 1], off = pc->name[p + 2];

        p += ENTRY;
        if ((size_t)off + len > PC_NAME_MAX || (off == p && end - p < len))
            return;
        if (off == p)
            p += len;
        while (g < r->ngen && r->gen[g].set_by < i)
            g++;
        if (g < r->ngen && r->gen[g].set_by == i)
            r->gen[g].fh = (struct bytes){ pc->name + off, len };
    }
}
