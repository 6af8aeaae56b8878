/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs4_ops.h: one NFSv4 operation's arguments or results, for the
 * COMPOUND framing (nfs4_compound.c) only. Each returns false for an op
 * number it does not know (nothing read); otherwise the op's XDR is
 * decoded or skipped exactly and the cursor says whether it held. */
#ifndef NFSSCOPE_NFS4_OPS_H
#define NFSSCOPE_NFS4_OPS_H

#include <stdbool.h>

#include "nfs4.h"
#include "xdr_cur.h"

/* nfs_argop4 body of a->op (nfs4_args.c). */
bool nfs4_argop(struct xdr_cur *x, struct nfs4_argop *a);
/* nfs_resop4 body of r->op: the status, then the results (nfs4_res.c). */
bool nfs4_resop(struct xdr_cur *x, struct nfs4_resop *r);
/* nfs_cb_argop4 / nfs_cb_resop4 bodies (nfs4_cb.c). */
bool nfs4_cb_argop(struct xdr_cur *x, struct nfs4_argop *a);
bool nfs4_cb_resop(struct xdr_cur *x, struct nfs4_resop *r);

#endif
