/* SPDX-License-Identifier: BSD-3-Clause */
/* nfsstat3.h: NFSv3 status names (RFC 1813 §2.6 nfsstat3), shared by the
 * programs whose results carry an nfsstat3 (NFS v3, NFS_ACL v3). Included
 * by those dissectors only; defines nothing with external linkage. */
#ifndef NFSSCOPE_NFSSTAT3_H
#define NFSSCOPE_NFSSTAT3_H

#include <stdint.h>

#include "valname.h"

static const struct valname nfsstat3_names[] = {
    { 0, "NFS3_OK" }, { 1, "NFS3ERR_PERM" }, { 2, "NFS3ERR_NOENT" }, { 5, "NFS3ERR_IO" },
    { 6, "NFS3ERR_NXIO" }, { 13, "NFS3ERR_ACCES" }, { 17, "NFS3ERR_EXIST" },
    { 18, "NFS3ERR_XDEV" }, { 19, "NFS3ERR_NODEV" }, { 20, "NFS3ERR_NOTDIR" },
    { 21, "NFS3ERR_ISDIR" }, { 22, "NFS3ERR_INVAL" }, { 27, "NFS3ERR_FBIG" },
    { 28, "NFS3ERR_NOSPC" }, { 30, "NFS3ERR_ROFS" }, { 31, "NFS3ERR_MLINK" },
    { 63, "NFS3ERR_NAMETOOLONG" }, { 66, "NFS3ERR_NOTEMPTY" }, { 69, "NFS3ERR_DQUOT" },
    { 70, "NFS3ERR_STALE" }, { 71, "NFS3ERR_REMOTE" }, { 10001, "NFS3ERR_BADHANDLE" },
    { 10002, "NFS3ERR_NOT_SYNC" }, { 10003, "NFS3ERR_BAD_COOKIE" },
    { 10004, "NFS3ERR_NOTSUPP" }, { 10005, "NFS3ERR_TOOSMALL" },
    { 10006, "NFS3ERR_SERVERFAULT" }, { 10007, "NFS3ERR_BADTYPE" },
    { 10008, "NFS3ERR_JUKEBOX" }, { 0, NULL },
};

static inline const char *
nfsstat3_name(uint32_t status)
{
    return valname(nfsstat3_names, status);
}

#endif
