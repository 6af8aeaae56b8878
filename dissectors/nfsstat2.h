/* SPDX-License-Identifier: BSD-3-Clause */
/* nfsstat2.h: NFSv2 status names (RFC 1094 §2.3.1 stat), shared by the
 * programs whose results carry one (NFS v2, NFS_ACL v2). Included by those
 * dissectors only; defines nothing with external linkage. */
#ifndef NFSSCOPE_NFSSTAT2_H
#define NFSSCOPE_NFSSTAT2_H

#include <stdint.h>

#include "valname.h"

static const struct valname nfsstat2_names[] = {
    { 0, "NFS_OK" }, { 1, "NFSERR_PERM" }, { 2, "NFSERR_NOENT" }, { 5, "NFSERR_IO" },
    { 6, "NFSERR_NXIO" }, { 13, "NFSERR_ACCES" }, { 17, "NFSERR_EXIST" },
    { 19, "NFSERR_NODEV" }, { 20, "NFSERR_NOTDIR" }, { 21, "NFSERR_ISDIR" },
    { 27, "NFSERR_FBIG" }, { 28, "NFSERR_NOSPC" }, { 30, "NFSERR_ROFS" },
    { 63, "NFSERR_NAMETOOLONG" }, { 66, "NFSERR_NOTEMPTY" }, { 69, "NFSERR_DQUOT" },
    { 70, "NFSERR_STALE" }, { 99, "NFSERR_WFLUSH" }, { 0, NULL },
};

static inline const char *
nfsstat2_name(uint32_t status)
{
    return valname(nfsstat2_names, status);
}

#endif
