/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs4_xdr.c: XDR types shared by NFSv4 operations (RFC 8881 §3, §5,
 * RFC 7862 §4, §12, RFC 8276 §8), decoded or skipped exactly. */
#include "nfs4_xdr.h"

#include <string.h>

uint32_t
nfs4_count(struct xdr_cur *x, uint32_t min_size)
{
    uint32_t n = xdr_cur_u32(x);

    if (!xdr_cur_ok(x))
        return 0;
    if (min_size && n > xdr_cur_left(x) / min_size) {
        xdr_cur_fail(x, DECODE_TRUNCATED);
        return 0;
    }
    return n;
}

uint32_t
nfs4_enum(struct xdr_cur *x, uint32_t max)
{
    return xdr_cur_enum(x, max);
}

void
nfs4_skip_opaque(struct xdr_cur *x, uint32_t max)
{
    struct bytes b;

    xdr_cur_opaque(x, max, &b);
}

void
nfs4_utf8(struct xdr_cur *x, struct bytes *out)
{
    xdr_cur_opaque(x, UINT32_MAX, out);
}

void
nfs4_stateid(struct xdr_cur *x, struct nfs4_stateid *s)
{
    uint8_t other[12];

    s->seqid = xdr_cur_u32(x);
    xdr_cur_fixed(x, other, sizeof other);
    if (xdr_cur_ok(x))
        memcpy(s->other, other, sizeof other);
}

void
nfs4_fh(struct xdr_cur *x, struct bytes *fh)
{
    xdr_cur_opaque(x, NFS4_FHSIZE, fh);
}

void
nfs4_sessionid(struct xdr_cur *x, uint8_t *id)
{
    xdr_cur_fixed(x, id, NFS4_SESSIONID_SIZE);
}

void
nfs4_bitmap(struct xdr_cur *x, uint32_t *first3)
{
    uint32_t n = xdr_cur_u32(x), i;

    if (!xdr_cur_ok(x))
        return;
    if (n > NFS4_BITMAP_MAX) {
        xdr_cur_invalid(x);
        return;
    }
    for (i = 0; i < n; i++) {
        uint32_t w = xdr_cur_u32(x);
        if (first3 && i < 3 && xdr_cur_ok(x))
            first3[i] = w;
    }
}

void
nfs4_nfstime(struct xdr_cur *x, int64_t *s, uint32_t *ns)
{
    uint64_t sec = xdr_cur_u64(x);
    uint32_t nsec = xdr_cur_u32(x);

    if (xdr_cur_ok(x) && s) {
        *s = (int64_t)sec;
        *ns = nsec;
    }
}

void
nfs4_change_info(struct xdr_cur *x)
{
    xdr_cur_bool(x);  /* atomic */
    xdr_cur_skip(x, 16); /* before, after: changeid4 */
}

void
nfs4_netaddr(struct xdr_cur *x, struct bytes *netid, struct bytes *addr)
{
    struct bytes a, b;

    xdr_cur_opaque(x, UINT32_MAX, netid ? netid : &a); /* na_r_netid: string<> */
    xdr_cur_opaque(x, UINT32_MAX, addr ? addr : &b);   /* na_r_addr */
}

void
nfs4_netloc(struct xdr_cur *x)
{
    switch (nfs4_enum(x, 3)) { /* netloc_type4 */
    case 1: /* NL4_NAME */
    case 2: /* NL4_URL */
        nfs4_skip_opaque(x, UINT32_MAX);
        break;
    case 3: /* NL4_NETADDR */
        nfs4_netaddr(x, NULL, NULL);
        break;
    default:
        xdr_cur_invalid(x); /* 0 is no netloc_type4 */
        break;
    }
}

void
nfs4_state_owner(struct xdr_cur *x, uint64_t *clientid, struct bytes *owner)
{
    struct bytes o;
    uint64_t id = xdr_cur_u64(x);

    xdr_cur_opaque(x, NFS4_OPAQUE_LIMIT, owner ? owner : &o);
    if (clientid && xdr_cur_ok(x))
        *clientid = id;
}

void
nfs4_nfsace(struct xdr_cur *x)
{
    xdr_cur_skip(x, 12);              /* type, flag, access_mask */
    nfs4_skip_opaque(x, UINT32_MAX);  /* who: utf8str_mixed */
}

void
nfs4_chan(struct xdr_cur *x, struct nfs4_chan *c)
{
    struct nfs4_chan v;
    uint32_t n;

    v.headerpadsize = xdr_cur_u32(x);
    v.maxrequestsize = xdr_cur_u32(x);
    v.maxresponsesize = xdr_cur_u32(x);
    v.maxresponsesize_cached = xdr_cur_u32(x);
    v.maxoperations = xdr_cur_u32(x);
    v.maxrequests = xdr_cur_u32(x);
    n = xdr_cur_u32(x); /* ca_rdma_ird<1> */
    if (xdr_cur_ok(x) && n > 1)
        xdr_cur_invalid(x);
    xdr_cur_skip(x, 4 * n);
    if (xdr_cur_ok(x) && c)
        *c = v;
}

/* callback_sec_parms4 (RFC 8881 §18.33): AUTH_NONE, AUTH_SYS (authsys_parms,
 * RFC 5531 §8.2) or RPCSEC_GSS (gss_cb_handles4). */
void
nfs4_cb_sec_parms(struct xdr_cur *x)
{
    uint32_t n = nfs4_count(x, 4), i;

    for (i = 0; i < n && xdr_cur_ok(x); i++) {
        switch (xdr_cur_u32(x)) {
        case 0: /* AUTH_NONE */
            break;
        case 1: { /* AUTH_SYS */
            uint32_t ngids;
            xdr_cur_u32(x);            /* stamp */
            nfs4_skip_opaque(x, 255);  /* machinename<255> */
            xdr_cur_skip(x, 8);        /* uid, gid */
            ngids = xdr_cur_u32(x);
            if (xdr_cur_ok(x) && ngids > 16)
                xdr_cur_invalid(x);
            xdr_cur_skip(x, 4 * ngids);
            break;
        }
        case 6: /* RPCSEC_GSS */
            xdr_cur_u32(x);                   /* gcbp_service */
            nfs4_skip_opaque(x, UINT32_MAX);  /* handle from server */
            nfs4_skip_opaque(x, UINT32_MAX);  /* handle from client */
            break;
        default:
            xdr_cur_invalid(x); /* a flavor with no XDR here */
            break;
        }
    }
}

/* layout4<> (RFC 8881 §3.3.13): offset, length, iomode, layout_content4. */
void
nfs4_layout_array(struct xdr_cur *x)
{
    uint32_t n = nfs4_count(x, 28), i;

    for (i = 0; i < n && xdr_cur_ok(x); i++) {
        xdr_cur_skip(x, 20);              /* offset, length, iomode */
        xdr_cur_u32(x);                   /* loc_type */
        nfs4_skip_opaque(x, UINT32_MAX);  /* loc_body */
    }
}

void
nfs4_layoutupdate(struct xdr_cur *x)
{
    xdr_cur_u32(x);                  /* lou_type */
    nfs4_skip_opaque(x, UINT32_MAX); /* lou_body */
}

/* notify4<> (RFC 8881 §20.4, §20.12): bitmap4 notify_mask, opaque vals<>. */
void
nfs4_notify_array(struct xdr_cur *x)
{
    uint32_t n = nfs4_count(x, 8), i;

    for (i = 0; i < n && xdr_cur_ok(x); i++) {
        nfs4_bitmap(x, NULL);
        nfs4_skip_opaque(x, UINT32_MAX);
    }
}

/* open_delegation4 (RFC 8881 §18.16.2; types 4 and 5 of RFC 9754 share the
 * read and write bodies). */
void
nfs4_open_delegation(struct xdr_cur *x, struct nfs4_resop *r)
{
    uint32_t type = nfs4_enum(x, OPEN_DELEGATE_WRITE_ATTRS_DELEG);

    if (!xdr_cur_ok(x))
        return;
    r->u.open.delegation = type;
    switch (type) {
    case OPEN_DELEGATE_READ:
    case OPEN_DELEGATE_READ_ATTRS_DELEG:
    case OPEN_DELEGATE_WRITE:
    case OPEN_DELEGATE_WRITE_ATTRS_DELEG: {
        bool write = type == OPEN_DELEGATE_WRITE || type == OPEN_DELEGATE_WRITE_ATTRS_DELEG;
        nfs4_stateid(x, &r->u.open.deleg_stateid);
        r->u.open.recall = xdr_cur_bool(x);
        if (write) { /* nfs_space_limit4 */
            switch (nfs4_enum(x, 2)) {
            case 1: /* NFS_LIMIT_SIZE: filesize */
                xdr_cur_skip(x, 8);
                break;
            case 2: /* NFS_LIMIT_BLOCKS: nfs_modified_limit4 */
                xdr_cur_skip(x, 8);
                break;
            default:
                xdr_cur_invalid(x);
                break;
            }
        }
        nfs4_nfsace(x); /* permissions */
        break;
    }
    case OPEN_DELEGATE_NONE_EXT: { /* open_none_delegation4 */
        uint32_t why = xdr_cur_u32(x);
        if (!xdr_cur_ok(x))
            break;
        r->u.open.why_none = why;
        if (why == 1 || why == 2) /* WND4_CONTENTION, WND4_RESOURCE: a bool follows */
            xdr_cur_bool(x);
        break;
    }
    default: /* OPEN_DELEGATE_NONE */
        break;
    }
}

void
nfs4_write_response(struct xdr_cur *x, struct nfs4_resop *r)
{
    uint32_t n = xdr_cur_u32(x), committed; /* wr_callback_id<1> */
    uint64_t count;
    uint8_t verf[8];

    if (xdr_cur_ok(x) && n > 1)
        xdr_cur_invalid(x);
    if (n == 1 && xdr_cur_ok(x)) {
        nfs4_stateid(x, &r->stateid);
        r->has_stateid = xdr_cur_ok(x);
    }
    count = xdr_cur_u64(x);
    committed = nfs4_enum(x, FILE_SYNC4);
    xdr_cur_fixed(x, verf, 8);
    if (xdr_cur_ok(x)) {
        r->length = count;
        r->committed = (uint8_t)committed;
        memcpy(r->verf, verf, 8);
        r->has_verf = true;
    }
}

/* pathname4: component4<>. */
static void
pathname4(struct xdr_cur *x)
{
    uint32_t n = nfs4_count(x, 4), i;

    for (i = 0; i < n && xdr_cur_ok(x); i++)
        nfs4_skip_opaque(x, UINT32_MAX);
}

/* fs_locations4 (RFC 8881 §11.16): fs_root, fs_location4 {server<>, rootpath}<>. */
static void
fs_locations4(struct xdr_cur *x)
{
    uint32_t n, i;

    pathname4(x);
    n = nfs4_count(x, 8);
    for (i = 0; i < n && xdr_cur_ok(x); i++) {
        pathname4(x); /* server<>: utf8str_cis, the same shape */
        pathname4(x);
    }
}

/* fs_locations_info4 (RFC 8881 §11.17.2). */
static void
fs_locations_info4(struct xdr_cur *x)
{
    uint32_t n, i;

    xdr_cur_skip(x, 8); /* fli_flags, fli_valid_for */
    pathname4(x);       /* fli_fs_root */
    n = nfs4_count(x, 8);
    for (i = 0; i < n && xdr_cur_ok(x); i++) { /* fs_locations_item4 */
        uint32_t m = nfs4_count(x, 12), j;
        for (j = 0; j < m && xdr_cur_ok(x); j++) { /* fs_locations_server4 */
            xdr_cur_u32(x);                  /* fls_currency */
            nfs4_skip_opaque(x, UINT32_MAX); /* fls_info */
            nfs4_skip_opaque(x, UINT32_MAX); /* fls_server */
        }
        pathname4(x); /* fli_rootpath */
    }
}

static void
nfsace4_array(struct xdr_cur *x)
{
    uint32_t n = nfs4_count(x, 16), i;

    for (i = 0; i < n && xdr_cur_ok(x); i++)
        nfs4_nfsace(x);
}

static void
settime4(struct xdr_cur *x)
{
    if (nfs4_enum(x, 1) == 1) /* SET_TO_CLIENT_TIME4 */
        xdr_cur_skip(x, 12);
}

static void
u32_array(struct xdr_cur *x)
{
    uint32_t n = nfs4_count(x, 4);

    xdr_cur_skip(x, 4 * n);
}

/* One attribute's value from y: decoded into a when the findings use it,
 * else skipped. false: an attribute this decoder does not know (its size
 * is unknown, so the walk ends). RFC 8881 §5.6-5.8, RFC 7862 §12.2,
 * RFC 8275, RFC 8276 §8.4. */
static bool
attr_value(struct xdr_cur *y, unsigned attr, struct nfs4_attrs *a)
{
    switch (attr) {
    case 0:  /* supported_attrs */
    case 75: /* suppattr_exclcreat */
        nfs4_bitmap(y, NULL);
        return true;
    case 1: { /* type */
        uint32_t t = xdr_cur_u32(y);
        if (xdr_cur_ok(y)) {
            a->type = t;
            a->have |= NFS4_ATTR_TYPE;
        }
        return true;
    }
    case 3: /* change */
    case 4: /* size */
    case 20: { /* fileid */
        uint64_t v = xdr_cur_u64(y);
        if (!xdr_cur_ok(y))
            return true;
        if (attr == 3) {
            a->change = v;
            a->have |= NFS4_ATTR_CHANGE;
        } else if (attr == 4) {
            a->size = v;
            a->have |= NFS4_ATTR_SIZE;
        } else {
            a->fileid = v;
            a->have |= NFS4_ATTR_FILEID;
        }
        return true;
    }
    case 52: /* time_metadata */
    case 53: { /* time_modify */
        int64_t s = 0;
        uint32_t ns = 0;
        nfs4_nfstime(y, &s, &ns);
        if (!xdr_cur_ok(y))
            return true;
        if (attr == 52) {
            a->ctime_s = s;
            a->ctime_ns = ns;
            a->have |= NFS4_ATTR_CTIME;
        } else {
            a->mtime_s = s;
            a->mtime_ns = ns;
            a->have |= NFS4_ATTR_MTIME;
        }
        return true;
    }
    case 2: case 5: case 6: case 7: case 9: case 10: case 11: case 13: case 14: case 15:
    case 16: case 17: case 18: case 25: case 26: case 28: case 29: case 33: case 34: case 35:
    case 46: case 65: case 66: case 76: case 77: case 79: case 82:
        xdr_cur_skip(y, 4); /* uint32, bool, enum */
        return true;
    case 21: case 22: case 23: case 27: case 30: case 31: case 38: case 39: case 40:
    case 41: case 42: case 43: case 44: case 45: case 55: case 73: case 74: case 78: case 81:
        xdr_cur_skip(y, 8); /* uint64, specdata4, mode_masked4, mode_umask4 */
        return true;
    case 47: case 49: case 50: case 51: case 56: case 57:
        xdr_cur_skip(y, 12); /* nfstime4 */
        return true;
    case 8:  /* fsid4 */
    case 60: /* change_policy4 */
        xdr_cur_skip(y, 16);
        return true;
    case 12: /* acl */
        nfsace4_array(y);
        return true;
    case 58: /* dacl */
    case 59: /* sacl: nfsacl41 */
        xdr_cur_u32(y);
        nfsace4_array(y);
        return true;
    case 19: /* filehandle */
        xdr_cur_opaque(y, NFS4_FHSIZE, &a->fh);
        return true;
    case 24: /* fs_locations */
        fs_locations4(y);
        return true;
    case 67: /* fs_locations_info */
        fs_locations_info4(y);
        return true;
    case 32: case 36: case 37: /* mimetype, owner, owner_group */
        nfs4_skip_opaque(y, UINT32_MAX);
        return true;
    case 48: case 54: /* time_access_set, time_modify_set */
        settime4(y);
        return true;
    case 61: /* fs_status: fs4_status */
        xdr_cur_skip(y, 8); /* fss_absent, fss_type */
        nfs4_skip_opaque(y, UINT32_MAX);
        nfs4_skip_opaque(y, UINT32_MAX);
        xdr_cur_skip(y, 16); /* fss_age, fss_version */
        return true;
    case 62: case 64: /* fs_layout_type, layout_type: layouttype4<> */
        u32_array(y);
        return true;
    case 63: /* layout_hint: layouthint4 */
        xdr_cur_u32(y);
        nfs4_skip_opaque(y, UINT32_MAX);
        return true;
    case 68: { /* mdsthreshold: threshold_item4<> */
        uint32_t n = nfs4_count(y, 12), i;
        for (i = 0; i < n && xdr_cur_ok(y); i++) {
            xdr_cur_u32(y);
            nfs4_bitmap(y, NULL);
            nfs4_skip_opaque(y, UINT32_MAX);
        }
        return true;
    }
    case 69: case 71: { /* retention_get, retentevt_get */
        uint32_t n;
        xdr_cur_skip(y, 8); /* rg_duration */
        n = xdr_cur_u32(y); /* rg_begin_time<1> */
        if (xdr_cur_ok(y) && n > 1)
            xdr_cur_invalid(y);
        xdr_cur_skip(y, 12 * n);
        return true;
    }
    case 70: case 72: { /* retention_set, retentevt_set */
        uint32_t n;
        xdr_cur_bool(y);
        n = xdr_cur_u32(y); /* rs_duration<1> */
        if (xdr_cur_ok(y) && n > 1)
            xdr_cur_invalid(y);
        xdr_cur_skip(y, 8 * n);
        return true;
    }
    case 80: /* sec_label */
        xdr_cur_skip(y, 8);
        nfs4_skip_opaque(y, UINT32_MAX);
        return true;
    default:
        return false;
    }
}

void
nfs4_fattr(struct xdr_cur *x, struct nfs4_attrs *a)
{
    uint32_t n = xdr_cur_u32(x), w;
    struct bytes bits, vals;
    struct xdr_cur y;
    bool walked = true;

    if (!xdr_cur_ok(x))
        return;
    if (n > NFS4_BITMAP_MAX) {
        xdr_cur_invalid(x);
        return;
    }
    xdr_cur_fixed_view(x, 4 * n, &bits);
    xdr_cur_opaque(x, UINT32_MAX, &vals); /* attrlist4 */
    if (!a || !xdr_cur_ok(x))
        return;
    memset(a, 0, sizeof *a);
    xdr_cur_init(&y, vals);
    for (w = 0; w < n && walked; w++) {
        const uint8_t *p = bits.p + 4 * w;
        uint32_t word = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        unsigned b;
        for (b = 0; b < 32 && walked; b++) {
            unsigned attr = 32 * w + b;
            if (!(word & (1u << b)))
                continue;
            if (!attr_value(&y, attr, a) || !xdr_cur_ok(&y))
                walked = false;
        }
    }
    a->walked = walked && xdr_cur_left(&y) == 0;
}
