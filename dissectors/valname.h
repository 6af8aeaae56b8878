/* SPDX-License-Identifier: BSD-3-Clause */
/* valname.h: value-to-name tables (tcpdump's struct tok and tok2str()): an
 * array of { value, name } pairs in any order, ended by an entry whose name
 * is NULL, read through valname() only. Used for the status words of every
 * program (nfsstat3, mountstat3, nlm4_stats, nfsstat4, ...). */
#ifndef NFSSCOPE_VALNAME_H
#define NFSSCOPE_VALNAME_H

#include <stdint.h>

struct valname {
    uint32_t v;
    const char *name; /* NULL ends the table */
};

/* The name of `v` in `tbl`, or NULL when the table has none. */
const char *valname(const struct valname *tbl, uint32_t v);

#endif
