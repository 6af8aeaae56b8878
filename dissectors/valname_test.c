/* SPDX-License-Identifier: BSD-3-Clause */
/* valname_test.c: the value-to-name helper, and every program's status
 * table read through it: each entry found by its value, values unique,
 * values not in the table give NULL. */
#include "valname.h"

#include <stddef.h>
#include <string.h>

#include "dissector.h"
#include "mount12_common.h"
#include "nfs4.h"
#include "nfsstat2.h"
#include "nfsstat3.h"
#include "t.h"

static void
test_helper(void)
{
    static const struct valname t[] = { { 7, "seven" }, { 0, "zero" }, { 7, "again" },
                                        { 0, NULL } };
    static const struct valname empty[] = { { 0, NULL } };

    STREQ(valname(t, 7), "seven"); /* the first of equal values */
    STREQ(valname(t, 0), "zero");  /* 0 is a value; only a NULL name ends */
    CHECK(valname(t, 1) == NULL);
    CHECK(valname(t, UINT32_MAX) == NULL);
    CHECK(valname(empty, 0) == NULL);
}

/* Every entry of tbl found by its value (so no value twice), and n of them. */
static void
check_table(const struct valname *tbl, size_t n)
{
    size_t i;

    for (i = 0; tbl[i].name; i++) {
        CHECK(tbl[i].name[0] != '\0');
        STREQ(valname(tbl, tbl[i].v), tbl[i].name);
    }
    EQ(i, n);
}

static const char *
status_of(const char *prog, uint32_t status)
{
    size_t i;

    for (i = 0; rpc_programs[i]; i++)
        if (strcmp(rpc_programs[i]->name, prog) == 0)
            return rpc_programs[i]->status_name ? rpc_programs[i]->status_name(status) : NULL;
    CHECK(!"program registered");
    return NULL;
}

static void
test_tables(void)
{
    check_table(nfsstat3_names, 29);
    check_table(nfsstat2_names, 18);
    check_table(mount12_status_names, 10);
    /* RFC 1813 §2.6 */
    STREQ(nfsstat3_name(0), "NFS3_OK");
    STREQ(nfsstat3_name(10008), "NFS3ERR_JUKEBOX");
    CHECK(nfsstat3_name(3) == NULL);
    /* RFC 1094 §2.3.1 */
    STREQ(nfsstat2_name(99), "NFSERR_WFLUSH");
    CHECK(nfsstat2_name(10001) == NULL);
    /* through each program's status_name */
    STREQ(status_of("nfs3", 70), "NFS3ERR_STALE");
    STREQ(status_of("nfsacl3", 10004), "NFS3ERR_NOTSUPP");
    STREQ(status_of("nfs2", 63), "NFSERR_NAMETOOLONG");
    STREQ(status_of("mount1", 13), "EACCES");
    STREQ(status_of("mount2", 63), "ENAMETOOLONG");
    STREQ(status_of("mount3", 0), "MNT3_OK");
    STREQ(status_of("mount3", 10006), "MNT3ERR_SERVERFAULT");
    CHECK(status_of("mount3", 10005) == NULL);
    STREQ(status_of("nlm1", 0), "LCK_GRANTED");
    STREQ(status_of("nlm3", 5), "LCK_DEADLCK");
    STREQ(status_of("nlm4", 3), "NLM4_BLOCKED");
    STREQ(status_of("nlm4", 9), "NLM4_FAILED");
    CHECK(status_of("nlm4", 10) == NULL);
    CHECK(status_of("nlm1", 6) == NULL);
    STREQ(status_of("nsm1", 1), "STAT_FAIL");
    CHECK(status_of("nsm1", 2) == NULL);
    /* RFC 8881 §15.1, RFC 7862 §11.1, RFC 8276 §8.2 */
    STREQ(nfs4_status_name(0), "NFS4_OK");
    STREQ(nfs4_status_name(10087), "NFS4ERR_DELEG_REVOKED");
    STREQ(nfs4_status_name(10096), "NFS4ERR_XATTR2BIG");
    CHECK(nfs4_status_name(10073) == NULL); /* not assigned */
    CHECK(nfs4_status_name(10097) == NULL);
}

int
main(void)
{
    test_helper();
    test_tables();
    return t_done();
}
