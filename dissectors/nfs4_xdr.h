/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs4_xdr.h: XDR types shared by NFSv4 operations (RFC 8881 §3, §5, RFC
 * 7862, RFC 8276), for the nfs4*.c decoders only. Each reads through the
 * cursor (sticky errors: after a failure everything is a no-op) and either
 * decodes a type or skips it exactly. Views borrow the cursor's buffer. */
#ifndef NFSSCOPE_NFS4_XDR_H
#define NFSSCOPE_NFS4_XDR_H

#include <stdbool.h>
#include <stdint.h>

#include "bytes.h"
#include "nfs4.h"
#include "xdr_cur.h"

#define NFS4_BITMAP_MAX 16 /* bitmap4 words accepted (512 attributes; 3 are defined) */

/* A count of array elements, each at least min_size bytes: more than the
 * bytes left can hold ends the cursor (TRUNCATED), so no loop runs long. */
uint32_t nfs4_count(struct xdr_cur *x, uint32_t min_size);
/* opaque<max> skipped; max UINT32_MAX: unbounded but for the bytes left. */
void nfs4_skip_opaque(struct xdr_cur *x, uint32_t max);
/* utf8str_* / component4 / linktext4: opaque<> (RFC 8881 §3.2). */
void nfs4_utf8(struct xdr_cur *x, struct bytes *out);
void nfs4_stateid(struct xdr_cur *x, struct nfs4_stateid *s);
void nfs4_fh(struct xdr_cur *x, struct bytes *fh); /* nfs_fh4: opaque<NFS4_FHSIZE> */
/* bitmap4: uint32_t<NFS4_BITMAP_MAX>; the first three words into first (may be NULL). */
void nfs4_bitmap(struct xdr_cur *x, uint32_t *first3);
/* fattr4 {bitmap4, attrlist4}: skipped exactly; a (may be NULL) gets the
 * attributes the findings use (their digest: nfs4_event.c). */
void nfs4_fattr(struct xdr_cur *x, struct nfs4_attrs *a);
void nfs4_nfstime(struct xdr_cur *x, int64_t *s, uint32_t *ns);
void nfs4_change_info(struct xdr_cur *x);      /* change_info4 */
void nfs4_netaddr(struct xdr_cur *x, struct bytes *netid, struct bytes *addr);
void nfs4_netloc(struct xdr_cur *x);           /* netloc4 (RFC 7862 §4.2) */
/* state_owner4 (open_owner4, lock_owner4): clientid, owner<NFS4_OPAQUE_LIMIT>. */
void nfs4_state_owner(struct xdr_cur *x, uint64_t *clientid, struct bytes *owner);
void nfs4_nfsace(struct xdr_cur *x);           /* nfsace4 */
void nfs4_chan(struct xdr_cur *x, struct nfs4_chan *c); /* channel_attrs4 */
void nfs4_cb_sec_parms(struct xdr_cur *x);     /* callback_sec_parms4<> */
void nfs4_layout_array(struct xdr_cur *x);     /* layout4<> */
void nfs4_layoutupdate(struct xdr_cur *x);     /* layoutupdate4 */
void nfs4_notify_array(struct xdr_cur *x);     /* notify4<> */
/* open_delegation4 into r->u.open (OPEN, WANT_DELEGATION, CB_PUSH_DELEG). */
void nfs4_open_delegation(struct xdr_cur *x, struct nfs4_resop *r);
/* write_response4 (RFC 7862 §15.2): count into r->length, committed, verifier. */
void nfs4_write_response(struct xdr_cur *x, struct nfs4_resop *r);
/* n READ_PLUS segments (RFC 7862 §15.10.3: read_plus_content): data bytes
 * added to r->count, hole lengths to r->length; `first`: these are the
 * result's first segments (r->offset and r->data take the first data one). */
void nfs4_read_plus_segments(struct xdr_cur *x, struct nfs4_resop *r, uint32_t n, bool first);
void nfs4_sessionid(struct xdr_cur *x, uint8_t *id); /* sessionid4: opaque[16] */
/* A value that must be <= max, else INVALID (an enum discriminant). */
uint32_t nfs4_enum(struct xdr_cur *x, uint32_t max);

#endif
