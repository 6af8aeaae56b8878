/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs4_test.h: a small XDR encoder for the NFSv4 decoder's tests: builds
 * COMPOUND / CB_COMPOUND calls and replies with every operation's
 * arguments and results (RFC 7530, RFC 8881, RFC 7862, RFC 8276), written
 * independently of the decoder from the RFCs' XDR. */
#ifndef NFSSCOPE_NFS4_TEST_H
#define NFSSCOPE_NFS4_TEST_H

#include <stdint.h>
#include <string.h>

#include "nfs4.h"

struct enc {
    uint8_t b[16384];
    size_t n;
};

static inline void
e32(struct enc *e, uint32_t v)
{
    if (e->n + 4 > sizeof e->b)
        return;
    e->b[e->n++] = (uint8_t)(v >> 24);
    e->b[e->n++] = (uint8_t)(v >> 16);
    e->b[e->n++] = (uint8_t)(v >> 8);
    e->b[e->n++] = (uint8_t)v;
}

static inline void
e64(struct enc *e, uint64_t v)
{
    e32(e, (uint32_t)(v >> 32));
    e32(e, (uint32_t)v);
}

static inline void
efixed(struct enc *e, const void *p, size_t n)
{
    if (e->n + n + 3 > sizeof e->b)
        return;
    memcpy(e->b + e->n, p, n);
    e->n += n;
    while (e->n % 4)
        e->b[e->n++] = 0;
}

static inline void
eopaque(struct enc *e, const void *p, size_t n)
{
    e32(e, (uint32_t)n);
    efixed(e, p, n);
}

static inline void
estr(struct enc *e, const char *s)
{
    eopaque(e, s, strlen(s));
}

static inline void
estateid(struct enc *e, uint32_t seqid, uint8_t fill)
{
    uint8_t o[12];

    memset(o, fill, sizeof o);
    e32(e, seqid);
    efixed(e, o, sizeof o);
}

static inline void
efh(struct enc *e, uint8_t fill, size_t len)
{
    uint8_t fh[NFS4_FHSIZE];

    memset(fh, fill, sizeof fh);
    eopaque(e, fh, len);
}

static inline void
ebitmap2(struct enc *e, uint32_t w0, uint32_t w1)
{
    e32(e, 2);
    e32(e, w0);
    e32(e, w1);
}

static inline void
eempty_fattr(struct enc *e)
{
    e32(e, 0); /* bitmap4<> */
    e32(e, 0); /* attrlist4<> */
}

/* fattr4 with type, change, size, fileid, time_access, time_metadata,
 * time_modify (attributes 1, 3, 4, 20, 47, 52, 53). */
static inline void
efattr(struct enc *e, uint64_t size, int64_t atime, int64_t mtime)
{
    struct enc v;

    v.n = 0;
    e32(&v, 1);           /* type NF4REG */
    e64(&v, 0x1234);      /* change */
    e64(&v, size);        /* size */
    e64(&v, 0xabcdef);    /* fileid */
    e64(&v, (uint64_t)atime); /* time_access */
    e32(&v, 5);
    e64(&v, 1700000000);  /* time_metadata */
    e32(&v, 7);
    e64(&v, (uint64_t)mtime); /* time_modify */
    e32(&v, 9);
    ebitmap2(e, 1u << 1 | 1u << 3 | 1u << 4 | 1u << 20, 1u << (47 - 32) | 1u << (52 - 32) | 1u << (53 - 32));
    eopaque(e, v.b, v.n);
}

static inline void
echan(struct enc *e, uint32_t maxreq)
{
    e32(e, 0);      /* headerpadsize */
    e32(e, maxreq); /* maxrequestsize */
    e32(e, 1049620); /* maxresponsesize */
    e32(e, 3428);   /* maxresponsesize_cached */
    e32(e, 8);      /* maxoperations */
    e32(e, 64);     /* maxrequests */
    e32(e, 0);      /* rdma_ird<1> */
}

static inline void
eowner(struct enc *e, uint64_t clientid, const char *owner)
{
    e64(e, clientid);
    estr(e, owner);
}

static inline void
esession(struct enc *e)
{
    uint8_t s[16];
    unsigned i;

    for (i = 0; i < 16; i++)
        s[i] = (uint8_t)(0xa0 + i);
    efixed(e, s, 16);
}

static inline void
enetloc(struct enc *e)
{
    e32(e, 3); /* NL4_NETADDR */
    estr(e, "tcp");
    estr(e, "10.0.0.1.8.1");
}

static inline void
ewrite_response(struct enc *e, uint64_t count, uint32_t committed)
{
    uint8_t v[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

    e32(e, 1); /* wr_callback_id<1> */
    estateid(e, 1, 0x55);
    e64(e, count);
    e32(e, committed);
    efixed(e, v, 8);
}

/* Valid arguments of every forward-channel op (RFC XDR, canonical values). */
static inline void
enc_args(struct enc *e, uint32_t op)
{
    uint8_t verf[8] = { 9, 8, 7, 6, 5, 4, 3, 2 };

    switch (op) {
    case OP_ACCESS: e32(e, 0x1f); break;
    case OP_CLOSE: e32(e, 1); estateid(e, 2, 0x11); break;
    case OP_COMMIT: e64(e, 4096); e32(e, 8192); break;
    case OP_CREATE: e32(e, 5); estr(e, "target"); estr(e, "link"); eempty_fattr(e); break;
    case OP_DELEGPURGE: case OP_RENEW: case OP_DESTROY_CLIENTID: e64(e, 0x77); break;
    case OP_DELEGRETURN: case OP_FREE_STATEID: case OP_OFFLOAD_CANCEL:
    case OP_OFFLOAD_STATUS: estateid(e, 3, 0x22); break;
    case OP_GETATTR: ebitmap2(e, 0x0010011a, 0x00b0a23a); break;
    case OP_LINK: estr(e, "newlink"); break;
    case OP_LOCK:
        e32(e, 2); e32(e, 0); e64(e, 100); e64(e, 200);
        e32(e, 1); e32(e, 4); estateid(e, 5, 0x33); e32(e, 0); eowner(e, 0x99, "lockowner");
        break;
    case OP_LOCKT: e32(e, 1); e64(e, 0); e64(e, ~0ULL); eowner(e, 0x99, "lo"); break;
    case OP_LOCKU: e32(e, 1); e32(e, 2); estateid(e, 6, 0x44); e64(e, 0); e64(e, 10); break;
    case OP_LOOKUP: estr(e, "file.txt"); break;
    case OP_NVERIFY: case OP_VERIFY: efattr(e, 10, 1, 2); break;
    case OP_OPEN:
        e32(e, 0); e32(e, 3); e32(e, 0); eowner(e, 0x99, "open id:\1\2");
        e32(e, 1); e32(e, 3); efixed(e, verf, 8); eempty_fattr(e); /* OPEN4_CREATE EXCLUSIVE4_1 */
        e32(e, CLAIM_NULL); estr(e, "new.dat");
        break;
    case OP_OPENATTR: e32(e, 0); break;
    case OP_OPEN_CONFIRM: estateid(e, 1, 0x12); e32(e, 2); break;
    case OP_OPEN_DOWNGRADE: estateid(e, 1, 0x12); e32(e, 2); e32(e, 1); e32(e, 0); break;
    case OP_PUTFH: efh(e, 0x61, 28); break;
    case OP_READ: estateid(e, 0, 0x66); e64(e, 65536); e32(e, 32768); break;
    case OP_READDIR: e64(e, 0); efixed(e, verf, 8); e32(e, 8192); e32(e, 32768); ebitmap2(e, 0x18, 0); break;
    case OP_REMOVE: estr(e, "gone"); break;
    case OP_RENAME: estr(e, "old"); estr(e, "new"); break;
    case OP_SECINFO: estr(e, "export"); break;
    case OP_SETATTR: estateid(e, 0, 0); efattr(e, 0, 3, 4); break;
    case OP_SETCLIENTID:
        efixed(e, verf, 8); estr(e, "Linux NFSv4.0 client"); e32(e, 0x40000000);
        estr(e, "tcp"); estr(e, "192.168.1.2.3.4"); e32(e, 1);
        break;
    case OP_SETCLIENTID_CONFIRM: e64(e, 0x77); efixed(e, verf, 8); break;
    case OP_WRITE: estateid(e, 0, 0x66); e64(e, 8192); e32(e, DATA_SYNC4); estr(e, "hello, world"); break;
    case OP_RELEASE_LOCKOWNER: eowner(e, 0x99, "lo"); break;
    case OP_BACKCHANNEL_CTL:
        e32(e, 0x40000000); e32(e, 2);
        e32(e, 1); e32(e, 7); estr(e, "host"); e32(e, 0); e32(e, 0); e32(e, 1); e32(e, 100); /* AUTH_SYS */
        e32(e, 6); e32(e, 1); estr(e, "h1"); estr(e, "h2"); /* RPCSEC_GSS */
        break;
    case OP_BIND_CONN_TO_SESSION: esession(e); e32(e, 3); e32(e, 0); break;
    case OP_EXCHANGE_ID:
        efixed(e, verf, 8); estr(e, "Linux NFSv4.1 host"); e32(e, 0x101);
        e32(e, 2); /* SP4_SSV */
        ebitmap2(e, 1, 0); ebitmap2(e, 0, 2);
        e32(e, 1); estr(e, "oid1"); e32(e, 0); e32(e, 16); e32(e, 2);
        e32(e, 1); estr(e, "kernel.org"); estr(e, "Linux 6.1"); e64(e, 0); e32(e, 0);
        break;
    case OP_CREATE_SESSION:
        e64(e, 0x1122); e32(e, 1); e32(e, 3); echan(e, 1049620); echan(e, 4096);
        e32(e, 0x40000000); e32(e, 1); e32(e, 0); /* AUTH_NONE */
        break;
    case OP_DESTROY_SESSION: esession(e); break;
    case OP_GET_DIR_DELEGATION:
        e32(e, 0); ebitmap2(e, 1, 0); e64(e, 0); e32(e, 0); e64(e, 0); e32(e, 0);
        ebitmap2(e, 0, 0); ebitmap2(e, 0, 0);
        break;
    case OP_GETDEVICEINFO: esession(e); e32(e, 1); e32(e, 4096); ebitmap2(e, 6, 0); break;
    case OP_GETDEVICELIST: e32(e, 1); e32(e, 16); e64(e, 0); efixed(e, verf, 8); break;
    case OP_LAYOUTCOMMIT:
        e64(e, 0); e64(e, 4096); e32(e, 0); estateid(e, 1, 1);
        e32(e, 1); e64(e, 4095); e32(e, 1); e64(e, 5); e32(e, 6);
        e32(e, 1); estr(e, "upd");
        break;
    case OP_LAYOUTGET: e32(e, 0); e32(e, 1); e32(e, 2); e64(e, 0); e64(e, ~0ULL); e64(e, 0); estateid(e, 1, 1); e32(e, 4096); break;
    case OP_LAYOUTRETURN: e32(e, 0); e32(e, 1); e32(e, 3); e32(e, 1); e64(e, 0); e64(e, ~0ULL); estateid(e, 1, 1); estr(e, "body"); break;
    case OP_SECINFO_NO_NAME: e32(e, 0); break;
    case OP_SEQUENCE: esession(e); e32(e, 42); e32(e, 3); e32(e, 7); e32(e, 1); break;
    case OP_SET_SSV: estr(e, "ssv"); estr(e, "digest"); break;
    case OP_TEST_STATEID: e32(e, 2); estateid(e, 1, 1); estateid(e, 2, 2); break;
    case OP_WANT_DELEGATION: e32(e, 0x100); e32(e, CLAIM_PREVIOUS); e32(e, 1); break;
    case OP_RECLAIM_COMPLETE: e32(e, 0); break;
    case OP_ALLOCATE: case OP_DEALLOCATE: estateid(e, 1, 1); e64(e, 0); e64(e, 1 << 20); break;
    case OP_COPY:
        estateid(e, 1, 1); estateid(e, 2, 2); e64(e, 0); e64(e, 4096); e64(e, 1 << 20);
        e32(e, 1); e32(e, 1); e32(e, 1); enetloc(e);
        break;
    case OP_COPY_NOTIFY: estateid(e, 1, 1); enetloc(e); break;
    case OP_IO_ADVISE: estateid(e, 1, 1); e64(e, 0); e64(e, 4096); ebitmap2(e, 2, 0); break;
    case OP_LAYOUTERROR: {
        uint8_t dev[16] = { 0 };
        e64(e, 0); e64(e, 10); estateid(e, 1, 1); e32(e, 1); efixed(e, dev, 16); e32(e, 5); e32(e, OP_READ);
        break;
    }
    case OP_LAYOUTSTATS: {
        uint8_t dev[16] = { 0 };
        e64(e, 0); e64(e, 10); estateid(e, 1, 1); e64(e, 1); e64(e, 2); e64(e, 3); e64(e, 4);
        efixed(e, dev, 16); e32(e, 1); estr(e, "lu");
        break;
    }
    case OP_READ_PLUS: estateid(e, 0, 0x66); e64(e, 0); e32(e, 65536); break;
    case OP_SEEK: estateid(e, 0, 0x66); e64(e, 0); e32(e, 1); break;
    case OP_WRITE_SAME:
        estateid(e, 1, 1); e32(e, UNSTABLE4); e64(e, 0); e64(e, 512); e64(e, 8); e64(e, 0); e32(e, 0); e64(e, 0);
        estr(e, "pattern");
        break;
    case OP_CLONE: estateid(e, 1, 1); estateid(e, 2, 2); e64(e, 0); e64(e, 8192); e64(e, 4096); break;
    case OP_GETXATTR: case OP_REMOVEXATTR: estr(e, "user.a"); break;
    case OP_SETXATTR: e32(e, 1); estr(e, "user.a"); estr(e, "value!"); break;
    case OP_LISTXATTRS: e64(e, 0); e32(e, 4096); break;
    default: break; /* void: GETFH, LOOKUPP, PUTPUBFH, PUTROOTFH, READLINK, RESTOREFH, SAVEFH, ILLEGAL */
    }
}

/* A valid NFS4_OK result body (after the status) of every forward op. */
static inline void
enc_resok(struct enc *e, uint32_t op)
{
    uint8_t verf[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

    switch (op) {
    case OP_ACCESS: e32(e, 0x1f); e32(e, 0x0f); break;
    case OP_CLOSE: case OP_LOCK: case OP_LOCKU: case OP_OPEN_CONFIRM: case OP_OPEN_DOWNGRADE:
        estateid(e, 9, 0x99); break;
    case OP_COMMIT: efixed(e, verf, 8); break;
    case OP_CREATE: e32(e, 1); e64(e, 1); e64(e, 2); ebitmap2(e, 0, 0); break;
    case OP_GETATTR: efattr(e, 4096, 100, 200); break;
    case OP_GETFH: efh(e, 0x62, 36); break;
    case OP_LINK: case OP_REMOVE: case OP_SETXATTR: case OP_REMOVEXATTR: e32(e, 0); e64(e, 1); e64(e, 2); break;
    case OP_RENAME: e32(e, 0); e64(e, 1); e64(e, 2); e32(e, 1); e64(e, 3); e64(e, 4); break;
    case OP_OPEN:
        estateid(e, 1, 0x70); e32(e, 1); e64(e, 1); e64(e, 2); e32(e, 4); ebitmap2(e, 0, 0);
        e32(e, OPEN_DELEGATE_WRITE); estateid(e, 1, 0x71); e32(e, 0);
        e32(e, 1); e64(e, 1 << 20); /* NFS_LIMIT_SIZE */
        e32(e, 0); e32(e, 0); e32(e, 0); estr(e, "EVERYONE@");
        break;
    case OP_READ: e32(e, 1); estr(e, "file data"); break;
    case OP_READDIR:
        efixed(e, verf, 8);
        e32(e, 1); e64(e, 1); estr(e, "a"); efattr(e, 1, 2, 3);
        e32(e, 1); e64(e, 2); estr(e, "b"); eempty_fattr(e);
        e32(e, 0); e32(e, 1);
        break;
    case OP_READLINK: case OP_GETXATTR: estr(e, "/some/where"); break;
    case OP_SECINFO: case OP_SECINFO_NO_NAME:
        e32(e, 2); e32(e, 6); estr(e, "\x2a\x86\x48"); e32(e, 0); e32(e, 1); e32(e, 1);
        break;
    case OP_SETATTR: ebitmap2(e, 0x10, 0); break;
    case OP_SETCLIENTID: e64(e, 0xc1d); efixed(e, verf, 8); break;
    case OP_WRITE: e32(e, 12); e32(e, FILE_SYNC4); efixed(e, verf, 8); break;
    case OP_BIND_CONN_TO_SESSION: esession(e); e32(e, 3); e32(e, 0); break;
    case OP_EXCHANGE_ID:
        e64(e, 0xc11e); e32(e, 1); e32(e, 0x10001);
        e32(e, 1); ebitmap2(e, 1, 0); ebitmap2(e, 2, 0); /* SP4_MACH_CRED */
        e64(e, 0); estr(e, "major"); estr(e, "scope");
        e32(e, 1); estr(e, "ganesha"); estr(e, "4.3"); e64(e, 0); e32(e, 0);
        break;
    case OP_CREATE_SESSION: esession(e); e32(e, 1); e32(e, 2); echan(e, 1049620); echan(e, 4096); break;
    case OP_GET_DIR_DELEGATION:
        e32(e, 0); efixed(e, verf, 8); estateid(e, 1, 1); ebitmap2(e, 0, 0); ebitmap2(e, 0, 0); ebitmap2(e, 0, 0);
        break;
    case OP_GETDEVICEINFO: e32(e, 0x80000001); estr(e, "addr"); ebitmap2(e, 0, 0); break; /* a private layout type: the body is opaque */
    case OP_GETDEVICELIST: {
        uint8_t dev[16] = { 0 };
        e64(e, 0); efixed(e, verf, 8); e32(e, 2); efixed(e, dev, 16); efixed(e, dev, 16); e32(e, 1);
        break;
    }
    case OP_LAYOUTCOMMIT: e32(e, 1); e64(e, 8192); break;
    case OP_LAYOUTGET:
        e32(e, 0); estateid(e, 1, 1); e32(e, 1); e64(e, 0); e64(e, ~0ULL); e32(e, 2); e32(e, 0x80000001); estr(e, "layout");
        break;
    case OP_LAYOUTRETURN: e32(e, 1); estateid(e, 1, 1); break;
    case OP_SEQUENCE: esession(e); e32(e, 42); e32(e, 3); e32(e, 63); e32(e, 31); e32(e, 0x20); break;
    case OP_SET_SSV: estr(e, "digest"); break;
    case OP_TEST_STATEID: e32(e, 2); e32(e, 0); e32(e, 10025); break;
    case OP_WANT_DELEGATION: e32(e, OPEN_DELEGATE_NONE_EXT); e32(e, 1); e32(e, 1); break;
    case OP_COPY: ewrite_response(e, 1 << 20, FILE_SYNC4); e32(e, 1); e32(e, 1); break;
    case OP_COPY_NOTIFY: e64(e, 90); e32(e, 0); estateid(e, 1, 1); e32(e, 1); enetloc(e); break;
    case OP_IO_ADVISE: ebitmap2(e, 2, 0); break;
    case OP_OFFLOAD_STATUS: e64(e, 4096); e32(e, 1); e32(e, 0); break;
    case OP_READ_PLUS:
        e32(e, 1); e32(e, 2);
        e32(e, 0); e64(e, 0); estr(e, "data!"); /* NFS4_CONTENT_DATA */
        e32(e, 1); e64(e, 5); e64(e, 4091);    /* NFS4_CONTENT_HOLE */
        break;
    case OP_SEEK: e32(e, 0); e64(e, 12288); break;
    case OP_WRITE_SAME: ewrite_response(e, 4096, UNSTABLE4); break;
    case OP_LISTXATTRS: e64(e, 0); e32(e, 2); estr(e, "user.a"); estr(e, "user.b"); e32(e, 1); break;
    default: break; /* status only */
    }
}

/* Valid arguments of every callback op (RFC 8881 §20). */
static inline void
enc_cb_args(struct enc *e, uint32_t op)
{
    switch (op) {
    case OP_CB_GETATTR: efh(e, 0x63, 32); ebitmap2(e, 0x18, 0); break;
    case OP_CB_RECALL: estateid(e, 1, 0x71); e32(e, 0); efh(e, 0x63, 32); break;
    case OP_CB_LAYOUTRECALL:
        e32(e, 1); e32(e, 3); e32(e, 1); e32(e, 1); efh(e, 0x63, 32); e64(e, 0); e64(e, ~0ULL); estateid(e, 1, 1);
        break;
    case OP_CB_NOTIFY: estateid(e, 1, 1); efh(e, 0x63, 32); e32(e, 1); ebitmap2(e, 1 << 3, 0); estr(e, "vals"); break;
    case OP_CB_PUSH_DELEG:
        efh(e, 0x63, 32); e32(e, OPEN_DELEGATE_READ); estateid(e, 1, 0x72); e32(e, 0);
        e32(e, 0); e32(e, 0); e32(e, 0); estr(e, "EVERYONE@");
        break;
    case OP_CB_RECALL_ANY: case OP_CB_RECALLABLE_OBJ_AVAIL: e32(e, 10); ebitmap2(e, 1, 0); break;
    case OP_CB_RECALL_SLOT: e32(e, 7); break;
    case OP_CB_SEQUENCE:
        esession(e); e32(e, 5); e32(e, 0); e32(e, 0); e32(e, 0);
        e32(e, 1); esession(e); e32(e, 1); e32(e, 41); e32(e, 2);
        break;
    case OP_CB_WANTS_CANCELLED: e32(e, 1); e32(e, 0); break;
    case OP_CB_NOTIFY_LOCK: efh(e, 0x63, 32); eowner(e, 0x99, "lockowner"); break;
    case OP_CB_NOTIFY_DEVICEID: e32(e, 1); ebitmap2(e, 2, 0); estr(e, "dev"); break;
    case OP_CB_OFFLOAD: efh(e, 0x63, 32); estateid(e, 1, 1); e32(e, 0); ewrite_response(e, 4096, FILE_SYNC4); break;
    default: break; /* CB_ILLEGAL */
    }
}

static inline void
enc_cb_resok(struct enc *e, uint32_t op)
{
    switch (op) {
    case OP_CB_GETATTR: efattr(e, 99, 1, 2); break;
    case OP_CB_SEQUENCE: esession(e); e32(e, 5); e32(e, 0); e32(e, 0); e32(e, 0); break;
    default: break;
    }
}

#endif
