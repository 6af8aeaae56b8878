/* SPDX-License-Identifier: BSD-3-Clause */
/* rpc_match_test.c: unit tests for call/reply matching (RFC 5531 §9). */
#include "rpc_match.h"

#include <stdlib.h>

#include "config.h"
#include "rpc.h"
#include "t.h"

/* ---- messages (record marks removed) ---- */

/* NFSv3 GETATTR call, AUTH_NONE, xid 0x01000001. */
static const uint8_t getattr_call[] = {
    0x01, 0x00, 0x00, 0x01, /* xid */
    0x00, 0x00, 0x00, 0x00, /* msg_type CALL */
    0x00, 0x00, 0x00, 0x02, /* rpcvers 2 */
    0x00, 0x01, 0x86, 0xa3, /* prog 100003 */
    0x00, 0x00, 0x00, 0x03, /* vers 3 */
    0x00, 0x00, 0x00, 0x01, /* proc GETATTR */
    0x00, 0x00, 0x00, 0x00, /* cred AUTH_NONE */
    0x00, 0x00, 0x00, 0x00, /* cred length 0 */
    0x00, 0x00, 0x00, 0x00, /* verf AUTH_NONE */
    0x00, 0x00, 0x00, 0x00, /* verf length 0 */
    0x00, 0x00, 0x00, 0x08, /* GETATTR3args: fh length 8 */
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* fh */
};

/* fattr3 (RFC 1813 §2.6): 84 bytes. */
#define FATTR3                                                                                     \
    0x00, 0x00, 0x00, 0x02,                         /* type NF3DIR */                              \
    0x00, 0x00, 0x01, 0xed,                         /* mode 0755 */                                \
    0x00, 0x00, 0x00, 0x02,                         /* nlink */                                    \
    0x00, 0x00, 0x00, 0x00,                         /* uid */                                      \
    0x00, 0x00, 0x00, 0x00,                         /* gid */                                      \
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, /* size */                                     \
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, /* used */                                     \
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* rdev */                                     \
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, /* fsid */                                     \
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, /* fileid */                                   \
    0x60, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* atime */                                    \
    0x60, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* mtime */                                    \
    0x60, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00  /* ctime */

/* Accepted SUCCESS reply to xid 0x01000001: GETATTR3res NFS3_OK. */
static const uint8_t getattr_reply[] = {
    0x01, 0x00, 0x00, 0x01, /* xid */
    0x00, 0x00, 0x00, 0x01, /* msg_type REPLY */
    0x00, 0x00, 0x00, 0x00, /* reply_stat MSG_ACCEPTED */
    0x00, 0x00, 0x00, 0x00, /* verf AUTH_NONE */
    0x00, 0x00, 0x00, 0x00, /* verf length 0 */
    0x00, 0x00, 0x00, 0x00, /* accept_stat SUCCESS */
    0x00, 0x00, 0x00, 0x00, /* status NFS3_OK */
    FATTR3,                 /* obj_attributes */
};

/* NFSv3 LOOKUP call, AUTH_NONE, xid 0x02000002. */
static const uint8_t lookup_call[] = {
    0x02, 0x00, 0x00, 0x02, /* xid */
    0x00, 0x00, 0x00, 0x00, /* msg_type CALL */
    0x00, 0x00, 0x00, 0x02, /* rpcvers 2 */
    0x00, 0x01, 0x86, 0xa3, /* prog 100003 */
    0x00, 0x00, 0x00, 0x03, /* vers 3 */
    0x00, 0x00, 0x00, 0x03, /* proc LOOKUP */
    0x00, 0x00, 0x00, 0x00, /* cred AUTH_NONE */
    0x00, 0x00, 0x00, 0x00, /* cred length 0 */
    0x00, 0x00, 0x00, 0x00, /* verf AUTH_NONE */
    0x00, 0x00, 0x00, 0x00, /* verf length 0 */
    0x00, 0x00, 0x00, 0x04, /* diropargs3: dir fh length 4 */
    0xaa, 0xbb, 0xcc, 0xdd, /* fh */
    0x00, 0x00, 0x00, 0x03, /* name length 3 */
    'f',  'o',  'o',  0x00, /* "foo" + padding */
};

/* LOOKUP3res NFS3ERR_NOENT, xid 0x02000002. */
static const uint8_t lookup_reply_noent[] = {
    0x02, 0x00, 0x00, 0x02, /* xid */
    0x00, 0x00, 0x00, 0x01, /* msg_type REPLY */
    0x00, 0x00, 0x00, 0x00, /* reply_stat MSG_ACCEPTED */
    0x00, 0x00, 0x00, 0x00, /* verf AUTH_NONE */
    0x00, 0x00, 0x00, 0x00, /* verf length 0 */
    0x00, 0x00, 0x00, 0x00, /* accept_stat SUCCESS */
    0x00, 0x00, 0x00, 0x02, /* status NFS3ERR_NOENT */
    0x00, 0x00, 0x00, 0x00, /* dir_attributes: attributes_follow FALSE */
};

/* MSG_DENIED AUTH_ERROR (AUTH_BADCRED), xid 0x01000001. */
static const uint8_t denied_reply[] = {
    0x01, 0x00, 0x00, 0x01, /* xid */
    0x00, 0x00, 0x00, 0x01, /* msg_type REPLY */
    0x00, 0x00, 0x00, 0x01, /* reply_stat MSG_DENIED */
    0x00, 0x00, 0x00, 0x01, /* reject_stat AUTH_ERROR */
    0x00, 0x00, 0x00, 0x01, /* auth_stat AUTH_BADCRED */
};

/* A call to an undecoded program (400000 v1 proc 5), xid 0x04000004. */
static const uint8_t other_call[] = {
    0x04, 0x00, 0x00, 0x04, /* xid */
    0x00, 0x00, 0x00, 0x00, /* msg_type CALL */
    0x00, 0x00, 0x00, 0x02, /* rpcvers 2 */
    0x00, 0x06, 0x1a, 0x80, /* prog 400000 */
    0x00, 0x00, 0x00, 0x01, /* vers 1 */
    0x00, 0x00, 0x00, 0x05, /* proc 5 */
    0x00, 0x00, 0x00, 0x00, /* cred AUTH_NONE */
    0x00, 0x00, 0x00, 0x00, /* cred length 0 */
    0x00, 0x00, 0x00, 0x00, /* verf AUTH_NONE */
    0x00, 0x00, 0x00, 0x00, /* verf length 0 */
    0x00, 0x00, 0x00, 0x2a, /* arguments (opaque to us) */
};

static const uint8_t other_reply[] = {
    0x04, 0x00, 0x00, 0x04, /* xid */
    0x00, 0x00, 0x00, 0x01, /* msg_type REPLY */
    0x00, 0x00, 0x00, 0x00, /* reply_stat MSG_ACCEPTED */
    0x00, 0x00, 0x00, 0x00, /* verf AUTH_NONE */
    0x00, 0x00, 0x00, 0x00, /* verf length 0 */
    0x00, 0x00, 0x00, 0x00, /* accept_stat SUCCESS */
    0x00, 0x00, 0x00, 0x07, /* results (opaque to us) */
};

/* NFSv3 WRITE FILE_SYNC 4096 bytes, AUTH_SYS, xid 0x07000007 (data not in the head). */
static const uint8_t write_call[] = {
    0x07, 0x00, 0x00, 0x07, /* xid */
    0x00, 0x00, 0x00, 0x00, /* msg_type CALL */
    0x00, 0x00, 0x00, 0x02, /* rpcvers 2 */
    0x00, 0x01, 0x86, 0xa3, /* prog 100003 */
    0x00, 0x00, 0x00, 0x03, /* vers 3 */
    0x00, 0x00, 0x00, 0x07, /* proc WRITE */
    0x00, 0x00, 0x00, 0x01, /* cred AUTH_SYS */
    0x00, 0x00, 0x00, 0x1c, /* cred length 28 */
    0x00, 0x00, 0x00, 0x00, /*   stamp */
    0x00, 0x00, 0x00, 0x04, /*   machinename length 4 */
    'h',  'o',  's',  't',  /*   "host" */
    0x00, 0x00, 0x03, 0xe8, /*   uid 1000 */
    0x00, 0x00, 0x00, 0x64, /*   gid 100 */
    0x00, 0x00, 0x00, 0x01, /*   gids count 1 */
    0x00, 0x00, 0x00, 0x64, /*   gid 100 */
    0x00, 0x00, 0x00, 0x00, /* verf AUTH_NONE */
    0x00, 0x00, 0x00, 0x00, /* verf length 0 */
    0x00, 0x00, 0x00, 0x04, /* WRITE3args: fh length 4 */
    0xaa, 0xbb, 0xcc, 0xdd, /* fh */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* offset 0 */
    0x00, 0x00, 0x10, 0x00, /* count 4096 */
    0x00, 0x00, 0x00, 0x02, /* stable FILE_SYNC */
    0x00, 0x00, 0x10, 0x00, /* data length 4096 */
};

static const uint8_t write_reply[] = {
    0x07, 0x00, 0x00, 0x07, /* xid */
    0x00, 0x00, 0x00, 0x01, /* msg_type REPLY */
    0x00, 0x00, 0x00, 0x00, /* reply_stat MSG_ACCEPTED */
    0x00, 0x00, 0x00, 0x00, /* verf AUTH_NONE */
    0x00, 0x00, 0x00, 0x00, /* verf length 0 */
    0x00, 0x00, 0x00, 0x00, /* accept_stat SUCCESS */
    0x00, 0x00, 0x00, 0x00, /* status NFS3_OK */
    0x00, 0x00, 0x00, 0x00, /* file_wcc.before: FALSE */
    0x00, 0x00, 0x00, 0x00, /* file_wcc.after: FALSE */
    0x00, 0x00, 0x10, 0x00, /* count 4096 */
    0x00, 0x00, 0x00, 0x02, /* committed FILE_SYNC */
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* writeverf3 */
};

/* ---- fixture ---- */

enum { P_GETATTR = 1, P_LOOKUP = 3, P_WRITE = 7 };

/* ---- RPCSEC_GSS (RFC 2203) and RPC-over-TLS (RFC 9289) ---- */

/* The call header up to the credential, then an RPCSEC_GSS credential
 * (rpc_gss_cred_vers_1_t, RFC 2203 §5): 24 bytes with a 4-byte handle. */
#define GSS_CALL(xid3, proc, gss_proc, seq, service)                                             \
    0x0a, 0x00, 0x00, xid3,   /* xid */                                                         \
    0x00, 0x00, 0x00, 0x00,   /* msg_type CALL */                                               \
    0x00, 0x00, 0x00, 0x02,   /* rpcvers 2 */                                                   \
    0x00, 0x01, 0x86, 0xa3,   /* prog 100003 */                                                 \
    0x00, 0x00, 0x00, 0x03,   /* vers 3 */                                                      \
    0x00, 0x00, 0x00, proc,   /* proc */                                                        \
    0x00, 0x00, 0x00, 0x06,   /* cred flavor RPCSEC_GSS */                                      \
    0x00, 0x00, 0x00, 0x18,   /* cred length 24 */                                              \
    0x00, 0x00, 0x00, 0x01,   /*   version RPCSEC_GSS_VERS_1 */                                 \
    0x00, 0x00, 0x00, gss_proc, /* gss_proc */                                                  \
    0x00, 0x00, 0x00, seq,    /*   seq_num */                                                   \
    0x00, 0x00, 0x00, service, /*  service */                                                   \
    0x00, 0x00, 0x00, 0x04,   /*   handle length 4 */                                           \
    'h',  'n',  'd',  'l'     /*   handle */

/* The verifier of a DATA call: RPCSEC_GSS, an 8-byte checksum (RFC 2203 §5.3.1). */
#define GSS_VERF8                                                                                \
    0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x08, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88

/* krb5i LOOKUP "foo": rpc_gss_integ_data (RFC 2203 §5.3.2.2) after the verifier. */
static const uint8_t gss_integ_lookup_call[] = {
    GSS_CALL(0x0a, 3, 0, 9, 2), /* LOOKUP, RPCSEC_GSS_DATA, seq 9, integrity */
    GSS_VERF8,
    0x00, 0x00, 0x00, 0x14, /* databody_integ length 20 */
    0x00, 0x00, 0x00, 0x09, /*   seq_num 9 */
    0x00, 0x00, 0x00, 0x04, /*   diropargs3: dir fh length 4 */
    0xaa, 0xbb, 0xcc, 0xdd, /*   fh */
    0x00, 0x00, 0x00, 0x03, /*   name length 3 */
    'f',  'o',  'o',  0x00, /*   "foo" + padding */
    0x00, 0x00, 0x00, 0x04, /* checksum length 4 */
    0xde, 0xad, 0xbe, 0xef, /* checksum */
};

/* Its reply: a 12-byte RPCSEC_GSS verifier (the checksum of seq_num, RFC
 * 2203 §5.3.3.2), then LOOKUP3res NFS3ERR_NOENT inside rpc_gss_integ_data. */
static const uint8_t gss_integ_lookup_reply[] = {
    0x0a, 0x00, 0x00, 0x0a, /* xid */
    0x00, 0x00, 0x00, 0x01, /* msg_type REPLY */
    0x00, 0x00, 0x00, 0x00, /* reply_stat MSG_ACCEPTED */
    0x00, 0x00, 0x00, 0x06, /* verf flavor RPCSEC_GSS */
    0x00, 0x00, 0x00, 0x0c, /* verf length 12 */
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c,
    0x00, 0x00, 0x00, 0x00, /* accept_stat SUCCESS */
    0x00, 0x00, 0x00, 0x0c, /* databody_integ length 12 */
    0x00, 0x00, 0x00, 0x09, /*   seq_num 9 */
    0x00, 0x00, 0x00, 0x02, /*   status NFS3ERR_NOENT */
    0x00, 0x00, 0x00, 0x00, /*   dir_attributes: attributes_follow FALSE */
    0x00, 0x00, 0x00, 0x04, /* checksum length 4 */
    0xca, 0xfe, 0xba, 0xbe, /* checksum */
};

/* krb5i GETATTR whose databody_integ claims more bytes than the message has. */
static const uint8_t gss_integ_bad_call[] = {
    GSS_CALL(0x0b, 1, 0, 10, 2),
    GSS_VERF8,
    0x00, 0x00, 0x01, 0x00, /* databody_integ length 256: past the end */
    0x00, 0x00, 0x00, 0x0a, /*   seq_num 10 */
    0x00, 0x00, 0x00, 0x04, /*   fh length 4 */
    0xaa, 0xbb, 0xcc, 0xdd, /*   fh */
};

/* krb5p GETATTR: rpc_gss_priv_data (RFC 2203 §5.3.2.3), an encrypted blob. */
static const uint8_t gss_priv_getattr_call[] = {
    GSS_CALL(0x0c, 1, 0, 11, 3), /* GETATTR, DATA, seq 11, privacy */
    GSS_VERF8,
    0x00, 0x00, 0x00, 0x10, /* databody_priv length 16 */
    0x9c, 0x41, 0x07, 0xee, 0x12, 0x00, 0x00, 0x03, 0x7f, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
};

static const uint8_t gss_priv_getattr_reply[] = {
    0x0a, 0x00, 0x00, 0x0c, /* xid */
    0x00, 0x00, 0x00, 0x01, /* msg_type REPLY */
    0x00, 0x00, 0x00, 0x00, /* reply_stat MSG_ACCEPTED */
    GSS_VERF8,              /* verifier */
    0x00, 0x00, 0x00, 0x00, /* accept_stat SUCCESS */
    0x00, 0x00, 0x00, 0x08, /* databody_priv length 8 */
    0x00, 0x00, 0x00, 0x05, 0xff, 0xff, 0xff, 0xff, /* (would read as NFS3ERR_IO if decoded) */
};

/* RPCSEC_GSS_INIT (RFC 2203 §5.2.2): NULL procedure, gss_proc 1, an empty
 * handle, verifier AUTH_NONE, rpc_gss_init_arg (a GSS token). */
static const uint8_t gss_init_call[] = {
    0x0a, 0x00, 0x00, 0x0d, /* xid */
    0x00, 0x00, 0x00, 0x00, /* msg_type CALL */
    0x00, 0x00, 0x00, 0x02, /* rpcvers 2 */
    0x00, 0x01, 0x86, 0xa3, /* prog 100003 */
    0x00, 0x00, 0x00, 0x03, /* vers 3 */
    0x00, 0x00, 0x00, 0x00, /* proc NULL */
    0x00, 0x00, 0x00, 0x06, /* cred flavor RPCSEC_GSS */
    0x00, 0x00, 0x00, 0x14, /* cred length 20 */
    0x00, 0x00, 0x00, 0x01, /*   version 1 */
    0x00, 0x00, 0x00, 0x01, /*   gss_proc RPCSEC_GSS_INIT */
    0x00, 0x00, 0x00, 0x00, /*   seq_num 0 */
    0x00, 0x00, 0x00, 0x01, /*   service none */
    0x00, 0x00, 0x00, 0x00, /*   handle length 0 */
    0x00, 0x00, 0x00, 0x00, /* verf AUTH_NONE */
    0x00, 0x00, 0x00, 0x00, /* verf length 0 */
    0x00, 0x00, 0x00, 0x08, /* gss_token length 8 */
    0x60, 0x82, 0x02, 0x10, 0x06, 0x09, 0x2a, 0x86,
};

/* rpc_gss_init_res (RFC 2203 §5.2.3.1): handle, major, minor, window, token. */
static const uint8_t gss_init_reply[] = {
    0x0a, 0x00, 0x00, 0x0d, /* xid */
    0x00, 0x00, 0x00, 0x01, /* msg_type REPLY */
    0x00, 0x00, 0x00, 0x00, /* reply_stat MSG_ACCEPTED */
    0x00, 0x00, 0x00, 0x00, /* verf AUTH_NONE */
    0x00, 0x00, 0x00, 0x00, /* verf length 0 */
    0x00, 0x00, 0x00, 0x00, /* accept_stat SUCCESS */
    0x00, 0x00, 0x00, 0x04, /* handle length 4 */
    'h',  'n',  'd',  'l',
    0x00, 0x00, 0x00, 0x00, /* gss_major GSS_S_COMPLETE */
    0x00, 0x00, 0x00, 0x00, /* gss_minor */
    0x00, 0x00, 0x00, 0x80, /* seq_window 128 */
    0x00, 0x00, 0x00, 0x00, /* gss_token length 0 */
};

/* RPCSEC_GSS_DESTROY (RFC 2203 §5.4): NULL procedure, gss_proc 3. */
static const uint8_t gss_destroy_call[] = {
    GSS_CALL(0x0e, 0, 3, 12, 1),
    GSS_VERF8,
};

/* The AUTH_TLS probe (RFC 9289 §4.1): NULL with credential flavor 7. */
static const uint8_t tls_probe_call[] = {
    0x0a, 0x00, 0x00, 0x0f, /* xid */
    0x00, 0x00, 0x00, 0x00, /* msg_type CALL */
    0x00, 0x00, 0x00, 0x02, /* rpcvers 2 */
    0x00, 0x01, 0x86, 0xa3, /* prog 100003 */
    0x00, 0x00, 0x00, 0x04, /* vers 4 */
    0x00, 0x00, 0x00, 0x00, /* proc NULL */
    0x00, 0x00, 0x00, 0x07, /* cred flavor AUTH_TLS */
    0x00, 0x00, 0x00, 0x00, /* cred length 0 */
    0x00, 0x00, 0x00, 0x00, /* verf AUTH_NONE */
    0x00, 0x00, 0x00, 0x00, /* verf length 0 */
};

/* Its answer: verifier AUTH_NONE with the body "STARTTLS". */
static const uint8_t tls_probe_reply[] = {
    0x0a, 0x00, 0x00, 0x0f, /* xid */
    0x00, 0x00, 0x00, 0x01, /* msg_type REPLY */
    0x00, 0x00, 0x00, 0x00, /* reply_stat MSG_ACCEPTED */
    0x00, 0x00, 0x00, 0x00, /* verf AUTH_NONE */
    0x00, 0x00, 0x00, 0x08, /* verf length 8 */
    'S',  'T',  'A',  'R',  'T', 'T', 'L', 'S',
    0x00, 0x00, 0x00, 0x00, /* accept_stat SUCCESS */
};

static struct nfsscope_config cfg;
static struct stats st;
static struct rpc_match m;
static struct flow fa, fb;
static const struct prog_stats *nfs;
static struct consumers out;

static void
to_stats(void *self, const struct op_event *ev)
{
    stats_record(self, ev);
}

static void
setup(void)
{
    config_defaults(&cfg);
    EQ(stats_init(&st), 0);
    EQ(rpc_match_init(&m, &cfg, &st, 0x1234), 0);
    consumers_init(&out);
    CHECK(consumers_add(&out, "stats", to_stats, NULL, &st));
    m.out = &out;
    memset(&fa, 0, sizeof fa);
    memset(&fb, 0, sizeof fb);
    fa.id = 1;
    fb.id = 2;
    nfs = stats_prog_by_name(&st, "nfs3");
    CHECK(nfs != NULL);
}

static void
teardown(void)
{
    rpc_match_fini(&m);
    stats_fini(&st);
}

static uint64_t
anomalies_total(void)
{
    uint64_t n = 0;
    unsigned i;

    for (i = 0; i < ANOM__COUNT; i++)
        n += st.anom.n[i];
    return n;
}

/* Feed one message; times in nanoseconds since 100 s. The bytes are copied to
 * an exact-size heap buffer so ASan sees any overread. */
static void
feed(struct flow *f, unsigned dir, const uint8_t *p, size_t n, uint32_t msg_len, long ns_first,
     long ns_last, bool udp)
{
    uint8_t *q = malloc(n ? n : 1);
    struct rpc_msg_view v;

    if (n)
        memcpy(q, p, n);
    memset(&v, 0, sizeof v);
    v.head.p = q;
    v.head.len = n;
    v.msg_len = msg_len;
    v.ts_first.tv_sec = 100 + ns_first / 1000000000;
    v.ts_first.tv_nsec = ns_first % 1000000000;
    v.ts_last.tv_sec = 100 + ns_last / 1000000000;
    v.ts_last.tv_nsec = ns_last % 1000000000;
    rpc_match_message(&m, f, dir, &v, udp);
    free(q);
}

#define FEED(f, dir, arr, t0, t1) feed(f, dir, arr, sizeof arr, sizeof arr, t0, t1, false)

/* ---- tests ---- */

static void
test_matched(void)
{
    const struct proc_stats *p;

    setup();
    FEED(&fa, 0, getattr_call, 0, 200000);          /* delivered at 100.000200 */
    FEED(&fa, 1, getattr_reply, 1000000, 1700000);  /* delivered at 100.001700 */
    p = &nfs->procs[P_GETATTR];
    EQ(st.rpc.calls, 1);
    EQ(st.rpc.replies, 1);
    EQ(nfs->calls, 1);
    EQ(nfs->replies, 1);
    EQ(p->calls, 1);
    EQ(p->replies, 1);
    EQ(p->errors, 0);
    EQ(p->partial, 0);
    EQ(p->latency.count, 1);
    EQ(p->latency.min, 1500); /* ts_last to ts_last, in microseconds */
    EQ(p->latency.max, 1500);
    EQ(p->nstatus, 1);
    EQ(p->status[0].status, 0);
    EQ(p->status[0].count, 1);
    EQ(st.rpc.auth_none, 1);
    EQ(st.rpc.orphan_replies, 0);
    EQ(fa.rpc_seen, 1);
    EQ(anomalies_total(), 0);
    rpc_match_flush(&m);
    EQ(st.rpc.unanswered_calls, 0); /* answered calls are not lost */

    /* LOOKUP NOENT on the same flow */
    FEED(&fa, 0, lookup_call, 2000000, 2000000);
    FEED(&fa, 1, lookup_reply_noent, 2500000, 2500000);
    p = &nfs->procs[P_LOOKUP];
    EQ(p->calls, 1);
    EQ(p->replies, 1);
    EQ(p->errors, 1);
    EQ(p->nstatus, 1);
    EQ(p->status[0].status, 2);
    EQ(p->latency.max, 500);
    EQ(anomalies_total(), 0);
    teardown();
}

static void
test_orphan_and_unanswered(void)
{
    setup();
    FEED(&fa, 1, getattr_reply, 0, 0); /* reply first: no call seen */
    EQ(st.rpc.orphan_replies, 1);
    EQ(st.rpc.replies, 0);
    EQ(nfs->procs[P_GETATTR].replies, 0);
    FEED(&fa, 0, getattr_call, 1000, 1000); /* its call, too late */
    EQ(st.rpc.calls, 1);
    rpc_match_flush(&m);
    EQ(st.rpc.unanswered_calls, 1);
    EQ(nfs->procs[P_GETATTR].unanswered, 1);
    teardown();

    setup();
    FEED(&fa, 0, lookup_call, 0, 0);
    EQ(st.rpc.unanswered_calls, 0);
    rpc_match_flush(&m);
    EQ(st.rpc.unanswered_calls, 1);
    EQ(nfs->procs[P_LOOKUP].unanswered, 1);
    EQ(st.rpc.replies, 0);
    rpc_match_flush(&m); /* reported once */
    EQ(st.rpc.unanswered_calls, 1);
    teardown();

    /* timeout by packet time */
    setup();
    FEED(&fa, 0, lookup_call, 0, 0);
    {
        struct timespec now = { 100 + (long)cfg.call_timeout_s, 0 };
        rpc_match_expire(&m, &now);
        EQ(st.rpc.unanswered_calls, 0);
        now.tv_sec++;
        rpc_match_expire(&m, &now);
        EQ(st.rpc.unanswered_calls, 1);
    }
    FEED(&fa, 1, lookup_reply_noent, 0, 0); /* the call is gone: an orphan */
    EQ(st.rpc.orphan_replies, 1);
    teardown();
}

static void
test_flows_and_directions(void)
{
    setup();
    FEED(&fa, 0, getattr_call, 0, 0);
    FEED(&fb, 1, getattr_reply, 1000, 1000); /* same XID, other connection */
    EQ(st.rpc.replies, 0);
    EQ(st.rpc.orphan_replies, 1);
    rpc_match_flush(&m);
    EQ(st.rpc.unanswered_calls, 1);
    teardown();

    setup();
    FEED(&fa, 0, getattr_call, 0, 0);
    FEED(&fa, 0, getattr_reply, 1000, 1000); /* same direction as the call */
    EQ(st.rpc.replies, 0);
    EQ(nfs->procs[P_GETATTR].replies, 0);
    FEED(&fa, 1, getattr_reply, 3000000, 3000000); /* the real reply */
    EQ(st.rpc.replies, 1);
    EQ(nfs->procs[P_GETATTR].replies, 1);
    EQ(nfs->procs[P_GETATTR].latency.max, 3000);
    EQ(st.rpc.duplicate_replies, 0);
    rpc_match_flush(&m);
    EQ(st.rpc.unanswered_calls, 0);
    teardown();

    /* calls on both flows with the same XID: each matched on its own flow */
    setup();
    FEED(&fa, 0, getattr_call, 0, 0);
    FEED(&fb, 0, getattr_call, 0, 0);
    EQ(st.rpc.calls, 2);
    EQ(st.rpc.retransmissions, 0);
    FEED(&fb, 1, getattr_reply, 2000000, 2000000);
    FEED(&fa, 1, getattr_reply, 4000000, 4000000);
    EQ(st.rpc.replies, 2);
    EQ(nfs->procs[P_GETATTR].latency.min, 2000);
    EQ(nfs->procs[P_GETATTR].latency.max, 4000);
    teardown();
}

static void
test_retrans_duplicates_errors(void)
{
    setup();
    fa.key.proto = FLOW_PROTO_UDP; /* answered calls are remembered over UDP only */
    FEED(&fa, 0, getattr_call, 0, 0);
    FEED(&fa, 0, getattr_call, 1000000, 1000000); /* retransmission */
    EQ(st.rpc.retransmissions, 1);
    EQ(st.rpc.calls, 1);
    EQ(nfs->calls, 1);
    EQ(nfs->procs[P_GETATTR].calls, 1);
    EQ(nfs->procs[P_GETATTR].retrans, 1);
    FEED(&fa, 1, getattr_reply, 5000000, 5000000);
    EQ(st.rpc.replies, 1);
    EQ(nfs->procs[P_GETATTR].latency.max, 5000); /* from the first transmission */
    FEED(&fa, 1, getattr_reply, 6000000, 6000000); /* a second reply */
    EQ(st.rpc.duplicate_replies, 1);
    EQ(st.rpc.replies, 1);
    EQ(nfs->procs[P_GETATTR].replies, 1);
    EQ(st.rpc.orphan_replies, 0);
    EQ(anomalies_total(), 0);
    teardown();

    /* Over TCP a connection never carries a second reply to one call: the
     * answered call is forgotten at once, and a stray reply is an orphan. */
    setup();
    fa.key.proto = FLOW_PROTO_TCP;
    FEED(&fa, 0, getattr_call, 0, 0);
    FEED(&fa, 1, getattr_reply, 5000000, 5000000);
    EQ(m.xids.count, 0);
    FEED(&fa, 1, getattr_reply, 6000000, 6000000);
    EQ(st.rpc.duplicate_replies, 0);
    EQ(st.rpc.orphan_replies, 1);
    EQ(st.rpc.replies, 1);
    teardown();

    setup();
    FEED(&fa, 0, getattr_call, 0, 0);
    FEED(&fa, 1, denied_reply, 1000, 1000);
    EQ(st.rpc.rpc_errors, 1);
    EQ(st.rpc.replies, 1);
    EQ(nfs->procs[P_GETATTR].rpc_errors, 1);
    EQ(nfs->procs[P_GETATTR].errors, 1);
    EQ(nfs->procs[P_GETATTR].nstatus, 0); /* no NFS status in a denied reply */
    teardown();
}

/* The XID reused for a different call on the same connection: the first
 * call is over. Every call ends exactly once (style.md §3.7 invariant). */
static void
test_xid_reuse(void)
{
    uint8_t c[sizeof lookup_call];

    memcpy(c, lookup_call, sizeof c);
    c[0] = 0x01; /* xid 0x01000001, as the GETATTR call */
    c[3] = 0x01;

    setup(); /* first call never answered */
    FEED(&fa, 0, getattr_call, 0, 0);
    FEED(&fa, 0, c, 1000, 1000); /* LOOKUP, same XID */
    EQ(st.rpc.calls, 2);
    EQ(st.rpc.retransmissions, 0);
    EQ(st.rpc.unanswered_calls, 1);
    EQ(nfs->procs[P_GETATTR].unanswered, 1);
    rpc_match_flush(&m);
    EQ(st.rpc.unanswered_calls, 2);
    EQ(st.rpc.calls, st.rpc.replies + st.rpc.unanswered_calls);
    teardown();

    setup(); /* first call answered: nothing lost */
    FEED(&fa, 0, getattr_call, 0, 0);
    FEED(&fa, 1, getattr_reply, 1000, 1000);
    FEED(&fa, 0, c, 2000, 2000);
    EQ(st.rpc.unanswered_calls, 0);
    {
        uint8_t r[sizeof lookup_reply_noent];
        memcpy(r, lookup_reply_noent, sizeof r);
        r[0] = 0x01; /* xid 0x01000001 */
        r[3] = 0x01;
        FEED(&fa, 1, r, 3000, 3000);
    }
    EQ(st.rpc.replies, 2);
    EQ(st.rpc.duplicate_replies, 0);
    EQ(nfs->procs[P_LOOKUP].replies, 1);
    EQ(nfs->procs[P_LOOKUP].errors, 1);
    rpc_match_flush(&m);
    EQ(st.rpc.unanswered_calls, 0);
    teardown();
}

static void
test_udp(void)
{
    static const uint8_t zeros[48];
    static const uint8_t junk_reply[] = {
        0x66, 0x66, 0x66, 0x66, /* xid (no such call) */
        0x00, 0x00, 0x00, 0x01, /* msg_type REPLY */
        0x00, 0x00, 0x00, 0x00, /* reply_stat MSG_ACCEPTED */
        0x00, 0x00, 0x00, 0x63, /* verf flavor 99: unknown */
        0x00, 0x00, 0x00, 0x00, /* verf length 0 */
        0x00, 0x00, 0x00, 0x00, /* accept_stat SUCCESS */
    };
    static const uint8_t junk_call[] = {
        0x55, 0x55, 0x55, 0x55, /* xid */
        0x00, 0x00, 0x00, 0x00, /* msg_type CALL */
        0x00, 0x00, 0x00, 0x02, /* rpcvers 2 */
        0x00, 0x01, 0x86, 0xa3, /* prog 100003 */
        0x00, 0x00, 0x00, 0x03, /* vers 3 */
        0x00, 0x00, 0x00, 0x01, /* proc 1 */
        0x00, 0x00, 0x00, 0x09, /* cred flavor 9: unknown */
        0x00, 0x00, 0x00, 0x00, /* cred length 0 */
        0x00, 0x00, 0x00, 0x00, /* verf AUTH_NONE */
        0x00, 0x00, 0x00, 0x00, /* verf length 0 */
    };
    uint8_t rnd[64];
    uint64_t s = 0xdeadbeefcafef00dull;
    unsigned i;

    setup();
    feed(&fa, 0, zeros, sizeof zeros, sizeof zeros, 0, 0, true);
    feed(&fa, 0, zeros, 8, 8, 0, 0, true);
    feed(&fa, 0, junk_reply, sizeof junk_reply, sizeof junk_reply, 0, 0, true);
    feed(&fa, 0, junk_call, sizeof junk_call, sizeof junk_call, 0, 0, true);
    for (i = 0; i < 2000; i++) {
        size_t k, n;
        for (k = 0; k < sizeof rnd; k++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            rnd[k] = (uint8_t)(s >> 32);
        }
        n = (size_t)(s % (sizeof rnd + 1));
        feed(&fa, i & 1, rnd, n, (uint32_t)n, 0, 0, true);
    }
    EQ(anomalies_total(), 0);
    EQ(st.rpc.calls, 0);
    EQ(st.rpc.replies, 0);
    EQ(st.rpc.orphan_replies, 0);
    EQ(fa.rpc_seen, 0);
    rpc_match_flush(&m);
    EQ(st.rpc.unanswered_calls, 0);

    /* a real call/reply over UDP is accepted and matched */
    feed(&fa, 0, getattr_call, sizeof getattr_call, sizeof getattr_call, 0, 0, true);
    feed(&fa, 1, getattr_reply, sizeof getattr_reply, sizeof getattr_reply, 1000, 1000, true);
    EQ(st.rpc.calls, 1);
    EQ(st.rpc.replies, 1);
    EQ(fa.rpc_seen, 1);
    /* a denied reply (20 bytes) to a known call over UDP is matched too */
    feed(&fa, 0, lookup_call, sizeof lookup_call, sizeof lookup_call, 0, 0, true);
    {
        uint8_t d[sizeof denied_reply];
        memcpy(d, denied_reply, sizeof d);
        d[0] = 0x02; /* xid 0x02000002 */
        d[3] = 0x02;
        feed(&fa, 1, d, sizeof d, sizeof d, 1000, 1000, true);
    }
    EQ(st.rpc.rpc_errors, 1);
    EQ(nfs->procs[P_LOOKUP].rpc_errors, 1);
    teardown();

    /* Over UDP, junk that parses as a call cut short but fails the probe
     * (cred flavor 9, cred length 200, 40 bytes present) is not RPC. */
    setup();
    {
        uint8_t j[sizeof junk_call];
        memcpy(j, junk_call, sizeof j);
        j[31] = 200; /* cred length 200, not present */
        feed(&fa, 0, j, sizeof j, sizeof j, 0, 0, true);
    }
    EQ(anomalies_total(), 0);
    EQ(st.rpc.calls, 0);
    EQ(fa.rpc_seen, 0);
    teardown();
}

static void
test_unknown_program(void)
{
    setup();
    CHECK(rpc_program_find(400000, 1) == NULL);
    CHECK(rpc_program_find(100003, 3) != NULL);
    CHECK(rpc_program_find(100003, 4) != NULL); /* NFSv4: a program of its own */
    CHECK(rpc_program_find(100003, 5) == NULL);
    FEED(&fa, 0, other_call, 0, 0);
    EQ(st.rpc.calls, 1);
    EQ(st.rpc.unknown_program_calls, 1);
    EQ(nfs->calls, 0);
    FEED(&fa, 1, other_reply, 1000, 1000);
    EQ(st.rpc.replies, 1);
    EQ(st.rpc.orphan_replies, 0);
    EQ(nfs->replies, 0);
    rpc_match_flush(&m);
    EQ(st.rpc.unanswered_calls, 0);
    EQ(anomalies_total(), 0);
    {
        size_t i;
        uint64_t other = 0;
        for (i = 0; i < st.nprogs; i++)
            other += st.progs[i].calls + st.progs[i].replies;
        EQ(other, 0); /* no per-program table counted it */
    }
    teardown();
}

static void
test_truncated_call(void)
{
    setup();
    /* only the first 24 bytes (through proc) of a 48-byte call */
    feed(&fa, 0, getattr_call, 24, sizeof getattr_call, 0, 0, false);
    EQ(st.rpc.calls, 1);
    EQ(nfs->procs[P_GETATTR].calls, 1);
    EQ(st.anom.n[ANOM_RPC_TRUNCATED], 1);
    FEED(&fa, 1, getattr_reply, 1000000, 1000000);
    EQ(st.rpc.replies, 1);
    EQ(nfs->procs[P_GETATTR].replies, 1);
    EQ(nfs->procs[P_GETATTR].partial, 1); /* decoded from a cut call */
    teardown();

    /* 23 bytes: not even the procedure: not counted */
    setup();
    feed(&fa, 0, getattr_call, 23, sizeof getattr_call, 0, 0, false);
    EQ(st.rpc.calls, 0);
    EQ(st.anom.n[ANOM_RPC_TRUNCATED], 1);
    teardown();
}

static void
test_write(void)
{
    setup();
    /* the message carries 4096 bytes of data beyond the head */
    feed(&fa, 0, write_call, sizeof write_call, sizeof write_call + 4096, 0, 0, false);
    FEED(&fa, 1, write_reply, 2000000, 2000000);
    EQ(nfs->procs[P_WRITE].calls, 1);
    EQ(nfs->procs[P_WRITE].replies, 1);
    EQ(nfs->write.stable[STABLE_FILE_SYNC], 1);
    EQ(nfs->write.stable[STABLE_UNSTABLE], 0);
    EQ(nfs->write.committed[STABLE_FILE_SYNC], 1);
    EQ(nfs->write.committed[STABLE_UNSTABLE], 0);
    EQ(nfs->write.bytes, 4096);
    EQ(nfs->procs[P_WRITE].bytes, 4096);
    EQ(nfs->procs[P_WRITE].latency.max, 2000);
    EQ(st.rpc.auth_sys, 1);
    EQ(anomalies_total(), 0);
    teardown();
}

/* A connection from 10.0.0.1:port_c to 10.0.0.2:port_s (direction 0). */
static void
tcp_key(struct flow *f, uint16_t port_c, uint16_t port_s)
{
    static const uint8_t c[4] = { 10, 0, 0, 1 }, sv[4] = { 10, 0, 0, 2 };

    memset(&f->key, 0, sizeof f->key);
    memcpy(f->key.saddr, c, 4);
    memcpy(f->key.daddr, sv, 4);
    f->key.sport = port_c;
    f->key.dport = port_s;
    f->key.af = FLOW_AF_INET;
    f->key.proto = FLOW_PROTO_TCP;
}

/* The only row of a breakdown table is 10.0.0.last_octet (key: af, IPv4
 * address) with `calls` calls. */
static bool
only_row(enum bd_dim d, uint8_t last_octet, uint64_t calls)
{
    const struct bd_row *r[4];
    size_t n = bd_table_top(&st.bd[d], BD_BY_CALLS, r, 4);

    return n == 1 && r[0]->key_len == 5 && r[0]->key[0] == FLOW_AF_INET && r[0]->key[1] == 10 &&
           r[0]->key[4] == last_octet && r[0]->calls == calls;
}

/* The server calls the client on the client's connection (a callback, RFC
 * 8881 §2.10.3.1) with the XID of a pending client call: neither takes the
 * other's place, each reply finds its own call, and both are attributed to
 * the connection's client and server, whichever way the call went. */
static void
test_callback_same_xid(void)
{
    uint8_t cb_call[sizeof other_call], cb_reply[sizeof other_reply];
    const struct pending_call *pc;

    /* the callback: another program, the XID of getattr_call */
    memcpy(cb_call, other_call, sizeof cb_call);
    memcpy(cb_call, getattr_call, 4);
    memcpy(cb_reply, other_reply, sizeof cb_reply);
    memcpy(cb_reply, getattr_call, 4);
    for (int syn = 0; syn < 2; syn++) {
        setup();
        EQ(stats_breakdowns_init(&st, 16, 64, 7), 0);
        if (syn) { /* no well-known port: the SYN says who the client is */
            tcp_key(&fa, 40000, 50000);
            flow_note_syn(&fa, 0, false);
        } else { /* no SYN seen: the end on port 2049 is the server */
            tcp_key(&fa, 800, 2049);
        }
        FEED(&fa, 0, getattr_call, 0, 0);
        FEED(&fa, 1, cb_call, 1000000, 1000000); /* same XID, the other way */
        EQ(st.rpc.calls, 2);
        EQ(st.rpc.retransmissions, 0);
        pc = xid_conn_find(&m.xids, &fa.xc, fa.id, 1, 0x01000001);
        CHECK(pc != NULL && pc->prog == 400000 && pc->dir == 0 && pc->sent_dir == 1);
        pc = xid_conn_find(&m.xids, &fa.xc, fa.id, 0, 0x01000001);
        CHECK(pc != NULL && pc->prog == 100003 && pc->dir == 0 && pc->sent_dir == 0);
        FEED(&fa, 0, cb_reply, 2000000, 2000000);      /* the client answers the callback */
        FEED(&fa, 1, getattr_reply, 3000000, 3000000); /* the server answers the call */
        EQ(st.rpc.replies, 2);
        EQ(st.rpc.orphan_replies, 0);
        EQ(nfs->procs[P_GETATTR].replies, 1);
        EQ(nfs->procs[P_GETATTR].latency.max, 3000);
        rpc_match_flush(&m);
        EQ(st.rpc.unanswered_calls, 0);
        CHECK(only_row(BD_CLIENT, 1, 2)); /* 10.0.0.1 made both calls' connection */
        CHECK(only_row(BD_SERVER, 2, 2));
        teardown();
    }

    /* nothing but the first call to go by: its sender is the client */
    setup();
    EQ(stats_breakdowns_init(&st, 16, 64, 7), 0);
    tcp_key(&fa, 40000, 50000);
    FEED(&fa, 1, getattr_call, 0, 0);
    FEED(&fa, 0, cb_call, 0, 0);
    FEED(&fa, 0, getattr_reply, 1000, 1000);
    FEED(&fa, 1, cb_reply, 1000, 1000);
    EQ(st.rpc.replies, 2);
    EQ(st.rpc.orphan_replies, 0);
    CHECK(only_row(BD_CLIENT, 2, 2));
    teardown();
}

/* A client that reconnects on the same ports and resends a pending call
 * with its XID: a retransmission across the reconnect, timed from the first
 * transmission; a call of the old connection not resent is not answered by
 * a reply on the new one (an orphan), and ends unanswered. */
static void
test_reconnect(void)
{
    setup();
    tcp_key(&fa, 800, 2049);
    FEED(&fa, 0, getattr_call, 0, 0);
    FEED(&fa, 0, lookup_call, 0, 0);
    fa.prev_id = fa.id; /* flow_table_renew */
    fa.id = 9;
    FEED(&fa, 0, getattr_call, 1000000000, 1000000000); /* resent at +1 s */
    EQ(st.rpc.calls, 2);
    EQ(st.rpc.retransmissions, 1);
    FEED(&fa, 1, getattr_reply, 1500000000, 1500000000);
    EQ(st.rpc.replies, 1);
    EQ(nfs->procs[P_GETATTR].latency.max, 1500000);
    FEED(&fa, 1, lookup_reply_noent, 1600000000, 1600000000);
    EQ(st.rpc.orphan_replies, 1);
    rpc_match_flush(&m);
    EQ(st.rpc.unanswered_calls, 1);
    EQ(nfs->procs[P_LOOKUP].calls, 1);
    EQ(nfs->procs[P_LOOKUP].replies, 0);
    teardown();

    /* another procedure under the old XID is a new call, not a resend */
    setup();
    tcp_key(&fa, 800, 2049);
    FEED(&fa, 0, getattr_call, 0, 0);
    fa.prev_id = fa.id;
    fa.id = 9;
    {
        uint8_t c[sizeof lookup_call];

        memcpy(c, lookup_call, sizeof c);
        memcpy(c, getattr_call, 4);
        FEED(&fa, 0, c, 1000, 1000);
    }
    EQ(st.rpc.calls, 2);
    EQ(st.rpc.retransmissions, 0);
    teardown();
}

/* krb5i: the arguments and results are decoded after their seq_num, past a
 * reply verifier of 12 bytes; a databody_integ longer than the message is a
 * decode error. */
static void
test_gss_integrity(void)
{
    const struct proc_stats *p;

    setup();
    FEED(&fa, 0, gss_integ_lookup_call, 0, 0);
    FEED(&fa, 1, gss_integ_lookup_reply, 300000, 300000);
    p = &nfs->procs[P_LOOKUP];
    EQ(p->calls, 1);
    EQ(p->replies, 1);
    EQ(p->errors, 1); /* NFS3ERR_NOENT, read inside the integrity wrapping */
    EQ(p->nstatus, 1);
    EQ(p->status[0].status, 2);
    EQ(p->latency.max, 300);
    EQ(nfs->gss.data[RPC_GSS_SVC_INTEGRITY - 1], 1);
    EQ(st.rpc.gss.data[RPC_GSS_SVC_INTEGRITY - 1], 1);
    EQ(st.rpc.auth_gss, 1);
    EQ(anomalies_total(), 0);
    FEED(&fa, 0, gss_integ_bad_call, 400000, 400000);
    EQ(nfs->procs[P_GETATTR].calls, 1);
    EQ(st.anom.n[ANOM_NFS_DECODE_ERROR], 1);
    teardown();
}

/* krb5p: counted and timed under its procedure, its body never decoded. */
static void
test_gss_privacy(void)
{
    const struct proc_stats *p;

    setup();
    FEED(&fa, 0, gss_priv_getattr_call, 0, 0);
    FEED(&fa, 1, gss_priv_getattr_reply, 250000, 250000);
    p = &nfs->procs[P_GETATTR];
    EQ(p->calls, 1);
    EQ(p->replies, 1);
    EQ(p->errors, 0);
    EQ(p->nstatus, 0); /* no status seen: the results are encrypted */
    EQ(p->latency.count, 1);
    EQ(p->latency.max, 250);
    EQ(nfs->gss.data[RPC_GSS_SVC_PRIVACY - 1], 1);
    EQ(anomalies_total(), 0);
    teardown();
}

/* INIT and DESTROY are counted in their own rows, not as NULL calls. */
static void
test_gss_control(void)
{
    setup();
    FEED(&fa, 0, gss_init_call, 0, 0);
    FEED(&fa, 1, gss_init_reply, 800000, 800000);
    FEED(&fa, 0, gss_destroy_call, 900000, 900000);
    EQ(nfs->procs[0].calls, 0);
    EQ(nfs->procs[0].replies, 0);
    EQ(nfs->calls, 2);
    EQ(nfs->replies, 1);
    EQ(st.rpc.calls, 2);
    EQ(st.rpc.replies, 1);
    EQ(nfs->gss_ctl[GSS_CTL_INIT].calls, 1);
    EQ(nfs->gss_ctl[GSS_CTL_INIT].replies, 1);
    EQ(nfs->gss_ctl[GSS_CTL_INIT].latency.max, 800);
    EQ(nfs->gss.ctl[GSS_CTL_INIT], 1);
    EQ(st.rpc.gss.ctl[GSS_CTL_DESTROY], 1);
    EQ(nfs->gss.data[0] + nfs->gss.data[1] + nfs->gss.data[2], 0);
    rpc_match_flush(&m);
    EQ(nfs->gss_ctl[GSS_CTL_DESTROY].unanswered, 1);
    EQ(nfs->procs[0].unanswered, 0);
    EQ(st.rpc.unanswered_calls, 1);
    EQ(anomalies_total(), 0);
    teardown();
}

/* With the view's per-row procedure tables on, a control message is no
 * NULL call there either: the client row has only the plain NULL. */
static void
test_gss_control_by_proc(void)
{
    const struct bd_procs *bp;
    const struct bd_proc *e;
    uint32_t n = 0;

    setup();
    EQ(stats_breakdowns_init(&st, 64, 64, 0x99), 0);
    EQ(stats_by_proc_init(&st), 0);
    fa.key.af = FLOW_AF_INET;
    FEED(&fa, 0, gss_init_call, 0, 0);
    FEED(&fa, 1, gss_init_reply, 100000, 100000);
    FEED(&fa, 0, gss_priv_getattr_call, 200000, 200000);
    FEED(&fa, 1, gss_priv_getattr_reply, 300000, 300000);
    bp = st.bd[BD_CLIENT].procs;
    CHECK(bp != NULL);
    EQ(st.bd[BD_CLIENT].rows[fa.bdc.idx[BD_CLIENT]].calls, 2); /* both are its calls */
    e = bd_procs_row(bp, fa.bdc.idx[BD_CLIENT], fa.bdc.gen[BD_CLIENT], &n);
    CHECK(e != NULL);
    EQ(n, 1); /* getattr only */
    if (e && n == 1)
        EQ(e[0].calls, 1);
    teardown();
}

/* The AUTH_TLS probe answered "STARTTLS" switches a TCP connection to TLS. */
static void
test_tls_probe(void)
{
    const struct prog_stats *v4;

    setup();
    v4 = stats_prog_by_name(&st, "nfs4");
    CHECK(v4 != NULL);
    fa.key.proto = FLOW_PROTO_TCP;
    FEED(&fa, 0, tls_probe_call, 0, 0);
    EQ(fa.tls, 0);
    FEED(&fa, 1, tls_probe_reply, 100000, 100000);
    EQ(fa.tls, 1);
    EQ(fa.tls_idx, 0);
    EQ(st.tls.connections, 1);
    EQ(st.tls.n, 1);
    EQ(st.tls.c[0].client_dir, 0);
    EQ(st.rpc.auth_tls, 1);
    EQ(v4->procs[0].calls, 1); /* the probe is a NULL call */
    EQ(v4->procs[0].replies, 1);
    /* The same verifier on a reply to a call without AUTH_TLS does nothing. */
    fb.key.proto = FLOW_PROTO_TCP;
    FEED(&fb, 0, getattr_call, 0, 0);
    {
        uint8_t r[sizeof tls_probe_reply];

        memcpy(r, tls_probe_reply, sizeof r);
        memcpy(r, getattr_call, 4); /* its xid */
        FEED(&fb, 1, r, 100000, 100000);
    }
    EQ(fb.tls, 0);
    EQ(st.tls.connections, 1);
    teardown();
}

int
main(void)
{
    test_matched();
    test_orphan_and_unanswered();
    test_flows_and_directions();
    test_retrans_duplicates_errors();
    test_xid_reuse();
    test_udp();
    test_unknown_program();
    test_truncated_call();
    test_write();
    test_callback_same_xid();
    test_reconnect();
    test_gss_integrity();
    test_gss_privacy();
    test_gss_control();
    test_gss_control_by_proc();
    test_tls_probe();
    return t_done();
}
